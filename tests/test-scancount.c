/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scan counters on synthetic nl80211 scan events. */
#include <string.h>

#include "wlanfair-scancount.h"

static void
feed (WfScanCount *sc, int ifindex, WfScanEventType type, WfScanKind kind, gint64 ms)
{
  WfScanEvent e = { .ifindex = ifindex, .type = type, .kind = kind, .monotonic_us = ms * 1000 };

  wf_scancount_event (sc, &e);
}

static void
test_counts (void)
{
  g_autoptr(WfScanCount) sc = wf_scancount_new_detached ();
  const WfScanCounts *c;

  g_assert_null (wf_scancount_get (sc, 3));
  feed (sc, 3, WF_SCAN_EVENT_START, WF_SCAN_KIND_WILDCARD, 1000);
  c = wf_scancount_get (sc, 3);
  g_assert_nonnull (c);
  g_assert_true (c->in_progress);
  g_assert_cmpuint (c->count, ==, 1);
  feed (sc, 3, WF_SCAN_EVENT_DONE, WF_SCAN_KIND_WILDCARD, 3500);
  g_assert_false (c->in_progress);
  g_assert_cmpuint (c->duration_ms, ==, 2500);
  g_assert_cmpuint (c->wildcard, ==, 1);

  /* Single-SSID scan aborted after 40 ms; a passive one on another interface. */
  feed (sc, 3, WF_SCAN_EVENT_START, WF_SCAN_KIND_SINGLE_SSID, 5000);
  feed (sc, 3, WF_SCAN_EVENT_ABORTED, WF_SCAN_KIND_SINGLE_SSID, 5040);
  feed (sc, 4, WF_SCAN_EVENT_START, WF_SCAN_KIND_PASSIVE, 5000);
  g_assert_cmpuint (c->count, ==, 2);
  g_assert_cmpuint (c->single_ssid, ==, 1);
  g_assert_cmpuint (c->aborted, ==, 1);
  g_assert_cmpuint (c->duration_ms, ==, 2540);
  g_assert_cmpuint (wf_scancount_get (sc, 4)->passive, ==, 1);
  g_assert_true (wf_scancount_get (sc, 4)->in_progress);

  /* An end whose start we missed (started before we listened): counted,
   * no duration. Beacon loss and events without an interface: ignored. */
  feed (sc, 5, WF_SCAN_EVENT_DONE, WF_SCAN_KIND_MULTI_SSID, 9000);
  g_assert_cmpuint (wf_scancount_get (sc, 5)->count, ==, 1);
  g_assert_cmpuint (wf_scancount_get (sc, 5)->multi_ssid, ==, 1);
  g_assert_cmpuint (wf_scancount_get (sc, 5)->duration_ms, ==, 0);
  feed (sc, 6, WF_SCAN_EVENT_BEACON_LOSS, WF_SCAN_KIND_UNKNOWN, 9000);
  feed (sc, 0, WF_SCAN_EVENT_START, WF_SCAN_KIND_WILDCARD, 9000);
  g_assert_null (wf_scancount_get (sc, 6));
  g_assert_null (wf_scancount_get (sc, 0));
}

static void
test_subscription (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfScanCount) sc = wf_scancount_new (&error);

  /* No cfg80211 on CI machines: the error must say so. */
  if (sc == NULL)
    g_assert_nonnull (strstr (error->message, "nl80211 not available"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/scancount/counts", test_counts);
  g_test_add_func ("/reporter/scancount/subscription", test_subscription);
  return g_test_run ();
}
