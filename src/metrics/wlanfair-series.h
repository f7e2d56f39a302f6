/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A per-flow throughput time series: rows of
 *   start_s,end_s,flow,bits_per_s
 * each saying that a flow averaged bits_per_s over [start_s, end_s).
 * Format and rules: docs/fairness.md, wlanfairctl-fairness(1). */
typedef struct _WfSeries WfSeries;

#define WF_SERIES_HEADER "start_s,end_s,flow,bits_per_s"
#define WF_SERIES_MAX_FLOWS 4096
#define WF_SERIES_MAX_FLOW_NAME 255

WfSeries   *wf_series_new_from_data (const char  *data,
                                     gsize        length,
                                     const char  *name,
                                     GError     **error);
WfSeries   *wf_series_new_from_file (const char  *path,
                                     GError     **error);
void        wf_series_free (WfSeries *series);

guint       wf_series_get_n_flows (const WfSeries *series);
guint       wf_series_get_n_samples (const WfSeries *series);
const char *wf_series_get_flow_name (const WfSeries *series,
                                     guint           flow);
double      wf_series_get_start (const WfSeries *series);
double      wf_series_get_end (const WfSeries *series);
double      wf_series_get_median_interval (const WfSeries *series);

/* A flow's samples in time order (sorted by start_s): for drawing. */
guint       wf_series_get_flow_n_samples (const WfSeries *series,
                                          guint           flow);
void        wf_series_get_flow_sample (const WfSeries *series,
                                       guint           flow,
                                       guint           index,
                                       double         *start,
                                       double         *end,
                                       double         *rate);

/* The flow's average rate over the part of [a, b) in which it exists
 * (between its first start and its last end; gaps inside count as 0).
 * Returns FALSE when the flow does not exist anywhere in [a, b). */
gboolean    wf_series_flow_average (const WfSeries *series,
                                    guint           flow,
                                    double          a,
                                    double          b,
                                    double         *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfSeries, wf_series_free)

G_END_DECLS
