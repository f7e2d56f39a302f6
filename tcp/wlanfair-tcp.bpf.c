// SPDX-License-Identifier: GPL-2.0-or-later
/* ackloss_reno and ackloss_cubic: Reno and CUBIC (through the kernel's own
 * functions, as kfuncs) plus the ACK-loss detector of
 * wlanfair-ackloss-core.h; and the sock_ops program that gives connections
 * leaving through Wi-Fi the chosen CC (scope=wifi). */
#include <linux/bpf.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "wlanfair-tcp-kernel.h"
#include "wlanfair-ackloss-core.h"
#include "wlanfair-ca-repair.h"
#include "wlanfair-tcp-shared.h"

char _license[] SEC ("license") = "GPL";

/* Set by the loader before load (--thresh, --beta, --confirm, --confirm-rate,
 * --min-queue-delay, --reduction, --cc). */
const volatile __u32 wf_thresh = WF_ACKLOSS_THRESH_DEFAULT;
const volatile __u32 wf_beta = WF_ACKLOSS_BETA_DEFAULT;
const volatile __u32 wf_confirm = WF_ACKLOSS_CONFIRM_DEFAULT;
const volatile __u32 wf_rate = WF_ACKLOSS_RATE_DEFAULT;
const volatile __u32 wf_min_qdelay_us = WF_ACKLOSS_QDELAY_DEFAULT_US;
const volatile __u32 wf_reduction = WF_ACKLOSS_REDUCTION_DEFAULT;
const volatile char wf_scope_cc[WF_CC_NAME_MAX] = "ackloss_cubic";

struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, WF_CC_COUNT);
  __type (key, __u32);
  __type (value, struct wf_ackloss_counters);
} ackloss_stats SEC (".maps");

/* Local addresses of the Wi-Fi interfaces, kept by the loader. */
struct {
  __uint (type, BPF_MAP_TYPE_HASH);
  __uint (max_entries, WF_WIFI_ADDRS_MAX);
  __type (key, struct wf_addr_key);
  __type (value, __u32); /* ifindex, for the logs */
} wifi_addrs SEC (".maps");

/* Weak: a kernel without CUBIC built in still loads ackloss_reno; the
 * loader does not load the cubic programs there. */
