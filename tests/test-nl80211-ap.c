/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An AP's station table and station events on messages built with
 * libnl's nla_put as cfg80211 lays them out (nl80211_send_station for
 * GET_STATION replies and the NEW_STATION/DEL_STATION events), parsed
 * back by the functions wlanfair-apd uses. */
#include <linux/nl80211.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-mac.h"
#include "wlanfair-nl80211-ap.h"

static const guint8 sta_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x02, 0x00 };

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

/* STA_INFO as mac80211's sta_set_sinfo fills it on an AP (ath9k/mt76:
 * with airtime accounting), both byte counter widths. */
static void
put_full_info (struct nl_msg *msg)
{
  struct nl80211_sta_flag_update flags = {
    .mask = (1u << NL80211_STA_FLAG_AUTHORIZED) | (1u << NL80211_STA_FLAG_ASSOCIATED) |
            (1u << NL80211_STA_FLAG_WME),
    .set = (1u << NL80211_STA_FLAG_AUTHORIZED) | (1u << NL80211_STA_FLAG_ASSOCIATED),
  };
  struct nlattr *info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  struct nlattr *rate;

  nla_put_u32 (msg, NL80211_STA_INFO_INACTIVE_TIME, 120);
  nla_put_u32 (msg, NL80211_STA_INFO_RX_BYTES, (guint32) 5000000123ull);
  nla_put_u64 (msg, NL80211_STA_INFO_RX_BYTES64, 5000000123ull);
  nla_put_u32 (msg, NL80211_STA_INFO_TX_BYTES, 7000);
  nla_put_u64 (msg, NL80211_STA_INFO_TX_BYTES64, 7000);
  nla_put_u32 (msg, NL80211_STA_INFO_RX_PACKETS, 4000);
  nla_put_u32 (msg, NL80211_STA_INFO_TX_PACKETS, 60);
  nla_put_u32 (msg, NL80211_STA_INFO_TX_RETRIES, 9);
  nla_put_u32 (msg, NL80211_STA_INFO_TX_FAILED, 1);
  nla_put_u8 (msg, NL80211_STA_INFO_SIGNAL, (guint8) -71);
  nla_put_u8 (msg, NL80211_STA_INFO_SIGNAL_AVG, (guint8) -70);
  rate = nla_nest_start (msg, NL80211_STA_INFO_TX_BITRATE);
  nla_put_u32 (msg, NL80211_RATE_INFO_BITRATE32, 1300);
  nla_put_u8 (msg, NL80211_RATE_INFO_MCS, 7);
  nla_nest_end (msg, rate);
  rate = nla_nest_start (msg, NL80211_STA_INFO_RX_BITRATE);
  nla_put_u16 (msg, NL80211_RATE_INFO_BITRATE, 10);
  nla_nest_end (msg, rate);
  nla_put_u32 (msg, NL80211_STA_INFO_CONNECTED_TIME, 3600);
  nla_put (msg, NL80211_STA_INFO_STA_FLAGS, sizeof flags, &flags);
  nla_put_u64 (msg, NL80211_STA_INFO_RX_DURATION, 250000);
  nla_put_u64 (msg, NL80211_STA_INFO_TX_DURATION, 1750000);
  nla_put_u16 (msg, NL80211_STA_INFO_AIRTIME_WEIGHT, 512);
  nla_nest_end (msg, info);
}

static struct nl_msg *
full_msg (guint8 cmd)
{
  struct nl_msg *msg = new_msg (cmd);

  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 5);
  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  nla_put_u32 (msg, NL80211_ATTR_GENERATION, 17);
  put_full_info (msg);
  return msg;
}

