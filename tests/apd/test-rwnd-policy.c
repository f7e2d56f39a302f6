/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rwnd policies' windows against figures computed by hand: the
 * published scenario (3 flows of 30/50/100 ms RTT, C = 19 Mbit/s,
 * 0.2 Mbit/s of UDP), no flow, one flow, a flow without an RTT, UDP above
 * C, the floor, a queue, the station split. */
#include "config.h"

#include <math.h>

#include "wlanfair-rwnd-policy.h"

#define C_BPS   19e6
#define UDP_BPS 0.2e6

static void
three (WfRwndPolicyFlow f[3])
{
  static const double rtt[3] = { 0.030, 0.050, 0.100 };

  for (int i = 0; i < 3; i++)
    f[i] = (WfRwndPolicyFlow) { .rtt_s = rtt[i], .active = TRUE };
}

static double
jain (const WfRwndPolicyFlow *f, guint n)
{
  double s = 0, s2 = 0;

  for (guint i = 0; i < n; i++)
    s += f[i].rate_bps, s2 += f[i].rate_bps * f[i].rate_bps;
  return s * s / (n * s2);
}

static void
test_names (void)
{
  WfRwndPolicy p = WF_RWND_POLICY_STATION;

  g_assert_true (wf_rwnd_policy_parse ("rtt-fair", &p));
  g_assert_cmpint (p, ==, WF_RWND_POLICY_RTT_FAIR);
  g_assert_true (wf_rwnd_policy_parse ("equal", &p));
  g_assert_cmpint (p, ==, WF_RWND_POLICY_EQUAL);
  g_assert_true (wf_rwnd_policy_parse ("station", &p));
  g_assert_cmpint (p, ==, WF_RWND_POLICY_STATION);
  g_assert_false (wf_rwnd_policy_parse ("rtt_fair", &p));
  g_assert_false (wf_rwnd_policy_parse ("", &p));
  g_assert_false (wf_rwnd_policy_parse (NULL, &p));
  g_assert_cmpstr (wf_rwnd_policy_name (WF_RWND_POLICY_RTT_FAIR), ==, "rtt-fair");
}

/* (19 - 0.2) Mbit/s = 2.35 MB/s among 3 flows: 783333 B/s each. */
static void
test_rtt_fair_published (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f[3];
  double total = 0;

  three (f);
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 23500);   /* 783333 x 0.030 */
  g_assert_cmpuint (f[1].window, ==, 39167);   /* 783333 x 0.050 */
  g_assert_cmpuint (f[2].window, ==, 78333);   /* 783333 x 0.100 */
  for (int i = 0; i < 3; i++)
    {
      g_assert_cmpfloat_with_epsilon (f[i].rate_bps, 18.8e6 / 3, 100);
      total += f[i].rate_bps;
    }
  g_assert_cmpfloat_with_epsilon (total, 18.8e6, 300);
  g_assert_cmpfloat (jain (f, 3), >=, 0.9999);
}

/* Equal windows: the 30 ms flow's share for all; the others get 3/5 and
 * 3/10 of it, 11.9 Mbit/s in all (the paper: < 13 Mbit/s). */
static void
test_equal_published (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_EQUAL, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f[3];

  three (f);
  wf_rwnd_policy_apply (&p, f, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpuint (f[i].window, ==, 23500);
  g_assert_cmpfloat_with_epsilon (f[0].rate_bps, 6.2667e6, 1e3);
  g_assert_cmpfloat_with_epsilon (f[1].rate_bps, 3.76e6, 1e3);
  g_assert_cmpfloat_with_epsilon (f[2].rate_bps, 1.88e6, 1e3);
  g_assert_cmpfloat_with_epsilon (f[0].rate_bps + f[1].rate_bps + f[2].rate_bps, 11.9067e6, 1e3);
  g_assert_cmpfloat (jain (f, 3), <, 0.85);
}

static void
test_zero_and_one (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f = { .rtt_s = 0.050, .active = TRUE };

  wf_rwnd_policy_apply (&p, NULL, 0);
  p.policy = WF_RWND_POLICY_EQUAL;
  wf_rwnd_policy_apply (&p, NULL, 0);
  /* One flow: all of C - UDP, 2.35 MB/s x 50 ms. */
  wf_rwnd_policy_apply (&p, &f, 1);
  g_assert_cmpuint (f.window, ==, 117500);
  p.policy = WF_RWND_POLICY_RTT_FAIR;
  f.window = 0;
  wf_rwnd_policy_apply (&p, &f, 1);
  g_assert_cmpuint (f.window, ==, 117500);
  /* ... and the same when it has not moved data yet. */
  f.active = FALSE;
  wf_rwnd_policy_apply (&p, &f, 1);
  g_assert_cmpuint (f.window, ==, 117500);
}

/* No RTT: counted as 50 ms. */
static void
test_no_rtt (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f[3];

  three (f);
  f[1].rtt_s = 0;
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 23500);
  g_assert_cmpuint (f[1].window, ==, 39167);
  g_assert_cmpuint (f[2].window, ==, 78333);
  g_assert_cmpfloat_with_epsilon (f[1].rate_bps, 18.8e6 / 3, 100);
}

