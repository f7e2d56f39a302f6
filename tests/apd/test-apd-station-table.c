/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The station table: rates from the AP's counters, arrivals and
 * departures, reports matched by address, a lying report, staleness. */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "wlanfair-apd-station-table.h"

#define S (G_USEC_PER_SEC)

static const guint8 mac_a[6] = { 2, 0, 0, 0, 0, 0xa };
static const guint8 mac_b[6] = { 2, 0, 0, 0, 0, 0xb };

static WfApdApEntry
entry (const guint8 mac[6], guint64 tx, guint64 rx)
{
  WfApdApEntry e = { .ifindex = 3, .has_signal = TRUE, .signal_dbm = -50,
                     .has_tx_bitrate = TRUE, .tx_bitrate_kbps = 54000,
                     .has_rx_bitrate = TRUE, .rx_bitrate_kbps = 24000,
                     .tx_mcs = -1, .tx_bytes = tx, .rx_bytes = rx };
  memcpy (e.mac, mac, 6);
  return e;
}

/* A report of a host whose Wi-Fi interface has this goodput, with one
 * flow (rtt, app-limited or not). */
static WfReportView *
report (const char *host, double rx_bps, double tx_bps, gint64 rtt_us, gboolean app_limited)
{
  g_autoptr(JsonObject) body = json_object_new ();
  JsonArray *ifaces = json_array_new ();
  JsonArray *flows = json_array_new ();
  JsonObject *i = json_object_new (), *f = json_object_new ();
  g_autoptr(GError) error = NULL;
  WfReportReject reason;

  json_object_set_string_member (i, "name", "wlan0");
  json_object_set_boolean_member (i, "wifi", TRUE);
  json_object_set_double_member (i, "goodput_rx_bps", rx_bps);
  json_object_set_double_member (i, "goodput_tx_bps", tx_bps);
  json_array_add_object_element (ifaces, i);
  json_object_set_string_member (f, "src", "10.1.0.10:40000");
  json_object_set_string_member (f, "dst", "10.0.0.1:5201");
  json_object_set_double_member (f, "goodput_rx_bps", rx_bps);
  json_object_set_double_member (f, "goodput_tx_bps", tx_bps);
  json_object_set_int_member (f, "rtt_us", rtt_us);
  json_object_set_boolean_member (f, "app_limited", app_limited);
  json_array_add_object_element (flows, f);
  json_object_set_array_member (body, "interfaces", ifaces);
  json_object_set_array_member (body, "flows", flows);

  WfReportSender *s = wf_report_sender_new (host, NULL);
  wf_report_sender_set_hostname (s, "laptop");
  g_autoptr(GBytes) b = wf_report_sender_seal (s, body, 1.0, &error);
  g_assert_no_error (error);
  wf_report_sender_free (s);
  gsize n;
  const guint8 *d = g_bytes_get_data (b, &n);
  WfReportView *v = wf_report_parse (d, n, NULL, &reason, &error);
  g_assert_no_error (error);
  return v;
}

static void
neigh (WfApdStations *t)
{
  g_autoptr(GArray) n = g_array_new (FALSE, TRUE, sizeof (WfNeigh));
  WfNeigh a = { .ifindex = 3, .family = AF_INET, .addr = { 10, 1, 0, 10 }, .state = 2 };
  WfNeigh b = { .ifindex = 3, .family = AF_INET, .addr = { 10, 1, 0, 11 }, .state = 2 };

  memcpy (a.mac, mac_a, 6);
  memcpy (b.mac, mac_b, 6);
  g_array_append_val (n, a);
  g_array_append_val (n, b);
  wf_apd_stations_update_neigh (t, n);
}

