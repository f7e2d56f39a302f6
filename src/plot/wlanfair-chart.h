/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A line chart (named series of (x, y) points, axes with ticks, a
 * legend, a title) and the standalone SVG 1.1 document that stacks one or
 * more of them. No fonts, CSS or scripts outside the file; numbers in the
 * C locale whatever LC_NUMERIC says.
 *
 * So that a program can read the picture back, the document says what it
 * drew: each chart is <g class="chart" id="chartN"> with data-x-scale,
 * data-x-min, data-x-max, data-y-min, data-y-max (the axes' ranges) and
 * data-area="X Y W H" (the plot area in document units: x grows to the
 * right, y downwards; y-min at the bottom edge); each series is one
 * <polyline class="series" id="chartN-seriesM" data-name="NAME"> with a
 * <title> of its name and one point per drawn (x, y). */
typedef struct _WfChart WfChart;

typedef enum {
  WF_CHART_SCALE_LINEAR,
  WF_CHART_SCALE_LOG, /* points with x <= 0 are skipped */
} WfChartScale;

typedef enum {
  WF_CHART_SERIES_NONE = 0,
  WF_CHART_SERIES_MARKERS = 1 << 0, /* a dot at every point */
} WfChartSeriesFlags;

WfChart *wf_chart_new (const char *title);
void     wf_chart_free (WfChart *chart);

void     wf_chart_set_x_axis (WfChart      *chart,
                              const char   *label,
                              WfChartScale  scale);
void     wf_chart_set_y_axis (WfChart      *chart,
                              const char   *label);
/* A fixed x range instead of one fitted to the data (the whole run, not
 * just its samples' midpoints); above zero on a log axis. */
void     wf_chart_set_x_range (WfChart *chart,
                               double   min,
                               double   max);
/* A fixed y range instead of one fitted to the data (an index in [0, 1]). */
void     wf_chart_set_y_range (WfChart *chart,
                               double   min,
                               double   max);
/* A fitted y range that reaches down (or up) to zero: throughputs. */
void     wf_chart_set_y_include_zero (WfChart  *chart,
                                      gboolean  include);

/* Returns the series' index. A series whose every point is skipped is
 * still drawn (an empty polyline) and listed in the legend. */
guint    wf_chart_add_series (WfChart            *chart,
                              const char         *name,
                              WfChartSeriesFlags  flags);
/* NaN or infinite coordinates are skipped when the chart is drawn. */
void     wf_chart_add_point (WfChart *chart,
                             guint    series,
                             double   x,
                             double   y);

/* The document: TITLE, then the charts one below the other. */
char    *wf_chart_render_svg (WfChart * const *charts,
                              guint            n_charts,
                              const char      *title);

/* The pieces, public for their tests. */

/* 1, 2 or 5 times a power of ten: the smallest such step that divides
 * SPAN into at most MAX_TICKS intervals. */
double   wf_chart_nice_step (double span,
                             guint  max_ticks);
/* Widens [*min, *max] to multiples of the returned step; a range of one
 * value (or none: NaN) is padded first, so an axis never has zero length. */
double   wf_chart_nice_range (double *min,
                              double *max,
                              guint   max_ticks);
/* TEXT as XML character data or attribute value: & < > " ' escaped,
 * invalid UTF-8 and characters XML 1.0 forbids replaced by U+FFFD. */
void     wf_chart_escape (GString    *out,
                          const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfChart, wf_chart_free)

G_END_DECLS
