/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What wlanfair-apd knows of one associated station in one control
 * round: the AP's own view (nl80211 station entry or a bridge port),
 * its addresses (neighbour table) and, when the host runs
 * wlanfair-reportd, its report. Shared by the station table, the
 * controllers (which read it) and the actuators (which key on it). */
#pragma once

#include <glib.h>

#include "wlanfair-mac.h"

G_BEGIN_DECLS

#define WF_APD_MAX_ADDRS 4

/* Directions as the AP sees them: down = AP -> station (the station
 * downloads), up = station -> AP (the station uploads). */
typedef enum {
  WF_APD_DIR_DOWN = 1 << 0,
  WF_APD_DIR_UP   = 1 << 1,
  WF_APD_DIR_BOTH = WF_APD_DIR_DOWN | WF_APD_DIR_UP,
} WfApdDir;

/* How a report reached the controller: a datagram addressed to this
 * host (its UDP socket), or one it carried in transit to a gateway it
 * is not (a bridging AP: wlanfair-apd-carried.c). */
typedef enum {
  WF_APD_PATH_ADDRESSED,
  WF_APD_PATH_CARRIED,
  WF_APD_PATH_N,
} WfApdPath;

static inline const char *
wf_apd_path_name (WfApdPath path)
{
  return path == WF_APD_PATH_CARRIED ? "carried" : "addressed";
}

typedef struct {
  int     family;          /* AF_INET or AF_INET6 */
  guint8  addr[16];
} WfApdAddr;

typedef struct {
  /* identity */
  guint8    mac[6];
  char      mac_str[WF_MAC_STR_LEN]; /* wf_mac_format(): the key everywhere */
  int       ifindex;          /* the AP interface (or bridge port) it is on */
  WfApdAddr addrs[WF_APD_MAX_ADDRS];
  guint     n_addrs;
  char      hostname[254];    /* from its report, "" when none */

  /* the AP's view, this round */
  gboolean  has_signal;   int     signal_dbm;     /* as the AP hears it */
  gboolean  has_tx_bitrate; guint32 tx_bitrate_kbps; /* AP -> station */
  gboolean  has_rx_bitrate; guint32 rx_bitrate_kbps; /* station -> AP */
  int       tx_mcs;                               /* -1: unknown/legacy */
  double    ap_down_bps;    /* bytes the AP sent it, bit/s */
  double    ap_up_bps;      /* bytes the AP received from it, bit/s */
  /* airtime cost per bit, s/bit: the driver's TX/RX duration per bit
   * where it counts airtime, else 1/bitrate (scaled to the measured ones'
   * unit when other stations have them); 0 when the AP cannot tell (a
   * wired emulation): equal costs assumed */
  double    cost_down_s_per_bit;
  double    cost_up_s_per_bit;

  /* its report, when fresh and trusted (see `trusted`) */
  gboolean  reporting;        /* a fresh report arrived */
  gboolean  trusted;          /* ... and agrees with the AP's counters */
  WfApdPath report_path;      /* how its latest report arrived */
  double    rep_down_bps;     /* goodput received by the host */
  double    rep_up_bps;       /* goodput the host's peers acknowledged */
  gboolean  app_limited;      /* every busy flow of the host is app-limited */
  gboolean  wants_more;       /* a flow it sends on is held back by the path */
  gboolean  waits_at_ap;      /* frames handed to the AP for it were not delivered
                               * (download-demand=): a download that wants more */
  gboolean  has_rtt;  double  rtt_s;   /* goodput-weighted mean flow RTT */

  /* the controller's input, filled by the station table */
  double    weight;           /* configured, 1 by default */
  double    down_bps, up_bps; /* the goodput the controller acts on */
} WfApdStation;

/* Whether the controllers count a station at x bit/s: above `idle_bps`,
 * or below it while it waits for more: its own word that a flow it sends
 * on waits for the path, or frames for it that the AP did not deliver (a
 * starved flow moves less than any sensible idle rate). */
static inline gboolean
wf_apd_station_active (const WfApdStation *s, double x, double idle_bps)
{
  return x >= idle_bps || (s->reporting && s->trusted && s->wants_more) || s->waits_at_ap;
}

/* Bits per second the controller counts for a station in `dirs`. */
static inline double
wf_apd_station_bps (const WfApdStation *s, WfApdDir dirs)
{
  return ((dirs & WF_APD_DIR_DOWN) ? s->down_bps : 0) +
         ((dirs & WF_APD_DIR_UP) ? s->up_bps : 0);
}

G_END_DECLS