static void
test_rates (void)
{
  WfApdConfig c;
  wf_apd_config_init (&c);
  g_autoptr(WfApdStations) t = wf_apd_stations_new (&c);
  g_autoptr(GArray) snap = g_array_new (FALSE, TRUE, sizeof (WfApdStation));
  g_autoptr(GPtrArray) left = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  WfApdApEntry d1[] = { entry (mac_a, 1000, 500), entry (mac_b, 0, 0) };
  WfApdApEntry d2[] = { entry (mac_a, 1000 + 1250000, 500 + 62500), entry (mac_b, 125000, 0) };
  WfApdApEntry d3[] = { entry (mac_a, 10, 10) };

  wf_apd_stations_update_ap (t, d1, 2, 10 * S, left);
  wf_apd_stations_snapshot (t, 10 * S, snap);
  /* One dump: no rate yet, nobody in the controller's input. */
  g_assert_cmpuint (snap->len, ==, 0);

  wf_apd_stations_update_ap (t, d2, 2, 11 * S, left);
  wf_apd_stations_snapshot (t, 11 * S, snap);
  g_assert_cmpuint (snap->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      WfApdStation *s = &g_array_index (snap, WfApdStation, i);
      if (memcmp (s->mac, mac_a, 6) == 0)
        {
          g_assert_cmpfloat (s->down_bps, ==, 10e6);
          g_assert_cmpfloat (s->up_bps, ==, 0.5e6);
          g_assert_cmpfloat (s->cost_down_s_per_bit, ==, 1.0 / 54e6);
          g_assert_false (s->reporting);
        }
      else
        g_assert_cmpfloat (s->down_bps, ==, 1e6);
    }

  /* b leaves; a's counters went back (re-association): no rate. */
  wf_apd_stations_update_ap (t, d3, 1, 12 * S, left);
  g_assert_cmpuint (left->len, ==, 1);
  g_assert_cmpmem (g_bytes_get_data (left->pdata[0], NULL), 6, mac_b, 6);
  wf_apd_stations_snapshot (t, 12 * S, snap);
  g_assert_cmpuint (snap->len, ==, 0);
  g_assert_cmpuint (wf_apd_stations_count (t), ==, 1);
  wf_apd_config_clear (&c);
}

/* Station mac in the snapshot at now. */
static WfApdStation
station_at (WfApdStations *t, GArray *snap, const guint8 mac[6], gint64 now)
{
  wf_apd_stations_snapshot (t, now, snap);
  for (guint i = 0; i < snap->len; i++)
    if (memcmp (g_array_index (snap, WfApdStation, i).mac, mac, 6) == 0)
      return g_array_index (snap, WfApdStation, i);
  g_error ("station not in the snapshot");
}

/* Station mac as the snapshot at now shows it, after a report of host
 * ...0a from ip with one flow (rx, tx bit/s, app-limited or not). */
static WfApdStation
after_report (WfApdStations *t, GArray *snap, const guint8 ip[16], const guint8 mac[6],
              double rx, double tx, gboolean app_limited, gint64 now)
{
  g_assert_true (wf_apd_stations_add_report (t, report ("0000000000000000000000000000000a",
                                                        rx, tx, 900000, app_limited),
                                             AF_INET, ip, NULL, WF_APD_PATH_ADDRESSED, now));
  return station_at (t, snap, mac, now);
}

static WfApdApEntry
timed (const guint8 mac[6], guint64 tx, guint64 rx, guint64 tx_us, guint64 rx_us)
{
  WfApdApEntry e = entry (mac, tx, rx);

  e.has_tx_duration = e.has_rx_duration = TRUE;
  e.tx_duration_us = tx_us;
  e.rx_duration_us = rx_us;
  return e;
}

#define assert_near(a, b) g_assert_cmpfloat_with_epsilon ((a), (b), 1e-6 * (b))

/* Airtime costs: the driver's TX/RX duration per bit where it counts
 * airtime (each frame's overhead and retries in it), averaged over
 * rounds, kept while the station is idle, forgotten at a re-association;
 * where it does not, the PHY rate's cost, scaled to the measured ones'
 * unit; the PHY rate's alone where nothing is measured (mac80211_hwsim
 * reports durations, all 0). entry(): 54 Mbit/s down, 24 up. */
