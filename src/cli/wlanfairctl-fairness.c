/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl fairness: the indices of a list of throughputs, or the
 * Sliding Window Method over a series file (and its picture, --plot). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "wlanfair-chart.h"
#include "wlanfair-error.h"
#include "wlanfair-fairness.h"
#include "wlanfair-file.h"
#include "wlanfair-number.h"
#include "wlanfair-readfile.h"
#include "wlanfair-series.h"
#include "wlanfair-swm.h"
#include "wlanfairctl.h"

typedef struct {
  char     *capacity_arg;
  char     *alpha_arg;
  char     *series_arg;
  char     *window_arg;
  char     *step_arg;
  char     *plot_arg;
  gboolean  allow_over;
  gboolean  json;

  double    capacity; /* 0: none */
  double    alpha;
  double    step;     /* 0: default */
  GArray   *windows;  /* double; NULL with --plot alone: defaults */
} Options;

static void
options_clear (Options *o)
{
  g_free (o->capacity_arg);
  g_free (o->alpha_arg);
  g_free (o->series_arg);
  g_free (o->window_arg);
  g_free (o->step_arg);
  g_free (o->plot_arg);
  if (o->windows)
    g_array_unref (o->windows);
}

/* Check the command line as a whole before touching any data. */
static int
validate (Options *o, int n_values)
{
  int rc;

  if (o->capacity_arg &&
      (rc = wf_cli_parse_number ("--capacity", o->capacity_arg, WF_NUMBER_SI | WF_NUMBER_POSITIVE,
                        &o->capacity)))
    return rc;
  if (o->alpha_arg &&
      (rc = wf_cli_parse_number ("--alpha", o->alpha_arg, WF_NUMBER_NONNEG, &o->alpha)))
    return rc;
  if (!o->capacity_arg && (o->alpha_arg || o->allow_over))
    return wf_cli_usage_error ("%s needs --capacity",
                               o->alpha_arg ? "--alpha" : "--allow-over");

  if (o->series_arg == NULL)
    {
      if (o->window_arg || o->step_arg || o->plot_arg)
        return wf_cli_usage_error ("%s needs --series",
                                   o->window_arg ? "--window" : o->step_arg ? "--step" : "--plot");
      if (n_values == 0)
        return wf_cli_usage_error ("no throughputs given");
      return WF_EXIT_OK;
    }

  if (n_values > 0)
    return wf_cli_usage_error ("throughputs and --series exclude each other");
  if (o->plot_arg && *o->plot_arg == '\0')
    return wf_cli_usage_error ("--plot: empty file name");
  if (o->window_arg == NULL && o->plot_arg == NULL)
    return wf_cli_usage_error ("--series needs --window (or --plot, which has default widths)");
  if (o->step_arg &&
      (rc = wf_cli_parse_number ("--step", o->step_arg, WF_NUMBER_POSITIVE, &o->step)))
    return rc;
  if (o->window_arg == NULL)
    return WF_EXIT_OK; /* the widths come from the series */

  o->windows = g_array_new (FALSE, FALSE, sizeof (double));
  {
    g_auto(GStrv) parts = g_strsplit (o->window_arg, ",", -1);

    for (char **p = parts; *p; p++)
      {
        double w;

        if ((rc = wf_cli_parse_number ("--window", g_strstrip (*p), WF_NUMBER_POSITIVE, &w)))
          return rc;
        g_array_append_val (o->windows, w);
      }
    if (o->windows->len == 0)
      return wf_cli_usage_error ("--window: no window width given");
  }
  return WF_EXIT_OK;
}

