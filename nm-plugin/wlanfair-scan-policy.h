/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-nl80211-scan.h"
#include "wlanfair-scan-config.h"

G_BEGIN_DECLS

/* The scan guard's decisions, free of I/O: fed with counters, signal,
 * link state and holds, driven by the caller's clock (µs, monotonic). */

typedef enum {
  WF_SCAN_REASON_IDLE,
  WF_SCAN_REASON_TRAFFIC,
  WF_SCAN_REASON_HOLD,
  WF_SCAN_REASON_MODE_ALWAYS,
  WF_SCAN_REASON_MODE_OFF,
  WF_SCAN_REASON_ROAM_FLOOR,
  WF_SCAN_REASON_BEACON_LOSS,
  WF_SCAN_REASON_LINK_DOWN,
  WF_SCAN_REASON_NO_NETWORK,
  WF_SCAN_REASON_NO_BGSCAN,
  WF_SCAN_REASON_ERROR,
} WfScanReason;

const char *wf_scan_reason_name (WfScanReason reason);


#define WF_TRAFFIC_RING 64

/* Traffic detector: tx+rx >= start-pps in every sample interval of the
 * last start-window, and as many intervals as sample-interval puts in a
 * window (a longer interval, sampled while idle, is one burst's worth of
 * evidence, not two), starts it; the rate over the window staying under
 * idle-pps for idle-holdoff stops it. */
typedef struct {
  gint64  t_us;
  guint64 tx_packets, rx_packets, tx_bytes, rx_bytes;
} WfTrafficSample;

typedef struct {
  WfTrafficSample ring[WF_TRAFFIC_RING];
  guint    head, len;
  gboolean active;
  gint64   idle_since_us;   /* -1: not idle (or not active) */
  gboolean have_rates;
  double   tx_pps, rx_pps, tx_bps, rx_bps;
  /* Not active, and the newest interval at start-pps or more: a start may
   * follow, once intervals of the configured length cover the window. */
  gboolean rising;
} WfTrafficDetector;

void wf_traffic_detector_init (WfTrafficDetector *d);

/* One sample of the cumulative counters; TRUE when `active` changed.
 * Counters going back (interface re-created) restart the history. */
gboolean wf_traffic_detector_feed (WfTrafficDetector  *d,
                                   const WfScanConfig *config,
                                   gint64              now_us,
                                   guint64             tx_packets,
                                   guint64             rx_packets,
                                   guint64             tx_bytes,
                                   guint64             rx_bytes);

/* The threshold in a bgscan string ("simple:30:-70:86400" -> -70,
 * "learn:30:-65:300:/x" -> -65); FALSE when it has none. */
gboolean wf_scan_bgscan_threshold (const char *bgscan, int *threshold_dbm);

/* The highest bgscan threshold NetworkManager chooses (802.1X networks
 * and networks with several BSSIDs; -70 otherwise). */
#define WF_SCAN_NM_THRESHOLD_MAX (-65)

/* The roam floor for a network whose original bgscan is `bgscan`: the
 * configured value, or (auto) its threshold, at most
 * WF_SCAN_NM_THRESHOLD_MAX, minus the margin; when the string has no
 * threshold, -70 (NetworkManager's and iwd's roam threshold) minus the
 * margin. */
int wf_scan_roam_floor (const WfScanConfig *config, const char *bgscan);

typedef struct {
  gboolean connected;       /* wpa_supplicant State "completed" */
  gboolean carrier;         /* kernel link up */
  gboolean has_network;     /* a CurrentNetwork */
  gboolean has_bgscan;      /* its original bgscan is non-empty */
  int      signal_dbm;      /* 0 = unknown */
  int      roam_floor_dbm;  /* 0 = none */
  gboolean traffic;         /* detector verdict */
  guint    n_holds;
  gint64   now_us;
} WfScanInputs;

/* A suppression survives this long without a link (or a current
 * network) before it is lifted: NetworkManager's re-activation removes and
 * re-creates the network (wpa_supplicant reuses its id, hence its D-Bus
 * path) right after the link goes down; writing the saved value in that
 * moment could land on the new network. After the grace the old network is
 * gone (nothing to write) or still ours (a roam, a reconnection). */
#define WF_SCAN_LINK_DOWN_GRACE_US (G_USEC_PER_SEC / 2)

typedef struct {
  gboolean     under_floor;     /* latched with hysteresis */
  gint64       beacon_loss_us;  /* last beacon loss, 0 = none */
  gint64       link_down_us;    /* since when down (or no network), 0 = up */
  gboolean     suppress;        /* last decision */
  WfScanReason reason;
} WfScanPolicy;

void wf_scan_policy_init (WfScanPolicy *p);

void wf_scan_policy_beacon_loss (WfScanPolicy *p,
                                 gint64        now_us);

/* Decides whether bgscan should be suppressed now; TRUE when the decision
 * or its reason changed since the last call. */
gboolean wf_scan_policy_decide (WfScanPolicy       *p,
                                const WfScanConfig *config,
                                const WfScanInputs *in);

/* Strict policy: should a scan of `kind` that just started be aborted?
 * Only scans bgscan cannot have started, only during traffic or holds,
 * never when suppression is lifted for roaming or the link. */
gboolean wf_scan_policy_should_abort (const WfScanPolicy *p,
                                      const WfScanConfig *config,
                                      const WfScanInputs *in,
                                      WfScanKind          kind);

G_END_DECLS
