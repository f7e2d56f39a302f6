/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cell programs' registry and the started set: one order of starts
 * and stops, one way of saying what failed. */
#include "config.h"

#include "wlanfair-cell-program.h"

#include "wlanfair-error.h"
#include "wlanfair-ratelimit.h"

/* Start order (stops reverse it). The order the filters run in is
 * their tc priorities', not this. */
static const WfCellProgramOps *const programs[] = {
#ifdef WF_HAVE_BPF
  &wf_cell_ack_priority,
  &wf_cell_download_demand,
#endif
  NULL,
};

typedef struct {
  const WfCellProgramOps *ops;
  gpointer                priv;
} Started;

struct _WfCellPrograms {
  GArray      *started;   /* Started, in start order */
  WfRatelimit *once;      /* after_dump failures, by name: once until it works */
};

static gboolean
ack_priority_required (const WfApdConfig *c)
{
  return c->ack_priority;
}

static gboolean
download_demand_required (const WfApdConfig *c)
{
  return c->download_demand == WF_APD_DEMAND_YES;
}

const WfCellProgramOps *const *
wf_cell_program_list (void)
{
  return programs;
}

const WfCellProgramOps *
wf_cell_program_find (const char *name)
{
  for (guint k = 0; name && programs[k]; k++)
    if (g_str_equal (programs[k]->name, name))
      return programs[k];
  return NULL;
}

gboolean
wf_cell_program_check_config (const WfApdConfig *c, GError **error)
{
  /* By name: a program not built is not in the registry to ask. */
  static const struct { const char *name; gboolean (*required) (const WfApdConfig *c); } keys[] = {
    { "ack-priority", ack_priority_required },
    { "download-demand", download_demand_required },
  };

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    if (keys[k].required (c) && !wf_cell_program_find (keys[k].name))
      {
        g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                     "%s=yes needs its BPF program, which this build lacks "
                     "(no BPF toolchain at build time)", keys[k].name);
        return FALSE;
      }
  return TRUE;
}

gboolean
wf_cell_program_any_wanted (const WfApdConfig *c, gboolean may_act)
{
  for (guint k = 0; programs[k]; k++)
    if (programs[k]->wanted (c, may_act) != WF_CELL_PROGRAM_OFF)
      return TRUE;
  return FALSE;
}

WfCellPrograms *
wf_cell_programs_start (const WfApdConfig *c, gboolean may_act, WfApdState *state,
                        GError **error)
{
  WfCellPrograms *p = g_new0 (WfCellPrograms, 1);

  p->started = g_array_new (FALSE, TRUE, sizeof (Started));
  p->once = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
  for (guint k = 0; programs[k]; k++)
    {
      const WfCellProgramOps *ops = programs[k];
      WfCellProgramWant want = ops->wanted (c, may_act);
      g_autoptr(GError) local = NULL;
      Started s = { ops, NULL };

      if (want == WF_CELL_PROGRAM_OFF)
        continue;
      if ((s.priv = ops->start (c->interface, state, &local)))
        {
          g_array_append_val (p->started, s);
          continue;
        }
      if (want == WF_CELL_PROGRAM_REQUIRED)
        {
          g_autoptr(GError) undo = NULL;

          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s=yes: ", ops->name);
          if (!wf_cell_programs_stop (p, &undo))
            g_critical ("%s (wlanfair-apd --restore retries)", undo->message);
          return NULL;
        }
      g_warning ("%s (%s=auto): %s; %s=no says so without this warning", local->message,
                 ops->name, ops->without, ops->name);
    }
  return p;
}

gboolean
wf_cell_programs_stop (WfCellPrograms *p, GError **error)
{
  g_autoptr(GError) first = NULL;

  if (!p)
    return TRUE;
  for (guint i = p->started->len; i-- > 0;)
    {
      Started *s = &g_array_index (p->started, Started, i);
      g_autoptr(GError) local = NULL;

      if (s->ops->stop (g_steal_pointer (&s->priv), &local))
        continue;
      if (!first)
        first = g_steal_pointer (&local);
      else
        g_critical ("%s (wlanfair-apd --restore retries)", local->message);
    }
  g_array_unref (p->started);
  wf_ratelimit_free (p->once);
  g_free (p);
  if (first)
    {
      g_propagate_error (error, g_steal_pointer (&first));
      return FALSE;
    }
  return TRUE;
}

void
wf_cell_programs_after_dump (WfCellPrograms *p, WfApdStations *t)
{
  for (guint i = 0; p && i < p->started->len; i++)
    {
      Started *s = &g_array_index (p->started, Started, i);
      g_autoptr(GError) local = NULL;

      if (!s->ops->after_dump)
        continue;
      if (!s->ops->after_dump (s->priv, t, &local))
        {
          if (wf_ratelimit_check (p->once, s->ops->name, NULL))
            g_warning ("%s: %s until it can be read again", local->message, s->ops->without);
        }
      else if (wf_ratelimit_clear (p->once, s->ops->name, NULL))
        g_message ("%s: it can be read again", s->ops->name);
    }
}

void
wf_cell_programs_view (WfCellPrograms *p, WfApdView *v)
{
  for (guint i = 0; p && i < p->started->len; i++)
    {
      Started *s = &g_array_index (p->started, Started, i);

      if (s->ops->view)
        s->ops->view (s->priv, v);
    }
}
