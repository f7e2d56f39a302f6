/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss detector (tcp/wlanfair-ackloss-core.h) driven by a small
 * deterministic sender/receiver model that calls it the way the BPF glue
 * does (one GTest binary per module: over 1500 lines of hand-worked
 * cases). Expected values are worked out by hand in the comments, in Q10
 * fixed point with the default beta = 128 (1/8):
 *   b   = (sb + 512) >> 10, at least 1, taken BEFORE this ACK's span
 *   lost = floor(span / b) - 1 when span > sb + 3 sv (the spread gate),
 *          else 0; a span < b takes one count back       (eq. (11))
 *   a span counted as lost enters sb capped at b + 2
 *   sv' = (896 sv + 128 |span - sb| + 512) >> 10, only for spans < 2b
 *         (a span of 2b or more, which may hide a lost ACK, leaves sv)
 *   sb' = (896 sb + 128 span + 512) >> 10                   (eq. (10))
 * The first WF_ACKLOSS_WARMUP_ACKS (32) advancing ACKs train sb and sv
 * only; span-0 ACKs are no-ops. At a round end: a wait halves if cnt >=
 * thresh, no data loss, and (confirm) lost ACKs were counted during the
 * waiting round; otherwise a round below thresh clears cnt. */
#include <string.h>

#include <glib.h>

#include "ackloss-model.h"


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
  g_assert_cmpuint (sim_wait_outcomes (&sim), ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  /* See sim_settle_b1. */
  g_assert_cmpuint (sim.st.sb, ==, ONE + 4);
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
  g_assert_cmpuint (sim.st.sv, ==, 0);
  g_assert_cmpuint (sim.counters.acks, ==, sim.fed);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
}

/* 2. The receiver switches from per-segment to delayed ACKs mid-connection.
 * The first span-2 ACKs, seen while b is still 1, look like lost ACKs
 * (eq. (11) cannot tell). A span 2 is 2b at b = 1, so it does not enter
 * sv: sv stays 8 and the gate (sb + 24) never closes; every span 2 counts
 * one until b reaches 2. Since the switch is over before the waiting
 * round ends (no new counts in it), confirmation turns the wait down; the
 * published rule (confirm = 0) halves on the same stream. Span-2 ACKs
 * from sb 1028, sv 8 (sim_settle_b1), by hand:
 *   b (1028+512)>>10 = 1, 2048 > 1028 + 24: +1, cnt 1, sv 8
 *     sb (896*1028 + 128*2048 + 512)>>10 = 1183744>>10 = 1156
 *   b (1156+512)>>10 = 1, 2048 > 1156 + 24: +1, cnt 2, sv 8
 *     sb (896*1156 + 262656)>>10 = 1298432>>10 = 1268
 *   b (1268+512)>>10 = 1, 2048 > 1268 + 24: +1, cnt 3, sv 8
 *     sb (896*1268 + 262656)>>10 = 1398784>>10 = 1366
 *   b (1366+512)>>10 = 1, 2048 > 1366 + 24: +1, cnt 4, sv 8
 *     sb (896*1366 + 262656)>>10 = 1486592>>10 = 1451
 *   b (1451+512)>>10 = 1, 2048 > 1451 + 24: +1, cnt 5, sv 8
 *     sb (896*1451 + 262656)>>10 = 1562752>>10 = 1526
 *   b (1526+512)>>10 = 1, 2048 > 1526 + 24: +1, cnt 6, sv 8
 *     sb (896*1526 + 262656)>>10 = 1629952>>10 = 1591
 *   b (1591+512)>>10 = 2: floor(2/2) = 1, cnt stays 6; span 2 < 2b now:
 *     sv (896*8 + 128*(2048-1591) + 512)>>10 = 66176>>10 = 64
 *     sb (896*1591 + 262656)>>10 = 1688192>>10 = 1648
 *   b (1648+512)>>10 = 2, cnt 6:
 *     sv (896*64 + 128*(2048-1648) + 512)>>10 = 109056>>10 = 106
 *     sb (896*1648 + 262656)>>10 = 1739264>>10 = 1698
 * so cnt 6 (under the old rule, where the 2b spans fed sv, 3: sv grew
 * to 299 by the third and the gate closed), and b stays 2 from here. */
static void
test_delayed_from_b1 (void)
{
  const guint32 sb_hand[] = { 1156, 1268, 1366, 1451, 1526, 1591, 1648, 1698 };
  const guint32 sv_hand[] = { 8, 8, 8, 8, 8, 8, 64, 106 };
  const guint32 cnt_hand[] = { 1, 2, 3, 4, 5, 6, 6, 6 };
  Sim sim, pub, rate;

  sim_init (&sim, 1000, 40);
  /* The confirmation by the waiting round alone; the loss-rate path
   * halves once here (6 lost ACKs in 8 put the rate at 0.58 %, over the
   * 0.5 % default): see below. */
  sim.params.rate = 0;
  sim_settle_b1 (&sim);
  sim_set_spans (&sim, span2, 1);
  for (gsize i = 0; i < G_N_ELEMENTS (sb_hand); i++)
    {
      g_assert_false (sim_ack (&sim));
      g_assert_cmpuint (sim.st.sb, ==, sb_hand[i]);
      g_assert_cmpuint (sim.st.sv, ==, sv_hand[i]);
      g_assert_cmpuint (sim.st.cnt, ==, cnt_hand[i]);
      g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, i < 5 ? 1 : 2);
    }
  pub = sim;
  pub.params.confirm = 0;
  rate = sim;
  rate.params.rate = WF_ACKLOSS_RATE_DEFAULT;
  /* 6 spans of 1 lost ACK each: 6 x 1024 less the decay, in Q20. */
  g_assert_cmpuint (rate.st.loss_rate, >, 5 * 1024);
  g_assert_cmpuint (rate.st.loss_rate, <, 6 * 1024);
  g_assert_cmpuint (rate.st.loss_rate, >=, WF_ACKLOSS_RATE_DEFAULT);
  g_assert_cmpuint (sim_rounds (&rate, 2), ==, 1);

  /* cnt 6 at the end of the round: wait; the waiting round's span-2 ACKs
   * at b = 2 count nothing: unconfirmed, no halving. */
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 6);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_unconfirmed, ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 40);

  /* Published rule: cnt is still 6 >= 1 at the end of the wait: halve. */
  g_assert_cmpuint (sim_rounds (&pub, 2), ==, 1);
  g_assert_cmpuint (pub.cwnd, ==, 20);
  g_assert_cmpuint (pub.counters.suppressed_unconfirmed, ==, 0);

  /* Converged: nothing more, b stays 2. */
  sim_reset_b_range (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 20), ==, 0);
  g_assert_cmpuint (sim.b_min, ==, 2);
  g_assert_cmpuint (sim.b_max, ==, 2);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 6);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 1);
  g_assert_cmpuint (sim_wait_outcomes (&sim), ==, sim.waits);
}

/* 2. A Linux receiver starts in quickack mode (up to 16 immediate ACKs,
 * TCP_MAX_QUICKACKS) and then delays. The warm-up covers it: 16 span-1
 * ACKs take the excess over 1024 from 1024 to 121 by e' = floor((896 e +
 * 512) / 1024): 896, 784, 686, 600, 525, 459, 402, 352, 308, 270, 236,
 * 207, 181, 158, 138, 121, so sb = 1145 (b = 1); the 16 span-2 ACKs that
 * follow are still warm-up and bring b to 2 (the shortfall below 2048
 * shrinks by 7/8 per ACK: 903 * (7/8)^16 ~ 108 < 512). Counting starts
 * at b = 2: not one lost ACK, no wait, slow start not cut short. */
