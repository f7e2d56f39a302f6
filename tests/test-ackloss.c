/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss detector (tcp/wlanfair-ackloss-core.h) driven by a small
 * deterministic sender/receiver model that calls it the way the BPF glue
 * does. Expected values are worked out by hand in the comments from
 * eq. (9)-(11) in Q10 fixed point:
 *   sb' = ((1024 - beta) * sb + beta * span * 1024) >> 10
 *   b   = (sb + 512) >> 10, at least 1
 *   cnt = max(cnt + floor(span / b) - 1, 0)      (span in segments)
 * With the default beta = 128: sb' = (896 sb + 128 * 1024 span) >> 10.
 *
 * Tests marked FINDING assert what the detector does today where that
 * differs from what the method intends; see the comment in each. */
#include <string.h>

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

static const guint span1[] = { 1 };
static const guint span2[] = { 2 };

static gboolean
seq_before (guint32 a, guint32 b)
{
  return (gint32) (a - b) < 0;
}

static void
sim_init (Sim *sim, guint32 iss, guint32 cwnd)
{
  memset (sim, 0, sizeof *sim);
  sim->params.thresh = WF_ACKLOSS_THRESH_DEFAULT;
  sim->params.beta = WF_ACKLOSS_BETA_DEFAULT;
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

static void
sim_set_spans (Sim *sim, const guint *spans, gsize n)
{
  sim->spans = spans;
  sim->n_spans = n;
  sim->span_pos = 0;
  sim->rnd_hi = 0;
}

static void
sim_set_random_spans (Sim *sim, guint32 seed, guint lo, guint hi)
{
  sim->rng = seed ? seed : 1;
  sim->rnd_lo = lo;
  sim->rnd_hi = hi;
}

static void
sim_reset_b_range (Sim *sim)
{
  sim->b_min = G_MAXUINT32;
  sim->b_max = 0;
}

static guint
sim_next_span (Sim *sim)
{
  if (sim->rnd_hi)
    {
      sim->rng ^= sim->rng << 13;
      sim->rng ^= sim->rng >> 17;
      sim->rng ^= sim->rng << 5;
      return sim->rnd_lo + sim->rng % (sim->rnd_hi - sim->rnd_lo + 1);
    }
  return sim->spans[sim->span_pos++ % sim->n_spans];
}

/* set_state in the glue: entering CWR/Recovery/Loss is data loss,
 * entering Disorder is suspected reordering. */
static void
sim_set_state (Sim *sim, CaState state)
{
  if (state == sim->ca_state)
    return;
  if (state >= CA_CWR)
    wf_ackloss_on_data_loss (&sim->st);
  else if (state == CA_DISORDER)
    wf_ackloss_on_reorder (&sim->st);
  sim->ca_state = state;
}

/* One ACK reaches the sender: in_ack_event in the glue, then the sender
 * refills its window. TRUE if the ACK ended a round of the model. */
static gboolean
sim_deliver (Sim *sim, guint32 ack)
{
  enum wf_ackloss_action action;
  gboolean was_waiting = sim->st.wait_state;
  gboolean ended;
  guint32 b;

  if (seq_before (sim->snd_una, ack))
    sim->snd_una = ack;
  if (sim->ca_state >= CA_CWR)
    wf_ackloss_on_data_loss (&sim->st);
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
static gboolean
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
      return sim_deliver (sim, ack);
    }
}

/* n ACKs that must all fall inside the current round. */
static void
sim_acks (Sim *sim, guint n)
{
  for (guint i = 0; i < n; i++)
    g_assert_false (sim_ack (sim));
}

/* One delivered ACK covering exactly n segments, whatever the policy. */
static gboolean
sim_ack_span (Sim *sim, guint n)
{
  sim->rcv_ack += SEG (n);
  g_assert_false (seq_before (sim->snd_nxt, sim->rcv_ack));
  return sim_deliver (sim, sim->rcv_ack);
}

static void
sim_lose_next (Sim *sim, guint n)
{
  sim->lose += n;
}

/* ACKs up to and including the one that ends the round; the halvings. */
static guint64
sim_round (Sim *sim)
{
  guint64 before = sim->halvings;

  while (!sim_ack (sim))
    ;
  return sim->halvings - before;
}

static guint64
sim_rounds (Sim *sim, guint n)
{
  guint64 halvings = 0;

  for (guint i = 0; i < n; i++)
    halvings += sim_round (sim);
  return halvings;
}

/* Clean per-segment ACKs until sb sits exactly on 1.0. From 2.0 the
 * excess shrinks as e' = floor(7e/8) and reaches 0 (well within 10 rounds
 * of 39 ACKs); ACKs below b only take back a count that is 0: nothing is
 * detected on the way. */
