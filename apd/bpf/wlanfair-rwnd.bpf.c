// SPDX-License-Identifier: GPL-2.0-or-later
/* rwnd: lowers the receive window that a controlled TCP flow's receiver
 * advertises to its sender (SAP-LAW), at tc (clsact, direct action) on
 * both sides of the AP interface. The window scale is only negotiated in
 * the SYN and SYN-ACK, so it is learnt there; a connection whose handshake
 * went by before the program was attached is never touched. Nothing is
 * ever dropped: every path returns TC_ACT_OK. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "wlanfair-rwnd-shared.h"

char _license[] SEC ("license") = "GPL";

#define AF_INET   2
#define AF_INET6  10
#define TH_SYN    0x02
#define TH_RST    0x04
#define TH_ACK    0x10
#define WS_MAX    14            /* RFC 7323: larger shifts count as 14 */
#define SYN_RTX   (1 << 8)      /* a SYN was retransmitted: no RTT (Karn) */

/* Field [k] of an array of two in a map value, read or written without
 * indexing: clang turns `k ? a[1] : a[0]` (and if/else stores, volatile
 * or not) into a pointer picked by k, pointer arithmetic that differs by
 * path, which the verifier refuses without CAP_PERFMON (the unit grants
 * CAP_BPF and CAP_NET_ADMIN only). So: both fields read (volatile: both
 * loads stay) and the value picked; a store in each branch behind an asm
 * barrier of its own, which clang cannot sink into one. */
#define PICK(arr, k)                                                   \
  ({                                                                   \
    __typeof__ ((arr)[0]) _a0 = *(volatile __typeof__ ((arr)[0]) *) &(arr)[0]; \
    __typeof__ ((arr)[0]) _a1 = *(volatile __typeof__ ((arr)[0]) *) &(arr)[1]; \
    (k) ? _a1 : _a0;                                                   \
  })
#define PUT(arr, k, v)                                                 \
  do {                                                                 \
    if (k)                                                             \
      {                                                                \
        (arr)[1] = (v);                                                \
        asm volatile ("/* 1 */" ::: "memory");                         \
      }                                                                \
    else                                                               \
      {                                                                \
        (arr)[0] = (v);                                                \
        asm volatile ("/* 0 */" ::: "memory");                         \
      }                                                                \
  } while (0)

/* Set by the loader before load. */
const volatile __u32 wf_floor_mss = WF_RWND_FLOOR_MSS;

struct {
  __uint (type, BPF_MAP_TYPE_LRU_HASH);
  __uint (max_entries, WF_RWND_FLOWS_MAX);
  __type (key, struct wf_rwnd_key);
  __type (value, struct wf_rwnd_flow);
} flows SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_HASH);
  __uint (max_entries, WF_RWND_TARGETS_MAX);
  __type (key, struct wf_rwnd_tkey);
  __type (value, struct wf_rwnd_target);
} targets SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, WF_RWND_OTHER_N);
  __type (key, __u32);
  __type (value, __u64);
} other SEC (".maps");

/* The fixed part of the TCP header we read (linux/tcp.h's bitfields
 * depend on the host's byte order). */
struct tcp_fixed {
  __be16 source, dest;
  __be32 seq, ack_seq;
  __u8   doff_res, flags;
  __be16 window, check, urg_ptr;
};

struct ip4_fixed {
  __u8   ver_ihl, tos;
  __be16 tot_len, id, frag_off;
  __u8   ttl, protocol;
  __be16 check;
  __be32 saddr, daddr;
};

struct ip6_fixed {
  __be32 vtc_flow;
  __be16 payload_len;
  __u8   nexthdr, hop_limit;
  __u8   saddr[16], daddr[16];
};

struct syn_opts {
  __u16 mss;
  __u8  ws;
  __u8  has_ws;
};

struct opt_walk {
  __u8  buf[64];
  __u32 i, len;
  struct syn_opts o;
};