/* UDP at or above C: every window at the floor, 4 segments. */
static void
test_udp_above_capacity (void)
{
  for (WfRwndPolicy pol = WF_RWND_POLICY_EQUAL; pol <= WF_RWND_POLICY_RTT_FAIR; pol++)
    {
      WfRwndPolicyParams p = { pol, C_BPS, 25e6 };
      WfRwndPolicyFlow f[3];

      three (f);
      f[2].mss = 1440;
      wf_rwnd_policy_apply (&p, f, 3);
      g_assert_cmpuint (f[0].window, ==, 4 * 1460);
      g_assert_cmpuint (f[1].window, ==, 4 * 1460);
      g_assert_cmpuint (f[2].window, ==, 4 * 1440);
      p.other_bps = C_BPS;
      wf_rwnd_policy_apply (&p, f, 3);
      g_assert_cmpuint (f[0].window, ==, 4 * 1460);
    }
}

/* Never below 4 MSS, never above the scaled field. */
static void
test_floor_and_ceiling (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, 1e6, 0 };
  WfRwndPolicyFlow f[3];

  /* 1 Mbit/s among 3: 41667 B/s x 30 ms = 1250 B < 5840. */
  three (f);
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 5840);
  g_assert_cmpuint (f[1].window, ==, 5840);   /* 2083 */
  g_assert_cmpuint (f[2].window, ==, 5840);   /* 4167 */
  g_assert_cmpuint (wf_rwnd_policy_window (0, 0.05, 0), ==, 5840);
  g_assert_cmpuint (wf_rwnd_policy_window (NAN, 0.05, 1000), ==, 4000);
  g_assert_cmpuint (wf_rwnd_policy_window (1e12, 1.0, 0), ==, WF_RWND_WINDOW_MAX);
  g_assert_cmpuint (wf_rwnd_policy_window (8e6, 0.010, 0), ==, 10000);
}

/* A queue: the 100 ms flow's base RTT is 50 ms, so the sum is 4, not 3:
 * 18.8 / 4 = 4.7 Mbit/s each, every window 3/4 of the queue-free one,
 * each flow's throughput still the same. */
static void
test_queue (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f[3];

  three (f);
  f[2].base_rtt_s = 0.050;
  f[0].base_rtt_s = 0.040;   /* above the current RTT: the current one */
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 17625);   /* 587500 B/s x 0.030 */
  g_assert_cmpuint (f[1].window, ==, 29375);
  g_assert_cmpuint (f[2].window, ==, 58750);
  g_assert_cmpfloat (jain (f, 3), >=, 0.9999);
}

/* Bursts are not a queue: each window cycles at its smoothed RTT (here
 * the path's + 6 ms of its own and the others' bursts), while the lowest
 * RTT of the last seconds (standing) is the path's: the sum stays 3 and
 * every window covers the RTT it cycles at, 6.2 Mbit/s x (path + 6 ms).
 * A queue that stands (standing 10 ms above base on every flow, smoothed
 * 16) does enter the sum: 3 + 10/30 + 10/50 + 10/100 = 3.633. */
