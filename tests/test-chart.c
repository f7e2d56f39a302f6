/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SVG line charts: ticks, escaping, skipped points, degenerate
 * ranges, the C locale; every document is parsed back as XML. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg-doc.h"
#include "wlanfair-chart.h"

/* Render CHART alone and parse it; the document must be well-formed SVG. */
static SvgNode *
render_parse (WfChart *chart, char **svg_out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *svg = wf_chart_render_svg (&chart, 1, "doc <title> & more");
  SvgNode *root = svg_doc_parse (svg, &error);

  g_assert_no_error (error);
  g_assert_nonnull (root);
  g_assert_cmpstr (root->name, ==, "svg");
  g_assert_cmpstr (svg_node_attr (root, "xmlns"), ==, "http://www.w3.org/2000/svg");
  g_assert_cmpstr (svg_node_attr (root, "version"), ==, "1.1");
  g_assert_cmpstr (svg_node_child (root, "title")->text->str, ==, "doc <title> & more");
  /* Nothing from outside the file. */
  g_assert_null (strstr (svg, "@import"));
  g_assert_null (strstr (svg, "href"));
  if (svg_out)
    *svg_out = g_steal_pointer (&svg);
  return root;
}

/* The series' polyline by name, and its points. */
static GArray *
series_points (SvgNode *root, const char *name)
{
  g_autoptr(GPtrArray) lines = svg_node_find (root, "polyline", "series");

  for (guint i = 0; i < lines->len; i++)
    {
      SvgNode *l = g_ptr_array_index (lines, i);

      if (g_strcmp0 (svg_node_attr (l, "data-name"), name) == 0)
        {
          GArray *pts = svg_points_parse (svg_node_attr (l, "points"));

          g_assert_cmpstr (svg_node_child (l, "title")->text->str, ==, name);
          g_assert_cmpfloat (svg_node_number (l, "data-points"), ==, pts->len / 2);
          return pts;
        }
    }
  g_error ("no series '%s'", name);
}

static SvgNode *
chart_group (SvgNode *root)
{
  g_autoptr(GPtrArray) charts = svg_node_find (root, "g", "chart");

  g_assert_cmpuint (charts->len, ==, 1);
  return g_ptr_array_index (charts, 0);
}

/* The tick labels of one axis ("x-axis", "y-axis"), as text. */
static GPtrArray *
tick_labels (SvgNode *root, const char *axis)
{
  g_autoptr(GPtrArray) groups = svg_node_find (root, "g", axis);
  g_autoptr(GPtrArray) ticks = NULL;
  GPtrArray *out = g_ptr_array_new ();

  g_assert_cmpuint (groups->len, ==, 1);
  ticks = svg_node_find (g_ptr_array_index (groups, 0), "text", "tick");
  for (guint i = 0; i < ticks->len; i++)
    g_ptr_array_add (out, ((SvgNode *) g_ptr_array_index (ticks, i))->text->str);
  return out;
}

static void
test_nice_step (void)
{
  struct { double span; guint ticks; double step; } cases[] = {
    { 10, 5, 2 }, { 1, 5, 0.2 }, { 0.7, 7, 0.1 }, { 3e6, 6, 5e5 },
    { 100, 10, 10 }, { 99.9, 10, 10 }, { 101, 10, 20 }, { 31, 6, 10 },
    { 0.003, 6, 0.0005 }, { 1e-300, 4, 0 /* below: any 1-2-5 step */ },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double s = wf_chart_nice_step (cases[i].span, cases[i].ticks);
      double m = s / pow (10, floor (log10 (s) + 1e-9));

      g_test_message ("span %g, %u ticks: step %g", cases[i].span, cases[i].ticks, s);
      if (cases[i].step != 0)
        g_assert_cmpfloat_with_epsilon (s / cases[i].step, 1, 1e-12);
      /* Always 1, 2 or 5 x 10^k, and few enough intervals. */
      g_assert_true (fabs (m - 1) < 1e-9 || fabs (m - 2) < 1e-9 || fabs (m - 5) < 1e-9);
      g_assert_cmpfloat (cases[i].span / s, <=, cases[i].ticks + 1e-9);
    }
  /* Nonsense in, a usable step out. */
  g_assert_cmpfloat (wf_chart_nice_step (0, 5), ==, 1);
  g_assert_cmpfloat (wf_chart_nice_step (NAN, 5), ==, 1);
}

