/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Internal to wlanfair-scand: the per-interface device of the guard, shared
 * by wlanfair-scan-guard.c (events, decisions, publishing),
 * wlanfair-scan-tick.c (the sampling tick) and wlanfair-scan-bgscan.c
 * (saving, writing and restoring bgscan). */

#include <gio/gio.h>

#include "wlanfair-nl80211-scan.h"
#include "wlanfair-ratelimit.h"
#include "wlanfair-scan-guard.h"
#include "wlanfair-scan-link.h"
#include "wlanfair-scan-metrics.h"
#include "wlanfair-scan-nm.h"
#include "wlanfair-scan-policy.h"
#include "wlanfair-scan-service.h"
#include "wlanfair-scan-state.h"
#include "wlanfair-scan-wpas.h"

G_BEGIN_DECLS

#define N_RECENT 16
#define RETRY_US (5 * G_USEC_PER_SEC)
#define PUBLISH_RATES_US G_USEC_PER_SEC
/* The textfile: at once on a change, else this often (the seconds-held
 * counter grows while holding). */
#define TEXTFILE_US (10 * G_USEC_PER_SEC)

typedef struct {
  gint64      real_us;
  WfScanKind  kind;
  const char *outcome;
  guint       duration_ms;
} WfScanRecent;

typedef struct {
  WfScanGuard       *guard;
  WfWpasIface       *iface;
  char              *ifname;
  char              *path;
  int                ifindex;
  WfScanConfig       cfg;
  char              *connection;
  WfTrafficDetector  traffic;
  WfScanPolicy       policy;
  gboolean           carrier;
  /* The current network and what we know of its bgscan. */
  char              *network;
  char              *bgscan;        /* last value read or written; NULL = absent */
  char              *original;      /* the network's own value (NULL/"" = none) */
  /* Our change, if any. */
  gboolean           suppressing;
  gboolean           unconfirmed;   /* the "" write unanswered: a read will tell */
  char              *suppressed_network;
  char              *saved;
  char              *error;         /* last failed write */
  gint64             retry_after_us;
  int                signal_dbm;
  gint64             next_signal_us;
  gint64             next_network_check_us; /* see recheck_network() */
  /* Scans. */
  guint              seen[WF_SCAN_KIND_COUNT];
  guint              during[WF_SCAN_KIND_COUNT];
  guint              aborted[WF_SCAN_KIND_COUNT];
  WfScanRecent         recent[N_RECENT];
  guint              n_recent;
  gboolean           in_scan;
  WfScanKind         scan_kind;
  gint64             scan_start_us, scan_start_real_us;
  gboolean           scan_aborted_by_us;
  /* Published state. */
  gboolean           pub_suppressing;
  const char        *pub_reason;
  gint64             since_real_us;
  gint64             rates_published_us;
  /* Metrics: holding = suppressing. */
  WfScanHold         hold;
} WfScanDevice;

struct _WfScanGuard {
  GDBusConnection *bus;
  WfScanConfig     global;
  WfScanState     *state;
  WfScanService   *service;
  WfWpas          *wpas;
  WfScanNm        *nm;
  WfNl80211Scan   *nl80211;
  GHashTable      *devices;   /* WfWpasIface * -> WfScanDevice * */
  guint            tick;
  guint            tick_ms;   /* its interval; 0: no tick (nothing to sample) */
  WfScanLink      *link;
  /* node_exporter textfile; NULL: none. */
  char            *textfile_dir;
  gboolean         textfile_default;  /* used only while it exists */
  gboolean         textfile_dirty;
  WfRatelimit     *textfile_said;     /* failing, missing: once until it works */
  gint64           textfile_written_us;
};

static inline gboolean
wf_scan_device_connected (WfScanDevice *d)
{
  return d->iface && g_str_equal (wf_wpas_iface_state (d->iface), "completed");
}

static inline const char *
wf_scan_device_owner (WfScanDevice *d)
{
  return wf_wpas_owner (d->guard->wpas);
}

/* wlanfair-scan-bgscan.c */
void     wf_scan_device_clear_suppression (WfScanDevice *d);
gboolean wf_scan_device_restore_network   (GDBusConnection *bus,
                                           WfWpas          *wpas,
                                           const char      *wpas_owner,
                                           const char      *ifname,
                                           const char      *network,
                                           const char      *saved,
                                           const char      *why);
void     wf_scan_device_restore           (WfScanDevice *d,
                                           const char   *why);
void     wf_scan_device_set_error         (WfScanDevice *d,
                                           const char   *message);
void     wf_scan_device_suppress          (WfScanDevice *d,
                                           const char   *why);
void     wf_scan_device_confirm           (WfScanDevice *d);
void     wf_scan_device_read_network      (WfScanDevice *d);
void     wf_scan_device_follow_network    (WfScanDevice *d);
gboolean wf_scan_device_restore_entries   (GDBusConnection *bus,
                                           WfScanState     *state,
                                           const char      *wpas_owner);

/* wlanfair-scan-guard.c. decide: `event`, called for an event (else
 * from the tick); evaluate: decide for an event. */
void     wf_scan_device_decide            (WfScanDevice *d,
                                           gboolean      event);
void     wf_scan_device_evaluate          (WfScanDevice *d);

/* wlanfair-scan-tick.c: one sample of d's counters (and signal, when
 * due); the tick's interval set again from every device's state. */
void     wf_scan_device_sample            (WfScanDevice *d,
                                           gint64        now);
void     wf_scan_guard_reschedule         (WfScanGuard *guard);

/* wlanfair-scan-textfile.c */
void     wf_scan_guard_textfile_init      (WfScanGuard        *guard,
                                           const WfScanConfig *config);
void     wf_scan_guard_textfile_update    (WfScanGuard *guard,
                                           gint64       now_us);
void     wf_scan_guard_textfile_remove    (WfScanGuard *guard);

G_END_DECLS
