/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sliding Window Method on series whose windows are computed by hand. */
#include <math.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-swm.h"

#define EPS 1e-9

/* a: 10 10  0 10     b: 10  0 10 10   over [0,1) [1,2) [2,3) [3,4) */
static const char alternating[] =
  WF_SERIES_HEADER "\n"
  "0,1,a,10\n1,2,a,10\n2,3,a,0\n3,4,a,10\n"
  "0,1,b,10\n1,2,b,0\n2,3,b,10\n3,4,b,10\n";

static WfSeries *
load (const char *text)
{
  g_autoptr(GError) error = NULL;
  WfSeries *s = wf_series_new_from_data (text, strlen (text), "t.csv", &error);

  g_assert_no_error (error);
  return s;
}

static WfSwmResult
run (WfSeries *s, double w, double step, double capacity)
{
  g_autoptr(GError) error = NULL;
  WfSwmParams p = { .window = w, .step = step, .capacity = capacity, .alpha = 1 };
  WfSwmResult r;

  g_assert_true (wf_swm_run (s, &p, &r, &error));
  g_assert_no_error (error);
  return r;
}

static void
test_hand (void)
{
  g_autoptr(WfSeries) s = load (alternating);
  WfSwmResult r;

  /* w = 1: Jain 1, .5, .5, 1; trade-off (C = 20) 1, 1/3, 1/3, 1 */
  r = run (s, 1, 0, 20);
  g_assert_cmpfloat (r.step, ==, 1);
  g_assert_cmpuint (r.n_windows, ==, 4);
  g_assert_cmpuint (r.n_empty, ==, 0);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (r.jain.mean, 0.75, EPS);
  g_assert_cmpfloat (r.jain.min_at, ==, 1);
  g_assert_true (r.has_tradeoff);
  g_assert_cmpfloat_with_epsilon (r.tradeoff.min, 1.0 / 3.0, EPS);
  g_assert_cmpfloat_with_epsilon (r.tradeoff.mean, 2.0 / 3.0, EPS);

  /* w = 2: averages (10,5) (5,5) (5,10): Jain .9, 1, .9;
   * trade-off 400/450 * 15/20, 400/500 * 10/20, 400/450 * 15/20 */
  r = run (s, 2, 0, 20);
  g_assert_cmpuint (r.n_windows, ==, 3);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 0.9, EPS);
  g_assert_cmpfloat_with_epsilon (r.jain.mean, 2.8 / 3, EPS);
  g_assert_cmpfloat_with_epsilon (r.tradeoff.min, 0.4, EPS);
  g_assert_cmpfloat_with_epsilon (r.tradeoff.mean, (2.0 / 3 + 0.4 + 2.0 / 3) / 3, EPS);
  g_assert_cmpfloat (r.tradeoff.min_at, ==, 1);

  /* w = the whole run: one window, equal averages 7.5 each. */
  r = run (s, 4, 0, 0);
  g_assert_cmpuint (r.n_windows, ==, 1);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 1, EPS);
  g_assert_false (r.has_tradeoff);
}

static void
test_fractional_step (void)
{
  g_autoptr(WfSeries) s = load (alternating);
  /* Windows at 0, .5, ..., 3: (10,10) (10,5) (10,0) (5,5) (0,10) (5,10) (10,10) */
  WfSwmResult r = run (s, 1, 0.5, 0);

  g_assert_cmpuint (r.n_windows, ==, 7);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (r.jain.mean, (1 + .9 + .5 + 1 + .5 + .9 + 1) / 7, EPS);
  g_assert_cmpfloat (r.jain.min_at, ==, 1);
}

static void
test_default_step (void)
{
  /* Intervals 0.1 s long except one of 3 s: the median, 0.1, is the step. */
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(WfSeries) s = NULL;
  WfSwmResult r;

  for (int i = 0; i < 10; i++)
    g_string_append_printf (text, "%g,%g,a,1\n", i / 10.0, (i + 1) / 10.0);
  g_string_append (text, "1,4,a,1\n0,4,b,1\n");
  s = load (text->str);
  g_assert_cmpfloat_with_epsilon (wf_series_get_median_interval (s), 0.1, 1e-12);

  r = run (s, 1, 0, 0);
  g_assert_cmpfloat_with_epsilon (r.step, 0.1, 1e-12);
  /* (4 - 1) / 0.1 + 1, with no window lost to rounding */
  g_assert_cmpuint (r.n_windows, ==, 31);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 1, EPS);
}

static void
test_late_flow (void)
{
  /* b joins at 2: it does not count in windows before it exists, and
   * within a window it is averaged over the part it existed in. */
  g_autoptr(WfSeries) s = load ("0,4,a,30\n2,4,b,10\n");
  WfSwmResult r = run (s, 2, 1, 0);

  /* [0,2): a alone, 1; [1,3): (30, 10) 0.8; [2,4): (30, 10) 0.8 */
  g_assert_cmpuint (r.n_windows, ==, 3);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (r.jain.mean, 2.6 / 3, EPS);
  g_assert_cmpfloat (r.jain.min_at, ==, 1);
}

static void
test_empty_windows (void)
{
  g_autoptr(WfSeries) s = load ("0,1,a,5\n3,4,b,7\n");
  WfSwmResult r = run (s, 1, 1, 0);

  g_assert_cmpuint (r.n_windows, ==, 2);
  g_assert_cmpuint (r.n_empty, ==, 2);
  g_assert_cmpfloat_with_epsilon (r.jain.mean, 1, EPS);
}

