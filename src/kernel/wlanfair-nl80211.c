/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Wi-Fi link from nl80211 (libnl-genl): interface type, SSID,
 * channel, and the station entry of the BSS (signal, rates, retries).
 * GET_INTERFACE, GET_STATION and GET_SCAN carry no GENL_ADMIN_PERM flag in
 * the kernel's nl80211 ops, so this needs no capability. */
#include "wlanfair-nl80211.h"

#include <errno.h>
#include <linux/nl80211.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-nl80211-socket.h"
#include "wlanfair-nlattr.h"

/* Values from the uAPI header, spelled out so that older headers (Ubuntu
 * 22.04 ships 5.15's, without EHT) build the same parser. */
enum {
  RATE_320_MHZ_WIDTH = 18,
  RATE_EHT_MCS = 19,
  RATE_EHT_NSS = 20,
  RATE_EHT_GI = 21,
  RATE_MAX_KNOWN = 22,
  CHAN_WIDTH_320 = 13,
};

struct _WfNl80211 {
  WfNl80211Socket sock;
  WfSsidCache    *ssids;
  char           *ssid_error;  /* the last GET_SCAN failure, said once */
};

typedef struct {
  GArray     *links;   /* dump: WfWifiLink each */
  WfWifiLink *one;     /* get: the one interface */
  gboolean    got;
  WfWifiStation *sta;
  guint8      *mac;
  const guint8 *want_bssid; /* GET_SCAN: the station's BSSID */
  WfWifiBss   *bss;         /* GET_SCAN: the best match so far */
  int          bss_score;
} Reply;

typedef struct {
  guint8 bssid[6];
  char   ssid[32 * 4 + 1];   /* "": a miss */
  gint64 stored_us;
} SsidEntry;

struct _WfSsidCache {
  GHashTable *by_ifindex;    /* ifindex → SsidEntry */
};

const char *
wf_nl80211_iftype_name (guint32 iftype)
{
  switch (iftype)
    {
    case NL80211_IFTYPE_ADHOC: return "adhoc";
    case NL80211_IFTYPE_STATION: return "station";
    case NL80211_IFTYPE_AP: return "ap";
    case NL80211_IFTYPE_AP_VLAN: return "ap-vlan";
    case NL80211_IFTYPE_WDS: return "wds";
    case NL80211_IFTYPE_MONITOR: return "monitor";
    case NL80211_IFTYPE_MESH_POINT: return "mesh";
    case NL80211_IFTYPE_P2P_CLIENT: return "p2p-client";
    case NL80211_IFTYPE_P2P_GO: return "p2p-go";
    case NL80211_IFTYPE_P2P_DEVICE: return "p2p-device";
    case NL80211_IFTYPE_OCB: return "ocb";
    case NL80211_IFTYPE_NAN: return "nan";
    default: return "unknown";
    }
}

static guint
chan_width_mhz (guint32 w)
{
  switch (w)
    {
    case NL80211_CHAN_WIDTH_20_NOHT:
    case NL80211_CHAN_WIDTH_20: return 20;
    case NL80211_CHAN_WIDTH_40: return 40;
    case NL80211_CHAN_WIDTH_80: return 80;
    case NL80211_CHAN_WIDTH_80P80: return 160;
    case NL80211_CHAN_WIDTH_160: return 160;
    case NL80211_CHAN_WIDTH_5: return 5;
    case NL80211_CHAN_WIDTH_10: return 10;
    case CHAN_WIDTH_320: return 320;
    default: return 0;
    }
}

/* SSIDs are up to 32 arbitrary bytes: keep printable ASCII, escape the rest
 * so that logs, JSON and Prometheus labels stay one clean line. */
static void
format_ssid (const guint8 *data, int len, char *out, gsize size)
{
  GString *s = g_string_new (NULL);

  for (int i = 0; i < len && i < 32; i++)
    {
      if (data[i] >= 0x20 && data[i] < 0x7f && data[i] != '\\')
        g_string_append_c (s, (char) data[i]);
      else
        g_string_append_printf (s, "\\x%02x", data[i]);
    }
  g_strlcpy (out, s->str, size);
  g_string_free (s, TRUE);
}

