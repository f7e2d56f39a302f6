/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl as a user runs it: the built binary, its exit status,
 * stdout and stderr. One binary for every subcommand (long: each
 * subcommand's options and errors are cases; tests/test-cli-*.py hold the
 * JSON, conventions, limits and files). */
#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "svg-doc.h"

typedef struct {
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static void
run_argv (Run *r, const char *input, const char * const *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  const char *ctl = g_getenv ("WLANFAIRCTL");

  g_assert_nonnull (ctl);
  g_ptr_array_add (argv, (char *) ctl);
  for (; *args; args++)
    g_ptr_array_add (argv, (char *) *args);
  g_ptr_array_add (argv, NULL);

  proc = g_subprocess_newv ((const char * const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDIN_PIPE |
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                            G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, input, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  r->status = g_subprocess_get_exit_status (proc);
}

#define RUN(r, input, ...) \
  run_argv ((r), (input), (const char * const[]) { __VA_ARGS__, NULL })

static JsonObject *
parse_object (const char *text, JsonParser **keep)
{
  g_autoptr(GError) error = NULL;
  JsonParser *parser = json_parser_new ();
  JsonNode *root;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  *keep = parser;
  return json_node_get_object (root);
}

static void
assert_one_line (const char *text, const char *part)
{
  g_assert_nonnull (text);
  g_assert_true (g_str_has_suffix (text, "\n"));
  g_assert_null (strchr (text, '\n') + 1 == text + strlen (text) ? NULL : "more than one line");
  if (strstr (text, part) == NULL)
    g_error ("stderr '%s' does not name '%s'", text, part);
}

static void
test_version (void)
{
  g_auto(Run) r = { 0 };

  RUN (&r, NULL, "--version");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "wlanfairctl "));
  g_assert_true (g_regex_match_simple ("^wlanfairctl [0-9]+\\.[0-9]+\\.[0-9]+\n$", r.out, 0, 0));
}

static void
test_help (void)
{
  g_auto(Run) top = { 0 }, sub = { 0 };

  RUN (&top, NULL, "--help");
  g_assert_cmpint (top.status, ==, 0);
  g_assert_nonnull (strstr (top.out, "fairness"));

  RUN (&sub, NULL, "fairness", "--help");
  g_assert_cmpint (sub.status, ==, 0);
  g_assert_nonnull (strstr (sub.out, "--capacity"));
  g_assert_nonnull (strstr (sub.out, "--series"));
}

static void
test_table (void)
{
  g_auto(Run) r = { 0 };

  RUN (&r, NULL, "fairness", "--capacity", "10", "1", "2", "3");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  /* 6/7 and 30/61, 4 decimals */
  g_assert_nonnull (strstr (r.out, "n         3\n"));
  g_assert_nonnull (strstr (r.out, "sum       6\n"));
  g_assert_nonnull (strstr (r.out, "jain      0.8571\n"));
  g_assert_nonnull (strstr (r.out, "tradeoff  0.4918"));
}

static void
test_json_shape (void)
{
  g_autoptr(JsonParser) p1 = NULL, p2 = NULL;
  g_auto(Run) with = { 0 }, without = { 0 };
  JsonObject *o;

  RUN (&with, NULL, "fairness", "--json", "--capacity", "10", "--alpha", "2", "1", "2", "3");
  g_assert_cmpint (with.status, ==, 0);
  o = parse_object (with.out, &p1);
  g_assert_cmpint (json_object_get_int_member (o, "n"), ==, 3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "sum"), 6, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "jain"), 6.0 / 7, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "tradeoff"), 18.0 / 61, 1e-9);

  RUN (&without, NULL, "fairness", "--json", "5", "5");
  g_assert_cmpint (without.status, ==, 0);
  o = parse_object (without.out, &p2);
  g_assert_true (json_object_has_member (o, "tradeoff"));
  g_assert_true (json_object_get_null_member (o, "tradeoff"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "jain"), 1, 1e-9);
}

static void
test_si_suffixes (void)
{
  g_autoptr(JsonParser) p = NULL;
  g_auto(Run) r = { 0 };
  JsonObject *o;

  /* Same unit for C and X: 10M of 20M capacity, shares 2.5M and 7.5M. */
  RUN (&r, NULL, "fairness", "--json", "--capacity", "0.02G", "2.5M", "7500k");
  g_assert_cmpint (r.status, ==, 0);
  o = parse_object (r.out, &p);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "sum"), 10e6, 1e-3);
  /* 400 / (2 * 62.5 - 400 + 800) * 0.5 with values in M */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "tradeoff"),
                                  400.0 / 525.0 * 0.5, 1e-9);
}

static void
test_usage_errors (void)
{
  struct {
    const char *args[8];
    const char *names;
  } cases[] = {
    { { "fairness" }, "no throughputs" },
    { { "fairness", "1", "abc" }, "'abc'" },
    { { "fairness", "1", "--", "-2" }, "'-2' is negative" },
    { { "fairness", "1", "nan" }, "'nan'" },
    { { "fairness", "1", "inf" }, "'inf'" },
    { { "fairness", "1e999" }, "'1e999'" },
    { { "fairness", "5m" }, "'5m'" },
    { { "fairness", "--bogus", "1" }, "--bogus" },
    { { "fairness", "--capacity", "0", "1" }, "--capacity" },
    { { "fairness", "--capacity", "-3", "1" }, "--capacity" },
    { { "fairness", "--capacity", "x", "1" }, "--capacity" },
    { { "fairness", "--capacity", "2", "1", "2" }, "--capacity" },
    { { "fairness", "--capacity", "2", "--alpha", "-1", "1" }, "--alpha" },
    { { "fairness", "--alpha", "2", "1" }, "--alpha needs --capacity" },
    { { "fairness", "--allow-over", "1" }, "--allow-over needs --capacity" },
    { { "fairness", "--window", "1", "1" }, "--window needs --series" },
    { { "fairness", "--series", "x.csv" }, "--series needs --window" },
    { { "fairness", "--plot", "x.svg", "1", "2" }, "--plot needs --series" },
    { { "fairness", "--series", "x.csv", "--plot", "" }, "--plot: empty file name" },
    { { "fairness", "--series", "x.csv", "--window", "1", "3" }, "--series" },
    { { "fairness", "--series", "x.csv", "--window", "1,,2" }, "--window" },
    { { "fairness", "--series", "x.csv", "--window", "0" }, "--window" },
    { { "fairness", "--series", "x.csv", "--window", "1", "--step", "0" }, "--step" },
    { { "fairness", "--capacity" }, "--capacity" },
    { { NULL }, "no command given" },
    { { "tcp" }, "no tcp command given" },
    { { "tcp", "frob" }, "'frob'" },
    { { "tcp", "status", "--bogus" }, "--bogus" },
    { { "tcp", "status", "extra" }, "'extra'" },
    { { "frobnicate" }, "frobnicate" },
    { { "--frobnicate" }, "--frobnicate" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) r = { 0 };

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].names);
      run_argv (&r, NULL, cases[i].args);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_cmpstr (r.out, ==, "");
      assert_one_line (r.err, cases[i].names);
    }
}