static void
sim_settle_b1 (Sim *sim)
{
  sim_set_spans (sim, span1, 1);
  g_assert_cmpuint (sim_rounds (sim, 10), ==, 0);
  g_assert_cmpuint (sim->st.sb, ==, ONE);
  g_assert_cmpuint (wf_ackloss_b (&sim->st), ==, 1);
  g_assert_cmpuint (sim->counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim->st.cnt, ==, 0);
  g_assert_cmpuint (sim->st.wait_state, ==, 0);
}

/* Delayed ACKs from the start: sb stays exactly 2.0, since
 * (896 * 2048 + 128 * 2048) >> 10 = 2048. */
static void
sim_settle_b2 (Sim *sim)
{
  sim_set_spans (sim, span2, 1);
  g_assert_cmpuint (sim_rounds (sim, 3), ==, 0);
  g_assert_cmpuint (sim->st.sb, ==, 2 * ONE);
  g_assert_cmpuint (sim->counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim->st.wait_state, ==, 0);
}

/* 1. */
static void
test_no_loss (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  g_assert_cmpuint (sim_rounds (&sim, 50), ==, 0);

  /* Round 1 is the initial window, 40 ACKs; every later round ends at the
   * ACK for snd_nxt as sent after the previous round's last-but-one ACK:
   * 39 ACKs. 40 + 49 * 39 = 1951. */
  g_assert_cmpuint (sim.fed, ==, 1951);
  g_assert_cmpuint (sim.counters.acks, ==, sim.fed);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.st.sb, ==, ONE);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 1);
}

/* 2. */
static void
test_delayed_from_initial (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_set_spans (&sim, span2, 1);
  g_assert_cmpuint (sim_rounds (&sim, 50), ==, 0);

  /* sb starts on 2.0 and each span-2 ACK keeps it there (see
   * sim_settle_b2): b is 2 after every ACK, each ACK covers one b. */
  g_assert_cmpuint (sim.b_min, ==, 2);
  g_assert_cmpuint (sim.b_max, ==, 2);
  g_assert_cmpuint (sim.st.sb, ==, 2 * ONE);
  g_assert_cmpuint (sim.counters.acks, ==, sim.fed);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
}

/* FINDING: the switch from per-segment to delayed ACKs converges, but the
 * ACKs seen before b reaches 2 each look like one lost ACK, and that is
 * one false halving. */
static void
test_delayed_from_b1 (void)
{
  /* Span-2 ACKs from sb = 1024, by hand:
   *   (896*1024 + 262144) >> 10 = 1152  b = (1152+512)>>10 = 1  cnt 1
   *   (896*1152 + 262144) >> 10 = 1264  b = 1                   cnt 2
   *   (896*1264 + 262144) >> 10 = 1362  b = 1                   cnt 3
   *   (896*1362 + 262144) >> 10 = 1447  b = 1                   cnt 4
   *   (896*1447 + 262144) >> 10 = 1522  b = (2034)>>10 = 1      cnt 5
   *   (896*1522 + 262144) >> 10 = 1587  b = (2099)>>10 = 2      cnt 5 */
  const guint32 sb_hand[] = { 1152, 1264, 1362, 1447, 1522, 1587 };
  const guint32 cnt_hand[] = { 1, 2, 3, 4, 5, 5 };
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b1 (&sim);
  sim_set_spans (&sim, span2, 1);
  for (gsize i = 0; i < G_N_ELEMENTS (sb_hand); i++)
    {
      g_assert_false (sim_ack (&sim));
      g_assert_cmpuint (sim.st.sb, ==, sb_hand[i]);
      g_assert_cmpuint (sim.st.cnt, ==, cnt_hand[i]);
    }
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);

  /* cnt 5 >= thresh at the end of the round: wait; the next round's
   * span-2 ACKs neither add nor take back (floor(2/2) - 1 = 0): halve. */
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);

  /* Converged: nothing more, b stays 2. */
  sim_reset_b_range (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 20), ==, 0);
  g_assert_cmpuint (sim.b_min, ==, 2);
  g_assert_cmpuint (sim.b_max, ==, 2);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 5);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
}

/* FINDING: the realistic way to get there. A Linux receiver starts in
 * quickack mode (up to 16 immediate ACKs, TCP_MAX_QUICKACKS) and then
 * delays: one false halving in the third round, which also sets ssthresh
 * and so ends slow start at cwnd 5. */
static void
test_delayed_after_quickack (void)
{
  guint spans[200];
  Sim sim;

  for (gsize i = 0; i < G_N_ELEMENTS (spans); i++)
    spans[i] = i < 16 ? 1 : 2;
  sim_init (&sim, 1000, 10);
  sim_set_spans (&sim, spans, G_N_ELEMENTS (spans));

  /* 16 span-1 ACKs take sb from 2048 to 1141 (b = 1 from the 6th, 1483).
   * Then span 2: 1254, 1353, 1439, 1515 (b = 1, cnt 1..4), 1581 (b = 2).
   * Round 1 is the 10 ACKs of the initial window, clean. Round 2 ends at
   * segment 9 + 10 = 19: ACKs 11..16 (span 1) and two span-2 ACKs to 18
   * and 20, which count 2: wait. Round 3 counts the other 2 and halves. */
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.fed, ==, 10);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.fed, ==, 18);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 2);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 4);
  g_assert_cmpuint (sim.cwnd, ==, 5);
  g_assert_cmpuint (sim.ssthresh, ==, 5);
  g_assert_cmpuint (sim_rounds (&sim, 20), ==, 0);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);
}

