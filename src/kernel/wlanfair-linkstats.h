/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <net/if.h>

G_BEGIN_DECLS

/* One interface's counters from an rtnetlink link dump (64-bit stats). */
typedef struct {
  int      ifindex;
  char     name[IF_NAMESIZE];
  int      master;      /* ifindex of its bridge or bond, 0: none */
  gboolean up;          /* IFF_UP and the carrier (operstate up/unknown) */
  guint64  rx_bytes, tx_bytes;
  guint64  rx_packets, tx_packets;
  guint64  rx_errors, tx_errors;
  guint64  rx_dropped, tx_dropped;
} WfLinkStats;

typedef struct {
  double rx_bytes, tx_bytes;     /* per second */
  double rx_packets, tx_packets;
  double rx_errors, tx_errors;
  double rx_dropped, tx_dropped;
  gboolean reset;                /* counters went back: rates from zero */
} WfLinkRates;

/* Appends one WfLinkStats per interface of the caller's network namespace. */
gboolean wf_linkstats_dump (GArray  *out,
                            GError **error);

const WfLinkStats *wf_linkstats_find (GArray     *stats,
                                      const char *name);

/* Rates between two samples of the same interface, `seconds` apart. */
void wf_linkstats_rates (const WfLinkStats *prev,
                         const WfLinkStats *cur,
                         double             seconds,
                         WfLinkRates       *out);

G_END_DECLS
