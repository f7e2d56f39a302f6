/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-sockdiag.h"
#include "wlanfair-tcptotals.h"

G_BEGIN_DECLS

/* One TCP flow of the current sample. */
typedef struct {
  WfSockdiagTcp sock;
  int           ifindex;         /* egress interface by route, 0 unknown */
  gboolean      has_goodput;     /* FALSE on the first sample of the flow set */
  double        goodput_tx_bps;  /* bytes_acked delta * 8 / seconds */
  double        goodput_rx_bps;  /* bytes_received delta * 8 / seconds */
} WfFlow;

/* The egress interface of a flow, 0 when unknown. */
typedef int (*WfFlowsRouteFunc) (const WfSockdiagTcp *sock, gpointer data);

/* Per-flow goodput from successive sock_diag samples: keeps only the last
 * byte counters of each socket (by cookie), the per-interface sums and the
 * top N flows, so memory stays small with many connections. */
typedef struct _WfFlows WfFlows;

WfFlows      *wf_flows_new (guint            top_n,
                            WfFlowsRouteFunc route,
                            gpointer         route_data);
void          wf_flows_free (WfFlows *flows);

/* One sample: begin, add every socket of a dump, end. */
void          wf_flows_begin (WfFlows *flows,
                              gint64   now_us);
void          wf_flows_add (WfFlows             *flows,
                            const WfSockdiagTcp *sock);
void          wf_flows_end (WfFlows *flows);

/* begin + a sock_diag dump + end. */
gboolean      wf_flows_sample (WfFlows *flows,
                               gint64   now_us,
                               GError **error);

/* Look every flow's route up again at the next sample. */
void          wf_flows_invalidate_routes (WfFlows *flows);

/* The last sample: TCP sockets seen, the top N (highest goodput first). */
guint         wf_flows_total (WfFlows *flows);
const WfFlow *wf_flows_top (WfFlows *flows,
                            guint   *n);
/* Sum of flow goodput through `ifindex`; FALSE before a second sample. */
gboolean      wf_flows_iface_goodput (WfFlows *flows,
                                      int      ifindex,
                                      double  *tx_bps,
                                      double  *rx_bps);

/* Seconds the last sample's rates cover (since the sample before it, on
 * the clock given to begin); 0 after the first. */
double        wf_flows_span (WfFlows *flows);

/* Every flow's growth per sample (bytes, retransmissions) added up per
 * interface, the flows per interface and their RTTs (borrowed). Sockets
 * open at the first sample count from then on; a socket opened later
 * counts from its start; an orphaned socket (closed by its program, still
 * sending) keeps counting, and when it reaches TIME-WAIT what it still
 * had unacknowledged at the last sample counts as acked. */
WfTcpTotals  *wf_flows_get_totals (WfFlows *flows);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfFlows, wf_flows_free)

G_END_DECLS
