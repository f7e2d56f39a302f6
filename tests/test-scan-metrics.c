/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's textfile metrics: hold accounting and the exposition.
 * `test-scan-metrics --exposition` prints a sample for promtool (the
 * scan-metrics-promtool test). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-scan-metrics.h"

#define S G_USEC_PER_SEC
#define T0 (G_GINT64_CONSTANT (1764100000) * S)   /* wall clock of the tests */

static void
test_hold_accounting (void)
{
  WfScanHold h = { 0 };

  g_assert_false (wf_scan_hold_update (&h, FALSE, 1 * S, T0));
  g_assert_cmpuint (h.holds, ==, 0);
  g_assert_cmpfloat (wf_scan_hold_seconds (&h, 5 * S), ==, 0);

  g_assert_true (wf_scan_hold_update (&h, TRUE, 10 * S, T0 + 10 * S));
  g_assert_false (wf_scan_hold_update (&h, TRUE, 12 * S, T0 + 12 * S));  /* no new hold */
  g_assert_cmpuint (h.holds, ==, 1);
  g_assert_cmpint (h.since_real_us, ==, T0 + 10 * S);
  /* The current hold counts while it lasts. */
  g_assert_cmpfloat (wf_scan_hold_seconds (&h, 15 * S), ==, 5);
  g_assert_true (wf_scan_hold_update (&h, FALSE, 40 * S, T0 + 40 * S));
  g_assert_cmpfloat (wf_scan_hold_seconds (&h, 100 * S), ==, 30);

  g_assert_true (wf_scan_hold_update (&h, 2, 100 * S, T0 + 100 * S));  /* any true */
  g_assert_cmpuint (h.holds, ==, 2);
  g_assert_cmpfloat (wf_scan_hold_seconds (&h, 100 * S + S / 2), ==, 30.5);
  g_assert_true (wf_scan_hold_update (&h, FALSE, 101 * S, T0 + 101 * S));
  g_assert_cmpfloat (wf_scan_hold_seconds (&h, 200 * S), ==, 31);
}

static const char expected[] =
  "# HELP wlanfair_scan_guard_dbus_holds D-Bus holds in force (Hold without Release); they hold scans off on every device.\n"
  "# TYPE wlanfair_scan_guard_dbus_holds gauge\n"
  "wlanfair_scan_guard_dbus_holds 1\n"
  "# HELP wlanfair_scan_guard_info The scan guard's configuration in effect for the device (1; the labels say it).\n"
  "# TYPE wlanfair_scan_guard_info gauge\n"
  "wlanfair_scan_guard_info{device=\"wlan0\",mode=\"auto\",policy=\"observe\"} 1\n"
  "wlanfair_scan_guard_info{device=\"wlp3s0\",mode=\"always\",policy=\"strict\"} 1\n"
  "# HELP wlanfair_scan_guard_holding 1 while the guard holds background scans off (bgscan suppressed).\n"
  "# TYPE wlanfair_scan_guard_holding gauge\n"
  "wlanfair_scan_guard_holding{device=\"wlan0\"} 0\n"
  "wlanfair_scan_guard_holding{device=\"wlp3s0\"} 1\n"
  "# HELP wlanfair_scan_guard_holds_total Times the guard started holding scans off.\n"
  "# TYPE wlanfair_scan_guard_holds_total counter\n"
  "wlanfair_scan_guard_holds_total{device=\"wlan0\"} 1\n"
  "wlanfair_scan_guard_holds_total{device=\"wlp3s0\"} 2\n"
  "# HELP wlanfair_scan_guard_held_seconds_total Time the guard held scans off, in seconds.\n"
  "# TYPE wlanfair_scan_guard_held_seconds_total counter\n"
  "wlanfair_scan_guard_held_seconds_total{device=\"wlan0\"} 12.250\n"
  "wlanfair_scan_guard_held_seconds_total{device=\"wlp3s0\"} 65.000\n"
  "# HELP wlanfair_scan_guard_hold_started_timestamp_seconds When the current hold started, unix seconds (present only while holding).\n"
  "# TYPE wlanfair_scan_guard_hold_started_timestamp_seconds gauge\n"
  "wlanfair_scan_guard_hold_started_timestamp_seconds{device=\"wlp3s0\"} 1764100050.500\n";

/* Two devices, one holding; given out of order. */
static char *
render_sample (void)
{
  static WfScanHold idle = { 0 }, busy = { 0 };
  WfScanMetricsDevice d[2] = {
    { "wlp3s0", "always", "strict", &busy },
    { "wlan0", "auto", "observe", &idle },
  };

  memset (&idle, 0, sizeof idle);
  memset (&busy, 0, sizeof busy);
  wf_scan_hold_update (&idle, TRUE, 10 * S, T0 + 10 * S);
  wf_scan_hold_update (&idle, FALSE, 22 * S + S / 4, T0 + 22 * S + S / 4);
  wf_scan_hold_update (&busy, TRUE, 0, T0);
  wf_scan_hold_update (&busy, FALSE, 5 * S, T0 + 5 * S);
  wf_scan_hold_update (&busy, TRUE, 50 * S + S / 2, T0 + 50 * S + S / 2);
  return wf_scan_metrics_render (d, G_N_ELEMENTS (d), 1, 110 * S + S / 2);
}

static void
test_render (void)
{
  g_autofree char *text = render_sample ();

  g_assert_cmpstr (text, ==, expected);
}

static void
test_render_no_device (void)
{
  g_autofree char *text = wf_scan_metrics_render (NULL, 0, 0, 0);

  g_assert_cmpstr (text, ==,
                   "# HELP wlanfair_scan_guard_dbus_holds D-Bus holds in force (Hold without Release); they hold scans off on every device.\n"
                   "# TYPE wlanfair_scan_guard_dbus_holds gauge\n"
                   "wlanfair_scan_guard_dbus_holds 0\n");
}

/* Nobody holding: no timestamp family at all (a rule on it then needs no
 * "and holding"); label values escaped. */
static void
test_render_none_holding (void)
{
  WfScanHold h = { 0 };
  WfScanMetricsDevice d = { "wl\"a\\n", "off", "observe", &h };
  g_autofree char *text = wf_scan_metrics_render (&d, 1, 0, 0);

  g_assert_null (strstr (text, "hold_started"));
  g_assert_nonnull (strstr (text, "wlanfair_scan_guard_holding{device=\"wl\\\"a\\\\n\"} 0\n"));
}

int
main (int argc, char **argv)
{
  if (argc == 2 && g_str_equal (argv[1], "--exposition"))
    {
      g_autofree char *text = render_sample ();

      fputs (text, stdout);
      return 0;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/metrics/hold-accounting", test_hold_accounting);
  g_test_add_func ("/scan/metrics/render", test_render);
  g_test_add_func ("/scan/metrics/render-no-device", test_render_no_device);
  g_test_add_func ("/scan/metrics/render-none-holding", test_render_none_holding);
  return g_test_run ();
}
