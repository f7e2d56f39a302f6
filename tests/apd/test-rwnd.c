/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rwnd BPF program on crafted segments (BPF_PROG_TEST_RUN): window
 * scales learnt from recorded handshakes, the window arithmetic, what
 * must pass unchanged, checksums after a rewrite. Needs root and BPF:
 * exits 77 (skipped) otherwise. */
#include "config.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpf-caps.h"
#include "wlanfair-rwnd.h"

#define SYN 0x02
#define ACK 0x10
#define PSH 0x08

typedef struct {
  int     family;
  guint8  client[16], server[16];
  guint16 cport, sport;
} Conn;

static const guint8 mac_a[6] = { 2, 0, 0, 0, 0, 1 }, mac_b[6] = { 2, 0, 0, 0, 0, 2 };

static guint32
sum16 (const guint8 *p, gsize n, guint32 acc)
{
  for (gsize i = 0; i + 1 < n; i += 2)
    acc += (guint32) (p[i] << 8 | p[i + 1]);
  if (n & 1)
    acc += (guint32) p[n - 1] << 8;
  return acc;
}

static guint16
fold (guint32 acc)
{
  while (acc >> 16)
    acc = (acc & 0xffff) + (acc >> 16);
  return (guint16) acc;
}

/* The TCP checksum over the pseudo header, as computed (0 over a segment
 * whose checksum is right once complemented: fold() == 0xffff). */
static guint32
tcp_sum (const guint8 *pkt, gsize len)
{
  gboolean v6 = pkt[12] == 0x86;
  gsize l3 = 14, l4 = v6 ? l3 + 40 : l3 + (pkt[l3] & 0xf) * 4u;
  guint32 acc = 0;
  gsize tcplen = len - l4;

  if (v6)
    acc = sum16 (pkt + l3 + 8, 32, acc);
  else
    acc = sum16 (pkt + l3 + 12, 8, acc);
  acc += 6 + (guint32) tcplen;
  return sum16 (pkt + l4, tcplen, acc);
}

static gboolean
checksum_ok (const guint8 *pkt, gsize len)
{
  return fold (tcp_sum (pkt, len)) == 0xffff;
}

/* An Ethernet frame with one TCP segment from the client (from_client) or
 * the server; opts: TCP options (a multiple of 4 bytes). */
static GByteArray *
segment (const Conn *c, gboolean from_client, guint8 flags, guint32 seq, guint32 ack,
         guint16 win, const guint8 *opts, gsize optlen)
{
  GByteArray *b = g_byte_array_new ();
  gboolean v6 = c->family == AF_INET6;
  guint8 eth[14], ip[40] = { 0 }, tcp[60] = { 0 };
  gsize iplen = v6 ? 40 : 20, tcplen = 20 + optlen;
  const guint8 *src = from_client ? c->client : c->server;
  const guint8 *dst = from_client ? c->server : c->client;
  guint16 sp = from_client ? c->cport : c->sport, dp = from_client ? c->sport : c->cport;
  guint16 csum;

  g_assert (optlen % 4 == 0 && optlen <= 40);
  memcpy (eth, mac_a, 6);
  memcpy (eth + 6, mac_b, 6);
  eth[12] = v6 ? 0x86 : 0x08;
  eth[13] = v6 ? 0xdd : 0x00;
  if (v6)
    {
      ip[0] = 0x60;
      ip[4] = (guint8) (tcplen >> 8);
      ip[5] = (guint8) tcplen;
      ip[6] = 6;
      ip[7] = 64;
      memcpy (ip + 8, src, 16);
      memcpy (ip + 24, dst, 16);
    }
  else
    {
      ip[0] = 0x45;
      ip[2] = (guint8) ((iplen + tcplen) >> 8);
      ip[3] = (guint8) (iplen + tcplen);
      ip[6] = 0x40;  /* DF */
      ip[8] = 64;
      ip[9] = 6;
      memcpy (ip + 12, src, 4);
      memcpy (ip + 16, dst, 4);
      csum = (guint16) ~fold (sum16 (ip, 20, 0));
      ip[10] = (guint8) (csum >> 8);
      ip[11] = (guint8) csum;
    }
  tcp[0] = (guint8) (sp >> 8);
  tcp[1] = (guint8) sp;
  tcp[2] = (guint8) (dp >> 8);
  tcp[3] = (guint8) dp;
  for (int k = 0; k < 4; k++)
    {
      tcp[4 + k] = (guint8) (seq >> (24 - 8 * k));
      tcp[8 + k] = (guint8) (ack >> (24 - 8 * k));
    }
  tcp[12] = (guint8) ((tcplen / 4) << 4);
  tcp[13] = flags;
  tcp[14] = (guint8) (win >> 8);
  tcp[15] = (guint8) win;
  if (optlen)
    memcpy (tcp + 20, opts, optlen);
  g_byte_array_append (b, eth, 14);
  g_byte_array_append (b, ip, (guint) iplen);
  g_byte_array_append (b, tcp, (guint) tcplen);
  csum = (guint16) ~fold (tcp_sum (b->data, b->len));
  b->data[14 + iplen + 16] = (guint8) (csum >> 8);
  b->data[14 + iplen + 17] = (guint8) csum;
  g_assert_true (checksum_ok (b->data, b->len));
  return b;
}

