/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's decisions on synthetic inputs: traffic detector with
 * hysteresis, roam floor, beacon loss, link down, holds, modes, strict
 * aborts, per-profile configuration over the global one. */
#include <glib.h>
#include <string.h>

#include "wlanfair-scan-policy.h"

#define MS ((gint64) 1000)
#define S ((gint64) G_USEC_PER_SEC)

/* Feeds `pps` packets/s (split tx/rx) for `seconds`, one sample each
 * `step_ms`, from *now / *packets; returns how many samples saw the
 * detector flip. */
typedef struct {
  WfTrafficDetector d;
  WfScanConfig      c;
  gint64            now;
  double            tx, rx;
} Feed;

static void
feed_init (Feed *f)
{
  wf_traffic_detector_init (&f->d);
  wf_scan_config_init_defaults (&f->c);
  f->now = 1000 * S;
  f->tx = f->rx = 1e6;   /* counters do not start at zero */
}

/* Runs `seconds` at `pps`; returns the time (µs from the start of this
 * call) of the first flip, or -1. */
static gint64
feed_run (Feed *f, double pps, double seconds, guint step_ms)
{
  gint64 start = f->now, flip = -1;
  guint n = (guint) (seconds * 1000 / step_ms + 0.5);

  for (guint i = 0; i < n; i++)
    {
      f->now += step_ms * MS;
      f->tx += pps / 2 * step_ms / 1000.0;
      f->rx += pps / 2 * step_ms / 1000.0;
      if (wf_traffic_detector_feed (&f->d, &f->c, f->now, (guint64) f->tx, (guint64) f->rx,
                                    (guint64) f->tx * 100, (guint64) f->rx * 1400)
          && flip < 0)
        flip = f->now - start;
    }
  return flip;
}

static void
test_traffic_start (void)
{
  Feed f;
  gint64 t;

  feed_init (&f);
  g_assert_cmpint (feed_run (&f, 2, 5, 250), ==, -1);     /* background chatter */
  g_assert_false (f.d.active);
  t = feed_run (&f, 100, 2, 250);
  g_assert_true (f.d.active);
  /* Two whole 250 ms intervals (the 0.5 s window) above 20 packets/s. */
  g_assert_cmpint (t, ==, 500 * MS);
  g_assert_cmpfloat_with_epsilon (f.d.tx_pps + f.d.rx_pps, 100, 2);
  g_assert_cmpfloat_with_epsilon (f.d.rx_bps, 50 * 1400, 1400 * 2);
}

static void
test_traffic_threshold (void)
{
  Feed f;

  /* Just under the threshold never starts; just over does. */
  feed_init (&f);
  g_assert_cmpint (feed_run (&f, 16, 10, 250), ==, -1);
  feed_init (&f);
  g_assert_cmpint (feed_run (&f, 24, 2, 250), >, 0);
}

static void
test_traffic_burst_ignored (void)
{
  Feed f;

  feed_init (&f);
  feed_run (&f, 0, 2, 250);
  /* 40 packets in one 250 ms interval (a page load), then quiet: the
   * window average is 80 packets/s but the next interval has nothing. */
  f.now += 250 * MS;
  f.tx += 20;
  f.rx += 20;
  g_assert_false (wf_traffic_detector_feed (&f.d, &f.c, f.now, (guint64) f.tx, (guint64) f.rx, 0, 0));
  g_assert_cmpint (feed_run (&f, 0, 2, 250), ==, -1);
  g_assert_false (f.d.active);
}

/* Sampled at half the rate while idle (the guard's slow tick): one slow
 * interval above the threshold is one burst's worth of evidence. It
 * starts nothing, says "rising" (the guard goes back to the full rate),
 * and a full-rate interval above the threshold confirms it. */