/* The walk's state lives in a map value, not on the stack: indexing the
 * stack by a variable (buf[i]) needs CAP_PERFMON ("variable stack access
 * prohibited for !root"), a map value does not, so CAP_BPF and
 * CAP_NET_ADMIN are enough to load the program (the unit's). */
struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct opt_walk);
} walk SEC (".maps");

/* Everything of the program that is not a register lives here, not on the
 * stack. Linux 6.1's verifier, without CAP_PERFMON, refuses a store of
 * fewer than 8 bytes (a byte of an address, a u16 field, a helper writing
 * a header) into a stack slot that held a spilled register ("attempt to
 * corrupt spilled pointer on stack", even for a spilled scalar), and clang
 * reuses slots freely: what loaded on 6.18 did not on Debian 12. A map
 * value has no such rule. Per CPU: a tc program runs to its end on one. */
struct scratch {
  struct tcp_fixed th;
  struct ip4_fixed ip4;
  struct ip6_fixed ip6;
  struct wf_rwnd_key key;
  struct wf_rwnd_tkey tk;
  struct wf_rwnd_flow nf;
  __u8   src[16], dst[16];
  __u8   tsopt[12];
  __be16 old_be, new_be;
};

struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct scratch);
} scratch SEC (".maps");

/* bpf_loop's context must be on the stack: it carries the pointer. */
struct walk_ctx {
  struct opt_walk *w;
};

/* One option; bpf_loop (5.17+) verifies this once, where an unrolled
 * walk over 40 bytes of options is too many states for the verifier. */
static long
opt_step (__u32 n, void *data)
{
  struct opt_walk *w = ((struct walk_ctx *) data)->w;
  __u32 i = w->i, olen;
  __u8 kind;

  if (i >= w->len || i >= 40)
    return 1;
  kind = w->buf[i & 63];
  if (kind == 0)
    return 1;
  if (kind == 1)
    {
      w->i = i + 1;
      return 0;
    }
  olen = w->buf[(i + 1) & 63];
  if (olen < 2 || i + olen > w->len)
    return 1;
  if (kind == 2 && olen == 4)
    w->o.mss = (__u16) (w->buf[(i + 2) & 63] << 8 | w->buf[(i + 3) & 63]);
  else if (kind == 3 && olen == 3)
    {
      w->o.ws = w->buf[(i + 2) & 63];
      w->o.has_ws = 1;
    }
  w->i = i + olen;
  return 0;
}

/* MSS and window scale of a SYN's options, in the walk's map value (all
 * 0 when there are none); NULL only if that map has no value. Keys on the
 * stack are 8 bytes wide (an array map reads the first 4: little endian),
 * for the rule above. */
static __always_inline const struct syn_opts *
parse_syn_opts (struct __sk_buff *skb, __u32 off, __u32 len)
{
  __u64 zero = 0;
  struct opt_walk *w = bpf_map_lookup_elem (&walk, &zero);
  struct walk_ctx ctx;

  if (!w)
    return NULL;
  __builtin_memset (w, 0, sizeof *w);
  if (len < 1 || len > 40)
    return &w->o;
  /* 6.1's verifier learns nothing from len == 0 having been ruled out
   * (the helper's size must be at least 1): the same len, in a form whose
   * bounds it can see (1..64, the buffer's size). The barrier keeps clang
   * from folding it back. */
  asm volatile ("" : "+r" (len));
  if (bpf_skb_load_bytes (skb, off, w->buf, ((len - 1) & 63) + 1) < 0)
    return &w->o;
  w->len = len;
  ctx.w = w;
  bpf_loop (40, opt_step, &ctx, 0);
  if (w->o.ws > WS_MAX)
    w->o.ws = WS_MAX;
  return &w->o;
}

/* A packet no window can hold back: counted (per CPU, no atomics). At
 * tc ingress skb->ingress_ifindex is the interface itself; at egress it
 * is where a forwarded packet came in, or 0 for the host's own. */
