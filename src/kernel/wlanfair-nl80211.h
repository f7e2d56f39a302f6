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

/* One nl80211 request on this handle's socket, for the library's other
 * nl80211 readers: `cmd` with `flags` (NLM_F_DUMP or 0) and, when
 * ifindex > 0, NL80211_ATTR_IFINDEX. Every reply goes to `cb` (a libnl
 * NL_CB_VALID callback) with `arg`. 0 or a libnl error code (< 0). */
struct nl_msg;
int        wf_nl80211_transact (WfNl80211 *nl,
                                guint8     cmd,
                                int        flags,
                                int        ifindex,
                                int      (*cb) (struct nl_msg *msg, void *arg),
                                void      *arg);

const char *wf_nl80211_iftype_name (guint32 iftype);

/* Pure parsers over attribute tables (tb[NL80211_ATTR_MAX + 1], as
 * nlmsg_parse / genlmsg_parse fill them). Exposed for the unit tests. */
struct nlattr;
gboolean wf_nl80211_parse_interface (struct nlattr **tb, WfWifiLink *out);
gboolean wf_nl80211_parse_station (struct nlattr **tb, WfWifiStation *out, guint8 mac_out[6]);
gboolean wf_nl80211_parse_rate (struct nlattr *nested, WfWifiRate *out);

/* One entry of a GET_SCAN dump (tb[NL80211_ATTR_BSS] nested), reduced to
 * what finds the SSID of the associated BSS when GET_INTERFACE has none
 * (wpa_supplicant's auth/assoc path: cfg80211 keeps no SSID then). */
typedef struct {
  gboolean has_bssid;
  guint8   bssid[6];
  gboolean associated;      /* NL80211_BSS_STATUS_ASSOCIATED */
  gboolean has_ssid;        /* an SSID element was found */
  gboolean ssid_hidden;     /* ... of length 0 or all zero bytes */
  char     ssid[32 * 4 + 1]; /* printable, as WfWifiLink.ssid; "" when hidden */
} WfWifiBss;

gboolean wf_nl80211_parse_bss (struct nlattr **tb, WfWifiBss *out);

/* The SSID element (id 0) in a buffer of information elements: TRUE with
 * *ssid / *ssid_len when a well-formed one (0..32 bytes) lies wholly
 * inside `len`; FALSE when there is none before the end or before an
 * element that runs past it (a truncated buffer). */
gboolean wf_nl80211_ie_ssid (const guint8 *ies, gsize len,
                             const guint8 **ssid, gsize *ssid_len);

/* The SSID per (ifindex, BSSID) found by a GET_SCAN dump, so that the dump
 * is done once per association, not once per period. A miss (no SSID or
 * a failed dump) is kept for WF_SSID_CACHE_RETRY_US, then asked again. */
#define WF_SSID_CACHE_RETRY_US (30 * G_USEC_PER_SEC)
typedef struct _WfSsidCache WfSsidCache;
WfSsidCache *wf_ssid_cache_new (void);
void         wf_ssid_cache_free (WfSsidCache *cache);
/* TRUE when the cache answers for this BSSID at time now_us: *ssid is the
 * SSID, "" when there is none to report. FALSE: dump and store. */
gboolean     wf_ssid_cache_lookup (WfSsidCache  *cache,
                                   int           ifindex,
                                   const guint8 *bssid,
                                   gint64        now_us,
                                   const char  **ssid);
/* ssid "" or NULL: a miss, asked again after WF_SSID_CACHE_RETRY_US. A new
 * BSSID on the ifindex replaces the old entry. */
void         wf_ssid_cache_store (WfSsidCache  *cache,
                                  int           ifindex,
                                  const guint8 *bssid,
                                  const char   *ssid,
                                  gint64        now_us);
/* The interface is not associated (or gone): forget it. */
void         wf_ssid_cache_forget (WfSsidCache *cache,
                                   int          ifindex);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfNl80211, wf_nl80211_free)

G_END_DECLS