static void
test_delayed_after_quickack (void)
{
  static guint spans[2000];
  Sim sim;

  for (gsize i = 0; i < G_N_ELEMENTS (spans); i++)
    spans[i] = i < 16 ? 1 : 2;
  sim_init (&sim, 1000, 10);
  sim_set_spans (&sim, spans, G_N_ELEMENTS (spans));
  sim.grow = TRUE;
  sim.cwnd_max = 80;

  for (guint i = 0; i < 16; i++)
    sim_ack (&sim);
  g_assert_cmpuint (sim.st.sb, ==, 1145);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 1);
  for (guint i = 0; i < 16; i++)
    sim_ack (&sim);
  g_assert_cmpuint (sim.fed, ==, 32);
  g_assert_cmpuint (sim.st.warmup, ==, 0);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);

  g_assert_cmpuint (sim_rounds (&sim, 30), ==, 0);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.ssthresh, ==, G_MAXUINT32);
  /* +1 per round in the model, never halved. */
  g_assert_cmpuint (sim.rounds, <, 70);
  g_assert_cmpuint (sim.cwnd, ==, 10 + sim.rounds);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);
}

/* 7. beta is clamped to 2..1024: beta = 1 would freeze sb (the step
 * beta * (2048 - sb) / 1024 is below one unit), beta 0 would never move
 * it. beta 0 and 1 run exactly as 2, beta 5000 as 1024 (sb = the last
 * span). With beta = 2 from sb 1028, span-2 ACKs climb: first step
 * (1022 * 1028 + 2 * 2048 + 512) >> 10 = 1055224 >> 10 = 1030. */
static void
test_beta_clamp (void)
{
  const guint32 betas[] = { 0, 1, 2, 1024, 5000 };
  Sim sims[G_N_ELEMENTS (betas)];

  for (gsize i = 0; i < G_N_ELEMENTS (betas); i++)
    {
      sim_init (&sims[i], 1000, 40);
      sim_settle_b1 (&sims[i]);
      sims[i].params.beta = betas[i];
      sim_set_spans (&sims[i], span2, 1);
    }
  g_assert_false (sim_ack (&sims[0]));
  g_assert_false (sim_ack (&sims[1]));
  g_assert_false (sim_ack (&sims[2]));
  g_assert_cmpuint (sims[2].st.sb, ==, 1030);
  g_assert_cmpmem (&sims[0].st, sizeof sims[0].st, &sims[2].st, sizeof sims[2].st);
  g_assert_cmpmem (&sims[1].st, sizeof sims[1].st, &sims[2].st, sizeof sims[2].st);

  /* beta 1024: sb is the span itself, 2048 (2 <= b + 2: not capped). */
  g_assert_false (sim_ack (&sims[3]));
  g_assert_false (sim_ack (&sims[4]));
  g_assert_cmpuint (sims[3].st.sb, ==, 2 * ONE);
  g_assert_cmpmem (&sims[3].st, sizeof sims[3].st, &sims[4].st, sizeof sims[4].st);

  /* beta 2 still reaches b = 2: sb' = sb + floor((2 d + 512) / 1024)
   * with d = 2048 - sb grows by 1 per ACK while d >= 256, and stops at
   * d = 255: sb = 1793, b = (1793 + 512) >> 10 = 2. (Straight into the
   * core: in the model the span-2 ACKs seen at b = 1 would halve.) */
  {
    struct wf_ackloss_state s = sims[2].st;
    struct wf_ackloss_params p = sims[2].params;
    guint32 una = s.prev_ack;

    s.round_end = una + SEG (100000);
    for (guint i = 0; i < 2000; i++)
      {
        una += SEG (2);
        wf_ackloss_on_ack (&s, &p, NULL, una, una + SEG (100000), MSS);
      }
    g_assert_cmpuint (s.sb, ==, 1793);
    g_assert_cmpuint (wf_ackloss_b (&s), ==, 2);
  }
}

/* 3. Constant GRO aggregation of k segments from the start: the climb from
 * the initial b = 2 happens inside the warm-up (32 ACKs: the shortfall
 * below k shrinks by 7/8 per ACK, (k - 2) * (7/8)^32 < 0.1), so nothing is
 * counted and nothing halves. */
static void
check_gro_constant (guint k)
{
  const guint spans[] = { k };
  Sim sim;

  g_test_message ("k = %u", k);
  sim_init (&sim, 1000, 40);
  sim_set_spans (&sim, spans, 1);
  g_assert_cmpuint (sim_rounds (&sim, 10), ==, 0);
  g_assert_cmpuint (sim.fed, >, WF_ACKLOSS_WARMUP_ACKS);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, k);

  sim_reset_b_range (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 50), ==, 0);
  g_assert_cmpuint (sim.b_min, ==, k);
  g_assert_cmpuint (sim.b_max, ==, k);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
}

static void
test_gro_constant (void)
{
  check_gro_constant (4);
  check_gro_constant (8);
}

/* 3. GRO spans cycling 2, 3, 5, 8 (mean 4.5): settled, b is 4 or 5; an 8
 * at b = 4 is 2b (and so does not enter sv there), but sv, learnt from the
 * 2, 3 and 5 (and the 8 at b = 5), which deviate 0.5..3.5 from sb, puts
 * it inside sb + 3 sv: nothing counted at all. */
static void
test_gro_cycle (void)
{
  const guint spans[] = { 2, 3, 5, 8 };
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_set_spans (&sim, spans, G_N_ELEMENTS (spans));
  g_assert_cmpuint (sim_rounds (&sim, 20), ==, 0);
  sim_reset_b_range (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 500), ==, 0);
  g_assert_cmpuint (sim.b_min, >=, 4);
  g_assert_cmpuint (sim.b_max, <=, 5);
  g_assert_cmpuint (sim.st.sv, >, ONE);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
}

/* 3. Seeded pseudo-random GRO spans 2..8, no ACK lost at all, Reno growth
 * to a receiver window of 20. The spread gate keeps most spans of 2b out
 * of the count, and confirmation turns down the waits the rest start.
 * Measured: 5 false halvings in 20 x 520 = 10,400 rounds, 45 waits (the
 * assertions are those bounds). Before sv stopped learning from spans of
 * 2b or more: 1 halving, 37 waits; the core before the spread gate: 28
 * halvings in 20 x 500 after 20 rounds of settling. The trade-off: the
 * long GRO spans (6..8 at b = 3, 8 at b = 4) no longer widen sv, so the
 * gate is a little narrower for a receiver this irregular; in return lost
 * ACKs cannot widen it either, and detection no longer blinds itself
 * when many ACKs are lost (test_spread_high_loss). Spans that vary this
 * much cannot be told from lost ACKs one by one: a remaining weakness,
 * about one false halving per 2,000 rounds. */
static void
test_gro_random (void)
{
  guint64 halvings = 0, waits = 0, unconfirmed = 0;

  for (guint32 seed = 1; seed <= 20; seed++)
    {
      Sim sim;

      sim_init (&sim, 1000, 20);
      sim.grow = TRUE;
      sim_set_random_spans (&sim, seed * 2654435761u, 2, 8);
      halvings += sim_rounds (&sim, 520);
      g_assert_cmpuint (sim.counters.halvings, ==, sim.halvings);
      g_assert_cmpuint (sim.b_max, <=, 8);
      g_assert_cmpuint (sim_wait_outcomes (&sim), ==, sim.waits);
      waits += sim.waits;
      unconfirmed += sim.counters.suppressed_unconfirmed;
    }
  g_test_message ("%" G_GUINT64_FORMAT " halvings, %" G_GUINT64_FORMAT " waits, %"
                  G_GUINT64_FORMAT " unconfirmed", halvings, waits, unconfirmed);
  g_assert_cmpuint (halvings, <=, 5);
  g_assert_cmpuint (waits, <, 100);
}

/* 4. Three consecutive ACKs lost at b = 1; the AP drops another ACK in the
 * next round. The burst ACK covers 4 segments (sb 1028, sv 8):
 *   b = 1, 4096 > 1028 + 24: cnt = floor(4 / 1) - 1 = 3
 *   span 4 >= 2b: sv stays 8 (the old rule made it (896*8 + 128*2044
 *   + 512)>>10 = 263, the gate then at sb + 789);
 *   capped at b + 2 = 3: sb (896*1028 + 128*3072 + 512)>>10 = 1314816>>10
 *   = 1284, b = 1796 >> 10 = 1 still. */
