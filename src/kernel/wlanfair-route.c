/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which interface a flow takes, asked of the kernel's FIB (RTM_GETROUTE
 * with RTA_DST, as `ip route get` does), and default gateways from a
 * route dump. */
#include "wlanfair-route.h"

#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>

#include "wlanfair-error.h"

struct _WfRoute {
  struct nl_sock *sk;
  GHashTable     *egress; /* address text → ifindex (0: no route) */
};

typedef struct {
  int   ifindex;        /* lookup: RTA_OIF; gateway: wanted oif */
  int   family;
  char *gw;             /* gateway: result */
  gsize gw_size;
  gboolean found;
} Lookup;

/* A cache that grows with every destination ever seen would leak on a
 * busy host: start over past this many. */
#define EGRESS_CACHE_MAX 65536

gboolean
wf_route_parse_endpoint (const char *endpoint, int *family, void *addr, guint16 *port)
{
  char host[INET6_ADDRSTRLEN + 1];
  const char *end = NULL;
  const char *start = endpoint;
  gsize len;

  *port = 0;
  if (endpoint[0] == '[')
    {
      start = endpoint + 1;
      end = strchr (start, ']');
      if (end == NULL)
        return FALSE;
      if (end[1] == ':')
        *port = (guint16) g_ascii_strtoull (end + 2, NULL, 10);
    }
  else
    {
      const char *colon = strchr (endpoint, ':');

      /* Exactly one colon: IPv4 with a port; more: a bare IPv6 address. */
      if (colon && strchr (colon + 1, ':') == NULL)
        {
          end = colon;
          *port = (guint16) g_ascii_strtoull (colon + 1, NULL, 10);
        }
      else
        end = endpoint + strlen (endpoint);
    }
  len = (gsize) (end - start);
  if (len == 0 || len >= sizeof host)
    return FALSE;
  memcpy (host, start, len);
  host[len] = '\0';
  if (inet_pton (AF_INET, host, addr) == 1)
    *family = AF_INET;
  else if (inet_pton (AF_INET6, host, addr) == 1)
    {
      *family = AF_INET6;
      /* An IPv6 socket talking IPv4 (::ffff:a.b.c.d) is routed as IPv4. */
      if (IN6_IS_ADDR_V4MAPPED ((struct in6_addr *) addr))
        {
          memmove (addr, (guint8 *) addr + 12, 4);
          *family = AF_INET;
        }
    }
  else
    return FALSE;
  return TRUE;
}

WfRoute *
wf_route_new (GError **error)
{
  WfRoute *route = g_new0 (WfRoute, 1);
  int err;

  route->sk = nl_socket_alloc ();
  if (route->sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      g_free (route);
      return NULL;
    }
  err = nl_connect (route->sk, NETLINK_ROUTE);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: %s", nl_geterror (err));
      nl_socket_free (route->sk);
      g_free (route);
      return NULL;
    }
  /* One reply per request, no ACK after it: an ACK left unread would be
   * taken for the next request's answer. */
  nl_socket_disable_auto_ack (route->sk);
  route->egress = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return route;
}

void
wf_route_free (WfRoute *route)
{
  if (route == NULL)
    return;
  nl_socket_free (route->sk);
  g_hash_table_unref (route->egress);
  g_free (route);
}

void
wf_route_flush (WfRoute *route)
{
  g_hash_table_remove_all (route->egress);
}