static void
json_nullable_double (JsonBuilder *b, const char *key, gboolean have, double v)
{
  json_builder_set_member_name (b, key);
  if (have)
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
print_table_row (const char *label, const char *value)
{
  printf ("%-9s %s\n", label, value);
}

static int
run_values (Options *o, char **values, int n_values)
{
  g_autofree double *x = g_new (double, n_values);
  g_autoptr(GError) error = NULL;
  double jain, tradeoff = 0, sum;
  gboolean have_tradeoff = o->capacity > 0;
  int rc;

  for (int i = 0; i < n_values; i++)
    if ((rc = wf_cli_parse_number ("throughput", values[i], WF_NUMBER_SI | WF_NUMBER_NONNEG, &x[i])))
      return rc;

  if (!wf_fairness_jain (x, n_values, &jain, &error))
    return wf_cli_usage_error ("%s", error->message);
  /* Each value is finite, their sum need not be (1e308 + 1e308); the
   * indices are computed scaled and would still print, the sum cannot. */
  sum = wf_fairness_sum (x, n_values);
  if (!isfinite (sum))
    return wf_cli_usage_error ("the throughputs add up to more than %g, the largest number "
                               "handled", G_MAXDOUBLE);
  if (have_tradeoff &&
      !wf_fairness_tradeoff (x, n_values, o->capacity, o->alpha,
                             o->allow_over ? WF_FAIRNESS_ALLOW_OVER : 0,
                             &tradeoff, &error))
    {
      if (g_error_matches (error, WF_ERROR, WF_ERROR_OVER_CAPACITY))
        return wf_cli_usage_error ("--capacity: %s; --allow-over accepts that",
                                   error->message);
      return wf_cli_usage_error ("%s", error->message);
    }

  if (o->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "n");
      json_builder_add_int_value (b, n_values);
      json_builder_set_member_name (b, "sum");
      json_builder_add_double_value (b, sum);
      json_builder_set_member_name (b, "jain");
      json_builder_add_double_value (b, jain);
      json_nullable_double (b, "tradeoff", have_tradeoff, tradeoff);
      json_nullable_double (b, "capacity", have_tradeoff, o->capacity);
      json_nullable_double (b, "alpha", have_tradeoff, o->alpha);
      json_builder_end_object (b);
      wf_cli_print_json (b);
    }
  else
    {
      g_autofree char *n = g_strdup_printf ("%d", n_values);
      g_autofree char *s = g_strdup_printf ("%.10g", sum);
      g_autofree char *j = g_strdup_printf ("%.4f", jain);
      g_autofree char *t = have_tradeoff
        ? g_strdup_printf ("%.4f  (capacity %.10g, alpha %g)", tradeoff, o->capacity, o->alpha)
        : g_strdup ("-  (needs --capacity)");

      print_table_row ("n", n);
      print_table_row ("sum", s);
      print_table_row ("jain", j);
      print_table_row ("tradeoff", t);
    }
  return WF_EXIT_OK;
}

static WfSeries *
load_series (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;

  if (!g_str_equal (path, "-"))
    return wf_series_new_from_file (path, error);

  /* The same limit as a file's: `< /dev/zero` ends too. */
  if (!wf_readfile_bounded_fd (STDIN_FILENO, "<stdin>", WF_READFILE_SERIES_MAX, "a series",
                               &data, &length, error))
    return NULL;
  return wf_series_new_from_data (data, length, "<stdin>", error);
}

static void
json_stat (JsonBuilder *b, const char *key, gboolean have, const WfSwmStat *s)
{
  json_builder_set_member_name (b, key);
  if (!have)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "min");
  json_builder_add_double_value (b, s->min);
  json_builder_set_member_name (b, "mean");
  json_builder_add_double_value (b, s->mean);
  json_builder_set_member_name (b, "min_at");
  json_builder_add_double_value (b, s->min_at);
  json_builder_end_object (b);
}

static char *
format_stat (gboolean have, double v)
{
  return have ? g_strdup_printf ("%.4f", v) : g_strdup ("-");
}

/* The largest of bit/s, kbit/s, Mbit/s, Gbit/s that keeps MAX at 1 or
 * more, so the axis reads 0 to 12, not 0 to 12000000. */
