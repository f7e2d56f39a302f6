/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sliding Window Method: an index on per-flow averages inside windows of
 * w seconds slid across the run; short windows show short-term
 * unfairness that a whole-run average hides. */
#include "wlanfair-swm.h"

#include <math.h>

#include "wlanfair-error.h"

gboolean
wf_swm_eval_window (const WfSeries    *series,
                    const WfSwmParams *params,
                    double             a,
                    double             b,
                    guint             *n_flows,
                    double            *jain,
                    double            *tradeoff,
                    GError           **error)
{
  guint flows = wf_series_get_n_flows (series);
  g_autofree double *x = g_new (double, flows);
  g_autoptr(GError) local = NULL;
  guint n = 0;

  for (guint f = 0; f < flows; f++)
    if (wf_series_flow_average (series, f, a, b, &x[n]))
      n++;

  *n_flows = n;
  if (n == 0)
    return TRUE;

  if (!wf_fairness_jain (x, n, jain, error))
    return FALSE;
  if (params->capacity > 0 &&
      !wf_fairness_tradeoff (x, n, params->capacity, params->alpha,
                             params->flags, tradeoff, &local))
    {
      g_set_error (error, WF_ERROR, local->code, "window [%g, %g): %s",
                   a, b, local->message);
      return FALSE;
    }
  return TRUE;
}

static void
stat_add (WfSwmStat *s, double v, double at, guint count)
{
  if (count == 1 || v < s->min)
    {
      s->min = v;
      s->min_at = at;
    }
  s->mean += v; /* a sum until wf_swm_run divides */
}

gboolean
wf_swm_run (const WfSeries    *series,
            const WfSwmParams *params,
            WfSwmResult       *result,
            GError           **error)
{
  double t0 = wf_series_get_start (series);
  double span = wf_series_get_end (series) - t0;
  double w = params->window;
  double step = params->step == 0 ? wf_series_get_median_interval (series) : params->step;
  double positions;
  guint count;

  if (!(w > 0) || !isfinite (w) || !(step > 0) || !isfinite (step))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "window %g s and step %g s must be above zero", w, step);
      return FALSE;
    }
  /* The relative slack keeps w == span (and k * step rounding) inside. */
  if (w > span * (1 + 1e-9))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "window %g s is longer than the series (%g s)", w, span);
      return FALSE;
    }

  positions = floor (MAX (span - w, 0) / step + 1e-9) + 1;
  if (positions > WF_SWM_MAX_WINDOWS)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "window %g s with step %g s gives %.0f windows (limit %d): "
                   "use a larger step", w, step, positions, WF_SWM_MAX_WINDOWS);
      return FALSE;
    }
  count = (guint) positions;

  *result = (WfSwmResult) {
    .window = w,
    .step = step,
    .has_tradeoff = params->capacity > 0,
  };

  for (guint k = 0; k < count; k++)
    {
      /* From k, not by repeated addition, so rounding does not drift. */
      double a = t0 + k * step;
      double jain = 0, tradeoff = 0;
      guint n;

      if (!wf_swm_eval_window (series, params, a, a + w, &n, &jain, &tradeoff, error))
        return FALSE;
      if (n == 0)
        {
          result->n_empty++;
          continue;
        }
      result->n_windows++;
      stat_add (&result->jain, jain, a, result->n_windows);
      if (result->has_tradeoff)
        stat_add (&result->tradeoff, tradeoff, a, result->n_windows);
    }

  if (result->n_windows > 0)
    {
      result->jain.mean /= result->n_windows;
      result->tradeoff.mean /= result->n_windows;
    }
  return TRUE;
}

static double
round_significant (double v, int digits)
{
  double mag = pow (10, digits - 1 - floor (log10 (v)));

  return round (v * mag) / mag;
}

GArray *
wf_swm_default_windows (const WfSeries *series)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));
  double span = wf_series_get_end (series) - wf_series_get_start (series);
  double lo = MIN (wf_series_get_median_interval (series), span);
  double decades;
  guint n;

  if (!(lo > 0) || span <= lo * (1 + 1e-9))
    {
      g_array_append_val (out, span);
      return out;
    }
  /* Log-spaced: the SWM curve changes per factor of width, not per second. */
  decades = log10 (span / lo);
  n = (guint) CLAMP (ceil (decades * WF_SWM_DEFAULT_PER_DECADE) + 1, 2, WF_SWM_DEFAULT_MAX_WIDTHS);
  for (guint i = 0; i < n; i++)
    {
      double w = i == 0 ? lo
        : i + 1 == n ? span
        : round_significant (lo * pow (span / lo, (double) i / (n - 1)), 3);

      /* Rounding may merge neighbours on a short run, or reach the end. */
      w = MIN (w, span);
      if (out->len == 0 || w > g_array_index (out, double, out->len - 1))
        g_array_append_val (out, w);
    }
  return out;
}
