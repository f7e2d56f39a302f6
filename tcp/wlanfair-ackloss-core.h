/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss detector (Hashimoto et al., see docs/ackloss.md), shared by
 * the BPF congestion controls and the userspace unit test: no kernel or
 * libc calls, unsigned fixed-point arithmetic only (BPF has no floating
 * point, and clang 14 cannot compile signed 64-bit division for BPF). */
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

#define WF_ACKLOSS_Q 10                 /* fixed point: 1.0 == 1 << 10 */
#define WF_ACKLOSS_ONE (1u << WF_ACKLOSS_Q)
#define WF_ACKLOSS_SB_MAX (65535u << WF_ACKLOSS_Q)

/* Default smoothing factor beta of the ACK-span estimate, in 1/1024:
 * 1/8 (128). The estimate follows the receiver's ACK ratio (1 without
 * delayed ACKs, 2 with, more behind GRO) within ~8 ACKs, i.e. well within
 * one RTT at any useful window, while a single stretch ACK (SACK recovery,
 * a lost ACK itself) moves it by only 1/8 of its excess. That is the same
 * gain TCP gives its RTT estimator (RFC 6298's alpha). */
#define WF_ACKLOSS_BETA_DEFAULT 128u
#define WF_ACKLOSS_THRESH_DEFAULT 1u

enum wf_ackloss_action {
  WF_ACKLOSS_NONE = 0,
  WF_ACKLOSS_HALVE = 1, /* halve cwnd, ssthresh = new cwnd */
};

struct wf_ackloss_params {
  __u32 thresh;  /* thresh_ack_losses, >= 1 */
  __u32 beta;    /* smoothing factor in 1/1024, 1 .. 1024 */
};

/* Per-connection state: 20 bytes, fits beside CUBIC's in icsk_ca_priv. */
struct wf_ackloss_state {
  __u32 prev_ack;   /* snd_una at the previous ACK */
  __u32 sb;         /* smoothed ACK span in segments, Q10 */
  __u32 cnt;        /* cnt_ack_loss */
  __u32 round_end;  /* an ACK at or past this ends the RTT round */
  __u8  data_loss;
  __u8  wait_state;
  __u8  waiting_on_ackloss; /* wait entered on ACK loss, for the counters */
  __u8  ca_state;  /* TCP_CA_* as last told by set_state (glue-owned) */
};

/* Per congestion control; a per-CPU BPF array holds one per CC. */
struct wf_ackloss_counters {
  __u64 acks;                  /* ACKs seen */
  __u64 ack_losses;            /* lost ACKs detected */
  __u64 halvings;              /* cwnd halvings caused by ACK loss */
  __u64 suppressed_data_loss;  /* detections dropped: data loss in the round */
  __u64 suppressed_reorder;    /* detections dropped: count fell back (reordering) */
};

static __always_inline int
wf_ackloss_seq_before (__u32 a, __u32 b)
{
  return (__s32) (a - b) < 0;
}

static __always_inline void
wf_ackloss_init (struct wf_ackloss_state *s, __u32 snd_una, __u32 snd_nxt)
{
  s->prev_ack = snd_una;
  s->sb = 2 * WF_ACKLOSS_ONE;
  s->cnt = 0;
  s->round_end = snd_nxt;
  s->data_loss = 0;
  s->wait_state = 0;
  s->waiting_on_ackloss = 0;
  s->ca_state = 0;
}

/* b: the estimated number of segments one ACK covers, eq. (9), >= 1. */
static __always_inline __u32
wf_ackloss_b (const struct wf_ackloss_state *s)
{
  __u32 b = (s->sb + WF_ACKLOSS_ONE / 2) >> WF_ACKLOSS_Q;

  return b ? b : 1;
}

/* Once per RTT: the decision, after one round of waiting. */
static __always_inline enum wf_ackloss_action
wf_ackloss_round (struct wf_ackloss_state *s,
                  const struct wf_ackloss_params *p,
                  struct wf_ackloss_counters *c)
{
  enum wf_ackloss_action action = WF_ACKLOSS_NONE;

  if (s->wait_state)
    {
      if (s->cnt >= p->thresh && !s->data_loss)
        {
          action = WF_ACKLOSS_HALVE;
          if (c)
            c->halvings++;
        }
      else if (c && (s->waiting_on_ackloss || s->cnt >= p->thresh))
        {
          /* A detection the guards turned down: data loss in the round, or
           * the count fell back below the threshold (reordering). */
          if (s->data_loss)
            c->suppressed_data_loss++;
          else
            c->suppressed_reorder++;
        }
      s->data_loss = 0;
      s->cnt = 0;
      s->wait_state = 0;
      s->waiting_on_ackloss = 0;
    }
  else if (s->cnt >= p->thresh || s->data_loss)
    {
      s->wait_state = 1;
      s->waiting_on_ackloss = s->cnt >= p->thresh;
    }
  return action;
}

/* Every ACK, after snd_una moved: eq. (9)-(11), then the RTT round. */
static __always_inline enum wf_ackloss_action
wf_ackloss_on_ack (struct wf_ackloss_state *s,
                   const struct wf_ackloss_params *p,
                   struct wf_ackloss_counters *c,
                   __u32 ack, __u32 snd_nxt, __u32 mss)
{
  __u32 span_bytes;
  __u64 span_q, covered;

  if (c)
    c->acks++;
  if (mss == 0 || wf_ackloss_seq_before (ack, s->prev_ack))
    return WF_ACKLOSS_NONE;

  span_bytes = ack - s->prev_ack;
  span_q = ((__u64) span_bytes << WF_ACKLOSS_Q) / mss;
  /* sb = (1 - beta) sb + beta span, eq. (10) */
  span_q = ((__u64) (WF_ACKLOSS_ONE - p->beta) * s->sb + (__u64) p->beta * span_q)
           >> WF_ACKLOSS_Q;
  s->sb = span_q > WF_ACKLOSS_SB_MAX ? WF_ACKLOSS_SB_MAX : (__u32) span_q;

  /* cnt = max(floor(span / (b MSS)) - 1 + cnt, 0), eq. (11): an ACK that
   * covers fewer than b segments takes one back. */
  covered = span_bytes / ((__u64) wf_ackloss_b (s) * mss);
  if (covered >= 1)
    {
      s->cnt += covered - 1;
      if (c)
        c->ack_losses += covered - 1;
    }
  else if (s->cnt > 0)
    s->cnt--;
  s->prev_ack = ack;

  if (!wf_ackloss_seq_before (ack, s->round_end))
    {
      s->round_end = snd_nxt;
      return wf_ackloss_round (s, p, c);
    }
  return WF_ACKLOSS_NONE;
}

/* Data loss (recovery, RTO, ECN): normal recovery runs; the ACK-loss check
 * is suspended for the round. */
static __always_inline void
wf_ackloss_on_data_loss (struct wf_ackloss_state *s)
{
  s->data_loss = 1;
}

/* Reordering (dup ACKs, disorder): that ACK gap may not be a loss. */
static __always_inline void
wf_ackloss_on_reorder (struct wf_ackloss_state *s)
{
  if (s->cnt > 0)
    s->cnt--;
}

/* cwnd = max(cwnd / 2, 1); the caller sets ssthresh to the result. */
static __always_inline __u32
wf_ackloss_halve (__u32 cwnd)
{
  return cwnd / 2 ? cwnd / 2 : 1;
}