static double
rate_unit (double max, const char **name)
{
  static const struct { double scale; const char *name; } units[] = {
    { 1e9, "Gbit/s" }, { 1e6, "Mbit/s" }, { 1e3, "kbit/s" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    if (max >= units[i].scale)
      {
        *name = units[i].name;
        return units[i].scale;
      }
  *name = "bit/s";
  return 1;
}

/* Two charts: each flow's samples over time, and the SWM curve. */
static char *
plot_series (const WfSeries *series, const char *display, const GArray *windows,
             const WfSwmResult *results)
{
  g_autoptr(WfChart) rates = wf_chart_new ("Per-flow throughput");
  g_autoptr(WfChart) swm = wf_chart_new ("Sliding Window Method: index over windows of each width");
  g_autofree char *y_label = NULL, *title = NULL;
  WfChart *charts[2] = { rates, swm };
  double t0 = wf_series_get_start (series), max = 0, scale, wmin, wmax;
  const char *unit;
  guint jmean, jmin, tmean = 0, tmin = 0;
  gboolean tradeoff = windows->len > 0 && results[0].has_tradeoff;

  for (guint f = 0; f < wf_series_get_n_flows (series); f++)
    for (guint k = 0; k < wf_series_get_flow_n_samples (series, f); k++)
      {
        double a, b, r;

        wf_series_get_flow_sample (series, f, k, &a, &b, &r);
        max = MAX (max, r);
      }
  scale = rate_unit (max, &unit);
  y_label = g_strdup_printf ("throughput (%s)", unit);
  /* Seconds since the run's first sample: an epoch origin would make
   * ten-digit tick labels. */
  wf_chart_set_x_axis (rates, "time since the start of the series (s)",
                       WF_CHART_SCALE_LINEAR);
  wf_chart_set_x_range (rates, 0, wf_series_get_end (series) - t0);
  wf_chart_set_y_axis (rates, y_label);
  wf_chart_set_y_include_zero (rates, TRUE);
  for (guint f = 0; f < wf_series_get_n_flows (series); f++)
    {
      guint s = wf_chart_add_series (rates, wf_series_get_flow_name (series, f),
                                     WF_CHART_SERIES_NONE);

      for (guint k = 0; k < wf_series_get_flow_n_samples (series, f); k++)
        {
          double a, b, r;

          wf_series_get_flow_sample (series, f, k, &a, &b, &r);
          wf_chart_add_point (rates, s, (a + b) / 2 - t0, r / scale);
        }
    }

  /* Widths spanning a decade or more read better on a log axis, as in
   * the SWM figures of the literature. */
  wmin = wmax = windows->len ? g_array_index (windows, double, 0) : 1;
  for (guint i = 0; i < windows->len; i++)
    {
      wmin = MIN (wmin, g_array_index (windows, double, i));
      wmax = MAX (wmax, g_array_index (windows, double, i));
    }
  wf_chart_set_x_axis (swm, "window width (s)",
                       wmax >= 10 * wmin ? WF_CHART_SCALE_LOG : WF_CHART_SCALE_LINEAR);
  wf_chart_set_y_axis (swm, tradeoff ? "index" : "Jain's index");
  wf_chart_set_y_range (swm, 0, 1);
  jmean = wf_chart_add_series (swm, "Jain mean", WF_CHART_SERIES_MARKERS);
  jmin = wf_chart_add_series (swm, "Jain min", WF_CHART_SERIES_MARKERS);
  if (tradeoff)
    {
      tmean = wf_chart_add_series (swm, "trade-off mean", WF_CHART_SERIES_MARKERS);
      tmin = wf_chart_add_series (swm, "trade-off min", WF_CHART_SERIES_MARKERS);
    }
  for (guint i = 0; i < windows->len; i++)
    {
      const WfSwmResult *r = &results[i];
      /* A width whose every window is empty has no value: NaN, skipped. */
      gboolean have = r->n_windows > 0;

      wf_chart_add_point (swm, jmean, r->window, have ? r->jain.mean : NAN);
      wf_chart_add_point (swm, jmin, r->window, have ? r->jain.min : NAN);
      if (tradeoff)
        {
          wf_chart_add_point (swm, tmean, r->window, have ? r->tradeoff.mean : NAN);
          wf_chart_add_point (swm, tmin, r->window, have ? r->tradeoff.min : NAN);
        }
    }

  title = g_strdup_printf ("wlanfairctl fairness: %s", display);
  return wf_chart_render_svg (charts, G_N_ELEMENTS (charts), title);
}

static int
run_series (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfSeries) series = NULL;
  g_autofree WfSwmResult *results = NULL;
  g_autofree char *display = g_str_equal (o->series_arg, "-")
    ? g_strdup ("<stdin>") : g_filename_display_name (o->series_arg);
  WfSwmParams params = {
    .step = o->step,
    .capacity = o->capacity,
    .alpha = o->alpha,
    .flags = o->allow_over ? WF_FAIRNESS_ALLOW_OVER : 0,
  };
  double t0, t1, run_jain = 0, run_tradeoff = 0;
  guint run_n;

  /* A target that would be refused is said before any work. */
  if (o->plot_arg && !wf_file_check (o->plot_arg, &error))
    return wf_cli_fail ("--plot: %s", error->message);
  series = load_series (o->series_arg, &error);
  if (series == NULL)
    return wf_cli_fail ("%s", error->message);
  t0 = wf_series_get_start (series);
  t1 = wf_series_get_end (series);

  if (!wf_swm_eval_window (series, &params, t0, t1, &run_n, &run_jain, &run_tradeoff, &error))
    goto data_error;
  if (o->windows == NULL)
    o->windows = wf_swm_default_windows (series);

  results = g_new0 (WfSwmResult, o->windows->len);
  for (guint i = 0; i < o->windows->len; i++)
    {
      params.window = g_array_index (o->windows, double, i);
      if (!wf_swm_run (series, &params, &results[i], &error))
        goto data_error;
    }

  /* Before anything is printed: a failure prints one line, no table. */
  if (o->plot_arg)
    {
      g_autofree char *svg = plot_series (series, display, o->windows, results);

      /* Whole or not at all, replacing a regular file alone
       * (wlanfair-file.h); 0666 less the umask, as any file the user makes. */
      if (!wf_file_write (o->plot_arg, svg, strlen (svg), 0666, WF_FILE_DURABLE, &error))
        return wf_cli_fail ("%s", error->message);
    }

  if (o->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "series");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, display);
      json_builder_set_member_name (b, "flows");
      json_builder_add_int_value (b, wf_series_get_n_flows (series));
      json_builder_set_member_name (b, "samples");
      json_builder_add_int_value (b, wf_series_get_n_samples (series));
      json_builder_set_member_name (b, "start");
      json_builder_add_double_value (b, t0);
      json_builder_set_member_name (b, "end");
      json_builder_add_double_value (b, t1);
      json_builder_end_object (b);
      json_nullable_double (b, "capacity", params.capacity > 0, params.capacity);
      json_nullable_double (b, "alpha", params.capacity > 0, params.alpha);
      json_builder_set_member_name (b, "run");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "jain");
      json_builder_add_double_value (b, run_jain);
      json_nullable_double (b, "tradeoff", params.capacity > 0, run_tradeoff);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "windows");
      json_builder_begin_array (b);
      for (guint i = 0; i < o->windows->len; i++)
        {
          const WfSwmResult *r = &results[i];
          gboolean have = r->n_windows > 0;

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "window");
          json_builder_add_double_value (b, r->window);
          json_builder_set_member_name (b, "step");
          json_builder_add_double_value (b, r->step);
          json_builder_set_member_name (b, "count");
          json_builder_add_int_value (b, r->n_windows);
          json_builder_set_member_name (b, "empty");
          json_builder_add_int_value (b, r->n_empty);
          json_stat (b, "jain", have, &r->jain);
          json_stat (b, "tradeoff", have && r->has_tradeoff, &r->tradeoff);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      wf_cli_print_json (b);
      return WF_EXIT_OK;
    }

  printf ("series   %s: %u flows, %u samples, %g s to %g s\n",
          display, wf_series_get_n_flows (series),
          wf_series_get_n_samples (series), t0, t1);
  if (params.capacity > 0)
    printf ("run      jain %.4f  tradeoff %.4f  (capacity %.10g, alpha %g)\n",
            run_jain, run_tradeoff, params.capacity, params.alpha);
  else
    printf ("run      jain %.4f\n", run_jain);
  printf ("\n%8s %8s %8s %8s %9s %12s %13s\n", "window_s", "step_s", "windows",
          "jain_min", "jain_mean", "tradeoff_min", "tradeoff_mean");
  for (guint i = 0; i < o->windows->len; i++)
    {
      const WfSwmResult *r = &results[i];
      gboolean have = r->n_windows > 0, have_t = have && r->has_tradeoff;
      g_autofree char *jmin = format_stat (have, r->jain.min);
      g_autofree char *jmean = format_stat (have, r->jain.mean);
      g_autofree char *tmin = format_stat (have_t, r->tradeoff.min);
      g_autofree char *tmean = format_stat (have_t, r->tradeoff.mean);

      printf ("%8g %8g %8u %8s %9s %12s %13s\n", r->window, r->step,
              r->n_windows, jmin, jmean, tmin, tmean);
      if (r->n_empty > 0)
        printf ("         (%u windows of %g s hold no flow and are not counted)\n",
                r->n_empty, r->window);
    }
  return WF_EXIT_OK;

