/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Goodput per flow and per interface, and the top N, on synthetic
 * sock_diag samples with known byte counters and times. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wlanfair-flows.h"
#include "wlanfair-route.h"

#define SEC G_USEC_PER_SEC

/* Inode and cookie `id`: one socket, owned by its program. */
static WfSockdiagTcp
sock (guint64 id, const char *dst, guint64 acked, guint64 received)
{
  WfSockdiagTcp s = { 0 };

  s.family = 2;
  s.state = 1;
  s.inode = id;
  s.cookie = id;
  g_snprintf (s.src, sizeof s.src, "192.0.2.1:%u", (guint) (40000 + id));
  g_strlcpy (s.dst, dst, sizeof s.dst);
  g_strlcpy (s.cong, "cubic", sizeof s.cong);
  s.have_info = TRUE;
  s.info.have_rates = TRUE;
  s.info.bytes_acked = acked;
  s.info.bytes_received = received;
  s.info.snd_cwnd = 10;
  return s;
}

typedef struct {
  guint calls;
} Routes;

/* 198.51.100.x leaves through ifindex 3, everything else through 4. */
static int
route (const WfSockdiagTcp *s, gpointer data)
{
  Routes *r = data;

  r->calls++;
  return g_str_has_prefix (s->dst, "198.51.100.") ? 3 : 4;
}

static void
sample (WfFlows *f, gint64 t, const WfSockdiagTcp *socks, guint n)
{
  wf_flows_begin (f, t);
  for (guint i = 0; i < n; i++)
    wf_flows_add (f, &socks[i]);
  wf_flows_end (f);
}

static void
test_goodput (void)
{
  Routes r = { 0 };
  g_autoptr(WfFlows) f = wf_flows_new (10, route, &r);
  WfSockdiagTcp a[2] = { sock (1, "198.51.100.7:443", 1000000, 5000),
                         sock (2, "203.0.113.9:80", 0, 1000) };
  const WfFlow *top;
  double tx, rx;
  guint n;

  /* First sample: counters only, no interval yet, no goodput claimed. */
  sample (f, 10 * SEC, a, 2);
  g_assert_cmpuint (wf_flows_total (f), ==, 2);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_false (top[0].has_goodput);
  g_assert_false (wf_flows_iface_goodput (f, 3, &tx, &rx));

  /* 0.5 s later: flow 1 acked 2.5 MB more (40 Mbit/s), received 0;
   * flow 2 received 500 kB (8 Mbit/s). */
  a[0].info.bytes_acked += 2500000;
  a[1].info.bytes_received += 500000;
  sample (f, 10 * SEC + SEC / 2, a, 2);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (top[0].sock.inode, ==, 1);
  g_assert_true (top[0].has_goodput);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_tx_bps, 40e6, 1e-3);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_rx_bps, 0, 1e-9);
  g_assert_cmpint (top[0].ifindex, ==, 3);
  g_assert_cmpfloat_with_epsilon (top[1].goodput_rx_bps, 8e6, 1e-3);
  g_assert_cmpint (top[1].ifindex, ==, 4);

  g_assert_true (wf_flows_iface_goodput (f, 3, &tx, &rx));
  g_assert_cmpfloat_with_epsilon (tx, 40e6, 1e-3);
  g_assert_cmpfloat_with_epsilon (rx, 0, 1e-9);
  g_assert_true (wf_flows_iface_goodput (f, 4, &tx, &rx));
  g_assert_cmpfloat_with_epsilon (rx, 8e6, 1e-3);
  /* An interface without flows carries zero goodput (measured, not absent). */
  g_assert_true (wf_flows_iface_goodput (f, 9, &tx, &rx));
  g_assert_cmpfloat (tx + rx, ==, 0);

  /* Routes are looked up once per flow, again only after invalidation. */
  g_assert_cmpuint (r.calls, ==, 2);
  sample (f, 11 * SEC, a, 2);
  g_assert_cmpuint (r.calls, ==, 2);
  wf_flows_invalidate_routes (f);
  sample (f, 12 * SEC, a, 2);
  g_assert_cmpuint (r.calls, ==, 4);
}

