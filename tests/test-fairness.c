/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Jain and trade-off index against values computed by hand. */
#include <math.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-fairness.h"

#define EPS 1e-9

static double
jain (const double *x, gsize n)
{
  g_autoptr(GError) error = NULL;
  double v = -1;

  g_assert_true (wf_fairness_jain (x, n, &v, &error));
  g_assert_no_error (error);
  return v;
}

static double
tradeoff (const double *x, gsize n, double c, double alpha, WfFairnessFlags flags)
{
  g_autoptr(GError) error = NULL;
  double v = -1;

  g_assert_true (wf_fairness_tradeoff (x, n, c, alpha, flags, &v, &error));
  g_assert_no_error (error);
  return v;
}

static void
test_jain_hand (void)
{
  const double x[] = { 1, 2, 3 };
  const double equal[] = { 7, 7, 7, 7 };
  const double one_hog[] = { 10, 0, 0, 0 };

  /* 36 / (3 * 14) */
  g_assert_cmpfloat_with_epsilon (jain (x, 3), 6.0 / 7.0, EPS);
  g_assert_cmpfloat_with_epsilon (jain (equal, 4), 1.0, EPS);
  /* One of n gets everything: 1/n, the minimum. */
  g_assert_cmpfloat_with_epsilon (jain (one_hog, 4), 0.25, EPS);
}

static void
test_jain_n1 (void)
{
  const double x[] = { 42 };
  const double zero[] = { 0 };

  g_assert_cmpfloat_with_epsilon (jain (x, 1), 1.0, EPS);
  g_assert_cmpfloat_with_epsilon (jain (zero, 1), 1.0, EPS);
}

static void
test_jain_all_zero (void)
{
  const double x[] = { 0, 0, 0 };

  g_assert_cmpfloat_with_epsilon (jain (x, 3), 1.0, EPS);
}

static void
test_jain_extreme_scale (void)
{
  /* Squares of these overflow or underflow a double without scaling. */
  const double big[] = { 1e200, 2e200, 3e200 };
  const double tiny[] = { 1e-200, 2e-200, 3e-200 };

  g_assert_cmpfloat_with_epsilon (jain (big, 3), 6.0 / 7.0, EPS);
  g_assert_cmpfloat_with_epsilon (jain (tiny, 3), 6.0 / 7.0, EPS);
}