/* Appends n bytes of payload to a segment without options, lengths and
 * checksums fixed. */
static GByteArray *
with_payload (GByteArray *b, gsize n)
{
  gboolean v6 = b->data[12] == 0x86;
  gsize l4 = v6 ? 54 : 34;
  guint8 fill[256];
  guint16 csum;

  g_assert (n <= sizeof fill);
  memset (fill, 0x55, n);
  g_byte_array_append (b, fill, (guint) n);
  if (v6)
    {
      b->data[14 + 4] = (guint8) ((b->len - l4) >> 8);
      b->data[14 + 5] = (guint8) (b->len - l4);
    }
  else
    {
      b->data[14 + 2] = (guint8) ((b->len - 14) >> 8);
      b->data[14 + 3] = (guint8) (b->len - 14);
      b->data[14 + 10] = b->data[14 + 11] = 0;
      csum = (guint16) ~fold (sum16 (b->data + 14, 20, 0));
      b->data[14 + 10] = (guint8) (csum >> 8);
      b->data[14 + 11] = (guint8) csum;
    }
  b->data[l4 + 16] = b->data[l4 + 17] = 0;
  csum = (guint16) ~fold (tcp_sum (b->data, b->len));
  b->data[l4 + 16] = (guint8) (csum >> 8);
  b->data[l4 + 17] = (guint8) csum;
  g_assert_true (checksum_ok (b->data, b->len));
  return b;
}

/* Runs the program on pkt; out gets what it leaves (same length). */
static void
run (WfRwnd *rw, GByteArray *pkt, guint8 *out)
{
  LIBBPF_OPTS (bpf_test_run_opts, o, .data_in = pkt->data, .data_size_in = pkt->len,
               .data_out = out, .data_size_out = 512, .repeat = 1);

  g_assert_cmpint (pkt->len, <=, 512);
  g_assert_cmpint (bpf_prog_test_run_opts (wf_rwnd_prog_fd (rw), &o), ==, 0);
  g_assert_cmpint (o.retval, ==, TC_ACT_OK);
  g_assert_cmpuint (o.data_size_out, ==, pkt->len);
}

/* Runs it and returns the window field left; the packet must be
 * unchanged except for the window and the checksum, which must be valid. */
static guint16
run_window (WfRwnd *rw, GByteArray *pkt)
{
  guint8 out[512];
  gsize w = pkt->len - 20 + 14;  /* segments without options here */

  run (rw, pkt, out);
  g_assert_true (checksum_ok (out, pkt->len));
  for (gsize i = 0; i < pkt->len; i++)
    if (i < w || i > w + 3)
      g_assert_cmpuint (out[i], ==, pkt->data[i]);
  g_byte_array_unref (pkt);
  return (guint16) (out[w] << 8 | out[w + 1]);
}

