/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl80211 parsing on recorded attribute sets: messages built with libnl's
 * nla_put exactly as the kernel lays them out (nl80211_send_iface,
 * nl80211_send_station), parsed back by the functions the daemon uses. */
#include <linux/nl80211.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-mac.h"
#include "wlanfair-nl80211.h"

static const guint8 ap_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };

static struct nl_msg *
new_msg (guint8 cmd)
{
  struct nl_msg *msg = nlmsg_alloc ();

  g_assert_nonnull (genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, 28, 0, 0, cmd, 0));
  return msg;
}

/* The attribute table of a finished message, as the receive path sees it. */
static void
parse (struct nl_msg *msg, struct nlattr **tb)
{
  g_assert_cmpint (genlmsg_parse (nlmsg_hdr (msg), 0, tb, NL80211_ATTR_MAX, NULL), ==, 0);
}

static void
test_interface (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_INTERFACE);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  const guint8 ssid[] = { 'c', 'a', 'f', 0xc3, 0xa9, ' ', '"', '\\', '\n' };
  WfWifiLink link;

  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 3);
  nla_put_string (msg, NL80211_ATTR_IFNAME, "wlan0");
  nla_put_u32 (msg, NL80211_ATTR_IFTYPE, NL80211_IFTYPE_STATION);
  nla_put (msg, NL80211_ATTR_MAC, 6, ap_mac);
  nla_put (msg, NL80211_ATTR_SSID, sizeof ssid, ssid);
  nla_put_u32 (msg, NL80211_ATTR_WIPHY_FREQ, 5180);
  nla_put_u32 (msg, NL80211_ATTR_CHANNEL_WIDTH, NL80211_CHAN_WIDTH_80);
  parse (msg, tb);

  g_assert_true (wf_nl80211_parse_interface (tb, &link));
  g_assert_cmpint (link.ifindex, ==, 3);
  g_assert_cmpstr (link.name, ==, "wlan0");
  g_assert_true (link.is_station);
  g_assert_cmpstr (wf_nl80211_iftype_name (link.iftype), ==, "station");
  /* Bytes outside printable ASCII, and the backslash, escaped. */
  g_assert_cmpstr (link.ssid, ==, "caf\\xc3\\xa9 \"\\x5c\\x0a");
  g_assert_true (link.has_freq);
  g_assert_cmpuint (link.freq_mhz, ==, 5180);
  g_assert_cmpuint (link.width_mhz, ==, 80);
  g_assert_false (link.connected);
  nlmsg_free (msg);
}

static void
test_interface_ap_and_malformed (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_INTERFACE);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  WfWifiLink link;
  guint16 short_index = 3;

  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 7);
  nla_put_u32 (msg, NL80211_ATTR_IFTYPE, NL80211_IFTYPE_AP);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_interface (tb, &link));
  g_assert_false (link.is_station);
  g_assert_cmpstr (wf_nl80211_iftype_name (link.iftype), ==, "ap");
  g_assert_false (link.has_freq);
  g_assert_cmpuint (link.width_mhz, ==, 0);
  g_assert_cmpstr (link.ssid, ==, "");
  nlmsg_free (msg);

  /* An ifindex of the wrong size: not an interface we can use. */
  msg = new_msg (NL80211_CMD_NEW_INTERFACE);
  nla_put (msg, NL80211_ATTR_IFINDEX, sizeof short_index, &short_index);
  parse (msg, tb);
  g_assert_false (wf_nl80211_parse_interface (tb, &link));
  nlmsg_free (msg);
}

typedef void (*RateFill) (struct nl_msg *msg);

/* A GET_STATION reply: MAC, STA_INFO { SIGNAL, SIGNAL_AVG, TX/RX_BITRATE
 * { ... }, TX_RETRIES, TX_FAILED, BEACON_LOSS }. */