/* x / w: each flow against its weight; the apd controllers' index. */
static void
test_jain_weighted (void)
{
  const double x[] = { 2, 4, 6 }, w[] = { 1, 2, 3 }, ones[] = { 1, 1, 1 };
  const double zero[] = { 0, 0, 0 }, hog[] = { 10, 0, 0 };
  const double big[] = { 1e300, 4e300 }, big_w[] = { 1e-10, 4e-10 };
  const double bad_w[][3] = { { 1, 0, 1 }, { 1, -1, 1 }, { 1, NAN, 1 }, { 1, INFINITY, 1 } };
  const double bad_x[] = { 1, -1, 1 };
  g_autoptr(GError) error = NULL;
  double v = -1;

  /* In proportion to the weights: fair. */
  g_assert_true (wf_fairness_jain_weighted (x, w, 3, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (v, 1.0, EPS);
  /* Unit weights: Jain itself; 36 / (3 * 14) for 1, 2, 3. */
  g_assert_true (wf_fairness_jain_weighted (w, ones, 3, &v, NULL));
  g_assert_cmpfloat_with_epsilon (v, 6.0 / 7.0, EPS);
  /* 2/1, 4/1, 6/1 against 1, 2, 3 equal weights: 2, 4, 6 = 6/7 too. */
  g_assert_true (wf_fairness_jain_weighted (x, ones, 3, &v, NULL));
  g_assert_cmpfloat_with_epsilon (v, 6.0 / 7.0, EPS);
  g_assert_true (wf_fairness_jain_weighted (zero, w, 3, &v, NULL));
  g_assert_cmpfloat_with_epsilon (v, 1.0, EPS);
  g_assert_true (wf_fairness_jain_weighted (hog, w, 3, &v, NULL));
  g_assert_cmpfloat_with_epsilon (v, 1.0 / 3.0, EPS);
  g_assert_true (wf_fairness_jain_weighted (x, w, 1, &v, NULL));
  g_assert_cmpfloat_with_epsilon (v, 1.0, EPS);
  /* x / w past double range: refused, not NaN. */
  g_assert_false (wf_fairness_jain_weighted (big, big_w, 2, &v, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_clear_error (&error);
  for (gsize i = 0; i < G_N_ELEMENTS (bad_w); i++)
    {
      g_assert_false (wf_fairness_jain_weighted (x, bad_w[i], 3, &v, &error));
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "weight 2"));
      g_clear_error (&error);
    }
  g_assert_false (wf_fairness_jain_weighted (bad_x, w, 3, &v, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (wf_fairness_jain_weighted (x, w, 0, &v, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
}

static void
test_tradeoff_alpha (void)
{
  /* n = 3, sum = 6, sum of squares = 14, C = 10:
   * C^2 / (3*14 - 2*10*6 + 2*100) = 100/122 = 50/61, utilisation 0.6. */
  const double x[] = { 1, 2, 3 };

  g_assert_cmpfloat_with_epsilon (tradeoff (x, 3, 10, 0, 0), 50.0 / 61.0, EPS);
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 3, 10, 1, 0), 30.0 / 61.0, EPS);
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 3, 10, 2, 0), 18.0 / 61.0, EPS);
}

static void
test_tradeoff_full_equals_jain (void)
{
  const double x[] = { 2, 3, 5 };
  const double y[] = { 12.5e6, 12.5e6, 4.6e6 };

  for (double alpha = 0; alpha <= 3; alpha += 0.5)
    {
      g_assert_cmpfloat_with_epsilon (tradeoff (x, 3, 10, alpha, 0), jain (x, 3), EPS);
      g_assert_cmpfloat_with_epsilon (tradeoff (x, 3, 10, alpha, 0), 100.0 / 114.0, EPS);
      g_assert_cmpfloat_with_epsilon (tradeoff (y, 3, 29.6e6, alpha, 0), jain (y, 3), EPS);
    }
}

static void
test_tradeoff_underused (void)
{
  const double x[] = { 2, 2 };

  g_assert_cmpfloat_with_epsilon (jain (x, 2), 1.0, EPS);
  /* 100 / (2*8 - 2*10*4 + 200) = 100/136 */
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 2, 10, 0, 0), 100.0 / 136.0, EPS);
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 2, 10, 1, 0), 100.0 / 136.0 * 0.4, EPS);
  g_assert_cmpfloat (tradeoff (x, 2, 10, 1, 0), <, jain (x, 2));
}

static void
test_tradeoff_n1 (void)
{
  const double x[] = { 5 };

  /* g = (5 - 10) / 10: 1 / (1 + 0.25) = 0.8, times 0.5 utilisation */
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 1, 10, 1, 0), 0.4, EPS);
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 1, 5, 1, 0), 1.0, EPS);
}

static void
test_tradeoff_all_zero (void)
{
  const double x[] = { 0, 0 };

  g_assert_cmpfloat_with_epsilon (tradeoff (x, 2, 10, 0, 0), 0.5, EPS);
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 2, 10, 1, 0), 0.0, EPS);
}

