/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <net/if.h>

G_BEGIN_DECLS

/* One direction's bitrate as nl80211 reports it (struct rate_info). */
typedef struct {
  gboolean    has_bitrate;
  guint32     bitrate_kbps;
  int         mcs;        /* -1: legacy rate, no MCS */
  guint       nss;        /* 0: unknown */
  guint       width_mhz;  /* 20 unless the kernel flags wider/narrower */
  const char *gi;         /* "0.4" "0.8" "1.6" "3.2", NULL when unknown */
  const char *mode;       /* "legacy" "ht" "vht" "he" "eht" */
} WfWifiRate;

/* The station entry of the associated BSS (GET_STATION, managed mode). */
typedef struct {
  gboolean   has_signal, has_signal_avg;
  int        signal_dbm, signal_avg_dbm;
  gboolean   has_tx_rate, has_rx_rate;
  WfWifiRate tx_rate, rx_rate;
  gboolean   has_tx_retries, has_tx_failed, has_beacon_loss;
  guint32    tx_retries, tx_failed, beacon_loss;
} WfWifiStation;

/* A wireless interface (GET_INTERFACE) and, in station mode, its link. */
typedef struct {
  int           ifindex;
  char          name[IF_NAMESIZE];
  guint32       iftype;        /* enum nl80211_iftype */
  gboolean      is_station;    /* managed or P2P client */
  gboolean      connected;     /* a station entry for the BSS exists */
  guint8        bssid[6];
  char          ssid[32 * 4 + 1]; /* printable: bytes outside ASCII as \xNN */
  gboolean      has_freq;
  guint32       freq_mhz;
  guint         width_mhz;     /* 0: unknown */
  WfWifiStation sta;
} WfWifiLink;

typedef struct _WfNl80211 WfNl80211;

/* WF_ERROR_FAILED "nl80211 not available" when the kernel has no such
 * generic netlink family (no cfg80211). */
WfNl80211 *wf_nl80211_new (GError **error);
void       wf_nl80211_free (WfNl80211 *nl);

/* Every wireless interface of the caller's network namespace, with the
 * station link filled in for connected station-mode interfaces. */
gboolean   wf_nl80211_dump (WfNl80211 *nl,
                            GArray    *out_links,
                            GError   **error);

/* One interface; FALSE when it is not a wireless one (or on errors). */
gboolean   wf_nl80211_get_link (WfNl80211  *nl,
                                int         ifindex,
                                WfWifiLink *out,
                                GError    **error);

const char *wf_nl80211_iftype_name (guint32 iftype);
void        wf_nl80211_format_bssid (const guint8 *bssid, char out[18]);

/* Pure parsers over attribute tables (tb[NL80211_ATTR_MAX + 1], as
 * nlmsg_parse / genlmsg_parse fill them). Exposed for the unit tests. */
struct nlattr;
gboolean wf_nl80211_parse_interface (struct nlattr **tb, WfWifiLink *out);
gboolean wf_nl80211_parse_station (struct nlattr **tb, WfWifiStation *out, guint8 mac_out[6]);
gboolean wf_nl80211_parse_rate (struct nlattr *nested, WfWifiRate *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfNl80211, wf_nl80211_free)

G_END_DECLS
