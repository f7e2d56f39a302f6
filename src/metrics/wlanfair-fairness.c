/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Jain's index and the utilisation-aware trade-off index F(X, C, alpha).
 * Definitions and edge cases: docs/fairness.md. */
#include "wlanfair-fairness.h"

#include <math.h>

#include "wlanfair-error.h"

/* Neumaier summation: series windows add thousands of terms of very
 * different size, and results are compared to 1e-9. */
typedef struct {
  double sum;
  double c;
} Acc;

static void
acc_add (Acc *a, double v)
{
  double t = a->sum + v;

  if (fabs (a->sum) >= fabs (v))
    a->c += (a->sum - t) + v;
  else
    a->c += (v - t) + a->sum;
  a->sum = t;
}

static double
acc_value (const Acc *a)
{
  /* Past the largest double the compensation is inf - inf: the sum is
   * +inf, not NaN, so that "more than the capacity" still holds. */
  if (isinf (a->sum))
    return a->sum;
  return a->sum + a->c;
}

double
wf_fairness_sum (const double *x, gsize n)
{
  Acc a = { 0, 0 };

  for (gsize i = 0; i < n; i++)
    acc_add (&a, x[i]);
  return acc_value (&a);
}

gboolean
wf_fairness_check (const double *x, gsize n, GError **error)
{
  if (n == 0)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_INVALID,
                           "no throughputs given");
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    {
      if (!isfinite (x[i]))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "throughput %" G_GSIZE_FORMAT " is not a finite number",
                       i + 1);
          return FALSE;
        }
      if (x[i] < 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "throughput %" G_GSIZE_FORMAT " (%g) is negative",
                       i + 1, x[i]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
wf_fairness_jain (const double *x, gsize n, double *out, GError **error)
{
  double max = 0;
  Acc s = { 0, 0 }, q = { 0, 0 };

  if (!wf_fairness_check (x, n, error))
    return FALSE;

  for (gsize i = 0; i < n; i++)
    max = MAX (max, x[i]);

  /* Equal shares of nothing are equal shares: the trade-off index is the
   * one that tells an idle link from a fair one. */
  if (max == 0)
    {
      *out = 1.0;
      return TRUE;
    }

  /* Scale by the largest value so squares cannot overflow. */
  for (gsize i = 0; i < n; i++)
    {
      double y = x[i] / max;
      acc_add (&s, y);
      acc_add (&q, y * y);
    }
  *out = acc_value (&s) * acc_value (&s) / ((double) n * acc_value (&q));
  return TRUE;
}

gboolean
wf_fairness_jain_weighted (const double *x, const double *w, gsize n, double *out,
                           GError **error)
{
  g_autofree double *y = NULL;

  if (!wf_fairness_check (x, n, error))
    return FALSE;
  y = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      if (!isfinite (w[i]) || w[i] <= 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "weight %" G_GSIZE_FORMAT " (%g) is not a positive number", i + 1, w[i]);
          return FALSE;
        }
      /* A share per unit of weight; one that overflows is refused below. */
      y[i] = x[i] / w[i];
    }
  return wf_fairness_jain (y, n, out, error);
}

gboolean
wf_fairness_tradeoff (const double    *x,
                      gsize            n,
                      double           capacity,
                      double           alpha,
                      WfFairnessFlags  flags,
                      double          *out,
                      GError         **error)
{
  Acc s = { 0, 0 }, q = { 0, 0 };
  double sum, denom, util;

  if (!wf_fairness_check (x, n, error))
    return FALSE;
  if (!isfinite (capacity) || capacity <= 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "capacity %g must be a finite number above zero", capacity);
      return FALSE;
    }
  if (!isfinite (alpha) || alpha < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "alpha %g must be a finite number of zero or more", alpha);
      return FALSE;
    }

  /* In units of C: F = (sum y)^alpha / (n sum y^2 - 2 sum y + 2),
   * the denominator is (S - 1)^2 + 1 + (n Q - S^2) >= 1 > 0. */
  for (gsize i = 0; i < n; i++)
    {
      double y = x[i] / capacity;
      acc_add (&s, y);
      acc_add (&q, y * y);
    }
  sum = acc_value (&s);

  if (sum > 1 + WF_FAIRNESS_OVER_SLACK && !(flags & WF_FAIRNESS_ALLOW_OVER))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_OVER_CAPACITY,
                   "sum of throughputs %g exceeds the capacity %g",
                   wf_fairness_sum (x, n), capacity);
      return FALSE;
    }

  util = MIN (sum, 1.0);
  denom = (double) n * acc_value (&q) - 2 * sum + 2;
  if (!isfinite (denom))
    {
      /* Only with ALLOW_OVER and x/C beyond double range: the limit is 0. */
      *out = 0;
      return TRUE;
    }
  /* pow (0, 0) is 1: with alpha = 0 an idle link still has a fairness term. */
  *out = pow (util, alpha) / denom;
  return TRUE;
}