gboolean
wf_nl80211_parse_interface (struct nlattr **tb, WfWifiLink *out)
{
  guint32 v;

  memset (out, 0, sizeof *out);
  if (!wf_nla_u32 (tb[NL80211_ATTR_IFINDEX], &v))
    return FALSE;
  out->ifindex = (int) v;
  if (tb[NL80211_ATTR_IFNAME])
    g_strlcpy (out->name, nla_data (tb[NL80211_ATTR_IFNAME]),
               MIN (sizeof out->name, (gsize) nla_len (tb[NL80211_ATTR_IFNAME]) + 1));
  if (wf_nla_u32 (tb[NL80211_ATTR_IFTYPE], &out->iftype))
    out->is_station = out->iftype == NL80211_IFTYPE_STATION ||
                      out->iftype == NL80211_IFTYPE_P2P_CLIENT;
  if (tb[NL80211_ATTR_SSID])
    format_ssid (nla_data (tb[NL80211_ATTR_SSID]), nla_len (tb[NL80211_ATTR_SSID]),
                 out->ssid, sizeof out->ssid);
  if (wf_nla_u32 (tb[NL80211_ATTR_WIPHY_FREQ], &out->freq_mhz))
    out->has_freq = TRUE;
  if (wf_nla_u32 (tb[NL80211_ATTR_CHANNEL_WIDTH], &v))
    out->width_mhz = chan_width_mhz (v);
  return TRUE;
}

static const char *
he_gi (guint8 v)
{
  /* NL80211_RATE_INFO_HE_GI_* and _EHT_GI_* share 0.8, 1.6, 3.2. */
  static const char * const names[] = { "0.8", "1.6", "3.2" };

  return v < G_N_ELEMENTS (names) ? names[v] : NULL;
}

gboolean
wf_nl80211_parse_rate (struct nlattr *nested, WfWifiRate *out)
{
  struct nlattr *rb[RATE_MAX_KNOWN + 1];
  guint32 v32;
  guint16 v16;
  guint8 v8;

  memset (out, 0, sizeof *out);
  out->mcs = -1;
  out->width_mhz = 20;
  out->mode = "legacy";
  if (nested == NULL || nla_parse_nested (rb, RATE_MAX_KNOWN, nested, NULL) < 0)
    return FALSE;

  if (wf_nla_u32 (rb[NL80211_RATE_INFO_BITRATE32], &v32))
    {
      out->has_bitrate = TRUE;
      out->bitrate_kbps = v32 * 100;
    }
  else if (rb[NL80211_RATE_INFO_BITRATE] && nla_len (rb[NL80211_RATE_INFO_BITRATE]) >= 2)
    {
      v16 = nla_get_u16 (rb[NL80211_RATE_INFO_BITRATE]);
      out->has_bitrate = TRUE;
      out->bitrate_kbps = (guint32) v16 * 100;
    }

  if (rb[NL80211_RATE_INFO_5_MHZ_WIDTH])
    out->width_mhz = 5;
  else if (rb[NL80211_RATE_INFO_10_MHZ_WIDTH])
    out->width_mhz = 10;
  else if (rb[NL80211_RATE_INFO_40_MHZ_WIDTH])
    out->width_mhz = 40;
  else if (rb[NL80211_RATE_INFO_80_MHZ_WIDTH])
    out->width_mhz = 80;
  else if (rb[NL80211_RATE_INFO_80P80_MHZ_WIDTH] || rb[NL80211_RATE_INFO_160_MHZ_WIDTH])
    out->width_mhz = 160;
  else if (rb[RATE_320_MHZ_WIDTH])
    out->width_mhz = 320;

  if (wf_nla_u8 (rb[RATE_EHT_MCS], &v8))
    {
      out->mode = "eht";
      out->mcs = v8;
      if (wf_nla_u8 (rb[RATE_EHT_NSS], &v8))
        out->nss = v8;
      if (wf_nla_u8 (rb[RATE_EHT_GI], &v8))
        out->gi = he_gi (v8);
    }
  else if (wf_nla_u8 (rb[NL80211_RATE_INFO_HE_MCS], &v8))
    {
      out->mode = "he";
      out->mcs = v8;
      if (wf_nla_u8 (rb[NL80211_RATE_INFO_HE_NSS], &v8))
        out->nss = v8;
      if (wf_nla_u8 (rb[NL80211_RATE_INFO_HE_GI], &v8))
        out->gi = he_gi (v8);
    }
  else if (wf_nla_u8 (rb[NL80211_RATE_INFO_VHT_MCS], &v8))
    {
      out->mode = "vht";
      out->mcs = v8;
      if (wf_nla_u8 (rb[NL80211_RATE_INFO_VHT_NSS], &v8))
        out->nss = v8;
      out->gi = rb[NL80211_RATE_INFO_SHORT_GI] ? "0.4" : "0.8";
    }
  else if (wf_nla_u8 (rb[NL80211_RATE_INFO_MCS], &v8))
    {
      /* HT MCS 0-31 encode the stream count: 8 per spatial stream. */
      out->mode = "ht";
      out->mcs = v8;
      out->nss = v8 / 8 + 1;
      out->gi = rb[NL80211_RATE_INFO_SHORT_GI] ? "0.4" : "0.8";
    }
  return TRUE;
}

