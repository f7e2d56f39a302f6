/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TCP sockets with tcp_info and their congestion control, through
 * NETLINK_SOCK_DIAG (libnl for the socket and attribute parsing). The
 * replies are read straight from the socket: a dump of 10 000 sockets
 * would otherwise cost one allocation and copy per socket (libnl's
 * nl_msg), and the reporter dumps every second. */
#include "wlanfair-sockdiag.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-error.h"

#define RECV_BUF (64 * 1024)

typedef struct {
  WfSockdiagFunc func;
  gpointer       user_data;
  gboolean       stopped;
  guint8        *buf;
} Dump;

static char *
put_uint (char *p, guint v)
{
  char tmp[12];
  int n = 0;

  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) > 0);
  while (n > 0)
    *p++ = tmp[--n];
  return p;
}

/* "a.b.c.d:port" / "[v6]:port" without printf: formatting two endpoints
 * per socket was a tenth of the reporter's time with many sockets. */
static void
format_endpoint (char *out, gsize size, int family, const __be32 *addr, __be16 port)
{
  char *p = out;

  g_assert (size >= INET6_ADDRSTRLEN + 8);
  if (family == AF_INET)
    {
      const guint8 *b = (const guint8 *) addr;

      for (int i = 0; i < 4; i++)
        {
          p = put_uint (p, b[i]);
          *p++ = i < 3 ? '.' : ':';
        }
    }
  else
    {
      *p++ = '[';
      inet_ntop (family, addr, p, INET6_ADDRSTRLEN);
      p += strlen (p);
      *p++ = ']';
      *p++ = ':';
    }
  p = put_uint (p, ntohs (port));
  *p = '\0';
}

static void
handle (Dump *dump, struct nlmsghdr *hdr)
{
  struct inet_diag_msg *m = NLMSG_DATA (hdr);
  struct nlattr *tb[INET_DIAG_MAX + 1];
  WfSockdiagTcp sock;

  if (dump->stopped || hdr->nlmsg_len < NLMSG_LENGTH (sizeof *m) ||
      nla_parse (tb, INET_DIAG_MAX, (struct nlattr *) (m + 1),
                 (int) (hdr->nlmsg_len - NLMSG_LENGTH (sizeof *m)), NULL) < 0)
    return;

  /* Not `= { 0 }`: tcp_info is decoded into place; only what it skips
   * needs clearing. */
  sock.family = m->idiag_family;
  sock.state = m->idiag_state;
  sock.ifindex = m->id.idiag_if;
  sock.uid = m->idiag_uid;
  sock.inode = m->idiag_inode;
  sock.cookie = (guint64) m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0];
  /* TCP fills it with write_seq - snd_una (0 for TIME-WAIT). */
  sock.wqueue = m->idiag_wqueue;
  format_endpoint (sock.src, sizeof sock.src, m->idiag_family, m->id.idiag_src, m->id.idiag_sport);
  format_endpoint (sock.dst, sizeof sock.dst, m->idiag_family, m->id.idiag_dst, m->id.idiag_dport);
  sock.cong[0] = '\0';
  if (tb[INET_DIAG_CONG])
    g_strlcpy (sock.cong, nla_data (tb[INET_DIAG_CONG]),
               MIN (sizeof sock.cong, (gsize) nla_len (tb[INET_DIAG_CONG]) + 1));
  if (tb[INET_DIAG_INFO])
    sock.have_info = wf_tcpinfo_decode (nla_data (tb[INET_DIAG_INFO]),
                                        nla_len (tb[INET_DIAG_INFO]), &sock.info);
  else
    {
      sock.have_info = FALSE;
      memset (&sock.info, 0, sizeof sock.info);
    }
  if (!dump->func (&sock, dump->user_data))
    dump->stopped = TRUE;
}

/* Sends one request and hands every reply to handle() until DONE.
 * Returns 0 or a negative errno (the kernel's, from NLMSG_ERROR). */
static int
transact (struct nl_sock *sk, int type, const void *req, gsize len, Dump *dump)
{
  struct nl_msg *msg = nlmsg_alloc_simple (type, NLM_F_REQUEST | NLM_F_DUMP);
  int fd = nl_socket_get_fd (sk);
  int err;

  if (msg == NULL)
    return -ENOMEM;
  err = nlmsg_append (msg, (void *) req, len, NLMSG_ALIGNTO);
  if (err >= 0)
    err = nl_send_auto (sk, msg);
  nlmsg_free (msg);
  if (err < 0)
    return -EIO;

  for (;;)
    {
      ssize_t n = recv (fd, dump->buf, RECV_BUF, 0);
      struct nlmsghdr *h;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      if (n == 0)
        return -EPIPE;
      for (h = (struct nlmsghdr *) dump->buf; NLMSG_OK (h, (size_t) n); h = NLMSG_NEXT (h, n))
        {
          if (h->nlmsg_type == NLMSG_DONE)
            return 0;
          if (h->nlmsg_type == NLMSG_ERROR)
            {
              struct nlmsgerr *e = NLMSG_DATA (h);

              return h->nlmsg_len >= NLMSG_LENGTH (sizeof *e) && e->error < 0 ? e->error : -EPROTO;
            }
          if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY || h->nlmsg_type == TCPDIAG_GETSOCK)
            handle (dump, h);
        }
    }
}

gboolean
wf_sockdiag_dump_tcp (WfSockdiagFunc func, gpointer user_data, GError **error)
{
  Dump dump = { func, user_data, FALSE, NULL };
  struct nl_sock *sk = nl_socket_alloc ();
  /* The version 1 request (TCPDIAG_GETSOCK) asks for both address
   * families at once: the kernel walks its TCP hash tables once instead
   * of once per family. */
  struct inet_diag_req v1 = {
    .idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1)),
    .idiag_states = ~0u & ~(1u << 10 /* TCP_LISTEN */),
  };
  int err;

  if (sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      return FALSE;
    }
  err = nl_connect (sk, NETLINK_SOCK_DIAG);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "sock_diag: %s", nl_geterror (err));
      nl_socket_free (sk);
      return FALSE;
    }
  dump.buf = g_malloc (RECV_BUF);
  err = transact (sk, TCPDIAG_GETSOCK, &v1, sizeof v1, &dump);
  if (err == -EINVAL || err == -ENOENT || err == -EOPNOTSUPP)
    {
      /* A kernel without the compatibility request: one dump per family
       * (nothing was delivered before the error). */
      static const int families[] = { AF_INET, AF_INET6 };

      for (int i = 0; i < 2; i++)
        {
          struct inet_diag_req_v2 v2 = {
            .sdiag_family = families[i],
            .sdiag_protocol = IPPROTO_TCP,
            .idiag_states = v1.idiag_states,
            .idiag_ext = v1.idiag_ext,
          };

          err = transact (sk, SOCK_DIAG_BY_FAMILY, &v2, sizeof v2, &dump);
          if (err < 0)
            break;
        }
    }
  g_free (dump.buf);
  nl_socket_free (sk);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "sock_diag dump: %s", g_strerror (-err));
      return FALSE;
    }
  return TRUE;
}