static void
test_allow_over (void)
{
  g_autoptr(JsonParser) p = NULL;
  g_auto(Run) r = { 0 };
  JsonObject *o;

  RUN (&r, NULL, "fairness", "--json", "--capacity", "10", "--allow-over", "6", "6");
  g_assert_cmpint (r.status, ==, 0);
  o = parse_object (r.out, &p);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "tradeoff"), 100.0 / 104, 1e-9);
}

static char *
write_series (const char *text)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("wlanfair-XXXXXX.csv", &path, &error);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  close (fd);
  return path;
}

static const char alternating[] =
  "start_s,end_s,flow,bits_per_s\n"
  "0,1,a,10M\n1,2,a,10M\n2,3,a,0\n3,4,a,10M\n"
  "0,1,b,10M\n1,2,b,0\n2,3,b,10M\n3,4,b,10M\n";

static void
test_series_json (void)
{
  g_autoptr(JsonParser) p = NULL;
  g_autofree char *path = write_series (alternating);
  g_auto(Run) r = { 0 };
  JsonObject *o, *w, *jain;
  JsonArray *windows;

  RUN (&r, NULL, "fairness", "--json", "--series", path, "--window", "1,2", "--capacity", "20M");
  g_unlink (path);
  g_assert_cmpint (r.status, ==, 0);
  o = parse_object (r.out, &p);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "series"), "flows"), ==, 2);
  windows = json_object_get_array_member (o, "windows");
  g_assert_cmpuint (json_array_get_length (windows), ==, 2);

  w = json_array_get_object_element (windows, 0);
  g_assert_cmpint (json_object_get_int_member (w, "count"), ==, 4);
  jain = json_object_get_object_member (w, "jain");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (jain, "min"), 0.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (jain, "mean"), 0.75, 1e-9);
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (json_object_get_object_member (w, "tradeoff"), "min"),
    1.0 / 3, 1e-9);

  w = json_array_get_object_element (windows, 1);
  g_assert_cmpint (json_object_get_int_member (w, "count"), ==, 3);
  jain = json_object_get_object_member (w, "jain");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (jain, "min"), 0.9, 1e-9);
}

static void
test_series_stdin_table (void)
{
  g_auto(Run) r = { 0 };

  RUN (&r, alternating, "fairness", "--series", "-", "--window", "1");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "<stdin>: 2 flows, 8 samples"));
  g_assert_true (g_regex_match_simple ("^ +1 +1 +4 +0\\.5000 +0\\.7500 +- +-$", r.out,
                                       G_REGEX_MULTILINE, 0));
}

static void
test_series_errors (void)
{
  struct {
    const char *text;
    const char *args[4];
    const char *part;
  } cases[] = {
    { "0,1,a,1\n1,2,a,x\n", { "--window", "1" }, ":2: 'x' is not a number" },
    { "0,1,a,1\n\n\n0.5,3,a,1\n", { "--window", "1" }, ":4: flow 'a' interval [0.5, 3) overlaps line 1" },
    { "0,1,a,1\n1,2,a\n", { "--window", "1" }, ":2: expected 4 fields" },
    { "0,1,a,1\n", { "--window", "2" }, "window 2 s is longer than the series" },
    { "0,1,a,1\n", { "--window", "0.5", "--step", "0.0000001" }, "use a larger step" },
    { "0,1,a,10\n0,1,b,10\n", { "--window", "1", "--capacity", "15" }, "--allow-over" },
    { "", { "--window", "1" }, "no samples" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_series (cases[i].text);
      g_auto(Run) r = { 0 };
      const char *argv[8] = { "fairness", "--series", path };

      memcpy (&argv[3], cases[i].args, sizeof cases[i].args);
      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].part);
      run_argv (&r, NULL, argv);
      g_unlink (path);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_cmpstr (r.out, ==, "");
      assert_one_line (r.err, cases[i].part);
      /* Errors name the file. */
      g_assert_nonnull (strstr (r.err, path));
    }

  {
    g_auto(Run) r = { 0 };

    RUN (&r, NULL, "fairness", "--series", "/nonexistent/s.csv", "--window", "1");
    g_assert_cmpint (r.status, ==, 1);
    assert_one_line (r.err, "/nonexistent/s.csv");
  }
}

/* ---- --plot ------------------------------------------------------------ */

typedef struct {
  char   *name;
  GArray *samples; /* double triples: start, end, rate */
} CsvFlow;

static void
csv_flow_free (gpointer p)
{
  CsvFlow *f = p;

  g_free (f->name);
  g_array_unref (f->samples);
  g_free (f);
}

/* The test's own reading of a series file (rates with an M suffix, rows
 * of a flow in time order), independent of libwlanfair-metrics. */
