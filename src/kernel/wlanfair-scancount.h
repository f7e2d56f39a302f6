/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-nl80211-scan.h"

G_BEGIN_DECLS

/* Scans seen on one interface since counting started. */
typedef struct {
  guint64  count;          /* scans started (or finished without a seen start) */
  guint64  single_ssid, wildcard, passive, multi_ssid;
  guint64  aborted;
  guint64  duration_ms;    /* sum of start-to-end times of finished scans */
  gboolean in_progress;
  gint64   started_us;     /* monotonic, while in progress */
} WfScanCounts;

/* Per-interface scan counters fed by nl80211 scan events
 * (wlanfair-nl80211-scan.h). */
typedef struct _WfScanCount WfScanCount;

/* Subscribes to the nl80211 scan group (no privilege needed); NULL with
 * WF_ERROR_FAILED "nl80211 not available" without cfg80211. */
WfScanCount        *wf_scancount_new (GError **error);
/* Without a subscription: for tests, events come from wf_scancount_event(). */
WfScanCount        *wf_scancount_new_detached (void);
void                wf_scancount_free (WfScanCount *sc);

void                wf_scancount_event (WfScanCount       *sc,
                                        const WfScanEvent *event);
/* NULL when nothing was seen on that interface (all counts zero). */
const WfScanCounts *wf_scancount_get (WfScanCount *sc,
                                      int          ifindex);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfScanCount, wf_scancount_free)

G_END_DECLS
