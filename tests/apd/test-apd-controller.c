/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controllers against simulated cells (apd-plant.c): time to
 * fairness, total against the cell's throughput-fair bound, no
 * oscillation, stations joining and leaving, satisfied stations. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "apd-plant.h"
#include "wlanfair-apd-controller.h"
#include "wlanfair-error.h"

#define MBIT 1e6

/* Runs `rounds` rounds; returns the first round from which Jain stayed
 * >= target until the end (or -1), and fills the last round. */
typedef struct {
  int    settled;        /* first round of the final fair stretch, -1 never */
  double mean_total;     /* over the last 10 rounds */
  double cap_flips;      /* sign changes of cap moves over the last half */
  double max_cap_move;   /* largest relative cap change, last 10 rounds */
  double mean_first;     /* station 0's goodput over the last 10 rounds */
} Outcome;

static Outcome
run (WfApdPlant *plant, WfApdController *c, int from, int rounds)
{
  Outcome o = { .settled = -1 };
  guint n = wf_apd_plant_n (plant);
  g_autofree WfApdDecision *dec = g_new0 (WfApdDecision, n + 1);
  g_autofree double *last_cap = g_new0 (double, n + 1);
  g_autofree double *last_move = g_new0 (double, n + 1);
  double total_sum = 0;

  for (int r = from; r < from + rounds; r++)
    {
      WfApdRound round;
      const WfApdStation *st = wf_apd_plant_measure (plant);

      wf_apd_controller_step (c, st, n, (gint64) r * G_USEC_PER_SEC, dec, &round);
      if (g_getenv ("APD_PLANT_TRACE"))
        for (guint i = 0; i < n; i++)
          g_printerr ("r%d sta%u x %.2f cap %.2f/%.2f level %.2f %s%s\n", r, i,
                      wf_apd_plant_rate (plant, i) / 1e6, dec[i].setting.rate_down_bps / 1e6,
                      dec[i].setting.rate_up_bps / 1e6, round.level_bps / 1e6,
                      dec[i].why ? dec[i].why : "", round.saturated ? " sat" : "");
      wf_apd_plant_apply (plant, dec);

      double jain = wf_apd_plant_jain (plant);
      if (jain >= 0.97)
        {
          if (o.settled < 0)
            o.settled = r - from;
        }
      else
        o.settled = -1;
      if (r >= from + rounds - 10)
        {
          total_sum += wf_apd_plant_total (plant);
          o.mean_first += wf_apd_plant_rate (plant, 0) / 10;
        }
      for (guint i = 0; i < n; i++)
        {
          double cap = dec[i].setting.rate_down_bps + dec[i].setting.rate_up_bps +
                       dec[i].setting.delay_us;
          double move = cap - last_cap[i];
          if (r >= from + rounds / 2 && last_cap[i] > 0 && cap > 0 &&
              fabs (move) > 0.01 * last_cap[i] && move * last_move[i] < 0)
            o.cap_flips++;
          if (r >= from + rounds - 10 && last_cap[i] > 0)
            o.max_cap_move = MAX (o.max_cap_move, fabs (move) / last_cap[i]);
          if (fabs (move) > 0.01 * MAX (last_cap[i], 1))
            last_move[i] = move;
          last_cap[i] = cap;
        }
    }
  o.mean_total = total_sum / 10;
  return o;
}

static WfApdController *
controller (const char *name, WfActuatorKnob knob, WfApdDir dirs)
{
  WfApdControlParams prm;
  g_autoptr(GError) error = NULL;

  wf_apd_control_params_init (&prm);
  prm.knob = knob;
  prm.directions = dirs;
  WfApdController *c = wf_apd_controller_new (name, &prm, &error);
  g_assert_no_error (error);
  return c;
}

static void
assert_converged (const Outcome *o, int within, double total_floor)
{
  g_test_message ("settled at %d, total %.2f Mbit/s "
                  "(floor %.2f), cap flips %.0f, last cap move %.3f",
                  o->settled, o->mean_total / MBIT,
                  total_floor / MBIT, o->cap_flips, o->max_cap_move);
  g_assert_cmpint (o->settled, >=, 0);
  g_assert_cmpint (o->settled, <=, within);
  g_assert_cmpfloat (o->mean_total, >=, total_floor);
  /* Settled means settled: no limit cycle in the caps. */
  g_assert_cmpfloat (o->max_cap_move, <, 0.05);
}

/* The anomaly's mirror: an airtime-fair MAC, one near station (40 Mbit/s
 * PHY goodput) and one far (10): uncontrolled, near gets 4 x far. */
static void
test_two_airtime_up (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 1);
  wf_apd_plant_add (plant, 40 * MBIT, WF_APD_DIR_UP, INFINITY);
  wf_apd_plant_add (plant, 10 * MBIT, WF_APD_DIR_UP, INFINITY);
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);

  wf_apd_plant_settle (plant);
  g_assert_cmpfloat (wf_apd_plant_jain (plant), <, 0.75);
  Outcome o = run (plant, c, 0, 60);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
}

/* n backlogged stations, the first half slow (12 Mbit/s, the rest 48),
 * downloading (mix 0), uploading (1) or both by turns (2). */
static WfApdPlant *
cell_of (guint n, int mix, guint32 seed)
{
  WfApdPlant *plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, seed);

  for (guint i = 0; i < n; i++)
    {
      WfApdDir dir = mix == 0 ? WF_APD_DIR_DOWN : mix == 1 ? WF_APD_DIR_UP
                     : (i % 2 ? WF_APD_DIR_UP : WF_APD_DIR_DOWN);
      wf_apd_plant_add (plant, i < n / 2 ? 12 * MBIT : 48 * MBIT, dir, INFINITY);
    }
  return plant;
}

