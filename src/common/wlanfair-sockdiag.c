/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TCP sockets with tcp_info and their congestion control, through
 * NETLINK_SOCK_DIAG (libnl for the socket and attribute parsing). */
#include "wlanfair-sockdiag.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-error.h"

typedef struct {
  WfSockdiagFunc func;
  gpointer       user_data;
  gboolean       stopped;
} Dump;

static void
format_endpoint (char *out, gsize size, int family, const __be32 *addr, __be16 port)
{
  char text[INET6_ADDRSTRLEN];

  inet_ntop (family, addr, text, sizeof text);
  if (family == AF_INET6)
    g_snprintf (out, size, "[%s]:%u", text, ntohs (port));
  else
    g_snprintf (out, size, "%s:%u", text, ntohs (port));
}

static int
on_msg (struct nl_msg *msg, void *data)
{
  Dump *dump = data;
  struct nlmsghdr *hdr = nlmsg_hdr (msg);
  struct inet_diag_msg *m = nlmsg_data (hdr);
  struct nlattr *tb[INET_DIAG_MAX + 1];
  WfSockdiagTcp sock = { 0 };

  if (dump->stopped || hdr->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
      nlmsg_datalen (hdr) < (int) sizeof *m ||
      nlmsg_parse (hdr, sizeof *m, tb, INET_DIAG_MAX, NULL) < 0)
    return NL_OK;

  sock.family = m->idiag_family;
  sock.state = m->idiag_state;
  sock.ifindex = m->id.idiag_if;
  sock.uid = m->idiag_uid;
  sock.inode = m->idiag_inode;
  format_endpoint (sock.src, sizeof sock.src, m->idiag_family, m->id.idiag_src, m->id.idiag_sport);
  format_endpoint (sock.dst, sizeof sock.dst, m->idiag_family, m->id.idiag_dst, m->id.idiag_dport);
  if (tb[INET_DIAG_CONG])
    g_strlcpy (sock.cong, nla_data (tb[INET_DIAG_CONG]),
               MIN (sizeof sock.cong, (gsize) nla_len (tb[INET_DIAG_CONG]) + 1));
  if (tb[INET_DIAG_INFO])
    sock.have_info = wf_tcpinfo_decode (nla_data (tb[INET_DIAG_INFO]),
                                        nla_len (tb[INET_DIAG_INFO]), &sock.info);
  if (!dump->func (&sock, dump->user_data))
    dump->stopped = TRUE;
  return NL_OK;
}

static gboolean
dump_family (struct nl_sock *sk, int family, Dump *dump, GError **error)
{
  struct inet_diag_req_v2 req = {
    .sdiag_family = family,
    .sdiag_protocol = IPPROTO_TCP,
    .idiag_states = ~0u & ~(1u << 10 /* TCP_LISTEN */),
    .idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1)),
  };
  struct nl_msg *msg = nlmsg_alloc_simple (SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP);
  int err;

  if (msg == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      return FALSE;
    }
  err = nlmsg_append (msg, &req, sizeof req, NLMSG_ALIGNTO);
  if (err >= 0)
    err = nl_send_auto (sk, msg);
  nlmsg_free (msg);
  if (err >= 0)
    err = nl_recvmsgs_default (sk);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "sock_diag dump: %s", nl_geterror (err));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_sockdiag_dump_tcp (WfSockdiagFunc func, gpointer user_data, GError **error)
{
  Dump dump = { func, user_data, FALSE };
  struct nl_sock *sk = nl_socket_alloc ();
  gboolean ok;
  int err;

  if (sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      return FALSE;
    }
  nl_socket_modify_cb (sk, NL_CB_VALID, NL_CB_CUSTOM, on_msg, &dump);
  err = nl_connect (sk, NETLINK_SOCK_DIAG);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "sock_diag: %s", nl_geterror (err));
      nl_socket_free (sk);
      return FALSE;
    }
  /* Big dumps arrive in many datagrams; libnl reassembles them. */
  nl_socket_set_msg_buf_size (sk, 64 * 1024);
  ok = dump_family (sk, AF_INET, &dump, error) &&
       dump_family (sk, AF_INET6, &dump, error);
  nl_socket_free (sk);
  return ok;
}