static void
test_burst_b1 (void)
{
  Sim sim, lone;

  sim_init (&sim, 1000, 40);
  sim_settle_b1 (&sim);
  sim_acks (&sim, 5);

  sim_lose_next (&sim, 3);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 1284);
  g_assert_cmpuint (sim.st.sv, ==, 8);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 1);
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 3);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);

  /* Span-1 ACKs with b = 1 leave cnt alone. The round's last ACK sets
   * the wait. */
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  lone = sim;

  /* Waiting round: one more lost ACK (span 2 at b = 1; sv only learnt
   * |1 - sb| from the span-1 ACKs as sb fell back from 1284, and the
   * gate is below 2048): cnt 4, cnt_wait 1. Its last ACK halves. */
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 4);
  g_assert_cmpuint (sim.st.cnt_wait, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.halved_at, ==, sim.round_closed_at);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.ssthresh, ==, 20);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim.st.cnt_wait, ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);

  g_assert_cmpuint (sim_rounds (&sim, 5), ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 4);
  g_assert_cmpuint (sim_wait_outcomes (&sim), ==, 1);
  g_assert_cmpuint (sim.dropped, ==, 4);

  /* The burst alone, nothing lost while waiting: unconfirmed. */
  g_assert_cmpuint (sim_rounds (&lone, 3), ==, 0);
  g_assert_cmpuint (lone.counters.suppressed_unconfirmed, ==, 1);
  g_assert_cmpuint (lone.counters.halvings, ==, 0);
  g_assert_cmpuint (lone.cwnd, ==, 40);
}

/* 4. One ACK lost at b = 2, and one in the waiting round: halves. Span 4
 * from sb 2048, sv 0: b 2, 4096 > 2048 + 0: cnt = floor(4/2) - 1 = 1;
 * span 4 is 2b: sv stays 0 (the old rule: (128*2048 + 512) >> 10 = 256);
 * sb (896*2048 + 128*4096 + 512) >> 10 = 2359808 >> 10 = 2304. Next
 * span 2: b = 2816 >> 10 = 2, +0; 2 < 2b: sv (896*0 + 128*(2304-2048)
 * + 512) >> 10 = 33280 >> 10 = 32; sb (896*2304 + 262144 + 512) >> 10
 * = 2327040 >> 10 = 2272. */
static void
test_burst_b2_single (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 5);

  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2304);
  g_assert_cmpuint (sim.st.sv, ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2272);
  g_assert_cmpuint (sim.st.sv, ==, 32);
  g_assert_cmpuint (sim.st.cnt, ==, 1);

  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt_wait, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.halved_at, ==, sim.round_closed_at);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.ssthresh, ==, 20);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 2);
}

/* 4. Three consecutive ACKs lost at b = 2 are found (the old core divided
 * by the b the stretch ACK itself had inflated to 3, then took the count
 * back). Span 8: b = 2 from sb 2048 before the update, 8192 > 2048:
 * cnt = floor(8/2) - 1 = 3. The span enters sb capped at b + 2 = 4: sb 2304,
 * b stays 2 (as in test_burst_b2_single), so the next span-2 ACK covers
 * exactly b and takes nothing back. */
static void
test_burst_b2 (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 5);

  sim_lose_next (&sim, 3);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2304);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.sb, ==, 2272);
  g_assert_cmpuint (sim.st.cnt, ==, 3);

  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 3);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 6);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 6);
  g_assert_cmpuint (sim.dropped, ==, 6);
}

/* 4. Every burst of n = 1..10 lost ACKs counts exactly n at b = 1, 2 and
 * 4 (span (n + 1) b at b: floor((n + 1) b / b) - 1 = n, far beyond sb,
 * sv = 0 for b = 2, 4 and 8 for b = 1), and b does not move: the span
 * capped at b + 2 lifts sb by 2/8 < 1/2, also for the second burst.
 * With confirm = 0 (published rule) each
 * lone burst halves once; with confirmation it needs one more lost ACK
 * in the waiting round. */
static void
test_burst_sizes (void)
{
  for (guint b = 1; b <= 4; b *= 2)
    for (guint n = 1; n <= 10; n++)
      for (guint confirm = 0; confirm <= 1; confirm++)
        {
          const guint spans[] = { b };
          Sim sim;

          sim_init (&sim, 1000, 40 * b);
          sim.params.confirm = confirm;
          sim.params.rate = 0; /* a lone burst: the waiting round decides */
          sim_set_spans (&sim, spans, 1);
          g_assert_cmpuint (sim_rounds (&sim, 10), ==, 0);
          g_assert_cmpuint (sim.st.warmup, ==, 0);
          sim_acks (&sim, 5);
          sim_lose_next (&sim, n);
          g_assert_false (sim_ack (&sim));
          g_assert_cmpuint (sim.st.cnt, ==, n);
          g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, b);
          g_assert_cmpuint (sim_round (&sim), ==, 0);
          g_assert_cmpuint (sim.st.wait_state, ==, 1);
          if (confirm)
            {
              g_assert_cmpuint (sim_round (&sim), ==, 0);
              g_assert_cmpuint (sim.counters.suppressed_unconfirmed, ==, 1);
              /* Again, now recurring: burst, then one lost while waiting. */
              sim_acks (&sim, 5);
              sim_lose_next (&sim, n);
              g_assert_false (sim_ack (&sim));
              g_assert_cmpuint (sim_round (&sim), ==, 0);
              sim_acks (&sim, 2);
              sim_lose_next (&sim, 1);
            }
          g_assert_cmpuint (sim_round (&sim), ==, 1);
          g_assert_cmpuint (sim.cwnd, ==, 20 * b);
          g_assert_cmpuint (sim.counters.ack_losses, ==, confirm ? 2 * n + 1 : n);
        }
}

/* 5. thresh = 3 at b = 1: one lost ACK is not enough, three are, whether
 * spread over the round or in one burst, and four in one burst too (the
 * old core counted that burst as 1). */
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

  /* Span 2 each at b = 1: +1 each (the first lifts sb to 1156, which
   * falls back by 1/8 of its excess per span-1 ACK; b stays 1). The
   * waiting round loses one more: cnt 4, confirmed. */
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
  sim_acks (&spread, 3);
  sim_lose_next (&spread, 1);
  g_assert_false (sim_ack (&spread));
  g_assert_cmpuint (spread.st.cnt, ==, 4);
  g_assert_cmpuint (sim_round (&spread), ==, 1);
  g_assert_cmpuint (spread.cwnd, ==, 20);

  for (guint n = 3; n <= 4; n++)
    {
      Sim *sim = n == 3 ? &burst : &four;

      sim_init (sim, 1000, 40);
      sim->params.thresh = 3;
      sim_settle_b1 (sim);
      sim_acks (sim, 5);
      sim_lose_next (sim, n);
      g_assert_false (sim_ack (sim));
      g_assert_cmpuint (sim->st.cnt, ==, n);
      g_assert_cmpuint (sim_round (sim), ==, 0);
      g_assert_cmpuint (sim->st.wait_state, ==, 1);
      sim_acks (sim, 5);
      sim_lose_next (sim, 1);
      g_assert_cmpuint (sim_round (sim), ==, 1);
      g_assert_cmpuint (sim->cwnd, ==, 20);
    }
}

/* 5. thresh counts per round: a round that ends below thresh clears cnt,
 * so three single lost ACKs ten rounds apart never reach thresh = 3 (the
 * old core halved). */
