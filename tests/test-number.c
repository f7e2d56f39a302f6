/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-number.h"

static void
test_valid (void)
{
  struct {
    const char   *text;
    WfNumberFlags flags;
    double        want;
  } cases[] = {
    { "0", 0, 0 },
    { "42", 0, 42 },
    { "+1.5", 0, 1.5 },
    { "-2", 0, -2 },
    { ".5", 0, 0.5 },
    { "5.", 0, 5 },
    { "1e3", 0, 1000 },
    { "2.5E-1", 0, 0.25 },
    { "2.5M", WF_NUMBER_SI, 2.5e6 },
    { "12k", WF_NUMBER_SI, 12e3 },
    { "12K", WF_NUMBER_SI, 12e3 },
    { "1G", WF_NUMBER_SI, 1e9 },
    { "0.5T", WF_NUMBER_SI, 0.5e12 },
    { "1e3k", WF_NUMBER_SI, 1e6 },
    { "-0", WF_NUMBER_NONNEG, 0 },
    { "0", WF_NUMBER_NONNEG, 0 },
    { "0.001", WF_NUMBER_POSITIVE, 0.001 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      double v = -99;

      g_test_message ("'%s'", cases[i].text);
      g_assert_true (wf_number_parse (cases[i].text, cases[i].flags, &v, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (v, cases[i].want, 1e-9 * MAX (1, cases[i].want));
    }
}

static void
test_invalid (void)
{
  struct {
    const char   *text;
    WfNumberFlags flags;
    const char   *message_part;
  } cases[] = {
    { "", 0, "not a number" },
    { "abc", 0, "not a number" },
    { "1.2.3", 0, "not a number" },
    { ".", 0, "not a number" },
    { "nan", 0, "not a number" },
    { "inf", 0, "not a number" },
    { "-infinity", 0, "not a number" },
    { "0x10", 0, "not a number" },
    { " 1", 0, "not a number" },
    { "1 ", 0, "not a number" },
    { "1e", 0, "not a number" },
    { "1e+", 0, "not a number" },
    { "5M", 0, "not a number" },
    { "5m", WF_NUMBER_SI, "suffixes" },
    { "5kk", WF_NUMBER_SI, "suffixes" },
    { "5 k", WF_NUMBER_SI, "suffixes" },
    { "1e999", 0, "out of range" },
    { "1e306T", WF_NUMBER_SI, "out of range" },
    { "-1", WF_NUMBER_NONNEG, "negative" },
    { "0", WF_NUMBER_POSITIVE, "greater than zero" },
    { "-3", WF_NUMBER_POSITIVE, "greater than zero" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      double v = -99;

      g_test_message ("'%s'", cases[i].text);
      g_assert_false (wf_number_parse (cases[i].text, cases[i].flags, &v, &error));
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, cases[i].message_part));
      g_assert_cmpfloat (v, ==, -99);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/number/parse/valid", test_valid);
  g_test_add_func ("/number/parse/invalid", test_invalid);

  return g_test_run ();
}
