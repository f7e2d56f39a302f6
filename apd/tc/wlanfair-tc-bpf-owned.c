/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Attaching, recording and restoring an owned tc BPF program. */
#include "config.h"

#include "wlanfair-tc-bpf-owned.h"

#include "wlanfair-actuator.h"   /* the state's group names */

static gboolean
record (WfTcBpfOwned *o, const char *key, const char *value, GError **error)
{
  wf_apd_state_set (o->state, o->group, key, value);
  return wf_apd_state_save (o->state, error);
}

static gboolean
forget (WfApdState *state, const char *group, GError **error)
{
  wf_apd_state_remove_group (state, group);
  return wf_apd_state_save (state, error);
}

gboolean
wf_tc_bpf_owned_attach (WfTcBpfOwned *o, const WfTcBpfSpec *spec, int prog_fd,
                        const char *ifname, WfApdState *state, GError **error)
{
  g_autoptr(GError) undo = NULL;
  gboolean created = FALSE;

  o->state = state;
  o->group = wf_actuator_group (spec->what, ifname);
  /* Recorded first: a crash from here on leaves a filter that restore
   * removes (and, before "clsact" is written, an empty clsact qdisc). */
  if (!record (o, "filters", "egress", error))
    return FALSE;
  if (!wf_tc_bpf_attach (&o->link, spec, prog_fd, ifname, &created, error) ||
      !record (o, "clsact", created ? "created" : "kept", error))
    {
      if (!wf_tc_bpf_detach (&o->link, &undo) || !forget (state, o->group, &undo))
        g_warning ("%s: undoing a failed start: %s (left in %s for --restore)", o->group,
                   undo->message, wf_apd_state_path (state));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_tc_bpf_owned_restore (const WfTcBpfSpec *spec, const char *ifname, WfApdState *state,
                         GError **error)
{
  g_autofree char *group = wf_actuator_group (spec->what, ifname);
  g_autofree char *filters = wf_apd_state_get (state, group, "filters");
  g_autofree char *clsact = wf_apd_state_get (state, group, "clsact");

  if (!filters)
    return TRUE;
  return wf_tc_bpf_detach_ifname (spec, ifname, clsact && g_str_equal (clsact, "created"),
                                  error);
}

gboolean
wf_tc_bpf_owned_detach (WfTcBpfOwned *o, GError **error)
{
  g_autoptr(GError) local = NULL;
  const char *ifname = o->link.ifname[0] ? o->link.ifname : NULL;

  /* Failing that, the path after a crash: by the record. */
  if (!wf_tc_bpf_detach (&o->link, &local))
    {
      g_info ("%s (restoring from the record next)", local->message);
      if (ifname && o->link.spec &&
          !wf_tc_bpf_owned_restore (o->link.spec, ifname, o->state, error))
        return FALSE;
    }
  return forget (o->state, o->group, error);
}

void
wf_tc_bpf_owned_clear (WfTcBpfOwned *o)
{
  g_clear_pointer (&o->group, g_free);
}
