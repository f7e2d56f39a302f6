/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tc BPF program of wlanfair-apd's own that is no actuator (ack-priority=,
 * download-demand=): cell-wide, from the daemon's start to its stop, in
 * every mode. Recorded in the state file (group "<what>:<ifname>") before
 * it is attached, so --restore and the next start remove it after a
 * crash. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-state.h"
#include "wlanfair-tc-bpf.h"

G_BEGIN_DECLS

typedef struct {
  WfTcBpfLink  link;
  WfApdState  *state;   /* not owned */
  char        *group;
} WfTcBpfOwned;

/* Records, attaches. On failure nothing is left (and nothing recorded,
 * unless undoing failed: then --restore finishes it). */
gboolean wf_tc_bpf_owned_attach (WfTcBpfOwned *o, const WfTcBpfSpec *spec, int prog_fd,
                                 const char *ifname, WfApdState *state, GError **error);
/* Detaches (clsact too if the attach created it) and forgets the record. */
gboolean wf_tc_bpf_owned_detach (WfTcBpfOwned *o, GError **error);
/* After a crash: what the state's group for ifname says was attached.
 * Idempotent; leaves the group for the caller to remove. */
gboolean wf_tc_bpf_owned_restore (const WfTcBpfSpec *spec, const char *ifname,
                                  WfApdState *state, GError **error);
void     wf_tc_bpf_owned_clear (WfTcBpfOwned *o);

G_END_DECLS