static void
test_traffic_slow_idle_sampling (void)
{
  Feed f;

  feed_init (&f);
  g_assert_cmpint (feed_run (&f, 0, 3, 500), ==, -1);
  g_assert_false (f.d.rising);
  /* A burst in one slow interval, then quiet: no start. */
  f.now += 500 * MS;
  f.tx += 20;
  f.rx += 20;
  g_assert_false (wf_traffic_detector_feed (&f.d, &f.c, f.now, (guint64) f.tx, (guint64) f.rx,
                                            (guint64) f.tx * 100, (guint64) f.rx * 1400));
  g_assert_false (f.d.active);
  g_assert_true (f.d.rising);
  g_assert_cmpint (feed_run (&f, 0, 0.25, 250), ==, -1);
  g_assert_false (f.d.active);
  g_assert_false (f.d.rising);
  /* Sustained traffic: noticed in one slow interval, started one
   * full-rate interval later. */
  feed_run (&f, 0, 2, 500);
  g_assert_cmpint (feed_run (&f, 100, 0.5, 500), ==, -1);
  g_assert_true (f.d.rising);
  g_assert_cmpint (feed_run (&f, 100, 0.25, 250), ==, 250 * MS);
  g_assert_true (f.d.active);
  g_assert_false (f.d.rising);
  /* A configured interval as long as the window: one interval is enough,
   * as before. */
  feed_init (&f);
  f.c.sample_interval_ms = 500;
  feed_run (&f, 0, 2, 500);
  g_assert_cmpint (feed_run (&f, 100, 0.5, 500), ==, 500 * MS);
}

static void
test_traffic_hysteresis (void)
{
  Feed f;
  gint64 t;

  feed_init (&f);
  f.c.idle_holdoff_s = 10;
  g_assert_cmpint (feed_run (&f, 200, 1, 250), >, 0);
  /* Between idle-pps (10) and start-pps (20): stays on. */
  g_assert_cmpint (feed_run (&f, 15, 30, 250), ==, -1);
  g_assert_true (f.d.active);
  /* Idle for 9 s, one more second of traffic: the hold-off restarts. */
  g_assert_cmpint (feed_run (&f, 0, 9, 250), ==, -1);
  g_assert_cmpint (feed_run (&f, 50, 1, 250), ==, -1);
  g_assert_true (f.d.active);
  /* Then idle: off after the hold-off plus the window's lag, not before. */
  t = feed_run (&f, 0, 20, 250);
  g_assert_false (f.d.active);
  g_assert_cmpint (t, >=, 10 * S);
  g_assert_cmpint (t, <=, 10 * S + 750 * MS);
}

static void
test_traffic_counter_reset (void)
{
  Feed f;

  feed_init (&f);
  g_assert_cmpint (feed_run (&f, 200, 1, 250), >, 0);
  /* The interface was re-created: counters from zero. No bogus rate, no
   * flip; the verdict holds until the hold-off says otherwise. */
  f.tx = f.rx = 0;
  g_assert_cmpint (feed_run (&f, 200, 1, 250), ==, -1);
  g_assert_true (f.d.active);
  g_assert_cmpfloat_with_epsilon (f.d.tx_pps + f.d.rx_pps, 200, 4);
}

static void
test_bgscan_threshold (void)
{
  WfScanConfig c;
  int t = 0;

  g_assert_true (wf_scan_bgscan_threshold ("simple:30:-70:86400", &t));
  g_assert_cmpint (t, ==, -70);
  g_assert_true (wf_scan_bgscan_threshold ("simple:30:-65:300", &t));
  g_assert_cmpint (t, ==, -65);
  g_assert_true (wf_scan_bgscan_threshold ("learn:30:-61:300:/var/lib/x", &t));
  g_assert_cmpint (t, ==, -61);
  g_assert_false (wf_scan_bgscan_threshold ("simple:30", &t));
  g_assert_false (wf_scan_bgscan_threshold ("simple:30:abc:300", &t));
  g_assert_false (wf_scan_bgscan_threshold ("", &t));
  g_assert_false (wf_scan_bgscan_threshold (NULL, &t));

  wf_scan_config_init_defaults (&c);
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:30:-70:86400"), ==, -73);
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:30:-65:300"), ==, -68);
  /* No threshold in the string: -70 minus the margin. */
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:30"), ==, -73);
  /* A threshold NetworkManager never picks (forced frequent scans):
   * the floor stays under NetworkManager's highest, -65. */
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:5:-10:10"), ==, -68);
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:30:-80:300"), ==, -83);
  c.roam_floor_margin_db = 5;
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:30:-65:300"), ==, -70);
  c.roam_floor_auto = FALSE;
  c.roam_floor_dbm = -80;
  g_assert_cmpint (wf_scan_roam_floor (&c, "simple:30:-65:300"), ==, -80);
}

/* A connected station with bgscan and traffic: suppression. */
static void
base (WfScanPolicy *p, WfScanConfig *c, WfScanInputs *in)
{
  wf_scan_policy_init (p);
  wf_scan_config_init_defaults (c);
  *in = (WfScanInputs) {
    .connected = TRUE, .carrier = TRUE, .has_network = TRUE, .has_bgscan = TRUE,
    .signal_dbm = -60, .roam_floor_dbm = -73, .traffic = TRUE, .n_holds = 0,
    .now_us = 5000 * S,
  };
}