static void
test_full (void)
{
  struct nl_msg *msg = full_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  WfApStation s;
  char text[18];

  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
  wf_mac_format (s.mac, text);
  g_assert_cmpstr (text, ==, "02:00:00:00:02:00");
  g_assert_cmpint (s.ifindex, ==, 5);
  g_assert_true (s.sta.has_signal && s.sta.has_signal_avg);
  g_assert_cmpint (s.sta.signal_dbm, ==, -71);
  g_assert_cmpint (s.sta.signal_avg_dbm, ==, -70);
  g_assert_true (s.sta.has_tx_rate);
  g_assert_cmpuint (s.sta.tx_rate.bitrate_kbps, ==, 130000);
  g_assert_cmpstr (s.sta.tx_rate.mode, ==, "ht");
  g_assert_cmpint (s.sta.tx_rate.mcs, ==, 7);
  g_assert_true (s.sta.has_rx_rate);
  g_assert_cmpuint (s.sta.rx_rate.bitrate_kbps, ==, 1000);
  g_assert_cmpstr (s.sta.rx_rate.mode, ==, "legacy");
  /* The 64-bit counter wins: past 4 GiB the 32-bit one has wrapped. */
  g_assert_true (s.has_rx_bytes && s.has_tx_bytes);
  g_assert_cmpuint (s.rx_bytes, ==, 5000000123ull);
  g_assert_false (s.rx_bytes_32bit);
  g_assert_cmpuint (s.tx_bytes, ==, 7000);
  g_assert_false (s.tx_bytes_32bit);
  g_assert_true (s.has_rx_packets && s.has_tx_packets);
  g_assert_cmpuint (s.rx_packets, ==, 4000);
  g_assert_cmpuint (s.tx_packets, ==, 60);
  g_assert_true (s.sta.has_tx_retries && s.sta.has_tx_failed);
  g_assert_cmpuint (s.sta.tx_retries, ==, 9);
  g_assert_cmpuint (s.sta.tx_failed, ==, 1);
  g_assert_true (s.has_inactive && s.has_connected);
  g_assert_cmpuint (s.inactive_ms, ==, 120);
  g_assert_cmpuint (s.connected_s, ==, 3600);
  g_assert_true (s.has_tx_duration && s.has_rx_duration);
  g_assert_cmpuint (s.tx_duration_us, ==, 1750000);
  g_assert_cmpuint (s.rx_duration_us, ==, 250000);
  g_assert_true (s.has_airtime_weight);
  g_assert_cmpuint (s.airtime_weight, ==, 512);
  g_assert_true (s.has_authorized && s.authorized);
  g_assert_true (s.has_associated && s.associated);
  nlmsg_free (msg);
}

/* Before 4.0 (and in a hand-built reply) only the 32-bit byte counters. */
static void
test_32bit_counters (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *info;
  WfApStation s;

  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 5);
  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put_u32 (msg, NL80211_STA_INFO_RX_BYTES, 4294967295u);
  nla_put_u32 (msg, NL80211_STA_INFO_TX_BYTES, 12);
  nla_nest_end (msg, info);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
  g_assert_true (s.has_rx_bytes && s.rx_bytes_32bit);
  g_assert_cmpuint (s.rx_bytes, ==, 4294967295u);
  g_assert_true (s.has_tx_bytes && s.tx_bytes_32bit);
  g_assert_cmpuint (s.tx_bytes, ==, 12);
  g_assert_false (s.has_rx_packets);
  nlmsg_free (msg);
}

/* A FullMAC driver (brcmfmac) gives little: what is missing stays absent. */
static void
test_missing_optional (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *info;
  WfApStation s;

  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put_u32 (msg, NL80211_STA_INFO_INACTIVE_TIME, 40);
  nla_nest_end (msg, info);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
  g_assert_cmpint (s.ifindex, ==, 0);
  g_assert_true (s.has_inactive);
  g_assert_cmpuint (s.inactive_ms, ==, 40);
  g_assert_false (s.sta.has_signal || s.sta.has_signal_avg);
  g_assert_false (s.sta.has_tx_rate || s.sta.has_rx_rate);
  g_assert_false (s.has_rx_bytes || s.has_tx_bytes);
  g_assert_false (s.rx_bytes_32bit || s.tx_bytes_32bit);
  g_assert_false (s.has_rx_packets || s.has_tx_packets);
  g_assert_false (s.sta.has_tx_retries || s.sta.has_tx_failed);
  g_assert_false (s.has_connected);
  g_assert_false (s.has_tx_duration || s.has_rx_duration);
  g_assert_false (s.has_airtime_weight);
  g_assert_false (s.has_authorized || s.has_associated);
  g_assert_false (s.authorized || s.associated);
  nlmsg_free (msg);
}

/* Airtime members alone (mac80211_hwsim has none; mt76 all three), and
 * flags the mask does not name are unknown, whatever `set` says. */
static void
test_airtime_and_flags (void)
{
  struct nl80211_sta_flag_update flags = {
    .mask = 1u << NL80211_STA_FLAG_AUTHORIZED,
    .set = (1u << NL80211_STA_FLAG_ASSOCIATED),
  };
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *info;
  WfApStation s;

  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put_u64 (msg, NL80211_STA_INFO_TX_DURATION, G_GUINT64_CONSTANT (1) << 40);
  nla_put_u16 (msg, NL80211_STA_INFO_AIRTIME_WEIGHT, 256);
  nla_put (msg, NL80211_STA_INFO_STA_FLAGS, sizeof flags, &flags);
  nla_nest_end (msg, info);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
  g_assert_true (s.has_tx_duration);
  g_assert_cmpuint (s.tx_duration_us, ==, G_GUINT64_CONSTANT (1) << 40);
  g_assert_false (s.has_rx_duration);
  g_assert_true (s.has_airtime_weight);
  g_assert_cmpuint (s.airtime_weight, ==, 256);
  g_assert_true (s.has_authorized);
  g_assert_false (s.authorized);
  g_assert_false (s.has_associated);
  g_assert_false (s.associated);
  nlmsg_free (msg);
}