/* N stations, half far, downloads, uploads and a mix. */
static void
test_n_stations (void)
{
  for (guint n = 2; n <= 8; n++)
    for (int mix = 0; mix < 3; mix++)
      {
        g_autoptr(WfApdPlant) plant = cell_of (n, mix, n * 10 + mix);
        g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE,
                                                   WF_APD_DIR_BOTH);
        g_test_message ("n=%u mix=%d", n, mix);
        wf_apd_plant_settle (plant);
        Outcome o = run (plant, c, 0, 60);
        assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
      }
}

/* The same cells where the AP cannot tell the stations' costs (bridge
 * ports of an emulation: no PHY rate): the airtime the stations use,
 * counted in bits, changes with who uses it, so the level must come from
 * what the stations that are not held get. */
static void
test_costs_unknown (void)
{
  for (guint n = 2; n <= 8; n += 2)
    for (int mix = 0; mix < 3; mix++)
      {
        g_autoptr(WfApdPlant) plant = cell_of (n, mix, n * 100 + mix);
        wf_apd_plant_set_costs_known (plant, FALSE);
        g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE,
                                                   WF_APD_DIR_BOTH);
        g_test_message ("n=%u mix=%d, costs unknown", n, mix);
        wf_apd_plant_settle (plant);
        Outcome o = run (plant, c, 0, 60);
        assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
      }
}

/* The ns-3 cell's stations (docs/ns3-cell.md): MCS 7 and MCS 0 without
 * aggregation get 24.6 and 4.9 Mbit/s of their 65 and 6.5 alone, a cost
 * ratio of 5, not the PHY rates' 10 (each frame's overhead does not
 * shrink with the rate). Costs from the PHY rates, off by that factor of
 * 2, and costs from measured airtime (the driver's TX/RX duration, which
 * the station table takes where the driver counts it: the cell's own)
 * both converge: the level comes from what the stations get, the costs
 * only shape the first guess and the bound. */
static void
test_costs_off_by_overhead (void)
{
  for (int mix = 0; mix < 3; mix++)
    for (int measured = 0; measured <= 1; measured++)
      {
        g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 40 + mix);
        WfApdDir dir = mix == 0 ? WF_APD_DIR_DOWN : WF_APD_DIR_UP;
        wf_apd_plant_add (plant, 24.6 * MBIT, dir, INFINITY);
        wf_apd_plant_add (plant, 4.9 * MBIT, mix == 2 ? WF_APD_DIR_DOWN : dir, INFINITY);
        if (!measured)
          {
            wf_apd_plant_set_seen_phy (plant, 0, 65 * MBIT);
            wf_apd_plant_set_seen_phy (plant, 1, 6.5 * MBIT);
          }
        g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE,
                                                   WF_APD_DIR_BOTH);
        wf_apd_plant_settle (plant);
        Outcome o = run (plant, c, 0, 60);
        g_test_message ("mix %d, costs %s: settled at %d, last Jain %.3f, total %.2f of "
                        "%.2f Mbit/s", mix, measured ? "measured" : "from PHY rates",
                        o.settled, wf_apd_plant_jain (plant), o.mean_total / MBIT,
                        wf_apd_plant_fair_bound (plant) / MBIT);
        assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
      }
}

/* From an idle cell: every flow ramps up at once, as after a start. The
 * capacity seen during the ramp is not the cell's; caps set from it would
 * hold every station below what the air gives. */
static void
test_ramp (void)
{
  for (int known = 0; known <= 1; known++)
    {
      g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 7 + known);
      wf_apd_plant_add (plant, 48 * MBIT, WF_APD_DIR_UP, INFINITY);
      wf_apd_plant_add (plant, 12 * MBIT, WF_APD_DIR_UP, INFINITY);
      wf_apd_plant_set_costs_known (plant, known);
      g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);
      g_test_message ("ramp, costs %s", known ? "known" : "unknown");
      Outcome o = run (plant, c, 0, 60);
      assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
    }
}

/* A station limited elsewhere (its frames lost after the MAC's retries:
 * its TCP cannot use its share, and says it wants more): held at its
 * share, the others would be held at it too, the air it leaves idle.
 * Max-min hands that air to the others (the cell's total at least 0.95
 * of the bound with it at its limit), never holds it back, and gives its
 * share back once its loss is gone. The cells of n-stations, station 0
 * (slow) limited to 40 % of its equal share, +-15 % per round. */