static void
test_long_series (void)
{
  /* One hour at 10 Hz of constant 1, 2, 3 Mbit/s: every window is 6/7,
   * however many samples the integrals sum. */
  g_autoptr(GString) text = g_string_new (WF_SERIES_HEADER "\n");
  g_autoptr(WfSeries) s = NULL;
  WfSwmResult r;

  for (int i = 0; i < 36000; i++)
    for (int f = 1; f <= 3; f++)
      g_string_append_printf (text, "%d.%d,%d.%d,f%d,%dM\n", i / 10, i % 10,
                              (i + 1) / 10, (i + 1) % 10, f, f);
  s = load (text->str);
  g_assert_cmpuint (wf_series_get_n_samples (s), ==, 108000);

  r = run (s, 60, 10, 29.6e6);
  g_assert_cmpuint (r.n_windows, ==, 355);
  g_assert_cmpfloat_with_epsilon (r.jain.min, 6.0 / 7.0, EPS);
  g_assert_cmpfloat_with_epsilon (r.jain.mean, 6.0 / 7.0, EPS);
  /* C = 29.6M: C^2 / (3*14e12 - 2*C*6e6 + 2 C^2) * 6e6/C */
  {
    double c = 29.6e6;
    double want = c * c / (3 * 14e12 - 2 * c * 6e6 + 2 * c * c) * 6e6 / c;
    g_assert_cmpfloat_with_epsilon (r.tradeoff.min, want, EPS);
    g_assert_cmpfloat_with_epsilon (r.tradeoff.mean, want, EPS);
  }
}

static void
test_errors (void)
{
  g_autoptr(WfSeries) s = load (alternating);
  struct {
    WfSwmParams params;
    int         code;
    const char *message_part;
  } cases[] = {
    { { .window = 5 }, WF_ERROR_INVALID, "longer than the series" },
    { { .window = 0 }, WF_ERROR_INVALID, "above zero" },
    { { .window = -1 }, WF_ERROR_INVALID, "above zero" },
    { { .window = 1, .step = -1 }, WF_ERROR_INVALID, "above zero" },
    { { .window = 1, .step = 1e-6 }, WF_ERROR_INVALID, "use a larger step" },
    { { .window = 1, .capacity = 15, .alpha = 1 }, WF_ERROR_OVER_CAPACITY, "window [0, 1)" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      WfSwmResult r;

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_false (wf_swm_run (s, &cases[i].params, &r, &error));
      g_assert_error (error, WF_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].message_part) == NULL)
        g_error ("'%s' does not contain '%s'", error->message, cases[i].message_part);
    }

  /* With ALLOW_OVER the same run succeeds; utilisation is capped. */
  {
    g_autoptr(GError) error = NULL;
    WfSwmParams p = { .window = 1, .capacity = 15, .alpha = 1,
                      .flags = WF_FAIRNESS_ALLOW_OVER };
    WfSwmResult r;

    g_assert_true (wf_swm_run (s, &p, &r, &error));
    g_assert_no_error (error);
    g_assert_cmpfloat (r.tradeoff.min, <=, 1);
  }
}

/* Log-spaced from the median interval to the run, and each one runs. */
static void
test_default_windows (void)
{
  struct { double interval; guint samples; guint n; } cases[] = {
    { 1, 4, 5 },       /* 0.6 decades: 1 .. 4 */
    { 1, 60, 12 },     /* 1.8 decades */
    { 0.1, 3000, 16 }, /* 3.5 decades: capped */
    { 0.5, 2, 3 },     /* 1 s in 0.5 s samples: 0.5, 0.707, 1 */
    { 2, 1, 1 },       /* a single sample: the run */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) text = g_string_new (WF_SERIES_HEADER "\n");
      g_autoptr(WfSeries) s = NULL;
      g_autoptr(GArray) w = NULL;
      double span = cases[i].interval * cases[i].samples;

      for (guint k = 0; k < cases[i].samples; k++)
        {
          char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

          g_ascii_dtostr (a, sizeof a, 100 + k * cases[i].interval);
          g_ascii_dtostr (b, sizeof b, 100 + (k + 1) * cases[i].interval);
          g_string_append_printf (text, "%s,%s,x,%u\n%s,%s,y,7\n", a, b, k, a, b);
        }
      s = load (text->str);
      w = wf_swm_default_windows (s);
      g_test_message ("interval %g, %u samples: %u widths", cases[i].interval,
                      cases[i].samples, w->len);
      g_assert_cmpuint (w->len, ==, cases[i].n);
      g_assert_cmpfloat_with_epsilon (g_array_index (w, double, 0),
                                      cases[i].n == 1 ? span : cases[i].interval, 1e-9);
      g_assert_cmpfloat_with_epsilon (g_array_index (w, double, w->len - 1), span, 1e-9);
      for (guint k = 0; k < w->len; k++)
        {
          WfSwmResult r = run (s, g_array_index (w, double, k), 0, 0);

          if (k > 0)
            {
              double ratio = g_array_index (w, double, k) / g_array_index (w, double, k - 1);

              /* Ascending, and evenly on a log scale (3-digit rounding aside). */
              g_assert_cmpfloat (ratio, >, 1);
              g_assert_cmpfloat_with_epsilon (ratio, pow (span / cases[i].interval, 1.0 / (w->len - 1)), 0.01);
            }
          g_assert_cmpuint (r.n_windows, >, 0);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/swm/hand", test_hand);
  g_test_add_func ("/swm/default-windows", test_default_windows);
  g_test_add_func ("/swm/fractional-step", test_fractional_step);
  g_test_add_func ("/swm/default-step", test_default_step);
  g_test_add_func ("/swm/late-flow", test_late_flow);
  g_test_add_func ("/swm/empty-windows", test_empty_windows);
  g_test_add_func ("/swm/long-series", test_long_series);
  g_test_add_func ("/swm/errors", test_errors);

  return g_test_run ();
}
