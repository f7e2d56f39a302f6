/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  WF_FAIRNESS_NONE = 0,
  /* Accept sum(x) > capacity (measurement noise, an estimated capacity):
   * the utilisation factor is then capped at 1. */
  WF_FAIRNESS_ALLOW_OVER = 1 << 0,
} WfFairnessFlags;

/* Relative slack before a sum counts as above the capacity, so that
 * rounding (0.1 + 0.2 > 0.3) is not reported as over-use. */
#define WF_FAIRNESS_OVER_SLACK 1e-12

gboolean wf_fairness_check (const double *x,
                            gsize         n,
                            GError      **error);

gboolean wf_fairness_jain (const double *x,
                           gsize         n,
                           double       *out,
                           GError      **error);

/* Jain's index of x[i] / w[i]: 1 when every x is in proportion to its
 * weight. Each w[i] finite and > 0; x as wf_fairness_jain() takes it. */
gboolean wf_fairness_jain_weighted (const double *x,
                                    const double *w,
                                    gsize         n,
                                    double       *out,
                                    GError      **error);

gboolean wf_fairness_tradeoff (const double    *x,
                               gsize            n,
                               double           capacity,
                               double           alpha,
                               WfFairnessFlags  flags,
                               double          *out,
                               GError         **error);

double wf_fairness_sum (const double *x,
                        gsize         n);

G_END_DECLS