static void
test_limited_elsewhere (void)
{
  for (guint n = 2; n <= 8; n *= 2)
    for (int mix = 0; mix < 3; mix++)
      {
        g_autoptr(WfApdPlant) plant = cell_of (n, mix, n * 1000 + mix);
        /* Where the daemon acts, it counts what it is handed for each
         * station: lost frames make a download wait at the AP. */
        wf_apd_plant_set_demand_probe (plant, TRUE);
        double limit = 0.4 * wf_apd_plant_fair_bound (plant) / n;
        wf_apd_plant_set_limit (plant, 0, limit, 0.15);
        wf_apd_plant_settle (plant);
        g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE,
                                                   WF_APD_DIR_BOTH);
        g_test_message ("n=%u mix=%d, station 0 limited to %.2f Mbit/s", n, mix, limit / MBIT);
        Outcome o = run (plant, c, 0, 60);
        /* The headroom it is counted with (25 % above its mean) is air
         * the others do not get: at least 0.80 of the max-min bound
         * (0.83-0.99 over these cells and 12 seeds; the slow station
         * beside a fast one costs most), far above every station held
         * at its rate (n x limit, where the cell ratcheted to without
         * the rule). */
        assert_converged (&o, 10, 0.80 * wf_apd_plant_fair_bound (plant));
        g_test_message ("limited station %.2f Mbit/s; total %.2f of the bound, %.2f x "
                        "everyone at its rate", o.mean_first / MBIT,
                        o.mean_total / wf_apd_plant_fair_bound (plant), o.mean_total / (n * limit));
        g_assert_cmpfloat (o.mean_total, >=, 1.5 * n * limit);
        /* Its own 10 rounds at +-15 %: 0.89-1.10 of its limit (12 seeds). */
        g_assert_cmpfloat (o.mean_first, >=, 0.85 * limit);
        g_assert_false (wf_apd_plant_capped (plant, 0));

        /* Its loss gone: back at its share, the others held again. */
        wf_apd_plant_set_limit (plant, 0, INFINITY, 0);
        o = run (plant, c, 60, 40);
        assert_converged (&o, 15, 0.95 * wf_apd_plant_fair_bound (plant));
      }
}

/* The bench's 8-station mix: held at the same share, an upload (its own
 * contender for the air) carries 0.95-0.97 of its cap, a download
 * (behind the AP's one queue for every download) 0.79-0.85, so equal
 * caps left the downloads 10-20 % below the uploads (here, uncorrected,
 * 0.83-0.87 of them over 16 seeds). The uploads are held lower, by the
 * downloads' fill over theirs: equal goodputs (0.97-1.01 of them). Here
 * a download carries 0.82 of any cap, so the air the uploads give up
 * stays idle: the cell carries 0.72-0.93 of its bound where, unfair, it
 * carried 0.97 (docs/ap-controller.md, rule 7). A lossy upload among
 * them (its TCP limited elsewhere, its fill its own) lowers nobody, and
 * the cell does not ratchet down to its rate: 1.2-2.3 x everyone held at
 * it (0.4-0.9 of the bound), where it was 0.27-0.63 x without the
 * correction. Ranges over 16 seeds. */
static void
test_fill_even (void)
{
  for (guint n = 4; n <= 8; n *= 2)
    for (int lossy = 0; lossy < 2; lossy++)
      {
        g_autoptr(WfApdPlant) plant = cell_of (n, 2, n * 100 + lossy);
        g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE,
                                                   WF_APD_DIR_BOTH);
        g_autofree WfApdDecision *dec = g_new0 (WfApdDecision, n);
        g_autofree double *mean = g_new0 (double, n);
        double bound = wf_apd_plant_fair_bound (plant);
        double limit = 0.4 * bound / n;

        /* cell_of: even stations download. */
        for (guint i = 0; i < n; i += 2)
          wf_apd_plant_set_shaped (plant, i, 0.82);
        if (lossy)
          wf_apd_plant_set_limit (plant, 1, limit, 0.15);
        wf_apd_plant_settle (plant);
        Outcome o = run (plant, c, 0, 50);
        assert_converged (&o, 10, (lossy ? 0.35 : 0.65) * bound);
        /* Each station's goodput over 10 more rounds. */
        for (int r = 50; r < 60; r++)
          {
            WfApdRound round;
            wf_apd_controller_step (c, wf_apd_plant_measure (plant), n,
                                    (gint64) r * G_USEC_PER_SEC, dec, &round);
            wf_apd_plant_apply (plant, dec);
            for (guint i = 0; i < n; i++)
              mean[i] += wf_apd_plant_rate (plant, i) / 10;
          }
        double down_min = G_MAXDOUBLE, up_max = 0;
        for (guint i = 0; i < n; i++)
          if (i % 2 == 0)
            down_min = MIN (down_min, mean[i]);
          else if (!(lossy && i == 1))
            up_max = MAX (up_max, mean[i]);
        g_test_message ("n=%u lossy=%d: downloads at least %.2f, uploads at most %.2f "
                        "Mbit/s (%.3f); total %.2f of the bound, %.2f x everyone at the "
                        "lossy rate", n, lossy, down_min / MBIT, up_max / MBIT,
                        down_min / up_max, o.mean_total / bound, o.mean_total / (n * limit));
        g_assert_cmpfloat (down_min, >=, 0.95 * up_max);
        g_assert_cmpstr (dec[n - 1].why, ==,
                         "held below its share: the downloads carry less of theirs");
        if (lossy)
          g_assert_cmpfloat (o.mean_total, >=, 1.1 * n * limit);
      }
}

/* n stations, hand-fed: trusted reports of backlogged uploads. */
static void
reporting_uploads (WfApdStation *st, guint n)
{
  memset (st, 0, n * sizeof *st);
  for (guint i = 0; i < n; i++)
    {
      st[i].mac[5] = (guint8) (i + 1);
      wf_mac_format (st[i].mac, st[i].mac_str);
      st[i].weight = 1;
      st[i].reporting = st[i].trusted = TRUE;
      st[i].wants_more = TRUE;
    }
}