static void
test_nice_range (void)
{
  double lo = 0.3, hi = 9.7, step;

  step = wf_chart_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat (step, ==, 2);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 10);

  lo = -0.05, hi = 0.95;
  step = wf_chart_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat_with_epsilon (step, 0.2, 1e-15);
  g_assert_cmpfloat_with_epsilon (lo, -0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi, 1.0, 1e-12);

  /* Degenerate: one value is padded, and stays inside. */
  lo = hi = 5;
  step = wf_chart_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat (step, >, 0);
  g_assert_cmpfloat (lo, <, 5);
  g_assert_cmpfloat (hi, >, 5);
  lo = hi = 0;
  wf_chart_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat (lo, ==, -1);
  g_assert_cmpfloat (hi, ==, 1);
  lo = hi = -3e9;
  wf_chart_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat (lo, <, -3e9);
  g_assert_cmpfloat (hi, >, -3e9);
  /* No data at all. */
  lo = NAN, hi = NAN;
  wf_chart_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 1);
}

static void
test_escape (void)
{
  struct { const char *in, *out; } cases[] = {
    { "plain", "plain" },
    { "a<b & \"c\" 'd' >", "a&lt;b &amp; &quot;c&quot; &apos;d&apos; &gt;" },
    { "&amp;", "&amp;amp;" },
    { "tab\there", "tab\there" },
    { "bell\x07!", "bell\xef\xbf\xbd!" },
    { "bad \xff utf8", "bad \xef\xbf\xbd utf8" },
    { "caf\xc3\xa9", "caf\xc3\xa9" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) s = g_string_new (NULL);

      wf_chart_escape (s, cases[i].in);
      g_assert_cmpstr (s->str, ==, cases[i].out);
    }
}

/* Names that need escaping reach the document as the same names. */
static void
test_names_round_trip (void)
{
  const char *names[] = { "up<1>", "A&B \"quoted\" 'single'", "caf\xc3\xa9" };
  g_autoptr(WfChart) c = wf_chart_new ("t & <t>");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GPtrArray) lines = NULL;
  g_autoptr(GPtrArray) legend = NULL;

  wf_chart_set_x_axis (c, "x <s>", WF_CHART_SCALE_LINEAR);
  wf_chart_set_y_axis (c, "y & z");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      guint s = wf_chart_add_series (c, names[i], WF_CHART_SERIES_NONE);

      wf_chart_add_point (c, s, 0, i);
      wf_chart_add_point (c, s, 1, i + 1);
    }
  root = render_parse (c, NULL);
  lines = svg_node_find (root, "polyline", "series");
  g_assert_cmpuint (lines->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GArray) pts = series_points (root, names[i]);

      g_assert_cmpuint (pts->len, ==, 4);
    }
  /* The legend names them too. */
  legend = svg_node_find (root, "g", "legend");
  g_assert_cmpuint (legend->len, ==, 1);
  {
    g_autoptr(GPtrArray) texts = svg_node_find (g_ptr_array_index (legend, 0), "text", NULL);

    g_assert_cmpuint (texts->len, ==, G_N_ELEMENTS (names));
    for (guint i = 0; i < texts->len; i++)
      g_assert_cmpstr (((SvgNode *) g_ptr_array_index (texts, i))->text->str, ==, names[i]);
  }
}

/* Points map back to their values through data-area and the ranges. */
static void
assert_maps_to (SvgNode *chart, const GArray *pts, guint k, double x, double y)
{
  g_auto(GStrv) area = g_strsplit (svg_node_attr (chart, "data-area"), " ", -1);
  double ax = g_ascii_strtod (area[0], NULL), ay = g_ascii_strtod (area[1], NULL);
  double aw = g_ascii_strtod (area[2], NULL), ah = g_ascii_strtod (area[3], NULL);
  double x0 = svg_node_number (chart, "data-x-min"), x1 = svg_node_number (chart, "data-x-max");
  double y0 = svg_node_number (chart, "data-y-min"), y1 = svg_node_number (chart, "data-y-max");
  double px = g_array_index (pts, double, 2 * k), py = g_array_index (pts, double, 2 * k + 1);
  double fx = (px - ax) / aw, fy = (ay + ah - py) / ah;
  double vx = g_str_equal (svg_node_attr (chart, "data-x-scale"), "log")
    ? pow (10, log10 (x0) + fx * (log10 (x1) - log10 (x0)))
    : x0 + fx * (x1 - x0);
  double vy = y0 + fy * (y1 - y0);

  g_assert_cmpfloat_with_epsilon (vx, x, 1e-4 * MAX (1, fabs (x)));
  g_assert_cmpfloat_with_epsilon (vy, y, 1e-4 * MAX (1, fabs (y1 - y0)));
}