/* Without the estimate, delayed ACKs are a loss per ACK (eq. (8)). beta = 1
 * pins b to 1: from sb = 1024, (1023 * 1024 + 2048) >> 10 = 1025 and then
 * (1023 * 1025 + 2048) >> 10 = 1025 for good (the step (2048 - sb) / 1024
 * is below one unit and truncates away). The default beta, same stream:
 * 5 counts, one halving (test_delayed_from_b1). */
static void
test_delayed_estimate_matters (void)
{
  Sim fixed, est;
  guint64 fed0;

  sim_init (&est, 1000, 40);
  sim_settle_b1 (&est);
  sim_set_spans (&est, span2, 1);

  sim_init (&fixed, 1000, 40);
  sim_settle_b1 (&fixed);
  sim_set_spans (&fixed, span2, 1);
  fixed.params.beta = 1;
  fed0 = fixed.fed;
  sim_reset_b_range (&fixed);

  /* Six rounds: count, halve, count, halve, count, halve. */
  g_assert_cmpuint (sim_rounds (&fixed, 6), ==, 3);
  g_assert_cmpuint (sim_rounds (&est, 6), ==, 1);

  g_assert_cmpuint (fixed.st.sb, ==, ONE + 1);
  g_assert_cmpuint (fixed.b_max, ==, 1);
  /* floor(2 MSS / MSS) - 1 = 1 for every ACK. */
  g_assert_cmpuint (fixed.counters.ack_losses, ==, fixed.fed - fed0);
  g_assert_cmpuint (fixed.counters.ack_losses, >, 40);
  g_assert_cmpuint (fixed.cwnd, ==, 5);
  g_assert_cmpuint (est.counters.ack_losses, ==, 5);
  g_assert_cmpuint (est.cwnd, ==, 20);
}

/* 3. Constant GRO aggregation of k segments. FINDING: the climb from the
 * initial b = 2 counts losses and costs one false halving at connection
 * start; after convergence there are none. */
static void
check_gro_constant (guint k, guint64 transient_losses)
{
  const guint spans[] = { k };
  Sim sim;

  g_test_message ("k = %u", k);
  sim_init (&sim, 1000, 40);
  sim_set_spans (&sim, spans, 1);
  g_assert_cmpuint (sim_rounds (&sim, 20), ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, transient_losses);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, k);

  sim_reset_b_range (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 50), ==, 0);
  g_assert_cmpuint (sim.b_min, ==, k);
  g_assert_cmpuint (sim.b_max, ==, k);
  g_assert_cmpuint (sim.counters.ack_losses, ==, transient_losses);
  g_assert_cmpuint (sim.cwnd, ==, 20);
}

static void
test_gro_constant (void)
{
  /* k = 4 from sb = 2048: 2304 (b 2, +1), 2528 (b 2, +1), 2724 (b 3,
   * floor(4/3) - 1 = 0): 2 counts, then b = 4 once sb >= 3584. */
  check_gro_constant (4, 2);
  /* k = 8: 2816 (b 3, floor(8/3) - 1 = +1), 3488 (b 3, +1), 4076 (b 4,
   * +1), 4590 (b 4, +1), 5040 (b 5, 0): 4 counts. */
  check_gro_constant (8, 4);
}

/* 3. GRO spans cycling 2, 3, 5, 8 (mean 4.5): on the climb from b = 2 the
 * 5s and 8s count (5 in all here), and the 2s and 3s take them back
 * before a round ends; settled, b is 4 or 5 and 5 whenever the 8 comes
 * (floor(8/5) - 1 = 0): nothing counted at all. */
static void
test_gro_cycle (void)
{
  const guint spans[] = { 2, 3, 5, 8 };
  Sim sim;
  guint64 losses0;

  sim_init (&sim, 1000, 40);
  sim_set_spans (&sim, spans, G_N_ELEMENTS (spans));
  g_assert_cmpuint (sim_rounds (&sim, 20), ==, 0);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 5);
  g_assert_cmpuint (sim.waits, ==, 0);

  losses0 = sim.counters.ack_losses;
  sim_reset_b_range (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 500), ==, 0);
  g_assert_cmpuint (sim.b_min, >=, 4);
  g_assert_cmpuint (sim.b_max, <=, 5);
  g_assert_cmpuint (sim.counters.ack_losses, ==, losses0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
}

