/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss detector (Hashimoto et al., see docs/ackloss.md), shared by
 * the BPF congestion controls and the userspace unit test: no kernel or
 * libc calls, unsigned fixed-point arithmetic only (BPF has no floating
 * point, and clang 14 cannot compile signed 64-bit division for BPF).
 *
 * The published structure is kept (per-ACK count with the b estimate,
 * eq. (9)-(11); once-per-RTT decision after one round of waiting; data
 * loss suspends; reordering takes a count back; halve cwnd, set ssthresh),
 * with these robustness changes, each measured in the model of
 * tests/test-ackloss.c (thresh 1, beta 1/8):
 *  - b is taken from sb BEFORE this ACK's span enters it, and a span
 *    counted as lost ACKs enters sb capped at b + 2 (a burst of lost ACKs
 *    no longer inflates b so that the following normal ACKs take the
 *    count back);
 *  - ACKs that do not advance (span 0: dup ACKs) are no-ops;
 *  - warm-up: the first WF_ACKLOSS_WARMUP_ACKS advancing ACKs only train
 *    sb (initial value 2, Linux quickack start, GRO ratio);
 *  - spread gate: a span counts lost ACKs only if it also exceeds
 *    sb + 3 sv (sv: smoothed mean deviation of the span, like RTTVAR), so
 *    a receiver whose ACKs vary (GRO) is not read as losing ACKs;
 *  - confirmation (params.confirm, default on): the waiting round must
 *    itself count new lost ACKs, or (params.rate) the smoothed share of
 *    ACKs that follow a lost one must be at least 0.5 %; a congested AP
 *    queue drops ACKs thinly but persistently, a clean path's stretch
 *    ACKs are sporadic (model: 5 % thin loss, 996 halvings with the rate
 *    path, 143 with the waiting round alone; 0.25 % sporadic, 0);
 *  - cnt is cleared at each round end that does not start a wait (thresh
 *    is per RTT); beta is clamped to 2..1024; sb is rounded, not floored.
 * Model, old core -> this core (false halvings per 10,000 clean rounds;
 * measured before the rate path, with the waiting round's confirmation):
 *   lone burst of 1..10 lost ACKs, b = 1/2/4, confirm=0: 5/2/0 of 10 -> 10/10/10
 *   burst + 1 lost ACK in the next round, b = 1/2/4:     10/5/0 -> 10/10/10
 *   5/10/30 % random ACK loss, b = 2: first halving after 3.0/2.5/14.2 ->
 *     4.8/2.9/5.0 rounds; b = 1: 2.2/2.0/2.1 -> 2.5/2.1/3.0 rounds
 *   clean, quickack 16 then delayed; GRO 4; GRO 8:       20; 20; 20 -> 0; 0; 0
 *   clean, random GRO 2..8, cwnd 10/20/40/80:        62/46/21/3 -> 0/1/2/0
 *   clean, 0.5 % stretch ACKs (3..6 MSS) at b = 2, cwnd 10/20/40/80:
 *                                                146/333/624/1145 -> 3/8/38/160
 * (b = 4 under the old core: the start-up climb from b = 2 already halves.) */
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
 * 1/8 (128), the gain TCP gives its RTT estimator (RFC 6298's alpha).
 * Measured in the model with all the guards below: 1/4 is worse
 * everywhere (a single lost ACK at b = 2 missed, first halving at 30 %
 * ACK loss after 8.2 rounds instead of 5.0, more false halvings with GRO);
 * 1/16 is better with random GRO (0/0/0/0 instead of 0/1/2/0 false
 * halvings per 10,000 rounds) and at 30 % loss (2.0 rounds), but adapts
 * more slowly when the receiver's ACK ratio changes mid-connection (a
 * switch from 1 to 2 counts 5 lost ACKs instead of 3 and halves falsely
 * at cwnd 6 and 10, 1/8 only at cwnd 6). Valid values are 2..1024
 * (beta = 1 truncates sb to a standstill); others are clamped. */
#define WF_ACKLOSS_BETA_DEFAULT 128u
#define WF_ACKLOSS_BETA_MIN 2u
#define WF_ACKLOSS_THRESH_DEFAULT 1u
/* 1: halve only if the waiting round counted lost ACKs too; 0: the
 * published decision rule. */
#define WF_ACKLOSS_CONFIRM_DEFAULT 1u
/* ... or the smoothed share of lost ACKs (per advancing ACK, gain 1/1024:
 * over about the last thousand) is at least this: a congested AP's FIFO
 * drops ACKs persistently but thinly, often one per round and rarely in
 * two rounds in a row, so the waiting round alone confirmed too few
 * detections. Testbed, 30 s, 2 runs each, mean Jain of ackloss_cubic /
 * ackloss_reno at AP buffer 250, u2d8 and u5d5: gain 1/256 at 2 % (the
 * previous default) 0.79 / 0.74 and 0.77 / 0.79; gain 1/1024 at 2 %
 * 0.79 / 0.79 and 0.78 / 0.77, at 1 % 0.71 / 0.82 and 0.83 / 0.90, at
 * 0.5 % 0.94 / 0.94 and 0.91 / 0.94. Buffer 50 is about the same for all
 * (cubic 0.94-0.97, reno 0.82-0.86). The long window keeps sporadic loss
 * out: one lost ACK moves the share by 0.1 %, so 1 in 400 peaks at
 * 0.35 % (model: no halving, where the published rule halves on nearly
 * every one); a clean quickack path's stretch ACKs are about 0.3 % of its
 * ACKs. The price: a receiver switching from b = 1 to b = 2 counts 6
 * lost ACKs in 8 (0.58 %) and halves once. Q20: 1.0 == 1 << 20. */
#define WF_ACKLOSS_RATE_Q 20
#define WF_ACKLOSS_RATE_ONE (1u << WF_ACKLOSS_RATE_Q)
#define WF_ACKLOSS_RATE_DEFAULT_PERMILLE 5
#define WF_ACKLOSS_RATE_DEFAULT (WF_ACKLOSS_RATE_ONE * WF_ACKLOSS_RATE_DEFAULT_PERMILLE / 1000)
#define WF_ACKLOSS_RATE_GAIN_SHIFT 10
#define WF_ACKLOSS_RATE_SAMPLE_MAX 1u
/* No halving while the smoothed RTT is less than this above the path's
 * minimum RTT: an AP whose FIFO drops ACKs has a standing queue, while a
 * clean fast path's stretch ACKs (GRO/GSO, offloads) look like lost ACKs
 * without one. veth, one bulk flow, GSO on: srtt - min_rtt 20-170 us, 15 %
 * of ACKs counted as lost, 2360 halvings in 12 s and 78 % of cubic's
 * throughput without the gate. The testbed's flows run at an srtt of
 * about 32 ms over a sub-millisecond minimum; a real AP's 50 frames take
 * 0.6 ms at 1 Gbit/s, more with aggregation.
 * 0: off (the published rule). */
#define WF_ACKLOSS_QDELAY_DEFAULT_US 1000u
/* Advancing ACKs that only train sb after init: 16 quickacks plus the 5
 * ACKs sb needs from there to b = 2, with margin. */
#define WF_ACKLOSS_WARMUP_ACKS 32u
/* A span counted as lost ACKs enters sb and sv capped at b + 2 segments
 * (2b at b = 2): one lost ACK then moves sb by at most 2/8 segment, so b,
 * which rounds sb, stays put (a cap of 2b let a lost ACK at b = 4 lift b
 * to 5, and the next normal ACK took the count back); a real rise of the
 * ratio still gets through, 2 segments per step. Spans not counted enter
 * uncapped (capping the normal spread of GRO biased sb and sv low: 12
 * instead of 2 false halvings per 10,000 rounds, random GRO at cwnd 40). */
#define WF_ACKLOSS_CAP_EXCESS 2u
/* A span counts only if above sb + K sv (K = 3: clean random GRO 2..8 at
 * cwnd 10/20/40/80 gave 20/90/114/90 false halvings per 10,000 rounds
 * with K = 2, 0/1/2/0 with K = 3; at b = 1 or 2 with ACK loss sv stays
 * small, and detection there is unchanged). */
#define WF_ACKLOSS_SPREAD_K 3u

enum wf_ackloss_action {
  WF_ACKLOSS_NONE = 0,
  WF_ACKLOSS_HALVE = 1, /* halve cwnd, ssthresh = new cwnd */
};

struct wf_ackloss_params {
  __u32 thresh;  /* thresh_ack_losses, >= 1 (0 is taken as 1) */
  __u32 beta;    /* smoothing factor in 1/1024, 2 .. 1024 (clamped) */
  __u32 confirm; /* lost ACKs the waiting round must count too; 0: published rule */
  __u32 rate;    /* or: smoothed lost ACKs per ACK at least this, Q20; 0: off */
  __u32 min_qdelay_us; /* halve only with this much queueing delay; 0: off */
};

/* Per-connection state: 36 bytes, fits beside CUBIC's 64 in icsk_ca_priv (104). */
struct wf_ackloss_state {
  __u32 prev_ack;   /* snd_una at the previous ACK */
  __u32 sb;         /* smoothed ACK span in segments, Q10 */
  __u32 cnt;        /* cnt_ack_loss */
  __u32 round_end;  /* an ACK at or past this ends the RTT round */
  __u8  data_loss;
  __u8  wait_state;
  __u8  waiting_on_ackloss; /* wait entered on ACK loss, for the counters */
  __u8  ca_state;  /* TCP_CA_* at the previous ACK (wf_ackloss_on_ca_state) */
  __u16 cnt_wait;  /* lost ACKs counted during the waiting round (saturating) */
  __u8  warmup;    /* advancing ACKs left before counting starts */
  __u8  reordered; /* wf_ackloss_on_reorder in this round (counters) */
  __u32 sv;        /* smoothed mean deviation of the span, Q10 */
  __u8  primed;    /* glue-owned: set once prev_ack holds a real snd_una */
  __u8  queue_low; /* wf_ackloss_on_rtt: queueing delay below min_qdelay_us */
  __u8  pad[2];
  __u32 loss_rate;  /* lost ACKs per advancing ACK, Q20, gain 1/1024 */
};

/* Per congestion control; a per-CPU BPF array holds one per CC. Every wait
 * entered on ACK loss ends in exactly one of halvings or suppressed_*. */
struct wf_ackloss_counters {
  __u64 acks;                  /* ACKs seen */
  __u64 ack_losses;            /* lost ACKs detected */
  __u64 halvings;              /* cwnd halvings caused by ACK loss */
  __u64 suppressed_data_loss;  /* detections dropped: data loss in the round */
  __u64 suppressed_reorder;    /* count fell below thresh, reordering signalled */
  __u64 suppressed_unconfirmed; /* no lost ACK in the waiting round (confirm) */
  __u64 suppressed_fallback;   /* count fell below thresh by ACKs shorter
                                * than b (eq. (11)), no reordering */
  __u64 suppressed_no_queue;   /* confirmed, but no queueing delay */
  __u64 drained;               /* halvings that went below half (drain) */
  /* Not the detector's: windows put back after the kernel skipped a
   * callback (wlanfair-ca-repair.h). */
  __u64 repaired_ssthresh;
  __u64 repaired_cwnd;
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
  s->cnt_wait = 0;
  s->warmup = WF_ACKLOSS_WARMUP_ACKS;
  s->reordered = 0;
  s->sv = 0;
  s->primed = 0;
  s->queue_low = 0;
  s->pad[0] = s->pad[1] = 0;
  s->loss_rate = 0;
}

/* b: the estimated number of segments one ACK covers, eq. (9), >= 1. */
static __always_inline __u32
wf_ackloss_b (const struct wf_ackloss_state *s)
{
  __u32 b = (s->sb + WF_ACKLOSS_ONE / 2) >> WF_ACKLOSS_Q;

  return b ? b : 1;
}

/* x' = ((1 - beta) x + beta v), rounded, saturating (eq. (10)). */
static __always_inline __u32
wf_ackloss_ewma (__u32 x, __u64 v, __u32 beta)
{
  __u64 r = ((__u64) (WF_ACKLOSS_ONE - beta) * x + (__u64) beta * v + WF_ACKLOSS_ONE / 2)
            >> WF_ACKLOSS_Q;

  return r > WF_ACKLOSS_SB_MAX ? WF_ACKLOSS_SB_MAX : (__u32) r;
}

/* Once per RTT: the decision, after one round of waiting. */
static __always_inline enum wf_ackloss_action
wf_ackloss_round (struct wf_ackloss_state *s,
                  const struct wf_ackloss_params *p,
                  struct wf_ackloss_counters *c)
{
  enum wf_ackloss_action action = WF_ACKLOSS_NONE;
  __u32 thresh = p->thresh ? p->thresh : 1;

  if (s->wait_state)
    {
      int confirmed = s->cnt >= thresh && !s->data_loss &&
                      (s->cnt_wait >= p->confirm || (p->rate && s->loss_rate >= p->rate));

      if (confirmed && s->queue_low)
        {
          if (c)
            c->suppressed_no_queue++;
        }
      else if (confirmed)
        {
          action = WF_ACKLOSS_HALVE;
          if (c)
            c->halvings++;
        }
      else if (c && (s->waiting_on_ackloss || s->cnt >= thresh))
        {
          if (s->data_loss)
            c->suppressed_data_loss++;
          else if (s->cnt < thresh && s->reordered)
            c->suppressed_reorder++;
          else if (s->cnt < thresh)
            c->suppressed_fallback++;
          else
            c->suppressed_unconfirmed++;
        }
      s->data_loss = 0;
      s->cnt = 0;
      s->wait_state = 0;
      s->waiting_on_ackloss = 0;
    }
  else if (s->cnt >= thresh || s->data_loss)
    {
      s->wait_state = 1;
      s->waiting_on_ackloss = s->cnt >= thresh;
    }
  else
    s->cnt = 0; /* below thresh for this round: thresh is per RTT */
  s->cnt_wait = 0;
  s->reordered = 0;
  return action;
}

/* Every ACK, after snd_una moved: eq. (9)-(11), then the RTT round. */
static __always_inline enum wf_ackloss_action
wf_ackloss_on_ack (struct wf_ackloss_state *s,
                   const struct wf_ackloss_params *p,
                   struct wf_ackloss_counters *c,
                   __u32 ack, __u32 snd_nxt, __u32 mss)
{
  __u32 span_bytes, b, beta, dev;
  __u64 span_q, covered, cap, lost_now;

  if (c)
    c->acks++;
  /* mss 0: nothing to measure in; old and dup ACKs (span 0): no news. */
  if (mss == 0 || !wf_ackloss_seq_before (s->prev_ack, ack))
    return WF_ACKLOSS_NONE;

  beta = p->beta < WF_ACKLOSS_BETA_MIN ? WF_ACKLOSS_BETA_MIN
         : p->beta > WF_ACKLOSS_ONE ? WF_ACKLOSS_ONE : p->beta;
  span_bytes = ack - s->prev_ack;
  s->prev_ack = ack;
  span_q = ((__u64) span_bytes << WF_ACKLOSS_Q) / mss;
  b = wf_ackloss_b (s); /* before this span enters sb */

  if (s->warmup)
    s->warmup--;
  else
    {
      /* cnt = max(floor(span / (b MSS)) - 1 + cnt, 0), eq. (11): an ACK
       * that covers fewer than b segments takes one back; a span within
       * sb + K sv is this receiver's normal spread, not lost ACKs. */
      covered = span_bytes / ((__u64) b * mss);
      if (covered >= 2 && span_q <= (__u64) s->sb + (__u64) WF_ACKLOSS_SPREAD_K * s->sv)
        covered = 1;
      if (covered >= 1)
        {
          __u32 lost = covered - 1 > 0xffff ? 0xffff : (__u32) (covered - 1);

          s->cnt += lost;
          if (s->wait_state)
            s->cnt_wait = s->cnt_wait + lost > 0xffff ? 0xffff : s->cnt_wait + lost;
          if (c)
            c->ack_losses += lost;
          /* Keep the lost ACKs out of the estimate. */
          cap = (__u64) (b + WF_ACKLOSS_CAP_EXCESS) << WF_ACKLOSS_Q;
          if (lost && span_q > cap)
            span_q = cap;
        }
      else if (s->cnt > 0)
        s->cnt--;
      /* Share of ACKs that follow a lost one, over the last ~1024 ACKs;
       * recovery's jumps left out, and a span counts once however many
       * ACKs it hides, so that one lone stretch ACK (a receiver stall)
       * moves it by 0.1 % only (x - x/1024 + v/1024 in Q20, so that
       * x/1024 does not round to 0 above 0.1 %). */
      lost_now = covered >= 2 && !s->data_loss ? covered - 1 : 0;
      if (lost_now > WF_ACKLOSS_RATE_SAMPLE_MAX)
        lost_now = WF_ACKLOSS_RATE_SAMPLE_MAX;
      s->loss_rate = s->loss_rate - (s->loss_rate >> WF_ACKLOSS_RATE_GAIN_SHIFT) +
                     (__u32) (lost_now << (WF_ACKLOSS_RATE_Q - WF_ACKLOSS_RATE_GAIN_SHIFT));
    }

  /* sv learns only from spans too short to hide a lost ACK (< 2b):
   * otherwise lost ACKs widen the spread until the gate hides them all,
   * and a path losing many ACKs would look like a noisy receiver. */
  if (span_bytes < (__u64) 2 * b * mss)
    {
      dev = span_q > s->sb ? (__u32) (span_q - s->sb) : s->sb - (__u32) span_q;
      s->sv = wf_ackloss_ewma (s->sv, dev, beta);
    }
  /* sb = (1 - beta) sb + beta span, eq. (10). */
  s->sb = wf_ackloss_ewma (s->sb, span_q, beta);

  if (!wf_ackloss_seq_before (ack, s->round_end))
    {
      s->round_end = snd_nxt;
      return wf_ackloss_round (s, p, c);
    }
  return WF_ACKLOSS_NONE;
}

/* Before each ACK: the smoothed and the minimum RTT the stack keeps
 * (0 while unknown), for the queueing-delay gate. */
static __always_inline void
wf_ackloss_on_rtt (struct wf_ackloss_state *s, const struct wf_ackloss_params *p,
                   __u32 srtt_us, __u32 min_rtt_us)
{
  s->queue_low = p->min_qdelay_us && srtt_us && min_rtt_us != ~0u &&
                 (srtt_us < min_rtt_us || srtt_us - min_rtt_us < p->min_qdelay_us);
}

/* Data loss (recovery, RTO, ECN): normal recovery runs; the ACK-loss check
 * is suspended for the round. */
static __always_inline void
wf_ackloss_on_data_loss (struct wf_ackloss_state *s)
{
  s->data_loss = 1;
}

/* Reordering (Disorder): that ACK gap may not be a loss. */
static __always_inline void
wf_ackloss_on_reorder (struct wf_ackloss_state *s)
{
  s->reordered = 1;
  if (s->cnt > 0)
    s->cnt--;
}

/* The TCP_CA_* state as seen at an ACK, before wf_ackloss_on_ack:
 * CWR, Recovery and Loss are data loss (all of recovery counts, its
 * cumulative ACKs jump over the holes SACK filled); entering Disorder is
 * suspected reordering. */
static __always_inline void
wf_ackloss_on_ca_state (struct wf_ackloss_state *s, __u8 now)
{
  if (now >= 2 /* TCP_CA_CWR */)
    wf_ackloss_on_data_loss (s);
  else if (now == 1 /* TCP_CA_Disorder */ && s->ca_state != 1)
    wf_ackloss_on_reorder (s);
  s->ca_state = now;
}

/* cwnd = max(cwnd / 2, 1); the caller sets ssthresh to the result. */
static __always_inline __u32
wf_ackloss_halve (__u32 cwnd)
{
  return cwnd / 2 ? cwnd / 2 : 1;
}

/* What a detection does to cwnd (wlanfair-tcpd reduction=). */
enum wf_ackloss_reduction {
  WF_ACKLOSS_REDUCE_HALVE = 0,
  /* At most the window that empties the sender's own standing queue,
   * cwnd x min_rtt / srtt (at least 2), where that is below half. For a
   * station whose frames wait in a deep transmit queue without
   * back-pressure, half a window of hundreds of packets still keeps the
   * queue, and with it the station's claim on the air, full. */
  WF_ACKLOSS_REDUCE_DRAIN = 1,
  /* By the receiver's ACK ratio b: halve where every segment is ACKed
   * (b = 1), drain where one ACK covers more. An upload's ACKs share the
   * AP's FIFO with downloads' segments: at b = 1 its ACK stream is as
   * dense as a download's segments and it loses as many, and a halving
   * per confirmed loss keeps it near a download; at b = 2 it loses a
   * fraction, and only draining keeps it from taking more. TSQ testbed,
   * uploads' mean over downloads': b = 1, twelve 30-s cells, halve
   * 0.67-2.0 (mostly 0.7-1.2), drain 0.34-1.08; b = 2, 90 s, halve
   * 2.8-3.2, drain 0.9-1.6 (docs/ackloss.md). */
  WF_ACKLOSS_REDUCE_AUTO = 2,
};

/* Drain is the default (wlanfair-tcpd reduction=drain): in the testbed's
 * TSQ regime, three 30-s runs per cell, mean Jain 0.911 against 0.872
 * with halve (ackloss_cubic), 0.894 against 0.818 (ackloss_reno); equal
 * within noise with deep station queues. auto is not yet: without delayed
 * ACKs it was the fairer (twelve TSQ cells, 30 s: 0.976 against 0.913;
 * five deep ones, halve 0.940 against 0.916), but b is estimated from
 * spans that lost ACKs lengthen (20 % lost: b rounds to 2 at a few
 * percent of the reductions), and with delayed ACKs, where it should be
 * drain, it is not measured yet (docs/ackloss.md). */
#ifndef WF_ACKLOSS_REDUCTION_DEFAULT
#define WF_ACKLOSS_REDUCTION_DEFAULT WF_ACKLOSS_REDUCE_DRAIN
#endif
static __always_inline __u32
wf_ackloss_reduce (__u32 cwnd, __u32 srtt_us, __u32 min_rtt_us,
                   enum wf_ackloss_reduction how, __u32 b)
{
  __u32 half = wf_ackloss_halve (cwnd);
  int drain = how == WF_ACKLOSS_REDUCE_DRAIN || (how == WF_ACKLOSS_REDUCE_AUTO && b >= 2);
  __u64 pipe;

  if (!drain || !srtt_us || min_rtt_us == ~0u || min_rtt_us >= srtt_us)
    return half;
  pipe = (__u64) cwnd * min_rtt_us / srtt_us;
  if (pipe < 2)
    pipe = 2;
  return pipe < half ? (__u32) pipe : half;
}

/* The window CUBIC takes as the loss point of a reduction (its W_max, the
 * origin of its next epoch). After a halving, the window before it: the
 * cubic curve returns there, as after a loss. After a drain, the drained
 * window itself: CUBIC then grows from it in its convex, probing phase,
 * adding the same segments per second whatever its size, so the flows
 * behind one AP converge like Reno's. Returning to the window before a
 * drain kept each flow's old size, and the ratio between flows with it
 * (TSQ testbed, two 30-s runs per cell: mean Jain 0.912 -> 0.936, better
 * in 6 of 8 cells, totals equal; docs/ackloss.md). */
static __always_inline __u32
wf_ackloss_cubic_origin (__u32 before, __u32 reduced)
{
  return reduced < wf_ackloss_halve (before) ? reduced : before;
}