gboolean
wf_nl80211_parse_station (struct nlattr **tb, WfWifiStation *out, guint8 mac_out[6])
{
  struct nlattr *sb[NL80211_STA_INFO_MAX + 1];
  guint8 v8;

  memset (out, 0, sizeof *out);
  if (tb[NL80211_ATTR_STA_INFO] == NULL ||
      nla_parse_nested (sb, NL80211_STA_INFO_MAX, tb[NL80211_ATTR_STA_INFO], NULL) < 0)
    return FALSE;
  if (mac_out)
    {
      if (tb[NL80211_ATTR_MAC] && nla_len (tb[NL80211_ATTR_MAC]) >= 6)
        memcpy (mac_out, nla_data (tb[NL80211_ATTR_MAC]), 6);
      else
        memset (mac_out, 0, 6);
    }
  /* Signals are s8 dBm in a u8 attribute. */
  if (wf_nla_u8 (sb[NL80211_STA_INFO_SIGNAL], &v8))
    {
      out->has_signal = TRUE;
      out->signal_dbm = (gint8) v8;
    }
  if (wf_nla_u8 (sb[NL80211_STA_INFO_SIGNAL_AVG], &v8))
    {
      out->has_signal_avg = TRUE;
      out->signal_avg_dbm = (gint8) v8;
    }
  if (sb[NL80211_STA_INFO_TX_BITRATE])
    out->has_tx_rate = wf_nl80211_parse_rate (sb[NL80211_STA_INFO_TX_BITRATE], &out->tx_rate);
  if (sb[NL80211_STA_INFO_RX_BITRATE])
    out->has_rx_rate = wf_nl80211_parse_rate (sb[NL80211_STA_INFO_RX_BITRATE], &out->rx_rate);
  out->has_tx_retries = wf_nla_u32 (sb[NL80211_STA_INFO_TX_RETRIES], &out->tx_retries);
  out->has_tx_failed = wf_nla_u32 (sb[NL80211_STA_INFO_TX_FAILED], &out->tx_failed);
  out->has_beacon_loss = wf_nla_u32 (sb[NL80211_STA_INFO_BEACON_LOSS], &out->beacon_loss);
  return TRUE;
}

gboolean
wf_nl80211_ie_ssid (const guint8 *ies, gsize len, const guint8 **ssid, gsize *ssid_len)
{
  gsize pos = 0;

  /* Elements are id (1), length (1), body: every step checks that the
   * header and then the body fit in what is left. */
  while (ies != NULL && len - pos >= 2)
    {
      guint8 id = ies[pos];
      gsize elen = ies[pos + 1];

      if (elen > len - pos - 2)
        return FALSE;
      if (id == 0)
        {
          if (elen > 32)
            return FALSE;
          *ssid = ies + pos + 2;
          *ssid_len = elen;
          return TRUE;
        }
      pos += 2 + elen;
    }
  return FALSE;
}

