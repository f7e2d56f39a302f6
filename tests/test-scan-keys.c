/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's per-profile keys: names, short and full form, values. */
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-scan-keys.h"

static void
test_lookup (void)
{
  const char *const *all = wf_scan_config_profile_keys ();

  g_assert_cmpstr (wf_scan_config_profile_key ("mode"), ==, "wlanfair.scan.mode");
  g_assert_cmpstr (wf_scan_config_profile_key ("wlanfair.scan.mode"), ==, "wlanfair.scan.mode");
  g_assert_cmpstr (wf_scan_config_profile_key ("idle-holdoff"), ==, "wlanfair.scan.idle-holdoff");
  g_assert_null (wf_scan_config_profile_key ("Mode"));
  g_assert_null (wf_scan_config_profile_key ("wlanfair.scan."));
  g_assert_null (wf_scan_config_profile_key ("wlanfair.mode"));
  g_assert_null (wf_scan_config_profile_key ("sample-interval")); /* global only */
  g_assert_cmpuint (g_strv_length ((char **) all), ==, 10);
  for (gsize i = 0; all[i]; i++)
    g_assert_cmpstr (wf_scan_config_profile_key (all[i]), ==, all[i]);
}

static void
expect (const char *key, const char *value, gboolean valid)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = wf_scan_config_check_profile_value (key, value, &error);

  if (ok != valid)
    g_error ("%s=%s: expected %s", key, value, valid ? "valid" : "invalid");
  if (!valid)
    {
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, key));
    }
}

static void
test_values (void)
{
  g_autoptr(GError) error = NULL;

  expect ("mode", "auto", TRUE);
  expect ("mode", "off", TRUE);
  expect ("wlanfair.scan.mode", "always", TRUE);
  expect ("mode", "OFF", FALSE);
  expect ("mode", "", FALSE);
  expect ("mode", "auto off", FALSE);
  g_assert_false (wf_scan_config_check_profile_value ("mode", "x", &error));
  g_assert_nonnull (strstr (error->message, "auto, off or always"));
  expect ("policy", "strict", TRUE);
  expect ("policy", "abort", FALSE);
  expect ("start-pps", "20", TRUE);
  expect ("start-pps", "0.1", TRUE);
  expect ("start-pps", "0", FALSE);
  expect ("start-pps", "10k", FALSE);
  expect ("start-pps", "nan", FALSE);
  expect ("start-window", "10", TRUE);
  expect ("start-window", "11", FALSE);
  expect ("idle-pps", "0", TRUE);
  expect ("idle-pps", "-1", FALSE);
  expect ("idle-holdoff", "0", TRUE);
  expect ("idle-holdoff", "3601", FALSE);
  expect ("idle-holdoff", " 5", FALSE);
  expect ("roam-floor", "auto", TRUE);
  expect ("roam-floor", "-75", TRUE);
  expect ("roam-floor", "-19", FALSE);
  expect ("roam-floor", "75", FALSE);
  expect ("roam-floor-margin", "30", TRUE);
  expect ("roam-floor-margin", "31", FALSE);
  expect ("roam-hysteresis", "21", FALSE);
  expect ("beacon-loss-holdoff", "30", TRUE);
  g_clear_error (&error);
  g_assert_false (wf_scan_config_check_profile_value ("nope", "1", &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/keys/lookup", test_lookup);
  g_test_add_func ("/scan/keys/values", test_values);
  return g_test_run ();
}
