/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small deterministic TCP sender/receiver model that drives the ACK-loss
 * detector (tcp/wlanfair-ackloss-core.h) the way the BPF glue does; the
 * cases are in test-ackloss.c. */
#pragma once

#include <glib.h>

#include "wlanfair-ackloss-core.h"

#define MSS 1448u
#define SEG(n) ((guint32) (n) * MSS)
#define ONE WF_ACKLOSS_ONE

/* Linux's icsk_ca_state values, in the kernel's order. */
typedef enum {
  CA_OPEN,
  CA_DISORDER,
  CA_CWR,
  CA_RECOVERY,
  CA_LOSS,
} CaState;

/* One detector step, for comparing runs. */
typedef struct {
  guint32 ack_off; /* ACK number relative to the ISS */
  guint32 sb;
  guint32 cnt;
  guint32 wait_state;
  guint32 cwnd;
  guint32 action;
} Step;

typedef struct {
  /* What the glue keeps. */
  struct wf_ackloss_state st;
  struct wf_ackloss_params params;
  struct wf_ackloss_counters counters;
  CaState ca_state;
  guint32 srtt_us;    /* what the stack's RTT estimator shows the glue */
  guint32 min_rtt_us;

  /* Sender: cwnd and ssthresh in segments. */
  guint32 iss;
  guint32 mss;
  guint32 snd_una;
  guint32 snd_nxt;
  guint32 cwnd;
  guint32 ssthresh;
  gboolean grow;     /* Reno congestion avoidance: +1 segment per round */
  guint32 cwnd_max;  /* the receiver window, for grow */

  /* The model's own RTT clock: a round ends at the first ACK at or past
   * snd_nxt as it was when the previous round ended. */
  guint32 round_end;
  guint rounds;

  /* Receiver: cumulative ACK point and ACK policy (segments per ACK). */
  guint32 rcv_ack;
  const guint *spans;
  gsize n_spans;
  gsize span_pos;
  guint32 rng;      /* xorshift32 state; spans rnd_lo..rnd_hi when rnd_hi */
  guint rnd_lo;
  guint rnd_hi;
  guint lose;       /* the next `lose` ACKs are dropped on the return path */
  guint32 loss_rng; /* xorshift32 state for random ACK loss */
  guint loss_pct;   /* each ACK lost with this probability, in percent;
                     * never the one for snd_nxt (that would be an RTO) */

  /* What the model saw. */
  guint64 fed;           /* ACKs handed to the detector */
  guint64 dropped;       /* ACKs lost on the return path */
  guint64 halvings;      /* HALVE actions applied */
  guint64 halved_at;     /* fed count at the last halving */
  guint64 round_closed_at; /* fed count at the last round end */
  guint64 waits;         /* wait_state 0 -> 1 transitions */
  guint32 b_min;
  guint32 b_max;
  GArray *trace;         /* of Step, when not NULL */
} Sim;

extern const guint span1[1];
extern const guint span2[1];
extern const struct wf_ackloss_params default_params;

void sim_init (Sim *sim, guint32 iss, guint32 cwnd);
void sim_set_spans (Sim *sim, const guint *spans, gsize n);
void sim_set_random_spans (Sim *sim, guint32 seed, guint lo, guint hi);
void sim_set_random_loss (Sim *sim, guint32 seed, guint pct);
void sim_reset_b_range (Sim *sim);
guint sim_next_span (Sim *sim);
void sim_set_state (Sim *sim, CaState state);
gboolean sim_deliver (Sim *sim, guint32 ack);
gboolean sim_ack (Sim *sim);
void sim_acks (Sim *sim, guint n);
gboolean sim_ack_span (Sim *sim, guint n);
void sim_lose_next (Sim *sim, guint n);
guint64 sim_round (Sim *sim);
guint64 sim_rounds (Sim *sim, guint n);
void sim_settle_b1 (Sim *sim);
void sim_settle_b2 (Sim *sim);
void core_warm (struct wf_ackloss_state *s, const struct wf_ackloss_params *p,
                struct wf_ackloss_counters *c, guint32 *una, guint32 nxt);
guint64 sim_wait_outcomes (const Sim *sim);
