/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the header parser of the reports a bridging AP
 * carries (wf_apd_frame_parse, apd/stations/wlanfair-apd-carried.c) on arbitrary
 * frames from the air. Input: 2 bytes ethertype (big-endian, as on the
 * wire: 0x0800 IPv4, 0x86dd IPv6, 0x8100 a VLAN tag the kernel left), 2
 * bytes of wire length beyond the bytes captured, then the frame from the
 * network header on. Built by run-fuzz carried; fuzz-main.c replays the
 * corpus (meson test carried-corpus); corpus-carried/gen-frames.py makes
 * the seeds (IPv4 with options, fragments, IPv6 with extension headers,
 * VLAN-tagged, truncated).
 *
 * Oracles beyond "no crash, no over-read (the frame ends where the buffer
 * does), no UB":
 *  - the kind is one of the four, and has a name;
 *  - a report is IPv4 only from ethertype 0x0800 and IPv6 only from
 *    0x86dd; its UDP header (8 bytes before the payload) is in the buffer
 *    and names the port and the source port given; the payload starts in
 *    the buffer and what is captured of it ends there too; captured <=
 *    payload_len <= the wire length;
 *  - a fragment is IPv4 only; anything else (a VLAN tag among them) is
 *    "other", never parsed as IP;
 *  - the same frame parses the same way twice. */
#include <linux/if_ether.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-apd-carried.h"
#include "wlanfair-report.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const guint16 port = WF_REPORT_PORT;
  WfApdFrame f, again;
  WfApdFrameKind kind;
  guint16 ethertype;
  const guint8 *pkt;
  gsize len, wire_len;

  if (size < 4)
    return 0;
  ethertype = (guint16) (data[0] << 8 | data[1]);
  pkt = data + 4;
  len = size - 4;
  wire_len = len + (gsize) (data[2] << 8 | data[3]);

  kind = wf_apd_frame_parse (ethertype, pkt, len, wire_len, port, &f);
  g_assert_cmpuint (kind, <=, WF_APD_FRAME_MALFORMED);
  g_assert_nonnull (wf_apd_frame_kind_name (kind));
  if (ethertype != ETH_P_IP && ethertype != ETH_P_IPV6)
    g_assert_cmpuint (kind, ==, WF_APD_FRAME_OTHER);
  if (kind == WF_APD_FRAME_FRAGMENT)
    g_assert_cmpuint (ethertype, ==, ETH_P_IP);
  if (kind == WF_APD_FRAME_REPORT)
    {
      const guint8 *udp = f.payload - 8;

      g_assert_true (f.family == (ethertype == ETH_P_IP ? AF_INET : AF_INET6));
      g_assert_true (udp >= pkt && f.payload <= pkt + len);
      g_assert_cmpuint ((guint) (udp[2] << 8 | udp[3]), ==, port);
      g_assert_cmpuint ((guint) (udp[0] << 8 | udp[1]), ==, f.src_port);
      g_assert_cmpuint (f.captured, <=, f.payload_len);
      g_assert_true (f.payload + f.captured <= pkt + len);
      g_assert_cmpuint (f.payload_len, <=, wire_len);
      /* The addresses come from the header in the buffer. */
      if (f.family == AF_INET)
        g_assert_true (memcmp (f.src, pkt + 12, 4) == 0 && memcmp (f.dst, pkt + 16, 4) == 0);
      else
        g_assert_true (memcmp (f.src, pkt + 8, 16) == 0 && memcmp (f.dst, pkt + 24, 16) == 0);
    }
  g_assert_cmpuint (wf_apd_frame_parse (ethertype, pkt, len, wire_len, port, &again), ==, kind);
  g_assert_true (memcmp (&f, &again, sizeof f) == 0);
  return 0;
}