/* 3. FINDING: seeded pseudo-random GRO spans 2..8, no ACK lost at all. A
 * span >= 2b counts, a span < b takes one back; when counts sit at both
 * ends of a wait the detector halves. Reno growth of 1 segment per round,
 * receiver window 20. Measured: 28 false halvings in 20 x 500 rounds
 * (0.28 % of rounds, at most 5 in one run); the assertion is that bound. */
static void
test_gro_random (void)
{
  guint64 total = 0, worst = 0;

  for (guint32 seed = 1; seed <= 20; seed++)
    {
      Sim sim;
      guint64 h;

      sim_init (&sim, 1000, 20);
      sim.grow = TRUE;
      sim_set_random_spans (&sim, seed * 2654435761u, 2, 8);
      sim_rounds (&sim, 20);
      h = sim_rounds (&sim, 500);
      g_assert_cmpuint (sim.counters.halvings, ==, sim.halvings);
      g_assert_cmpuint (sim.b_max, <=, 8);
      total += h;
      worst = MAX (worst, h);
    }
  g_test_message ("false halvings: %" G_GUINT64_FORMAT " in 10000 rounds, "
                  "at most %" G_GUINT64_FORMAT " in 500", total, worst);
  g_assert_cmpuint (total, <=, 28);
  g_assert_cmpuint (worst, <=, 5);
}

/* 4. Three consecutive ACKs lost at b = 1. */
static void
test_burst_b1 (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b1 (&sim);
  sim_acks (&sim, 5);

  /* The next delivered ACK covers 4 segments:
   *   sb = (896 * 1024 + 128 * 4096) >> 10 = 1408, b = 1920 >> 10 = 1,
   *   cnt = max(floor(4 MSS / (1 * MSS)) - 1 + 0, 0) = 3   (eq. (11)) */
  sim_lose_next (&sim, 3);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 1408);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 1);
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 3);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);

  /* Span-1 ACKs with b = 1 (sb 1360, 1318, ...) leave cnt alone. The
   * round's last ACK sets the wait. */
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 40);

  /* The next round's last ACK halves, and only that one. */
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.halved_at, ==, sim.round_closed_at);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.ssthresh, ==, 20);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);

  g_assert_cmpuint (sim_rounds (&sim, 5), ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 3);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 0);
  g_assert_cmpuint (sim.dropped, ==, 3);
}

/* 4. One ACK lost at b = 2 is found and halves. */
static void
test_burst_b2_single (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 5);

  /* Span 4: sb = (896 * 2048 + 128 * 4096) >> 10 = 2304, b = 2816 >> 10
   * = 2, cnt = floor(4 / 2) - 1 = 1. Next span 2: sb 2272, b 2, +0. */
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2304);
  g_assert_cmpuint (sim.st.cnt, ==, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 1);

  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.halved_at, ==, sim.round_closed_at);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.ssthresh, ==, 20);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 1);
}

/* 4. FINDING: three consecutive ACKs lost at b = 2 go undetected. The
 * stretch ACK raises sb before b is taken from it, so it divides by 3,
 * and the inflated b then makes the next normal ACK take the count back:
 *   span 8: sb = (896 * 2048 + 128 * 8192) >> 10 = 2816, b = 3328 >> 10
 *           = 3, cnt = floor(8 / 3) - 1 = 1   (with b = 2 it would be 3)
 *   span 2: sb = (896 * 2816 + 262144) >> 10 = 2720, b = 3, floor(2/3)
 *           = 0: cnt = 0.
 * Intended: cnt 3, wait, one halving. */
static void
test_burst_b2_missed (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 5);

  sim_lose_next (&sim, 3);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2816);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 3);
  g_assert_cmpuint (sim.st.cnt, ==, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2720);
  g_assert_cmpuint (sim.st.cnt, ==, 0);

  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  g_assert_cmpuint (sim_rounds (&sim, 3), ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 1);
  g_assert_cmpuint (sim.dropped, ==, 3);
}

/* 4. FINDING, the same at b = 1: a longer burst is found less. Four lost
 * ACKs count 1 (span 5: sb = 896 + 640 = 1536, b = 2, floor(5/2) - 1);
 * seven count 3 (span 8: sb 1920, b 2, floor(8/2) - 1) and the next three
 * span-1 ACKs (b still 2: sb 1808, 1710, 1624) take all three back. */
static void
test_burst_b1_long (void)
{
  Sim four, seven;

  sim_init (&four, 1000, 40);
  sim_settle_b1 (&four);
  sim_acks (&four, 5);
  sim_lose_next (&four, 4);
  g_assert_false (sim_ack (&four));
  g_assert_cmpuint (four.st.sb, ==, 1536);
  g_assert_cmpuint (four.st.cnt, ==, 1);

  sim_init (&seven, 1000, 40);
  sim_settle_b1 (&seven);
  sim_acks (&seven, 5);
  sim_lose_next (&seven, 7);
  g_assert_false (sim_ack (&seven));
  g_assert_cmpuint (seven.st.sb, ==, 1920);
  g_assert_cmpuint (seven.st.cnt, ==, 3);
  sim_acks (&seven, 3);
  g_assert_cmpuint (seven.st.sb, ==, 1624);
  g_assert_cmpuint (seven.st.cnt, ==, 0);
  g_assert_cmpuint (sim_rounds (&seven, 3), ==, 0);
  g_assert_cmpuint (seven.waits, ==, 0);
  g_assert_cmpuint (seven.cwnd, ==, 40);
}