static void
test_thresh_per_round (void)
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
      g_assert_cmpuint (sim.st.cnt, ==, 1);
      g_assert_cmpuint (sim_round (&sim), ==, 0);
      g_assert_cmpuint (sim.st.cnt, ==, 0);
      g_assert_cmpuint (sim_rounds (&sim, 9), ==, 0);
    }
  g_assert_cmpuint (sim_rounds (&sim, 2), ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 3);
}

/* 5. thresh = 0 is taken as 1: a clean stream with the published rule
 * (confirm = 0) never waits (cnt 0 < 1 at every round end); unclamped,
 * cnt >= 0 would wait and halve every other round. One lost ACK then
 * waits and halves as with thresh 1 (test_confirm). */
static void
test_thresh_zero (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim.params.thresh = 0;
  sim.params.confirm = 0;
  sim_settle_b2 (&sim);
  g_assert_cmpuint (sim_rounds (&sim, 10), ==, 0);
  g_assert_cmpuint (sim.waits, ==, 0);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);
}

/* A lost ACK in round R (cnt 1, wait) and one in the waiting round (cnt 2,
 * cnt_wait 1); the caller then plays the rest of the waiting round. */
static void
sim_two_lost (Sim *sim)
{
  sim_init (sim, 1000, 40);
  sim_settle_b1 (sim);
  sim_acks (sim, 5);
  sim_lose_next (sim, 1);
  g_assert_false (sim_ack (sim));
  g_assert_cmpuint (sim->st.cnt, ==, 1);
  g_assert_cmpuint (sim_round (sim), ==, 0);
  g_assert_cmpuint (sim->st.wait_state, ==, 1);
  sim_acks (sim, 5);
  sim_lose_next (sim, 1);
  g_assert_false (sim_ack (sim));
  g_assert_cmpuint (sim->st.cnt, ==, 2);
  g_assert_cmpuint (sim->st.cnt_wait, ==, 1);
}

/* 6. Reordering in the waiting round takes one count back per Disorder
 * episode: two episodes bring cnt 2 to 0, no halving, counted as
 * suppressed by reordering; one episode leaves cnt 1, still a halving;
 * none (the control) halves. */
static void
test_reorder (void)
{
  Sim sim, ctrl, one;

  sim_two_lost (&sim);
  ctrl = sim;
  one = sim;

  /* Dup ACKs for a reordered segment: Disorder, back to Open, twice. The
   * dup ACKs themselves are no-ops for the core (test_dup_ack); the glue
   * sees each state at the next ACK. */
  for (guint i = 0; i < 2; i++)
    {
      sim_set_state (&sim, CA_DISORDER);
      sim_acks (&sim, 2);
      sim_set_state (&sim, CA_OPEN);
      sim_acks (&sim, 1);
    }
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim.st.reordered, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  g_assert_cmpuint (sim.st.reordered, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_fallback, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_unconfirmed, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 2);

  sim_set_state (&one, CA_DISORDER);
  sim_acks (&one, 1);
  sim_set_state (&one, CA_OPEN);
  sim_acks (&one, 1);
  g_assert_cmpuint (one.st.cnt, ==, 1);
  g_assert_cmpuint (sim_round (&one), ==, 1);
  g_assert_cmpuint (one.counters.suppressed_reorder, ==, 0);

  g_assert_cmpuint (sim_round (&ctrl), ==, 1);
  g_assert_cmpuint (ctrl.counters.suppressed_reorder, ==, 0);
}

/* 6. The count can also fall back without reordering: ACKs shorter than b
 * take one back each (eq. (11)). That is not blamed on reordering: at b
 * = 2, cnt 2 in the waiting round, then two span-1 ACKs (b = 2 from sb
 * ~ 2.2: floor(1/2) = 0, -1 each): cnt 0, suppressed_fallback. */
static void
test_fallback (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 2);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);
  g_assert_false (sim_ack_span (&sim, 1));
  g_assert_false (sim_ack_span (&sim, 1));
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_fallback, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_unconfirmed, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
}

/* Confirmation by hand, and confirm = 0 as the published rule. b = 2
 * settled; one lost ACK (span 4: cnt 1, see test_burst_b2_single); the
 * round ends with cnt 1 >= 1: wait. The waiting round is clean: span-2
 * ACKs at b = 2 neither add nor take back, cnt stays 1, cnt_wait 0.
 *   published: cnt 1 >= thresh, no data loss: halve, cwnd 40 -> 20;
 *   confirm:   cnt_wait 0: no halving, suppressed_unconfirmed 1. */
static void
test_confirm (void)
{
  Sim conf, pub;

  sim_init (&conf, 1000, 40);
  sim_settle_b2 (&conf);
  sim_acks (&conf, 5);
  sim_lose_next (&conf, 1);
  g_assert_false (sim_ack (&conf));
  g_assert_cmpuint (conf.st.cnt, ==, 1);
  pub = conf;
  pub.params.confirm = 0;

  g_assert_cmpuint (sim_round (&conf), ==, 0);
  g_assert_cmpuint (sim_round (&pub), ==, 0);
  g_assert_cmpuint (conf.st.wait_state, ==, 1);
  g_assert_cmpuint (pub.st.wait_state, ==, 1);

  sim_acks (&conf, 5);
  sim_acks (&pub, 5);
  g_assert_cmpuint (conf.st.cnt, ==, 1);
  g_assert_cmpuint (conf.st.cnt_wait, ==, 0);
  g_assert_cmpuint (sim_round (&pub), ==, 1);
  g_assert_cmpuint (pub.cwnd, ==, 20);
  g_assert_cmpuint (pub.ssthresh, ==, 20);
  g_assert_cmpuint (pub.counters.halvings, ==, 1);
  g_assert_cmpuint (pub.counters.suppressed_unconfirmed, ==, 0);

  g_assert_cmpuint (sim_round (&conf), ==, 0);
  g_assert_cmpuint (conf.cwnd, ==, 40);
  g_assert_cmpuint (conf.counters.halvings, ==, 0);
  g_assert_cmpuint (conf.counters.suppressed_unconfirmed, ==, 1);
  g_assert_cmpuint (conf.st.cnt, ==, 0);
  g_assert_cmpuint (conf.st.wait_state, ==, 0);
}

/* 7. Data loss and ACK loss in the same round: ACK-loss check suspended
 * for that round and the next; a clean, recurring ACK loss afterwards
 * halves. */
static void
test_data_loss (void)
{
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim_settle_b1 (&sim);

  /* Round R: fast recovery over three ACKs, then two lost ACKs (span 3 at
   * b = 1: +2). */
  sim_acks (&sim, 3);
  sim_set_state (&sim, CA_RECOVERY);
  g_assert_cmpuint (sim.st.data_loss, ==, 0); /* seen at the next ACK */
  sim_acks (&sim, 1);
  g_assert_cmpuint (sim.st.data_loss, ==, 1);
  sim_acks (&sim, 2);
  sim_set_state (&sim, CA_OPEN);
  sim_acks (&sim, 2);
  sim_lose_next (&sim, 2);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 2);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);

  /* Round R+1: one more lost ACK (cnt 3, confirmed); data_loss still set
   * at its end. */
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 3);
  g_assert_cmpuint (sim.st.cnt_wait, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_data_loss, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_unconfirmed, ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim.st.data_loss, ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);

  /* Rounds R+2, R+3: a lost ACK in each; R+3 halves. */
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_false (sim_ack (&sim));
  g_assert_cmpuint (sim.st.cnt, ==, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_cmpuint (sim_round (&sim), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);
  g_assert_cmpuint (sim.ssthresh, ==, 20);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 5);
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
  g_assert_cmpuint (sim_round (&sim), ==, 0);
  sim_acks (&sim, 5);
  sim_lose_next (&sim, 1);
  g_assert_cmpuint (sim_rounds (&sim, 3), ==, 1);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 4);
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
  struct wf_ackloss_counters c = { 0 };
  struct wf_ackloss_state s, snap;
  /* The ACK before (across 2^32), one byte back, the furthest back. */
  const guint32 olds[] = { SEG (4), 1, 0x7fffffffu };
  guint32 una = 0xffffff00u - SEG (64), nxt = una + SEG (200);

  /* prev_ack just past 2^32, with a count to lose: span 4 at b = 2 after
   * the warm-up: sb 2304, sv 0, cnt 1 (test_burst_b2_single). */
  wf_ackloss_init (&s, una, nxt);
  core_warm (&s, &default_params, &c, &una, nxt);
  g_assert_cmpuint (wf_ackloss_on_ack (&s, &default_params, &c, una + SEG (4), nxt, MSS), ==,
                    WF_ACKLOSS_NONE);
  g_assert_cmpuint (s.prev_ack, <, una);
  g_assert_cmpuint (s.cnt, ==, 1);
  g_assert_cmpuint (s.sb, ==, 2304);
  g_assert_cmpuint (s.sv, ==, 0);

  for (gsize i = 0; i < G_N_ELEMENTS (olds); i++)
    {
      guint32 old = s.prev_ack - olds[i];

      g_test_message ("old ACK %u behind", olds[i]);
      snap = s;
      g_assert_cmpuint (wf_ackloss_on_ack (&s, &default_params, &c, old, nxt, MSS), ==,
                        WF_ACKLOSS_NONE);
      g_assert_cmpmem (&s, sizeof s, &snap, sizeof snap);
      g_assert_cmpuint (c.acks, ==, WF_ACKLOSS_WARMUP_ACKS + 2 + i);
    }
  g_assert_cmpuint (c.ack_losses, ==, 1);
  g_assert_cmpuint (c.halvings, ==, 0);
}