extern __u32 tcp_reno_ssthresh (struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid (struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd (struct sock *sk) __ksym;
extern void cubictcp_init (struct sock *sk) __ksym __weak;
extern __u32 cubictcp_recalc_ssthresh (struct sock *sk) __ksym __weak;
extern void cubictcp_cong_avoid (struct sock *sk, __u32 ack, __u32 acked) __ksym __weak;
extern void cubictcp_state (struct sock *sk, __u8 new_state) __ksym __weak;
extern void cubictcp_cwnd_event (struct sock *sk, enum tcp_ca_event event) __ksym __weak;
extern void cubictcp_acked (struct sock *sk, const struct ack_sample *sample) __ksym __weak;

/* CUBIC's struct bictcp (60 bytes on 5.15 to 6.18) comes first in
 * icsk_ca_priv; our state follows. */
struct wf_ca {
  __u32 base[16];
  struct wf_ackloss_state al;
};
_Static_assert (sizeof (struct wf_ca) <= ICSK_CA_PRIV_SIZE, "icsk_ca_priv overflow");

static __always_inline struct wf_ackloss_state *
al_state (struct sock *sk)
{
  return &((struct wf_ca *) inet_csk (sk)->icsk_ca_priv)->al;
}

static __always_inline void
al_init (struct sock *sk)
{
  struct tcp_sock *tp = tcp_sk (sk);

  wf_ackloss_init (al_state (sk), tp->snd_una, tp->snd_nxt);
}

static __always_inline __u8
sk_ca_state (struct sock *sk)
{
  return (__u8) BPF_CORE_READ_BITFIELD (inet_csk (sk), icsk_ca_state);
}

/* Puts back what a callback the kernel skipped would have set
 * (wlanfair-ca-repair.h): before the detector and before the kernel's own
 * recovery and cwnd update for this ACK use the window. */
static __always_inline void
ca_repair (struct sock *sk, __u32 cc, __u8 state, struct wf_ackloss_counters *c)
{
  struct tcp_sock *tp = tcp_sk (sk);
  struct wf_ca_window w = { .cwnd = tp->snd_cwnd, .ssthresh = tp->snd_ssthresh,
                            .prior_cwnd = tp->prior_cwnd,
                            .prior_ssthresh = tp->prior_ssthresh, .ca_state = state };
  __u32 bad = wf_ca_repair_check (&w);

  if (!bad)
    return;
  if (bad & WF_CA_REPAIR_SSTHRESH)
    {
      if (cc == WF_CC_CUBIC)
        {
          /* CUBIC's own ssthresh() also records the loss (W_max, epoch). */
          __u32 cwnd = tp->snd_cwnd;

          tp->snd_cwnd = wf_ca_repair_base_cwnd (&w);
          w.ssthresh = cubictcp_recalc_ssthresh (sk);
          tp->snd_cwnd = cwnd;
        }
      else
        w.ssthresh = wf_ca_repair_reno_ssthresh (&w);
      tp->snd_ssthresh = w.ssthresh;
      if (c)
        c->repaired_ssthresh++;
    }
  if (bad & WF_CA_REPAIR_CWND)
    {
      tp->snd_cwnd = wf_ca_repair_cwnd (&w);
      if (c)
        c->repaired_cwnd++;
    }
}

/* Every ACK the kernel shows us: repairs first, then the detector.
 * Returns 1 when the detector halved cwnd; *before is cwnd before that. */
static __always_inline int
al_ack (struct sock *sk, __u32 cc, __u32 *before)
{
  struct tcp_sock *tp = tcp_sk (sk);
  struct wf_ackloss_state *s = al_state (sk);
  struct wf_ackloss_params p = { .thresh = wf_thresh, .beta = wf_beta, .confirm = wf_confirm,
                               .rate = wf_rate, .min_qdelay_us = wf_min_qdelay_us };
  struct wf_ackloss_counters *c = bpf_map_lookup_elem (&ackloss_stats, &cc);
  __u8 state = sk_ca_state (sk);
  __u32 cwnd;

  ca_repair (sk, cc, state, c);
  *before = tp->snd_cwnd;

  /* A CC set at connect time (sock_ops, setsockopt before connect) is
   * initialised before the ISN is in snd_una; the first ACK primes. */
  if (!s->primed)
    {
      __u8 ca_state = s->ca_state;

      wf_ackloss_init (s, tp->snd_una, tp->snd_nxt);
      s->ca_state = ca_state;
      s->primed = 1;
      if (c)
        c->acks++;
      return 0;
    }
  /* The CA state is read here, not kept from set_state: one place for it,
   * shared with the model (tests/test-ackloss.c). It changes after
   * in_ack_event within tcp_ack(), so it is seen one ACK late. */
  wf_ackloss_on_ca_state (s, state);
  wf_ackloss_on_rtt (s, &p, tp->srtt_us >> 3, tp->rtt_min.s[0].v);
  if (wf_ackloss_on_ack (s, &p, c, tp->snd_una, tp->snd_nxt, tp->mss_cache) != WF_ACKLOSS_HALVE)
    return 0;
  cwnd = wf_ackloss_reduce (tp->snd_cwnd, tp->srtt_us >> 3, tp->rtt_min.s[0].v,
                            (enum wf_ackloss_reduction) wf_reduction, wf_ackloss_b (s));
  if (c && cwnd < wf_ackloss_halve (tp->snd_cwnd))
    c->drained++;
  tp->snd_cwnd = cwnd;
  tp->snd_ssthresh = cwnd;
  return 1;
}

/* ackloss_reno */

SEC ("struct_ops/ackloss_reno_init")
void BPF_PROG (ackloss_reno_init, struct sock *sk)
{
  al_init (sk);
}

SEC ("struct_ops/ackloss_reno_ssthresh")
__u32 BPF_PROG (ackloss_reno_ssthresh, struct sock *sk)
{
  return tcp_reno_ssthresh (sk);
}

SEC ("struct_ops/ackloss_reno_cong_avoid")
void BPF_PROG (ackloss_reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
  tcp_reno_cong_avoid (sk, ack, acked);
}

SEC ("struct_ops/ackloss_reno_in_ack_event")
void BPF_PROG (ackloss_reno_in_ack_event, struct sock *sk, __u32 flags)
{
  __u32 cwnd;

  al_ack (sk, WF_CC_RENO, &cwnd);
}

SEC ("struct_ops/ackloss_reno_undo_cwnd")
__u32 BPF_PROG (ackloss_reno_undo_cwnd, struct sock *sk)
{
  return tcp_reno_undo_cwnd (sk);
}

SEC (".struct_ops")
struct tcp_congestion_ops ackloss_reno = {
  .init = (void *) ackloss_reno_init,
  .ssthresh = (void *) ackloss_reno_ssthresh,
  .cong_avoid = (void *) ackloss_reno_cong_avoid,
  .in_ack_event = (void *) ackloss_reno_in_ack_event,
  .undo_cwnd = (void *) ackloss_reno_undo_cwnd,
  .name = "ackloss_reno",
};

/* ackloss_cubic */

SEC ("struct_ops/ackloss_cubic_init")
void BPF_PROG (ackloss_cubic_init, struct sock *sk)
{
  cubictcp_init (sk);
  al_init (sk);
}

SEC ("struct_ops/ackloss_cubic_ssthresh")
__u32 BPF_PROG (ackloss_cubic_ssthresh, struct sock *sk)
{
  return cubictcp_recalc_ssthresh (sk);
}

SEC ("struct_ops/ackloss_cubic_cong_avoid")
void BPF_PROG (ackloss_cubic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
  cubictcp_cong_avoid (sk, ack, acked);
}

SEC ("struct_ops/ackloss_cubic_set_state")
void BPF_PROG (ackloss_cubic_set_state, struct sock *sk, __u8 new_state)
{
  cubictcp_state (sk, new_state);
}

SEC ("struct_ops/ackloss_cubic_cwnd_event")
void BPF_PROG (ackloss_cubic_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
  cubictcp_cwnd_event (sk, event);
}

SEC ("struct_ops/ackloss_cubic_in_ack_event")
void BPF_PROG (ackloss_cubic_in_ack_event, struct sock *sk, __u32 flags)
{
  /* CUBIC learns of the reduction as of a loss (new W_max, new epoch);
   * otherwise its cubic curve would pull cwnd straight back up. */
  struct tcp_sock *tp = tcp_sk (sk);
  __u32 cwnd;

  if (al_ack (sk, WF_CC_CUBIC, &cwnd))
    {
      __u32 reduced = tp->snd_cwnd;

      tp->snd_cwnd = wf_ackloss_cubic_origin (cwnd, reduced);
      cubictcp_recalc_ssthresh (sk);
      tp->snd_cwnd = reduced;
    }
}

SEC ("struct_ops/ackloss_cubic_acked")
void BPF_PROG (ackloss_cubic_acked, struct sock *sk, const struct ack_sample *sample)
{
  cubictcp_acked (sk, sample);
}

SEC ("struct_ops/ackloss_cubic_undo_cwnd")
__u32 BPF_PROG (ackloss_cubic_undo_cwnd, struct sock *sk)
{
  return tcp_reno_undo_cwnd (sk);
}

SEC (".struct_ops")
struct tcp_congestion_ops ackloss_cubic = {
  .init = (void *) ackloss_cubic_init,
  .ssthresh = (void *) ackloss_cubic_ssthresh,
  .cong_avoid = (void *) ackloss_cubic_cong_avoid,
  .set_state = (void *) ackloss_cubic_set_state,
  .cwnd_event = (void *) ackloss_cubic_cwnd_event,
  .in_ack_event = (void *) ackloss_cubic_in_ack_event,
  .pkts_acked = (void *) ackloss_cubic_acked,
  .undo_cwnd = (void *) ackloss_cubic_undo_cwnd,
  .name = "ackloss_cubic",
};

/* scope=wifi: a connection whose local address belongs to a Wi-Fi
 * interface gets the chosen CC as it opens (connect) or is accepted. The
 * source address is what routing picked for the egress interface. */
SEC ("sockops")
int
wf_scope_sockops (struct bpf_sock_ops *skops)
{
  struct wf_addr_key key = { 0 };
  char name[WF_CC_NAME_MAX];

  if (skops->op != BPF_SOCK_OPS_TCP_CONNECT_CB &&
      skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
    return 1;

  key.family = skops->family;
  if (skops->family == 2 /* AF_INET */)
    key.addr[0] = skops->local_ip4;
  else if (skops->family == 10 /* AF_INET6 */)
    {
      key.addr[0] = skops->local_ip6[0];
      key.addr[1] = skops->local_ip6[1];
      key.addr[2] = skops->local_ip6[2];
      key.addr[3] = skops->local_ip6[3];
    }
  else
    return 1;

  if (!bpf_map_lookup_elem (&wifi_addrs, &key))
    return 1;

  /* Element by element: a memcpy would drop the volatile and let clang
   * fold in the initial value instead of what the loader set. */
  for (int i = 0; i < WF_CC_NAME_MAX; i++)
    name[i] = wf_scope_cc[i];
  bpf_setsockopt (skops, 6 /* SOL_TCP */, 13 /* TCP_CONGESTION */, name, sizeof name);
  return 1;
}