data_error:
  if (g_error_matches (error, WF_ERROR, WF_ERROR_OVER_CAPACITY))
    return wf_cli_fail ("%s: %s; --allow-over accepts that", display, error->message);
  return wf_cli_fail ("%s: %s", display, error->message);
}

int
wf_cli_fairness (int argc, char **argv)
{
  Options o = { .alpha = 1.0 };
  const GOptionEntry entries[] = {
    { "capacity", 'c', 0, G_OPTION_ARG_STRING, &o.capacity_arg,
      "Bottleneck capacity, same unit as the throughputs (enables the trade-off index)", "C" },
    { "alpha", 'a', 0, G_OPTION_ARG_STRING, &o.alpha_arg,
      "Weight of utilisation in the trade-off index (default 1)", "A" },
    { "allow-over", 0, 0, G_OPTION_ARG_NONE, &o.allow_over,
      "Accept a sum above the capacity (utilisation is capped at 1)", NULL },
    { "series", 's', 0, G_OPTION_ARG_FILENAME, &o.series_arg,
      "CSV series " WF_SERIES_HEADER " ('-' for standard input)", "FILE" },
    { "window", 'w', 0, G_OPTION_ARG_STRING, &o.window_arg,
      "Sliding window widths in seconds, comma-separated", "W[,W...]" },
    { "step", 0, 0, G_OPTION_ARG_STRING, &o.step_arg,
      "Slide windows by S seconds (default: the median sample interval)", "S" },
    { "plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot_arg,
      "Draw the series and the SWM curve into an SVG file (needs --series)", "FILE" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &o.json,
      "Print one JSON object", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx =
    g_option_context_new ("X1 [X2...] | --series FILE --window W[,W...] [--plot OUT.svg]");
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Jain's fairness index and the utilisation-aware trade-off index of\n"
    "throughputs X (SI suffixes k, M, G, T allowed: 2.5M), or their\n"
    "minimum and mean over sliding windows of a per-flow series.");
  g_option_context_set_description (ctx,
    "Exit status: 0 success, 1 bad input data or file, 2 usage error.\n"
    "See wlanfairctl-fairness(1).");

  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    goto out;
  /* GOption leaves argv[0] and the first "--" in place. */
  argc--, argv++;
  for (int i = 0; i < argc; i++)
    if (g_str_equal (argv[i], "--"))
      {
        memmove (&argv[i], &argv[i + 1], (argc - i) * sizeof (char *));
        argc--;
        break;
      }

  if ((rc = validate (&o, argc)))
    goto out;
  rc = o.series_arg ? run_series (&o) : run_values (&o, argv, argc);

out:
  options_clear (&o);
  return rc;
}