/* The lab's cell (tests/lab, scenario apd): two uploads through a
 * bottleneck past the AP (5 Mbit/s on its wired port), the near host's
 * short RTT taking 4 of the 5 uncontrolled, the far host's TCP ramping
 * 0.3 Mbit/s a round into what it is left. The AP counts what its radio
 * receives: the near host's slow start, 6 Mbit/s for two rounds, more than
 * the bottleneck carries, so the window overstates the air. The far host
 * below its share with that "idle" air was classified limited elsewhere
 * on its way up, the near one given its air (a CI run: Jain 0.92 over the
 * last 20 s, 0.79 in the lab). It must end fair: ramping is not a limit,
 * and air the others do not take was not idle. */
static double
bottleneck_past_ap_jain (guint32 seed, double B, double step, double *total)
{
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);
  g_autoptr(GRand) rng = g_rand_new_with_seed (seed);
  WfApdStation st[2];
  WfApdDecision dec[2] = { 0 };
  WfApdRound round;
  double w_far = 0.02 * B, near_sum = 0, far_sum = 0;

  reporting_uploads (st, 2);
  for (guint i = 0; i < 2; i++)
    {
      st[i].has_tx_bitrate = st[i].has_rx_bitrate = TRUE;
      st[i].tx_bitrate_kbps = 65000;
      st[i].rx_bitrate_kbps = 130000;
      st[i].cost_down_s_per_bit = 1.0 / 65e6;
      st[i].cost_up_s_per_bit = 1.0 / 130e6;
    }
  for (int r = 0; r < 60; r++)
    {
      double near, far;
      if (r < 2)
        {
          near = 1.2 * B;
          far = w_far;
        }
      else
        {
          double cap = dec[0].setting.limited ? dec[0].setting.rate_up_bps : INFINITY;
          near = MIN (0.97 * cap, 0.8 * B);
          far = MIN (w_far, B - near);
          w_far = far + step;
        }
      st[0].up_bps = st[0].ap_up_bps = near * g_rand_double_range (rng, 0.97, 1.03);
      st[1].up_bps = st[1].ap_up_bps = far * g_rand_double_range (rng, 0.97, 1.03);
      wf_apd_controller_step (c, st, 2, (gint64) r * G_USEC_PER_SEC, dec, &round);
      if (g_getenv ("APD_PLANT_TRACE"))
        g_printerr ("r%d near %.2f far %.2f cap %.2f level %.2f %s / %s\n", r,
                    st[0].up_bps / 1e6, st[1].up_bps / 1e6,
                    dec[0].setting.limited ? dec[0].setting.rate_up_bps / 1e6 : 0,
                    round.level_bps / 1e6, dec[0].why, dec[1].why);
      if (r >= 40)
        {
          near_sum += st[0].up_bps;
          far_sum += st[1].up_bps;
        }
    }
  /* Held, and counted. */
  g_assert_true (dec[0].setting.limited);
  g_assert_true (dec[1].counted);
  *total = (near_sum + far_sum) / 20;
  return (near_sum + far_sum) * (near_sum + far_sum) /
         (2 * (near_sum * near_sum + far_sum * far_sum));
}

/* The lab's cell (tests/lab, scenario apd): two uploads through a
 * bottleneck past the AP (its wired port), the near host's short RTT
 * taking 0.8 of it uncontrolled, the far host's TCP ramping `step` a
 * round into what it is left. The AP counts what its radio receives:
 * the near host's slow start, 1.2 x the bottleneck for two rounds, so the
 * window overstates the air. The far host below its share with that
 * "idle" air was classified limited elsewhere on its way up and the near
 * one given its air: Jain 0.92 over the last 20 s in a CI run, 0.79 in
 * the lab, 0.785 here before the fix. It must end fair: ramping is not a
 * limit, and air the others do not take was not idle. */
static void
test_bottleneck_past_ap (void)
{
  const double bottleneck[] = { 5e6, 20e6 };
  const double ramp_s[] = { 4, 8, 16 };  /* rounds from nothing to half */

  for (guint b = 0; b < G_N_ELEMENTS (bottleneck); b++)
    for (guint k = 0; k < G_N_ELEMENTS (ramp_s); k++)
      for (guint32 seed = 1; seed <= 4; seed++)
        {
          double total, B = bottleneck[b];
          double jain = bottleneck_past_ap_jain (seed, B, 0.5 * B / ramp_s[k], &total);
          g_test_message ("%.0f Mbit/s, far ramps to half in %.0f rounds, seed %u: "
                          "last 20 rounds Jain %.3f, total %.2f Mbit/s",
                          B / 1e6, ramp_s[k], seed, jain, total / 1e6);
          g_assert_cmpfloat (jain, >=, 0.97);
          g_assert_cmpfloat (total, >=, 0.9 * B);
        }
}

/* tcp_info's app_limited is one sample: it reads true now and then for
 * a flow pressed against its cap. A held station that says so at its
 * cap stays held (the bench saw caps lifted for a round by it). */