static void
test_traffic_suppresses (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_true (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_TRAFFIC);
  g_assert_false (wf_scan_policy_decide (&p, &c, &in));   /* no change */
  in.traffic = FALSE;
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_IDLE);
  g_assert_cmpstr (wf_scan_reason_name (p.reason), ==, "idle");
}

static void
test_roam_floor (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  /* At the floor: still suppressed; under it: lifted despite traffic. */
  in.signal_dbm = -73;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  in.signal_dbm = -74;
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_ROAM_FLOOR);
  /* Hysteresis: back above the floor but within 4 dB: still lifted. */
  in.signal_dbm = -70;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  in.signal_dbm = -69;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_TRAFFIC);
  /* Holds do not beat the floor either. */
  in.traffic = FALSE;
  in.n_holds = 2;
  in.signal_dbm = -80;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_ROAM_FLOOR);
  /* Unknown signal keeps the last verdict. */
  in.signal_dbm = 0;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_ROAM_FLOOR);
}

static void
test_beacon_loss (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  wf_scan_policy_decide (&p, &c, &in);
  wf_scan_policy_beacon_loss (&p, in.now_us);
  in.now_us += 1 * S;
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_BEACON_LOSS);
  in.now_us += 28 * S;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  in.now_us += 2 * S;   /* 31 s after: the 30 s hold-off is over */
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
}

static void
test_link_down (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  in.connected = FALSE;   /* wpa_supplicant left "completed" */
  /* The grace first: the suppression is kept, the reason says why it
   * will end. */
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_true (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_LINK_DOWN);
  in.now_us += WF_SCAN_LINK_DOWN_GRACE_US - 1;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  in.now_us += 1;
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_LINK_DOWN);
  /* Back up: suppressed again at once; down again: a new grace. */
  in.connected = TRUE;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  in.now_us += S;
  in.carrier = FALSE;     /* no carrier */
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  in.now_us += WF_SCAN_LINK_DOWN_GRACE_US;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_LINK_DOWN);
  /* Never suppressing while down: nothing starts during the grace. */
  in.traffic = TRUE;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  in.carrier = TRUE;
  in.has_network = FALSE;
  in.now_us += S;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_NO_NETWORK);
  in.has_network = TRUE;
  in.has_bgscan = FALSE;  /* BSSID-locked profile: NM sets no bgscan */
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_NO_BGSCAN);
}

static void
test_holds (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  in.traffic = FALSE;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  in.n_holds = 1;
  g_assert_true (wf_scan_policy_decide (&p, &c, &in));
  g_assert_true (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_HOLD);
  /* Traffic and a hold: traffic is named. */
  in.traffic = TRUE;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_TRAFFIC);
  in.traffic = FALSE;
  in.n_holds = 0;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
}

static void
test_modes (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  c.mode = WF_SCAN_MODE_OFF;
  in.n_holds = 3;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_MODE_OFF);
  g_assert_false (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_WILDCARD));

  base (&p, &c, &in);
  c.mode = WF_SCAN_MODE_ALWAYS;
  in.traffic = FALSE;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_true (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_MODE_ALWAYS);
  /* always still yields to roaming and the link. */
  in.signal_dbm = -90;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_ROAM_FLOOR);
  in.signal_dbm = -50;
  in.connected = FALSE;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (p.suppress);
}

static void
test_strict_abort (void)
{
  WfScanPolicy p;
  WfScanConfig c;
  WfScanInputs in;

  base (&p, &c, &in);
  wf_scan_policy_decide (&p, &c, &in);
  /* observe: never. */
  g_assert_false (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_WILDCARD));
  c.policy = WF_SCAN_POLICY_STRICT;
  g_assert_true (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_WILDCARD));
  g_assert_true (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_PASSIVE));
  g_assert_true (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_MULTI_SSID));
  /* bgscan's own shape and unclassified scans are left alone. */
  g_assert_false (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_SINGLE_SSID));
  g_assert_false (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_UNKNOWN));
  /* Not without traffic or holds; yes with a hold. */
  in.traffic = FALSE;
  g_assert_false (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_WILDCARD));
  in.n_holds = 1;
  g_assert_true (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_WILDCARD));
  /* Never under the roam floor. */
  in.signal_dbm = -80;
  wf_scan_policy_decide (&p, &c, &in);
  g_assert_false (wf_scan_policy_should_abort (&p, &c, &in, WF_SCAN_KIND_WILDCARD));
}