/* 8. mss == 0 is ignored but counted; the same ACK with the MSS would have
 * counted two lost ACKs and ended the round. */
static void
test_mss_zero (void)
{
  struct wf_ackloss_counters c = { 0 }, c_mss = { 0 };
  struct wf_ackloss_state s, snap, with_mss;
  guint32 una = 5000, nxt = 5000 + SEG (64 + 4 + 6);

  wf_ackloss_init (&s, una, nxt);
  core_warm (&s, &default_params, &c, &una, nxt);
  /* 1 lost at b = 2 as in test_old_ack, so a wait would be visible. */
  wf_ackloss_on_ack (&s, &default_params, &c, una + SEG (4), nxt, MSS);
  g_assert_cmpuint (s.cnt, ==, 1);
  snap = s;
  with_mss = s;

  /* Past round_end: processed, this would end the round. */
  g_assert_cmpuint (wf_ackloss_on_ack (&s, &default_params, &c, nxt, nxt + SEG (10), 0), ==,
                    WF_ACKLOSS_NONE);
  g_assert_cmpmem (&s, sizeof s, &snap, sizeof snap);
  g_assert_cmpuint (c.acks, ==, WF_ACKLOSS_WARMUP_ACKS + 2);
  g_assert_cmpuint (c.ack_losses, ==, 1);

  /* Span 6 at b = (2304 + 512) >> 10 = 2, 6144 > 2304 + 3 * 0:
   * floor(6/2) - 1 = +2, and the round ends with cnt 3: wait. */
  wf_ackloss_on_ack (&with_mss, &default_params, &c_mss, nxt, nxt + SEG (10), MSS);
  g_assert_cmpuint (with_mss.cnt, ==, 3);
  g_assert_cmpuint (with_mss.wait_state, ==, 1);
  g_assert_cmpuint (with_mss.prev_ack, ==, nxt);
}

/* The warm-up: the first 32 advancing ACKs after init train sb only. A
 * span-4 ACK as the 32nd ACK counts nothing and enters sb uncapped
 * ((896*2048 + 128*4096 + 512) >> 10 = 2304); the same ACK as the 33rd
 * counts one (b = 2, 4096 > 2048 + 0). */
static void
test_warmup (void)
{
  struct wf_ackloss_counters c = { 0 };
  struct wf_ackloss_state early, late;
  guint32 una_e = 9000, una_l = 9000, nxt = 9000 + SEG (200);

  wf_ackloss_init (&early, una_e, nxt);
  g_assert_cmpuint (early.warmup, ==, WF_ACKLOSS_WARMUP_ACKS);
  for (guint i = 0; i < WF_ACKLOSS_WARMUP_ACKS - 1; i++)
    {
      una_e += SEG (2);
      wf_ackloss_on_ack (&early, &default_params, &c, una_e, nxt, MSS);
    }
  g_assert_cmpuint (early.warmup, ==, 1);
  una_e += SEG (4);
  wf_ackloss_on_ack (&early, &default_params, &c, una_e, nxt, MSS);
  g_assert_cmpuint (early.warmup, ==, 0);
  g_assert_cmpuint (early.cnt, ==, 0);
  g_assert_cmpuint (early.sb, ==, 2304);
  g_assert_cmpuint (c.ack_losses, ==, 0);

  wf_ackloss_init (&late, una_l, nxt);
  core_warm (&late, &default_params, &c, &una_l, nxt);
  una_l += SEG (4);
  wf_ackloss_on_ack (&late, &default_params, &c, una_l, nxt, MSS);
  g_assert_cmpuint (late.cnt, ==, 1);
  g_assert_cmpuint (late.sb, ==, 2304);
  g_assert_cmpuint (c.ack_losses, ==, 1);

  /* Dup ACKs do not use up the warm-up. */
  wf_ackloss_init (&early, 9000, nxt);
  for (guint i = 0; i < 40; i++)
    wf_ackloss_on_ack (&early, &default_params, &c, 9000, nxt, MSS);
  g_assert_cmpuint (early.warmup, ==, WF_ACKLOSS_WARMUP_ACKS);
}

/* The spread gate. Spans alternating 6 and 2 after the warm-up settle sb
 * near 4 and sv near 2 (|6 - 4| = |2 - 4| = 2; once b = 4 both are < 2b
 * and enter sv; measured sb 3957, sv 2184): b = 4 and a span of 8 is
 * 2b, but 8 <= sb + 3 sv, this receiver's normal spread: 0 lost. The
 * same span at b = 4 from constant GRO 4 (sv 0) counts one. */
static void
test_spread_gate (void)
{
  struct wf_ackloss_counters c = { 0 };
  struct wf_ackloss_state s, snap;
  guint32 una = 3000, nxt = 3000 + SEG (5000);
  guint64 losses0;

  wf_ackloss_init (&s, una, nxt);
  core_warm (&s, &default_params, &c, &una, nxt);
  for (guint i = 0; i < 100; i++)
    {
      una += SEG (i % 2 ? 2 : 6);
      wf_ackloss_on_ack (&s, &default_params, &c, una, nxt, MSS);
    }
  g_test_message ("sb %u sv %u", s.sb, s.sv);
  g_assert_cmpuint (wf_ackloss_b (&s), ==, 4);
  g_assert_cmpuint (s.sv, >=, ONE + ONE / 2);
  /* 8 * 1024 = 8192 <= sb + 3 sv: not counted. */
  g_assert_cmpuint (SEG (8) / MSS * ONE, <=, s.sb + 3 * s.sv);
  snap = s;
  losses0 = c.ack_losses;
  una += SEG (8);
  wf_ackloss_on_ack (&s, &default_params, &c, una, nxt, MSS);
  g_assert_cmpuint (s.cnt, ==, snap.cnt);
  g_assert_cmpuint (c.ack_losses, ==, losses0);
  g_assert_cmpuint (s.sb, >, snap.sb);

  /* Constant GRO 4: climbing from 2048, sb' = sb + floor((128 d + 512)
   * / 1024) with d = 4096 - sb stops once d <= 3: sb 4093; sv (0 while
   * b = 2, where a span 4 is 2b) learns d from b = 3 on and follows it
   * down to 7. b = 4, 8192 > 4093 + 21: floor(8/4) - 1 = 1. */
  {
    const guint spans[] = { 4 };
    Sim sim;

    sim_init (&sim, 1000, 80);
    sim_set_spans (&sim, spans, 1);
    g_assert_cmpuint (sim_rounds (&sim, 5), ==, 0);
    g_assert_cmpuint (sim.st.sb, ==, 4 * ONE - 3);
    g_assert_cmpuint (sim.st.sv, ==, 7);
    sim_lose_next (&sim, 1);
    g_assert_false (sim_ack (&sim));
    g_assert_cmpuint (sim.st.cnt, ==, 1);
  }
}