static void
test_app_limited_at_cap (void)
{
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);
  WfApdStation st[2];
  WfApdDecision dec[2];
  WfApdRound round;

  reporting_uploads (st, 2);
  for (guint i = 0; i < 2; i++)
    {
      st[i].has_tx_bitrate = st[i].has_rx_bitrate = TRUE;
      st[i].tx_bitrate_kbps = st[i].rx_bitrate_kbps = i == 0 ? 54000 : 13500;
      st[i].cost_down_s_per_bit = st[i].cost_up_s_per_bit = 1.0 / (st[i].tx_bitrate_kbps * 1e3);
    }
  /* Uncontrolled: near 16, far 4 Mbit/s up; then near held at ~6.4. */
  for (int r = 0; r < 6; r++)
    {
      double cap = r ? dec[0].setting.rate_up_bps : 0;
      st[0].up_bps = st[0].ap_up_bps = cap > 0 ? MIN (16e6, 0.97 * cap) : 16e6;
      st[1].up_bps = st[1].ap_up_bps = cap > 0 ? (20e6 - st[0].up_bps) / 4 : 4e6;
      wf_apd_controller_step (c, st, 2, (gint64) r * G_USEC_PER_SEC, dec, &round);
    }
  g_assert_true (dec[0].setting.limited);
  double held = dec[0].setting.rate_up_bps;
  /* At its cap, it reports an app-limited sample. */
  st[0].up_bps = st[0].ap_up_bps = 0.97 * held;
  st[0].app_limited = TRUE;
  st[0].wants_more = FALSE;
  wf_apd_controller_step (c, st, 2, 6 * G_USEC_PER_SEC, dec, &round);
  g_assert_true (dec[0].setting.limited);
  g_assert_false (dec[0].satisfied);
  g_assert_cmpuint (round.n_counted, ==, 2);
  /* Clearly below its share, it is believed. */
  st[0].up_bps = st[0].ap_up_bps = 0.3 * held;
  wf_apd_controller_step (c, st, 2, 7 * G_USEC_PER_SEC, dec, &round);
  g_assert_true (dec[0].satisfied);
  g_assert_false (dec[0].setting.limited);
}

/* Two backlogged downloads behind the AP, their hosts reporting (a
 * receiver says neither wants_more nor app_limited), the AP's FIFO full
 * but dropping too little to mark them waiting. A one-round burst puts
 * one above its share: it is held. Its leaf then feeds the AP's one
 * queue behind the unheld one, whose TCP keeps that queue full: the held
 * one carries 0.6 of its cap, the other 1.04 of the last round's level,
 * never above it by the margin that holds a station (the bench's
 * 2-station download cell: 2.9 of 5.1 against 5.4, for 6 s). Once one
 * download is held, every download with demand is: its cap empties the
 * FIFO the held one's frames waited in. */
static void
test_held_download_behind_fifo (void)
{
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);
  WfApdStation st[2];
  WfApdDecision dec[2];
  WfApdRound round;
  int r = 0;

  memset (st, 0, sizeof st);
  for (guint i = 0; i < 2; i++)
    {
      st[i].mac[5] = (guint8) (i + 1);
      wf_mac_format (st[i].mac, st[i].mac_str);
      st[i].weight = 1;
      st[i].reporting = st[i].trusted = TRUE;
    }
  /* Even, uncontrolled: 5.1 each. */
  for (; r < 8; r++)
    {
      for (guint i = 0; i < 2; i++)
        {
          st[i].down_bps = st[i].ap_down_bps = 5.1e6;
          st[i].up_bps = st[i].ap_up_bps = 0.15e6;
        }
      wf_apd_controller_step (c, st, 2, (gint64) r * G_USEC_PER_SEC, dec, &round);
      g_assert_false (dec[0].setting.limited);
      g_assert_false (dec[1].setting.limited);
    }
  /* The burst. */
  st[0].down_bps = st[0].ap_down_bps = 6.6e6;
  st[1].down_bps = st[1].ap_down_bps = 3.6e6;
  wf_apd_controller_step (c, st, 2, (gint64) r++ * G_USEC_PER_SEC, dec, &round);
  g_assert_true (dec[0].setting.limited);
  double share = round.level_bps;
  g_assert_cmpfloat (fabs (share - 5.1e6), <, 0.3e6);
  /* The held one behind the FIFO while the other is not held, the other
   * (with its ACKs) just under the margin above the last round's level;
   * once both are held, each carries 0.97 of its cap, the two at most
   * the 10.2 Mbit/s the cell carried. */
  for (int k = 0; k < 6; k++, r++)
    {
      double cap0 = dec[0].setting.rate_down_bps, cap1 = dec[1].setting.rate_down_bps;
      double level = round.level_bps;
      if (dec[0].setting.limited && dec[1].setting.limited)
        {
          st[0].down_bps = MIN (0.97 * cap0, 5.1e6);
          st[1].down_bps = MIN (0.97 * cap1, 5.1e6);
        }
      else
        {
          st[0].down_bps = 0.6 * cap0;
          st[1].down_bps = 1.04 * level - st[1].up_bps;
        }
      st[0].ap_down_bps = st[0].down_bps;
      st[1].ap_down_bps = st[1].down_bps;
      wf_apd_controller_step (c, st, 2, (gint64) r * G_USEC_PER_SEC, dec, &round);
      g_test_message ("round %d: %.2f / %.2f Mbit/s, caps %.2f / %.2f, level %.2f (%s)", r,
                      st[0].down_bps / MBIT, st[1].down_bps / MBIT,
                      dec[0].setting.rate_down_bps / MBIT, dec[1].setting.rate_down_bps / MBIT,
                      round.level_bps / MBIT, dec[1].why);
    }
  g_assert_true (dec[0].setting.limited);
  g_assert_true (dec[1].setting.limited);
  g_assert_cmpfloat (st[0].down_bps, >=, 0.95 * st[1].down_bps);
  g_assert_cmpfloat (st[0].down_bps, <=, 1.05 * st[1].down_bps);
  g_assert_cmpfloat (st[0].down_bps + st[1].down_bps, >=, 0.9 * 10.2e6);
}

/* A starved upload moves less than the idle rate; its report, which says
 * its flow waits for the path, is what keeps it counted: the others are
 * held so that it gets a share. Without that word it is idle. */