static struct nl_msg *
station_msg (RateFill tx, RateFill rx, gboolean counters)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *info, *rate;

  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 3);
  nla_put (msg, NL80211_ATTR_MAC, 6, ap_mac);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put_u8 (msg, NL80211_STA_INFO_SIGNAL, (guint8) -45);
  nla_put_u8 (msg, NL80211_STA_INFO_SIGNAL_AVG, (guint8) -47);
  if (tx)
    {
      rate = nla_nest_start (msg, NL80211_STA_INFO_TX_BITRATE);
      tx (msg);
      nla_nest_end (msg, rate);
    }
  if (rx)
    {
      rate = nla_nest_start (msg, NL80211_STA_INFO_RX_BITRATE);
      rx (msg);
      nla_nest_end (msg, rate);
    }
  if (counters)
    {
      nla_put_u32 (msg, NL80211_STA_INFO_TX_RETRIES, 12);
      nla_put_u32 (msg, NL80211_STA_INFO_TX_FAILED, 3);
      nla_put_u32 (msg, NL80211_STA_INFO_BEACON_LOSS, 2);
    }
  nla_nest_end (msg, info);
  return msg;
}

static void
fill_ht (struct nl_msg *m)
{
  nla_put_u32 (m, NL80211_RATE_INFO_BITRATE32, 3000); /* 300 Mbit/s */
  nla_put_u16 (m, NL80211_RATE_INFO_BITRATE, 3000);
  nla_put_u8 (m, NL80211_RATE_INFO_MCS, 15);
  nla_put_flag (m, NL80211_RATE_INFO_40_MHZ_WIDTH);
  nla_put_flag (m, NL80211_RATE_INFO_SHORT_GI);
}

static void
fill_legacy (struct nl_msg *m)
{
  nla_put_u16 (m, NL80211_RATE_INFO_BITRATE, 60); /* 6 Mbit/s, no BITRATE32 (old kernels) */
}

static void
fill_vht (struct nl_msg *m)
{
  nla_put_u32 (m, NL80211_RATE_INFO_BITRATE32, 8667);
  nla_put_u8 (m, NL80211_RATE_INFO_VHT_MCS, 9);
  nla_put_u8 (m, NL80211_RATE_INFO_VHT_NSS, 2);
  nla_put_flag (m, NL80211_RATE_INFO_80_MHZ_WIDTH);
}

static void
fill_he (struct nl_msg *m)
{
  nla_put_u32 (m, NL80211_RATE_INFO_BITRATE32, 24019);
  nla_put_u8 (m, NL80211_RATE_INFO_HE_MCS, 11);
  nla_put_u8 (m, NL80211_RATE_INFO_HE_NSS, 2);
  nla_put_u8 (m, NL80211_RATE_INFO_HE_GI, NL80211_RATE_INFO_HE_GI_3_2);
  nla_put_u8 (m, NL80211_RATE_INFO_HE_DCM, 0);
  nla_put_flag (m, NL80211_RATE_INFO_160_MHZ_WIDTH);
}

static void
fill_eht (struct nl_msg *m)
{
  nla_put_u32 (m, NL80211_RATE_INFO_BITRATE32, 57647);
  nla_put_u8 (m, 19 /* EHT_MCS */, 13);
  nla_put_u8 (m, 20 /* EHT_NSS */, 4);
  nla_put_u8 (m, 21 /* EHT_GI */, 1 /* 1.6 us */);
  nla_put_flag (m, 18 /* 320_MHZ_WIDTH */);
}

