/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The carried reports' header parser: IPv4 (options, fragments, padding),
 * IPv6, cut frames, other ports and protocols. */
#include "config.h"

#include <linux/if_ether.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-apd-carried.h"

#define PORT 7455
static const guint8 payload[] = "{\"wlanfair_report\":1}";
#define PAYLOAD_LEN (sizeof payload - 1)

static void
put16 (guint8 *p, gsize v)
{
  p[0] = (guint8) (v >> 8);
  p[1] = (guint8) v;
}

/* UDP header + payload at p; its length. */
static gsize
udp (guint8 *p, guint16 dport)
{
  put16 (p, 40000);
  put16 (p + 2, dport);
  put16 (p + 4, 8 + PAYLOAD_LEN);
  p[6] = p[7] = 0;   /* no checksum: integrity is the HMAC's */
  memcpy (p + 8, payload, PAYLOAD_LEN);
  return 8 + PAYLOAD_LEN;
}

/* An IPv4 datagram with `options` bytes of options (a multiple of 4). */
static gsize
ipv4 (guint8 *buf, gsize options, guint16 dport, guint16 frag)
{
  gsize ihl = 20 + options, n;

  memset (buf, 0, ihl);
  buf[0] = (guint8) (0x40 | (ihl / 4));
  put16 (buf + 6, frag);
  buf[8] = 64;
  buf[9] = IPPROTO_UDP;
  memcpy (buf + 12, (guint8[]) { 10, 77, 0, 11 }, 4);
  memcpy (buf + 16, (guint8[]) { 10, 77, 0, 1 }, 4);
  for (gsize i = 20; i < ihl; i++)
    buf[i] = 1;   /* NOP options */
  n = ihl + udp (buf + ihl, dport);
  put16 (buf + 2, n);
  return n;
}

static gsize
ipv6 (guint8 *buf, guint8 next, guint16 dport)
{
  gsize n;

  memset (buf, 0, 40);
  buf[0] = 0x60;
  buf[6] = next;
  buf[7] = 64;
  buf[8] = 0xfe; buf[9] = 0x80; buf[23] = 0x11;    /* fe80::11 */
  buf[24] = 0xfd; buf[25] = 0x77; buf[39] = 0x01;  /* fd77::1 */
  n = udp (buf + 40, dport);
  put16 (buf + 4, n);
  return 40 + n;
}

static void
assert_report (const WfApdFrame *f)
{
  g_assert_cmpuint (f->payload_len, ==, PAYLOAD_LEN);
  g_assert_cmpuint (f->captured, ==, PAYLOAD_LEN);
  g_assert_cmpmem (f->payload, f->payload_len, payload, PAYLOAD_LEN);
  g_assert_cmpuint (f->src_port, ==, 40000);
}

static void
test_ipv4 (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n = ipv4 (buf, 0, PORT, 0);

  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_REPORT);
  assert_report (&f);
  g_assert_cmpint (f.family, ==, AF_INET);
  g_assert_cmpmem (f.src, 4, ((guint8[]) { 10, 77, 0, 11 }), 4);
  g_assert_cmpmem (f.dst, 4, ((guint8[]) { 10, 77, 0, 1 }), 4);
  /* DF set is no fragment. */
  put16 (buf + 6, 0x4000);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_REPORT);
}

static void
test_ipv4_options (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n = ipv4 (buf, 40, PORT, 0);   /* IHL 15: the longest header */

  g_assert_cmpint (buf[0] & 0xf, ==, 15);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_REPORT);
  assert_report (&f);
  n = ipv4 (buf, 8, PORT, 0);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_REPORT);
  assert_report (&f);
}

static void
test_ipv4_padding (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n = ipv4 (buf, 0, PORT, 0);

  /* Link padding after the datagram is not payload. */
  memset (buf + n, 0xee, 20);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n + 20, n + 20, PORT, &f), ==,
                   WF_APD_FRAME_REPORT);
  assert_report (&f);
}

static void
test_ipv6 (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n = ipv6 (buf, IPPROTO_UDP, PORT);

  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, n, n, PORT, &f), ==, WF_APD_FRAME_REPORT);
  assert_report (&f);
  g_assert_cmpint (f.family, ==, AF_INET6);
  g_assert_cmpint (f.src[0], ==, 0xfe);
  g_assert_cmpint (f.src[15], ==, 0x11);
  /* Extension headers (here a fragment header) are not followed. */
  n = ipv6 (buf, 44, PORT);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, n, n, PORT, &f), ==, WF_APD_FRAME_OTHER);
  n = ipv6 (buf, 0, PORT);   /* hop-by-hop */
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, n, n, PORT, &f), ==, WF_APD_FRAME_OTHER);
}