/* 9. After SACK recovery the cumulative ACK jumps 500 segments at b = 2,
 * the glue still in Recovery (the kernel leaves it after in_ack_event).
 * The dup ACKs before it are no-ops. b = 2 before the update, 500 MSS
 * beyond sb + 3 sv = 2: cnt = floor(500 / 2) - 1 = 249; the span enters
 * sb capped at 4: sb 2304, b stays 2. */
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

  /* The round ends: cnt >= 1 and data loss: wait. */
  g_assert_true (sim_ack_span (&sim, 500));
  g_assert_cmpuint (sim.st.sb, ==, 2304);
  g_assert_cmpuint (wf_ackloss_b (&sim.st), ==, 2);
  g_assert_cmpuint (sim.st.cnt, ==, 249);
  g_assert_cmpuint (sim.counters.ack_losses, ==, 249);
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
  g_assert_cmpuint (sim_wait_outcomes (&sim), ==, 1);
}

/* 9. The same jump without the Recovery state: a lone stretch ACK. It
 * counts 249 (b stays 2, nothing takes them back), the wait starts, and
 * the clean waiting round leaves it unconfirmed; the published rule
 * would halve on it. */
static void
test_open_stretch (void)
{
  Sim sim, pub;

  sim_init (&sim, 1000, 600);
  sim_settle_b2 (&sim);
  sim_acks (&sim, 100);
  pub = sim;
  pub.params.confirm = 0;
  g_assert_true (sim_ack_span (&sim, 500));
  g_assert_true (sim_ack_span (&pub, 500));
  g_assert_cmpuint (sim.st.cnt, ==, 249);
  g_assert_cmpuint (sim.st.wait_state, ==, 1);
  sim_acks (&sim, 6);
  g_assert_cmpuint (sim.st.cnt, ==, 249);
  g_assert_cmpuint (sim_rounds (&sim, 4), ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_unconfirmed, ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_reorder, ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_fallback, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 600);

  g_assert_cmpuint (sim_round (&pub), ==, 1);
  g_assert_cmpuint (pub.cwnd, ==, 300);
}

/* 4. Span-0 ACKs (ack == prev_ack: Linux calls in_ack_event for dup ACKs
 * too) are no-ops: they neither take a count back nor pull sb down, so
 * the count survives a whole recovery's worth of them. */
static void
test_dup_ack (void)
{
  struct wf_ackloss_counters c = { 0 };
  struct wf_ackloss_state s, snap;
  guint32 una = 7000, nxt = 7000 + SEG (200);

  wf_ackloss_init (&s, una, nxt);
  core_warm (&s, &default_params, &c, &una, nxt);
  una += SEG (4);
  wf_ackloss_on_ack (&s, &default_params, &c, una, nxt, MSS);
  g_assert_cmpuint (s.cnt, ==, 1);
  snap = s;

  for (guint i = 0; i < 20; i++)
    g_assert_cmpuint (wf_ackloss_on_ack (&s, &default_params, &c, una, nxt, MSS), ==,
                      WF_ACKLOSS_NONE);
  g_assert_cmpmem (&s, sizeof s, &snap, sizeof snap);
  g_assert_cmpuint (s.sb, ==, 2304);

  /* A delayed ACK afterwards covers b = 2 exactly: cnt stays 1. */
  una += SEG (2);
  wf_ackloss_on_ack (&s, &default_params, &c, una, nxt, MSS);
  g_assert_cmpuint (s.cnt, ==, 1);
  g_assert_cmpuint (wf_ackloss_b (&s), ==, 2);
  g_assert_cmpuint (c.ack_losses, ==, 1);
  g_assert_cmpuint (c.acks, ==, WF_ACKLOSS_WARMUP_ACKS + 22);
}

/* Persistent random ACK loss (a full AP queue) at b = 2, Reno from cwnd
 * 40 with a receiver window of 200, 20 seeds: every run halves, soon and
 * repeatedly. Measured at 10 %: first halving after 2.6 rounds on average
 * (worst 4), 12.2 halvings per 100 rounds (before sv stopped learning
 * from spans of 2b or more: 2.65 (worst 5) and 11.8). */
static void
test_persistent_loss (void)
{
  guint64 total = 0;

  for (guint32 seed = 1; seed <= 20; seed++)
    {
      Sim sim;
      guint first = 0;

      sim_init (&sim, 1000, 40);
      sim_settle_b2 (&sim);
      sim.grow = TRUE;
      sim.cwnd_max = 200;
      sim_set_random_loss (&sim, seed * 2654435761u, 10);
      for (guint r = 1; r <= 200; r++)
        {
          if (sim_round (&sim) && !first)
            first = r;
        }
      g_test_message ("seed %u: first halving in round %u, %" G_GUINT64_FORMAT " halvings",
                      seed, first, sim.halvings);
      g_assert_cmpuint (first, >=, 2);
      g_assert_cmpuint (first, <=, 10);
      g_assert_cmpuint (sim.halvings, >=, 15);
      /* A wait may still be open when the run stops. */
      g_assert_cmpuint (sim_wait_outcomes (&sim) + sim.st.wait_state, ==, sim.waits);
      total += sim.halvings;
    }
  g_assert_cmpuint (total, >=, 20 * 20);
}

/* The reason sv learns only from spans < 2b: a path that loses many ACKs.
 * b = 1 (every segment ACKed), 20 % of the ACKs lost at random (seeded),
 * Reno from cwnd 40 (receiver window 40), confirm = 1, 200 rounds. A
 * single lost ACK is a span of 2 and counts only if 2048 > sb + 3 sv:
 * with sb near 1024, sv < 1024 / 3. Under the old rule every lost-ACK
 * span entered sv (2048, or 3072 capped, some 800..1800 from sb); now
 * only the span-1 ACKs do, and they deviate from sb only by what the lost
 * ACKs lift sb (their spans enter sb capped at b + 2 = 3), so sv ~ sb -
 * 1024. sv and sb are sampled at each of the 270 ACKs delivered in the
 * last 50 rounds. Measured: mean sv 233, mean sb 1255 (sv peaks at 424,
 * over the gate: a run of lost ACKs lifts sb, and with it sv, and briefly
 * b to 2); the gate lets a single lost ACK through at 64 % of those ACKs;
 * 53 lost ACKs counted and 10 halvings in the last 50 rounds (222 lost
 * ACKs counted of 306 dropped, 39 halvings, over the run). The old rule
 * with the same seed: mean sv 410 (peak 824), beyond the gate on
 * average, gate open at 16 % of the ACKs, 189 counted of 381 dropped.
 * A limit that remains: sv still tracks sb's lift, so at 30 % loss
 * (same seed) mean sv is 443 with this rule too (583 with the old) and a
 * single lost ACK gets through at 2 % of the ACKs; the counting then
 * rests on gaps of several lost ACKs. */