static void
test_airtime_costs (void)
{
  WfApdConfig c;
  wf_apd_config_init (&c);
  g_autoptr(WfApdStations) t = wf_apd_stations_new (&c);
  g_autoptr(WfApdStations) hwsim = wf_apd_stations_new (&c);
  g_autoptr(GArray) snap = g_array_new (FALSE, TRUE, sizeof (WfApdStation));
  WfApdStation a, b;

  /* a: 10 Mbit down in 370 ms of air (2.0 x the PHY rate's cost), 1 Mbit
   * up in 100 ms (2.4 x); b: no durations. */
  WfApdApEntry r0[] = { timed (mac_a, 0, 0, 0, 0), entry (mac_b, 0, 0) };
  WfApdApEntry r1[] = { timed (mac_a, 1250000, 125000, 370000, 100000),
                        entry (mac_b, 1250000, 0) };
  wf_apd_stations_update_ap (t, r0, 2, 0, NULL);
  wf_apd_stations_update_ap (t, r1, 2, 1 * S, NULL);
  a = station_at (t, snap, mac_a, 1 * S);
  b = station_at (t, snap, mac_b, 1 * S);
  assert_near (a.cost_down_s_per_bit, 0.37 / 10e6);
  assert_near (a.cost_up_s_per_bit, 0.1 / 1e6);
  /* b at the same PHY rates: a's measured costs, not half of them. */
  assert_near (b.cost_down_s_per_bit, a.cost_down_s_per_bit);
  assert_near (b.cost_up_s_per_bit, a.cost_up_s_per_bit);

  /* a idle down (1000 bytes: too few to tell), 1 Mbit up in 200 ms: down
   * kept, up averaged as the table's other averages (0.3 of the round). */
  WfApdApEntry r2[] = { timed (mac_a, 1251000, 250000, 370050, 300000),
                        entry (mac_b, 2500000, 0) };
  wf_apd_stations_update_ap (t, r2, 2, 2 * S, NULL);
  a = station_at (t, snap, mac_a, 2 * S);
  assert_near (a.cost_down_s_per_bit, 0.37 / 10e6);
  assert_near (a.cost_up_s_per_bit, 0.7 * 1e-7 + 0.3 * 2e-7);

  /* Re-association (counters back): nothing measured, b and a at their
   * PHY rates; a's next round is measured afresh, not averaged. */
  WfApdApEntry r3[] = { timed (mac_a, 0, 0, 0, 0), entry (mac_b, 3750000, 0) };
  WfApdApEntry r4[] = { timed (mac_a, 1250000, 0, 185000, 0), entry (mac_b, 5000000, 0) };
  wf_apd_stations_update_ap (t, r3, 2, 3 * S, NULL);
  b = station_at (t, snap, mac_b, 3 * S);
  assert_near (b.cost_down_s_per_bit, 1 / 54e6);
  wf_apd_stations_update_ap (t, r4, 2, 4 * S, NULL);
  a = station_at (t, snap, mac_a, 4 * S);
  assert_near (a.cost_down_s_per_bit, 0.185 / 10e6);
  b = station_at (t, snap, mac_b, 4 * S);
  assert_near (b.cost_down_s_per_bit, 0.185 / 10e6);

  /* Durations that never move while bytes do: PHY rates. */
  WfApdApEntry h0[] = { timed (mac_a, 0, 0, 0, 0) };
  WfApdApEntry h1[] = { timed (mac_a, 1250000, 125000, 0, 0) };
  wf_apd_stations_update_ap (hwsim, h0, 1, 0, NULL);
  wf_apd_stations_update_ap (hwsim, h1, 1, 1 * S, NULL);
  a = station_at (hwsim, snap, mac_a, 1 * S);
  assert_near (a.cost_down_s_per_bit, 1 / 54e6);
  assert_near (a.cost_up_s_per_bit, 1 / 24e6);
  wf_apd_config_clear (&c);
}

