/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Repair of the congestion window after the kernel skipped one of our
 * callbacks; shared by the BPF programs and tests/test-ca-repair.c.
 *
 * Measured on kernel 6.18 (docs/ackloss.md, "Skipped callbacks"): while
 * another CPU runs BPF congestion-control code, the kernel now and then
 * calls a struct_ops member without running its program, and a member that
 * returns a value then returns whatever the trampoline's return slot held
 * (every time 0x81102d10, a kernel text address). A skipped ssthresh()
 * leaves that in snd_ssthresh; PRR then derives a cwnd in the billions and
 * the flow floods the bottleneck until some 30 halvings bring it back (the
 * "hog" flows of the struct_ops pass-through runs). A skipped undo_cwnd()
 * leaves it in snd_cwnd. With every process and interrupt on one CPU none
 * occurred; with two, about 1 in 300 ssthresh() calls.
 *
 * The glue checks the window at every ACK it sees (in_ack_event runs before
 * the kernel's loss recovery and cwnd update for that ACK) and puts back
 * what the skipped callback would have produced. What cannot be repaired:
 * the one burst sent on the ACK that entered recovery with the bad value. */
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

/* The largest ssthresh the kernel stores (TCP_INFINITE_SSTHRESH); no path
 * stores a larger ssthresh or cwnd (tcp_snd_cwnd_set() warns on one). */
#define WF_CA_INFINITE_SSTHRESH 0x7fffffffu
/* A cwnd to fall back on when nothing known is sane: the initial window. */
#define WF_CA_FALLBACK_CWND 10u

enum {
  WF_CA_REPAIR_SSTHRESH = 1,
  WF_CA_REPAIR_CWND = 2,
};

/* The tcp_sock fields the check reads, and the TCP_CA_* state. */
struct wf_ca_window {
  __u32 cwnd;
  __u32 ssthresh;
  __u32 prior_cwnd;     /* cwnd when the last reduction began */
  __u32 prior_ssthresh; /* what an undo would restore */
  __u8 ca_state;
};

/* Which of cwnd and ssthresh no kernel path could have produced.
 * ssthresh: above the infinite value; or, inside a reduction (CWR,
 * Recovery, Loss), above the cwnd the reduction started from while being
 * neither infinite nor the value an undo restores: every ssthresh() of
 * Reno and CUBIC returns at most max(cwnd, 2) for the cwnd it is called
 * with, and the kernel sets prior_cwnd to that cwnd just before the call. */
static __always_inline __u32
wf_ca_repair_check (const struct wf_ca_window *w)
{
  __u32 bad = 0;
  __u32 ceiling = w->prior_cwnd > 2 ? w->prior_cwnd : 2;

  if (w->ssthresh > WF_CA_INFINITE_SSTHRESH)
    bad |= WF_CA_REPAIR_SSTHRESH;
  else if (w->ca_state >= 2 /* TCP_CA_CWR */ && w->ssthresh != WF_CA_INFINITE_SSTHRESH &&
           w->ssthresh != w->prior_ssthresh && w->ssthresh > ceiling)
    bad |= WF_CA_REPAIR_SSTHRESH;
  if (w->cwnd > WF_CA_INFINITE_SSTHRESH)
    bad |= WF_CA_REPAIR_CWND;
  return bad;
}

static __always_inline int
wf_ca_sane (__u32 v)
{
  return v >= 2 && v < WF_CA_INFINITE_SSTHRESH;
}

/* The cwnd the base CC's ssthresh() is recomputed from: the cwnd the
 * reduction started from. */
static __always_inline __u32
wf_ca_repair_base_cwnd (const struct wf_ca_window *w)
{
  return wf_ca_sane (w->prior_cwnd) ? w->prior_cwnd : WF_CA_FALLBACK_CWND;
}

/* Reno's ssthresh() for that cwnd: max(cwnd / 2, 2). */
static __always_inline __u32
wf_ca_repair_reno_ssthresh (const struct wf_ca_window *w)
{
  __u32 half = wf_ca_repair_base_cwnd (w) / 2;

  return half > 2 ? half : 2;
}

/* The cwnd to put back, given a sane w->ssthresh: outside a reduction the
 * skipped callback was undo_cwnd(), whose target is prior_cwnd; inside one,
 * ssthresh, which PRR or the end of recovery move cwnd to anyway. */
static __always_inline __u32
wf_ca_repair_cwnd (const struct wf_ca_window *w)
{
  __u32 first = w->ca_state >= 2 ? w->ssthresh : w->prior_cwnd;
  __u32 second = w->ca_state >= 2 ? w->prior_cwnd : w->ssthresh;

  if (wf_ca_sane (first))
    return first;
  if (wf_ca_sane (second))
    return second;
  return WF_CA_FALLBACK_CWND;
}