static void
test_short_attributes (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *info;
  guint32 four = 7;
  guint8 flags_half[4] = { 0xff, 0xff, 0xff, 0xff };
  WfApStation s;

  /* Every member one size too small: all absent, nothing read past. */
  nla_put (msg, NL80211_ATTR_IFINDEX, 2, &four);
  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put (msg, NL80211_STA_INFO_SIGNAL, 0, NULL);
  nla_put (msg, NL80211_STA_INFO_RX_BYTES64, 4, &four);
  nla_put (msg, NL80211_STA_INFO_TX_BYTES64, 4, &four);
  nla_put_u16 (msg, NL80211_STA_INFO_RX_BYTES, 1);
  nla_put_u16 (msg, NL80211_STA_INFO_RX_PACKETS, 1);
  nla_put_u16 (msg, NL80211_STA_INFO_TX_RETRIES, 1);
  nla_put (msg, NL80211_STA_INFO_TX_DURATION, 4, &four);
  nla_put_u8 (msg, NL80211_STA_INFO_AIRTIME_WEIGHT, 1);
  nla_put (msg, NL80211_STA_INFO_STA_FLAGS, sizeof flags_half, flags_half);
  /* A rate "nest" that is three loose bytes. */
  nla_put (msg, NL80211_STA_INFO_TX_BITRATE, 3, "abc");
  nla_nest_end (msg, info);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
  g_assert_cmpint (s.ifindex, ==, 0);
  g_assert_false (s.sta.has_signal);
  g_assert_false (s.has_rx_bytes || s.has_tx_bytes);
  g_assert_false (s.has_rx_packets || s.sta.has_tx_retries);
  g_assert_false (s.has_tx_duration || s.has_airtime_weight);
  g_assert_false (s.has_authorized || s.has_associated);
  g_assert_false (s.sta.has_tx_rate && s.sta.tx_rate.has_bitrate);
  nlmsg_free (msg);

  /* No STA_INFO, or a MAC of 4 bytes: not a station entry. */
  msg = new_msg (NL80211_CMD_NEW_STATION);
  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  parse (msg, tb);
  g_assert_false (wf_nl80211_parse_ap_station (tb, &s));
  nlmsg_free (msg);
  msg = new_msg (NL80211_CMD_NEW_STATION);
  nla_put (msg, NL80211_ATTR_MAC, 4, sta_mac);
  put_full_info (msg);
  parse (msg, tb);
  g_assert_false (wf_nl80211_parse_ap_station (tb, &s));
  nlmsg_free (msg);
}

/* The full STA_INFO nest cut at every length, each copy in a buffer of
 * exactly its size: AddressSanitizer catches any read past the end. */
static void
test_truncated_everywhere (void)
{
  struct nl_msg *msg = full_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *info;
  const guint8 *payload;
  int len;

  parse (msg, tb);
  info = tb[NL80211_ATTR_STA_INFO];
  payload = nla_data (info);
  len = nla_len (info);
  g_assert_cmpint (len, >, 100);
  for (int cut = 0; cut <= len; cut++)
    {
      g_autofree guint8 *buf = g_malloc (NLA_HDRLEN + (gsize) cut);
      struct nlattr *a = (struct nlattr *) (void *) buf;
      WfApStation s;

      a->nla_type = NLA_F_NESTED | NL80211_ATTR_STA_INFO;
      a->nla_len = (guint16) (NLA_HDRLEN + cut);
      memcpy (buf + NLA_HDRLEN, payload, (gsize) cut);
      tb[NL80211_ATTR_STA_INFO] = a;
      g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
      g_assert_cmpint (s.ifindex, ==, 5);
      /* A member is there whole or not at all. */
      if (s.has_rx_bytes)
        g_assert_cmpuint (s.rx_bytes, ==, s.rx_bytes_32bit ? (guint32) 5000000123ull
                                                           : 5000000123ull);
      if (s.has_airtime_weight)
        g_assert_cmpuint (s.airtime_weight, ==, 512);
    }

  /* An attribute claiming more than its nest holds is not read. */
  {
    g_autofree guint8 *buf = g_malloc (NLA_HDRLEN + 8);
    struct nlattr *a = (struct nlattr *) (void *) buf;
    struct nlattr *inner = (struct nlattr *) (void *) (buf + NLA_HDRLEN);
    WfApStation s;

    a->nla_type = NL80211_ATTR_STA_INFO;
    a->nla_len = NLA_HDRLEN + 8;
    inner->nla_type = NL80211_STA_INFO_RX_BYTES64;
    inner->nla_len = NLA_HDRLEN + 8;   /* 4 bytes of it are there */
    memset (buf + 2 * NLA_HDRLEN, 0xab, 4);
    tb[NL80211_ATTR_STA_INFO] = a;
    g_assert_true (wf_nl80211_parse_ap_station (tb, &s));
    g_assert_false (s.has_rx_bytes);
  }
  nlmsg_free (msg);
}

