/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl80211 scan events parsed from attribute sets built the way cfg80211
 * builds them (nl80211_send_scan_msg: ifindex, SCAN_SSIDS nest,
 * SCAN_FREQUENCIES nest, SCAN_FLAGS), plus the CQM beacon-loss event. */
#include <glib.h>
#include <linux/nl80211.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-nl80211-scan.h"

#define FAMILY 0x1b   /* any id: the parser trusts the caller's socket */

static struct nl_msg *
new_msg (guint8 cmd, int ifindex)
{
  struct nl_msg *msg = nlmsg_alloc ();

  g_assert_nonnull (genlmsg_put (msg, 0, 0, FAMILY, 0, 0, cmd, 0));
  if (ifindex)
    g_assert_cmpint (nla_put_u32 (msg, NL80211_ATTR_IFINDEX, ifindex), ==, 0);
  return msg;
}

/* SSIDs given as strings, "" = wildcard; n < 0: no SCAN_SSIDS at all. */
static void
put_ssids (struct nl_msg *msg, const char * const *ssids, int n)
{
  struct nlattr *nest;

  if (n < 0)
    return;
  nest = nla_nest_start (msg, NL80211_ATTR_SCAN_SSIDS);
  for (int i = 0; i < n; i++)
    g_assert_cmpint (nla_put (msg, i + 1, (int) strlen (ssids[i]), ssids[i]), ==, 0);
  nla_nest_end (msg, nest);
}

static void
put_freqs (struct nl_msg *msg, const guint32 *freqs, int n)
{
  struct nlattr *nest = nla_nest_start (msg, NL80211_ATTR_SCAN_FREQUENCIES);

  for (int i = 0; i < n; i++)
    g_assert_cmpint (nla_put_u32 (msg, i, freqs[i]), ==, 0);
  nla_nest_end (msg, nest);
}

static WfScanEvent
parse_ok (struct nl_msg *msg)
{
  WfScanEvent ev;

  g_assert_true (wf_nl80211_scan_parse (nlmsg_hdr (msg), 4242, &ev));
  g_assert_cmpint (ev.monotonic_us, ==, 4242);
  nlmsg_free (msg);
  return ev;
}

static void
test_single_ssid (void)
{
  /* bgscan-simple: the connected SSID only, all channels. */
  static const char * const ssids[] = { "home-net" };
  static const guint32 freqs[] = { 2412, 2437, 2462, 5180, 5200 };
  struct nl_msg *msg = new_msg (NL80211_CMD_TRIGGER_SCAN, 3);
  WfScanEvent ev;

  put_ssids (msg, ssids, 1);
  put_freqs (msg, freqs, 5);
  ev = parse_ok (msg);
  g_assert_cmpint (ev.type, ==, WF_SCAN_EVENT_START);
  g_assert_cmpint (ev.ifindex, ==, 3);
  g_assert_cmpint (ev.kind, ==, WF_SCAN_KIND_SINGLE_SSID);
  g_assert_cmpuint (ev.n_ssids, ==, 1);
  g_assert_cmpuint (ev.n_freqs, ==, 5);
  g_assert_cmpstr (wf_scan_kind_name (ev.kind), ==, "single-ssid");
}

static void
test_wildcard (void)
{
  /* NetworkManager RequestScan: the wildcard SSID, with flags. */
  static const char * const ssids[] = { "" };
  struct nl_msg *msg = new_msg (NL80211_CMD_TRIGGER_SCAN, 7);
  WfScanEvent ev;

  put_ssids (msg, ssids, 1);
  g_assert_cmpint (nla_put_u32 (msg, NL80211_ATTR_SCAN_FLAGS, NL80211_SCAN_FLAG_LOW_PRIORITY), ==, 0);
  ev = parse_ok (msg);
  g_assert_cmpint (ev.kind, ==, WF_SCAN_KIND_WILDCARD);
  g_assert_cmpuint (ev.flags, ==, NL80211_SCAN_FLAG_LOW_PRIORITY);
  g_assert_cmpuint (ev.n_freqs, ==, 0);
  g_assert_cmpstr (wf_scan_kind_name (ev.kind), ==, "wildcard");
}

static void
test_wildcard_with_hidden (void)
{
  /* NM adds hidden networks' SSIDs to its wildcard scans. */
  static const char * const ssids[] = { "hidden-a", "", "hidden-b" };
  struct nl_msg *msg = new_msg (NL80211_CMD_TRIGGER_SCAN, 7);

  put_ssids (msg, ssids, 3);
  g_assert_cmpint (parse_ok (msg).kind, ==, WF_SCAN_KIND_WILDCARD);
}

static void
test_multi_ssid (void)
{
  static const char * const ssids[] = { "a", "b" };
  struct nl_msg *msg = new_msg (NL80211_CMD_TRIGGER_SCAN, 7);
  WfScanEvent ev;

  put_ssids (msg, ssids, 2);
  ev = parse_ok (msg);
  g_assert_cmpint (ev.kind, ==, WF_SCAN_KIND_MULTI_SSID);
  g_assert_cmpuint (ev.n_ssids, ==, 2);
}

