/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sender/receiver model of ackloss-model.h. */
#include "ackloss-model.h"

#include <string.h>

const guint span1[] = { 1 };
const guint span2[] = { 2 };

static gboolean
seq_before (guint32 a, guint32 b)
{
  return (gint32) (a - b) < 0;
}

void
sim_init (Sim *sim, guint32 iss, guint32 cwnd)
{
  memset (sim, 0, sizeof *sim);
  sim->params.thresh = WF_ACKLOSS_THRESH_DEFAULT;
  sim->params.beta = WF_ACKLOSS_BETA_DEFAULT;
  sim->params.confirm = WF_ACKLOSS_CONFIRM_DEFAULT;
  sim->params.rate = WF_ACKLOSS_RATE_DEFAULT;
  sim->params.min_qdelay_us = WF_ACKLOSS_QDELAY_DEFAULT_US;
  /* A congested path: 10 ms of queue over a 10 ms base RTT. */
  sim->srtt_us = 20000;
  sim->min_rtt_us = 10000;
  sim->iss = iss;
  sim->mss = MSS;
  sim->snd_una = iss;
  sim->snd_nxt = iss + SEG (cwnd);
  sim->cwnd = cwnd;
  sim->cwnd_max = cwnd;
  sim->ssthresh = G_MAXUINT32;
  sim->round_end = sim->snd_nxt;
  sim->rcv_ack = iss;
  sim->spans = span1;
  sim->n_spans = 1;
  sim->b_min = G_MAXUINT32;
  wf_ackloss_init (&sim->st, sim->snd_una, sim->snd_nxt);
}

void
sim_set_spans (Sim *sim, const guint *spans, gsize n)
{
  sim->spans = spans;
  sim->n_spans = n;
  sim->span_pos = 0;
  sim->rnd_hi = 0;
}

void
sim_set_random_spans (Sim *sim, guint32 seed, guint lo, guint hi)
{
  sim->rng = seed ? seed : 1;
  sim->rnd_lo = lo;
  sim->rnd_hi = hi;
}

void
sim_set_random_loss (Sim *sim, guint32 seed, guint pct)
{
  sim->loss_rng = seed ? seed : 1;
  sim->loss_pct = pct;
}

