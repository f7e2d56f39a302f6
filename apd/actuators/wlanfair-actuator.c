/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actuator registry and the wrappers that keep every actuator to the
 * same order of calls (probe, start, set/forget, stop) and to the record
 * of changes (a crashed run's: wlanfair-apd-restore.c). */
#include "config.h"

#include <net/if.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"

/* Built in, like power-profiles-daemon's drivers: one package ships them
 * all, so a plugin ABI would buy nothing. The fake is last: it only
 * probes where a test asks for it. */
static const WfActuatorOps *const actuators[] = {
  &wf_actuator_rate,
  &wf_actuator_delay,
  &wf_actuator_airtime,
#ifdef WF_HAVE_BPF
  &wf_actuator_rwnd,
#endif
  &wf_actuator_fake,
  NULL,
};

const WfActuatorOps *const *
wf_actuator_list (void)
{
  return actuators;
}

const WfActuatorOps *
wf_actuator_find (const char *name)
{
  for (guint k = 0; name && actuators[k]; k++)
    if (g_str_equal (actuators[k]->name, name))
      return actuators[k];
  return NULL;
}

static char *
known_names (void)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; actuators[k]; k++)
    g_string_append_printf (s, "%s%s", k ? ", " : "", actuators[k]->name);
  return g_string_free (s, FALSE);
}

char *
wf_actuator_group (const char *name, const char *ifname)
{
  return g_strdup_printf ("%s:%s", name, ifname);
}

gboolean
wf_actuator_record (WfActuator *a, const char *key, const char *value, GError **error)
{
  g_autofree char *group = wf_actuator_group (a->ops->name, a->ifname);

  if (value)
    wf_apd_state_set (a->state, group, key, value);
  else
    wf_apd_state_remove (a->state, group, key);
  return wf_apd_state_save (a->state, error);
}

WfActuator *
wf_actuator_new (const char *name, const char *ifname, WfApdState *state, GError **error)
{
  const WfActuatorOps *ops = wf_actuator_find (name);
  WfActuator *a;

  g_return_val_if_fail (state != NULL, NULL);
  if (!ops)
    {
      g_autofree char *known = known_names ();

      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "unknown actuator '%s' (known: %s)", name ? name : "", known);
      return NULL;
    }
  if (!ifname || !*ifname || strlen (ifname) >= IF_NAMESIZE || strchr (ifname, ':'))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "%s: '%s' is not an interface name", name, ifname ? ifname : "");
      return NULL;
    }
  a = g_new0 (WfActuator, 1);
  a->ops = ops;
  g_strlcpy (a->ifname, ifname, sizeof a->ifname);
  a->ifindex = (int) if_nametoindex (ifname);
  a->state = state;
  if (ops->priv_size)
    a->priv = g_malloc0 (ops->priv_size);
  return a;
}

void
wf_actuator_free (WfActuator *a)
{
  if (!a)
    return;
  if (a->ops->finalize)
    a->ops->finalize (a);
  g_free (a->priv);
  g_free (a);
}

gboolean
wf_actuator_probe (WfActuator *a, GError **error)
{
  a->probed = a->ops->probe (a, error);
  return a->probed;
}

/* After a successful stop or restore: nothing of `name` on `ifname` is
 * left to undo. */
static gboolean
forget_group (WfApdState *state, const char *name, const char *ifname, GError **error)
{
  g_autofree char *group = wf_actuator_group (name, ifname);

  wf_apd_state_remove_group (state, group);
  return wf_apd_state_save (state, error);
}

gboolean
wf_actuator_start (WfActuator *a, GError **error)
{
  g_autoptr(GError) undo = NULL;

  if (!a->probed || a->started)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s on %s: %s", a->ops->name, a->ifname,
                   a->started ? "started already" : "start before a successful probe");
      return FALSE;
    }
  /* What an earlier instance changed must be undone first: its record
   * of what was there before would be overwritten with its own doing. */
  {
    g_autofree char *group = wf_actuator_group (a->ops->name, a->ifname);
    g_auto(GStrv) keys = wf_apd_state_keys (a->state, group);

    if (keys[0])
      {
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                     "%s on %s: %s records changes not undone yet; restore them first",
                     a->ops->name, a->ifname, wf_apd_state_path (a->state));
        return FALSE;
      }
  }
  if (a->ops->start (a, error))
    {
      a->started = TRUE;
      g_message ("%s on %s: started (%s)", a->ops->name, a->ifname, a->ops->summary);
      return TRUE;
    }
  /* Half done is worse than not at all: undo what the record says. */
  if (!a->ops->restore (a->ifname, a->state, &undo) ||
      !forget_group (a->state, a->ops->name, a->ifname, &undo))
    g_warning ("%s on %s: undoing a failed start: %s (left in %s for --restore)",
               a->ops->name, a->ifname, undo->message, wf_apd_state_path (a->state));
  return FALSE;
}

static gboolean
need_started (WfActuator *a, const char *what, GError **error)
{
  if (a->started)
    return TRUE;
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s on %s: %s before a successful start",
               a->ops->name, a->ifname, what);
  return FALSE;
}

gboolean
wf_actuator_set (WfActuator *a, const WfApdStation *sta, const WfActuatorSetting *setting,
                 GError **error)
{
  g_return_val_if_fail (sta != NULL && setting != NULL, FALSE);
  if (!need_started (a, "set", error))
    return FALSE;
  return a->ops->set (a, sta, setting, error);
}

gboolean
wf_actuator_forget (WfActuator *a, const guint8 mac[6], GError **error)
{
  if (!need_started (a, "forget", error))
    return FALSE;
  return a->ops->forget (a, mac, error);
}

gboolean
wf_actuator_stop (WfActuator *a, GError **error)
{
  if (!a->started)
    return TRUE;
  /* Whatever happens, this instance is done: a failed stop leaves its
   * record for --restore, never a half-working actuator. */
  a->started = FALSE;
  if (!a->ops->stop (a, error))
    {
      g_warning ("%s on %s: stopping failed; what it changed stays recorded in %s",
                 a->ops->name, a->ifname, wf_apd_state_path (a->state));
      return FALSE;
    }
  if (!forget_group (a->state, a->ops->name, a->ifname, error))
    return FALSE;
  g_message ("%s on %s: stopped, changes undone", a->ops->name, a->ifname);
  return TRUE;
}

gboolean
wf_actuator_refresh (WfActuator *a, GError **error)
{
  if (!a->started || !a->ops->refresh)
    return TRUE;
  return a->ops->refresh (a, error);
}

JsonNode *
wf_actuator_status (WfActuator *a)
{
  if (!a || !a->started || !a->ops->status)
    return NULL;
  return a->ops->status (a);
}