/* 5. thresh = 3 at b = 1: one lost ACK is not enough, three are, whether
 * spread over the round or in one burst. */
static void
test_thresh (void)
{
  Sim one, spread, burst, four;

  sim_init (&one, 1000, 40);
  one.params.thresh = 3;
  sim_settle_b1 (&one);
  sim_acks (&one, 5);
  sim_lose_next (&one, 1);
  g_assert_false (sim_ack (&one));
  g_assert_cmpuint (one.st.cnt, ==, 1);
  g_assert_cmpuint (sim_rounds (&one, 2), ==, 0);
  g_assert_cmpuint (one.waits, ==, 0);
  g_assert_cmpuint (one.counters.ack_losses, ==, 1);

  /* Span 2 each, sb stays below 1536 (1152, then back down): +1 each. */
  sim_init (&spread, 1000, 40);
  spread.params.thresh = 3;
  sim_settle_b1 (&spread);
  for (guint i = 0; i < 3; i++)
    {
      sim_acks (&spread, 3);
      sim_lose_next (&spread, 1);
      g_assert_false (sim_ack (&spread));
      g_assert_cmpuint (spread.st.cnt, ==, i + 1);
    }
  g_assert_cmpuint (sim_round (&spread), ==, 0);
  g_assert_cmpuint (spread.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&spread), ==, 1);
  g_assert_cmpuint (spread.cwnd, ==, 20);

  /* As in test_burst_b1: cnt 3 from one span-4 ACK. */
  sim_init (&burst, 1000, 40);
  burst.params.thresh = 3;
  sim_settle_b1 (&burst);
  sim_acks (&burst, 5);
  sim_lose_next (&burst, 3);
  g_assert_false (sim_ack (&burst));
  g_assert_cmpuint (burst.st.cnt, ==, 3);
  g_assert_cmpuint (sim_rounds (&burst, 2), ==, 1);
  g_assert_cmpuint (burst.cwnd, ==, 20);

  /* FINDING: not monotonic. Four lost ACKs count 1 (test_burst_b1_long)
   * and do not reach thresh 3, where three did. */
  sim_init (&four, 1000, 40);
  four.params.thresh = 3;
  sim_settle_b1 (&four);
  sim_acks (&four, 5);
  sim_lose_next (&four, 4);
  g_assert_false (sim_ack (&four));
  g_assert_cmpuint (four.st.cnt, ==, 1);
  g_assert_cmpuint (sim_rounds (&four, 2), ==, 0);
  g_assert_cmpuint (four.cwnd, ==, 40);
}

/* 5. FINDING: the count below thresh is never cleared by a round (only a
 * wait ends with cnt = 0) and ACKs of exactly b segments do not wear it
 * down, so thresh is not per RTT: three single lost ACKs ten rounds apart
 * halve with thresh = 3. */
static void
test_thresh_stale_count (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim.params.thresh = 3;
  sim_settle_b1 (&sim);
  for (guint i = 0; i < 3; i++)
    {
      sim_acks (&sim, 5);
      sim_lose_next (&sim, 1);
      g_assert_false (sim_ack (&sim));
      g_assert_cmpuint (sim.st.cnt, ==, i + 1);
      if (i < 2)
        g_assert_cmpuint (sim_rounds (&sim, 10), ==, 0);
    }
  g_assert_cmpuint (sim_rounds (&sim, 2), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 3);
}

/* 6. A lost ACK, then reordering during the waiting round: cnt goes back
 * below thresh, no halving, counted as suppressed by reordering. The
 * control, same stream without the reordering, halves. */
static void
test_reorder (void)
{
  Sim sim, ctrl, two;

  sim_init (&sim, 1000, 40);
  sim_settle_b1 (&sim);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  ctrl = sim;

  /* Dup ACKs for a reordered segment: Disorder, then back to Open. The
   * model does not feed the dup ACKs (snd_una did not move). */
  sim_acks (&sim, 5);
  sim_set_state (&sim, CA_DISORDER);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  sim_acks (&sim, 2);
  sim_set_state (&sim, CA_OPEN);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 1);

  g_assert_cmpuint (sim_round (&ctrl), ==, 1);
  g_assert_cmpuint (ctrl.counters.suppressed_reorder, ==, 0);

  /* One reordering takes back one count only: two lost, still halves. */
  sim_init (&two, 1000, 40);
  sim_settle_b1 (&two);
  sim_acks (&two, 5);
  sim_lose_next (&two, 2);
  g_assert_false (sim_ack (&two));
  g_assert_cmpuint (two.st.cnt, ==, 2);
  g_assert_cmpuint (sim_round (&two), ==, 0);
  sim_set_state (&two, CA_DISORDER);
  sim_set_state (&two, CA_OPEN);
  g_assert_cmpuint (two.st.cnt, ==, 1);
  g_assert_cmpuint (sim_round (&two), ==, 1);
  g_assert_cmpuint (two.counters.suppressed_reorder, ==, 0);
}

