/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The neighbour table from one rtnetlink dump (RTM_GETNEIGH, all
 * families): IP address -> MAC, per interface. */
#include "wlanfair-neigh.h"

#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>

#include "wlanfair-error.h"

gboolean
wf_neigh_parse (struct nlmsghdr *nlh, WfNeigh *out)
{
  struct nlattr *tb[NDA_MAX + 1];
  const struct ndmsg *ndm;
  const guint8 *mac;
  int addr_len;

  if (nlh->nlmsg_type != RTM_NEWNEIGH || nlmsg_datalen (nlh) < (int) sizeof *ndm ||
      nlmsg_parse (nlh, sizeof *ndm, tb, NDA_MAX, NULL) < 0)
    return FALSE;
  ndm = nlmsg_data (nlh);
  if (ndm->ndm_family == AF_INET)
    addr_len = 4;
  else if (ndm->ndm_family == AF_INET6)
    addr_len = 16;
  else
    return FALSE;   /* AF_BRIDGE (the FDB) and others: no IP address */
  /* No answer (yet): the MAC, if any, is a stale or zero one. */
  if (ndm->ndm_state & (NUD_FAILED | NUD_INCOMPLETE))
    return FALSE;
  if (tb[NDA_DST] == NULL || nla_len (tb[NDA_DST]) != addr_len ||
      tb[NDA_LLADDR] == NULL || nla_len (tb[NDA_LLADDR]) != 6)
    return FALSE;
  mac = nla_data (tb[NDA_LLADDR]);
  /* The kernel keeps multicast mappings (33:33:..., 01:00:5e:...) as
   * NOARP entries: group addresses, no host behind them. */
  if (mac[0] & 0x01)
    return FALSE;

  memset (out, 0, sizeof *out);
  out->ifindex = ndm->ndm_ifindex;
  out->family = ndm->ndm_family;
  memcpy (out->addr, nla_data (tb[NDA_DST]), (gsize) addr_len);
  memcpy (out->mac, mac, 6);
  out->state = ndm->ndm_state;
  return TRUE;
}

typedef struct {
  GArray *out;
  int     ifindex;   /* neighbours: the interface (0: all); FDB: the bridge */
} Dump;

static int
on_neigh (struct nl_msg *msg, void *data)
{
  Dump *d = data;
  WfNeigh n;

  if (wf_neigh_parse (nlmsg_hdr (msg), &n) && (d->ifindex == 0 || n.ifindex == d->ifindex))
    g_array_append_val (d->out, n);
  return NL_OK;
}

static int
on_fdb (struct nl_msg *msg, void *data)
{
  Dump *d = data;
  WfFdbEntry e;

  if (wf_neigh_fdb_parse (nlmsg_hdr (msg), d->ifindex, &e))
    g_array_append_val (d->out, e);
  return NL_OK;
}

/* One RTM_GETNEIGH dump of `family`, each message to `cb`. */
static gboolean
neigh_dump (guint8 family, nl_recvmsg_msg_cb_t cb, Dump *d, const char *what,
            GError **error)
{
  struct nl_sock *sk = nl_socket_alloc ();
  struct ndmsg ndm = { .ndm_family = family };
  guint first = d->out->len;
  int err;

  if (sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      return FALSE;
    }
  /* A dump ends with DONE; an ACK would be one more message to read. */
  nl_socket_disable_auto_ack (sk);
  err = nl_connect (sk, NETLINK_ROUTE);
  if (err >= 0)
    err = nl_send_simple (sk, RTM_GETNEIGH, NLM_F_DUMP, &ndm, sizeof ndm);
  if (err >= 0)
    {
      nl_socket_modify_cb (sk, NL_CB_VALID, NL_CB_CUSTOM, cb, d);
      err = nl_recvmsgs_default (sk);
    }
  nl_socket_free (sk);
  if (err < 0)
    {
      g_array_set_size (d->out, first);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink %s dump: %s", what,
                   nl_geterror (err));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_neigh_dump (int ifindex, GArray *out, GError **error)
{
  Dump d = { .out = out, .ifindex = ifindex };

  return neigh_dump (AF_UNSPEC, on_neigh, &d, "neighbour", error);
}

gboolean
wf_neigh_fdb_parse (struct nlmsghdr *nlh, int bridge, WfFdbEntry *out)
{
  struct nlattr *tb[NDA_MAX + 1];
  const struct ndmsg *ndm;
  const guint8 *mac;

  if (nlh->nlmsg_type != RTM_NEWNEIGH || nlmsg_datalen (nlh) < (int) sizeof *ndm ||
      nlmsg_parse (nlh, sizeof *ndm, tb, NDA_MAX, NULL) < 0)
    return FALSE;
  ndm = nlmsg_data (nlh);
  if (ndm->ndm_family != AF_BRIDGE)
    return FALSE;
  /* NTF_SELF entries are a device's own table (a veth's or a NIC's
   * unicast filter), not what the bridge learned; permanent ones are
   * the ports' own addresses. */
  if ((ndm->ndm_flags & NTF_SELF) || (ndm->ndm_state & NUD_PERMANENT))
    return FALSE;
  if (tb[NDA_MASTER] == NULL || nla_len (tb[NDA_MASTER]) != 4 ||
      (int) nla_get_u32 (tb[NDA_MASTER]) != bridge)
    return FALSE;
  if (tb[NDA_LLADDR] == NULL || nla_len (tb[NDA_LLADDR]) != 6)
    return FALSE;
  mac = nla_data (tb[NDA_LLADDR]);
  if (mac[0] & 0x01)
    return FALSE;
  memset (out, 0, sizeof *out);
  out->port = ndm->ndm_ifindex;
  memcpy (out->mac, mac, 6);
  out->state = ndm->ndm_state;
  return TRUE;
}

gboolean
wf_neigh_fdb_dump (int bridge, GArray *out, GError **error)
{
  Dump d = { .out = out, .ifindex = bridge };

  return neigh_dump (AF_BRIDGE, on_fdb, &d, "bridge FDB", error);
}

const WfNeigh *
wf_neigh_lookup_mac (GArray *neighs, int ifindex, int family, const guint8 *addr)
{
  gsize len = family == AF_INET ? 4 : 16;

  for (guint i = 0; i < neighs->len; i++)
    {
      const WfNeigh *n = &g_array_index (neighs, WfNeigh, i);

      if (n->family == family && (ifindex == 0 || n->ifindex == ifindex) &&
          memcmp (n->addr, addr, len) == 0)
        return n;
    }
  return NULL;
}

/* 0: IPv4, 1: IPv6, 2: IPv6 link-local (fe80::/10). */
static int
addr_rank (const WfNeigh *n)
{
  if (n->family == AF_INET)
    return 0;
  return (n->addr[0] == 0xfe && (n->addr[1] & 0xc0) == 0x80) ? 2 : 1;
}

guint
wf_neigh_addrs_for_mac (GArray *neighs, int ifindex, const guint8 *mac,
                        const WfNeigh **out, guint max)
{
  guint found = 0;

  /* One pass per rank keeps the table's order within a rank. */
  for (int rank = 0; rank <= 2; rank++)
    for (guint i = 0; i < neighs->len; i++)
      {
        const WfNeigh *n = &g_array_index (neighs, WfNeigh, i);

        if (addr_rank (n) != rank || memcmp (n->mac, mac, 6) != 0 ||
            (ifindex != 0 && n->ifindex != ifindex))
          continue;
        if (found < max)
          out[found] = n;
        found++;
      }
  return found;
}