static void
test_nan_skipped (void)
{
  g_autoptr(WfChart) c = wf_chart_new ("skipped");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GArray) pts = NULL;
  g_autofree char *svg = NULL;
  guint s = wf_chart_add_series (c, "s", WF_CHART_SERIES_MARKERS);
  SvgNode *chart;

  wf_chart_add_point (c, s, 0, 1);
  wf_chart_add_point (c, s, 1, NAN);
  wf_chart_add_point (c, s, INFINITY, 3);
  wf_chart_add_point (c, s, 2, -INFINITY);
  wf_chart_add_point (c, s, 3, 2);
  root = render_parse (c, &svg);
  g_assert_null (strstr (svg, "nan"));
  g_assert_null (strstr (svg, "inf"));
  pts = series_points (root, "s");
  g_assert_cmpuint (pts->len, ==, 4);
  chart = chart_group (root);
  /* The range comes from the finite points alone. */
  g_assert_cmpfloat (svg_node_number (chart, "data-x-max"), <, 10);
  assert_maps_to (chart, pts, 0, 0, 1);
  assert_maps_to (chart, pts, 1, 3, 2);
  {
    g_autoptr(GPtrArray) dots = svg_node_find (root, "circle", NULL);

    g_assert_cmpuint (dots->len, ==, 2);
  }
}

static void
test_single_point (void)
{
  g_autoptr(WfChart) c = wf_chart_new ("one");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GArray) pts = NULL;
  guint s = wf_chart_add_series (c, "lone", WF_CHART_SERIES_NONE);
  SvgNode *chart;
  g_autoptr(GPtrArray) dots = NULL;

  wf_chart_add_point (c, s, 7, 42);
  root = render_parse (c, NULL);
  pts = series_points (root, "lone");
  g_assert_cmpuint (pts->len, ==, 2);
  chart = chart_group (root);
  g_assert_cmpfloat (svg_node_number (chart, "data-x-min"), <, 7);
  g_assert_cmpfloat (svg_node_number (chart, "data-x-max"), >, 7);
  assert_maps_to (chart, pts, 0, 7, 42);
  /* A polyline of one point draws nothing: the dot does. */
  dots = svg_node_find (root, "circle", NULL);
  g_assert_cmpuint (dots->len, ==, 1);
}

static void
test_empty (void)
{
  g_autoptr(WfChart) c = wf_chart_new ("empty");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GArray) pts = NULL;
  g_autoptr(GPtrArray) nodata = NULL;

  wf_chart_add_series (c, "nothing", WF_CHART_SERIES_MARKERS);
  root = render_parse (c, NULL);
  pts = series_points (root, "nothing");
  g_assert_cmpuint (pts->len, ==, 0);
  nodata = svg_node_find (root, "text", "no-data");
  g_assert_cmpuint (nodata->len, ==, 1);

  /* And a chart without any series. */
  {
    g_autoptr(WfChart) bare = wf_chart_new ("bare");
    g_autoptr(SvgNode) r2 = render_parse (bare, NULL);
    g_autoptr(GPtrArray) lines = svg_node_find (r2, "polyline", "series");

    g_assert_cmpuint (lines->len, ==, 0);
  }
}

/* Values near the ends of double: a document still, and finite. */
static void
test_extreme (void)
{
  g_autoptr(WfChart) c = wf_chart_new ("extreme");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GArray) pts = NULL;
  g_autofree char *svg = NULL;
  guint s = wf_chart_add_series (c, "s", WF_CHART_SERIES_NONE);

  wf_chart_add_point (c, s, -1.7e308, 1.7e308);
  wf_chart_add_point (c, s, 1.7e308, -1.7e308);
  wf_chart_add_point (c, s, 0, 0);
  root = render_parse (c, &svg);
  pts = series_points (root, "s");
  g_assert_cmpuint (pts->len, ==, 6);
  for (guint i = 0; i < pts->len; i++)
    g_assert_true (isfinite (g_array_index (pts, double, i)));
  g_assert_null (strstr (svg, "inf"));
  g_assert_null (strstr (svg, "nan"));

  /* One value near DBL_MAX: padded, yet finite. */
  {
    double lo = 1.7e308, hi = 1.7e308;

    wf_chart_nice_range (&lo, &hi, 5);
    g_assert_true (isfinite (lo) && isfinite (hi));
    g_assert_cmpfloat (lo, <, hi);
  }

  /* Out of a fixed range: clamped coordinates, still numbers. */
  {
    g_autoptr(WfChart) f = wf_chart_new ("out of range");
    g_autoptr(SvgNode) r2 = NULL;
    g_autoptr(GArray) p2 = NULL;
    guint fs = wf_chart_add_series (f, "s", WF_CHART_SERIES_MARKERS);

    wf_chart_set_y_range (f, 0, 1);
    wf_chart_add_point (f, fs, 0, 1e300);
    wf_chart_add_point (f, fs, 1, 0.5);
    r2 = render_parse (f, NULL);
    p2 = series_points (r2, "s");
    g_assert_cmpuint (p2->len, ==, 4);
    assert_maps_to (chart_group (r2), p2, 1, 1, 0.5);
  }
}