gboolean
wf_nl80211_parse_bss (struct nlattr **tb, WfWifiBss *out)
{
  struct nlattr *bb[NL80211_BSS_MAX + 1];
  const guint8 *ssid = NULL;
  gsize ssid_len = 0;
  gboolean found = FALSE;
  guint32 status;

  memset (out, 0, sizeof *out);
  if (tb[NL80211_ATTR_BSS] == NULL ||
      nla_parse_nested (bb, NL80211_BSS_MAX, tb[NL80211_ATTR_BSS], NULL) < 0)
    return FALSE;
  if (bb[NL80211_BSS_BSSID] && nla_len (bb[NL80211_BSS_BSSID]) >= 6)
    {
      memcpy (out->bssid, nla_data (bb[NL80211_BSS_BSSID]), 6);
      out->has_bssid = TRUE;
    }
  if (wf_nla_u32 (bb[NL80211_BSS_STATUS], &status))
    out->associated = status == NL80211_BSS_STATUS_ASSOCIATED;
  /* The probe response's (or latest) elements first; the beacon's only
   * when those have no SSID element. */
  if (bb[NL80211_BSS_INFORMATION_ELEMENTS])
    found = wf_nl80211_ie_ssid (nla_data (bb[NL80211_BSS_INFORMATION_ELEMENTS]),
                                (gsize) nla_len (bb[NL80211_BSS_INFORMATION_ELEMENTS]),
                                &ssid, &ssid_len);
  if (!found && bb[NL80211_BSS_BEACON_IES])
    found = wf_nl80211_ie_ssid (nla_data (bb[NL80211_BSS_BEACON_IES]),
                                (gsize) nla_len (bb[NL80211_BSS_BEACON_IES]),
                                &ssid, &ssid_len);
  if (found)
    {
      out->has_ssid = TRUE;
      /* A hidden network sends an empty SSID or one of zero bytes. */
      out->ssid_hidden = TRUE;
      for (gsize i = 0; i < ssid_len; i++)
        if (ssid[i] != 0)
          out->ssid_hidden = FALSE;
      if (!out->ssid_hidden)
        format_ssid (ssid, (int) ssid_len, out->ssid, sizeof out->ssid);
    }
  return TRUE;
}

/* ---- SSID cache ------------------------------------------------------ */

WfSsidCache *
wf_ssid_cache_new (void)
{
  WfSsidCache *c = g_new0 (WfSsidCache, 1);

  c->by_ifindex = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return c;
}

void
wf_ssid_cache_free (WfSsidCache *c)
{
  if (c == NULL)
    return;
  g_hash_table_unref (c->by_ifindex);
  g_free (c);
}

gboolean
wf_ssid_cache_lookup (WfSsidCache *c, int ifindex, const guint8 *bssid, gint64 now_us,
                      const char **ssid)
{
  SsidEntry *e = g_hash_table_lookup (c->by_ifindex, GINT_TO_POINTER (ifindex));

  if (e == NULL || memcmp (e->bssid, bssid, 6) != 0)
    return FALSE;
  if (e->ssid[0] == '\0' && now_us - e->stored_us >= WF_SSID_CACHE_RETRY_US)
    return FALSE;
  *ssid = e->ssid;
  return TRUE;
}

void
wf_ssid_cache_store (WfSsidCache *c, int ifindex, const guint8 *bssid, const char *ssid,
                     gint64 now_us)
{
  SsidEntry *e = g_new0 (SsidEntry, 1);

  memcpy (e->bssid, bssid, 6);
  g_strlcpy (e->ssid, ssid ? ssid : "", sizeof e->ssid);
  e->stored_us = now_us;
  g_hash_table_replace (c->by_ifindex, GINT_TO_POINTER (ifindex), e);
}

void
wf_ssid_cache_forget (WfSsidCache *c, int ifindex)
{
  g_hash_table_remove (c->by_ifindex, GINT_TO_POINTER (ifindex));
}

/* ---- requests -------------------------------------------------------- */