static void
test_spread_high_loss (void)
{
  guint64 sv_sum = 0, sb_sum = 0, samples = 0, gate_open = 0;
  guint64 losses_at_150 = 0, halvings_at_150 = 0;
  guint32 sv_max = 0;
  Sim sim;

  sim_init (&sim, 1000, 40);
  sim.params.confirm = 1;
  sim_settle_b1 (&sim);
  sim.grow = TRUE;
  sim.cwnd_max = 40;
  sim_set_random_loss (&sim, 1 * 2654435761u, 20);
  for (guint r = 1; r <= 200; r++)
    {
      if (r <= 150)
        {
          sim_round (&sim);
          losses_at_150 = sim.counters.ack_losses;
          halvings_at_150 = sim.halvings;
          continue;
        }
      do
        {
          sv_sum += sim.st.sv;
          sb_sum += sim.st.sb;
          sv_max = MAX (sv_max, sim.st.sv);
          samples++;
          if (wf_ackloss_b (&sim.st) == 1 && 2 * ONE > sim.st.sb + 3 * sim.st.sv)
            gate_open++;
        }
      while (!sim_ack (&sim));
    }
  g_assert_cmpuint (samples, >, 0);
  g_test_message ("last 50 rounds: %" G_GUINT64_FORMAT " ACKs, mean sv %" G_GUINT64_FORMAT
                  " (max %u), mean sb %" G_GUINT64_FORMAT ", gate open %" G_GUINT64_FORMAT
                  " %%, %" G_GUINT64_FORMAT " lost ACKs counted, %" G_GUINT64_FORMAT
                  " halvings; run: %" G_GUINT64_FORMAT " counted / %" G_GUINT64_FORMAT
                  " dropped, %" G_GUINT64_FORMAT " halvings",
                  samples, sv_sum / samples, sv_max, sb_sum / samples, gate_open * 100 / samples,
                  (guint64) sim.counters.ack_losses - losses_at_150,
                  sim.halvings - halvings_at_150, (guint64) sim.counters.ack_losses,
                  sim.dropped, sim.halvings);

  /* Lost ACKs are still counted at the end, and still halve. */
  g_assert_cmpuint (sim.counters.ack_losses, >, losses_at_150);
  g_assert_cmpuint (sim.halvings, >, halvings_at_150);
  g_assert_cmpuint (sim.counters.halvings, ==, sim.halvings);
  g_assert_cmpuint (sim_wait_outcomes (&sim) + sim.st.wait_state, ==, sim.waits);
  /* sv stays below the gate on average; the gate lets a single lost ACK
   * through at most ACKs. */
  g_assert_cmpuint (sv_sum / samples, <, ONE / 3);
  g_assert_cmpuint (gate_open * 2, >, samples);
}

/* max(cwnd / 2, 1): a window of 1 stays 1, odd windows round down. */
static void
test_halve (void)
{
  const enum wf_ackloss_reduction H = WF_ACKLOSS_REDUCE_HALVE, D = WF_ACKLOSS_REDUCE_DRAIN,
                                  A = WF_ACKLOSS_REDUCE_AUTO;

  g_assert_cmpuint (wf_ackloss_halve (40), ==, 20);
  g_assert_cmpuint (wf_ackloss_halve (5), ==, 2);
  g_assert_cmpuint (wf_ackloss_halve (3), ==, 1);
  g_assert_cmpuint (wf_ackloss_halve (2), ==, 1);
  g_assert_cmpuint (wf_ackloss_halve (1), ==, 1);
  g_assert_cmpuint (wf_ackloss_halve (G_MAXUINT32), ==, G_MAXUINT32 / 2);
  /* drain: the window that empties the sender's own queue, when below half */
  g_assert_cmpuint (wf_ackloss_reduce (200, 100000, 1000, H, 1), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (200, 100000, 1000, D, 1), ==, 2);
  g_assert_cmpuint (wf_ackloss_reduce (200, 40000, 10000, D, 1), ==, 50);
  g_assert_cmpuint (wf_ackloss_reduce (200, 15000, 10000, D, 1), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (200, 10000, ~0u, D, 1), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (200, 0, 1000, D, 1), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (G_MAXUINT32, 2000000, 1000000, D, 1), ==,
                    G_MAXUINT32 / 2);
  /* auto: halve where every segment is ACKed (b = 1), drain where one ACK
   * covers more */
  g_assert_cmpuint (wf_ackloss_reduce (200, 100000, 1000, A, 1), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (200, 100000, 1000, A, 0), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (200, 100000, 1000, A, 2), ==, 2);
  g_assert_cmpuint (wf_ackloss_reduce (200, 40000, 10000, A, 4), ==, 50);
  g_assert_cmpuint (wf_ackloss_reduce (200, 15000, 10000, A, 2), ==, 100);
  g_assert_cmpuint (wf_ackloss_reduce (200, 0, 1000, A, 2), ==, 100);
  /* an unknown value halves */
  g_assert_cmpuint (wf_ackloss_reduce (200, 100000, 1000, (enum wf_ackloss_reduction) 7, 2), ==,
                    100);
  /* CUBIC's loss point: the window before a halving, the drained one */
  g_assert_cmpuint (wf_ackloss_cubic_origin (200, 100), ==, 200);
  g_assert_cmpuint (wf_ackloss_cubic_origin (201, 100), ==, 201);
  g_assert_cmpuint (wf_ackloss_cubic_origin (200, 99), ==, 99);
  g_assert_cmpuint (wf_ackloss_cubic_origin (200, wf_ackloss_reduce (200, 40000, 10000, D, 1)),
                    ==, 50);
  g_assert_cmpuint (wf_ackloss_cubic_origin (200, wf_ackloss_reduce (200, 40000, 10000, H, 1)),
                    ==, 200);
  g_assert_cmpuint (wf_ackloss_cubic_origin (3, 2), ==, 3);
}

/* The state must fit beside CUBIC's 60 bytes in icsk_ca_priv (104): 36
 * bytes, with the glue's primed flag, the queue gate's flag and padding,
 * which init clears. */
static void
test_state_size (void)
{
  struct wf_ackloss_state s;

  g_assert_cmpuint (sizeof (struct wf_ackloss_state), <=, 40);
  g_assert_cmpuint (sizeof (struct wf_ackloss_state), ==, 36);
  memset (&s, 0xa5, sizeof s);
  wf_ackloss_init (&s, 1000, 2000);
  g_assert_cmpuint (s.primed, ==, 0);
  g_assert_cmpuint (s.queue_low, ==, 0);
  g_assert_cmpuint (s.pad[0] | s.pad[1], ==, 0);
}

/* The queueing-delay gate: the stack's srtt against its min_rtt. */
static void
test_queue_gate_rtt (void)
{
  struct wf_ackloss_params p = default_params;
  struct wf_ackloss_state s;

  wf_ackloss_init (&s, 1000, 2000);
  wf_ackloss_on_rtt (&s, &p, 10500, 10000);
  g_assert_cmpuint (s.queue_low, ==, 1);
  wf_ackloss_on_rtt (&s, &p, 10999, 10000);
  g_assert_cmpuint (s.queue_low, ==, 1);
  wf_ackloss_on_rtt (&s, &p, 11000, 10000);
  g_assert_cmpuint (s.queue_low, ==, 0);
  /* min_rtt from a newer sample than srtt has caught up with */
  wf_ackloss_on_rtt (&s, &p, 9000, 10000);
  g_assert_cmpuint (s.queue_low, ==, 1);
  /* no RTT sample yet (srtt 0, min_rtt ~0U): no evidence, gate open */
  wf_ackloss_on_rtt (&s, &p, 0, 10000);
  g_assert_cmpuint (s.queue_low, ==, 0);
  wf_ackloss_on_rtt (&s, &p, 40, G_MAXUINT32);
  g_assert_cmpuint (s.queue_low, ==, 0);
  /* off */
  p.min_qdelay_us = 0;
  wf_ackloss_on_rtt (&s, &p, 40, 30);
  g_assert_cmpuint (s.queue_low, ==, 0);
}

/* A burst of 3 lost ACKs at b = 1 confirmed in the waiting round (as in
 * /ackloss/burst/b1) on a path without a queue: turned down, counted,
 * cwnd kept; with the gate off, or with a queue, it halves. */
