/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-carried.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib-unix.h>
#include <ifaddrs.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netlink/route/link.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wlanfair-error.h"

#define RECV_BATCH 64
/* The longest IPv4 header (IHL 15) and UDP's: IPv6's is shorter. */
#define HEADROOM (60 + 8)
/* Which interfaces are ours, and this host's addresses, are looked up
 * again after this long: ports join and leave, addresses change. */
#define CACHE_US (2 * G_USEC_PER_SEC)

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

struct _WfApdCarried {
  int            fd;
  guint          watch;
  guint16        port;
  char          *interface;
  WfApdReceiver *receiver;
  guint8        *buf;
  struct nl_sock *nl;
  GHashTable    *ours;        /* ifindex -> 1 ours, 2 not */
  gint64         ours_at;
  GArray        *local;       /* WfApdAddr: this host's addresses */
  gint64         local_at;
  guint64        dropped[WF_APD_FRAME_MALFORMED + 1];
  guint64        local_hits;
};

const char *
wf_apd_frame_kind_name (WfApdFrameKind kind)
{
  switch (kind)
    {
    case WF_APD_FRAME_REPORT: return "report";
    case WF_APD_FRAME_FRAGMENT: return "fragment";
    case WF_APD_FRAME_MALFORMED: return "malformed";
    case WF_APD_FRAME_OTHER: default: return "other";
    }
}

static guint16
be16 (const guint8 *p)
{
  return (guint16) (p[0] << 8 | p[1]);
}

/* The UDP header at `udp` with `avail` bytes of IP payload (as the IP
 * header says) of which `have` are in the buffer. */
static WfApdFrameKind
parse_udp (const guint8 *udp, gsize avail, gsize have, guint16 port, WfApdFrame *out)
{
  gsize ulen;

  if (avail < 8 || have < 8)
    return WF_APD_FRAME_MALFORMED;
  if (be16 (udp + 2) != port)
    return WF_APD_FRAME_OTHER;
  ulen = be16 (udp + 4);
  if (ulen < 8 || ulen > avail)
    return WF_APD_FRAME_MALFORMED;
  out->src_port = be16 (udp);
  out->payload = udp + 8;
  out->payload_len = ulen - 8;
  out->captured = MIN (out->payload_len, have - 8);
  return WF_APD_FRAME_REPORT;
}

WfApdFrameKind
wf_apd_frame_parse (guint16 ethertype, const guint8 *pkt, gsize len, gsize wire_len,
                    guint16 port, WfApdFrame *out)
{
  memset (out, 0, sizeof *out);
  wire_len = MAX (wire_len, len);
  if (ethertype == ETH_P_IP)
    {
      gsize ihl, total;

      if (len < 20 || (pkt[0] >> 4) != 4)
        return WF_APD_FRAME_MALFORMED;
      ihl = (gsize) (pkt[0] & 0x0f) * 4;
      total = be16 (pkt + 2);
      /* total < wire_len: Ethernet pads short frames. */
      if (ihl < 20 || total < ihl || total > wire_len || len < ihl)
        return WF_APD_FRAME_MALFORMED;
      if (pkt[9] != IPPROTO_UDP)
        return WF_APD_FRAME_OTHER;
      /* MF or an offset: a fragment carries a part of a report at most. */
      if (be16 (pkt + 6) & 0x3fff)
        return WF_APD_FRAME_FRAGMENT;
      out->family = AF_INET;
      memcpy (out->src, pkt + 12, 4);
      memcpy (out->dst, pkt + 16, 4);
      return parse_udp (pkt + ihl, total - ihl, MIN (len, total) - ihl, port, out);
    }
  if (ethertype == ETH_P_IPV6)
    {
      gsize plen;

      if (len < 40 || (pkt[0] >> 4) != 6)
        return WF_APD_FRAME_MALFORMED;
      plen = be16 (pkt + 4);
      /* Extension headers (a fragment header among them) are not
       * followed: the reporter sends none. Jumbograms (0) neither. */
      if (pkt[6] != IPPROTO_UDP)
        return WF_APD_FRAME_OTHER;
      if (plen == 0 || 40 + plen > wire_len)
        return WF_APD_FRAME_MALFORMED;
      out->family = AF_INET6;
      memcpy (out->src, pkt + 8, 16);
      memcpy (out->dst, pkt + 24, 16);
      return parse_udp (pkt + 40, plen, MIN (len, 40 + plen) - 40, port, out);
    }
  return WF_APD_FRAME_OTHER;
}

/* ---- the socket ------------------------------------------------------ */

/* Wakes user space only for IPv4/IPv6 UDP to `port` in frames not for
 * this host's MAC (PACKET_OTHERHOST: those addressed to it come through
 * the UDP socket, broadcasts too), and for no IPv4 fragment but the first
 * (the others have no UDP header). Offsets from the network header. */