static void
run_unchanged (WfRwnd *rw, GByteArray *pkt)
{
  guint8 out[512];

  run (rw, pkt, out);
  g_assert_cmpmem (out, pkt->len, pkt->data, pkt->len);
  g_byte_array_unref (pkt);
}

static gsize
syn_opts (guint8 *o, int mss, int ws)
{
  gsize n = 0;

  if (mss >= 0)
    {
      o[n++] = 2, o[n++] = 4, o[n++] = (guint8) (mss >> 8), o[n++] = (guint8) mss;
    }
  if (ws >= 0)
    {
      o[n++] = 1, o[n++] = 3, o[n++] = 3, o[n++] = (guint8) ws;
    }
  return n;
}

static void
conn_init (Conn *c, int family, guint16 cport)
{
  memset (c, 0, sizeof *c);
  c->family = family;
  inet_pton (family, family == AF_INET ? "10.1.0.2" : "fd00:1::2", c->client);
  inet_pton (family, family == AF_INET ? "10.2.0.2" : "fd00:2::2", c->server);
  c->cport = cport;
  c->sport = 5201;
}

/* SYN, SYN-ACK, ACK; mss/ws < 0: option absent. */
static void
handshake (WfRwnd *rw, const Conn *c, int cmss, int cws, int smss, int sws)
{
  guint8 o[40];

  run_unchanged (rw, segment (c, TRUE, SYN, 1000, 0, 64240, o, syn_opts (o, cmss, cws)));
  run_unchanged (rw, segment (c, FALSE, SYN | ACK, 5000, 1001, 65160, o, syn_opts (o, smss, sws)));
  run_unchanged (rw, segment (c, TRUE, ACK, 1001, 5001, 502, NULL, 0));
}

/* The entry of c; k_client: the client's endpoint index. */
static WfRwndFlow
find (WfRwnd *rw, const Conn *c, guint *k_client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) flows = wf_rwnd_flows (rw, &error);
  WfRwndFlow f = { 0 };

  g_assert_no_error (error);
  for (guint i = 0; i < flows->len; i++)
    {
      WfRwndFlow *e = &g_array_index (flows, WfRwndFlow, i);

      for (guint k = 0; k < 2; k++)
        if (e->family == c->family && e->port[k] == c->cport && e->port[k ^ 1] == c->sport &&
            memcmp (e->key.addr[k], c->client, c->family == AF_INET ? 4 : 16) == 0)
          {
            *k_client = k;
            return *e;
          }
    }
  g_assert_not_reached ();
  return f;
}

static WfRwnd *
load (void)
{
  g_autoptr(GError) error = NULL;
  WfRwnd *rw = wf_rwnd_new (0, &error);

  g_assert_no_error (error);
  return rw;
}

static void
set_target (WfRwnd *rw, const WfRwndFlow *f, guint sender, guint32 window)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (wf_rwnd_set_target (rw, &f->key, sender, window, &error));
  g_assert_no_error (error);
}

/* Scales 0..14 on each side (the client's with the server's 14 - ws): the
 * client's ACKs to a controlled server carry min(orig, target) in the
 * client's scale, rounded up, after the granted edge is passed. */