static GPtrArray *
read_csv (const char *path, double *t0)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *flows = g_ptr_array_new_with_free_func (csv_flow_free);

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  *t0 = INFINITY;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto(GStrv) f = NULL;
      CsvFlow *flow = NULL;
      double v[3];

      if (**l == '\0' || **l == '#' || g_str_has_prefix (*l, "start_s"))
        continue;
      f = g_strsplit (*l, ",", -1);
      g_assert_cmpuint (g_strv_length (f), ==, 4);
      g_assert_true (g_str_has_suffix (f[3], "M"));
      v[0] = g_ascii_strtod (f[0], NULL);
      v[1] = g_ascii_strtod (f[1], NULL);
      v[2] = g_ascii_strtod (f[3], NULL) * 1e6;
      *t0 = MIN (*t0, v[0]);
      for (guint i = 0; i < flows->len && flow == NULL; i++)
        if (g_str_equal (((CsvFlow *) g_ptr_array_index (flows, i))->name, f[2]))
          flow = g_ptr_array_index (flows, i);
      if (flow == NULL)
        {
          flow = g_new0 (CsvFlow, 1);
          flow->name = g_strdup (f[2]);
          flow->samples = g_array_new (FALSE, FALSE, sizeof (double));
          g_ptr_array_add (flows, flow);
        }
      if (flow->samples->len > 0)
        g_assert_cmpfloat (v[0], >=, g_array_index (flow->samples, double, flow->samples->len - 3));
      g_array_append_vals (flow->samples, v, 3);
    }
  return flows;
}

/* A drawn point's (x, y) in data units, through the chart's axes. */
static void
unmap (const SvgNode *chart, const GArray *pts, guint k, double *x, double *y)
{
  g_auto(GStrv) area = g_strsplit (svg_node_attr (chart, "data-area"), " ", -1);
  double ax = g_ascii_strtod (area[0], NULL), ay = g_ascii_strtod (area[1], NULL);
  double aw = g_ascii_strtod (area[2], NULL), ah = g_ascii_strtod (area[3], NULL);
  double x0 = svg_node_number (chart, "data-x-min"), x1 = svg_node_number (chart, "data-x-max");
  double y0 = svg_node_number (chart, "data-y-min"), y1 = svg_node_number (chart, "data-y-max");
  double fx = (g_array_index (pts, double, 2 * k) - ax) / aw;
  double fy = (ay + ah - g_array_index (pts, double, 2 * k + 1)) / ah;

  *x = g_str_equal (svg_node_attr (chart, "data-x-scale"), "log")
    ? pow (10, log10 (x0) + fx * (log10 (x1) - log10 (x0)))
    : x0 + fx * (x1 - x0);
  *y = y0 + fy * (y1 - y0);
}

static SvgNode *
find_series (SvgNode *chart, const char *name)
{
  g_autoptr(GPtrArray) lines = svg_node_find (chart, "polyline", "series");

  for (guint i = 0; i < lines->len; i++)
    if (g_strcmp0 (svg_node_attr (g_ptr_array_index (lines, i), "data-name"), name) == 0)
      return g_ptr_array_index (lines, i);
  g_error ("no series '%s' in <g id=%s>", name, svg_node_attr (chart, "id"));
}

/* The picture against the CSV (chart 0) and the --json output (chart 1). */
static void
check_plot (const char *svg_path, const char *csv_path, JsonObject *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *svg = NULL;
  g_autoptr(SvgNode) root = NULL;
  g_autoptr(GPtrArray) charts = NULL, rate_lines = NULL, labels = NULL;
  g_autoptr(GPtrArray) flows = NULL;
  JsonArray *windows = json_object_get_array_member (json, "windows");
  const char *swm_names[] = { "Jain mean", "Jain min" };
  const char *swm_keys[] = { "mean", "min" };
  SvgNode *rates, *swm;
  double t0;
  gboolean mbit = FALSE;

  g_assert_true (g_file_get_contents (svg_path, &svg, NULL, &error));
  g_assert_no_error (error);
  root = svg_doc_parse (svg, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (root->name, ==, "svg");
  g_assert_cmpstr (svg_node_attr (root, "xmlns"), ==, "http://www.w3.org/2000/svg");
  charts = svg_node_find (root, "g", "chart");
  g_assert_cmpuint (charts->len, ==, 2);
  rates = g_ptr_array_index (charts, 0);
  swm = g_ptr_array_index (charts, 1);

  /* Throughput: one polyline per flow, one point per sample, in Mbit/s. */
  flows = read_csv (csv_path, &t0);
  g_assert_cmpuint (flows->len, ==, 3);
  labels = svg_node_find (rates, "text", "label");
  for (guint i = 0; i < labels->len; i++)
    mbit |= strstr (((SvgNode *) g_ptr_array_index (labels, i))->text->str, "(Mbit/s)") != NULL;
  g_assert_true (mbit);
  rate_lines = svg_node_find (rates, "polyline", "series");
  g_assert_cmpuint (rate_lines->len, ==, flows->len);
  for (guint f = 0; f < flows->len; f++)
    {
      const CsvFlow *flow = g_ptr_array_index (flows, f);
      g_autoptr(GArray) pts = svg_points_parse (svg_node_attr (find_series (rates, flow->name), "points"));
      const double *v = (const double *) (const void *) flow->samples->data;

      g_test_message ("flow %s: %u samples", flow->name, flow->samples->len / 3);
      g_assert_cmpuint (pts->len / 2, ==, flow->samples->len / 3);
      for (guint k = 0; k < pts->len / 2; k++)
        {
          double x, y;

          unmap (rates, pts, k, &x, &y);
          g_assert_cmpfloat_with_epsilon (x, (v[3 * k] + v[3 * k + 1]) / 2 - t0, 0.01);
          g_assert_cmpfloat_with_epsilon (y, v[3 * k + 2] / 1e6, 0.01);
        }
    }

  /* SWM: a point per window width, at the --json values, y axis 0 to 1. */
  g_assert_cmpfloat (svg_node_number (swm, "data-y-min"), ==, 0);
  g_assert_cmpfloat (svg_node_number (swm, "data-y-max"), ==, 1);
  for (guint s = 0; s < G_N_ELEMENTS (swm_names); s++)
    {
      g_autoptr(GArray) pts = svg_points_parse (svg_node_attr (find_series (swm, swm_names[s]), "points"));

      g_assert_cmpuint (pts->len / 2, ==, json_array_get_length (windows));
      for (guint k = 0; k < pts->len / 2; k++)
        {
          JsonObject *w = json_array_get_object_element (windows, k);
          double width = json_object_get_double_member (w, "window");
          double index = json_object_get_double_member (json_object_get_object_member (w, "jain"),
                                                        swm_keys[s]);
          double x, y;

          unmap (swm, pts, k, &x, &y);
          g_assert_cmpfloat_with_epsilon (x / width, 1, 1e-3);
          g_assert_cmpfloat_with_epsilon (y, index, 1e-3);
        }
    }
}

/* A directory holding NAME alone: no temporary file left behind. */
static void
assert_dir_holds (const char *dir, const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = g_dir_open (dir, 0, &error);
  const char *entry;
  guint n = 0;

  g_assert_no_error (error);
  while ((entry = g_dir_read_name (d)))
    {
      n++;
      if (name == NULL || !g_str_equal (entry, name))
        g_error ("%s holds '%s'", dir, entry);
    }
  g_assert_cmpuint (n, ==, name ? 1 : 0);
}

static void
test_series_plot (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = g_test_build_filename (G_TEST_DIST, "data", "fairness-series.csv", NULL);
  g_autofree char *dir = g_dir_make_tmp ("wlanfair-plot-XXXXXX", &error);
  g_autofree char *svg = NULL;

  g_assert_no_error (error);
  svg = g_build_filename (dir, "out.svg", NULL);

  /* Given widths, log-spaced enough for a log axis. */
  {
    g_autoptr(JsonParser) p = NULL;
    g_auto(Run) r = { 0 };
    JsonObject *o;

    RUN (&r, NULL, "fairness", "--json", "--series", csv, "--window", "1,2,5,10,30",
         "--plot", svg);
    g_assert_cmpstr (r.err, ==, "");
    g_assert_cmpint (r.status, ==, 0);
    o = parse_object (r.out, &p);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "windows")), ==, 5);
    check_plot (svg, csv, o);
    assert_dir_holds (dir, "out.svg");
  }

  /* No --window: the default widths, the same in the JSON and the plot;
   * the file is replaced. */
  {
    g_autoptr(JsonParser) p = NULL;
    g_auto(Run) r = { 0 };
    JsonObject *o;
    JsonArray *w;
    guint n;

    RUN (&r, NULL, "fairness", "--json", "--series", csv, "--plot", svg);
    g_assert_cmpstr (r.err, ==, "");
    g_assert_cmpint (r.status, ==, 0);
    o = parse_object (r.out, &p);
    w = json_object_get_array_member (o, "windows");
    n = json_array_get_length (w);
    g_assert_cmpuint (n, >=, 5);
    g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (w, 0), "window"),
                       ==, 1);
    g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (w, n - 1), "window"),
                       ==, 30);
    check_plot (svg, csv, o);
    assert_dir_holds (dir, "out.svg");
  }

  g_unlink (svg);
  g_rmdir (dir);
}

