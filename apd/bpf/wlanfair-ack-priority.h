/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ack-priority= (apd.conf): the BPF program of wlanfair-ack-priority.bpf.c at
 * tc egress of the AP interface, re-marking the stations' pure ACKs and
 * handshakes CS6 (access category voice). Cell-wide, not per station: it
 * runs from the daemon's start to its stop, in every mode. Recorded in
 * the state file (group "ack-priority:<ifname>") before it is attached,
 * so --restore and the next start remove it after a crash. */
#pragma once

#include <glib.h>

#include "wlanfair-ack-priority-shared.h"
#include "wlanfair-apd-state.h"

G_BEGIN_DECLS

#define WF_ACK_PRIO_NAME     "ack-priority"   /* its state group's prefix */
#define WF_ACK_PRIO_TC_HANDLE 0xfa2u
#define WF_ACK_PRIO_TC_PRIO   0xfa0u          /* ahead of rwnd's 0xfa1 */

typedef struct _WfAckPrio WfAckPrio;

/* Whether the program loads here (nothing attached). */
gboolean   wf_ack_prio_probe (GError **error);
/* Loads, records, attaches. On failure nothing is left (and nothing
 * recorded, unless undoing failed: then --restore finishes it). */
WfAckPrio *wf_ack_prio_start (const char *ifname, WfApdState *state, GError **error);
/* Detaches (clsact too if the start created it) and forgets the record;
 * frees ap either way. */
gboolean   wf_ack_prio_stop (WfAckPrio *ap, GError **error);
/* After a crash: what the state's group for ifname says was attached.
 * Idempotent; leaves the group for the caller to remove. */
gboolean   wf_ack_prio_restore (const char *ifname, WfApdState *state, GError **error);
/* The counters since the start, every CPU's summed (indexed by the
 * counters of wlanfair-ack-priority-shared.h). */
gboolean   wf_ack_prio_counters (WfAckPrio *ap, guint64 out[WF_ACK_PRIO_N], GError **error);
/* Whether ifname has our filter (tests, --check). */
gboolean   wf_ack_prio_attached (const char *ifname);
const char *wf_ack_prio_ifname (WfAckPrio *ap);

G_END_DECLS