static void
test_scales (void)
{
  g_autoptr(WfRwnd) rw = load ();

  for (int ws = 0; ws <= 14; ws++)
    {
      Conn c;
      guint kc;
      WfRwndFlow f;
      guint32 ack = 5001, target = 100000, want;
      guint16 w;

      conn_init (&c, AF_INET, (guint16) (40000 + ws));
      handshake (rw, &c, 1460, ws, 1400, 14 - ws);
      f = find (rw, &c, &kc);
      g_assert_true (f.handshake_seen);
      g_assert_true (f.scaled);
      g_assert_cmpuint (f.wscale[kc], ==, ws);
      g_assert_cmpuint (f.wscale[kc ^ 1], ==, 14 - ws);
      g_assert_cmpuint (f.mss[kc], ==, 1460);
      g_assert_cmpuint (f.mss[kc ^ 1], ==, 1400);
      g_assert_cmpfloat (f.rtt_s, >, 0);

      /* The server sends data; the client's ACKs go back to it. */
      set_target (rw, &f, kc ^ 1, target);
      /* The first passes unchanged: its edge is the one to keep. */
      g_assert_cmpuint (run_window (rw, segment (&c, TRUE, ACK, 1001, ack, 65535, NULL, 0)), ==, 65535);
      ack += (guint32) 65535 << ws;
      w = run_window (rw, segment (&c, TRUE, ACK, 1001, ack, 65535, NULL, 0));
      want = MIN (65535u, (target + (1u << ws) - 1) >> ws);
      g_assert_cmpuint (w, ==, want);
      /* The other direction (the server's ACKs to the client) is not
       * controlled. */
      g_assert_cmpuint (run_window (rw, segment (&c, FALSE, ACK, ack, 1001, 65535, NULL, 0)), ==, 65535);
      f = find (rw, &c, &kc);
      g_assert_cmpuint (f.rewritten[kc ^ 1], ==, want < 65535 ? 1 : 0);
      g_assert_cmpuint (f.clamp[kc ^ 1], ==, (guint32) w << ws);
      g_assert_cmpuint (f.target[kc ^ 1], ==, target);
    }
}

/* IPv6, no MSS option (1440 assumed): the floor is 4 x 1440 bytes; the
 * upload direction (the server's ACKs to the client). */
static void
test_ipv6_floor (void)
{
  g_autoptr(WfRwnd) rw = load ();
  Conn c;
  guint kc;
  WfRwndFlow f;
  guint32 ack = 1001;

  conn_init (&c, AF_INET6, 41000);
  handshake (rw, &c, -1, 7, -1, 2);
  f = find (rw, &c, &kc);
  g_assert_true (f.handshake_seen && f.scaled);
  g_assert_cmpuint (f.wscale[kc ^ 1], ==, 2);
  set_target (rw, &f, kc, 1000);  /* below the floor */
  g_assert_cmpuint (run_window (rw, segment (&c, FALSE, ACK, 5001, ack, 20000, NULL, 0)), ==, 20000);
  ack += 20000 << 2;
  /* 4 x 1440 = 5760 bytes, in the server's scale of 2: 1440. */
  g_assert_cmpuint (run_window (rw, segment (&c, FALSE, ACK, 5001, ack, 20000, NULL, 0)), ==, 1440);
  /* Never raised: a receiver's own smaller window passes. */
  g_assert_cmpuint (run_window (rw, segment (&c, FALSE, ACK, 5001, ack, 100, NULL, 0)), ==, 100);
}

/* A granted right edge is not taken back: the window shrinks as the ACKs
 * catch up; with one side unscaled, no scale applies to either. */
static void
test_edge_kept (void)
{
  g_autoptr(WfRwnd) rw = load ();
  Conn c;
  guint kc;
  WfRwndFlow f;

  conn_init (&c, AF_INET, 42000);
  handshake (rw, &c, 1460, 9, 1460, -1);
  f = find (rw, &c, &kc);
  g_assert_false (f.scaled);
  set_target (rw, &f, kc ^ 1, 10000);
  g_assert_cmpuint (run_window (rw, segment (&c, TRUE, ACK, 1001, 5001, 60000, NULL, 0)), ==, 60000);
  /* 20000 acked: 40000 of the granted 60000 remain. */
  g_assert_cmpuint (run_window (rw, segment (&c, TRUE, ACK, 1001, 25001, 60000, NULL, 0)), ==, 40000);
  g_assert_cmpuint (run_window (rw, segment (&c, TRUE, ACK, 1001, 60001, 60000, NULL, 0)), ==, 10000);
  /* The target removed: nothing is rewritten. */
  set_target (rw, &f, kc ^ 1, 0);
  g_assert_cmpuint (run_window (rw, segment (&c, TRUE, ACK, 1001, 70001, 60000, NULL, 0)), ==, 60000);
}