static void
test_station_ht_legacy (void)
{
  struct nl_msg *msg = station_msg (fill_ht, fill_legacy, TRUE);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  WfWifiStation sta;
  guint8 mac[6];
  char text[18];

  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_station (tb, &sta, mac));
  wf_mac_format (mac, text);
  g_assert_cmpstr (text, ==, "02:00:00:00:01:00");
  g_assert_true (sta.has_signal);
  g_assert_cmpint (sta.signal_dbm, ==, -45);
  g_assert_cmpint (sta.signal_avg_dbm, ==, -47);

  g_assert_true (sta.has_tx_rate);
  g_assert_cmpuint (sta.tx_rate.bitrate_kbps, ==, 300000);
  g_assert_cmpstr (sta.tx_rate.mode, ==, "ht");
  g_assert_cmpint (sta.tx_rate.mcs, ==, 15);
  g_assert_cmpuint (sta.tx_rate.nss, ==, 2);   /* HT MCS 8-15: two streams */
  g_assert_cmpuint (sta.tx_rate.width_mhz, ==, 40);
  g_assert_cmpstr (sta.tx_rate.gi, ==, "0.4");

  g_assert_true (sta.has_rx_rate);
  g_assert_cmpuint (sta.rx_rate.bitrate_kbps, ==, 6000);
  g_assert_cmpstr (sta.rx_rate.mode, ==, "legacy");
  g_assert_cmpint (sta.rx_rate.mcs, ==, -1);
  g_assert_cmpuint (sta.rx_rate.nss, ==, 0);
  g_assert_cmpuint (sta.rx_rate.width_mhz, ==, 20);
  g_assert_null (sta.rx_rate.gi);

  g_assert_true (sta.has_tx_retries && sta.has_tx_failed && sta.has_beacon_loss);
  g_assert_cmpuint (sta.tx_retries, ==, 12);
  g_assert_cmpuint (sta.tx_failed, ==, 3);
  g_assert_cmpuint (sta.beacon_loss, ==, 2);
  nlmsg_free (msg);
}

static void
test_station_vht_he_eht (void)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nl_msg *msg = station_msg (fill_vht, fill_he, FALSE);
  WfWifiStation sta;

  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_station (tb, &sta, NULL));
  g_assert_cmpstr (sta.tx_rate.mode, ==, "vht");
  g_assert_cmpint (sta.tx_rate.mcs, ==, 9);
  g_assert_cmpuint (sta.tx_rate.nss, ==, 2);
  g_assert_cmpuint (sta.tx_rate.width_mhz, ==, 80);
  g_assert_cmpstr (sta.tx_rate.gi, ==, "0.8");
  g_assert_cmpuint (sta.tx_rate.bitrate_kbps, ==, 866700);
  g_assert_cmpstr (sta.rx_rate.mode, ==, "he");
  g_assert_cmpint (sta.rx_rate.mcs, ==, 11);
  g_assert_cmpuint (sta.rx_rate.nss, ==, 2);
  g_assert_cmpuint (sta.rx_rate.width_mhz, ==, 160);
  g_assert_cmpstr (sta.rx_rate.gi, ==, "3.2");
  /* Counters the driver did not give stay absent, never 0. */
  g_assert_false (sta.has_tx_retries);
  g_assert_false (sta.has_tx_failed);
  g_assert_false (sta.has_beacon_loss);
  nlmsg_free (msg);

  msg = station_msg (fill_eht, NULL, FALSE);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_station (tb, &sta, NULL));
  g_assert_cmpstr (sta.tx_rate.mode, ==, "eht");
  g_assert_cmpint (sta.tx_rate.mcs, ==, 13);
  g_assert_cmpuint (sta.tx_rate.nss, ==, 4);
  g_assert_cmpuint (sta.tx_rate.width_mhz, ==, 320);
  g_assert_cmpstr (sta.tx_rate.gi, ==, "1.6");
  g_assert_false (sta.has_rx_rate);
  nlmsg_free (msg);
}

static void
test_station_missing_and_truncated (void)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_STATION);
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *info;
  WfWifiStation sta;
  guint8 mac[6] = { 1, 1, 1, 1, 1, 1 };

  /* No STA_INFO at all: nothing to report. */
  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 3);
  parse (msg, tb);
  g_assert_false (wf_nl80211_parse_station (tb, &sta, mac));
  nlmsg_free (msg);

  /* A zero-length signal and a 2-byte retry counter are ignored. */
  msg = new_msg (NL80211_CMD_NEW_STATION);
  info = nla_nest_start (msg, NL80211_ATTR_STA_INFO);
  nla_put (msg, NL80211_STA_INFO_SIGNAL, 0, NULL);
  nla_put_u16 (msg, NL80211_STA_INFO_TX_RETRIES, 5);
  nla_nest_end (msg, info);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_station (tb, &sta, mac));
  g_assert_false (sta.has_signal);
  g_assert_false (sta.has_tx_retries);
  g_assert_false (sta.has_tx_rate);
  /* No MAC attribute: the BSSID is zero, not stale. */
  for (int i = 0; i < 6; i++)
    g_assert_cmpuint (mac[i], ==, 0);
  nlmsg_free (msg);
}