/* 7. Data loss and ACK loss in the same round: ACK-loss check suspended
 * for that round and the next; a clean ACK loss afterwards halves. */
static void
test_data_loss (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b1 (&sim);

  /* Round R: fast recovery over three ACKs, then two lost ACKs:
   * span 3, sb = (896 * 1024 + 128 * 3072) >> 10 = 1280, b = 1, +2. */
  sim_acks (&sim, 3);
  sim_set_state (&sim, CA_RECOVERY);
  g_assert_cmpuint (sim.st.data_loss, ==, 1);
  sim_acks (&sim, 3);
  sim_set_state (&sim, CA_OPEN);
  sim_acks (&sim, 2);
  sim_lose_next (&sim, 2);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 2);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);

  /* Round R+1: one more lost ACK (cnt 3); data_loss still set at its end. */
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim.st.data_loss, ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);

  /* Round R+2: a clean lost ACK; R+3 halves. */
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.ssthresh, ==, 20);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 4);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 1);
}

/* The test_burst_b1 stream from a given ISS, traced per ACK; returns the
 * snd_una just before the burst ACK and that ACK. */
static void
run_burst_trace (guint32 iss, GArray *trace, guint32 *before_burst, guint32 *burst_ack)
{
  Sim sim;

  sim_init (&sim, iss, 40);
  sim.trace = trace;
  sim_settle_b1 (&sim);
  sim_acks (&sim, 5);
  *before_burst = sim.snd_una;
  sim_lose_next (&sim, 3);
  g_assert_false (sim_ack (&sim));
  *burst_ack = sim.snd_una;
  g_assert_cmpuint (sim_rounds (&sim, 3), ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 3);
}

/* 8. The same stream with the burst ACK straddling 2^32 behaves the same. */
static void
test_wrap (void)
{
  g_autoptr(GArray) plain = g_array_new (FALSE, TRUE, sizeof (Step));
  g_autoptr(GArray) wrapped = g_array_new (FALSE, TRUE, sizeof (Step));
  guint32 una, ack, una_w, ack_w, iss_w;

  run_burst_trace (1000, plain, &una, &ack);
  /* Put the burst's starting point 2 segments below 2^32. */
  iss_w = (guint32) 0 - SEG (2) - (una - 1000);
  run_burst_trace (iss_w, wrapped, &una_w, &ack_w);
  g_assert_cmpuint (una_w, ==, (guint32) 0 - SEG (2));
  g_assert_cmpuint (ack_w, ==, SEG (2));
  g_assert_cmpuint (ack_w, <, una_w);

  g_assert_cmpuint (wrapped->len, ==, plain->len);
  for (guint i = 0; i < plain->len; i++)
    {
      const Step *a = &g_array_index (plain, Step, i);
      const Step *b = &g_array_index (wrapped, Step, i);

      g_assert_cmpuint (a->ack_off, ==, b->ack_off);
      g_assert_cmpuint (a->sb, ==, b->sb);
      g_assert_cmpuint (a->cnt, ==, b->cnt);
      g_assert_cmpuint (a->wait_state, ==, b->wait_state);
      g_assert_cmpuint (a->cwnd, ==, b->cwnd);
      g_assert_cmpuint (a->action, ==, b->action);
    }
}

/* 8. An ACK before prev_ack changes nothing but the ACK count. */
static void
test_old_ack (void)
{
  struct wf_ackloss_params p = { WF_ACKLOSS_THRESH_DEFAULT, WF_ACKLOSS_BETA_DEFAULT };
  struct wf_ackloss_counters c = { 0 };
  struct wf_ackloss_state s, snap;
  /* The ACK before (across 2^32), one byte back, the furthest back. */
  const guint32 olds[] = { SEG (4), 1, 0x7fffffffu };
  guint32 una = 0xffffff00u;

  /* prev_ack just past 2^32, with a count to lose: span 4 at b = 2 after
   * init: sb 2304, b 2, cnt 1. */
  wf_ackloss_init (&s, una, una + SEG (40));
  g_assert_cmpuint (wf_ackloss_on_ack (&s, &p, &c, una + SEG (4), una + SEG (40), MSS), ==,
                    WF_ACKLOSS_NONE);
  g_assert_cmpuint (s.prev_ack, <, una);
  g_assert_cmpuint (s.cnt, ==, 1);
  g_assert_cmpuint (s.sb, ==, 2304);

  for (gsize i = 0; i < G_N_ELEMENTS (olds); i++)
    {
      guint32 old = s.prev_ack - olds[i];

      g_test_message ("old ACK %u behind", olds[i]);
      snap = s;
      g_assert_cmpuint (wf_ackloss_on_ack (&s, &p, &c, old, una + SEG (40), MSS), ==,
                        WF_ACKLOSS_NONE);
      g_assert_cmpmem (&s, sizeof s, &snap, sizeof snap);
      g_assert_cmpuint (c.acks, ==, 2 + i);
    }
  g_assert_cmpuint (c.ack_losses, ==, 1);
  g_assert_cmpuint (c.halvings, ==, 0);
}