static void
test_profile_over_global (void)
{
  WfScanPolicy p;
  WfScanConfig global, eff;
  WfScanInputs in;
  g_autoptr(GHashTable) ud = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  base (&p, &global, &in);
  g_hash_table_insert (ud, "wlanfair.scan.mode", "off");
  g_hash_table_insert (ud, "wlanfair.scan.start-pps", "50");
  g_hash_table_insert (ud, "wlanfair.scan.idle-pps", "40");   /* above the global 20: fine with 50 */
  g_hash_table_insert (ud, "other.key", "ignored");
  wf_scan_config_apply_profile (&global, ud, &eff, warnings);
  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_cmpint (eff.mode, ==, WF_SCAN_MODE_OFF);
  g_assert_cmpfloat (eff.start_pps, ==, 50);
  g_assert_cmpfloat (eff.idle_pps, ==, 40);
  g_assert_cmpfloat (eff.idle_holdoff_s, ==, global.idle_holdoff_s);
  g_assert_cmpint (global.mode, ==, WF_SCAN_MODE_AUTO);   /* untouched */
  wf_scan_policy_decide (&p, &eff, &in);
  g_assert_false (p.suppress);
  g_assert_cmpint (p.reason, ==, WF_SCAN_REASON_MODE_OFF);
  /* Without the profile the same inputs suppress. */
  wf_scan_policy_decide (&p, &global, &in);
  g_assert_true (p.suppress);
}

static void
test_profile_invalid_falls_back (void)
{
  WfScanConfig global, eff;
  g_autoptr(GHashTable) ud = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  wf_scan_config_init_defaults (&global);
  global.mode = WF_SCAN_MODE_ALWAYS;
  global.idle_holdoff_s = 7;
  g_hash_table_insert (ud, "wlanfair.scan.mode", "sometimes");
  g_hash_table_insert (ud, "wlanfair.scan.idle-holdoff", "-3");
  g_hash_table_insert (ud, "wlanfair.scan.roam-floor", "-60");
  g_hash_table_insert (ud, "wlanfair.scan.sample-interval", "100");  /* global only */
  g_hash_table_insert (ud, "wlanfair.scan.idle-pps", "500");          /* above start-pps */
  wf_scan_config_apply_profile (&global, ud, &eff, warnings);
  g_assert_cmpint (eff.mode, ==, WF_SCAN_MODE_ALWAYS);
  g_assert_cmpfloat (eff.idle_holdoff_s, ==, 7);
  g_assert_false (eff.roam_floor_auto);
  g_assert_cmpint (eff.roam_floor_dbm, ==, -60);
  g_assert_cmpuint (eff.sample_interval_ms, ==, global.sample_interval_ms);
  g_assert_cmpfloat (eff.idle_pps, ==, eff.start_pps);
  /* One warning each, naming key and value. */
  g_assert_cmpuint (warnings->len, ==, 4);
  g_assert_nonnull (strstr (warnings->pdata[1], "wlanfair.scan.mode"));
  g_assert_nonnull (strstr (warnings->pdata[1], "sometimes"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/policy/traffic/start", test_traffic_start);
  g_test_add_func ("/scan/policy/traffic/threshold", test_traffic_threshold);
  g_test_add_func ("/scan/policy/traffic/burst-ignored", test_traffic_burst_ignored);
  g_test_add_func ("/scan/policy/traffic/slow-idle-sampling", test_traffic_slow_idle_sampling);
  g_test_add_func ("/scan/policy/traffic/hysteresis", test_traffic_hysteresis);
  g_test_add_func ("/scan/policy/traffic/counter-reset", test_traffic_counter_reset);
  g_test_add_func ("/scan/policy/roam-floor/threshold", test_bgscan_threshold);
  g_test_add_func ("/scan/policy/decide/traffic", test_traffic_suppresses);
  g_test_add_func ("/scan/policy/decide/roam-floor", test_roam_floor);
  g_test_add_func ("/scan/policy/decide/beacon-loss", test_beacon_loss);
  g_test_add_func ("/scan/policy/decide/link-down", test_link_down);
  g_test_add_func ("/scan/policy/decide/holds", test_holds);
  g_test_add_func ("/scan/policy/decide/modes", test_modes);
  g_test_add_func ("/scan/policy/strict-abort", test_strict_abort);
  g_test_add_func ("/scan/policy/profile/over-global", test_profile_over_global);
  g_test_add_func ("/scan/policy/profile/invalid-falls-back", test_profile_invalid_falls_back);
  return g_test_run ();
}