static guint32
xorshift32 (guint32 *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

void
sim_reset_b_range (Sim *sim)
{
  sim->b_min = G_MAXUINT32;
  sim->b_max = 0;
}

guint
sim_next_span (Sim *sim)
{
  if (sim->rnd_hi)
    return sim->rnd_lo + xorshift32 (&sim->rng) % (sim->rnd_hi - sim->rnd_lo + 1);
  return sim->spans[sim->span_pos++ % sim->n_spans];
}

/* The TCP state machine moves; the glue reads the state at the next ACK. */
void
sim_set_state (Sim *sim, CaState state)
{
  sim->ca_state = state;
}

/* One ACK reaches the sender: in_ack_event in the glue, then the sender
 * refills its window. TRUE if the ACK ended a round of the model. */
gboolean
sim_deliver (Sim *sim, guint32 ack)
{
  enum wf_ackloss_action action;
  gboolean was_waiting = sim->st.wait_state;
  gboolean ended;
  guint32 b;

  if (seq_before (sim->snd_una, ack))
    sim->snd_una = ack;
  wf_ackloss_on_ca_state (&sim->st, sim->ca_state);
  wf_ackloss_on_rtt (&sim->st, &sim->params, sim->srtt_us, sim->min_rtt_us);
  action = wf_ackloss_on_ack (&sim->st, &sim->params, &sim->counters,
                              sim->snd_una, sim->snd_nxt, sim->mss);
  sim->fed++;
  if (action == WF_ACKLOSS_HALVE)
    {
      sim->cwnd = wf_ackloss_halve (sim->cwnd);
      sim->ssthresh = sim->cwnd;
      sim->halvings++;
      sim->halved_at = sim->fed;
    }
  if (!was_waiting && sim->st.wait_state)
    sim->waits++;
  b = wf_ackloss_b (&sim->st);
  sim->b_min = MIN (sim->b_min, b);
  sim->b_max = MAX (sim->b_max, b);
  if (sim->trace)
    {
      Step step = {
        .ack_off = ack - sim->iss,
        .sb = sim->st.sb,
        .cnt = sim->st.cnt,
        .wait_state = sim->st.wait_state,
        .cwnd = sim->cwnd,
        .action = action,
      };
      g_array_append_val (sim->trace, step);
    }

  ended = !seq_before (ack, sim->round_end);
  if (ended)
    {
      sim->round_end = sim->snd_nxt;
      sim->rounds++;
      sim->round_closed_at = sim->fed;
      if (sim->grow && sim->cwnd < sim->cwnd_max)
        sim->cwnd++;
    }
  if (seq_before (sim->snd_nxt, sim->snd_una + SEG (sim->cwnd)))
    sim->snd_nxt = sim->snd_una + SEG (sim->cwnd);
  return ended;
}

/* The receiver sends ACKs by its policy (it cannot ACK past what was sent);
 * dropped ones never arrive, so the next delivered one covers them. */
gboolean
sim_ack (Sim *sim)
{
  for (;;)
    {
      guint32 ack = sim->rcv_ack + SEG (sim_next_span (sim));

      if (seq_before (sim->snd_nxt, ack))
        ack = sim->snd_nxt;
      g_assert_true (seq_before (sim->rcv_ack, ack));
      sim->rcv_ack = ack;
      if (sim->lose > 0)
        {
          sim->lose--;
          sim->dropped++;
          continue;
        }
      if (sim->loss_pct && ack != sim->snd_nxt &&
          xorshift32 (&sim->loss_rng) % 100 < sim->loss_pct)
        {
          sim->dropped++;
          continue;
        }
      return sim_deliver (sim, ack);
    }
}

/* n ACKs that must all fall inside the current round. */
void
sim_acks (Sim *sim, guint n)
{
  for (guint i = 0; i < n; i++)
    g_assert_false (sim_ack (sim));
}

/* One delivered ACK covering exactly n segments, whatever the policy. */
gboolean
sim_ack_span (Sim *sim, guint n)
{
  sim->rcv_ack += SEG (n);
  g_assert_false (seq_before (sim->snd_nxt, sim->rcv_ack));
  return sim_deliver (sim, sim->rcv_ack);
}

void
sim_lose_next (Sim *sim, guint n)
{
  sim->lose += n;
}

/* ACKs up to and including the one that ends the round; the halvings. */
guint64
sim_round (Sim *sim)
{
  guint64 before = sim->halvings;

  while (!sim_ack (sim))
    ;
  return sim->halvings - before;
}

guint64
sim_rounds (Sim *sim, guint n)
{
  guint64 halvings = 0;

  for (guint i = 0; i < n; i++)
    halvings += sim_round (sim);
  return halvings;
}

/* Per-segment ACKs until sb settles. sb starts at 2048 and each span-1
 * ACK maps the excess e = sb - 1024 to floor((896 e + 512) / 1024), which
 * stops at e = 4 (floor(3.5 + 0.5) = 4; e = 5 gives 4): sb = 1028. Every
 * span 1 is < 2b (b is 2, then 1), so sv follows |1 - sb| to its own
 * fixed point 8 (floor(0.875 * 8 + 0.5 + 128 * 4 / 1024) = 8). Nothing is counted: the first 32 ACKs are
 * warm-up, and later ACKs cover exactly b = 1. */
void
sim_settle_b1 (Sim *sim)
{
  sim_set_spans (sim, span1, 1);
  g_assert_cmpuint (sim_rounds (sim, 10), ==, 0);
  g_assert_cmpuint (sim->st.sb, ==, ONE + 4);
  g_assert_cmpuint (sim->st.sv, ==, 8);
  g_assert_cmpuint (sim->st.warmup, ==, 0);
  g_assert_cmpuint (wf_ackloss_b (&sim->st), ==, 1);
  g_assert_cmpuint (sim->counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim->st.cnt, ==, 0);
  g_assert_cmpuint (sim->st.wait_state, ==, 0);
}

/* Delayed ACKs from the start: sb stays exactly 2.0 and sv 0 (span 2 <
 * 2b = 4 enters sv), since (896 * 2048 + 128 * 2048 + 512) >> 10 = 2048
 * and (512 >> 10) = 0. */
void
sim_settle_b2 (Sim *sim)
{
  sim_set_spans (sim, span2, 1);
  g_assert_cmpuint (sim_rounds (sim, 3), ==, 0);
  g_assert_cmpuint (sim->st.sb, ==, 2 * ONE);
  g_assert_cmpuint (sim->st.sv, ==, 0);
  g_assert_cmpuint (sim->st.warmup, ==, 0);
  g_assert_cmpuint (sim->counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim->st.wait_state, ==, 0);
}

/* Core-level: 32 span-2 ACKs from init use up the warm-up; sb 2048, sv 0. */
void
core_warm (struct wf_ackloss_state *s, const struct wf_ackloss_params *p,
           struct wf_ackloss_counters *c, guint32 *una, guint32 nxt)
{
  for (guint i = 0; i < WF_ACKLOSS_WARMUP_ACKS; i++)
    {
      *una += SEG (2);
      g_assert_cmpuint (wf_ackloss_on_ack (s, p, c, *una, nxt, MSS), ==, WF_ACKLOSS_NONE);
    }
  g_assert_cmpuint (s->warmup, ==, 0);
  g_assert_cmpuint (s->sb, ==, 2 * ONE);
  g_assert_cmpuint (s->sv, ==, 0);
  g_assert_cmpuint (s->cnt, ==, 0);
}

const struct wf_ackloss_params default_params = {
  WF_ACKLOSS_THRESH_DEFAULT, WF_ACKLOSS_BETA_DEFAULT, WF_ACKLOSS_CONFIRM_DEFAULT,
  WF_ACKLOSS_RATE_DEFAULT, WF_ACKLOSS_QDELAY_DEFAULT_US
};

/* Every wait entered on ACK loss ends in exactly one of these (the model
 * runs without data loss). */
guint64
sim_wait_outcomes (const Sim *sim)
{
  const struct wf_ackloss_counters *c = &sim->counters;

  return c->halvings + c->suppressed_data_loss + c->suppressed_reorder +
         c->suppressed_unconfirmed + c->suppressed_fallback + c->suppressed_no_queue;
}