static void
test_tradeoff_over (void)
{
  g_autoptr(GError) error = NULL;
  const double x[] = { 6, 6 };
  const double rounding[] = { 0.1, 0.2 };
  double v = -1;

  g_assert_false (wf_fairness_tradeoff (x, 2, 10, 1, 0, &v, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_OVER_CAPACITY);
  g_assert_cmpfloat (v, ==, -1);

  /* Allowed: the fairness term sees the excess, utilisation caps at 1:
   * 100 / (2*72 - 240 + 200) = 100/104. */
  g_assert_cmpfloat_with_epsilon (tradeoff (x, 2, 10, 1, WF_FAIRNESS_ALLOW_OVER),
                                  100.0 / 104.0, EPS);
  g_assert_cmpfloat (tradeoff (x, 2, 10, 5, WF_FAIRNESS_ALLOW_OVER), <=, 1.0);

  /* 0.1 + 0.2 > 0.3 in binary: that is rounding, not over-use. */
  g_assert_cmpfloat_with_epsilon (tradeoff (rounding, 2, 0.3, 1, 0), jain (rounding, 2), EPS);
}

static void
test_errors (void)
{
  const double nan_x[] = { 1, NAN };
  const double inf_x[] = { INFINITY, 1 };
  const double neg_x[] = { 1, -0.5 };
  const double ok[] = { 1, 2 };
  struct {
    const double *x;
    gsize         n;
    double        c;
    double        alpha;
  } cases[] = {
    { ok, 0, 10, 1 },
    { nan_x, 2, 10, 1 },
    { inf_x, 2, 10, 1 },
    { neg_x, 2, 10, 1 },
    { ok, 2, 0, 1 },
    { ok, 2, -5, 1 },
    { ok, 2, NAN, 1 },
    { ok, 2, INFINITY, 1 },
    { ok, 2, 10, -1 },
    { ok, 2, 10, NAN },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      double v = -1;

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_false (wf_fairness_tradeoff (cases[i].x, cases[i].n, cases[i].c,
                                            cases[i].alpha, 0, &v, &error));
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      g_assert_cmpfloat (v, ==, -1);
      /* Jain shares the input checks but not capacity and alpha. */
      if (i < 4)
        {
          g_clear_error (&error);
          g_assert_false (wf_fairness_jain (cases[i].x, cases[i].n, &v, &error));
          g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
        }
    }
}

/* Finite throughputs whose sum is not (1e308 + 1e308): +inf, never NaN,
 * and the trade-off index still finds them over the capacity. */
static void
test_sum_overflow (void)
{
  const double x[] = { 1e308, 1e308 };
  const double y[] = { 1e10, 1e10 };
  g_autoptr(GError) error = NULL;
  double f = -1;

  g_assert_true (isinf (wf_fairness_sum (x, 2)) && wf_fairness_sum (x, 2) > 0);
  g_assert_cmpfloat (wf_fairness_sum (x, 1), ==, 1e308);
  g_assert_cmpfloat_with_epsilon (jain (x, 2), 1.0, EPS);
  /* x / C beyond double range */
  g_assert_false (wf_fairness_tradeoff (y, 2, 1e-300, 1, 0, &f, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_OVER_CAPACITY);
  g_assert_true (wf_fairness_tradeoff (y, 2, 1e-300, 1, WF_FAIRNESS_ALLOW_OVER, &f, NULL));
  g_assert_cmpfloat (f, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/fairness/jain/hand", test_jain_hand);
  g_test_add_func ("/fairness/jain/n1", test_jain_n1);
  g_test_add_func ("/fairness/jain/all-zero", test_jain_all_zero);
  g_test_add_func ("/fairness/jain/extreme-scale", test_jain_extreme_scale);
  g_test_add_func ("/fairness/jain/weighted", test_jain_weighted);
  g_test_add_func ("/fairness/tradeoff/alpha", test_tradeoff_alpha);
  g_test_add_func ("/fairness/tradeoff/full-equals-jain", test_tradeoff_full_equals_jain);
  g_test_add_func ("/fairness/tradeoff/underused", test_tradeoff_underused);
  g_test_add_func ("/fairness/tradeoff/n1", test_tradeoff_n1);
  g_test_add_func ("/fairness/tradeoff/all-zero", test_tradeoff_all_zero);
  g_test_add_func ("/fairness/tradeoff/over-capacity", test_tradeoff_over);
  g_test_add_func ("/fairness/errors", test_errors);
  g_test_add_func ("/fairness/sum-overflow", test_sum_overflow);

  return g_test_run ();
}