static void
test_reports (void)
{
  WfApdConfig c;
  wf_apd_config_init (&c);
  g_autoptr(WfApdStations) t = wf_apd_stations_new (&c);
  g_autoptr(GArray) snap = g_array_new (FALSE, TRUE, sizeof (WfApdStation));
  /* a carried 10 Mbit/s down, b 10 Mbit/s down. */
  WfApdApEntry d1[] = { entry (mac_a, 0, 0), entry (mac_b, 0, 0) };
  WfApdApEntry d2[] = { entry (mac_a, 1250000, 30000), entry (mac_b, 1250000, 30000) };
  guint8 ip_a[16] = { 10, 1, 0, 10 }, ip_b[16] = { 10, 1, 0, 11 }, ip_x[16] = { 10, 1, 0, 99 };
  WfApdStation got;

  wf_apd_stations_update_ap (t, d1, 2, 0, NULL);
  wf_apd_stations_update_ap (t, d2, 2, 1 * S, NULL);
  neigh (t);

  /* a reports 9.5 Mbit/s goodput, app-limited, 30 ms; b claims 40. */
  g_assert_true (wf_apd_stations_add_report (t, report ("0000000000000000000000000000000a",
                                                        9.5e6, 0.1e6, 30000, TRUE),
                                             AF_INET, ip_a, NULL, WF_APD_PATH_ADDRESSED, 1 * S));
  g_assert_true (wf_apd_stations_add_report (t, report ("0000000000000000000000000000000b",
                                                        40e6, 0.1e6, 5000, FALSE),
                                             AF_INET, ip_b, NULL, WF_APD_PATH_ADDRESSED, 1 * S));
  /* From an address of no station: not used. */
  g_assert_false (wf_apd_stations_add_report (t, report ("0000000000000000000000000000000c",
                                                         1e6, 0, 1000, FALSE),
                                              AF_INET, ip_x, NULL, WF_APD_PATH_ADDRESSED, 1 * S));

  wf_apd_stations_snapshot (t, 1 * S + 1, snap);
  g_assert_cmpuint (snap->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      WfApdStation *s = &g_array_index (snap, WfApdStation, i);
      g_assert_true (s->reporting);
      g_assert_cmpstr (s->hostname, ==, "laptop");
      if (memcmp (s->mac, mac_a, 6) == 0)
        {
          g_assert_true (s->trusted);
          g_assert_cmpfloat (s->rep_down_bps, ==, 9.5e6);
          /* Control goes by the AP's counters of this round all the same. */
          g_assert_cmpfloat (s->down_bps, ==, 10e6);
          /* Its flow receives: the flag speaks of the sending side only
           * (docs/report-protocol.md), so it is no sign of satisfaction. */
          g_assert_false (s->app_limited);
          g_assert_true (s->has_rtt);
          g_assert_cmpfloat_with_epsilon (s->rtt_s, 0.03, 1e-9);
        }
      else
        {
          /* The lie: the AP's own counters count instead. */
          g_assert_false (s->trusted);
          g_assert_cmpfloat (s->down_bps, ==, 10e6);
          g_assert_false (s->app_limited);
        }
    }
  g_assert_cmpuint (wf_apd_stations_untrusted (t), ==, 1);

  /* Past report-stale (3 s), a report no longer counts. */
  wf_apd_stations_snapshot (t, 5 * S, snap);
  for (guint i = 0; i < snap->len; i++)
    g_assert_false (g_array_index (snap, WfApdStation, i).reporting);

  /* A host whose one busy flow sends, application-limited: satisfied by
   * its own word (within what the AP carried up, 0.24 Mbit/s). */
  got = after_report (t, snap, ip_a, mac_a, 0, 0.2e6, TRUE, 6 * S);
  g_assert_true (got.reporting && got.trusted);
  g_assert_true (got.app_limited);
  g_assert_false (got.wants_more);

  /* A starved upload: 20 kbit/s, below idle (100 kbit/s), and not
   * application-limited. It is no busy flow for app_limited, but it says
   * the host has more to send. */
  got = after_report (t, snap, ip_a, mac_a, 0, 20e3, FALSE, 7 * S);
  g_assert_true (got.reporting && got.trusted);
  g_assert_false (got.app_limited);
  g_assert_true (got.wants_more);
  g_assert_true (wf_apd_station_active (&got, 20e3, c.control.idle_bps));

  /* The same rate received says nothing of the sender: idle. */
  got = after_report (t, snap, ip_a, mac_a, 20e3, 0, FALSE, 8 * S);
  g_assert_false (got.wants_more);
  g_assert_false (wf_apd_station_active (&got, 20e3, c.control.idle_bps));
  wf_apd_config_clear (&c);
}

/* download-demand=: frames handed over for a station and not delivered,
 * summed over the last rounds, mark it as waiting at the AP. */
static gboolean
waits (WfApdStations *t, GArray *snap, const guint8 mac[6], gint64 now)
{
  return station_at (t, snap, mac, now).waits_at_ap;
}