/* A retransmitted SYN (with other options) does not change what the
 * first recorded, and gives no RTT (Karn). */
static void
test_syn_retransmitted (void)
{
  g_autoptr(WfRwnd) rw = load ();
  Conn c;
  guint kc;
  WfRwndFlow f;
  guint8 o[40];

  conn_init (&c, AF_INET, 43000);
  run_unchanged (rw, segment (&c, TRUE, SYN, 1000, 0, 64240, o, syn_opts (o, 1460, 7)));
  run_unchanged (rw, segment (&c, TRUE, SYN, 1000, 0, 64240, o, syn_opts (o, 1200, 3)));
  run_unchanged (rw, segment (&c, FALSE, SYN | ACK, 5000, 1001, 65160, o, syn_opts (o, 1460, 5)));
  run_unchanged (rw, segment (&c, FALSE, SYN | ACK, 5000, 1001, 65160, o, syn_opts (o, 1000, 1)));
  run_unchanged (rw, segment (&c, TRUE, ACK, 1001, 5001, 502, NULL, 0));
  f = find (rw, &c, &kc);
  g_assert_true (f.handshake_seen);
  g_assert_cmpuint (f.wscale[kc], ==, 7);
  g_assert_cmpuint (f.mss[kc], ==, 1460);
  g_assert_cmpuint (f.wscale[kc ^ 1], ==, 5);
  g_assert_cmpuint (f.mss[kc ^ 1], ==, 1460);
  g_assert_cmpfloat (f.rtt_s, ==, 0);
}

/* A connection first seen mid-way is flagged and never touched, even
 * with a target. */
static void
test_no_handshake (void)
{
  g_autoptr(WfRwnd) rw = load ();
  Conn c;
  guint kc;
  WfRwndFlow f;

  conn_init (&c, AF_INET6, 44000);
  run_unchanged (rw, segment (&c, FALSE, ACK | PSH, 5001, 1001, 1000, NULL, 0));
  f = find (rw, &c, &kc);
  g_assert_false (f.handshake_seen);
  set_target (rw, &f, kc ^ 1, 6000);
  for (guint32 a = 1; a < 5; a++)
    run_unchanged (rw, segment (&c, TRUE, ACK, 1001, 5001 + a * 1000000, 60000, NULL, 0));
  f = find (rw, &c, &kc);
  g_assert_cmpuint (f.rewritten[kc ^ 1], ==, 0);
}

/* Payload bytes per sender, IPv4 and IPv6 (what the actuator splits a
 * station's rate by); a data segment of a controlled flow's sender passes
 * unchanged. */
static void
test_bytes_counted (void)
{
  g_autoptr(WfRwnd) rw = load ();

  for (int family = AF_INET; family <= AF_INET6; family += AF_INET6 - AF_INET)
    {
      Conn c;
      guint kc;
      WfRwndFlow f;

      conn_init (&c, family, 46000);
      handshake (rw, &c, 1460, 7, 1460, 7);
      f = find (rw, &c, &kc);
      set_target (rw, &f, kc ^ 1, 10000);
      for (guint32 k = 0; k < 3; k++)
        run_unchanged (rw, with_payload (segment (&c, FALSE, ACK | PSH, 5001 + k * 200, 1001,
                                                  500, NULL, 0), 200));
      run_unchanged (rw, with_payload (segment (&c, TRUE, ACK | PSH, 1001, 5601, 500, NULL, 0),
                                       10));
      f = find (rw, &c, &kc);
      g_assert_cmpuint (f.bytes[kc ^ 1], ==, 600);
      g_assert_cmpuint (f.bytes[kc], ==, 10);
    }
}

/* NOP, NOP, timestamps (val, ecr): the layout the program reads. */
static gsize
ts_opts (guint8 *o, guint32 val, guint32 ecr)
{
  o[0] = 1, o[1] = 1, o[2] = 8, o[3] = 10;
  for (int k = 0; k < 4; k++)
    {
      o[4 + k] = (guint8) (val >> (24 - 8 * k));
      o[8 + k] = (guint8) (ecr >> (24 - 8 * k));
    }
  return 12;
}