static void
test_new_closed_reset_bound (void)
{
  Routes r = { 0 };
  g_autoptr(WfFlows) f = wf_flows_new (10, route, &r);
  WfSockdiagTcp a[3] = { sock (1, "198.51.100.1:1", 100, 0),
                         sock (2, "198.51.100.2:1", 0, 0),
                         sock (3, "198.51.100.3:1", 0, 0) };
  const WfFlow *top;
  double tx, rx;
  guint n;

  sample (f, 1 * SEC, a, 1);
  /* Flow 2 opened since the last dump: all its 1 MB fall in this second. */
  a[1].info.bytes_acked = 1000000;
  a[0].info.bytes_acked = 100 + 125000; /* 1 Mbit/s */
  sample (f, 2 * SEC, a, 2);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (top[0].sock.inode, ==, 2);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_tx_bps, 8e6, 1e-3);
  g_assert_cmpfloat_with_epsilon (top[1].goodput_tx_bps, 1e6, 1e-3);
  g_assert_true (wf_flows_iface_goodput (f, 3, &tx, &rx));
  g_assert_cmpfloat_with_epsilon (tx, 9e6, 1e-3);

  /* Flow 1 closed; flow 2's counter went back (which a cookie's should
   * not): its bytes count from zero, not as a 2^64 wrap. */
  a[1].info.bytes_acked = 250000;
  sample (f, 3 * SEC, &a[1], 1);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_tx_bps, 2e6, 1e-3);

  /* Flow 1 again: unknown since it was dropped, so it is new. */
  a[0].info.bytes_acked = 500;
  sample (f, 4 * SEC, a, 2);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (top[0].sock.inode, ==, 1);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_tx_bps, 4000, 1e-6);
  g_assert_cmpfloat_with_epsilon (top[1].goodput_tx_bps, 0, 1e-9);

  /* A socket bound to a device (SO_BINDTODEVICE) needs no route lookup. */
  a[2].ifindex = 7;
  a[2].info.bytes_received = 1000;
  r.calls = 0;
  sample (f, 5 * SEC, &a[2], 1);
  sample (f, 6 * SEC, &a[2], 1);
  g_assert_cmpuint (r.calls, ==, 0);
  top = wf_flows_top (f, &n);
  g_assert_cmpint (top[0].ifindex, ==, 7);
}

static void
test_top_n (void)
{
  g_autoptr(WfFlows) f = wf_flows_new (5, NULL, NULL);
  WfSockdiagTcp a[40];
  const WfFlow *top;
  guint n;

  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    a[i] = sock (i + 1, "203.0.113.1:80", 0, 0);
  sample (f, SEC, a, G_N_ELEMENTS (a));
  /* Goodput (i * 7 mod 40) * 1 kB per second: a shuffled order. */
  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    a[i].info.bytes_received = ((i * 7) % 40) * 1000;
  sample (f, 2 * SEC, a, G_N_ELEMENTS (a));
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpuint (wf_flows_total (f), ==, 40);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (top[i].goodput_rx_bps, (39 - i) * 8000.0, 1e-6);
  /* No route function: flows are not attributed. */
  g_assert_cmpint (top[0].ifindex, ==, 0);

  /* Without tcp_info there is no goodput, and the flow still counts. */
  a[0].have_info = FALSE;
  sample (f, 3 * SEC, a, 1);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_false (top[0].has_goodput);
}

/* The per-interface totals: counters that keep what closed flows carried,
 * sockets open at the first sample counted from then on, sockets opened
 * later from their start, retransmissions, the flow gauge. */