static void
test_series_plot_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = g_test_build_filename (G_TEST_DIST, "data", "fairness-series.csv", NULL);
  g_autofree char *dir = g_dir_make_tmp ("wlanfair-plot-XXXXXX", &error);
  g_autofree char *missing = g_build_filename (dir, "no", "such", "dir", "out.svg", NULL);
  g_autofree char *out = g_build_filename (dir, "out.svg", NULL);

  g_assert_no_error (error);

  /* A directory that does not exist. */
  {
    g_auto(Run) r = { 0 };

    RUN (&r, NULL, "fairness", "--series", csv, "--plot", missing);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_cmpstr (r.out, ==, "");
    assert_one_line (r.err, missing);
    g_assert_nonnull (strstr (r.err, g_strerror (ENOENT)));
  }

  /* A path that is a directory: the temporary file is written, the rename
   * fails, and nothing is left. */
  {
    g_auto(Run) r = { 0 };
    g_autofree char *sub = g_build_filename (dir, "d.svg", NULL);

    g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
    RUN (&r, NULL, "fairness", "--series", csv, "--plot", sub);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_cmpstr (r.out, ==, "");
    assert_one_line (r.err, sub);
    assert_dir_holds (dir, "d.svg");
    g_rmdir (sub);
  }

  /* Bad data: no picture at all. */
  {
    g_auto(Run) r = { 0 };

    RUN (&r, NULL, "fairness", "--series", csv, "--window", "31", "--plot", out);
    g_assert_cmpint (r.status, ==, 1);
    assert_one_line (r.err, "longer than the series");
    assert_dir_holds (dir, NULL);
  }
  g_rmdir (dir);
}

static void
test_tcp_status_json (void)
{
  g_autoptr(JsonParser) p = NULL;
  g_autofree char *path = write_series ("{\"pid\": 999999999}");
  g_auto(Run) r = { 0 };
  JsonObject *o;

  /* A status file whose process is gone is a daemon that is not running. */
  RUN (&r, NULL, "tcp", "status", "--json", "--status-file", path);
  g_unlink (path);
  g_assert_cmpint (r.status, ==, 0);
  o = parse_object (r.out, &p);
  g_assert_false (json_object_get_boolean_member (o, "running"));
  g_assert_true (json_object_get_null_member (o, "daemon"));
  g_assert_nonnull (json_object_get_string_member (o, "default"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "available")), >, 0);
  g_assert_nonnull (json_object_get_array_member (o, "allowed"));
  g_assert_nonnull (json_object_get_array_member (o, "connections"));
}

/* ---- wlanfairctl ap -------------------------------------------------------- */

/* tests/data/apd-status.json with members replaced; a temporary file. */
static char *
write_ap_status (gint64 time_us, gint64 pid, gint64 version)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", "apd-status.json", NULL);
  g_autofree char *text = NULL;
  JsonObject *o;

  json_parser_load_from_file (parser, data, &error);
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  json_object_set_int_member (o, "time_us", time_us);
  json_object_set_int_member (o, "pid", pid);
  json_object_set_int_member (o, "version", version);
  text = json_to_string (json_parser_get_root (parser), TRUE);
  return write_series (text);
}

/* Written now by a process that runs (this one): not stale. */
static char *
write_fresh_ap_status (void)
{
  return write_ap_status (g_get_real_time (), getpid (), 1);
}

static const char *
line_with (const char *text, const char *part, char **line)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (char **l = lines; *l; l++)
    if (strstr (*l, part))
      {
        *line = g_strdup (*l);
        return *line;
      }
  g_error ("no line with '%s' in:\n%s", part, text);
  return NULL;
}

/* Column of `part` in the line that holds `key`. */
static glong
column_of (const char *text, const char *key, const char *part)
{
  g_autofree char *line = NULL;
  const char *at;

  line_with (text, key, &line);
  at = strstr (line, part);
  if (!at)
    g_error ("'%s' not in '%s'", part, line);
  return g_utf8_pointer_to_offset (line, at);
}