static __always_inline void
count_other (struct __sk_buff *skb)
{
  __u64 k = skb->ingress_ifindex == skb->ifindex ? WF_RWND_OTHER_IN : WF_RWND_OTHER_OUT;
  __u64 *v = bpf_map_lookup_elem (&other, &k);

  if (v)
    *v += skb->len;
}

/* 1 when (a, pa) sorts after (b, pb). */
static __always_inline int
endpoint_after (const __u8 *a, __u16 pa, const __u8 *b, __u16 pb)
{
  for (int k = 0; k < 16; k++)
    if (a[k] != b[k])
      return a[k] > b[k];
  return pa > pb;
}

/* Endpoint s's SYN options. Branches, not [s]: clang turns a stack
 * address plus an index into an OR the verifier refuses. */
static __always_inline void
set_side (struct wf_rwnd_flow *f, __u32 s, const struct syn_opts *o)
{
  if (s)
    {
      f->wscale[1] = o->ws;
      f->mss[1] = o->mss;
    }
  else
    {
      f->wscale[0] = o->ws;
      f->mss[0] = o->mss;
    }
}

/* SYN or SYN-ACK from endpoint s. */
static __always_inline void
on_syn (struct __sk_buff *skb, struct scratch *sc, struct wf_rwnd_flow *f, __u32 s,
        __u8 flags, __u32 opt_off, __u32 opt_len, __u64 now)
{
  const struct syn_opts *o = parse_syn_opts (skb, opt_off, opt_len);
  __u16 syn_bit = s ? WF_RWND_SYN1 : WF_RWND_SYN0;
  __u16 ws_bit = s ? WF_RWND_WS1 : WF_RWND_WS0;
  struct wf_rwnd_flow *nf = &sc->nf;

  if (!o)
    return;
  if (!(flags & TH_ACK))
    {
      /* A retransmitted SYN keeps what the first one recorded; a SYN
       * after a completed handshake (port reuse) starts afresh. */
      if (f && f->syn_side == s && !(f->flags & (WF_RWND_ACKED | WF_RWND_NO_HS)))
        {
          f->flags |= SYN_RTX;
          f->last_ns = now;
          return;
        }
      __builtin_memset (nf, 0, sizeof *nf);
      nf->syn_ns = now;
      nf->last_ns = now;
      nf->syn_side = (__u8) s;
      nf->flags = syn_bit | (o->has_ws ? ws_bit : 0);
      set_side (nf, s, o);
      bpf_map_update_elem (&flows, &sc->key, nf, BPF_ANY);
      return;
    }
  /* SYN-ACK: only for a SYN seen from the other side, recorded once. */
  if (!f)
    {
      __builtin_memset (nf, 0, sizeof *nf);
      nf->flags = WF_RWND_NO_HS;
      nf->syn_ns = now;
      nf->last_ns = now;
      bpf_map_update_elem (&flows, &sc->key, nf, BPF_ANY);
      return;
    }
  f->last_ns = now;
  if (f->syn_side == s || (f->flags & (syn_bit | WF_RWND_NO_HS)))
    return;
  set_side (f, s, o);
  f->flags |= syn_bit | (o->has_ws ? ws_bit : 0);
}

