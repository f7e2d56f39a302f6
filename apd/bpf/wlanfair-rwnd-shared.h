/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the rwnd BPF program (wlanfair-rwnd.bpf.c) and its loader
 * (wlanfair-rwnd.c): the maps' keys and values. */
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

#define WF_RWND_FLOWS_MAX    65536
#define WF_RWND_TARGETS_MAX  16384
#define WF_RWND_FLOOR_MSS    4      /* never below 4 segments */
#define WF_RWND_MSS_V4       1460   /* when the SYN carried no MSS */
#define WF_RWND_MSS_V6       1440
#define WF_RWND_RTT_WINDOW_NS 1000000000ull  /* a leg's current-RTT window */

/* A TCP connection, both directions under the same key: endpoint 0 is the
 * lower of the two (address, then port), so each direction finds it.
 * IPv4 addresses in addr[k][0..3], the rest zero. Ports in network order. */
struct wf_rwnd_key {
  __u8  addr[2][16];
  __u16 port[2];
  __u8  family;   /* AF_INET or AF_INET6 */
  __u8  pad[3];
};

/* The `other` map (a per-CPU array of __u64): bytes of the IP packets
 * that are not TCP (UDP, ICMP, IPv6 with extension headers...), which no
 * window holds back: the `equal` and `rtt-fair` policies share out what
 * they leave of the capacity. Frame bytes (skb->len) by direction. */
#define WF_RWND_OTHER_IN     0      /* entering the interface (tc ingress) */
#define WF_RWND_OTHER_OUT    1      /* leaving it (tc egress) */
#define WF_RWND_OTHER_N      2

/* A controlled direction: the data sender is endpoint `sender` of `flow`;
 * the value (struct wf_rwnd_target) is its target window in bytes. */
struct wf_rwnd_tkey {
  struct wf_rwnd_key flow;
  __u32 sender;   /* 0 or 1 */
};

struct wf_rwnd_target {
  __u32 window;   /* bytes; the floor still applies */
  __u32 pad;
};

enum {
  WF_RWND_SYN0     = 1 << 0,  /* endpoint 0's SYN (or SYN-ACK) seen */
  WF_RWND_SYN1     = 1 << 1,
  WF_RWND_WS0      = 1 << 2,  /* ... and it carried a window scale */
  WF_RWND_WS1      = 1 << 3,
  WF_RWND_ACKED    = 1 << 4,  /* the handshake's third segment seen */
  WF_RWND_NO_HS    = 1 << 5,  /* first seen mid-connection: never touched */
  WF_RWND_EDGE0    = 1 << 6,  /* edge[0] holds a right edge granted to 0 */
  WF_RWND_EDGE1    = 1 << 7,
};

/* One connection. Index [k] is about endpoint k: what it announced in its
 * SYN (scale, MSS), or what was done to the windows going TO it as a data
 * sender (rewritten, clamp, edge). */
struct wf_rwnd_flow {
  __u64 syn_ns;        /* first SYN seen (ktime) */
  __u64 last_ns;       /* last segment seen */
  __u64 rewritten[2];  /* segments whose window was lowered */
  __u64 bytes[2];      /* TCP payload bytes k sent (from the handshake on) */
  __u32 clamp[2];      /* bytes: the window last let through to k */
  __u32 edge[2];       /* sequence number: right edge last granted to k */
  __u32 rtt_us;        /* SYN -> the ACK of the SYN-ACK, at this hop; 0: none */
  /* The RTT from TCP timestamps (RFC 7323), the way pping measures it:
   * the first segment from k with a new TSval starts a timing, the first
   * from the other endpoint that echoes that TSval ends it. That is leg
   * k^1: from this hop to endpoint k^1 and back, queues included. The
   * RTT is leg[0] + leg[1]. Per leg: the smoothed value (what a window
   * cycles at: the bursts of the flows' own windows and delayed ACKs
   * included), the lowest sample of the last one to two windows (a
   * standing queue, as CoDel tells one from a passing burst), and the
   * lowest ever (no queue). */
  __u64 ts_ns[2];      /* when ts_wait[k] went by; 0: nothing of k's timed */
  __u64 win_ns[2];     /* when leg k's current window began; 0: no sample */
  __u32 ts_last[2];    /* the last TSval k sent */
  __u32 ts_wait[2];    /* the TSval of k's being timed */
  __u32 leg_us[2];     /* leg k, smoothed (gain 1/8, as srtt); 0: no sample */
  __u32 win_min_us[2]; /* leg k's lowest sample in the current window */
  __u32 prev_min_us[2];/* ... in the window before it; 0: none */
  __u32 leg_min_us[2]; /* leg k's lowest sample ever: no queue */
  __u16 mss[2];        /* announced in k's SYN; 0: none */
  __u8  wscale[2];     /* announced in k's SYN */
  __u8  syn_side;      /* which endpoint sent the SYN */
  __u8  pad;
  __u16 flags;         /* WF_RWND_* */
};