static int
on_interface (struct nl_msg *msg, void *data)
{
  Reply *r = data;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  WfWifiLink link;

  if (genlmsg_parse (nlmsg_hdr (msg), 0, tb, NL80211_ATTR_MAX, NULL) < 0 ||
      !wf_nl80211_parse_interface (tb, &link))
    return NL_SKIP;
  if (r->links)
    g_array_append_val (r->links, link);
  else if (r->one)
    {
      *r->one = link;
      r->got = TRUE;
    }
  return NL_OK;
}

static int
on_station (struct nl_msg *msg, void *data)
{
  Reply *r = data;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];

  /* In station mode the only entry is the AP; keep the first. */
  if (r->got || genlmsg_parse (nlmsg_hdr (msg), 0, tb, NL80211_ATTR_MAX, NULL) < 0)
    return NL_SKIP;
  r->got = wf_nl80211_parse_station (tb, r->sta, r->mac);
  return NL_OK;
}

/* GET_SCAN dump entries: keep the one most surely the station's BSS. */
static int
on_bss (struct nl_msg *msg, void *data)
{
  Reply *r = data;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  WfWifiBss bss;
  gboolean same;
  int score;

  if (genlmsg_parse (nlmsg_hdr (msg), 0, tb, NL80211_ATTR_MAX, NULL) < 0 ||
      !wf_nl80211_parse_bss (tb, &bss))
    return NL_SKIP;
  same = bss.has_bssid && memcmp (bss.bssid, r->want_bssid, 6) == 0;
  /* Associated and the station's BSSID, then the BSSID alone (a stale
   * status), then associated alone (an MLD address in GET_STATION);
   * among equals, one that names its SSID. */
  score = (bss.associated && same) ? 6 : same ? 4 : bss.associated ? 2 : 0;
  if (score == 0)
    return NL_SKIP;
  score += bss.has_ssid && !bss.ssid_hidden;
  if (score > r->bss_score)
    {
      *r->bss = bss;
      r->bss_score = score;
    }
  return NL_SKIP;
}

/* One request and its replies through `cb`: a dump ends with DONE, a
 * single request with its one reply (or the error). */
int
wf_nl80211_transact (WfNl80211 *nl, guint8 cmd, int flags, int ifindex,
                     int (*cb) (struct nl_msg *msg, void *arg), void *arg)
{
  struct nl_msg *msg = nlmsg_alloc ();
  int err;

  if (msg == NULL)
    return -NLE_NOMEM;
  if (genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->sock.family, 0, flags, cmd, 0) == NULL ||
      (ifindex > 0 && nla_put_u32 (msg, NL80211_ATTR_IFINDEX, (guint32) ifindex) < 0))
    {
      nlmsg_free (msg);
      return -NLE_NOMEM;
    }
  nl_socket_modify_cb (nl->sock.sk, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
  err = nl_send_auto (nl->sock.sk, msg);
  nlmsg_free (msg);
  if (err < 0)
    return err;
  return nl_recvmsgs_default (nl->sock.sk);
}

WfNl80211 *
wf_nl80211_new (GError **error)
{
  g_autofree WfNl80211 *nl = g_new0 (WfNl80211, 1);

  if (!wf_nl80211_socket_open (&nl->sock, error))
    return NULL;
  /* Replies only: an ACK left unread would answer the next request. */
  nl_socket_disable_auto_ack (nl->sock.sk);
  nl->ssids = wf_ssid_cache_new ();
  return g_steal_pointer (&nl);
}

void
wf_nl80211_free (WfNl80211 *nl)
{
  if (nl == NULL)
    return;
  wf_nl80211_socket_close (&nl->sock);
  wf_ssid_cache_free (nl->ssids);
  g_free (nl->ssid_error);
  g_free (nl);
}

/* GET_INTERFACE may carry no SSID for a station: seen on Linux 6.1 with
 * mac80211_hwsim when wpa_supplicant associates through
 * NL80211_CMD_AUTHENTICATE/ASSOCIATE rather than CMD_CONNECT. Take it
 * from the associated BSS in the scan results, as `iw dev X link` does;
 * once per (ifindex, BSSID), not once per period. */