static void
test_totals (void)
{
  Routes r = { 0 };
  g_autoptr(WfFlows) f = wf_flows_new (1, route, &r);
  WfTcpTotals *t = wf_flows_get_totals (f);
  WfSockdiagTcp a[3] = { sock (1, "198.51.100.1:1", 5000000, 7000000),
                         sock (2, "198.51.100.2:1", 0, 0),
                         sock (3, "203.0.113.3:1", 0, 0) };
  const WfTcpTotalsIface *i;

  a[0].info.total_retrans = 40;
  a[0].info.rtt_us = 20000;
  /* First sample: what flow 1 carried before the reporter ran is not
   * counted, it is a flow and an RTT observation. */
  sample (f, 1 * SEC, a, 1);
  i = wf_tcptotals_get (t, 3);
  g_assert_nonnull (i);
  g_assert_cmpuint (i->flows, ==, 1);
  g_assert_cmpuint (i->acked_bytes + i->received_bytes + i->retrans_segments, ==, 0);
  g_assert_cmpuint (i->rtt_count, ==, 1);
  g_assert_cmpuint (i->rtt_le[4], ==, 1);  /* <= 25 ms */
  g_assert_cmpuint (i->rtt_le[3], ==, 0);  /* not <= 10 ms */

  /* Flow 1 grows; flow 2 opened since (counted from 0); flow 3 leaves
   * through interface 4; a TIME-WAIT socket (no tcp_info) is no flow. */
  a[0].info.bytes_acked += 1000;
  a[0].info.bytes_received += 2000;
  a[0].info.total_retrans = 43;
  a[1].info.bytes_acked = 300;
  a[1].info.total_retrans = 1;
  a[2].info.bytes_received = 4000;
  {
    WfSockdiagTcp all[4] = { a[0], a[1], a[2], sock (9, "198.51.100.9:1", 0, 0) };

    all[3].have_info = FALSE;
    all[3].state = 6;
    sample (f, 2 * SEC, all, 4);
  }
  i = wf_tcptotals_get (t, 3);
  g_assert_cmpuint (i->flows, ==, 2);
  g_assert_cmpuint (i->acked_bytes, ==, 1300);
  g_assert_cmpuint (i->received_bytes, ==, 2000);
  g_assert_cmpuint (i->retrans_segments, ==, 4);
  /* Flow 2 has no RTT sample yet (0): not observed. */
  g_assert_cmpuint (i->rtt_count, ==, 2);
  g_assert_cmpuint (wf_tcptotals_get (t, 4)->received_bytes, ==, 4000);
  /* Only the top flow was kept (top_n 1): the totals have them all. */
  g_assert_cmpuint (wf_flows_total (f), ==, 4);

  /* Flows 1 and 3 closed: the counters keep what they carried, the gauge
   * drops. Flow 2's counter went back (which a cookie's should not): it
   * counts from zero, not as a 2^64 wrap. */
  a[1].info.bytes_acked = 100;
  a[1].info.total_retrans = 0;
  sample (f, 3 * SEC, &a[1], 1);
  i = wf_tcptotals_get (t, 3);
  g_assert_cmpuint (i->flows, ==, 1);
  g_assert_cmpuint (i->acked_bytes, ==, 1400);
  g_assert_cmpuint (i->received_bytes, ==, 2000);
  g_assert_cmpuint (i->retrans_segments, ==, 4);
  g_assert_cmpuint (wf_tcptotals_get (t, 4)->flows, ==, 0);
  g_assert_cmpuint (wf_tcptotals_get (t, 4)->received_bytes, ==, 4000);
}

/* Sockets are told apart by cookie: a new cookie is a new flow even
 * with the 4-tuple and inode of one just gone (port and inode reuse), so
 * all its bytes count, not their difference from the old socket's. */
