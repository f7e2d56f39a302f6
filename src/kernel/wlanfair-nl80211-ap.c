/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The station table of an access point from nl80211 (GET_STATION dump:
 * signal, rates, bytes, packets, retries, airtime) and its NEW_STATION /
 * DEL_STATION events from the "mlme" multicast group, fed to a GLib main
 * context. As `iw dev AP station dump` and `iw event` read them. */
#include "wlanfair-nl80211-ap.h"

#include <glib-unix.h>
#include <linux/nl80211.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-nl80211-socket.h"
#include "wlanfair-nlattr.h"

/* The 64-bit counter when there is one (kernels since 4.0 send both),
 * else the 32-bit one, flagged: it wraps at 4 GiB. */
static void
get_bytes (struct nlattr *a64, struct nlattr *a32, gboolean *has, guint64 *out,
           gboolean *is_32bit)
{
  guint32 v32;

  if (wf_nla_u64 (a64, out))
    *has = TRUE;
  else if (wf_nla_u32 (a32, &v32))
    {
      *has = *is_32bit = TRUE;
      *out = v32;
    }
}

gboolean
wf_nl80211_parse_ap_station (struct nlattr **tb, WfApStation *out)
{
  struct nlattr *sb[NL80211_STA_INFO_MAX + 1];
  guint32 ifindex;

  memset (out, 0, sizeof *out);
  if (tb[NL80211_ATTR_MAC] == NULL || nla_len (tb[NL80211_ATTR_MAC]) < 6 ||
      tb[NL80211_ATTR_STA_INFO] == NULL ||
      nla_parse_nested (sb, NL80211_STA_INFO_MAX, tb[NL80211_ATTR_STA_INFO], NULL) < 0)
    return FALSE;
  memcpy (out->mac, nla_data (tb[NL80211_ATTR_MAC]), 6);
  if (wf_nla_u32 (tb[NL80211_ATTR_IFINDEX], &ifindex))
    out->ifindex = (int) ifindex;

  wf_nl80211_parse_station (tb, &out->sta, NULL);
  get_bytes (sb[NL80211_STA_INFO_RX_BYTES64], sb[NL80211_STA_INFO_RX_BYTES],
             &out->has_rx_bytes, &out->rx_bytes, &out->rx_bytes_32bit);
  get_bytes (sb[NL80211_STA_INFO_TX_BYTES64], sb[NL80211_STA_INFO_TX_BYTES],
             &out->has_tx_bytes, &out->tx_bytes, &out->tx_bytes_32bit);
  out->has_rx_packets = wf_nla_u32 (sb[NL80211_STA_INFO_RX_PACKETS], &out->rx_packets);
  out->has_tx_packets = wf_nla_u32 (sb[NL80211_STA_INFO_TX_PACKETS], &out->tx_packets);
  out->has_inactive = wf_nla_u32 (sb[NL80211_STA_INFO_INACTIVE_TIME], &out->inactive_ms);
  out->has_connected = wf_nla_u32 (sb[NL80211_STA_INFO_CONNECTED_TIME], &out->connected_s);
  out->has_tx_duration = wf_nla_u64 (sb[NL80211_STA_INFO_TX_DURATION], &out->tx_duration_us);
  out->has_rx_duration = wf_nla_u64 (sb[NL80211_STA_INFO_RX_DURATION], &out->rx_duration_us);
  out->has_airtime_weight = wf_nla_u16 (sb[NL80211_STA_INFO_AIRTIME_WEIGHT], &out->airtime_weight);

  /* struct nl80211_sta_flag_update: `mask` says which flags the driver
   * knows, `set` which of those are on. */
  if (sb[NL80211_STA_INFO_STA_FLAGS] &&
      nla_len (sb[NL80211_STA_INFO_STA_FLAGS]) >= (int) sizeof (struct nl80211_sta_flag_update))
    {
      struct nl80211_sta_flag_update f;

      memcpy (&f, nla_data (sb[NL80211_STA_INFO_STA_FLAGS]), sizeof f);
      out->has_authorized = (f.mask & (1u << NL80211_STA_FLAG_AUTHORIZED)) != 0;
      out->authorized = out->has_authorized && (f.set & (1u << NL80211_STA_FLAG_AUTHORIZED));
      out->has_associated = (f.mask & (1u << NL80211_STA_FLAG_ASSOCIATED)) != 0;
      out->associated = out->has_associated && (f.set & (1u << NL80211_STA_FLAG_ASSOCIATED));
    }
  return TRUE;
}

/* ---- the station dump ------------------------------------------------ */

typedef struct {
  GArray *out;
  int     ifindex;
} Dump;

static int
on_ap_station (struct nl_msg *msg, void *data)
{
  Dump *d = data;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  WfApStation sta;

  if (genlmsg_parse (nlmsg_hdr (msg), 0, tb, NL80211_ATTR_MAX, NULL) < 0 ||
      !wf_nl80211_parse_ap_station (tb, &sta))
    return NL_SKIP;
  if (sta.ifindex == 0)
    sta.ifindex = d->ifindex;
  g_array_append_val (d->out, sta);
  return NL_OK;
}