static void
test_degenerate (void)
{
  g_autoptr(WfChart) c = wf_chart_new ("flat");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GArray) pts = NULL;
  guint s = wf_chart_add_series (c, "flat", WF_CHART_SERIES_NONE);
  SvgNode *chart;
  double y0, y1;

  for (int i = 0; i < 5; i++)
    wf_chart_add_point (c, s, i, 5);
  root = render_parse (c, NULL);
  pts = series_points (root, "flat");
  chart = chart_group (root);
  y0 = svg_node_number (chart, "data-y-min");
  y1 = svg_node_number (chart, "data-y-max");
  g_assert_cmpfloat (y0, <, 5);
  g_assert_cmpfloat (y1, >, 5);
  for (guint k = 0; k < 5; k++)
    assert_maps_to (chart, pts, k, k, 5);

  /* All zero, with zero included: zero at the bottom, not mid-axis. */
  {
    g_autoptr(WfChart) z = wf_chart_new ("zero");
    g_autoptr(SvgNode) r2 = NULL;
    guint zs = wf_chart_add_series (z, "z", WF_CHART_SERIES_NONE);

    wf_chart_set_y_include_zero (z, TRUE);
    wf_chart_add_point (z, zs, 0, 0);
    wf_chart_add_point (z, zs, 1, 0);
    r2 = render_parse (z, NULL);
    g_assert_cmpfloat (svg_node_number (chart_group (r2), "data-y-min"), ==, 0);
    g_assert_cmpfloat (svg_node_number (chart_group (r2), "data-y-max"), >, 0);
  }
}

static void
test_ticks (void)
{
  g_autoptr(WfChart) c = wf_chart_new ("ticks");
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GPtrArray) xl = NULL, yl = NULL;
  guint s = wf_chart_add_series (c, "s", WF_CHART_SERIES_MARKERS);
  const char *want_y[] = { "0.0", "0.2", "0.4", "0.6", "0.8", "1.0" };
  const char *want_x[] = { "1", "2", "5", "10", "20", "50", "100" };

  wf_chart_set_x_axis (c, "width", WF_CHART_SCALE_LOG);
  wf_chart_set_y_range (c, 0, 1);
  wf_chart_add_point (c, s, 1, 0.5);
  wf_chart_add_point (c, s, 100, 0.9);
  wf_chart_add_point (c, s, -1, 0.7); /* no place on a log axis */
  root = render_parse (c, NULL);
  yl = tick_labels (root, "y-axis");
  g_assert_cmpuint (yl->len, ==, G_N_ELEMENTS (want_y));
  for (guint i = 0; i < yl->len; i++)
    g_assert_cmpstr (g_ptr_array_index (yl, i), ==, want_y[i]);
  xl = tick_labels (root, "x-axis");
  g_assert_cmpuint (xl->len, ==, G_N_ELEMENTS (want_x));
  for (guint i = 0; i < xl->len; i++)
    g_assert_cmpstr (g_ptr_array_index (xl, i), ==, want_x[i]);
  {
    g_autoptr(GArray) pts = series_points (root, "s");

    g_assert_cmpuint (pts->len, ==, 4);
    assert_maps_to (chart_group (root), pts, 0, 1, 0.5);
    assert_maps_to (chart_group (root), pts, 1, 100, 0.9);
  }

  /* A fixed x range is kept as given, ticks inside it. */
  {
    g_autoptr(WfChart) f = wf_chart_new ("fixed");
    g_autoptr(SvgNode) r2 = NULL;
    g_autoptr(GPtrArray) labels = NULL;
    g_autoptr(GArray) pts = NULL;
    guint fs = wf_chart_add_series (f, "s", WF_CHART_SERIES_NONE);

    wf_chart_set_x_range (f, 0, 30);
    wf_chart_add_point (f, fs, 0.5, 1);
    wf_chart_add_point (f, fs, 29.5, 2);
    r2 = render_parse (f, NULL);
    g_assert_cmpfloat (svg_node_number (chart_group (r2), "data-x-min"), ==, 0);
    g_assert_cmpfloat (svg_node_number (chart_group (r2), "data-x-max"), ==, 30);
    labels = tick_labels (r2, "x-axis");
    g_assert_cmpuint (labels->len, ==, 7);
    g_assert_cmpstr (g_ptr_array_index (labels, 6), ==, "30");
    pts = series_points (r2, "s");
    assert_maps_to (chart_group (r2), pts, 1, 29.5, 2);
  }

  /* A linear axis: 1-2-5 steps covering the data. */
  {
    g_autoptr(WfChart) l = wf_chart_new ("linear");
    g_autoptr(SvgNode) r2 = NULL;
    g_autoptr(GPtrArray) labels = NULL;
    guint ls = wf_chart_add_series (l, "s", WF_CHART_SERIES_NONE);

    wf_chart_add_point (l, ls, 0.5, 0);
    wf_chart_add_point (l, ls, 36.2, 0);
    r2 = render_parse (l, NULL);
    labels = tick_labels (r2, "x-axis");
    g_assert_cmpuint (labels->len, ==, 9);
    g_assert_cmpstr (g_ptr_array_index (labels, 0), ==, "0");
    g_assert_cmpstr (g_ptr_array_index (labels, 1), ==, "5");
    g_assert_cmpstr (g_ptr_array_index (labels, 8), ==, "40");
  }
}