/* A segment from endpoint r (the receiver) to its peer d (the sender). */
static __always_inline void
on_ack (struct __sk_buff *skb, struct scratch *sc, struct wf_rwnd_flow *f, __u32 r,
        __u32 l4off, __u64 now)
{
  __u32 d = r ^ 1;
  struct tcp_fixed *th = &sc->th;
  struct wf_rwnd_target *t;
  __u32 scale, mss, want, ack, orig, nw;
  __u16 edge_bit = d ? WF_RWND_EDGE1 : WF_RWND_EDGE0;

  f->last_ns = now;
  /* The third segment of the handshake: the RTT as seen from here. */
  if (r == f->syn_side && !(f->flags & WF_RWND_ACKED))
    {
      f->flags |= WF_RWND_ACKED;
      if (!(f->flags & SYN_RTX) && now > f->syn_ns)
        f->rtt_us = (__u32) ((now - f->syn_ns) / 1000);
    }
  sc->tk.flow = sc->key;
  sc->tk.sender = d;
  t = bpf_map_lookup_elem (&targets, &sc->tk);
  if (!t || t->window == 0)
    return;

  scale = (f->flags & WF_RWND_WS0) && (f->flags & WF_RWND_WS1) ? PICK (f->wscale, r) : 0;
  if (scale > WS_MAX)
    scale = WS_MAX;
  mss = PICK (f->mss, r);
  if (mss == 0)
    mss = sc->key.family == AF_INET6 ? WF_RWND_MSS_V6 : WF_RWND_MSS_V4;
  want = t->window;
  if (want < wf_floor_mss * mss)
    want = wf_floor_mss * mss;
  ack = bpf_ntohl (th->ack_seq);
  orig = bpf_ntohs (th->window);
  if (f->flags & edge_bit)
    {
      /* Never take back a right edge already granted: the window shrinks
       * as the ACKs catch up with it. */
      __s32 room = (__s32) (PICK (f->edge, d) - ack);

      if (room > 0 && (__u32) room > want)
        want = (__u32) room;
      nw = (want + (1u << scale) - 1) >> scale;
      if (nw > 0xffff)
        nw = 0xffff;
    }
  else
    nw = orig;  /* the first one: let it through, it is the edge to keep */
  if (nw < orig)
    {
      sc->old_be = th->window;
      sc->new_be = bpf_htons ((__u16) nw);
      /* The window and the checksum change by opposite amounts, so a
       * CHECKSUM_COMPLETE skb->csum stays right; bpf_l4_csum_replace
       * leaves a CHECKSUM_PARTIAL one (a pseudo-header sum) alone. */
      if (bpf_skb_store_bytes (skb, l4off + 14, &sc->new_be, 2, 0) < 0)
        return;
      if (bpf_l4_csum_replace (skb, l4off + 16, sc->old_be, sc->new_be, 2) < 0)
        {
          bpf_skb_store_bytes (skb, l4off + 14, &sc->old_be, 2, 0);
          return;
        }
      /* Both fields, one by 0: a pointer picked by d (which clang makes
       * of any if/else here) is pointer arithmetic that differs by path,
       * refused without CAP_PERFMON. */
      __sync_fetch_and_add (&f->rewritten[0], d ? 0 : 1);
      __sync_fetch_and_add (&f->rewritten[1], d ? 1 : 0);
    }
  else
    nw = orig;
  PUT (f->edge, d, ack + (nw << scale));
  PUT (f->clamp, d, nw << scale);
  f->flags |= edge_bit;
}

/* A sample of leg k (microseconds): smoothed, the window's lowest, the
 * lowest ever. */
static __always_inline void
leg_sample (struct wf_rwnd_flow *f, __u32 k, __u32 us, __u64 now)
{
  __u64 start = PICK (f->win_ns, k);
  __u32 cur = PICK (f->win_min_us, k), low = PICK (f->leg_min_us, k);
  __u32 leg = PICK (f->leg_us, k);

  if (us == 0)
    us = 1;  /* 0 means "none" */
  /* Unsigned both ways: BPF has no signed division before cpu v4. */
  if (!leg)
    leg = us;
  else if (us >= leg)
    leg += (us - leg) >> 3;
  else
    leg -= (leg - us) >> 3;
  PUT (f->leg_us, k, leg ? leg : 1);
  if (!start || now - start >= WF_RWND_RTT_WINDOW_NS)
    {
      /* A window with no sample in between leaves nothing to carry. */
      PUT (f->prev_min_us, k, start && now - start < 2 * WF_RWND_RTT_WINDOW_NS ? cur : 0);
      PUT (f->win_ns, k, now);
      PUT (f->win_min_us, k, us);
    }
  else if (us < cur)
    PUT (f->win_min_us, k, us);
  if (!low || us < low)
    PUT (f->leg_min_us, k, us);
}