static void
test_starved_upload (void)
{
  for (int says = 0; says < 2; says++)
    {
      g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);
      WfApdStation st[3];
      WfApdDecision dec[3];
      WfApdRound round;

      reporting_uploads (st, 3);
      st[2].wants_more = says;
      for (guint i = 0; i < 3; i++)
        st[i].up_bps = st[i].ap_up_bps = i < 2 ? 10e6 : 20e3;
      for (int r = 0; r < 8; r++)
        wf_apd_controller_step (c, st, 3, (gint64) r * G_USEC_PER_SEC, dec, &round);
      g_assert_cmpint (dec[2].counted, ==, says);
      g_assert_cmpuint (round.n_counted, ==, says ? 3 : 2);
      g_assert_cmpint (dec[0].setting.limited, ==, says);
      g_assert_cmpint (dec[1].setting.limited, ==, says);
      if (says)
        /* Each held near a third of the 20 Mbit/s the cell carried. */
        g_assert_cmpfloat (dec[0].setting.rate_up_bps, <, 0.4 * 20e6);
    }
}

/* A starved download (the dense cell's: its TCP gets a sliver of the
 * AP's queue) moves less than the idle rate and cannot say it wants more:
 * its sender is elsewhere. Only the AP's count of what it was handed for
 * it (download-demand=) shows it; without that it stays idle. */
static void
test_starved_download (void)
{
  for (int probe = 0; probe < 2; probe++)
    {
      g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 12);
      for (int i = 0; i < 3; i++)
        wf_apd_plant_add_pull (plant, 20 * MBIT, WF_APD_DIR_UP, INFINITY, 1.0);
      wf_apd_plant_add_pull (plant, 20 * MBIT, WF_APD_DIR_DOWN, INFINITY, 0.003);
      wf_apd_plant_set_demand_probe (plant, probe);
      wf_apd_plant_settle (plant);
      g_assert_cmpfloat (wf_apd_plant_rate (plant, 3), <, 100e3);
      g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);

      Outcome o = run (plant, c, 0, 60);
      g_test_message ("probe %d: download %.2f Mbit/s, Jain %.3f", probe,
                      wf_apd_plant_rate (plant, 3) / 1e6, wf_apd_plant_jain (plant));
      if (probe)
        {
          assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
          g_assert_cmpfloat (wf_apd_plant_rate (plant, 3), >, 0.8 * 5 * MBIT);
        }
      else
        g_assert_cmpfloat (wf_apd_plant_rate (plant, 3), <, 100e3);
    }
}

/* The paper's case: equal costs, TCP gives the near host more (here 4:1).
 * The best throughput-fair total is the uncontrolled total. */
static void
test_tcp_unfair (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 3);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 4.0);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 1.0);
  wf_apd_plant_settle (plant);
  double uncontrolled = wf_apd_plant_total (plant);
  g_assert_cmpfloat (wf_apd_plant_jain (plant), <, 0.8);

  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);
  Outcome o = run (plant, c, 0, 60);
  assert_converged (&o, 10, 0.95 * uncontrolled);
}

/* A dense slow cell: 20 stations in 10 Mbit/s, the uploads pulling four
 * times harder. The equal share (0.5 Mbit/s) is below the 1 Mbit/s
 * floor: with that floor fixed no cap binds; floor=auto gets there. */
static void
test_dense_slow (void)
{
  for (int automatic = 0; automatic <= 1; automatic++)
    {
      g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 21);
      for (guint i = 0; i < 20; i++)
        wf_apd_plant_add_pull (plant, 10 * MBIT, i < 10 ? WF_APD_DIR_UP : WF_APD_DIR_DOWN,
                               INFINITY, i < 10 ? 4.0 : 1.0);
      wf_apd_plant_settle (plant);
      double uncontrolled = wf_apd_plant_total (plant);
      g_assert_cmpfloat (wf_apd_plant_jain (plant), <, 0.8);

      WfApdControlParams prm;
      g_autoptr(GError) error = NULL;
      wf_apd_control_params_init (&prm);
      g_assert_true (prm.floor_auto);
      prm.floor_auto = automatic;
      g_autoptr(WfApdController) c = wf_apd_controller_new ("share", &prm, &error);
      g_assert_no_error (error);
      Outcome o = run (plant, c, 0, 60);
      if (automatic)
        {
          assert_converged (&o, 15, 0.95 * uncontrolled);
          /* Held at the share, not at the floor. */
          for (guint i = 0; i < 10; i++)
            g_assert_cmpfloat (wf_apd_plant_rate (plant, i), <, 0.6 * MBIT);
        }
      else
        {
          g_test_message ("floor=1M: settled at %d, Jain %.3f", o.settled,
                          wf_apd_plant_jain (plant));
          g_assert_cmpint (o.settled, <, 0);
          g_assert_cmpfloat (wf_apd_plant_jain (plant), <, 0.8);
        }
    }
}

/* The same cell through the delay actuator: slower (a delay changes a
 * TCP share only through the RTT), but it must get there. */
static void
test_tcp_unfair_delay (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 4);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 4.0);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 1.0);
  wf_apd_plant_settle (plant);
  double uncontrolled = wf_apd_plant_total (plant);

  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_DELAY, WF_APD_DIR_BOTH);
  Outcome o = run (plant, c, 0, 120);
  assert_converged (&o, 40, 0.95 * uncontrolled);
}

/* 2 stations, a third joins at 30, one leaves at 60: each change is
 * absorbed within 10 rounds; alone, a station is never held back. */