static void
ssid_from_bss (WfNl80211 *nl, WfWifiLink *link)
{
  WfWifiBss bss = { 0 };
  Reply r = { .want_bssid = link->bssid, .bss = &bss };
  gint64 now = g_get_monotonic_time ();
  const char *cached;
  int err;

  if (wf_ssid_cache_lookup (nl->ssids, link->ifindex, link->bssid, now, &cached))
    {
      g_strlcpy (link->ssid, cached, sizeof link->ssid);
      return;
    }
  err = wf_nl80211_transact (nl, NL80211_CMD_GET_SCAN, NLM_F_DUMP, link->ifindex,
                             on_bss, &r);
  if (err < 0)
    {
      g_autofree char *text = g_strdup_printf ("nl80211 GET_SCAN on %s: %s: reports carry "
                                               "no SSID", link->name, nl_geterror (err));

      /* Said once per distinct failure, not once per period. */
      if (g_strcmp0 (text, nl->ssid_error) != 0)
        g_message ("%s", text);
      g_free (nl->ssid_error);
      nl->ssid_error = g_steal_pointer (&text);
      wf_ssid_cache_store (nl->ssids, link->ifindex, link->bssid, NULL, now);
      return;
    }
  g_clear_pointer (&nl->ssid_error, g_free);
  wf_ssid_cache_store (nl->ssids, link->ifindex, link->bssid,
                       r.bss_score > 0 ? bss.ssid : NULL, now);
  if (r.bss_score > 0)
    g_strlcpy (link->ssid, bss.ssid, sizeof link->ssid);
}

/* The station entry of a managed-mode interface; none when not associated. */
static gboolean
fill_station (WfNl80211 *nl, WfWifiLink *link, GError **error)
{
  Reply r = { .sta = &link->sta, .mac = link->bssid };
  int err;

  if (!link->is_station)
    return TRUE;
  err = wf_nl80211_transact (nl, NL80211_CMD_GET_STATION, NLM_F_DUMP, link->ifindex,
                             on_station, &r);
  if (err < 0 && err != -NLE_NODEV)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211 GET_STATION on %s: %s",
                   link->name, nl_geterror (err));
      return FALSE;
    }
  link->connected = r.got;
  if (!r.got)
    {
      memset (&link->sta, 0, sizeof link->sta);
      memset (link->bssid, 0, sizeof link->bssid);
      wf_ssid_cache_forget (nl->ssids, link->ifindex);
    }
  else if (link->ssid[0] == '\0')
    ssid_from_bss (nl, link);
  return TRUE;
}

gboolean
wf_nl80211_dump (WfNl80211 *nl, GArray *out_links, GError **error)
{
  Reply r = { .links = out_links };
  guint first = out_links->len;
  int err = wf_nl80211_transact (nl, NL80211_CMD_GET_INTERFACE, NLM_F_DUMP, 0,
                                 on_interface, &r);

  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211 GET_INTERFACE: %s",
                   nl_geterror (err));
      return FALSE;
    }
  for (guint i = first; i < out_links->len; i++)
    if (!fill_station (nl, &g_array_index (out_links, WfWifiLink, i), error))
      return FALSE;
  /* Interfaces that are gone take their cached SSID with them. */
  {
    GHashTableIter it;
    gpointer key;

    g_hash_table_iter_init (&it, nl->ssids->by_ifindex);
    while (g_hash_table_iter_next (&it, &key, NULL))
      {
        gboolean present = FALSE;

        for (guint i = first; i < out_links->len && !present; i++)
          present = g_array_index (out_links, WfWifiLink, i).ifindex == GPOINTER_TO_INT (key);
        if (!present)
          g_hash_table_iter_remove (&it);
      }
  }
  return TRUE;
}

gboolean
wf_nl80211_get_link (WfNl80211 *nl, int ifindex, WfWifiLink *out, GError **error)
{
  Reply r = { .one = out };
  int err = wf_nl80211_transact (nl, NL80211_CMD_GET_INTERFACE, 0, ifindex,
                                 on_interface, &r);

  if (err < 0 || !r.got)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "interface %d: %s", ifindex,
                   err == -NLE_NODEV || err == -NLE_OPNOTSUPP || err >= 0
                   ? "not a wireless interface" : nl_geterror (err));
      return FALSE;
    }
  return fill_station (nl, out, error);
}