/* The timestamps of a segment from endpoint s (doff: its header's 32-bit
 * words). Only the layout every common stack sends after the handshake
 * (NOP, NOP, TS first): one load, no option walk per packet; other
 * layouts give no sample. Ingress and egress may race on one entry: a
 * lost or odd sample, no more. A global function: the verifier checks it
 * once, not again on each path of its caller (inlined, its branches
 * multiplied the caller's and Linux 6.1 gave up at a million
 * instructions: E2BIG). */
__noinline int
wf_rwnd_timestamps (struct __sk_buff *skb, struct wf_rwnd_flow *f, __u32 s, __u32 doff,
                    __u32 l4off)
{
  __u64 zero = 0, now = bpf_ktime_get_ns ();
  struct scratch *sc = bpf_map_lookup_elem (&scratch, &zero);
  const __u8 *o;
  __u32 val, ecr, wait;
  __u64 since;

  if (!sc || !f || s > 1 || doff < 8 || l4off > 1024)
    return 0;
  o = sc->tsopt;
  if (bpf_skb_load_bytes (skb, l4off + 20, sc->tsopt, 12) < 0)
    return 0;
  if (o[0] != 1 || o[1] != 1 || o[2] != 8 || o[3] != 10)
    return 0;
  val = (__u32) o[4] << 24 | (__u32) o[5] << 16 | (__u32) o[6] << 8 | o[7];
  ecr = (__u32) o[8] << 24 | (__u32) o[9] << 16 | (__u32) o[10] << 8 | o[11];
  /* The end of the other side's timing: s echoes it (leg s), or echoes
   * a later TSval (that one was lost or never echoed: time the next). */
  since = PICK (f->ts_ns, s ^ 1);
  wait = PICK (f->ts_wait, s ^ 1);
  if (since && now > since)
    {
      __u64 us = (now - since) / 1000;

      if (ecr == wait)
        {
          if (us < 60000000)
            leg_sample (f, s, (__u32) us, now);
          PUT (f->ts_ns, s ^ 1, 0);
        }
      else if ((__s32) (ecr - wait) > 0 || us > 10000000)
        PUT (f->ts_ns, s ^ 1, 0);
    }
  /* The start of one: the first segment that carries a new TSval. */
  if (val != PICK (f->ts_last, s))
    {
      PUT (f->ts_last, s, val);
      if (!PICK (f->ts_ns, s))
        {
          PUT (f->ts_wait, s, val);
          PUT (f->ts_ns, s, now);
        }
    }
  return 1;
}