/* tests/data/apd-status.json, stamped as written now by this process;
 * the caller changes it further. */
static JsonParser *
fresh_ap_status_parser (JsonObject **o)
{
  g_autoptr(GError) error = NULL;
  JsonParser *parser = json_parser_new ();
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", "apd-status.json", NULL);

  json_parser_load_from_file (parser, data, &error);
  g_assert_no_error (error);
  *o = json_node_get_object (json_parser_get_root (parser));
  json_object_set_int_member (*o, "time_us", g_get_real_time ());
  json_object_set_int_member (*o, "pid", getpid ());
  return parser;
}

/* rwnd's connections, when the status has them: one line. */
static void
test_ap_status_rwnd (void)
{
  JsonObject *o, *a = json_object_new ();
  g_autoptr(JsonParser) parser = fresh_ap_status_parser (&o);
  g_autofree char *text = NULL, *path = NULL, *line = NULL;
  g_auto(Run) r = { 0 };

  json_object_set_string_member (a, "rwnd_policy", "rtt-fair");
  json_object_set_double_member (a, "capacity_bps", 19e6);
  json_object_set_double_member (a, "other_bps", 0.2e6);
  json_object_set_int_member (a, "flows", 4);
  json_object_set_int_member (a, "flows_held", 3);
  json_object_set_int_member (a, "flows_untouched", 1);
  json_object_set_array_member (a, "flows_listed", json_array_new ());
  json_object_set_object_member (o, "actuator_status", a);
  text = json_to_string (json_parser_get_root (parser), TRUE);
  path = write_series (text);
  RUN (&r, NULL, "ap", "status", "--status", path);
  g_assert_cmpint (r.status, ==, 0);
  line_with (r.out, "rwnd ", &line);
  g_assert_cmpstr (line, ==, "rwnd        rtt-fair: 4 TCP connections, 3 held back, 1 left alone "
                   "(handshake not seen); C 19.0 Mbit/s, non-TCP 0.2 Mbit/s");
  g_unlink (path);
}

/* ack-priority=yes: one line; none without the member. */
static void
test_ap_status_ack_priority (void)
{
  JsonObject *o, *a = json_object_new ();
  g_autoptr(JsonParser) parser = fresh_ap_status_parser (&o);
  g_autofree char *text = NULL, *path = NULL, *line = NULL, *plain = NULL;
  g_auto(Run) r = { 0 };
  g_auto(Run) r0 = { 0 };

  text = json_to_string (json_parser_get_root (parser), TRUE);
  plain = write_series (text);
  RUN (&r0, NULL, "ap", "status", "--status", plain);
  g_unlink (plain);
  g_assert_cmpint (r0.status, ==, 0);
  g_assert_null (strstr (r0.out, "ack-prio"));
  json_object_set_int_member (a, "marked_packets", 5120);
  json_object_set_int_member (a, "marked_bytes", 337920);
  json_object_set_int_member (a, "kept_packets", 3);
  json_object_set_object_member (o, "ack_priority", a);
  g_free (text);
  text = json_to_string (json_parser_get_root (parser), TRUE);
  path = write_series (text);
  RUN (&r, NULL, "ap", "status", "--status", path);
  g_unlink (path);
  g_assert_cmpint (r.status, ==, 0);
  line_with (r.out, "ack-prio", &line);
  g_assert_cmpstr (line, ==, "ack-prio    5120 ACKs and handshakes sent as CS6 (voice), 3 kept "
                   "their own DSCP");
}

static void
test_ap_status_table (void)
{
  g_autofree char *path = write_fresh_ap_status ();
  g_auto(Run) r = { 0 };

  RUN (&r, NULL, "ap", "status", "--status", path);
  g_unlink (path);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_null (strstr (r.out, "STALE"));
  g_assert_nonnull (strstr (r.out, "wlanfair-apd on wlan0 (stations from nl80211)"));
  g_assert_nonnull (strstr (r.out, "controller  share, actuator rate, objective throughput, directions both\n"));
  g_assert_nonnull (strstr (r.out, "mode        control: reports signed with the configured key\n"));
  g_assert_nonnull (strstr (r.out, "jain 0.991, trade-off 0.930"));
  g_assert_nonnull (strstr (r.out, "total 9.80 Mbit/s, bound 10.10 Mbit/s, capacity 10.40 Mbit/s"));
  g_assert_nonnull (strstr (r.out, "accepted 180 (addressed 120, carried 60), rejected 3 (json 1, bad-mac 2), "
                                   "untrusted 1, unmatched 0\n"));
  g_assert_nonnull (strstr (r.out, "carried     on (UDP to port 7455 crossing wlan0 or its bridge ports)\n"));

  /* Station 1: addresses, host, signal, MCS, goodputs, demand, share, cap, why. */
  g_assert_true (g_regex_match_simple (
    "^02:00:00:00:01:00 +10\\.77\\.0\\.11,fd77::11 +near-laptop +-42 dBm +7 +4\\.75/0\\.11 +carried +4\\.80/0\\.12 "
    "+unsatisfied +4\\.90 +cap down 5\\.14 Mbit/s +held at 1\\.05 x its share$",
    r.out, G_REGEX_MULTILINE, 0));
  /* Station 2: no report (its report columns empty), MCS -1 is none, frames wait at the AP. */
  g_assert_true (g_regex_match_simple (
    "^02:00:00:00:02:00 +10\\.77\\.0\\.12 +- +-71 dBm +- +-/- +- +5\\.00/0\\.09 +waiting +4\\.90 +none +below its share$",
    r.out, G_REGEX_MULTILINE, 0));
  /* Station 3: no signal at all, idle. */
  g_assert_true (g_regex_match_simple ("^02:00:00:00:03:00 +- +- +- +- +-/- +- +0\\.00/0\\.00 +none +0\\.00 +none +idle$",
                                       r.out, G_REGEX_MULTILINE, 0));
  /* Aligned: a column starts at the same place in the heading and every row. */
  g_assert_cmpint (column_of (r.out, "SETTING", "SETTING"), ==, column_of (r.out, "01:00 ", "cap down"));
  g_assert_cmpint (column_of (r.out, "SETTING", "WHY"), ==, column_of (r.out, "03:00 ", "idle"));
  g_assert_cmpint (column_of (r.out, "SETTING", "WHY"), ==, column_of (r.out, "02:00 ", "below"));
}