static gboolean
attach_filter (int fd, guint16 port, GError **error)
{
  /* Jumps count instructions after the next one; DROP is the last. */
  struct sock_filter code[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, (guint32) (SKF_AD_OFF + SKF_AD_PKTTYPE)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, PACKET_OTHERHOST, 0, 15),
    BPF_STMT (BPF_LD | BPF_H | BPF_ABS, (guint32) (SKF_AD_OFF + SKF_AD_PROTOCOL)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 1, 0),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 7, 12),
    /* IPv4 */
    BPF_STMT (BPF_LD | BPF_B | BPF_ABS, 9),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 10),
    BPF_STMT (BPF_LD | BPF_H | BPF_ABS, 6),
    BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 8, 0),
    BPF_STMT (BPF_LDX | BPF_B | BPF_MSH, 0),
    BPF_STMT (BPF_LD | BPF_H | BPF_IND, 2),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, port, 4, 5),
    /* IPv6, no extension headers */
    BPF_STMT (BPF_LD | BPF_B | BPF_ABS, 6),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 3),
    BPF_STMT (BPF_LD | BPF_H | BPF_ABS, 40 + 2),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, 0xffff),
    BPF_STMT (BPF_RET | BPF_K, 0),
  };
  struct sock_fprog prog = { .len = G_N_ELEMENTS (code), .filter = code };

  if (setsockopt (fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "attaching the report filter: %s", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* Is ifindex the interface, or a port of it when it is a bridge? */
static gboolean
is_ours (WfApdCarried *c, int ifindex)
{
  gint64 now = g_get_monotonic_time ();
  gpointer v;
  struct rtnl_link *link = NULL;
  gboolean ours = FALSE;

  if (now - c->ours_at > CACHE_US)
    {
      g_hash_table_remove_all (c->ours);
      c->ours_at = now;
    }
  v = g_hash_table_lookup (c->ours, GINT_TO_POINTER (ifindex));
  if (v)
    return GPOINTER_TO_INT (v) == 1;
  if (rtnl_link_get_kernel (c->nl, ifindex, NULL, &link) == 0)
    {
      const char *name = rtnl_link_get_name (link);
      int master = rtnl_link_get_master (link);
      char mname[IF_NAMESIZE];

      ours = (name && g_str_equal (name, c->interface)) ||
             (master > 0 && if_indextoname ((unsigned) master, mname) &&
              g_str_equal (mname, c->interface));
      rtnl_link_put (link);
    }
  g_hash_table_insert (c->ours, GINT_TO_POINTER (ifindex), GINT_TO_POINTER (ours ? 1 : 2));
  return ours;
}

static void
local_refresh (WfApdCarried *c)
{
  struct ifaddrs *ifa = NULL;

  g_array_set_size (c->local, 0);
  if (getifaddrs (&ifa) < 0)
    return;
  for (struct ifaddrs *i = ifa; i; i = i->ifa_next)
    {
      WfApdAddr a = { 0 };

      if (!i->ifa_addr)
        continue;
      a.family = i->ifa_addr->sa_family;
      if (a.family == AF_INET)
        memcpy (a.addr, &((struct sockaddr_in *) (void *) i->ifa_addr)->sin_addr, 4);
      else if (a.family == AF_INET6)
        memcpy (a.addr, &((struct sockaddr_in6 *) (void *) i->ifa_addr)->sin6_addr, 16);
      else
        continue;
      g_array_append_val (c->local, a);
    }
  freeifaddrs (ifa);
}

/* Addressed to one of this host's addresses (a routing AP whose bridge
 * port has a MAC of its own sees the frame as another host's): the UDP
 * socket takes it. */
static gboolean
is_local (WfApdCarried *c, const WfApdFrame *f)
{
  gint64 now = g_get_monotonic_time ();
  gsize n = f->family == AF_INET ? 4 : 16;

  if (now - c->local_at > CACHE_US)
    {
      local_refresh (c);
      c->local_at = now;
    }
  for (guint i = 0; i < c->local->len; i++)
    {
      const WfApdAddr *a = &g_array_index (c->local, WfApdAddr, i);
      if (a->family == f->family && memcmp (a->addr, f->dst, n) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
handle_frame (WfApdCarried *c, const struct sockaddr_ll *sll, gsize len, gsize wire_len)
{
  WfApdFrame f;
  WfApdFrameKind kind;
  WfApdReportFrom from = { .path = WF_APD_PATH_CARRIED };

  /* The filter already said OTHERHOST; kept for kernels that ignore
   * PACKET_IGNORE_OUTGOING and for any filter-less test. */
  if (sll->sll_pkttype != PACKET_OTHERHOST || !is_ours (c, sll->sll_ifindex))
    return;
  kind = wf_apd_frame_parse (ntohs (sll->sll_protocol), c->buf, len, wire_len, c->port, &f);
  if (kind != WF_APD_FRAME_REPORT)
    {
      c->dropped[kind]++;
      g_debug ("carried frame on ifindex %d dropped: %s", sll->sll_ifindex,
               wf_apd_frame_kind_name (kind));
      return;
    }
  if (is_local (c, &f))
    {
      c->local_hits++;
      return;
    }
  /* Cut by the buffer: only a payload above the size limit can be, and
   * handing one byte more than the limit makes it "oversized". */
  if (f.captured < f.payload_len && f.captured <= WF_REPORT_MAX_SIZE)
    {
      c->dropped[WF_APD_FRAME_MALFORMED]++;
      return;
    }
  from.family = f.family;
  memcpy (from.addr, f.src, sizeof from.addr);
  from.port = f.src_port;
  if (sll->sll_halen == 6)
    {
      from.has_mac = TRUE;
      memcpy (from.mac, sll->sll_addr, 6);
    }
  wf_apd_receiver_handle_from (c->receiver, f.payload, MIN (f.captured, WF_REPORT_MAX_SIZE + 1),
                               &from);
}

static gboolean
on_readable (int fd, GIOCondition cond, gpointer data)
{
  WfApdCarried *c = data;

  for (int i = 0; i < RECV_BATCH; i++)
    {
      struct sockaddr_ll sll;
      socklen_t sl = sizeof sll;
      /* MSG_TRUNC: the frame's length even when the buffer cut it. */
      ssize_t n = recvfrom (fd, c->buf, HEADROOM + WF_REPORT_MAX_SIZE + 1, MSG_TRUNC,
                            (struct sockaddr *) &sll, &sl);

      if (n < 0)
        {
          if (errno != EAGAIN && errno != EINTR)
            g_debug ("carried reports: receive: %s", g_strerror (errno));
          break;
        }
      handle_frame (c, &sll, MIN ((gsize) n, HEADROOM + WF_REPORT_MAX_SIZE + 1), (gsize) n);
    }
  return G_SOURCE_CONTINUE;
}

WfApdCarried *
wf_apd_carried_new (const char *interface, guint16 port, WfApdReceiver *receiver,
                    GError **error)
{
  g_autoptr(WfApdCarried) c = g_new0 (WfApdCarried, 1);
  struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons (ETH_P_ALL) };
  int one = 1, err = 0;

  c->fd = -1;
  c->port = port;
  c->interface = g_strdup (interface);
  c->receiver = receiver;
  c->ours = g_hash_table_new (g_direct_hash, g_direct_equal);
  c->local = g_array_new (FALSE, FALSE, sizeof (WfApdAddr));
  /* Protocol 0: no frame is queued before the filter is on. */
  c->fd = socket (AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c->fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "packet socket: %s", g_strerror (errno));
      return NULL;
    }
  if (!attach_filter (c->fd, port, error))
    return NULL;
  /* What this host sends (a report of its own, a forwarded one leaving
   * by another port) is not read at all. Kernels before 4.20 lack it:
   * the filter's PACKET_OTHERHOST test covers them. */
  if (setsockopt (c->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0)
    g_debug ("PACKET_IGNORE_OUTGOING: %s", g_strerror (errno));
  /* Every interface of the namespace, sorted out in user space by
   * is_ours (): a bridge's forwarded frames pass its ports, not itself,
   * and ports (or the interface) come and go. */
  if (bind (c->fd, (struct sockaddr *) &sll, sizeof sll) < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "binding the packet socket: %s", g_strerror (errno));
      return NULL;
    }
  c->nl = nl_socket_alloc ();
  if (!c->nl || (err = nl_connect (c->nl, NETLINK_ROUTE)) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: %s",
                   c->nl ? nl_geterror (err) : "out of memory");
      return NULL;
    }
  c->buf = g_malloc (HEADROOM + WF_REPORT_MAX_SIZE + 1);
  c->watch = g_unix_fd_add (c->fd, G_IO_IN, on_readable, c);
  return g_steal_pointer (&c);
}

void
wf_apd_carried_free (WfApdCarried *c)
{
  if (!c)
    return;
  if (c->watch)
    g_source_remove (c->watch);
  if (c->fd >= 0)
    close (c->fd);
  if (c->nl)
    nl_socket_free (c->nl);
  g_clear_pointer (&c->ours, g_hash_table_unref);
  g_clear_pointer (&c->local, g_array_unref);
  g_free (c->interface);
  g_free (c->buf);
  g_free (c);
}

guint64
wf_apd_carried_dropped (WfApdCarried *c, WfApdFrameKind kind)
{
  return kind <= WF_APD_FRAME_MALFORMED ? c->dropped[kind] : 0;
}

guint64
wf_apd_carried_local (WfApdCarried *c)
{
  return c->local_hits;
}