static void
test_join_leave (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 5);
  wf_apd_plant_add (plant, 48 * MBIT, WF_APD_DIR_UP, INFINITY);
  wf_apd_plant_add (plant, 12 * MBIT, WF_APD_DIR_UP, INFINITY);
  wf_apd_plant_settle (plant);
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);

  Outcome o = run (plant, c, 0, 30);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));

  wf_apd_plant_add (plant, 24 * MBIT, WF_APD_DIR_DOWN, INFINITY);
  o = run (plant, c, 30, 30);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));

  guint8 mac[6];
  wf_apd_plant_remove (plant, 1, mac);
  wf_apd_controller_forget (c, mac);
  o = run (plant, c, 60, 30);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));

  wf_apd_plant_remove (plant, 1, mac);
  wf_apd_controller_forget (c, mac);
  o = run (plant, c, 90, 20);
  /* Alone: its PHY goodput, no cap. */
  g_assert_cmpfloat (o.mean_total, >=, 0.95 * wf_apd_plant_fair_bound (plant));
  g_assert_false (wf_apd_plant_capped (plant, 0));
}

/* A station that streams 3 Mbit/s and sends no report is not held back
 * and does not make the controller flap between capping and lifting. */
static void
test_satisfied_silent (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 6);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_DOWN, INFINITY, 1.0);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_DOWN, 3 * MBIT, 1.0);
  wf_apd_plant_set_reporting (plant, FALSE);
  wf_apd_plant_settle (plant);
  double uncontrolled = wf_apd_plant_total (plant);
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);

  Outcome o = run (plant, c, 0, 60);
  g_test_message ("total %.2f of %.2f, cap flips %.0f", o.mean_total / MBIT,
                  uncontrolled / MBIT, o.cap_flips);
  g_assert_cmpfloat (o.mean_total, >=, 0.95 * uncontrolled);
  g_assert_cmpfloat (wf_apd_plant_rate (plant, 1), >=, 0.95 * 3 * MBIT);
  g_assert_false (wf_apd_plant_capped (plant, 0));
  g_assert_cmpfloat (o.cap_flips, ==, 0);
}

/* The same with reports saying the stream is application-limited. */
static void
test_satisfied_reported (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 7);
  wf_apd_plant_add (plant, 40 * MBIT, WF_APD_DIR_UP, INFINITY);
  wf_apd_plant_add (plant, 10 * MBIT, WF_APD_DIR_UP, INFINITY);
  wf_apd_plant_add (plant, 40 * MBIT, WF_APD_DIR_DOWN, 2 * MBIT);
  wf_apd_plant_settle (plant);
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);

  Outcome o = run (plant, c, 0, 60);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
  g_assert_cmpfloat (wf_apd_plant_rate (plant, 2), >=, 0.95 * 2 * MBIT);
  g_assert_false (wf_apd_plant_capped (plant, 2));
}

/* A step change in the far station's rate (it moves): re-settles without
 * overshooting into a limit cycle. */
static void
test_step_change (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 8);
  wf_apd_plant_add (plant, 40 * MBIT, WF_APD_DIR_DOWN, INFINITY);
  wf_apd_plant_add (plant, 20 * MBIT, WF_APD_DIR_DOWN, INFINITY);
  wf_apd_plant_settle (plant);
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_RATE, WF_APD_DIR_BOTH);

  Outcome o = run (plant, c, 0, 30);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
  wf_apd_plant_set_phy (plant, 1, 6 * MBIT);
  o = run (plant, c, 30, 40);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
  wf_apd_plant_set_phy (plant, 1, 30 * MBIT);
  o = run (plant, c, 70, 40);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
}

/* Airtime weights: proportional to what each station's share costs. */
static void
test_weights (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_AIRTIME, 9);
  wf_apd_plant_add (plant, 40 * MBIT, WF_APD_DIR_DOWN, INFINITY);
  wf_apd_plant_add (plant, 10 * MBIT, WF_APD_DIR_DOWN, INFINITY);
  wf_apd_plant_settle (plant);
  g_autoptr(WfApdController) c = controller ("share", WF_ACTUATOR_KNOB_WEIGHT, WF_APD_DIR_BOTH);
  WfApdDecision dec[2];
  WfApdRound round;

  wf_apd_controller_step (c, wf_apd_plant_measure (plant), 2, 0, dec, &round);
  g_assert_cmpuint (dec[0].setting.weight, ==, 256);
  g_assert_cmpuint (dec[1].setting.weight, ==, 1024);
  Outcome o = run (plant, c, 1, 30);
  assert_converged (&o, 10, 0.95 * wf_apd_plant_fair_bound (plant));
}

/* The published method: D(0) from the signals, then the PI step every
 * 20 s; slower than share, as published (~130 s), but it converges. */