static void
test_events (void)
{
  struct nl_msg *msg = full_msg (NL80211_CMD_NEW_STATION);
  guint8 mac[6] = { 0 };
  gboolean added = FALSE;
  int ifindex = 0;

  g_assert_true (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
  g_assert_cmpint (ifindex, ==, 5);
  g_assert_cmpmem (mac, 6, sta_mac, 6);
  g_assert_true (added);
  nlmsg_free (msg);

  /* cfg80211_del_sta_sinfo: IFINDEX, MAC, GENERATION, STA_INFO (final
   * counters) or none. */
  msg = new_msg (NL80211_CMD_DEL_STATION);
  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 6);
  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  memset (mac, 0, sizeof mac);
  g_assert_true (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
  g_assert_cmpint (ifindex, ==, 6);
  g_assert_cmpmem (mac, 6, sta_mac, 6);
  g_assert_false (added);
  nlmsg_free (msg);
}

static void
test_events_rejected (void)
{
  static const guint8 other_cmds[] = {
    NL80211_CMD_GET_STATION, NL80211_CMD_SET_STATION, NL80211_CMD_NEW_INTERFACE,
    NL80211_CMD_DISCONNECT, NL80211_CMD_DEAUTHENTICATE, NL80211_CMD_TRIGGER_SCAN,
  };
  struct nl_msg *msg;
  guint8 mac[6];
  gboolean added;
  int ifindex;

  for (guint i = 0; i < G_N_ELEMENTS (other_cmds); i++)
    {
      msg = new_msg (other_cmds[i]);
      nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 5);
      nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
      g_assert_false (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
      nlmsg_free (msg);
    }

  /* NEW_STATION without an ifindex, with a short MAC, without a MAC. */
  msg = new_msg (NL80211_CMD_NEW_STATION);
  nla_put (msg, NL80211_ATTR_MAC, 6, sta_mac);
  g_assert_false (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
  nlmsg_free (msg);
  msg = new_msg (NL80211_CMD_DEL_STATION);
  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 5);
  nla_put (msg, NL80211_ATTR_MAC, 5, sta_mac);
  g_assert_false (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
  nlmsg_free (msg);
  msg = new_msg (NL80211_CMD_DEL_STATION);
  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 5);
  g_assert_false (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
  nlmsg_free (msg);

  /* A netlink header with no room for the generic one. */
  msg = nlmsg_alloc_simple (28, 0);
  g_assert_false (wf_nl80211_ap_event_parse (nlmsg_hdr (msg), &ifindex, mac, &added));
  nlmsg_free (msg);
}

static void
on_event (int ifindex, const guint8 *mac, gboolean added, gpointer user_data)
{
}

/* On this kernel there may be no cfg80211: both calls must say so. */
static void
test_family (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) ctx = g_main_context_new ();
  g_autoptr(WfNl80211ApEvents) events = wf_nl80211_ap_events_new (ctx, on_event, NULL, &error);
  g_autoptr(WfNl80211) nl = NULL;

  if (events == NULL)
    {
      g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, "nl80211 not available"));
      g_clear_error (&error);
      g_assert_null (wf_nl80211_new (&error));
      return;
    }
  /* A context with the events attached iterates without blocking. */
  g_main_context_iteration (ctx, FALSE);
  nl = wf_nl80211_new (&error);
  g_assert_no_error (error);
  {
    g_autoptr(GArray) stations = g_array_new (FALSE, FALSE, sizeof (WfApStation));

    /* Loopback is no wireless interface: an error, the table untouched. */
    g_assert_false (wf_nl80211_ap_dump (nl, 1, stations, &error));
    g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
    g_assert_cmpuint (stations->len, ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel/nl80211-ap/station-full", test_full);
  g_test_add_func ("/kernel/nl80211-ap/station-32bit-counters", test_32bit_counters);
  g_test_add_func ("/kernel/nl80211-ap/station-missing-optional", test_missing_optional);
  g_test_add_func ("/kernel/nl80211-ap/station-airtime-flags", test_airtime_and_flags);
  g_test_add_func ("/kernel/nl80211-ap/station-short-attributes", test_short_attributes);
  g_test_add_func ("/kernel/nl80211-ap/station-truncated-everywhere", test_truncated_everywhere);
  g_test_add_func ("/kernel/nl80211-ap/events", test_events);
  g_test_add_func ("/kernel/nl80211-ap/events-rejected", test_events_rejected);
  g_test_add_func ("/kernel/nl80211-ap/family", test_family);
  return g_test_run ();
}