/* A segment carrying timestamps, from the client or the server. */
static void
ts_seg (WfRwnd *rw, const Conn *c, gboolean from_client, guint32 val, guint32 ecr)
{
  guint8 o[12];

  run_unchanged (rw, segment (c, from_client, ACK, from_client ? 1001 : 5001,
                              from_client ? 5001 : 1001, 500, o, ts_opts (o, val, ecr)));
}

static WfRwndFlow
started (WfRwnd *rw, Conn *c, int family, guint16 cport)
{
  guint kc;

  conn_init (c, family, cport);
  handshake (rw, c, 1460, 7, 1460, 7);
  return find (rw, c, &kc);
}

/* The RTT from TCP timestamps (pping's method): the first segment with a
 * new TSval starts a timing, its echo from the other side ends it; both
 * legs (this hop to the client and back, to the server and back) are
 * needed; smoothed, standing (each leg's lowest of the last 1-2 s) and
 * lowest. Only lower bounds of the times are asserted (a sleep is never
 * shorter; a loaded host only makes the samples longer). */
static void
test_timestamps_rtt (void)
{
  g_autoptr(WfRwnd) rw = load ();

  for (int family = AF_INET; family <= AF_INET6; family += AF_INET6 - AF_INET)
    {
      Conn c;
      guint kc;
      WfRwndFlow f;
      double rtt, low;
      gint64 t0, t1;

      /* The client's leg (20 ms), then the server's (30 ms). */
      f = started (rw, &c, family, 47000);
      g_assert_cmpfloat (f.ts_rtt_s, ==, 0);
      ts_seg (rw, &c, FALSE, 1000, 500);
      g_usleep (20000);
      ts_seg (rw, &c, TRUE, 501, 1000);
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_s, ==, 0);   /* one leg is not an RTT */
      g_usleep (30000);
      t0 = g_get_monotonic_time ();
      ts_seg (rw, &c, FALSE, 1001, 501);       /* ends the server leg, times 1001 */
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_s, >=, 0.050);
      g_assert_cmpfloat (f.ts_rtt_standing_s, ==, f.ts_rtt_s);
      g_assert_cmpfloat (f.ts_rtt_min_s, ==, f.ts_rtt_s);
      rtt = f.ts_rtt_s;
      low = f.ts_rtt_min_s;
      /* A longer sample within the window (>= 100 ms) raises the smoothed
       * RTT by an eighth of the step (at most an eighth of the time it
       * took), and leaves the standing RTT (the window's lowest) and the
       * lowest alone. */
      g_usleep (100000);
      ts_seg (rw, &c, TRUE, 502, 1001);
      t1 = g_get_monotonic_time ();
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_s, >, rtt);
      g_assert_cmpfloat (f.ts_rtt_s, <=, rtt + (t1 - t0) / 1e6 / 8 + 1e-6);
      g_assert_cmpfloat (f.ts_rtt_standing_s, ==, low);
      g_assert_cmpfloat (f.ts_rtt_min_s, ==, low);
      /* A rise that lasts over two windows (the client's leg >= 200 ms
       * in each) becomes the standing RTT; the lowest stays. */
      for (guint32 k = 0; k < 2; k++)
        {
          g_usleep (1100000);
          ts_seg (rw, &c, FALSE, 1002 + k, 502 + k);
          g_usleep (200000);
          ts_seg (rw, &c, TRUE, 503 + k, 1002 + k);
        }
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_standing_s, >=, 0.200 + 0.030);
      g_assert_cmpfloat (f.ts_rtt_min_s, ==, low);

      /* The same TSval again does not restart the timing: 30 ms from its
       * first sight (a restart would give 10). */
      f = started (rw, &c, family, 47001);
      ts_seg (rw, &c, FALSE, 7, 1);
      g_usleep (20000);
      ts_seg (rw, &c, FALSE, 7, 1);
      g_usleep (10000);
      ts_seg (rw, &c, TRUE, 3, 7);
      ts_seg (rw, &c, FALSE, 8, 3);
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_min_s, >=, 0.030);

      /* An echo of a later TSval than the one timed ends that timing
       * without a sample; the next new one is timed. An older echo (the
       * receiver has not seen it yet) keeps it waiting. */
      f = started (rw, &c, family, 47002);
      ts_seg (rw, &c, FALSE, 10, 1);           /* timed */
      ts_seg (rw, &c, FALSE, 11, 1);           /* not: one at a time */
      ts_seg (rw, &c, TRUE, 20, 11);           /* ends it, no sample */
      ts_seg (rw, &c, FALSE, 12, 20);          /* the server leg; 12 timed */
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_s, ==, 0);
      ts_seg (rw, &c, TRUE, 21, 11);           /* older: still waiting */
      g_usleep (15000);
      ts_seg (rw, &c, TRUE, 22, 12);
      f = find (rw, &c, &kc);
      g_assert_cmpfloat (f.ts_rtt_s, >, 0);
      g_assert_cmpfloat (f.ts_rtt_min_s, >=, 0.015);
    }
}

