/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

/* The scan guard's per-profile keys: names, short and full form, values. */
#include "wlanfair-error.h"
#include "wlanfair-scan-keys.h"

static void
test_lookup (void)
{
  const WfScanKey *k = wf_scan_key_lookup ("mode");
  g_autofree char *full = NULL;
  g_autofree char *list = wf_scan_key_list ();

  g_assert_nonnull (k);
  g_assert_true (k == wf_scan_key_lookup ("wlanfair.scan.mode"));
  g_assert_true (k == wf_scan_key_get (WF_SCAN_KEY_MODE));
  full = wf_scan_key_full_name (k);
  g_assert_cmpstr (full, ==, "wlanfair.scan.mode");
  g_assert_nonnull (wf_scan_key_lookup ("roam-floor"));
  g_assert_null (wf_scan_key_lookup ("Mode"));
  g_assert_null (wf_scan_key_lookup ("wlanfair.scan."));
  g_assert_null (wf_scan_key_lookup ("wlanfair.mode"));
  g_assert_null (wf_scan_key_lookup ("other.scan.mode"));
  g_assert_cmpstr (list, ==,
                   "mode, policy, traffic-pps, traffic-time, hold-off, roam-floor");
}

static void
expect (WfScanKeyId id, const char *value, gboolean valid)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = wf_scan_key_validate (wf_scan_key_get (id), value, &error);

  if (ok != valid)
    g_error ("%s=%s: expected %s", wf_scan_key_get (id)->name, value,
             valid ? "valid" : "invalid");
  if (!valid)
    {
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      /* The message names the key and what is allowed. */
      g_assert_nonnull (strstr (error->message, wf_scan_key_get (id)->name));
      g_assert_nonnull (strstr (error->message, wf_scan_key_get (id)->allowed));
    }
}

static void
test_values (void)
{
  expect (WF_SCAN_KEY_MODE, "auto", TRUE);
  expect (WF_SCAN_KEY_MODE, "off", TRUE);
  expect (WF_SCAN_KEY_MODE, "always", TRUE);
  expect (WF_SCAN_KEY_MODE, "OFF", FALSE);
  expect (WF_SCAN_KEY_MODE, "", FALSE);
  expect (WF_SCAN_KEY_POLICY, "strict", TRUE);
  expect (WF_SCAN_KEY_POLICY, "observe", TRUE);
  expect (WF_SCAN_KEY_POLICY, "abort", FALSE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "20", TRUE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "0.5", TRUE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "0", FALSE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "-3", FALSE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "1e7", FALSE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "10k", FALSE);
  expect (WF_SCAN_KEY_TRAFFIC_PPS, "nan", FALSE);
  expect (WF_SCAN_KEY_TRAFFIC_TIME, "0", TRUE);
  expect (WF_SCAN_KEY_TRAFFIC_TIME, "0.5", TRUE);
  expect (WF_SCAN_KEY_TRAFFIC_TIME, "61", FALSE);
  expect (WF_SCAN_KEY_HOLD_OFF, "10", TRUE);
  expect (WF_SCAN_KEY_HOLD_OFF, "0", FALSE);
  expect (WF_SCAN_KEY_HOLD_OFF, "3601", FALSE);
  expect (WF_SCAN_KEY_HOLD_OFF, " 5", FALSE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "auto", TRUE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "-75", TRUE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "-100", TRUE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "-20", TRUE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "-19", FALSE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "-75.5", FALSE);
  expect (WF_SCAN_KEY_ROAM_FLOOR, "75", FALSE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/keys/lookup", test_lookup);
  g_test_add_func ("/scan/keys/values", test_values);
  return g_test_run ();
}
