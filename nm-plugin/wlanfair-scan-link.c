/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counters of one interface by name, over a socket kept open. */
#include "config.h"

/* net/if.h (through linkstats.h) before linux/if.h, as libc-compat wants. */
#include "wlanfair-scan-link.h"

#include <gio/gio.h>
#include <linux/if.h>
#include <netlink/route/link.h>
#include <string.h>

#include "wlanfair-error.h"

struct _WfScanLink {
  struct nl_sock *sock;
};

WfScanLink *
wf_scan_link_new (GError **error)
{
  WfScanLink *l = g_new0 (WfScanLink, 1);
  int err = 0;

  l->sock = nl_socket_alloc ();
  if (!l->sock || (err = nl_connect (l->sock, NETLINK_ROUTE)) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: %s",
                   l->sock ? nl_geterror (err) : "out of memory");
      wf_scan_link_free (l);
      return NULL;
    }
  return l;
}

void
wf_scan_link_free (WfScanLink *l)
{
  if (!l)
    return;
  if (l->sock)
    nl_socket_free (l->sock);
  g_free (l);
}

gboolean
wf_scan_link_read (WfScanLink *l, const char *ifname, WfLinkStats *s, GError **error)
{
  struct rtnl_link *link = NULL;
  int err = rtnl_link_get_kernel (l->sock, 0, ifname, &link);
  guint8 oper;

  if (err < 0)
    {
      if (err == -NLE_NODEV || err == -NLE_OBJ_NOTFOUND)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no such interface", ifname);
      else
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink %s: %s", ifname, nl_geterror (err));
      return FALSE;
    }
  memset (s, 0, sizeof *s);
  oper = rtnl_link_get_operstate (link);
  s->ifindex = rtnl_link_get_ifindex (link);
  g_strlcpy (s->name, ifname, sizeof s->name);
  s->up = (rtnl_link_get_flags (link) & IFF_UP) && (oper == IF_OPER_UP || oper == IF_OPER_UNKNOWN);
  s->rx_bytes = rtnl_link_get_stat (link, RTNL_LINK_RX_BYTES);
  s->tx_bytes = rtnl_link_get_stat (link, RTNL_LINK_TX_BYTES);
  s->rx_packets = rtnl_link_get_stat (link, RTNL_LINK_RX_PACKETS);
  s->tx_packets = rtnl_link_get_stat (link, RTNL_LINK_TX_PACKETS);
  s->rx_errors = rtnl_link_get_stat (link, RTNL_LINK_RX_ERRORS);
  s->tx_errors = rtnl_link_get_stat (link, RTNL_LINK_TX_ERRORS);
  s->rx_dropped = rtnl_link_get_stat (link, RTNL_LINK_RX_DROPPED);
  s->tx_dropped = rtnl_link_get_stat (link, RTNL_LINK_TX_DROPPED);
  rtnl_link_put (link);
  return TRUE;
}
