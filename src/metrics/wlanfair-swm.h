/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-fairness.h"
#include "wlanfair-series.h"

G_BEGIN_DECLS

/* Cap on windows per width, so a tiny --step cannot run for hours. */
#define WF_SWM_MAX_WINDOWS 1000000

typedef struct {
  double          window;   /* seconds, > 0 */
  double          step;     /* seconds; 0: the series' median interval */
  double          capacity; /* 0: no trade-off index */
  double          alpha;
  WfFairnessFlags flags;
} WfSwmParams;

typedef struct {
  double   min;
  double   mean;
  double   min_at; /* start of the first window that scored the minimum */
} WfSwmStat;

typedef struct {
  double    window;
  double    step;
  guint     n_windows; /* windows in which at least one flow exists */
  guint     n_empty;   /* windows in which none does (not in min/mean) */
  WfSwmStat jain;
  gboolean  has_tradeoff;
  WfSwmStat tradeoff;
} WfSwmResult;

gboolean wf_swm_run (const WfSeries    *series,
                     const WfSwmParams *params,
                     WfSwmResult       *result,
                     GError           **error);

/* Both indices over one interval [a, b) of the series; n_flows is 0 when
 * no flow exists in it (the indices are then left untouched). */
gboolean wf_swm_eval_window (const WfSeries    *series,
                             const WfSwmParams *params,
                             double             a,
                             double             b,
                             guint             *n_flows,
                             double            *jain,
                             double            *tradeoff,
                             GError           **error);

/* Window widths for when none are given: log-spaced from the median
 * sample interval to the whole run, WF_SWM_DEFAULT_PER_DECADE a decade,
 * between 2 and WF_SWM_DEFAULT_MAX_WIDTHS of them (one if the run is a
 * single interval long); the inner ones rounded to 3 significant digits,
 * the last exactly the run. Ascending doubles. */
#define WF_SWM_DEFAULT_PER_DECADE 6
#define WF_SWM_DEFAULT_MAX_WIDTHS 16
GArray  *wf_swm_default_windows (const WfSeries *series);

G_END_DECLS