/* A GET_SCAN dump entry as nl80211_send_bss lays it out: IFINDEX, BSS {
 * BSSID, FREQUENCY, INFORMATION_ELEMENTS, [BEACON_IES], [STATUS] }. */
static struct nl_msg *
bss_msg (const guint8 *bssid, const guint8 *ies, gsize ies_len,
         const guint8 *beacon_ies, gsize beacon_len, int status)
{
  struct nl_msg *msg = new_msg (NL80211_CMD_NEW_SCAN_RESULTS);
  struct nlattr *bss;

  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 3);
  bss = nla_nest_start (msg, NL80211_ATTR_BSS);
  nla_put (msg, NL80211_BSS_BSSID, 6, bssid);
  nla_put_u32 (msg, NL80211_BSS_FREQUENCY, 2412);
  if (ies)
    nla_put (msg, NL80211_BSS_INFORMATION_ELEMENTS, (int) ies_len, ies);
  if (beacon_ies)
    nla_put (msg, NL80211_BSS_BEACON_IES, (int) beacon_len, beacon_ies);
  if (status >= 0)
    nla_put_u32 (msg, NL80211_BSS_STATUS, (guint32) status);
  nla_nest_end (msg, bss);
  return msg;
}

/* What hostapd sends in the lab (802.11n, WPA2): SSID, rates, DS
 * parameter set, RSN, HT capabilities (abridged). */