static void
test_cookie_reuse (void)
{
  Routes r = { 0 };
  g_autoptr(WfFlows) f = wf_flows_new (10, route, &r);
  WfSockdiagTcp a = sock (5, "198.51.100.1:80", 1000, 0);
  WfSockdiagTcp b;
  const WfTcpTotalsIface *i;
  const WfFlow *top;
  guint n;

  sample (f, 1 * SEC, &a, 1);
  a.info.bytes_acked = 3000;
  sample (f, 2 * SEC, &a, 1);
  g_assert_cmpuint (wf_tcptotals_get (wf_flows_get_totals (f), 3)->acked_bytes, ==, 2000);

  /* A closed, B took its port and inode and sent 5000 bytes since. */
  b = a;
  b.cookie = 6;
  b.info.bytes_acked = 5000;
  sample (f, 3 * SEC, &b, 1);
  i = wf_tcptotals_get (wf_flows_get_totals (f), 3);
  g_assert_cmpuint (i->acked_bytes, ==, 7000);
  g_assert_cmpuint (i->flows, ==, 1);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (top[0].sock.cookie, ==, 6);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_tx_bps, 40000, 1e-6);

  /* The same cookie under another inode is the same flow. */
  b.inode = 77;
  b.info.bytes_acked = 5500;
  sample (f, 4 * SEC, &b, 1);
  g_assert_cmpuint (wf_tcptotals_get (wf_flows_get_totals (f), 3)->acked_bytes, ==, 7500);
}

/* A program closes its socket with data queued: the orphan (inode 0)
 * keeps sending and counting, per flow and per interface; at TIME-WAIT
 * (no tcp_info) what was unacknowledged at the last sample counts, once. */
