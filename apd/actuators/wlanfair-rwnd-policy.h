/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rwnd actuator's policies (apd.conf rwnd-policy=): the arithmetic
 * that turns rates and RTTs into per-flow target windows, pure (no BPF,
 * no kernel), so that tests/apd/test-rwnd-policy.c can check it by hand.
 *
 *   station   the controller's per-station rate, split equally among the
 *             station's flows that move data: window = share x RTT_i
 *   equal     SAP-LAW: every flow the same window, sized so that the
 *             shortest-RTT flow gets (C - other) / N: window =
 *             (C - other) / N x min RTT (long-RTT flows get less)
 *   rtt-fair  SAP-LAW's RTT-fair variant: window_i = (C - other) x RTT_i
 *             / sum_j (RTT_j / baseRTT_j), so every flow's throughput
 *             window_i / RTT_i is the same (C - other) / sum_j (...);
 *             in the sum RTT_j is the standing RTT (without the bursts
 *             every window makes: those are not a queue to drain)
 *
 * C is the configured capacity (rwnd-capacity=), `other` the non-TCP load
 * the program counted, N the number of flows that moved data. See
 * docs/ap-controller.md for the derivation. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  WF_RWND_POLICY_STATION,
  WF_RWND_POLICY_EQUAL,
  WF_RWND_POLICY_RTT_FAIR,
} WfRwndPolicy;

#define WF_RWND_POLICY_NAMES  "station, equal or rtt-fair"
#define WF_RWND_RTT_DEFAULT_S 0.050   /* neither a report nor a handshake */
#define WF_RWND_MSS_DEFAULT   1460u   /* when the SYN carried none */
#define WF_RWND_FLOOR_SEGS    4u      /* never below 4 segments (the program's floor too) */
#define WF_RWND_WINDOW_MAX    (65535u << 14)  /* the field's largest, scaled by 14 */

/* One data direction of a connection: its sender is held to `window`. */
typedef struct {
  /* In. */
  double   rtt_s;       /* its current RTT, 0: unknown (WF_RWND_RTT_DEFAULT_S) */
  double   base_rtt_s;  /* its lowest RTT (no queue), 0: rtt_s */
  double   standing_rtt_s; /* its RTT without passing bursts (a standing
                              queue only), 0: rtt_s; rtt-fair's queue term */
  gboolean active;      /* it moved data lately: counted in N */
  guint    station;     /* station: the split is among flows of one index */
  double   station_bps; /* station: the station's rate this way, <= 0: none */
  guint    mss;         /* the floor's segment, 0: WF_RWND_MSS_DEFAULT */
  /* Out. */
  double   rate_bps;    /* the rate it is held to (window / RTT) */
  guint32  window;      /* bytes, >= the floor; 0: no target */
} WfRwndPolicyFlow;

typedef struct {
  WfRwndPolicy policy;
  double       capacity_bps;  /* C: equal, rtt-fair */
  double       other_bps;     /* non-TCP load measured on the interface */
} WfRwndPolicyParams;

const char *wf_rwnd_policy_name (WfRwndPolicy policy);
/* "station", "equal", "rtt-fair"; FALSE for anything else. */
gboolean    wf_rwnd_policy_parse (const char *text, WfRwndPolicy *out);

/* The window of rate (bit/s) over rtt (s), between the floor of mss and
 * WF_RWND_WINDOW_MAX. */
guint32     wf_rwnd_policy_window (double rate_bps, double rtt_s, guint mss);

/* Sets rate_bps and window of every flow. */
void        wf_rwnd_policy_apply (const WfRwndPolicyParams *p, WfRwndPolicyFlow *flows,
                                  guint n);

G_END_DECLS
