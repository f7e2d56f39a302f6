// SPDX-License-Identifier: GPL-2.0-or-later
/* ack-priority: at tc egress of the AP interface, TCP segments without
 * payload (pure ACKs, SYN, SYN-ACK, FIN, RST) and SYNs get DSCP CS6, so
 * that mac80211 queues them in the voice access category instead of
 * behind the best-effort data of the downloads. Behind stations that keep
 * deep transmit queues, a single best-effort FIFO at the AP loses the
 * uploads' ACKs and new connections' SYN-ACKs (docs/ackloss.md). Only
 * best-effort segments (DSCP 0) are re-marked: a DSCP somebody set is
 * theirs; the ECN bits are kept. Nothing is dropped: every path returns
 * TC_ACT_UNSPEC, so later filters (rwnd's) still run. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "wlanfair-ack-priority-shared.h"

char _license[] SEC ("license") = "GPL";

/* The program's name (wf_ackprio) is the kernel's: a restore after a
 * crash finds the filter by it, so it stays as older releases had it. */

#define TH_SYN 0x02
#define IP4_CSUM_OFF (ETH_HLEN + 10)

struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, WF_ACK_PRIO_N);
  __type (key, __u32);
  __type (value, __u64);
} counters SEC (".maps");

/* Headers are read into a per-CPU map value, not onto the stack: Linux
 * 6.1's verifier without CAP_PERFMON refuses stores narrower than 8 bytes
 * into stack slots clang reused (see wlanfair-rwnd.bpf.c); map keys are
 * 8-byte locals for the same reason. */
struct scratch {
  __u8 ip[40];
  __u8 th[16];
};

struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct scratch);
} scratch SEC (".maps");

static __always_inline void
count (__u64 k, __u64 n)
{
  __u64 *v = bpf_map_lookup_elem (&counters, &k);

  if (v)
    *v += n;
}

/* Whether the TCP segment at l4off, l4len bytes long, carries no payload
 * or is a SYN. */
static __always_inline int
control_segment (struct __sk_buff *skb, struct scratch *sc, __u32 l4off, __u32 l4len)
{
  if (bpf_skb_load_bytes (skb, l4off, sc->th, 14) < 0)   /* up to the flags */
    return 0;
  return (__u32) (sc->th[12] >> 4) * 4 >= l4len || (sc->th[13] & TH_SYN);
}

SEC ("tc")
int
wf_ackprio (struct __sk_buff *skb)
{
  __u64 zero = 0;
  struct scratch *sc = bpf_map_lookup_elem (&scratch, &zero);
  __u8 *ip;

  if (!sc)
    return TC_ACT_UNSPEC;
  ip = sc->ip;
  if (skb->protocol == bpf_htons (ETH_P_IP))
    {
      __u32 hlen;
      __u64 old, new;

      if (bpf_skb_load_bytes (skb, ETH_HLEN, ip, 20) < 0 || (ip[0] >> 4) != 4 ||
          ip[9] != IPPROTO_TCP || (ip[6] & 0x1f) || ip[7])  /* a fragment: no header */
        return TC_ACT_UNSPEC;
      hlen = (ip[0] & 0xf) * 4u;
      if (hlen < 20 || !control_segment (skb, sc, ETH_HLEN + hlen,
                                         ((__u32) ip[2] << 8 | ip[3]) - hlen))
        return TC_ACT_UNSPEC;
      if (ip[1] >> 2)
        {
          count (WF_ACK_PRIO_KEPT_PACKETS, 1);
          return TC_ACT_UNSPEC;
        }
      /* The header checksum covers the 16-bit word of version, IHL and
       * DS field. */
      old = bpf_htons ((__u16) (ip[0] << 8 | ip[1]));
      ip[1] = (__u8) (WF_ACK_PRIO_DSCP << 2 | (ip[1] & 3));
      new = bpf_htons ((__u16) (ip[0] << 8 | ip[1]));
      if (bpf_skb_store_bytes (skb, ETH_HLEN + 1, &ip[1], 1, 0) < 0 ||
          bpf_l3_csum_replace (skb, IP4_CSUM_OFF, old, new, 2) < 0)
        return TC_ACT_UNSPEC;
    }
  else if (skb->protocol == bpf_htons (ETH_P_IPV6))
    {
      __u32 tc;

      /* Extension headers: left alone (rare on ACKs). */
      if (bpf_skb_load_bytes (skb, ETH_HLEN, ip, 8) < 0 || (ip[0] >> 4) != 6 ||
          ip[6] != IPPROTO_TCP ||
          !control_segment (skb, sc, ETH_HLEN + 40, (__u32) ip[4] << 8 | ip[5]))
        return TC_ACT_UNSPEC;
      tc = (__u32) (ip[0] & 0xf) << 4 | ip[1] >> 4;
      if (tc >> 2)
        {
          count (WF_ACK_PRIO_KEPT_PACKETS, 1);
          return TC_ACT_UNSPEC;
        }
      /* No checksum covers the traffic class. */
      tc = WF_ACK_PRIO_DSCP << 2 | (tc & 3);
      ip[0] = (__u8) (0x60 | tc >> 4);
      ip[1] = (__u8) ((tc & 0xf) << 4 | (ip[1] & 0xf));
      if (bpf_skb_store_bytes (skb, ETH_HLEN, ip, 2, 0) < 0)
        return TC_ACT_UNSPEC;
    }
  else
    return TC_ACT_UNSPEC;
  count (WF_ACK_PRIO_MARKED_PACKETS, 1);
  count (WF_ACK_PRIO_MARKED_BYTES, skb->len);
  return TC_ACT_UNSPEC;
}