/* Timestamps in another layout (first, without NOPs), or on a connection
 * whose handshake was not seen: no RTT, the segment unchanged. */
static void
test_timestamps_ignored (void)
{
  g_autoptr(WfRwnd) rw = load ();
  guint8 o[12];
  Conn c;
  guint kc;
  WfRwndFlow f;

  f = started (rw, &c, AF_INET, 47100);
  for (guint32 k = 0; k < 3; k++)
    {
      ts_opts (o, 100 + k, 50 + k);
      memmove (o, o + 2, 10);
      o[10] = o[11] = 1;
      run_unchanged (rw, segment (&c, FALSE, ACK, 5001, 1001, 500, o, 12));
      ts_opts (o, 50 + k + 1, 100 + k);
      memmove (o, o + 2, 10);
      o[10] = o[11] = 1;
      run_unchanged (rw, segment (&c, TRUE, ACK, 1001, 5001, 500, o, 12));
    }
  f = find (rw, &c, &kc);
  g_assert_cmpfloat (f.ts_rtt_s, ==, 0);

  conn_init (&c, AF_INET, 47101);  /* no handshake */
  for (guint32 k = 0; k < 3; k++)
    {
      ts_seg (rw, &c, FALSE, 100 + k, 50 + k);
      ts_seg (rw, &c, TRUE, 51 + k, 100 + k);
    }
  f = find (rw, &c, &kc);
  g_assert_false (f.handshake_seen);
  g_assert_cmpfloat (f.ts_rtt_s, ==, 0);
}

static guint64
other_sum (WfRwnd *rw)
{
  g_autoptr(GError) error = NULL;
  guint64 b[WF_RWND_OTHER_N];

  g_assert_true (wf_rwnd_other_bytes (rw, b, &error));
  g_assert_no_error (error);
  return b[WF_RWND_OTHER_IN] + b[WF_RWND_OTHER_OUT];
}

/* The non-TCP counter (the UDP load of equal and rtt-fair): a UDP or
 * ICMP packet adds its frame's bytes, IPv4 and IPv6; a TCP segment,
 * controlled or not, adds nothing. */
static void
test_other_counted (void)
{
  g_autoptr(WfRwnd) rw = load ();
  guint64 expect = 0;

  g_assert_cmpuint (other_sum (rw), ==, 0);
  for (int family = AF_INET; family <= AF_INET6; family += AF_INET6 - AF_INET)
    {
      Conn c;
      GByteArray *p;
      gsize proto = family == AF_INET ? 14 + 9 : 14 + 6;

      conn_init (&c, family, 47000);
      handshake (rw, &c, 1460, 7, 1460, 7);
      run_unchanged (rw, with_payload (segment (&c, FALSE, ACK | PSH, 5001, 1001, 500, NULL, 0),
                                       200));
      g_assert_cmpuint (other_sum (rw), ==, expect);
      /* The same bytes as UDP (17), then as ICMP (1 / 58). */
      p = with_payload (segment (&c, TRUE, ACK, 1001, 5201, 500, NULL, 0), 100);
      p->data[proto] = 17;
      expect += p->len;
      run_unchanged (rw, p);
      g_assert_cmpuint (other_sum (rw), ==, expect);
      p = segment (&c, FALSE, ACK, 5201, 1001, 500, NULL, 0);
      p->data[proto] = family == AF_INET ? 1 : 58;
      expect += p->len;
      run_unchanged (rw, p);
      g_assert_cmpuint (other_sum (rw), ==, expect);
    }
}