static int
on_route (struct nl_msg *msg, void *data)
{
  Lookup *l = data;
  struct nlmsghdr *hdr = nlmsg_hdr (msg);
  struct rtmsg *rtm = nlmsg_data (hdr);
  struct nlattr *tb[RTA_MAX + 1];

  if (hdr->nlmsg_type != RTM_NEWROUTE || nlmsg_datalen (hdr) < (int) sizeof *rtm ||
      nlmsg_parse (hdr, sizeof *rtm, tb, RTA_MAX, NULL) < 0)
    return NL_SKIP;

  if (l->gw == NULL)
    {
      /* RTM_GETROUTE for one destination: its output interface. */
      if (tb[RTA_OIF] && nla_len (tb[RTA_OIF]) >= 4)
        l->ifindex = (int) nla_get_u32 (tb[RTA_OIF]);
      l->found = TRUE;
      return NL_OK;
    }

  /* A dump: the main table's default route through our interface. */
  if (l->found || rtm->rtm_family != l->family || rtm->rtm_dst_len != 0 ||
      rtm->rtm_type != RTN_UNICAST || tb[RTA_GATEWAY] == NULL ||
      tb[RTA_OIF] == NULL || (int) nla_get_u32 (tb[RTA_OIF]) != l->ifindex)
    return NL_OK;
  if (tb[RTA_TABLE] ? nla_get_u32 (tb[RTA_TABLE]) != RT_TABLE_MAIN
                    : rtm->rtm_table != RT_TABLE_MAIN)
    return NL_OK;
  if (nla_len (tb[RTA_GATEWAY]) >= (l->family == AF_INET ? 4 : 16) &&
      inet_ntop (l->family, nla_data (tb[RTA_GATEWAY]), l->gw, (socklen_t) l->gw_size))
    l->found = TRUE;
  return NL_OK;
}

static int
request (WfRoute *route, struct nl_msg *msg, Lookup *l)
{
  int err;

  nl_socket_modify_cb (route->sk, NL_CB_VALID, NL_CB_CUSTOM, on_route, l);
  err = nl_send_auto (route->sk, msg);
  if (err >= 0)
    err = nl_recvmsgs_default (route->sk);
  return err;
}

int
wf_route_egress (WfRoute *route, const char *endpoint)
{
  guint8 addr[16];
  char key[INET6_ADDRSTRLEN];
  int family;
  guint16 port;
  gpointer cached;
  struct rtmsg rtm = { 0 };
  struct nl_msg *msg;
  Lookup l = { 0 };

  if (!wf_route_parse_endpoint (endpoint, &family, addr, &port))
    return 0;
  inet_ntop (family, addr, key, sizeof key);
  if (g_hash_table_lookup_extended (route->egress, key, NULL, &cached))
    return GPOINTER_TO_INT (cached);

  rtm.rtm_family = family;
  rtm.rtm_dst_len = family == AF_INET ? 32 : 128;
  msg = nlmsg_alloc_simple (RTM_GETROUTE, NLM_F_REQUEST);
  if (msg == NULL)
    return 0;
  if (nlmsg_append (msg, &rtm, sizeof rtm, NLMSG_ALIGNTO) >= 0 &&
      nla_put (msg, RTA_DST, family == AF_INET ? 4 : 16, addr) >= 0)
    request (route, msg, &l); /* no route (ENETUNREACH): ifindex stays 0 */
  nlmsg_free (msg);

  if (g_hash_table_size (route->egress) >= EGRESS_CACHE_MAX)
    g_hash_table_remove_all (route->egress);
  g_hash_table_insert (route->egress, g_strdup (key), GINT_TO_POINTER (l.ifindex));
  return l.ifindex;
}

gboolean
wf_route_default_gateway (WfRoute *route, int ifindex, int family,
                          char *out, gsize out_size, GError **error)
{
  struct rtmsg rtm = { .rtm_family = family };
  struct nl_msg *msg = nlmsg_alloc_simple (RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP);
  Lookup l = { .ifindex = ifindex, .family = family, .gw = out, .gw_size = out_size };
  int err = -NLE_NOMEM;

  if (msg && nlmsg_append (msg, &rtm, sizeof rtm, NLMSG_ALIGNTO) >= 0)
    err = request (route, msg, &l);
  nlmsg_free (msg);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink route dump: %s",
                   nl_geterror (err));
      return FALSE;
    }
  if (!l.found)
    g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "no %s default route through interface %d",
                 family == AF_INET ? "IPv4" : "IPv6", ifindex);
  return l.found;
}
