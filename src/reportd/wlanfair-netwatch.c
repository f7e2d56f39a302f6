/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Link, address and route changes: the reporter looks routes and the
 * default gateway up again instead of restarting. */
#include "wlanfair-netwatch.h"

#include <glib-unix.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "wlanfair-error.h"

struct _WfNetwatch {
  struct nl_sock *sk;
  guint           source;
  WfNetwatchFunc  func;
  gpointer        data;
  gboolean        links;
};

static int
seen (struct nl_msg *msg, void *data)
{
  WfNetwatch *nw = data;
  int type = nlmsg_hdr (msg)->nlmsg_type;

  if (type == RTM_NEWLINK || type == RTM_DELLINK)
    nw->links = TRUE;
  return NL_OK;
}

static gboolean
readable (int fd, GIOCondition cond, gpointer data)
{
  WfNetwatch *nw = data;
  int err;

  /* Drain everything; what changed does not matter, only that it did
   * and whether a link was among it (the reporter pauses on that). */
  nw->links = FALSE;
  do
    err = nl_recvmsgs_default (nw->sk);
  while (err >= 0);
  /* An overrun (ENOBUFS) lost messages: a link may have changed too. */
  if (err != -NLE_AGAIN)
    nw->links = TRUE;
  nw->func (nw->data, nw->links);
  return G_SOURCE_CONTINUE;
}

WfNetwatch *
wf_netwatch_new (WfNetwatchFunc func, gpointer data, GError **error)
{
  WfNetwatch *nw = g_new0 (WfNetwatch, 1);
  int err;

  nw->func = func;
  nw->data = data;
  nw->sk = nl_socket_alloc ();
  if (nw->sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      g_free (nw);
      return NULL;
    }
  nl_socket_disable_seq_check (nw->sk);
  nl_socket_modify_cb (nw->sk, NL_CB_VALID, NL_CB_CUSTOM, seen, nw);
  err = nl_connect (nw->sk, NETLINK_ROUTE);
  if (err >= 0)
    err = nl_socket_add_memberships (nw->sk, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR,
                                     RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE,
                                     RTNLGRP_IPV6_ROUTE, 0);
  if (err >= 0)
    err = nl_socket_set_nonblocking (nw->sk);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink notifications: %s",
                   nl_geterror (err));
      wf_netwatch_free (nw);
      return NULL;
    }
  nw->source = g_unix_fd_add (nl_socket_get_fd (nw->sk), G_IO_IN, readable, nw);
  return nw;
}

void
wf_netwatch_free (WfNetwatch *nw)
{
  if (nw == NULL)
    return;
  if (nw->source)
    g_source_remove (nw->source);
  nl_socket_free (nw->sk);
  g_free (nw);
}
