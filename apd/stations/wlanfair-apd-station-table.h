/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The station table of wlanfair-apd: the AP's own view of each station
 * (byte counters -> rates, signal, bitrates), its addresses (neighbour
 * table) and its host's report, matched by the report's source address,
 * cross-checked against what the AP carried. Pure: the daemon feeds it
 * from nl80211 or bridge ports; the tests feed it directly. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-config.h"
#include "wlanfair-apd-station.h"
#include "wlanfair-neigh.h"
#include "wlanfair-report.h"

G_BEGIN_DECLS

/* One station as the AP sees it in one dump. */
typedef struct {
  guint8   mac[6];
  int      ifindex;
  gboolean has_signal;     int     signal_dbm;
  gboolean has_tx_bitrate; guint32 tx_bitrate_kbps;
  gboolean has_rx_bitrate; guint32 rx_bitrate_kbps;
  int      tx_mcs;         /* -1: unknown */
  guint64  tx_bytes;       /* AP -> station */
  guint64  rx_bytes;       /* station -> AP */
  gboolean has_tx_packets; /* frames the station got (download-demand=) */
  gboolean tx_packets_32bit; /* nl80211's: wraps at 2^32 */
  guint64  tx_packets;
  /* airtime the driver counted each way, cumulative (nl80211 TX/RX
   * duration; drivers that do not count it report none, or 0) */
  gboolean has_tx_duration; guint64 tx_duration_us;
  gboolean has_rx_duration; guint64 rx_duration_us;
} WfApdApEntry;

/* What the AP was handed for one station since download-demand='s
 * program was loaded (wlanfair-download-demand.h). */
typedef struct {
  guint8  mac[6];
  guint64 packets;
  guint64 bytes;
} WfApdDownloadDemand;

typedef struct _WfApdStations WfApdStations;

/* config is not copied: it must outlive the table. */
WfApdStations *wf_apd_stations_new (const WfApdConfig *config);
void           wf_apd_stations_free (WfApdStations *t);

/* A complete dump at now_us: rates from the counters since the previous
 * dump. Stations missing from it have left: their MACs are appended to
 * `left` (6-byte GBytes), for the actuators and the controller. */
void wf_apd_stations_update_ap (WfApdStations *t, const WfApdApEntry *entries,
                                guint n, gint64 now_us, GPtrArray *left);
/* download-demand='s counts, after the round's update_ap: over the last
 * rounds, frames handed to a station and not (yet) delivered say that it
 * waits at the AP (WfApdStation.waits_at_ap). */
void wf_apd_stations_update_download_demand (WfApdStations *t, const WfApdDownloadDemand *counts,
                                             guint n);
/* The neighbour table (WfNeigh), for addresses. */
void wf_apd_stations_update_neigh (WfApdStations *t, GArray *neighs);
/* A report that passed the receiver (taken), matched to a station by
 * the frame's source MAC when the path gives one (carried: the AP knows
 * no address of a station it only bridges), else by its source address.
 * FALSE when it belongs to no associated station (logged once per host). */
gboolean wf_apd_stations_add_report (WfApdStations *t, WfReportView *view,
                                     int family, const guint8 addr[16],
                                     const guint8 *mac, WfApdPath path,
                                     gint64 now_us);
/* The controller's input at now_us: every station with a rate. */
void wf_apd_stations_snapshot (WfApdStations *t, gint64 now_us, GArray *out);
guint wf_apd_stations_count (WfApdStations *t);
/* Reports whose goodput disagreed with the AP's counters, so far. */
guint64 wf_apd_stations_untrusted (WfApdStations *t);
/* When the last fresh data (a dump with traffic, or a report) came. */
gint64 wf_apd_stations_last_feed (WfApdStations *t);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdStations, wf_apd_stations_free)

G_END_DECLS
