/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The scan guard's Prometheus metrics (node_exporter textfile): per
 * device whether it holds scans off (bgscan at "", for traffic, a D-Bus
 * hold or mode=always), since when, how often and how long in total.
 * Pure: the caller's clocks, text out. */

#define WF_SCAN_METRICS_FILE "wlanfair-scan.prom"

typedef struct {
  gboolean holding;
  guint64  holds;          /* transitions into holding */
  gint64   held_us;        /* completed holds (monotonic clock) */
  gint64   since_mono_us;  /* start of the current hold */
  gint64   since_real_us;  /* the same, wall clock, for the timestamp */
} WfScanHold;

/* Feeds the current state; TRUE on a transition. */
gboolean wf_scan_hold_update  (WfScanHold *hold,
                               gboolean    holding,
                               gint64      mono_us,
                               gint64      real_us);
/* Seconds held up to `mono_us`, the current hold included. */
double   wf_scan_hold_seconds (const WfScanHold *hold,
                               gint64            mono_us);

typedef struct {
  const char       *device;
  const char       *mode;    /* configuration in effect: auto, off, always */
  const char       *policy;  /* observe, strict */
  const WfScanHold *hold;
} WfScanMetricsDevice;

/* The text exposition (format 0.0.4), devices sorted by name.
 * `dbus_holds`: D-Bus holds in force (they apply to every device). */
char *wf_scan_metrics_render (const WfScanMetricsDevice *devices,
                              guint                      n_devices,
                              guint                      dbus_holds,
                              gint64                     mono_us);

G_END_DECLS
