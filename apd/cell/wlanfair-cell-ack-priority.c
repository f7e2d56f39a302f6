/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ack-priority= as a cell program: the stations' pure ACKs and handshakes
 * to the voice category (bpf/wlanfair-ack-priority.h). */
#include "config.h"

#include "wlanfair-cell-program.h"

#include "wlanfair-ack-priority.h"

static WfCellProgramWant
wanted (const WfApdConfig *c, gboolean may_act)
{
  (void) may_act;
  /* Independent of the reports: on whenever it is configured. */
  return c->ack_priority ? WF_CELL_PROGRAM_REQUIRED : WF_CELL_PROGRAM_OFF;
}

static gpointer
start (const char *ifname, WfApdState *state, GError **error)
{
  return wf_ack_prio_start (ifname, state, error);
}

static gboolean
stop (gpointer priv, GError **error)
{
  return wf_ack_prio_stop (priv, error);
}

static void
view (gpointer priv, WfApdView *v)
{
  guint64 ap[WF_ACK_PRIO_N];
  g_autoptr(GError) error = NULL;

  v->ack_priority_on = TRUE;
  if (!wf_ack_prio_counters (priv, ap, &error))
    {
      /* Left at zero this round: the counters are all it would show. */
      g_debug ("%s", error->message);
      return;
    }
  v->ack_priority_packets = ap[WF_ACK_PRIO_MARKED_PACKETS];
  v->ack_priority_bytes = ap[WF_ACK_PRIO_MARKED_BYTES];
  v->ack_priority_kept = ap[WF_ACK_PRIO_KEPT_PACKETS];
}

const WfCellProgramOps wf_cell_ack_priority = {
  .name = WF_ACK_PRIO_NAME,
  .without = "pure ACKs wait behind the downloads' data",
  .wanted = wanted,
  .probe = wf_ack_prio_probe,
  .start = start,
  .stop = stop,
  .restore = wf_ack_prio_restore,
  .view = view,
};