static void
test_ap_status_json (void)
{
  g_autoptr(JsonParser) p = NULL, p2 = NULL;
  g_autofree char *path = write_fresh_ap_status ();
  g_auto(Run) r = { 0 }, bare = { 0 };
  JsonObject *o, *sta;
  JsonArray *stations;

  RUN (&r, NULL, "ap", "status", "--json", "--status", path);
  /* Bare "ap" is "ap status". */
  RUN (&bare, NULL, "ap", "-j", "--status", path);
  g_unlink (path);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  o = parse_object (r.out, &p);
  g_assert_cmpint (json_object_get_int_member (o, "version"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "pid"), ==, getpid ());
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (json_object_get_object_member (o, "round"), "jain"), 0.991, 1e-12);
  stations = json_object_get_array_member (o, "stations");
  g_assert_cmpuint (json_array_get_length (stations), ==, 3);
  sta = json_array_get_object_element (stations, 0);
  g_assert_cmpstr (json_object_get_string_member (sta, "mac"), ==, "02:00:00:00:01:00");
  g_assert_cmpfloat_with_epsilon (
    json_object_get_double_member (json_object_get_object_member (sta, "setting"), "rate_down_bps"),
    5145000, 1e-6);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
    json_object_get_object_member (o, "reports"), "rejected"), "bad-mac"), ==, 2);

  g_assert_cmpint (bare.status, ==, 0);
  o = parse_object (bare.out, &p2);
  g_assert_cmpint (json_object_get_int_member (o, "version"), ==, 1);
}

/* A pid that surely ran and is gone: a child of ours, reaped. (Not
 * GSubprocess: its identifier is NULL once GLib's worker has reaped a
 * child that exited at once, which happened under load.) */
static gint64
dead_pid (void)
{
  int status;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return pid;
}

static void
test_ap_status_stale (void)
{
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", "apd-status.json", NULL);
  g_autofree char *gone = write_ap_status (g_get_real_time (), dead_pid (), 1);
  g_autoptr(JsonParser) p = NULL;
  g_auto(Run) old = { 0 }, dead = { 0 }, json = { 0 };

  /* The example was written in 2025: printed, with a warning, exit 1. */
  RUN (&old, NULL, "ap", "status", "--status", data);
  g_assert_cmpint (old.status, ==, 1);
  g_assert_nonnull (strstr (old.out, "02:00:00:00:01:00"));
  g_assert_true (g_regex_match_simple ("^STALE +last written [0-9]+ days ago", old.out, G_REGEX_MULTILINE, 0));
  assert_one_line (old.err, "is stale (last written");
  g_assert_nonnull (strstr (old.err, data));

  RUN (&json, NULL, "ap", "status", "--json", "--status", data);
  g_assert_cmpint (json.status, ==, 1);
  parse_object (json.out, &p);
  assert_one_line (json.err, "is stale");

  /* Written just now, by a process that is gone. */
  RUN (&dead, NULL, "ap", "status", "--status", gone);
  g_unlink (gone);
  g_assert_cmpint (dead.status, ==, 1);
  assert_one_line (dead.err, "is not running): wlanfair-apd stopped or is stuck");
  g_assert_null (strstr (dead.err, "last written"));
  g_assert_nonnull (strstr (dead.out, "02:00:00:00:03:00"));
}

static void
test_ap_missing (void)
{
  const char *missing = "/nonexistent/wlanfair-apd/status.json";
  g_auto(Run) r = { 0 }, w = { 0 };

  RUN (&r, NULL, "ap", "status", "--status", missing);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  assert_one_line (r.err, "wlanfair-apd is not running (no /nonexistent/wlanfair-apd/status.json");

  /* watch says it at once rather than drawing an empty view. */
  RUN (&w, NULL, "ap", "watch", "-n", "1", "--status", missing);
  g_assert_cmpint (w.status, ==, 1);
  g_assert_cmpstr (w.out, ==, "");
  assert_one_line (w.err, "wlanfair-apd is not running");
}

static void
test_ap_malformed (void)
{
  struct {
    const char *text;   /* NULL: the example as version 2 */
    const char *part;
  } cases[] = {
    { "{\"version\": 1,", "not valid JSON" },
    { "", "no JSON object" },
    { "[1]", "no JSON object" },
    { "{\"pid\": 1}", "no version" },
    { "{\"version\": \"1\"}", "no version" },
    { "{\"version\": 1}", "'pid' missing" },
    { "{\"version\": 1, \"pid\": 1, \"time_us\": 1, \"interface\": \"w\", \"mode\": \"control\","
      " \"round\": {}, \"reports\": {}, \"stations\": [{\"why\": \"x\"}]}", "'stations[].mac'" },
    { NULL, "status version 2, this wlanfairctl reads version 1" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = cases[i].text ? write_series (cases[i].text)
                                            : write_ap_status (g_get_real_time (), getpid (), 2);
      g_auto(Run) r = { 0 }, w = { 0 };

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].part);
      RUN (&r, NULL, "ap", "status", "--status", path);
      RUN (&w, NULL, "ap", "watch", "-n", "1", "--status", path);
      g_unlink (path);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_cmpstr (r.out, ==, "");
      assert_one_line (r.err, cases[i].part);
      g_assert_nonnull (strstr (r.err, path));
      g_assert_cmpint (w.status, ==, 1);
      assert_one_line (w.err, cases[i].part);
    }
}

static void
test_ap_usage_errors (void)
{
  struct {
    const char *args[8];
    const char *names;
  } cases[] = {
    { { "ap", "frob" }, "'frob'" },
    { { "ap", "status", "extra" }, "'extra'" },
    { { "ap", "status", "--bogus" }, "--bogus" },
    { { "ap", "status", "--status" }, "--status" },
    { { "ap", "watch", "--json" }, "--json" },
    { { "ap", "watch", "--interval", "0" }, "--interval" },
    { { "ap", "watch", "--interval", "61" }, "--interval" },
    { { "ap", "watch", "--interval", "x" }, "--interval" },
    { { "ap", "watch", "-n", "-1" }, "--iterations" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) r = { 0 };

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].names);
      run_argv (&r, NULL, cases[i].args);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_cmpstr (r.out, ==, "");
      assert_one_line (r.err, cases[i].names);
    }
}