static const guint8 lab_ies[] = {
  0x00, 0x0c, 'w', 'l', 'a', 'n', 'f', 'a', 'i', 'r', '-', 'l', 'a', 'b',
  0x01, 0x08, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24,
  0x03, 0x01, 0x01,
  0x30, 0x14, 0x01, 0x00, 0x00, 0x0f, 0xac, 0x04, 0x01, 0x00, 0x00, 0x0f, 0xac, 0x04,
  0x01, 0x00, 0x00, 0x0f, 0xac, 0x02, 0x00, 0x00,
  0x2d, 0x1a, 0x2c, 0x01, 0x03, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void
test_bss_associated (void)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nl_msg *msg = bss_msg (ap_mac, lab_ies, sizeof lab_ies, NULL, 0,
                                NL80211_BSS_STATUS_ASSOCIATED);
  WfWifiBss bss;
  char text[18];

  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_true (bss.has_bssid);
  wf_mac_format (bss.bssid, text);
  g_assert_cmpstr (text, ==, "02:00:00:00:01:00");
  g_assert_true (bss.associated);
  g_assert_true (bss.has_ssid);
  g_assert_false (bss.ssid_hidden);
  g_assert_cmpstr (bss.ssid, ==, "wlanfair-lab");
  nlmsg_free (msg);

  /* Another BSS of the scan: authenticated only, or no status at all. */
  msg = bss_msg (ap_mac, lab_ies, sizeof lab_ies, NULL, 0, NL80211_BSS_STATUS_AUTHENTICATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_false (bss.associated);
  g_assert_cmpstr (bss.ssid, ==, "wlanfair-lab");
  nlmsg_free (msg);
  msg = bss_msg (ap_mac, lab_ies, sizeof lab_ies, NULL, 0, -1);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_false (bss.associated);
  nlmsg_free (msg);

  /* No BSS attribute: not a scan entry. */
  msg = new_msg (NL80211_CMD_NEW_SCAN_RESULTS);
  nla_put_u32 (msg, NL80211_ATTR_IFINDEX, 3);
  parse (msg, tb);
  g_assert_false (wf_nl80211_parse_bss (tb, &bss));
  nlmsg_free (msg);
}

static void
test_bss_truncated_ies (void)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  /* Rates, then an SSID element claiming 11 bytes with 4 left. */
  static const guint8 cut_ssid[] = { 0x01, 0x02, 0x82, 0x84, 0x00, 0x0b, 'w', 'l', 'a', 'n' };
  /* A long element before the SSID runs past the end. */
  static const guint8 cut_before[] = { 0xdd, 0x40, 0x00, 0x50, 0xf2, 0x00, 0x0b, 'x' };
  /* One byte: not even an element header. */
  static const guint8 one[] = { 0x00 };
  /* An "SSID" of 33 bytes is no SSID. */
  guint8 too_long[2 + 33];
  const guint8 *ssid = NULL;
  gsize len = 99;
  struct nl_msg *msg;
  WfWifiBss bss;

  g_assert_false (wf_nl80211_ie_ssid (cut_ssid, sizeof cut_ssid, &ssid, &len));
  g_assert_false (wf_nl80211_ie_ssid (cut_before, sizeof cut_before, &ssid, &len));
  g_assert_false (wf_nl80211_ie_ssid (one, sizeof one, &ssid, &len));
  g_assert_false (wf_nl80211_ie_ssid (NULL, 0, &ssid, &len));
  too_long[0] = 0;
  too_long[1] = 33;
  memset (too_long + 2, 'a', 33);
  g_assert_false (wf_nl80211_ie_ssid (too_long, sizeof too_long, &ssid, &len));
  g_assert_null (ssid);
  g_assert_cmpuint (len, ==, 99);

  /* The full lab elements cut in the middle of the SSID: no SSID. Cut
   * after it (inside the rates): the SSID is whole and found. */
  for (gsize cut = 0; cut < sizeof lab_ies; cut++)
    {
      gboolean found = wf_nl80211_ie_ssid (lab_ies, cut, &ssid, &len);

      g_assert_cmpint (found, ==, cut >= 14);
      if (found)
        g_assert_true (len == 12 && memcmp (ssid, "wlanfair-lab", 12) == 0);
    }

  /* In a message: truncated probe-response elements, whole beacon ones. */
  msg = bss_msg (ap_mac, cut_ssid, sizeof cut_ssid, lab_ies, sizeof lab_ies,
                 NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_true (bss.has_ssid);
  g_assert_cmpstr (bss.ssid, ==, "wlanfair-lab");
  nlmsg_free (msg);

  /* Both truncated: associated, but no SSID to report. */
  msg = bss_msg (ap_mac, cut_ssid, sizeof cut_ssid, cut_before, sizeof cut_before,
                 NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_true (bss.associated);
  g_assert_false (bss.has_ssid);
  g_assert_cmpstr (bss.ssid, ==, "");
  nlmsg_free (msg);
}

static void
test_bss_no_ssid_and_hidden (void)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  /* Well-formed elements without an SSID element. */
  static const guint8 no_ssid[] = { 0x01, 0x02, 0x82, 0x84, 0x03, 0x01, 0x06 };
  /* Hidden: an empty SSID, or as many zero bytes as the real one has. */
  static const guint8 hidden_empty[] = { 0x00, 0x00, 0x01, 0x02, 0x82, 0x84 };
  static const guint8 hidden_zeros[] = { 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x06 };
  static const guint8 beacon[] = { 0x00, 0x04, 'b', 'e', 'a', 'c' };
  struct nl_msg *msg;
  WfWifiBss bss;

  msg = bss_msg (ap_mac, no_ssid, sizeof no_ssid, NULL, 0, NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_false (bss.has_ssid);
  g_assert_cmpstr (bss.ssid, ==, "");
  nlmsg_free (msg);

  /* The beacon's elements only stand in for missing ones. */
  msg = bss_msg (ap_mac, no_ssid, sizeof no_ssid, beacon, sizeof beacon, NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_cmpstr (bss.ssid, ==, "beac");
  nlmsg_free (msg);
  msg = bss_msg (ap_mac, lab_ies, sizeof lab_ies, beacon, sizeof beacon, NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_cmpstr (bss.ssid, ==, "wlanfair-lab");
  nlmsg_free (msg);

  msg = bss_msg (ap_mac, hidden_empty, sizeof hidden_empty, NULL, 0, NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_true (bss.has_ssid);
  g_assert_true (bss.ssid_hidden);
  g_assert_cmpstr (bss.ssid, ==, "");
  nlmsg_free (msg);

  msg = bss_msg (ap_mac, hidden_zeros, sizeof hidden_zeros, NULL, 0, NL80211_BSS_STATUS_ASSOCIATED);
  parse (msg, tb);
  g_assert_true (wf_nl80211_parse_bss (tb, &bss));
  g_assert_true (bss.has_ssid && bss.ssid_hidden);
  g_assert_cmpstr (bss.ssid, ==, "");
  nlmsg_free (msg);
}

static void
test_ssid_cache (void)
{
  WfSsidCache *c = wf_ssid_cache_new ();
  const guint8 other[6] = { 0x02, 0x00, 0x00, 0x00, 0x02, 0x00 };
  const char *ssid = NULL;
  gint64 t = 1000 * (gint64) G_USEC_PER_SEC;

  g_assert_false (wf_ssid_cache_lookup (c, 3, ap_mac, t, &ssid));
  wf_ssid_cache_store (c, 3, ap_mac, "wlanfair-lab", t);
  /* A found SSID holds for as long as the BSSID does. */
  g_assert_true (wf_ssid_cache_lookup (c, 3, ap_mac, t + 3600 * (gint64) G_USEC_PER_SEC, &ssid));
  g_assert_cmpstr (ssid, ==, "wlanfair-lab");
  g_assert_false (wf_ssid_cache_lookup (c, 4, ap_mac, t, &ssid));
  /* Roamed: a new BSSID is a miss, then replaces the entry. */
  g_assert_false (wf_ssid_cache_lookup (c, 3, other, t, &ssid));
  wf_ssid_cache_store (c, 3, other, NULL, t);
  g_assert_true (wf_ssid_cache_lookup (c, 3, other, t + 1, &ssid));
  g_assert_cmpstr (ssid, ==, "");
  g_assert_false (wf_ssid_cache_lookup (c, 3, ap_mac, t + 1, &ssid));
  /* A miss is asked again after the retry time. */
  g_assert_true (wf_ssid_cache_lookup (c, 3, other, t + WF_SSID_CACHE_RETRY_US - 1, &ssid));
  g_assert_false (wf_ssid_cache_lookup (c, 3, other, t + WF_SSID_CACHE_RETRY_US, &ssid));
  /* Disassociated: forgotten, so that the same BSSID is looked up anew. */
  wf_ssid_cache_store (c, 3, ap_mac, "wlanfair-lab", t);
  wf_ssid_cache_forget (c, 3);
  g_assert_false (wf_ssid_cache_lookup (c, 3, ap_mac, t, &ssid));
  wf_ssid_cache_free (c);
}

/* On this kernel there may be no cfg80211: the error must say so. */
static void
test_family (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfNl80211) nl = wf_nl80211_new (&error);

  if (nl == NULL)
    {
      g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, "nl80211 not available"));
    }
  else
    {
      g_autoptr(GArray) links = g_array_new (FALSE, FALSE, sizeof (WfWifiLink));
      WfWifiLink link;

      g_assert_true (wf_nl80211_dump (nl, links, &error));
      g_assert_no_error (error);
      /* Loopback is never a wireless interface. */
      g_assert_false (wf_nl80211_get_link (nl, 1, &link, &error));
      g_assert_nonnull (error);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/nl80211/interface", test_interface);
  g_test_add_func ("/reporter/nl80211/interface-ap-malformed", test_interface_ap_and_malformed);
  g_test_add_func ("/reporter/nl80211/station-ht-legacy", test_station_ht_legacy);
  g_test_add_func ("/reporter/nl80211/station-vht-he-eht", test_station_vht_he_eht);
  g_test_add_func ("/reporter/nl80211/station-missing-truncated", test_station_missing_and_truncated);
  g_test_add_func ("/reporter/nl80211/bss-associated", test_bss_associated);
  g_test_add_func ("/reporter/nl80211/bss-truncated-ies", test_bss_truncated_ies);
  g_test_add_func ("/reporter/nl80211/bss-no-ssid-hidden", test_bss_no_ssid_and_hidden);
  g_test_add_func ("/reporter/nl80211/ssid-cache", test_ssid_cache);
  g_test_add_func ("/reporter/nl80211/family", test_family);
  return g_test_run ();
}