static void
test_orphan (void)
{
  Routes r = { 0 };
  g_autoptr(WfFlows) f = wf_flows_new (10, route, &r);
  WfTcpTotals *t = wf_flows_get_totals (f);
  WfSockdiagTcp a = sock (20, "198.51.100.1:80", 1000, 0);
  WfSockdiagTcp stray = sock (99, "198.51.100.9:80", 0, 0);
  const WfTcpTotalsIface *i;
  const WfFlow *top;
  double tx, rx;
  guint n;

  a.wqueue = 50000;
  sample (f, 1 * SEC, &a, 1);
  a.info.bytes_acked = 101000;
  a.wqueue = 40000;
  sample (f, 2 * SEC, &a, 1);
  g_assert_cmpuint (wf_tcptotals_get (t, 3)->acked_bytes, ==, 100000);

  /* Closed: orphaned in FIN-WAIT-1, 30 kB acked since, 10 kB and the FIN
   * to go. */
  a.inode = 0;
  a.state = TCP_FIN_WAIT1;
  a.info.bytes_acked = 131000;
  a.wqueue = 10001;
  sample (f, 3 * SEC, &a, 1);
  i = wf_tcptotals_get (t, 3);
  g_assert_cmpuint (i->acked_bytes, ==, 130000);
  g_assert_cmpuint (i->flows, ==, 1);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_true (top[0].has_goodput);
  g_assert_cmpfloat_with_epsilon (top[0].goodput_tx_bps, 240000, 1e-6);
  g_assert_true (wf_flows_iface_goodput (f, 3, &tx, &rx));
  g_assert_cmpfloat_with_epsilon (tx, 240000, 1e-6);

  /* Its FIN acknowledged: TIME-WAIT, the same cookie, no tcp_info. A
   * TIME-WAIT socket nobody saw open adds nothing. */
  a.state = TCP_TIME_WAIT;
  a.have_info = FALSE;
  memset (&a.info, 0, sizeof a.info);
  a.wqueue = 0;
  stray.state = TCP_TIME_WAIT;
  stray.have_info = FALSE;
  {
    WfSockdiagTcp both[2] = { a, stray };

    sample (f, 4 * SEC, both, 2);
  }
  i = wf_tcptotals_get (t, 3);
  g_assert_cmpuint (i->acked_bytes, ==, 140001);
  g_assert_cmpuint (i->flows, ==, 0);
  g_assert_true (wf_flows_iface_goodput (f, 3, &tx, &rx));
  g_assert_cmpfloat_with_epsilon (tx, 80008, 1e-6);
  top = wf_flows_top (f, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_false (top[0].has_goodput);

  /* Still in TIME-WAIT at the next sample: counted once. */
  sample (f, 5 * SEC, &a, 1);
  g_assert_cmpuint (wf_tcptotals_get (t, 3)->acked_bytes, ==, 140001);
  g_assert_true (wf_flows_iface_goodput (f, 3, &tx, &rx));
  g_assert_cmpfloat (tx, ==, 0);
}

/* The real kernel: a TCP connection over loopback is seen through
 * sock_diag (no privilege needed) with its bytes, and routed via lo. */
static int
route_real (const WfSockdiagTcp *s, gpointer data)
{
  return wf_route_egress (data, s->dst);
}

static void
test_sockdiag_loopback (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfRoute) rt = wf_route_new (&error);
  g_autoptr(WfFlows) f = NULL;
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  char buf[65536], local[64];
  int l, c, s;
  gsize sent = 0, got = 0;
  const WfFlow *top;
  guint n;
  gboolean found = FALSE;
  gint64 t0;

  g_assert_no_error (error);
  f = wf_flows_new (1000, route_real, rt);
  l = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (bind (l, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (l, 1), ==, 0);
  g_assert_cmpint (getsockname (l, (struct sockaddr *) &addr, &len), ==, 0);
  c = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (connect (c, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  s = accept (l, NULL, NULL);
  g_assert_cmpint (s, >=, 0);
  len = sizeof addr;
  getsockname (c, (struct sockaddr *) &addr, &len);
  g_snprintf (local, sizeof local, "127.0.0.1:%u", ntohs (addr.sin_port));

  t0 = g_get_monotonic_time ();
  g_assert_true (wf_flows_sample (f, t0, &error));
  g_assert_no_error (error);
  memset (buf, 'x', sizeof buf);
  while (sent < 1000000)
    {
      ssize_t w = write (c, buf, sizeof buf);
      ssize_t r;

      g_assert_cmpint (w, >, 0);
      sent += (gsize) w;
      while (got < sent && (r = read (s, buf, sizeof buf)) > 0)
        got += (gsize) r;
    }
  /* The second sample is stamped 0.1 s after the first, whatever the
   * clock says: goodput is bytes over the stamps' difference, and a real
   * clock made the bound below a race with the machine's load (1 MB had
   * to cross in 0.8 s). The bytes are the kernel's. */
  g_assert_true (wf_flows_sample (f, t0 + G_USEC_PER_SEC / 10, &error));
  top = wf_flows_top (f, &n);
  for (guint i = 0; i < n; i++)
    if (g_str_equal (top[i].sock.src, local))
      {
        found = TRUE;
        g_assert_true (top[i].has_goodput);
        /* 1 MB read by the peer, so (nearly) all of it ACKed, in the
         * 0.1 s between the stamps: about 80 Mbit/s, well above 10. */
        g_test_message ("goodput %.0f bit/s", top[i].goodput_tx_bps);
        g_assert_cmpfloat (top[i].goodput_tx_bps, >, 10e6);
        g_assert_cmpint (top[i].ifindex, ==, (int) if_nametoindex ("lo"));
      }
  g_assert_true (found);
  close (s);
  close (c);
  close (l);
}

/* Only the connection under test goes through "interface" 99: other
 * tests' loopback flows may run beside. */
static int
route_mine (const WfSockdiagTcp *s, gpointer data)
{
  return g_str_equal (s->src, data) ? 99 : 0;
}

static const WfFlow *
find_flow (WfFlows *f, const char *src)
{
  guint n;
  const WfFlow *top = wf_flows_top (f, &n);

  for (guint i = 0; i < n; i++)
    if (g_str_equal (top[i].sock.src, src))
      return &top[i];
  return NULL;
}

/* The real kernel: a sender closes with data still queued (the receiver
 * has not read). sock_diag shows the orphan with inode 0 and the same
 * cookie; once the receiver drained it and both closed, the bytes acked
 * per interface are all that was written (and the FIN). */
static void
test_sockdiag_orphan (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfFlows) f = NULL;
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  int small = 16384;
  char buf[65536], local[64];
  const WfFlow *flow;
  const WfTcpTotalsIface *i;
  guint64 cookie;
  gsize sent = 0, got = 0;
  gint64 t = SEC;
  ssize_t r;
  int l, c, s;

  l = socket (AF_INET, SOCK_STREAM, 0);
  /* Small buffers: the sender's queue fills at once. */
  g_assert_cmpint (setsockopt (l, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), ==, 0);
  g_assert_cmpint (bind (l, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (l, 1), ==, 0);
  g_assert_cmpint (getsockname (l, (struct sockaddr *) &addr, &len), ==, 0);
  c = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (setsockopt (c, SOL_SOCKET, SO_SNDBUF, &small, sizeof small), ==, 0);
  g_assert_cmpint (connect (c, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  s = accept (l, NULL, NULL);
  g_assert_cmpint (s, >=, 0);
  len = sizeof addr;
  getsockname (c, (struct sockaddr *) &addr, &len);
  g_snprintf (local, sizeof local, "127.0.0.1:%u", ntohs (addr.sin_port));
  f = wf_flows_new (4096, route_mine, local);

  g_assert_true (wf_flows_sample (f, t, &error));
  g_assert_no_error (error);
  flow = find_flow (f, local);
  /* g_assert(), not g_assert_nonnull(): it does not return, which gcc
   * -Wnull-dereference needs to know at -O2. */
  g_assert (flow != NULL);
  g_assert_cmpuint (flow->sock.inode, !=, 0);
  g_assert_cmpuint (flow->sock.cookie, !=, 0);
  cookie = flow->sock.cookie;

  memset (buf, 'x', sizeof buf);
  g_assert_cmpint (fcntl (c, F_SETFL, O_NONBLOCK), ==, 0);
  while ((r = write (c, buf, sizeof buf)) > 0)
    sent += (gsize) r;
  g_assert_cmpint (errno, ==, EAGAIN);
  g_assert_true (wf_flows_sample (f, t += SEC, &error));
  close (c);

  g_assert_true (wf_flows_sample (f, t += SEC, &error));
  flow = find_flow (f, local);
  g_assert (flow != NULL);
  g_assert_cmpuint (flow->sock.cookie, ==, cookie);
  g_assert_cmpuint (flow->sock.inode, ==, 0);
  g_assert_cmpuint (flow->sock.state, ==, TCP_FIN_WAIT1);
  g_assert_cmpuint (flow->sock.wqueue, >, 0);

  while ((r = read (s, buf, sizeof buf)) > 0)
    got += (gsize) r;
  g_assert_cmpint (r, ==, 0);
  g_assert_cmpuint (got, ==, sent);
  close (s);
  /* TIME-WAIT follows the peer's FIN at once on loopback; bounded wait. */
  for (int k = 0; k < 500; k++)
    {
      g_assert_true (wf_flows_sample (f, t += SEC, &error));
      flow = find_flow (f, local);
      if (flow == NULL || flow->sock.state == TCP_TIME_WAIT)
        break;
      g_usleep (10000);
    }
  g_assert_nonnull (flow);
  g_assert_cmpuint (flow->sock.state, ==, TCP_TIME_WAIT);
  g_assert_cmpuint (flow->sock.cookie, ==, cookie);
  i = wf_tcptotals_get (wf_flows_get_totals (f), 99);
  g_assert_nonnull (i);
  g_test_message ("written %" G_GSIZE_FORMAT ", acked %" G_GUINT64_FORMAT, sent, i->acked_bytes);
  /* The FIN counts as one byte in tcpi_bytes_acked. */
  g_assert_cmpuint (i->acked_bytes, >=, sent);
  g_assert_cmpuint (i->acked_bytes, <=, sent + 1);
  close (l);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/flows/goodput", test_goodput);
  g_test_add_func ("/reporter/flows/new-closed-reset-bound", test_new_closed_reset_bound);
  g_test_add_func ("/reporter/flows/top-n", test_top_n);
  g_test_add_func ("/reporter/flows/totals", test_totals);
  g_test_add_func ("/reporter/flows/cookie-reuse", test_cookie_reuse);
  g_test_add_func ("/reporter/flows/orphan", test_orphan);
  g_test_add_func ("/reporter/flows/sockdiag", test_sockdiag_loopback);
  g_test_add_func ("/reporter/flows/sockdiag-orphan", test_sockdiag_orphan);
  return g_test_run ();
}