static void
test_truncated (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n4 = ipv4 (buf, 8, PORT, 0);

  /* Cut anywhere: in the IP header, in the options, in UDP, in the payload. */
  for (gsize cut = 0; cut < n4; cut++)
    g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, cut, cut, PORT, &f), !=,
                     WF_APD_FRAME_REPORT);
  for (gsize cut = 0; cut < 20; cut++)
    g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, cut, cut, PORT, &f), ==,
                     WF_APD_FRAME_MALFORMED);
  /* An IHL beyond the total length, and below 5. */
  buf[0] = 0x4f;
  put16 (buf + 2, 40);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n4, n4, PORT, &f), ==, WF_APD_FRAME_MALFORMED);
  n4 = ipv4 (buf, 0, PORT, 0);
  buf[0] = 0x44;
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n4, n4, PORT, &f), ==, WF_APD_FRAME_MALFORMED);
  /* A UDP length beyond the IP payload, or below its header. */
  n4 = ipv4 (buf, 0, PORT, 0);
  put16 (buf + 24, 8 + PAYLOAD_LEN + 1);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n4, n4, PORT, &f), ==, WF_APD_FRAME_MALFORMED);
  put16 (buf + 24, 7);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n4, n4, PORT, &f), ==, WF_APD_FRAME_MALFORMED);
  /* Wrong IP version for the ethertype. */
  n4 = ipv4 (buf, 0, PORT, 0);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, n4, n4, PORT, &f), ==, WF_APD_FRAME_MALFORMED);

  {
    gsize n6 = ipv6 (buf, IPPROTO_UDP, PORT);

    for (gsize cut = 0; cut < n6; cut++)
      g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, cut, cut, PORT, &f), ==,
                       WF_APD_FRAME_MALFORMED);
    put16 (buf + 4, 0);   /* a jumbogram's */
    g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, n6, n6, PORT, &f), ==,
                     WF_APD_FRAME_MALFORMED);
  }
}

/* Longer than the buffer (MSG_TRUNC's length): the headers check against
 * the frame's length, the payload is what the buffer holds. */
static void
test_cut_by_buffer (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n = ipv4 (buf, 0, PORT, 0);

  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n - 5, n, PORT, &f), ==, WF_APD_FRAME_REPORT);
  g_assert_cmpuint (f.payload_len, ==, PAYLOAD_LEN);
  g_assert_cmpuint (f.captured, ==, PAYLOAD_LEN - 5);
}

static void
test_wrong_port (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n = ipv4 (buf, 0, 7456, 0);

  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_OTHER);
  n = ipv6 (buf, IPPROTO_UDP, 53);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IPV6, buf, n, n, PORT, &f), ==, WF_APD_FRAME_OTHER);
  /* Not UDP, not IP. */
  n = ipv4 (buf, 0, PORT, 0);
  buf[9] = IPPROTO_TCP;
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_OTHER);
  g_assert_cmpint (wf_apd_frame_parse (ETH_P_ARP, buf, n, n, PORT, &f), ==, WF_APD_FRAME_OTHER);
}

static void
test_fragments (void)
{
  guint8 buf[256];
  WfApdFrame f;
  gsize n;

  /* The first fragment (MF), a middle one, the last one (offset only). */
  static const guint16 frags[] = { 0x2000, 0x2000 | 185, 370, 0x4000 | 0x2000 };

  for (gsize i = 0; i < G_N_ELEMENTS (frags); i++)
    {
      n = ipv4 (buf, 0, PORT, frags[i]);
      g_assert_cmpint (wf_apd_frame_parse (ETH_P_IP, buf, n, n, PORT, &f), ==,
                       WF_APD_FRAME_FRAGMENT);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd-carried/ipv4", test_ipv4);
  g_test_add_func ("/apd-carried/ipv4-options", test_ipv4_options);
  g_test_add_func ("/apd-carried/ipv4-padding", test_ipv4_padding);
  g_test_add_func ("/apd-carried/ipv6", test_ipv6);
  g_test_add_func ("/apd-carried/truncated", test_truncated);
  g_test_add_func ("/apd-carried/cut-by-buffer", test_cut_by_buffer);
  g_test_add_func ("/apd-carried/wrong-port", test_wrong_port);
  g_test_add_func ("/apd-carried/fragments", test_fragments);
  return g_test_run ();
}