static guint
count (const char *text, const char *part)
{
  guint n = 0;

  for (const char *p = strstr (text, part); p; p = strstr (p + 1, part))
    n++;
  return n;
}

static void
test_ap_watch (void)
{
  g_autofree char *path = write_fresh_ap_status ();
  g_auto(Run) r = { 0 };

  /* No terminal (stdin is a pipe): one plain screen per interval, -n of them. */
  RUN (&r, NULL, "ap", "watch", "-n", "2", "--interval", "0.1", "--status", path);
  g_unlink (path);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpuint (count (r.out, "wlanfair-apd on wlan0"), ==, 2);
  g_assert_cmpuint (count (r.out, "\n02:00:00:00:01:00 "), ==, 2);
  g_assert_cmpuint (count (r.out, "cap down 5.14 Mbit/s"), ==, 2);
  g_assert_cmpuint (count (r.out, "jain 0.991"), ==, 2);
  /* No escape sequences without a terminal. */
  g_assert_null (strchr (r.out, '\033'));
}

/* ---- write errors on standard output ------------------------------------- */

/* Where a program's stdout goes in these cases. */
typedef enum {
  OUT_FULL,           /* /dev/full: every write fails, ENOSPC */
  OUT_CLOSED,         /* fd 1 closed */
  OUT_GONE,           /* a pipe whose reader has gone, SIGPIPE default */
  OUT_GONE_IGNORED,   /* the same, SIGPIPE ignored by whoever started us */
} OutMode;

typedef struct {
  int   status;       /* exit status, or -1 when killed */
  int   signal;       /* the killing signal, else 0 */
  char *err;
} BadRun;

static void
bad_run_clear (BadRun *r)
{
  g_free (r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (BadRun, bad_run_clear)

static void
child_close_stdout (gpointer data)
{
  close (STDOUT_FILENO);
}

static void
child_sigpipe (gpointer data)
{
  signal (SIGPIPE, GPOINTER_TO_INT (data) ? SIG_IGN : SIG_DFL);
}

static void
run_bad_stdout (BadRun *r, OutMode mode, const char *program, const char * const *args)
{
  g_autoptr(GSubprocessLauncher) l =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  int fds[2];

  g_ptr_array_add (argv, (char *) program);
  for (; *args; args++)
    g_ptr_array_add (argv, (char *) *args);
  g_ptr_array_add (argv, NULL);

  switch (mode)
    {
    case OUT_FULL:
      fds[1] = open ("/dev/full", O_WRONLY | O_CLOEXEC);
      g_assert_cmpint (fds[1], >=, 0);
      g_subprocess_launcher_take_stdout_fd (l, fds[1]);
      break;
    case OUT_CLOSED:
      g_subprocess_launcher_set_child_setup (l, child_close_stdout, NULL, NULL);
      break;
    case OUT_GONE:
    case OUT_GONE_IGNORED:
      g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, &error));
      g_assert_no_error (error);
      close (fds[0]);
      g_subprocess_launcher_take_stdout_fd (l, fds[1]);
      g_subprocess_launcher_set_child_setup (l, child_sigpipe,
                                             GINT_TO_POINTER (mode == OUT_GONE_IGNORED), NULL);
      break;
    }
  proc = g_subprocess_launcher_spawnv (l, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &r->err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, &error);
  g_assert_no_error (error);
  if (g_subprocess_get_if_signaled (proc))
    {
      r->status = -1;
      r->signal = g_subprocess_get_term_sig (proc);
    }
  else
    r->status = g_subprocess_get_exit_status (proc);
}

/* PROGRAM ARGS succeeds with a working stdout, and fails with "write
 * error" on a full and on a closed one. */
static void
assert_write_errors (const char *program, const char * const *args)
{
  g_autofree char *line = g_strjoinv (" ", (char **) args);
  const OutMode modes[] = { OUT_FULL, OUT_CLOSED };

  g_test_message ("%s %s", program, line);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) argv = g_ptr_array_new ();
    g_autoptr(GSubprocess) ok = NULL;

    g_ptr_array_add (argv, (char *) program);
    for (const char * const *a = args; *a; a++)
      g_ptr_array_add (argv, (char *) *a);
    g_ptr_array_add (argv, NULL);
    ok = g_subprocess_newv ((const char * const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                            G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
    g_assert_no_error (error);
    g_subprocess_wait_check (ok, NULL, &error);
    g_assert_no_error (error);
  }
  for (gsize m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_auto(BadRun) r = { 0 };

      run_bad_stdout (&r, modes[m], program, args);
      g_assert_cmpint (r.signal, ==, 0);
      g_assert_cmpint (r.status, ==, 1);
      if (strstr (r.err, "write error") == NULL)
        g_error ("%s %s: stderr '%s' says no write error", program, line, r.err);
      if (modes[m] == OUT_FULL && strstr (r.err, "write error:") != NULL)
        g_assert_nonnull (strstr (r.err, g_strerror (ENOSPC)));
    }
}

#define ASSERT_WRITE_ERRORS(program, ...) \
  assert_write_errors ((program), (const char * const[]) { __VA_ARGS__, NULL })

/* A loopback UDP port free just now. */
static char *
free_udp_port (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
                                       G_SOCKET_PROTOCOL_UDP, &error);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_no_error (error);
  g_assert_true (g_socket_bind (s, any, FALSE, &error));
  g_assert_no_error (error);
  bound = g_socket_get_local_address (s, &error);
  g_assert_no_error (error);
  return g_strdup_printf ("%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
}

/* A command that runs here at all (status --direct needs a readable
 * sock_diag and rtnetlink). */
static gboolean
runs_here (const char * const *args)
{
  g_auto(Run) r = { 0 };

  run_argv (&r, NULL, args);
  if (r.status != 0)
    g_test_message ("not run here (exit %d): %s", r.status, r.err);
  return r.status == 0;
}

