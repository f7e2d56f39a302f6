/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Airtime weights over nl80211: the replies parsed as the kernel sends
 * them, and the plain errors where there is no nl80211. */
#include <errno.h>
#include <linux/nl80211.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "wlanfair-nl80211-airtime.h"

static struct nl_msg *
new_msg (guint8 cmd)
{
  struct nl_msg *msg = nlmsg_alloc ();

  g_assert_nonnull (genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, 28, 0, 0, cmd, 0));
  return msg;
}

static void
parse (struct nl_msg *msg, struct nlattr **tb)
{
  g_assert_cmpint (genlmsg_parse (nlmsg_hdr (msg), 0, tb, NL80211_ATTR_MAX, NULL), ==, 0);
}

static void
test_weight (void)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  guint weight = 7;

  nla_put_u32 (msg, NL80211_STA_INFO_INACTIVE_TIME, 120);
  nla_put_u16 (msg, NL80211_STA_INFO_AIRTIME_WEIGHT, 512);
  nla_nest_end (msg, info);
  parse (msg, tb);
  g_assert_true (wf_nl80211_airtime_parse_weight (tb, &weight));
  g_assert_cmpuint (weight, ==, 512);
  nlmsg_free (msg);

  /* A driver that says nothing: the caller's value stays. */
  msg = new_msg (NL80211_CMD_NEW_STATION);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put_u32 (msg, NL80211_STA_INFO_INACTIVE_TIME, 120);
  nla_nest_end (msg, info);
  parse (msg, tb);
  weight = 7;
  g_assert_false (wf_nl80211_airtime_parse_weight (tb, &weight));
  g_assert_cmpuint (weight, ==, 7);
  nlmsg_free (msg);

  msg = new_msg (NL80211_CMD_NEW_STATION);
  parse (msg, tb);
  g_assert_false (wf_nl80211_airtime_parse_weight (tb, &weight));
  nlmsg_free (msg);
}

/* The split wiphy dump spreads the attributes over messages: the bits
 * of every message count. */
static void
test_features (void)
{
  const guint ft = NL80211_EXT_FEATURE_AIRTIME_FAIRNESS;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  guint8 bits[WF_NL80211_EXT_FEATURE_BYTES] = { 0 };
  guint8 other[4] = { 0x01, 0, 0, 0 }, fair[8] = { 0 };
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_WIPHY);

  /* A message without the attribute, then one without the bit. */
  parse (msg, tb);
  g_assert_false (wf_nl80211_airtime_parse_features (tb, bits));
  nlmsg_free (msg);
  msg = new_msg (NL80211_CMD_NEW_WIPHY);
  nla_put (msg, NL80211_ATTR_EXT_FEATURES, sizeof other, other);
  parse (msg, tb);
  g_assert_false (wf_nl80211_airtime_parse_features (tb, bits));
  nlmsg_free (msg);
  g_assert_cmphex (bits[0], ==, 0x01);

  g_assert_cmpuint (ft / 8, <, sizeof fair);
  fair[ft / 8] = (guint8) (1u << (ft % 8));
  msg = new_msg (NL80211_CMD_NEW_WIPHY);
  nla_put (msg, NL80211_ATTR_EXT_FEATURES, sizeof fair, fair);
  parse (msg, tb);
  g_assert_true (wf_nl80211_airtime_parse_features (tb, bits));
  nlmsg_free (msg);
  /* ORed: what came before stays. */
  g_assert_cmphex (bits[0], ==, 0x01);
  msg = new_msg (NL80211_CMD_NEW_WIPHY);
  parse (msg, tb);
  g_assert_true (wf_nl80211_airtime_parse_features (tb, bits));
  nlmsg_free (msg);
}

/* Where the kernel has no nl80211 (CI), every call returns the open's
 * failure; with it (the lab), lo is no Wi-Fi interface. */
static void
test_no_wifi (void)
{
  g_autoptr(GError) error = NULL;
  WfNl80211Socket s = { NULL, -1 };
  const guint8 mac[6] = { 0x02, 0, 0, 0, 0, 1 };
  gint64 wiphy = 5;
  gboolean supported = TRUE;
  guint weight = 0;

  if (!wf_nl80211_socket_open (&s, &error))
    {
      g_test_skip (error->message);
      return;
    }
  wf_nl80211_airtime_supported (&s, 1, &wiphy, &supported);
  g_assert_cmpint (wiphy, ==, -1);
  g_assert_false (supported);
  g_assert_cmpint (wf_nl80211_airtime_get_weight (&s, 1, mac, &weight), !=, 0);
  g_assert_cmpint (wf_nl80211_airtime_set_weight (&s, 1, mac, 256), !=, 0);
  wf_nl80211_socket_close (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/nl80211/airtime/weight", test_weight);
  g_test_add_func ("/nl80211/airtime/features", test_features);
  g_test_add_func ("/nl80211/airtime/no-wifi", test_no_wifi);

  return g_test_run ();
}
