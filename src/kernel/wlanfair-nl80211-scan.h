/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* nl80211 scan events: every scan start/end announced on the "scan"
 * multicast group (any process may listen), the CQM beacon-loss event of
 * the "mlme" group, and NL80211_CMD_ABORT_SCAN (CAP_NET_ADMIN). */

/* The shape of a scan says who likely started it: one SSID = bgscan-simple
 * (or wpa_supplicant roaming), the wildcard SSID = an explicit scan
 * (NetworkManager RequestScan, nmcli, GNOME), no SSID = passive (GeoClue).
 * UNKNOWN: seen without nl80211 (no SSID list). */
typedef enum {
  WF_SCAN_KIND_SINGLE_SSID,
  WF_SCAN_KIND_WILDCARD,
  WF_SCAN_KIND_PASSIVE,
  WF_SCAN_KIND_MULTI_SSID,
  WF_SCAN_KIND_UNKNOWN,
  WF_SCAN_KIND_COUNT,
} WfScanKind;

const char *wf_scan_kind_name (WfScanKind kind);

typedef enum {
  WF_SCAN_EVENT_START,        /* NL80211_CMD_TRIGGER_SCAN */
  WF_SCAN_EVENT_DONE,         /* NL80211_CMD_NEW_SCAN_RESULTS */
  WF_SCAN_EVENT_ABORTED,      /* NL80211_CMD_SCAN_ABORTED */
  WF_SCAN_EVENT_BEACON_LOSS,  /* NL80211_CMD_NOTIFY_CQM, beacon loss */
} WfScanEventType;

typedef struct {
  int             ifindex;      /* 0 when the event names no netdev */
  WfScanEventType type;
  WfScanKind      kind;         /* START/DONE/ABORTED with an SSID list */
  guint           n_ssids;      /* wildcard counts as one */
  guint           n_freqs;      /* 0 = all the driver supports */
  guint32         flags;        /* NL80211_SCAN_FLAG_* */
  gint64          monotonic_us;
} WfScanEvent;

struct nlmsghdr;

/* Parses one nl80211 generic netlink message; FALSE when it is not an
 * event above (other commands, malformed). Pure: the unit tests feed it
 * messages built with nla_put. */
gboolean wf_nl80211_scan_parse (struct nlmsghdr *nlh,
                                gint64           monotonic_us,
                                WfScanEvent     *out);

/* Kind from the SSID list of a scan: lengths of the SSIDs (0 = wildcard). */
WfScanKind wf_nl80211_scan_classify (const guint *ssid_lens,
                                     guint        n_ssids);

typedef void (*WfNl80211ScanFunc) (const WfScanEvent *event,
                                   gpointer           user_data);

typedef struct _WfNl80211Scan WfNl80211Scan;

/* Subscribes to the scan and mlme groups and calls `func` from the
 * thread-default main context. WF_ERROR_FAILED "nl80211 not available"
 * when the kernel has no nl80211 family (no cfg80211). */
WfNl80211Scan *wf_nl80211_scan_new (WfNl80211ScanFunc   func,
                                    gpointer            user_data,
                                    GError            **error);
void           wf_nl80211_scan_free (WfNl80211Scan *scan);

/* NL80211_CMD_ABORT_SCAN on `ifindex`: aborts the running scan whoever
 * started it. Needs CAP_NET_ADMIN; ENOENT when no scan runs. */
gboolean wf_nl80211_scan_abort (int      ifindex,
                                GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfNl80211Scan, wf_nl80211_scan_free)

G_END_DECLS