/* 8. mss == 0 is ignored but counted; the same ACK with the MSS would have
 * counted two lost ACKs. */
static void
test_mss_zero (void)
{
  struct wf_ackloss_params p = { WF_ACKLOSS_THRESH_DEFAULT, WF_ACKLOSS_BETA_DEFAULT };
  struct wf_ackloss_counters c = { 0 }, c_mss = { 0 };
  struct wf_ackloss_state s, snap, with_mss;

  wf_ackloss_init (&s, 5000, 5000 + SEG (10));
  /* 1 lost at b = 2 as in test_old_ack, so a wait would be visible. */
  wf_ackloss_on_ack (&s, &p, &c, 5000 + SEG (4), 5000 + SEG (10), MSS);
  g_assert_cmpuint (s.cnt, ==, 1);
  snap = s;
  with_mss = s;

  /* Past round_end: processed, this would end the round. */
  g_assert_cmpuint (wf_ackloss_on_ack (&s, &p, &c, 5000 + SEG (10), 5000 + SEG (20), 0), ==,
                    WF_ACKLOSS_NONE);
  g_assert_cmpmem (&s, sizeof s, &snap, sizeof snap);
  g_assert_cmpuint (c.acks, ==, 2);
  g_assert_cmpuint (c.ack_losses, ==, 1);

  /* Span 6: sb = 2016 + 768 = 2784, b = 3, floor(6/3) - 1 = +1, and the
   * round ends with cnt 2: wait. */
  wf_ackloss_on_ack (&with_mss, &p, &c_mss, 5000 + SEG (10), 5000 + SEG (20), MSS);
  g_assert_cmpuint (with_mss.cnt, ==, 2);
  g_assert_cmpuint (with_mss.wait_state, ==, 1);
  g_assert_cmpuint (with_mss.prev_ack, ==, 5000 + SEG (10));
}

/* 9. After SACK recovery the cumulative ACK jumps 500 segments at b = 2,
 * the glue still in Recovery (the kernel leaves it after in_ack_event).
 * The dup ACKs before it are not fed: snd_una did not move. */
static void
test_recovery_stretch (void)
{
  Sim sim;
  guint32 high_seq;

  sim_init (&sim, 1000, 600);
  sim_settle_b2 (&sim);
  /* 100 ACKs (200 segments) into a round that ends 598 segments past its
   * start, the segment at snd_una is lost: the jump will end the round. */
  sim_acks (&sim, 100);
  g_assert_cmpuint (sim.round_end - sim.snd_una, ==, SEG (398));
  sim_set_state (&sim, CA_RECOVERY);
  high_seq = sim.snd_nxt;

  /* sb = (896 * 2048 + 128 * 500 * 1024) >> 10 = 1792 + 64000 = 65792,
   * b = (65792 + 512) >> 10 = 64, cnt = floor(500 / 64) - 1 = 6. The
   * round ends: cnt >= 1 and data loss: wait. */
  g_assert_true (sim_ack_span (&sim, 500));
  g_assert_cmpuint (sim.st.sb, ==, 65792);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 64);
  g_assert_cmpuint (sim.st.cnt, ==, 6);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 6);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);

  /* Recovery ends at high_seq, 100 segments on: 50 span-2 ACKs, the last
   * of which also ends the waiting round (round_end was snd_nxt at the
   * jump, which is high_seq). Still in Recovery: no halving. */
  g_assert_cmpuint (sim.round_end, ==, high_seq);
  sim_acks (&sim, 49);
  g_assert_true (sim_ack (&sim));
  g_assert_cmpuint (sim.snd_una, ==, high_seq);
  g_assert_cmpuint (sim.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 1);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  sim_set_state (&sim, CA_OPEN);

  g_assert_cmpuint (sim_rounds (&sim, 4), ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 600);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 0);
}

/* 9. The same jump without the Recovery state does not halve either: with
 * b = 64 the next span-2 ACKs each take a count back (6 of them), before
 * the waiting round ends. The counters then blame reordering. */
static void
test_open_stretch (void)
{
  Sim sim;

  sim_init (&sim, 1000, 600);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 100);
  g_assert_true (sim_ack_span (&sim, 500));
  g_assert_cmpuint (sim.st.cnt, ==, 6);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  sim_acks (&sim, 6);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim_rounds (&sim, 4), ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 0);
}