static void
test_bursts_not_a_queue (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f[3];

  three (f);
  for (guint i = 0; i < 3; i++)
    {
      f[i].base_rtt_s = f[i].standing_rtt_s = f[i].rtt_s;
      f[i].rtt_s += 0.006;
    }
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 28200);   /* 783333 B/s x 0.036 */
  g_assert_cmpuint (f[1].window, ==, 43867);   /* x 0.056 */
  g_assert_cmpuint (f[2].window, ==, 83033);   /* x 0.106 */
  g_assert_cmpfloat (jain (f, 3), >=, 0.9999);
  for (guint i = 0; i < 3; i++)
    {
      f[i].standing_rtt_s = f[i].base_rtt_s + 0.010;
      f[i].rtt_s = f[i].base_rtt_s + 0.016;
    }
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 29752);   /* 18.8e6 / 8 / 3.633 x 0.046 */
  g_assert_cmpfloat (jain (f, 3), >=, 0.9999);
  /* A standing RTT above the smoothed one counts as the smoothed one:
   * 3.633 - 10/30 + 16/30. */
  f[0].standing_rtt_s = 1.0;
  wf_rwnd_policy_apply (&p, f, 3);
  g_assert_cmpuint (f[0].window, ==, 28200);
}

/* A flow that moves no data is not counted in N, but held to the same
 * rate (it would be counted at the next round). */
static void
test_idle_not_counted (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_RTT_FAIR, C_BPS, UDP_BPS };
  WfRwndPolicyFlow f[4];

  three (f);
  f[3] = (WfRwndPolicyFlow) { .rtt_s = 0.200, .active = FALSE };
  wf_rwnd_policy_apply (&p, f, 4);
  g_assert_cmpuint (f[0].window, ==, 23500);
  g_assert_cmpuint (f[3].window, ==, 156667);  /* 783333 x 0.200 */
  p.policy = WF_RWND_POLICY_EQUAL;
  wf_rwnd_policy_apply (&p, f, 4);
  g_assert_cmpuint (f[3].window, ==, 23500);
}

/* station: 8 Mbit/s among its 2 flows that move data (the idle third
 * gets a share too), 4 Mbit/s x 40 ms = 20000 B; a station with no rate
 * gets no target. */
static void
test_station (void)
{
  WfRwndPolicyParams p = { WF_RWND_POLICY_STATION, 0, 0 };
  WfRwndPolicyFlow f[4] = {
    { .rtt_s = 0.040, .active = TRUE, .station = 0, .station_bps = 8e6 },
    { .rtt_s = 0.040, .active = TRUE, .station = 0, .station_bps = 8e6 },
    { .rtt_s = 0.040, .active = FALSE, .station = 0, .station_bps = 8e6 },
    { .rtt_s = 0.040, .active = TRUE, .station = 1, .station_bps = 0 },
  };

  wf_rwnd_policy_apply (&p, f, 4);
  for (int i = 0; i < 3; i++)
    {
      g_assert_cmpuint (f[i].window, ==, 20000);
      g_assert_cmpfloat_with_epsilon (f[i].rate_bps, 4e6, 1);
    }
  g_assert_cmpuint (f[3].window, ==, 0);
  /* None moving: the whole rate to each. */
  f[0].active = f[1].active = FALSE;
  wf_rwnd_policy_apply (&p, f, 4);
  g_assert_cmpuint (f[0].window, ==, 40000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rwnd-policy/names", test_names);
  g_test_add_func ("/rwnd-policy/rtt-fair-published", test_rtt_fair_published);
  g_test_add_func ("/rwnd-policy/equal-published", test_equal_published);
  g_test_add_func ("/rwnd-policy/zero-and-one", test_zero_and_one);
  g_test_add_func ("/rwnd-policy/no-rtt", test_no_rtt);
  g_test_add_func ("/rwnd-policy/udp-above-capacity", test_udp_above_capacity);
  g_test_add_func ("/rwnd-policy/floor-and-ceiling", test_floor_and_ceiling);
  g_test_add_func ("/rwnd-policy/queue", test_queue);
  g_test_add_func ("/rwnd-policy/bursts-not-a-queue", test_bursts_not_a_queue);
  g_test_add_func ("/rwnd-policy/idle-not-counted", test_idle_not_counted);
  g_test_add_func ("/rwnd-policy/station", test_station);
  return g_test_run ();
}
