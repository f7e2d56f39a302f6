/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-series.h"

static WfSeries *
load (const char *text, GError **error)
{
  return wf_series_new_from_data (text, strlen (text), "t.csv", error);
}

static void
test_parse_basic (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfSeries) s = load ("# comment\r\n"
                                WF_SERIES_HEADER "\r\n"
                                "\n"
                                "1, 2, up-1, 10M\r\n"
                                "0,1,up-1,5M\n"
                                "0.5,3,down,1.5e6\n", &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_assert_cmpuint (wf_series_get_n_flows (s), ==, 2);
  g_assert_cmpuint (wf_series_get_n_samples (s), ==, 3);
  g_assert_cmpstr (wf_series_get_flow_name (s, 0), ==, "up-1");
  g_assert_cmpstr (wf_series_get_flow_name (s, 1), ==, "down");
  g_assert_cmpfloat (wf_series_get_start (s), ==, 0);
  g_assert_cmpfloat (wf_series_get_end (s), ==, 3);
  /* durations 1, 1, 2.5: median 1 */
  g_assert_cmpfloat (wf_series_get_median_interval (s), ==, 1);

  /* Each flow's samples in time order, not file order. */
  {
    double a, b, rate;

    g_assert_cmpuint (wf_series_get_flow_n_samples (s, 0), ==, 2);
    g_assert_cmpuint (wf_series_get_flow_n_samples (s, 1), ==, 1);
    wf_series_get_flow_sample (s, 0, 0, &a, &b, &rate);
    g_assert_cmpfloat (a, ==, 0);
    g_assert_cmpfloat (b, ==, 1);
    g_assert_cmpfloat (rate, ==, 5e6);
    wf_series_get_flow_sample (s, 0, 1, &a, &b, &rate);
    g_assert_cmpfloat (a, ==, 1);
    g_assert_cmpfloat (rate, ==, 10e6);
    wf_series_get_flow_sample (s, 1, 0, &a, &b, &rate);
    g_assert_cmpfloat (b, ==, 3);
    g_assert_cmpfloat (rate, ==, 1.5e6);
  }
}

static void
test_parse_no_header (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfSeries) s = load ("0,1,a,1\n", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (wf_series_get_n_flows (s), ==, 1);
}

static void
test_parse_errors (void)
{
  struct {
    const char *text;
    const char *message_part;
  } cases[] = {
    { "", "t.csv: no samples" },
    { "# only a comment\n" WF_SERIES_HEADER "\n", "t.csv: no samples" },
    { "time_s,flow,bits_per_s\n0,a,1\n", "t.csv:1: expected the header" },
    { WF_SERIES_HEADER "\n0,1,a\n", "t.csv:2: expected 4 fields" },
    { "0,1,a,1\n1,2,a,1,5\n", "t.csv:2: expected 4 fields" },
    { "0,1,a,1\n1,2,a,fast\n", "t.csv:2: 'fast' is not a number" },
    { "0,1,a,1\n\n1,x,a,1\n", "t.csv:3: 'x' is not a number" },
    { "0,1,a,1\n1,2,a,-5\n", "t.csv:2: '-5' is negative" },
    { "0,1,a,nan\n", "t.csv:1: 'nan' is not a number" },
    { "0,1,a,1e999\n", "t.csv:1: '1e999' is out of range" },
    { "0,1,a,1\n2,2,a,1\n", "t.csv:2: end_s 2 is not after start_s 2" },
    { "0,1,a,1\n3,2,a,1\n", "t.csv:2: end_s 2 is not after start_s 3" },
    { "0,1,,1\n", "t.csv:1: flow name" },
    { "0,1,a,1\n0,1,b,1\n0.5,2,a,1\n", "t.csv:3: flow 'a' interval [0.5, 2) overlaps line 1 [0, 1)" },
    { "5,6,a,1\n0,5.5,a,1\n", "t.csv:2: flow 'a' interval [0, 5.5) overlaps line 1 [5, 6)" },
    { "0,1,a,1\n\xff\xfe,1,a,1\n", "t.csv:2: not valid UTF-8" },
    { "0,1,\xc3\x28,1\n", "t.csv:1: not valid UTF-8" },
    { "0,1,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,1\n",
      "t.csv:1: flow name must be 1 to 255 bytes" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WfSeries) s = NULL;

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].message_part);
      s = load (cases[i].text, &error);
      g_assert_null (s);
      g_assert_error (error, WF_ERROR, WF_ERROR_PARSE);
      if (strstr (error->message, cases[i].message_part) == NULL)
        g_error ("'%s' does not contain '%s'", error->message, cases[i].message_part);
    }
}

static void
test_parse_nul (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfSeries) s = wf_series_new_from_data ("0,1,a,1\n\0", 9, "t.csv", &error);

  g_assert_null (s);
  g_assert_error (error, WF_ERROR, WF_ERROR_PARSE);
}

static void
test_parse_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfSeries) s = wf_series_new_from_file ("/nonexistent/wlanfair.csv", &error);

  g_assert_null (s);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

static void
test_average (void)
{
  g_autoptr(GError) error = NULL;
  /* Flow a: 10 on [0,2), nothing on [2,3), 40 on [3,4). */
  g_autoptr(WfSeries) s = load ("0,2,a,10\n3,4,a,40\n1,4,b,8\n", &error);
  double v = -1;

  g_assert_no_error (error);
  g_assert_true (wf_series_flow_average (s, 0, 0, 4, &v));
  g_assert_cmpfloat_with_epsilon (v, (20.0 + 40.0) / 4.0, 1e-12);
  g_assert_true (wf_series_flow_average (s, 0, 1.5, 3.5, &v));
  g_assert_cmpfloat_with_epsilon (v, (5.0 + 0.0 + 20.0) / 2.0, 1e-12);
  g_assert_true (wf_series_flow_average (s, 0, 2, 3, &v));
  g_assert_cmpfloat (v, ==, 0);
  /* Beyond a flow's life the window is cut to it. */
  g_assert_true (wf_series_flow_average (s, 0, 3.5, 10, &v));
  g_assert_cmpfloat_with_epsilon (v, 40, 1e-12);
  g_assert_true (wf_series_flow_average (s, 1, 0, 2, &v));
  g_assert_cmpfloat_with_epsilon (v, 8, 1e-12);
  /* Not there at all. */
  v = -1;
  g_assert_false (wf_series_flow_average (s, 1, 0, 1, &v));
  g_assert_false (wf_series_flow_average (s, 0, 4, 5, &v));
  g_assert_cmpfloat (v, ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/series/parse/basic", test_parse_basic);
  g_test_add_func ("/series/parse/no-header", test_parse_no_header);
  g_test_add_func ("/series/parse/errors", test_parse_errors);
  g_test_add_func ("/series/parse/nul", test_parse_nul);
  g_test_add_func ("/series/parse/file", test_parse_file);
  g_test_add_func ("/series/average", test_average);

  return g_test_run ();
}