/* The glue contract: Linux calls in_ack_event for dup ACKs too (slow path,
 * snd_una unchanged). Fed to the core, a span-0 ACK takes a count back
 * (floor(0 / b) - 1 = -1) and pulls sb down by 1/8: one dup ACK erases a
 * detected loss, and 20 of them (one recovery) drop b to 1, after which
 * delayed ACKs count as lost. The glue must skip ACKs that do not move
 * snd_una. */
static void
test_dup_ack (void)
{
  struct wf_ackloss_params p = { WF_ACKLOSS_THRESH_DEFAULT, WF_ACKLOSS_BETA_DEFAULT };
  struct wf_ackloss_counters c = { 0 };
  struct wf_ackloss_state s;
  guint32 una = 7000, nxt = 7000 + SEG (100);

  wf_ackloss_init (&s, una, nxt);
  una += SEG (4);
  wf_ackloss_on_ack (&s, &p, &c, una, nxt, MSS);
  g_assert_cmpuint (s.cnt, ==, 1);

  /* sb = (896 * 2304) >> 10 = 2016 */
  wf_ackloss_on_ack (&s, &p, &c, una, nxt, MSS);
  g_assert_cmpuint (s.cnt, ==, 0);
  g_assert_cmpuint (s.sb, ==, 2016);
  g_assert_cmpuint (s.prev_ack, ==, una);

  for (guint i = 0; i < 19; i++)
    wf_ackloss_on_ack (&s, &p, &c, una, nxt, MSS);
  /* sb' = 896 sb >> 10 nineteen more times: 2016 -> 156; b = 668 >> 10
   * = 0, reported as 1. */
  g_assert_cmpuint (s.sb, ==, 156);
  g_assert_cmpuint (wf_ackloss_b (&s), ==, 1);

  /* A delayed ACK now counts one lost ACK: sb 392, b 1, floor(2/1) - 1. */
  una += SEG (2);
  wf_ackloss_on_ack (&s, &p, &c, una, nxt, MSS);
  g_assert_cmpuint (s.sb, ==, 392);
  g_assert_cmpuint (s.cnt, ==, 1);
  g_assert_cmpuint (c.ack_losses, ==, 2);
  g_assert_cmpuint (c.acks, ==, 22);
}

/* max(cwnd / 2, 1): a window of 1 stays 1, odd windows round down. */
static void
test_halve (void)
{
  g_assert_cmpuint (wf_ackloss_halve (40), ==, 20);
  g_assert_cmpuint (wf_ackloss_halve (5), ==, 2);
  g_assert_cmpuint (wf_ackloss_halve (3), ==, 1);
  g_assert_cmpuint (wf_ackloss_halve (2), ==, 1);
  g_assert_cmpuint (wf_ackloss_halve (1), ==, 1);
  g_assert_cmpuint (wf_ackloss_halve (G_MAXUINT32), ==, G_MAXUINT32 / 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ackloss/no-loss", test_no_loss);
  g_test_add_func ("/ackloss/delayed/from-initial", test_delayed_from_initial);
  g_test_add_func ("/ackloss/delayed/from-b1", test_delayed_from_b1);
  g_test_add_func ("/ackloss/delayed/after-quickack", test_delayed_after_quickack);
  g_test_add_func ("/ackloss/delayed/estimate-matters", test_delayed_estimate_matters);
  g_test_add_func ("/ackloss/gro/constant", test_gro_constant);
  g_test_add_func ("/ackloss/gro/cycle", test_gro_cycle);
  g_test_add_func ("/ackloss/gro/random", test_gro_random);
  g_test_add_func ("/ackloss/burst/b1", test_burst_b1);
  g_test_add_func ("/ackloss/burst/b2-single", test_burst_b2_single);
  g_test_add_func ("/ackloss/burst/b2-missed", test_burst_b2_missed);
  g_test_add_func ("/ackloss/burst/b1-long", test_burst_b1_long);
  g_test_add_func ("/ackloss/thresh", test_thresh);
  g_test_add_func ("/ackloss/thresh/stale-count", test_thresh_stale_count);
  g_test_add_func ("/ackloss/reorder", test_reorder);
  g_test_add_func ("/ackloss/data-loss", test_data_loss);
  g_test_add_func ("/ackloss/wrap", test_wrap);
  g_test_add_func ("/ackloss/old-ack", test_old_ack);
  g_test_add_func ("/ackloss/mss-zero", test_mss_zero);
  g_test_add_func ("/ackloss/recovery/stretch-ack", test_recovery_stretch);
  g_test_add_func ("/ackloss/recovery/open-stretch-ack", test_open_stretch);
  g_test_add_func ("/ackloss/dup-ack", test_dup_ack);
  g_test_add_func ("/ackloss/halve", test_halve);

  return g_test_run ();
}