/* Uncontrolled flows, UDP, fragments: byte for byte. */
static void
test_uncontrolled_unchanged (void)
{
  g_autoptr(WfRwnd) rw = load ();
  g_autoptr(GByteArray) udp = NULL;
  GByteArray *frag;
  Conn c;

  conn_init (&c, AF_INET, 45000);
  handshake (rw, &c, 1460, 7, 1460, 7);
  for (guint32 a = 0; a < 4; a++)
    {
      run_unchanged (rw, segment (&c, TRUE, ACK, 1001, 5001 + a * 1000000, 60000, NULL, 0));
      run_unchanged (rw, segment (&c, FALSE, ACK | PSH, 5001, 1001, 60000, NULL, 0));
    }
  /* The same bytes as UDP (protocol 17). */
  udp = segment (&c, TRUE, ACK, 1001, 5001, 60000, NULL, 0);
  udp->data[14 + 9] = 17;
  run_unchanged (rw, g_byte_array_ref (udp));
  /* A controlled flow's segment in a later fragment (offset != 0). */
  {
    guint kc;
    WfRwndFlow f = find (rw, &c, &kc);

    set_target (rw, &f, kc ^ 1, 6000);
    run_unchanged (rw, segment (&c, TRUE, ACK, 1001, 5001 + 9000000, 60000, NULL, 0));
    frag = segment (&c, TRUE, ACK, 1001, 5001 + 19000000, 60000, NULL, 0);
    frag->data[14 + 6] = 0x20;  /* MF */
    run_unchanged (rw, frag);
  }
}

/* The program loads with CAP_BPF and CAP_NET_ADMIN alone (what the unit
 * grants): no variable stack access, no pointer picked by path (both
 * need CAP_PERFMON). */
static gboolean
load_rwnd (GError **error)
{
  WfRwnd *rw = wf_rwnd_new (0, error);

  if (!rw)
    return FALSE;
  wf_rwnd_free (rw);
  return TRUE;
}

static void
test_loads_with_cap_bpf_only (void)
{
  wf_test_loads_with_cap_bpf_only (load_rwnd);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;

  /* Skipped without root or without BPF in the kernel; any other
   * failure to load (the verifier) fails. */
  if (geteuid () != 0)
    {
      printf ("SKIP: needs root\n");
      return 77;
    }
  if (!wf_rwnd_probe (&error))
    {
      printf ("%s: %s\n", strstr (error->message, "lacks BPF") ? "SKIP" : "FAIL",
              error->message);
      return strstr (error->message, "lacks BPF") ? 77 : 1;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rwnd/scales", test_scales);
  g_test_add_func ("/rwnd/ipv6-floor", test_ipv6_floor);
  g_test_add_func ("/rwnd/edge-kept", test_edge_kept);
  g_test_add_func ("/rwnd/syn-retransmitted", test_syn_retransmitted);
  g_test_add_func ("/rwnd/no-handshake", test_no_handshake);
  g_test_add_func ("/rwnd/uncontrolled-unchanged", test_uncontrolled_unchanged);
  g_test_add_func ("/rwnd/bytes-counted", test_bytes_counted);
  g_test_add_func ("/rwnd/timestamps-rtt", test_timestamps_rtt);
  g_test_add_func ("/rwnd/timestamps-ignored", test_timestamps_ignored);
  g_test_add_func ("/rwnd/other-counted", test_other_counted);
  g_test_add_func ("/rwnd/loads-with-cap-bpf-only", test_loads_with_cap_bpf_only);
  return g_test_run ();
}