static void
test_pi (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 10);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 3.0);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 1.0);
  wf_apd_plant_set_signal (plant, 0, -45);
  wf_apd_plant_set_signal (plant, 1, -56);
  wf_apd_plant_settle (plant);
  g_assert_cmpfloat (wf_apd_plant_jain (plant), <, 0.85);
  g_autoptr(WfApdController) c = controller ("pi", WF_ACTUATOR_KNOB_DELAY, WF_APD_DIR_BOTH);
  WfApdDecision dec[2];
  WfApdRound round;

  /* Nothing before the first period ends; then D(0) on the faster one. */
  for (int r = 0; r < 20; r++)
    {
      wf_apd_controller_step (c, wf_apd_plant_measure (plant), 2,
                              (gint64) r * G_USEC_PER_SEC, dec, &round);
      g_assert_false (dec[0].setting.limited);
    }
  wf_apd_controller_step (c, wf_apd_plant_measure (plant), 2,
                          20 * G_USEC_PER_SEC, dec, &round);
  double d0 = 9.0 * pow (45.0 / 88.0, 2) * exp (0.17 * 11);
  g_assert_cmpfloat (fabs (dec[0].setting.delay_us / 1000.0 - d0), <, 0.01);
  g_assert_cmpuint (dec[1].setting.delay_us, ==, 0);
  wf_apd_plant_apply (plant, dec);

  Outcome o = run (plant, c, 21, 400);
  g_test_message ("pi settled at %d (+21)", o.settled);
  g_assert_cmpint (o.settled, >=, 0);
  g_assert_cmpfloat (wf_apd_plant_jain (plant), >=, 0.97);
}

/* Where D(0) already made the cell fair, the first PI step keeps it: no
 * proportional kick from the uncontrolled period's F (the lab's 26 ms
 * taken back to 0), only the integral's small move toward F_target. */
static void
test_pi_keeps_a_fair_d0 (void)
{
  g_autoptr(WfApdPlant) plant = wf_apd_plant_new (WF_APD_PLANT_PULL, 11);
  /* pulls 3:1 with 20 ms of RTT: fair at 40 ms on the near one, D(0)
   * 36 ms: the near one stays the faster, where the kick would land */
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 3.0);
  wf_apd_plant_add_pull (plant, 30 * MBIT, WF_APD_DIR_UP, INFINITY, 1.0);
  wf_apd_plant_set_signal (plant, 0, -45);
  wf_apd_plant_set_signal (plant, 1, -61);
  wf_apd_plant_settle (plant);
  g_autoptr(WfApdController) c = controller ("pi", WF_ACTUATOR_KNOB_DELAY, WF_APD_DIR_BOTH);
  WfApdDecision dec[2];
  WfApdRound round;
  double d0 = 9.0 * pow (45.0 / 88.0, 2) * exp (0.17 * 16);
  double d = 0;

  for (int r = 0; r <= 100; r++)
    {
      wf_apd_controller_step (c, wf_apd_plant_measure (plant), 2,
                              (gint64) r * G_USEC_PER_SEC, dec, &round);
      wf_apd_plant_apply (plant, dec);
      d = dec[0].setting.delay_us / 1000.0;
      if (r == 20)
        g_assert_cmpfloat (fabs (d - d0), <, 0.01);
      if (r >= 30)
        g_assert_cmpfloat (wf_apd_plant_jain (plant), >=, 0.97);
      /* the first PI step: Ki (F_target - F) alone, F <= 100 % */
      if (r == 40)
        g_assert_cmpfloat (fabs (d - d0), <=, 0.8 * 3 + 0.01);
    }
  g_test_message ("D(0) %.1f ms, after 4 PI steps %.1f ms (fair at 40)", d0, d);
}

static void
test_choices (void)
{
  WfApdControlParams prm;
  g_autoptr(GError) error = NULL;

  wf_apd_control_params_init (&prm);
  prm.knob = WF_ACTUATOR_KNOB_RATE;
  g_assert_null (wf_apd_controller_new ("pi", &prm, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "delay"));
  g_clear_error (&error);
  g_assert_null (wf_apd_controller_new ("nope", &prm, &error));
  g_assert_nonnull (strstr (error->message, "share, pi"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/controller/two-airtime-up", test_two_airtime_up);
  g_test_add_func ("/apd/controller/n-stations", test_n_stations);
  g_test_add_func ("/apd/controller/costs-unknown", test_costs_unknown);
  g_test_add_func ("/apd/controller/costs-off-by-overhead", test_costs_off_by_overhead);
  g_test_add_func ("/apd/controller/ramp", test_ramp);
  g_test_add_func ("/apd/controller/app-limited-at-cap", test_app_limited_at_cap);
  g_test_add_func ("/apd/controller/starved-upload", test_starved_upload);
  g_test_add_func ("/apd/controller/starved-download", test_starved_download);
  g_test_add_func ("/apd/controller/held-download-behind-fifo", test_held_download_behind_fifo);
  g_test_add_func ("/apd/controller/limited-elsewhere", test_limited_elsewhere);
  g_test_add_func ("/apd/controller/fill-even", test_fill_even);
  g_test_add_func ("/apd/controller/bottleneck-past-ap", test_bottleneck_past_ap);
  g_test_add_func ("/apd/controller/tcp-unfair", test_tcp_unfair);
  g_test_add_func ("/apd/controller/tcp-unfair-delay", test_tcp_unfair_delay);
  g_test_add_func ("/apd/controller/dense-slow", test_dense_slow);
  g_test_add_func ("/apd/controller/join-leave", test_join_leave);
  g_test_add_func ("/apd/controller/satisfied-silent", test_satisfied_silent);
  g_test_add_func ("/apd/controller/satisfied-reported", test_satisfied_reported);
  g_test_add_func ("/apd/controller/step-change", test_step_change);
  g_test_add_func ("/apd/controller/weights", test_weights);
  g_test_add_func ("/apd/controller/pi", test_pi);
  g_test_add_func ("/apd/controller/pi-keeps-a-fair-d0", test_pi_keeps_a_fair_d0);
  g_test_add_func ("/apd/controller/choices", test_choices);
  return g_test_run ();
}