static void
test_write_error_ctl (void)
{
  const char *ctl = g_getenv ("WLANFAIRCTL");
  const char *commands[] = { "ap", "fairness", "listen", "scan", "status", "tcp", "top" };
  g_autofree char *series = write_series (alternating);
  g_autofree char *tcp_status = write_series ("{\"pid\": 999999999}");
  g_autofree char *ap_status = write_fresh_ap_status ();
  g_autofree char *port = free_udp_port ();
  const char * const status_args[] = { "status", "--direct", "-i", "lo", NULL };

  ASSERT_WRITE_ERRORS (ctl, "--help");
  ASSERT_WRITE_ERRORS (ctl, "--version");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    ASSERT_WRITE_ERRORS (ctl, commands[i], "--help");
  ASSERT_WRITE_ERRORS (ctl, "fairness", "1", "2");
  ASSERT_WRITE_ERRORS (ctl, "fairness", "--json", "1", "2");
  ASSERT_WRITE_ERRORS (ctl, "fairness", "--series", series, "--window", "1,2");
  ASSERT_WRITE_ERRORS (ctl, "fairness", "--json", "--series", series, "--window", "1,2");
  ASSERT_WRITE_ERRORS (ctl, "tcp", "status", "--status-file", tcp_status);
  ASSERT_WRITE_ERRORS (ctl, "tcp", "status", "--json", "--status-file", tcp_status);
  ASSERT_WRITE_ERRORS (ctl, "ap", "status", "--status", ap_status);
  ASSERT_WRITE_ERRORS (ctl, "ap", "status", "--json", "--status", ap_status);
  ASSERT_WRITE_ERRORS (ctl, "ap", "watch", "-n", "1", "--status", ap_status);
  ASSERT_WRITE_ERRORS (ctl, "listen", "--json", "--duration", "1", "--bind", "127.0.0.1",
                       "--port", port);
  ASSERT_WRITE_ERRORS (ctl, "listen", "--duration", "1", "--bind", "127.0.0.1", "--port", port);
  if (runs_here (status_args))
    {
      ASSERT_WRITE_ERRORS (ctl, "status", "--direct", "-i", "lo");
      ASSERT_WRITE_ERRORS (ctl, "status", "--direct", "-i", "lo", "--json");
      ASSERT_WRITE_ERRORS (ctl, "top", "--direct", "-i", "lo", "-n", "1");
    }
  g_unlink (series);
  g_unlink (tcp_status);
  g_unlink (ap_status);
}

/* `wlanfairctl ... | head -n1`: a reader that leaves early is SIGPIPE, as
 * for any filter, not a message; even in `listen`, where GIO ignores
 * SIGPIPE. Where our caller ignored SIGPIPE it is a write error. */
static void
test_write_error_pipe (void)
{
  const char *ctl = g_getenv ("WLANFAIRCTL");
  g_autofree char *port = free_udp_port ();
  const char * const cases[][10] = {
    { "fairness", "1", "2" },
    { "fairness", "--json", "1", "2" },
    { "fairness", "--help" },
    { "listen", "--json", "--duration", "1", "--bind", "127.0.0.1", "--port", port },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(BadRun) gone = { 0 }, ignored = { 0 };

      g_test_message ("case %s %s", cases[i][0], cases[i][1]);
      run_bad_stdout (&gone, OUT_GONE, ctl, cases[i]);
      g_assert_cmpint (gone.signal, ==, SIGPIPE);
      g_assert_cmpstr (gone.err, ==, "");

      run_bad_stdout (&ignored, OUT_GONE_IGNORED, ctl, cases[i]);
      g_assert_cmpint (ignored.signal, ==, 0);
      g_assert_cmpint (ignored.status, ==, 1);
      assert_one_line (ignored.err, "write error: Broken pipe");
    }
}

/* The daemons' one-shot output: --version and --help (meson passes the
 * daemons built here in WLANFAIR_DAEMONS). */
static void
test_write_error_daemons (void)
{
  const char *list = g_getenv ("WLANFAIR_DAEMONS");
  g_auto(GStrv) daemons = NULL;

  if (list == NULL || *list == '\0')
    {
      g_test_skip ("WLANFAIR_DAEMONS not set");
      return;
    }
  daemons = g_strsplit (list, G_SEARCHPATH_SEPARATOR_S, -1);
  for (char **d = daemons; *d; d++)
    {
      ASSERT_WRITE_ERRORS (*d, "--version");
      ASSERT_WRITE_ERRORS (*d, "--help");
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/help", test_help);
  g_test_add_func ("/cli/fairness/table", test_table);
  g_test_add_func ("/cli/fairness/json-shape", test_json_shape);
  g_test_add_func ("/cli/fairness/si-suffixes", test_si_suffixes);
  g_test_add_func ("/cli/fairness/usage-errors", test_usage_errors);
  g_test_add_func ("/cli/fairness/allow-over", test_allow_over);
  g_test_add_func ("/cli/fairness/series-json", test_series_json);
  g_test_add_func ("/cli/fairness/series-stdin-table", test_series_stdin_table);
  g_test_add_func ("/cli/fairness/series-errors", test_series_errors);
  g_test_add_func ("/cli/fairness/series-plot", test_series_plot);
  g_test_add_func ("/cli/fairness/series-plot-errors", test_series_plot_errors);
  g_test_add_func ("/cli/tcp/status-json", test_tcp_status_json);
  g_test_add_func ("/cli/ap/status-table", test_ap_status_table);
  g_test_add_func ("/cli/ap/status-rwnd", test_ap_status_rwnd);
  g_test_add_func ("/cli/ap/status-ack-priority", test_ap_status_ack_priority);
  g_test_add_func ("/cli/ap/status-json", test_ap_status_json);
  g_test_add_func ("/cli/ap/status-stale", test_ap_status_stale);
  g_test_add_func ("/cli/ap/missing", test_ap_missing);
  g_test_add_func ("/cli/ap/malformed", test_ap_malformed);
  g_test_add_func ("/cli/ap/usage-errors", test_ap_usage_errors);
  g_test_add_func ("/cli/ap/watch", test_ap_watch);
  g_test_add_func ("/cli/output/write-error", test_write_error_ctl);
  g_test_add_func ("/cli/output/write-error-pipe", test_write_error_pipe);
  g_test_add_func ("/cli/output/write-error-daemons", test_write_error_daemons);

  return g_test_run ();
}