gboolean
wf_nl80211_ap_dump (WfNl80211 *nl, int ifindex, GArray *out, GError **error)
{
  Dump d = { .out = out, .ifindex = ifindex };
  guint first = out->len;
  int err;

  g_return_val_if_fail (ifindex > 0, FALSE);
  err = wf_nl80211_transact (nl, NL80211_CMD_GET_STATION, NLM_F_DUMP, ifindex,
                             on_ap_station, &d);
  if (err < 0)
    {
      /* Half a table would read as stations that left. */
      g_array_set_size (out, first);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211 GET_STATION on interface %d: %s",
                   ifindex, err == -NLE_NODEV ? "not a wireless interface" : nl_geterror (err));
      return FALSE;
    }
  return TRUE;
}

/* ---- station events -------------------------------------------------- */

gboolean
wf_nl80211_ap_event_parse (struct nlmsghdr *nlh, int *ifindex, guint8 mac[6], gboolean *added)
{
  struct genlmsghdr *gnlh;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  guint32 v;

  if (!genlmsg_valid_hdr (nlh, 0))
    return FALSE;
  gnlh = nlmsg_data (nlh);
  if (gnlh->cmd != NL80211_CMD_NEW_STATION && gnlh->cmd != NL80211_CMD_DEL_STATION)
    return FALSE;
  if (nla_parse (tb, NL80211_ATTR_MAX, genlmsg_attrdata (gnlh, 0),
                 genlmsg_attrlen (gnlh, 0), NULL) < 0)
    return FALSE;
  if (!wf_nla_u32 (tb[NL80211_ATTR_IFINDEX], &v) ||
      tb[NL80211_ATTR_MAC] == NULL || nla_len (tb[NL80211_ATTR_MAC]) < 6)
    return FALSE;
  *ifindex = (int) v;
  memcpy (mac, nla_data (tb[NL80211_ATTR_MAC]), 6);
  *added = gnlh->cmd == NL80211_CMD_NEW_STATION;
  return TRUE;
}

struct _WfNl80211ApEvents {
  WfNl80211Socket       nl;
  GSource              *source;
  WfNl80211ApEventFunc  func;
  gpointer              user_data;
};

static int
on_event (struct nl_msg *msg, void *arg)
{
  WfNl80211ApEvents *ev = arg;
  struct nlmsghdr *nlh = nlmsg_hdr (msg);
  guint8 mac[6];
  gboolean added;
  int ifindex;

  /* Command numbers are per family: only nl80211's own messages. */
  if (nlh->nlmsg_type == ev->nl.family &&
      wf_nl80211_ap_event_parse (nlh, &ifindex, mac, &added))
    ev->func (ifindex, mac, added, ev->user_data);
  return NL_OK;
}

static gboolean
on_readable (int fd, GIOCondition cond, gpointer user_data)
{
  WfNl80211ApEvents *ev = user_data;
  int err;

  /* Non-blocking; the source fires again while more is queued. ENOBUFS
   * (an overrun) only loses events, which the next dump makes good. */
  err = nl_recvmsgs_default (ev->nl.sk);
  if (err < 0 && err != -NLE_AGAIN)
    g_debug ("nl80211 station events: %s", nl_geterror (err));
  return G_SOURCE_CONTINUE;
}

WfNl80211ApEvents *
wf_nl80211_ap_events_new (GMainContext *ctx, WfNl80211ApEventFunc func, gpointer user_data,
                          GError **error)
{
  g_autofree WfNl80211ApEvents *ev = g_new0 (WfNl80211ApEvents, 1);
  int err, grp;

  if (!wf_nl80211_socket_open (&ev->nl, error))
    return NULL;
  grp = genl_ctrl_resolve_grp (ev->nl.sk, NL80211_GENL_NAME, NL80211_MULTICAST_GROUP_MLME);
  if (grp < 0 || (err = nl_socket_add_membership (ev->nl.sk, grp)) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211: cannot join the %s group",
                   NL80211_MULTICAST_GROUP_MLME);
      wf_nl80211_socket_close (&ev->nl);
      return NULL;
    }
  ev->func = func;
  ev->user_data = user_data;
  /* Events carry no sequence numbers. */
  nl_socket_disable_seq_check (ev->nl.sk);
  nl_socket_modify_cb (ev->nl.sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, ev);
  nl_socket_set_nonblocking (ev->nl.sk);
  nl_socket_set_buffer_size (ev->nl.sk, 256 * 1024, 0);
  ev->source = g_unix_fd_source_new (nl_socket_get_fd (ev->nl.sk), G_IO_IN);
  g_source_set_callback (ev->source, G_SOURCE_FUNC (on_readable), ev, NULL);
  g_source_set_static_name (ev->source, "wlanfair nl80211 station events");
  g_source_attach (ev->source, ctx);
  return g_steal_pointer (&ev);
}

void
wf_nl80211_ap_events_free (WfNl80211ApEvents *ev)
{
  if (ev == NULL)
    return;
  if (ev->source)
    {
      g_source_destroy (ev->source);
      g_source_unref (ev->source);
    }
  wf_nl80211_socket_close (&ev->nl);
  g_free (ev);
}