SEC ("tc")
int
wf_rwnd (struct __sk_buff *skb)
{
  __u64 zero = 0;
  struct scratch *sc = bpf_map_lookup_elem (&scratch, &zero);
  struct tcp_fixed *th;
  struct wf_rwnd_key *key;
  struct wf_rwnd_flow *f;
  __u32 l4off, l4len, s, hlen;
  __u64 now;

  if (!sc)
    return TC_ACT_OK;
  th = &sc->th;
  key = &sc->key;
  __builtin_memset (key, 0, sizeof *key);
  __builtin_memset (sc->src, 0, sizeof sc->src);
  __builtin_memset (sc->dst, 0, sizeof sc->dst);
  if (skb->protocol == bpf_htons (ETH_P_IP))
    {
      struct ip4_fixed *ip = &sc->ip4;

      if (bpf_skb_load_bytes (skb, ETH_HLEN, ip, sizeof *ip) < 0 || (ip->ver_ihl >> 4) != 4)
        return TC_ACT_OK;
      if (ip->protocol != IPPROTO_TCP)
        {
          count_other (skb);
          return TC_ACT_OK;
        }
      if (ip->frag_off & bpf_htons (0x3fff))
        return TC_ACT_OK;
      hlen = (ip->ver_ihl & 0xf) * 4;
      if (hlen < 20)
        return TC_ACT_OK;
      l4off = ETH_HLEN + hlen;
      l4len = bpf_ntohs (ip->tot_len) - hlen;
      __builtin_memcpy (sc->src, &ip->saddr, 4);
      __builtin_memcpy (sc->dst, &ip->daddr, 4);
      key->family = AF_INET;
    }
  else if (skb->protocol == bpf_htons (ETH_P_IPV6))
    {
      struct ip6_fixed *ip6 = &sc->ip6;

      /* Extension headers: passed untouched (and counted as other). */
      if (bpf_skb_load_bytes (skb, ETH_HLEN, ip6, sizeof *ip6) < 0)
        return TC_ACT_OK;
      if (ip6->nexthdr != IPPROTO_TCP)
        {
          count_other (skb);
          return TC_ACT_OK;
        }
      l4off = ETH_HLEN + sizeof *ip6;
      l4len = bpf_ntohs (ip6->payload_len);
      __builtin_memcpy (sc->src, ip6->saddr, 16);
      __builtin_memcpy (sc->dst, ip6->daddr, 16);
      key->family = AF_INET6;
    }
  else
    return TC_ACT_OK;

  if (bpf_skb_load_bytes (skb, l4off, th, sizeof *th) < 0 || (th->doff_res >> 4) < 5)
    return TC_ACT_OK;

  s = endpoint_after (sc->src, th->source, sc->dst, th->dest);
  if (s)
    {
      __builtin_memcpy (key->addr[0], sc->dst, 16);
      __builtin_memcpy (key->addr[1], sc->src, 16);
      key->port[0] = th->dest;
      key->port[1] = th->source;
    }
  else
    {
      __builtin_memcpy (key->addr[0], sc->src, 16);
      __builtin_memcpy (key->addr[1], sc->dst, 16);
      key->port[0] = th->source;
      key->port[1] = th->dest;
    }

  now = bpf_ktime_get_ns ();
  f = bpf_map_lookup_elem (&flows, key);
  if (th->flags & TH_SYN)
    {
      if (!(th->flags & TH_RST))
        on_syn (skb, sc, f, s, th->flags, l4off + 20, (th->doff_res >> 4) * 4 - 20, now);
      return TC_ACT_OK;
    }
  if (!f)
    {
      /* Mid-connection: remembered, so the status can say why it is left
       * alone. */
      if (!(th->flags & TH_RST))
        {
          __builtin_memset (&sc->nf, 0, sizeof sc->nf);
          sc->nf.flags = WF_RWND_NO_HS;
          sc->nf.last_ns = now;
          bpf_map_update_elem (&flows, key, &sc->nf, BPF_NOEXIST);
        }
      return TC_ACT_OK;
    }
  if ((f->flags & (WF_RWND_SYN0 | WF_RWND_SYN1)) != (WF_RWND_SYN0 | WF_RWND_SYN1) ||
      (f->flags & WF_RWND_NO_HS))
    {
      f->last_ns = now;
      return TC_ACT_OK;
    }
  if (!(th->flags & TH_RST))
    wf_rwnd_timestamps (skb, f, s, th->doff_res >> 4, l4off);
  /* Bytes per sender: the actuator splits a station's rate among the
   * flows that move data. (A GSO packet counts as one IP packet.) */
  if (l4len > (__u32) (th->doff_res >> 4) * 4)
    {
      __u32 payload = l4len - (th->doff_res >> 4) * 4;

      /* Both fields, one by 0 (see on_ack). */
      __sync_fetch_and_add (&f->bytes[0], s ? 0 : payload);
      __sync_fetch_and_add (&f->bytes[1], s ? payload : 0);
    }
  if ((th->flags & (TH_ACK | TH_RST)) == TH_ACK)
    on_ack (skb, sc, f, s, l4off, now);
  else
    f->last_ns = now;
  return TC_ACT_OK;
}