/* Under a comma-decimal LC_NUMERIC, the numbers still have dots. */
static void
test_locale (void)
{
  static const char * const locales[] = {
    "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8",
    "it_IT.UTF-8", "es_ES.UTF-8", "ru_RU.UTF-8", "de_DE", "fr_FR",
  };
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  const char *used = NULL;
  char probe[16];

  for (gsize i = 0; i < G_N_ELEMENTS (locales) && used == NULL; i++)
    if (setlocale (LC_NUMERIC, locales[i]) != NULL)
      {
        g_snprintf (probe, sizeof probe, "%.1f", 0.5);
        if (g_str_equal (probe, "0,5"))
          used = locales[i];
      }
  if (used == NULL)
    {
      setlocale (LC_NUMERIC, old);
      g_test_skip ("no comma-decimal locale installed (tried de_DE, fr_FR, nl_NL, "
                   "it_IT, es_ES, ru_RU); install one (locales) to run this case");
      return;
    }
  g_test_message ("LC_NUMERIC=%s", used);

  {
    g_autoptr(WfChart) c = wf_chart_new ("locale");
    g_autoptr(SvgNode) root = NULL;
    g_autoptr(GArray) pts = NULL;
    g_autoptr(GPtrArray) yl = NULL;
    guint s = wf_chart_add_series (c, "s", WF_CHART_SERIES_MARKERS);
    SvgNode *chart;

    wf_chart_set_y_range (c, 0, 1);
    wf_chart_add_point (c, s, 0.25, 0.5);
    wf_chart_add_point (c, s, 1.75, 0.125);
    root = render_parse (c, NULL);
    /* svg_points_parse and svg_node_number fail on "0,5". */
    pts = series_points (root, "s");
    chart = chart_group (root);
    assert_maps_to (chart, pts, 0, 0.25, 0.5);
    assert_maps_to (chart, pts, 1, 1.75, 0.125);
    yl = tick_labels (root, "y-axis");
    g_assert_cmpstr (g_ptr_array_index (yl, 1), ==, "0.2");
  }
  setlocale (LC_NUMERIC, old);
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/nice-step", test_nice_step);
  g_test_add_func ("/chart/nice-range", test_nice_range);
  g_test_add_func ("/chart/escape", test_escape);
  g_test_add_func ("/chart/names-round-trip", test_names_round_trip);
  g_test_add_func ("/chart/nan-skipped", test_nan_skipped);
  g_test_add_func ("/chart/single-point", test_single_point);
  g_test_add_func ("/chart/empty", test_empty);
  g_test_add_func ("/chart/degenerate", test_degenerate);
  g_test_add_func ("/chart/extreme", test_extreme);
  g_test_add_func ("/chart/ticks", test_ticks);
  g_test_add_func ("/chart/locale", test_locale);

  return g_test_run ();
}
