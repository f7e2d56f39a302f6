/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Upper bounds of the RTT histogram's buckets, µs (+Inf is implied):
 * 1 ms to 2.5 s, the 1-2.5-5 steps Prometheus users know. */
#define WF_TCPTOTALS_RTT_BUCKETS 11
extern const guint32 wf_tcptotals_rtt_bounds_us[WF_TCPTOTALS_RTT_BUCKETS];

/* One interface's TCP counters since the reporter started. */
typedef struct {
  guint64 received_bytes;    /* sum of bytes_received deltas */
  guint64 acked_bytes;       /* sum of bytes_acked deltas */
  guint64 retrans_segments;  /* sum of total_retrans deltas */
  guint   flows;             /* flows through it in the last sample (a gauge) */
  guint64 rtt_count;         /* RTT observations: one per flow per sample */
  guint64 rtt_sum_us;
  guint64 rtt_le[WF_TCPTOTALS_RTT_BUCKETS]; /* cumulative: rtt <= bound */
} WfTcpTotalsIface;

/* Per-interface totals of the flows' tcp_info deltas, so that what a
 * flow carried still counts after it closed (Prometheus counters), and a
 * histogram of the flows' smoothed RTT. Memory: one entry per interface
 * that carried a flow, until the interface is gone. */
typedef struct _WfTcpTotals WfTcpTotals;

WfTcpTotals            *wf_tcptotals_new (void);
void                    wf_tcptotals_free (WfTcpTotals *totals);

/* A new sample: every interface's flow gauge back to 0. */
void                    wf_tcptotals_begin (WfTcpTotals *totals);

/* One flow of this sample, through `ifindex` (> 0): what it carried since
 * the previous sample, and its smoothed RTT (0: none yet, not observed). */
void                    wf_tcptotals_observe (WfTcpTotals *totals,
                                              int          ifindex,
                                              guint64      received_bytes,
                                              guint64      acked_bytes,
                                              guint64      retrans_segments,
                                              guint32      rtt_us);

/* What a flow that is gone carried since the previous sample: counted,
 * but neither a flow of this sample nor an RTT observation. */
void                    wf_tcptotals_add (WfTcpTotals *totals,
                                          int          ifindex,
                                          guint64      received_bytes,
                                          guint64      acked_bytes,
                                          guint64      retrans_segments);

/* NULL: no flow has gone through `ifindex` yet (its totals are all 0). */
const WfTcpTotalsIface *wf_tcptotals_get (WfTcpTotals *totals,
                                          int          ifindex);

/* Drops the interfaces not in `ifindexes` (int): they are gone, and a new
 * interface may get the number later. */
void                    wf_tcptotals_retain (WfTcpTotals *totals,
                                             GArray      *ifindexes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfTcpTotals, wf_tcptotals_free)

G_END_DECLS
