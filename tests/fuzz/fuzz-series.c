/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the per-flow series CSV that `wlanfairctl fairness`
 * reads (wf_series_new_from_data, and wf_series_new_from_file on the same
 * bytes) on arbitrary text. Built by run-fuzz series; fuzz-main.c replays
 * the corpus (meson test series-corpus).
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - NULL exactly when an error is set, with a non-empty message that
 *    starts with the name given;
 *  - the file and the buffer parse the same way (same flows, samples);
 *  - what parses is what docs/fairness.md promises: at least one flow
 *    and sample, distinct flow names of 1 to 255 bytes, each flow's
 *    samples sorted and not overlapping, every end after its start, every
 *    value finite, rates not negative, start <= end of the series, the
 *    median interval positive and the sample count the sum of the flows';
 *  - a flow's average over the series is never NaN nor negative. */
#include "fuzz-file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wlanfair-series.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_series (const WfSeries *s)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = wf_series_get_n_flows (s), total = 0;

  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (n, <=, WF_SERIES_MAX_FLOWS);
  g_assert_true (isfinite (wf_series_get_start (s)) && isfinite (wf_series_get_end (s)));
  g_assert_true (wf_series_get_start (s) < wf_series_get_end (s));
  g_assert_true (wf_series_get_median_interval (s) > 0);
  for (guint f = 0; f < n; f++)
    {
      const char *name = wf_series_get_flow_name (s, f);
      guint m = wf_series_get_flow_n_samples (s, f);
      double prev_end = -INFINITY, avg;

      g_assert_true (name[0] && strlen (name) <= WF_SERIES_MAX_FLOW_NAME);
      g_assert_true (g_hash_table_add (names, (gpointer) name));
      g_assert_cmpuint (m, >=, 1);
      total += m;
      for (guint i = 0; i < m; i++)
        {
          double a, b, r;

          wf_series_get_flow_sample (s, f, i, &a, &b, &r);
          g_assert_true (isfinite (a) && isfinite (b) && isfinite (r));
          g_assert_true (b > a && r >= 0 && a >= prev_end);
          g_assert_true (a >= wf_series_get_start (s) && b <= wf_series_get_end (s));
          prev_end = b;
        }
      if (wf_series_flow_average (s, f, wf_series_get_start (s), wf_series_get_end (s), &avg))
        g_assert_true (!isnan (avg) && avg >= 0);
    }
  g_assert_cmpuint (total, ==, wf_series_get_n_samples (s));
}

static gboolean
same (const WfSeries *a, const WfSeries *b)
{
  if (wf_series_get_n_flows (a) != wf_series_get_n_flows (b) ||
      wf_series_get_n_samples (a) != wf_series_get_n_samples (b))
    return FALSE;
  for (guint f = 0; f < wf_series_get_n_flows (a); f++)
    if (!g_str_equal (wf_series_get_flow_name (a, f), wf_series_get_flow_name (b, f)) ||
        wf_series_get_flow_n_samples (a, f) != wf_series_get_flow_n_samples (b, f))
      return FALSE;
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) file_error = NULL;
  g_autoptr(WfSeries) s = NULL;
  g_autoptr(WfSeries) from_file = NULL;
  const char *path;

  s = wf_series_new_from_data ((const char *) data, size, "fuzz.csv", &error);
  fuzz_check_error (s != NULL, error);
  if (error)
    g_assert_true (g_str_has_prefix (error->message, "fuzz.csv"));
  else
    check_series (s);

  path = fuzz_file (data, size);
  from_file = wf_series_new_from_file (path, &file_error);
  fuzz_check_error (from_file != NULL, file_error);
  g_assert_true ((s == NULL) == (from_file == NULL));
  if (s)
    g_assert_true (same (s, from_file));
  return 0;
}