static guint64
run_confirmed_burst (Sim *sim, guint32 srtt_us, guint32 min_rtt_us, guint32 gate_us)
{
  sim_init (sim, 1000, 40);
  sim->params.min_qdelay_us = gate_us;
  sim->srtt_us = srtt_us;
  sim->min_rtt_us = min_rtt_us;
  sim_settle_b1 (sim);
  sim_acks (sim, 5);
  sim_lose_next (sim, 3);
  g_assert_false (sim_ack (sim));
  g_assert_cmpuint (sim_round (sim), ==, 0);
  g_assert_cmpuint (sim->st.wait_state, ==, 1);
  sim_acks (sim, 5);
  sim_lose_next (sim, 1);
  g_assert_false (sim_ack (sim));
  return sim_round (sim);
}

static void
test_queue_gate (void)
{
  Sim sim;

  /* veth with GSO: srtt 60 us over min_rtt 3 us */
  g_assert_cmpuint (run_confirmed_burst (&sim, 60, 3, WF_ACKLOSS_QDELAY_DEFAULT_US), ==, 0);
  g_assert_cmpuint (sim.counters.suppressed_no_queue, ==, 1);
  g_assert_cmpuint (sim.counters.halvings, ==, 0);
  g_assert_cmpuint (sim_wait_outcomes (&sim), ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 40);
  g_assert_cmpuint (sim.st.wait_state, ==, 0);
  g_assert_cmpuint (sim.st.cnt, ==, 0);
  g_assert_cmpuint (sim_rounds (&sim, 5), ==, 0);

  g_assert_cmpuint (run_confirmed_burst (&sim, 60, 3, 0), ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_no_queue, ==, 0);
  g_assert_cmpuint (sim.cwnd, ==, 20);

  /* 4 ms of AP queue over a 2 ms path */
  g_assert_cmpuint (run_confirmed_burst (&sim, 6000, 2000, WF_ACKLOSS_QDELAY_DEFAULT_US), ==, 1);
  g_assert_cmpuint (sim.counters.suppressed_no_queue, ==, 0);
  g_assert_cmpuint (sim.counters.halvings, ==, 1);
  g_assert_cmpuint (sim.cwnd, ==, 20);
}

/* Thin, persistent ACK loss (what a congested AP's FIFO does to an
 * upstream flow: one lost ACK here and there, seldom in two rounds in a
 * row) against sporadic stretch ACKs (a clean path): the smoothed share of
 * lost ACKs confirms the first, not the second. Runs `acks` ACKs, one of
 * every `every` lost, Reno growth to cwnd 40 at b = 2. */
static void
run_thin_loss (Sim *sim, guint32 rate, guint confirm, guint every, guint acks)
{
  sim_init (sim, 1000, 40);
  sim->params.rate = rate;
  sim->params.confirm = confirm;
  sim->grow = TRUE;
  sim_settle_b2 (sim);
  for (guint i = 0; i < acks; i++)
    {
      if (i % every == every / 2)
        sim_lose_next (sim, 1);
      sim_ack (sim);
    }
}

static void
test_confirm_rate (void)
{
  Sim thin, thin_wait, sporadic, sporadic_pub;
  guint32 max_rate = 0;

  /* 1 in 20 ACKs lost (5 %). */
  run_thin_loss (&thin, WF_ACKLOSS_RATE_DEFAULT, 1, 20, 20000);
  run_thin_loss (&thin_wait, 0, 1, 20, 20000);
  g_test_message ("5 %% thin loss: %u halvings (rate), %u (waiting round only, %u unconfirmed)",
                  (guint) thin.halvings, (guint) thin_wait.halvings,
                  (guint) thin_wait.counters.suppressed_unconfirmed);
  g_assert_cmpuint (thin.st.loss_rate, >=, WF_ACKLOSS_RATE_DEFAULT);
  g_assert_cmpuint (thin.counters.suppressed_unconfirmed, <, thin_wait.counters.suppressed_unconfirmed);
  g_assert_cmpuint (thin.halvings, >, 2 * thin_wait.halvings);
  g_assert_cmpuint (thin_wait.counters.suppressed_unconfirmed, >, thin_wait.halvings);

  /* 1 in 400 ACKs (0.25 %): the published rule halves on nearly every
   * one; the rate never reaches 0.5 %, and the waiting rounds are clean. */
  run_thin_loss (&sporadic, WF_ACKLOSS_RATE_DEFAULT, 1, 400, 40000);
  run_thin_loss (&sporadic_pub, WF_ACKLOSS_RATE_DEFAULT, 0, 400, 40000);
  g_assert_cmpuint (sporadic.halvings, ==, 0);
  g_assert_cmpuint (sporadic.counters.suppressed_unconfirmed, >=, 90);
  g_assert_cmpuint (sporadic_pub.halvings, >=, 90);

  /* The share itself (Q20): 1 in 400 stays near 1/400 of 2^20 (2621),
   * under 0.5 % (5242) even right after a lost ACK: 1024 + 2621. */
  sim_init (&sporadic, 1000, 40);
  sim_settle_b2 (&sporadic);
  for (guint i = 0; i < 4000; i++)
    {
      if (i % 400 == 200)
        sim_lose_next (&sporadic, 1);
      sim_ack (&sporadic);
      max_rate = MAX (max_rate, sporadic.st.loss_rate);
    }
  g_assert_cmpuint (max_rate, <, 4500);
  g_assert_cmpuint (max_rate, >, 3000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ackloss/no-loss", test_no_loss);
  g_test_add_func ("/ackloss/delayed/from-initial", test_delayed_from_initial);
  g_test_add_func ("/ackloss/delayed/from-b1", test_delayed_from_b1);
  g_test_add_func ("/ackloss/delayed/after-quickack", test_delayed_after_quickack);
  g_test_add_func ("/ackloss/beta-clamp", test_beta_clamp);
  g_test_add_func ("/ackloss/gro/constant", test_gro_constant);
  g_test_add_func ("/ackloss/gro/cycle", test_gro_cycle);
  g_test_add_func ("/ackloss/gro/random", test_gro_random);
  g_test_add_func ("/ackloss/burst/b1", test_burst_b1);
  g_test_add_func ("/ackloss/burst/b2-single", test_burst_b2_single);
  g_test_add_func ("/ackloss/burst/b2", test_burst_b2);
  g_test_add_func ("/ackloss/burst/sizes", test_burst_sizes);
  g_test_add_func ("/ackloss/thresh", test_thresh);
  g_test_add_func ("/ackloss/thresh/per-round", test_thresh_per_round);
  g_test_add_func ("/ackloss/thresh/zero", test_thresh_zero);
  g_test_add_func ("/ackloss/reorder", test_reorder);
  g_test_add_func ("/ackloss/fallback", test_fallback);
  g_test_add_func ("/ackloss/confirm", test_confirm);
  g_test_add_func ("/ackloss/confirm-rate", test_confirm_rate);
  g_test_add_func ("/ackloss/queue-gate/rtt", test_queue_gate_rtt);
  g_test_add_func ("/ackloss/queue-gate", test_queue_gate);
  g_test_add_func ("/ackloss/data-loss", test_data_loss);
  g_test_add_func ("/ackloss/wrap", test_wrap);
  g_test_add_func ("/ackloss/old-ack", test_old_ack);
  g_test_add_func ("/ackloss/mss-zero", test_mss_zero);
  g_test_add_func ("/ackloss/warmup", test_warmup);
  g_test_add_func ("/ackloss/spread-gate", test_spread_gate);
  g_test_add_func ("/ackloss/recovery/stretch-ack", test_recovery_stretch);
  g_test_add_func ("/ackloss/recovery/open-stretch-ack", test_open_stretch);
  g_test_add_func ("/ackloss/dup-ack", test_dup_ack);
  g_test_add_func ("/ackloss/persistent-loss", test_persistent_loss);
  g_test_add_func ("/ackloss/spread/high-loss", test_spread_high_loss);
  g_test_add_func ("/ackloss/halve", test_halve);
  g_test_add_func ("/ackloss/state-size", test_state_size);

  return g_test_run ();
}