static void
test_passive (void)
{
  /* GeoClue through wpa_supplicant Scan({"Type": "passive"}): no SSIDs;
   * cfg80211 omits the nest or sends it empty. */
  struct nl_msg *msg = new_msg (NL80211_CMD_TRIGGER_SCAN, 4);
  WfScanEvent ev = parse_ok (msg);

  g_assert_cmpint (ev.kind, ==, WF_SCAN_KIND_PASSIVE);
  g_assert_cmpuint (ev.n_ssids, ==, 0);
  msg = new_msg (NL80211_CMD_TRIGGER_SCAN, 4);
  put_ssids (msg, NULL, 0);
  g_assert_cmpint (parse_ok (msg).kind, ==, WF_SCAN_KIND_PASSIVE);
  g_assert_cmpstr (wf_scan_kind_name (WF_SCAN_KIND_PASSIVE), ==, "passive");
}

static void
test_done_and_aborted (void)
{
  static const char * const ssids[] = { "" };
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_SCAN_RESULTS, 5);
  WfScanEvent ev;

  put_ssids (msg, ssids, 1);
  ev = parse_ok (msg);
  g_assert_cmpint (ev.type, ==, WF_SCAN_EVENT_DONE);
  g_assert_cmpint (ev.kind, ==, WF_SCAN_KIND_WILDCARD);
  ev = parse_ok (new_msg (NL80211_CMD_SCAN_ABORTED, 5));
  g_assert_cmpint (ev.type, ==, WF_SCAN_EVENT_ABORTED);
  g_assert_cmpint (ev.ifindex, ==, 5);
}

static void
test_beacon_loss (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NOTIFY_CQM, 9);
  struct nlattr *nest = nla_nest_start (msg, NL80211_ATTR_CQM);
  WfScanEvent ev;

  g_assert_cmpint (nla_put_flag (msg, NL80211_ATTR_CQM_BEACON_LOSS_EVENT), ==, 0);
  nla_nest_end (msg, nest);
  ev = parse_ok (msg);
  g_assert_cmpint (ev.type, ==, WF_SCAN_EVENT_BEACON_LOSS);
  g_assert_cmpint (ev.ifindex, ==, 9);
}

static void
test_ignored (void)
{
  WfScanEvent ev;
  struct nl_msg *msg;
  struct nlattr *nest;

  /* A CQM RSSI event is not beacon loss. */
  msg = new_msg (NL80211_CMD_NOTIFY_CQM, 9);
  nest = nla_nest_start (msg, NL80211_ATTR_CQM);
  g_assert_cmpint (nla_put_u32 (msg, NL80211_ATTR_CQM_RSSI_THRESHOLD_EVENT,
                                NL80211_CQM_RSSI_THRESHOLD_EVENT_LOW), ==, 0);
  nla_nest_end (msg, nest);
  g_assert_false (wf_nl80211_scan_parse (nlmsg_hdr (msg), 1, &ev));
  nlmsg_free (msg);
  /* Other commands of the groups. */
  msg = new_msg (NL80211_CMD_START_SCHED_SCAN, 9);
  g_assert_false (wf_nl80211_scan_parse (nlmsg_hdr (msg), 1, &ev));
  nlmsg_free (msg);
  msg = new_msg (NL80211_CMD_DEAUTHENTICATE, 9);
  g_assert_false (wf_nl80211_scan_parse (nlmsg_hdr (msg), 1, &ev));
  nlmsg_free (msg);
}

static void
test_classify (void)
{
  const guint one[] = { 8 }, wild[] = { 0 }, two[] = { 3, 4 }, mixed[] = { 3, 0 };

  g_assert_cmpint (wf_nl80211_scan_classify (NULL, 0), ==, WF_SCAN_KIND_PASSIVE);
  g_assert_cmpint (wf_nl80211_scan_classify (one, 1), ==, WF_SCAN_KIND_SINGLE_SSID);
  g_assert_cmpint (wf_nl80211_scan_classify (wild, 1), ==, WF_SCAN_KIND_WILDCARD);
  g_assert_cmpint (wf_nl80211_scan_classify (two, 2), ==, WF_SCAN_KIND_MULTI_SSID);
  g_assert_cmpint (wf_nl80211_scan_classify (mixed, 2), ==, WF_SCAN_KIND_WILDCARD);
}

static void
on_event (const WfScanEvent *ev, gpointer user_data)
{
}

static void
test_subscribe (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfNl80211Scan) scan = wf_nl80211_scan_new (on_event, NULL, &error);

  /* Either the kernel has cfg80211 (the lab) or it says so plainly. */
  if (!scan)
    {
      g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
      g_assert_true (g_str_has_prefix (error->message, "nl80211 not available"));
      g_test_message ("no nl80211 here: %s", error->message);
      g_clear_error (&error);
      g_assert_false (wf_nl80211_scan_abort (1, &error));
      g_assert_true (g_str_has_prefix (error->message, "nl80211 not available"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/nl80211/trigger/single-ssid", test_single_ssid);
  g_test_add_func ("/scan/nl80211/trigger/wildcard", test_wildcard);
  g_test_add_func ("/scan/nl80211/trigger/wildcard-with-hidden", test_wildcard_with_hidden);
  g_test_add_func ("/scan/nl80211/trigger/multi-ssid", test_multi_ssid);
  g_test_add_func ("/scan/nl80211/trigger/passive", test_passive);
  g_test_add_func ("/scan/nl80211/done-and-aborted", test_done_and_aborted);
  g_test_add_func ("/scan/nl80211/cqm-beacon-loss", test_beacon_loss);
  g_test_add_func ("/scan/nl80211/ignored", test_ignored);
  g_test_add_func ("/scan/nl80211/classify", test_classify);
  g_test_add_func ("/scan/nl80211/subscribe", test_subscribe);
  return g_test_run ();
}