static void
test_waits_at_ap (void)
{
  WfApdConfig c;
  wf_apd_config_init (&c);
  g_autoptr(WfApdStations) t = wf_apd_stations_new (&c);
  g_autoptr(GArray) snap = g_array_new (FALSE, TRUE, sizeof (WfApdStation));
  /* a: 100 frames a round, all delivered, with 10 in the queue now and
   * then; b: a trickle (a starved download), one frame in two lost. */
  static const struct { guint64 off_a, del_a, off_b, del_b; } r[] = {
    { 0, 0, 0, 0 },          /* first dump: no round yet */
    { 100, 100, 1, 1 },
    { 200, 190, 1, 1 },      /* 10 queued for a */
    { 300, 300, 2, 1 },      /* ... delivered; b loses one */
    { 400, 400, 2, 1 },
    { 500, 500, 3, 1 },      /* b's second loss */
  };
  static const gboolean b_waits[] = { FALSE, FALSE, FALSE, FALSE, FALSE, TRUE };

  for (guint k = 0; k < G_N_ELEMENTS (r); k++)
    {
      WfApdApEntry d[] = { entry (mac_a, 1500 * r[k].del_a, 0), entry (mac_b, 1500 * r[k].del_b, 0) };
      WfApdDownloadDemand o[] = { { .packets = r[k].off_a }, { .packets = r[k].off_b } };

      d[0].has_tx_packets = d[1].has_tx_packets = TRUE;
      d[0].tx_packets = r[k].del_a;
      d[1].tx_packets = r[k].del_b;
      memcpy (o[0].mac, mac_a, 6);
      memcpy (o[1].mac, mac_b, 6);
      wf_apd_stations_update_ap (t, d, 2, (10 + k) * S, NULL);
      wf_apd_stations_update_download_demand (t, o, 2);
      if (k == 0)
        continue;
      g_test_message ("round %u: a %d, b %d", k, waits (t, snap, mac_a, (10 + k) * S),
                      waits (t, snap, mac_b, (10 + k) * S));
      /* a's queue filled and drained: no frame lost over the window. */
      g_assert_cmpint (waits (t, snap, mac_a, (10 + k) * S), ==, k == 2);
      g_assert_cmpint (waits (t, snap, mac_b, (10 + k) * S), ==, b_waits[k]);
    }

  /* Counts that went back (evicted from the program's table, or a new
   * program): no round to count, the window starts over. */
  {
    WfApdApEntry d[] = { entry (mac_a, 1500 * 600, 0), entry (mac_b, 1500 * 2, 0) };
    WfApdDownloadDemand o[] = { { .packets = 600 }, { .packets = 1 } };

    d[0].has_tx_packets = d[1].has_tx_packets = TRUE;
    d[0].tx_packets = 600;
    d[1].tx_packets = 2;
    memcpy (o[0].mac, mac_a, 6);
    memcpy (o[1].mac, mac_b, 6);
    wf_apd_stations_update_ap (t, d, 2, 20 * S, NULL);
    wf_apd_stations_update_download_demand (t, o, 2);
    g_assert_false (waits (t, snap, mac_b, 20 * S));
  }

  /* nl80211's 32-bit frame counter wraps: 100 delivered of 150 handed
   * over, which is waiting (a reset would have counted no round). */
  {
    g_autoptr(WfApdStations) t2 = wf_apd_stations_new (&c);
    WfApdApEntry d[] = { entry (mac_a, 1000, 0) };
    WfApdDownloadDemand o[] = { { .packets = 0 } };

    d[0].has_tx_packets = d[0].tx_packets_32bit = TRUE;
    d[0].tx_packets = G_MAXUINT32 - 49;
    memcpy (o[0].mac, mac_a, 6);
    wf_apd_stations_update_ap (t2, d, 1, 21 * S, NULL);
    wf_apd_stations_update_download_demand (t2, o, 1);
    d[0].tx_bytes += 1500 * 100;
    d[0].tx_packets = 50;
    o[0].packets = 150;
    wf_apd_stations_update_ap (t2, d, 1, 22 * S, NULL);
    wf_apd_stations_update_download_demand (t2, o, 1);
    g_assert_true (waits (t2, snap, mac_a, 22 * S));
  }
  wf_apd_config_clear (&c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/station-table/rates", test_rates);
  g_test_add_func ("/apd/station-table/airtime-costs", test_airtime_costs);
  g_test_add_func ("/apd/station-table/reports", test_reports);
  g_test_add_func ("/apd/station-table/waits-at-ap", test_waits_at_ap);
  return g_test_run ();
}
