/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The crash-restore dispatcher: by the state group's name, through the
 * actuators' and the cell programs' registries. */
#include "config.h"

#include <string.h>

#include "wlanfair-apd-restore.h"

#include "wlanfair-actuator.h"
#include "wlanfair-cell-program.h"
#include "wlanfair-error.h"

typedef gboolean (*RestoreFunc) (const char *ifname, WfApdState *state, GError **error);

static RestoreFunc
restore_func (const char *name)
{
  const WfActuatorOps *a = wf_actuator_find (name);
  const WfCellProgramOps *p = a ? NULL : wf_cell_program_find (name);

  return a ? a->restore : p ? p->restore : NULL;
}

gboolean
wf_apd_restore_all (WfApdState *state, GError **error)
{
  g_auto(GStrv) groups = wf_apd_state_groups (state);
  g_autoptr(GError) first = NULL;

  for (guint k = 0; groups[k]; k++)
    {
      g_autoptr(GError) local = NULL;
      const char *colon = strchr (groups[k], ':');
      g_autofree char *name = colon ? g_strndup (groups[k], (gsize) (colon - groups[k])) : NULL;
      RestoreFunc restore = colon && colon[1] ? restore_func (name) : NULL;

      if (!restore)
        g_set_error (&local, WF_ERROR, WF_ERROR_PARSE,
                     "%s: [%s] names no known actuator or cell program and interface; "
                     "left as is", wf_apd_state_path (state), groups[k]);
      else if (restore (colon + 1, state, &local))
        {
          wf_apd_state_remove_group (state, groups[k]);
          if (wf_apd_state_save (state, &local))
            {
              g_message ("%s on %s: restored what an earlier instance changed", name, colon + 1);
              continue;
            }
        }
      /* The first goes to the caller; the others are said here. */
      if (!first)
        first = g_steal_pointer (&local);
      else
        g_warning ("%s", local->message);
    }
  if (first)
    {
      g_propagate_error (error, g_steal_pointer (&first));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_apd_restore (const char *state_path, GError **error)
{
  g_autoptr(WfApdState) st = wf_apd_state_open (state_path, error);

  if (!st)
    return FALSE;
  if (wf_apd_state_is_empty (st))
    return TRUE;
  return wf_apd_restore_all (st, error);
}
