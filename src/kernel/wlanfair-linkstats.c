/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interface counters from rtnetlink (libnl-route), not /proc or sysfs
 * text: one dump gives every interface's 64-bit counters at one instant. */
#include "wlanfair-linkstats.h"

#include <linux/if.h>
#include <netlink/route/link.h>
#include <string.h>

#include "wlanfair-error.h"

static void
add_link (struct nl_object *obj, void *data)
{
  struct rtnl_link *link = (struct rtnl_link *) obj;
  GArray *out = data;
  WfLinkStats s = { 0 };
  guint8 oper = rtnl_link_get_operstate (link);

  s.ifindex = rtnl_link_get_ifindex (link);
  g_strlcpy (s.name, rtnl_link_get_name (link) ? rtnl_link_get_name (link) : "", sizeof s.name);
  s.master = rtnl_link_get_master (link);
  s.up = (rtnl_link_get_flags (link) & IFF_UP) &&
         (oper == IF_OPER_UP || oper == IF_OPER_UNKNOWN);
  s.rx_bytes = rtnl_link_get_stat (link, RTNL_LINK_RX_BYTES);
  s.tx_bytes = rtnl_link_get_stat (link, RTNL_LINK_TX_BYTES);
  s.rx_packets = rtnl_link_get_stat (link, RTNL_LINK_RX_PACKETS);
  s.tx_packets = rtnl_link_get_stat (link, RTNL_LINK_TX_PACKETS);
  s.rx_errors = rtnl_link_get_stat (link, RTNL_LINK_RX_ERRORS);
  s.tx_errors = rtnl_link_get_stat (link, RTNL_LINK_TX_ERRORS);
  s.rx_dropped = rtnl_link_get_stat (link, RTNL_LINK_RX_DROPPED);
  s.tx_dropped = rtnl_link_get_stat (link, RTNL_LINK_TX_DROPPED);
  g_array_append_val (out, s);
}

gboolean
wf_linkstats_dump (GArray *out, GError **error)
{
  struct nl_sock *sk = nl_socket_alloc ();
  struct nl_cache *cache = NULL;
  int err;

  if (sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      return FALSE;
    }
  err = nl_connect (sk, NETLINK_ROUTE);
  if (err >= 0)
    err = rtnl_link_alloc_cache (sk, AF_UNSPEC, &cache);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink link dump: %s",
                   nl_geterror (err));
      nl_socket_free (sk);
      return FALSE;
    }
  nl_cache_foreach (cache, add_link, out);
  nl_cache_free (cache);
  nl_socket_free (sk);
  return TRUE;
}

const WfLinkStats *
wf_linkstats_find (GArray *stats, const char *name)
{
  for (guint i = 0; i < stats->len; i++)
    if (g_str_equal (g_array_index (stats, WfLinkStats, i).name, name))
      return &g_array_index (stats, WfLinkStats, i);
  return NULL;
}

/* A counter that went back was reset (driver reload, interface recreated
 * under the same name): count from zero rather than report a wrap. */
static double
rate (guint64 prev, guint64 cur, double seconds, gboolean *reset)
{
  if (cur < prev)
    {
      *reset = TRUE;
      return cur / seconds;
    }
  return (cur - prev) / seconds;
}

void
wf_linkstats_rates (const WfLinkStats *prev,
                    const WfLinkStats *cur,
                    double             seconds,
                    WfLinkRates       *out)
{
  memset (out, 0, sizeof *out);
  if (!(seconds > 0))
    return;
  out->rx_bytes = rate (prev->rx_bytes, cur->rx_bytes, seconds, &out->reset);
  out->tx_bytes = rate (prev->tx_bytes, cur->tx_bytes, seconds, &out->reset);
  out->rx_packets = rate (prev->rx_packets, cur->rx_packets, seconds, &out->reset);
  out->tx_packets = rate (prev->tx_packets, cur->tx_packets, seconds, &out->reset);
  out->rx_errors = rate (prev->rx_errors, cur->rx_errors, seconds, &out->reset);
  out->tx_errors = rate (prev->tx_errors, cur->tx_errors, seconds, &out->reset);
  out->rx_dropped = rate (prev->rx_dropped, cur->rx_dropped, seconds, &out->reset);
  out->tx_dropped = rate (prev->tx_dropped, cur->tx_dropped, seconds, &out->reset);
}
