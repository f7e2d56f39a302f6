/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The textfile: names, types, units, labels, escaping, absent
 * measurements, the RTT histogram, Prometheus' conventions (and
 * promtool's lint where it is installed), and the atomic write. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-prometheus.h"

#define RTT_LE "\"le_us\":[1000,2500,5000,10000,25000,50000,100000,250000,500000,1000000,2500000]"

static const char body_json[] =
  "{\"interfaces\":[{\"name\":\"wlan0\",\"ifindex\":3,\"wifi\":true,\"up\":true,"
  "\"rx_bytes\":52428800,\"tx_bytes\":1048576,\"rx_packets\":36000,\"tx_packets\":18000,"
  "\"rx_bps\":1500000.0,\"tx_bps\":250.5,\"rx_pps\":10,\"tx_pps\":5,"
  "\"goodput_rx_bps\":1400000.0,\"goodput_tx_bps\":0.0,"
  "\"station\":{\"bssid\":\"02:00:00:00:01:00\",\"ssid\":\"a\\\"b\\\\c\",\"freq_mhz\":2412,"
  "\"signal_dbm\":-45,\"signal_avg_dbm\":-46,"
  "\"tx_rate\":{\"bitrate_kbps\":144400,\"mcs\":15,\"nss\":2,\"width_mhz\":20,\"gi\":\"0.4\",\"mode\":\"ht\"},"
  "\"rx_rate\":{\"bitrate_kbps\":65000,\"mcs\":6,\"nss\":1,\"width_mhz\":20,\"gi\":\"0.8\",\"mode\":\"ht\"},"
  "\"tx_retries\":7,\"tx_failed\":1,\"beacon_loss\":0},"
  "\"scans\":{\"count\":1,\"duration_ms\":100,\"single_ssid\":0,\"wildcard\":1,\"passive\":0,\"in_progress\":true},"
  "\"scans_total\":{\"count\":3,\"duration_ms\":2500,\"single_ssid\":1,\"wildcard\":2,\"passive\":0,"
  "\"multi_ssid\":0,\"aborted\":1},"
  "\"tcp_totals\":{\"flows\":3,\"received_bytes\":48000000,\"acked_bytes\":120000,"
  "\"retrans_segments\":17,\"rtt\":{" RTT_LE ",\"counts\":[0,0,0,1,4,6,7,8,8,8,8],"
  "\"count\":9,\"sum_us\":412500}}},"
  "{\"name\":\"eth0\",\"ifindex\":2,\"wifi\":false,\"up\":false,\"rx_bytes\":0}],"
  "\"flows_total\":12,"
  "\"flows\":[{\"src\":\"192.0.2.1:5201\",\"dst\":\"[2001:db8::1]:443\",\"iface\":\"wlan0\","
  "\"rtt_us\":2500,\"cwnd\":10,\"total_retrans\":4,\"goodput_tx_bps\":1e6,\"goodput_rx_bps\":2.0}],"
  "\"ackloss\":{\"ackloss_cubic\":{\"acks\":100,\"halvings\":2},\"ackloss_reno\":{\"acks\":5}}}";

static JsonObject *
parse (const char *json)
{
  g_autoptr(JsonParser) p = json_parser_new ();

  g_assert_true (json_parser_load_from_data (p, json, -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (p)));
}

static guint
count (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = text; (p = strstr (p, needle)); p++)
    n++;
  return n;
}

/* The conventions promtool lints, checked here without it too: every
 * sample's family declared once (HELP, then TYPE) before it; counters and
 * only counters end in _total; a histogram's samples are _bucket (with
 * le), _sum and _count; base units (no bits, no milli); no series twice;
 * no label that names a flow. Returns the number of series. */
static guint
check_exposition (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GHashTable) types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) helped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = 0;

  for (char **l = lines; *l; l++)
    {
      g_auto(GStrv) w = NULL;
      g_autofree char *name = NULL;
      g_autofree char *family = NULL;
      const char *type, *sp;

      if (**l == '\0')
        continue;
      if (g_str_has_prefix (*l, "# HELP "))
        {
          w = g_strsplit (*l + 7, " ", 2);
          g_assert_false (g_hash_table_contains (helped, w[0]));
          g_hash_table_add (helped, g_strdup (w[0]));
          continue;
        }
      if (g_str_has_prefix (*l, "# TYPE "))
        {
          w = g_strsplit (*l + 7, " ", 2);
          g_assert_true (g_hash_table_contains (helped, w[0]));
          g_assert_true (g_str_equal (w[1], "gauge") || g_str_equal (w[1], "counter") ||
                         g_str_equal (w[1], "histogram"));
          g_assert_true (g_str_has_suffix (w[0], "_total") == g_str_equal (w[1], "counter"));
          g_hash_table_insert (types, g_strdup (w[0]), g_strdup (w[1]));
          continue;
        }
      g_assert_false (g_str_has_prefix (*l, "#"));
      sp = strrchr (*l, ' ');
      g_assert_nonnull (sp);
      name = g_strndup (*l, strcspn (*l, "{ "));
      family = g_strdup (name);
      type = g_hash_table_lookup (types, name);
      if (type == NULL)
        {
          static const char * const suffixes[] = { "_bucket", "_sum", "_count" };

          for (guint k = 0; k < G_N_ELEMENTS (suffixes) && type == NULL; k++)
            if (g_str_has_suffix (name, suffixes[k]))
              {
                g_free (family);
                family = g_strndup (name, strlen (name) - strlen (suffixes[k]));
                type = g_hash_table_lookup (types, family);
                g_assert_cmpstr (type, ==, "histogram");
                g_assert_true ((strstr (*l, "le=\"") != NULL) == (k == 0));
              }
        }
      g_assert_nonnull (type);
      g_assert_true (g_str_has_prefix (name, "wlanfair_") || g_str_has_prefix (name, "node_wifi_"));
      g_assert_null (strstr (name, "bits"));
      g_assert_null (strstr (name, "milli"));
      g_assert_null (strstr (*l, "src=") ? *l : NULL);
      g_assert_null (strstr (*l, "dst=") ? *l : NULL);
      g_assert_false (g_hash_table_contains (series, *l));
      g_hash_table_add (series, g_strndup (*l, (gsize) (sp - *l)));
      n++;
    }
  return n;
}

/* promtool's own lint, where Debian's prometheus package is installed
 * (tools/install-deps installs it for CI). */
static void
promtool_check (const char *text)
{
  g_autofree char *promtool = g_find_program_in_path ("promtool");
  g_autofree char *path = NULL, *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int fd, status;

  if (!promtool)
    {
      g_test_message ("no promtool: its check skipped");
      return;
    }
  fd = g_file_open_tmp ("wf-prom-XXXXXX.prom", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  {
    const char *argv[] = { "/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\"", promtool, path, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
  }
  g_unlink (path);
  g_test_message ("promtool check metrics: %s%s", out, err);
  if (!g_spawn_check_wait_status (status, NULL) || *out || *err)
    g_error ("promtool check metrics: %s%s", out, err);
}

static void
test_render (void)
{
  g_autoptr(JsonObject) b = parse (body_json);
  g_autofree char *t = wf_prometheus_render (b, 1700000000500000);
  guint n;

  g_test_message ("%s", t);
#define HAS(line) g_assert_nonnull (strstr (t, line "\n"))
  HAS ("node_wifi_station_signal_dbm{device=\"wlan0\"} -45");
  HAS ("wlanfair_wifi_station_signal_average_dbm{device=\"wlan0\"} -46");
  HAS ("node_wifi_interface_frequency_hertz{device=\"wlan0\"} 2412000000");
  HAS ("node_wifi_station_transmit_retries_total{device=\"wlan0\"} 7");
  HAS ("node_wifi_station_transmit_failed_total{device=\"wlan0\"} 1");
  HAS ("node_wifi_station_beacon_loss_total{device=\"wlan0\"} 0");
  HAS ("node_wifi_station_info{device=\"wlan0\",bssid=\"02:00:00:00:01:00\",ssid=\"a\\\"b\\\\c\",mode=\"client\"} 1");
  /* 144.4 Mbit/s in the base unit. */
  HAS ("wlanfair_wifi_station_phy_rate_bytes_per_second{device=\"wlan0\",direction=\"transmit\"} 18050000");
  HAS ("wlanfair_wifi_station_phy_rate_bytes_per_second{device=\"wlan0\",direction=\"receive\"} 8125000");
  HAS ("wlanfair_wifi_station_mcs{device=\"wlan0\",direction=\"transmit\",mode=\"ht\"} 15");
  HAS ("wlanfair_wifi_station_spatial_streams{device=\"wlan0\",direction=\"transmit\"} 2");
  HAS ("wlanfair_wifi_station_channel_width_hertz{device=\"wlan0\",direction=\"transmit\"} 20000000");
  HAS ("wlanfair_wifi_station_guard_interval_seconds{device=\"wlan0\",direction=\"receive\"} 8e-07");
  HAS ("wlanfair_interface_up{device=\"wlan0\"} 1");
  HAS ("wlanfair_interface_up{device=\"eth0\"} 0");
  HAS ("wlanfair_interface_receive_bytes_total{device=\"wlan0\"} 52428800");
  HAS ("wlanfair_interface_transmit_bytes_total{device=\"wlan0\"} 1048576");
  HAS ("wlanfair_interface_receive_packets_total{device=\"wlan0\"} 36000");
  HAS ("wlanfair_interface_transmit_packets_total{device=\"wlan0\"} 18000");
  HAS ("wlanfair_interface_receive_bytes_total{device=\"eth0\"} 0");
  HAS ("wlanfair_tcp_flows{device=\"wlan0\"} 3");
  HAS ("wlanfair_tcp_goodput_bytes_total{device=\"wlan0\",direction=\"receive\"} 48000000");
  HAS ("wlanfair_tcp_goodput_bytes_total{device=\"wlan0\",direction=\"transmit\"} 120000");
  HAS ("wlanfair_tcp_retransmitted_segments_total{device=\"wlan0\"} 17");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"0.001\"} 0");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"0.0025\"} 0");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"0.01\"} 1");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"0.025\"} 4");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"1\"} 8");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"2.5\"} 8");
  HAS ("wlanfair_tcp_rtt_seconds_bucket{device=\"wlan0\",le=\"+Inf\"} 9");
  HAS ("wlanfair_tcp_rtt_seconds_sum{device=\"wlan0\"} 0.4125");
  HAS ("wlanfair_tcp_rtt_seconds_count{device=\"wlan0\"} 9");
  HAS ("# TYPE wlanfair_tcp_rtt_seconds histogram");
  HAS ("wlanfair_scans_total{device=\"wlan0\",kind=\"wildcard\"} 2");
  HAS ("wlanfair_scan_duration_seconds_total{device=\"wlan0\"} 2.5");
  HAS ("wlanfair_scans_aborted_total{device=\"wlan0\"} 1");
  HAS ("wlanfair_scan_in_progress{device=\"wlan0\"} 1");
  HAS ("wlanfair_host_tcp_flows 12");
  HAS ("wlanfair_ackloss_events_total{cc=\"ackloss_cubic\",event=\"halvings\"} 2");
  HAS ("wlanfair_report_timestamp_seconds 1700000000.5");
  HAS ("# TYPE node_wifi_station_transmit_retries_total counter");
  HAS ("# TYPE wlanfair_tcp_goodput_bytes_total counter");
  HAS ("# TYPE wlanfair_tcp_flows gauge");
#undef HAS
  /* One HELP/TYPE per family, even with several samples. */
  g_assert_cmpuint (count (t, "# TYPE wlanfair_tcp_goodput_bytes_total "), ==, 1);
  g_assert_cmpuint (count (t, "wlanfair_tcp_goodput_bytes_total{"), ==, 2);
  g_assert_cmpuint (count (t, "wlanfair_tcp_rtt_seconds_bucket{"), ==, 12);
  /* No per-flow series, no per-period rates, no bits. */
  g_assert_null (strstr (t, "wlanfair_flow_"));
  g_assert_null (strstr (t, "per_second{device=\"wlan0\"}"));
  g_assert_null (strstr (t, "bits"));
  g_assert_null (strstr (t, "192.0.2.1"));
  /* Absent measurements are not invented: eth0 has no TCP totals, no
   * packet counters, no station. */
  g_assert_null (strstr (t, "wlanfair_tcp_flows{device=\"eth0\""));
  g_assert_null (strstr (t, "packets_total{device=\"eth0\""));
  g_assert_null (strstr (t, "node_wifi_station_signal_dbm{device=\"eth0\""));

  n = check_exposition (t);
  /* The series one Wi-Fi interface brings (with station, scans and TCP
   * totals), for sizing: docs/reporter.md. */
  g_test_message ("%u series", n);
  g_assert_cmpuint (n, ==, 47 + 2 /* eth0 */ + 1 /* host flows */ + 3 /* ackloss */ + 1 /* time */);
  promtool_check (t);
}

/* A histogram that does not add up is left out whole, not half written. */
static void
test_rtt_inconsistent (void)
{
  static const char * const bad[] = {
    /* one count too few */
    "\"le_us\":[1000,2500],\"counts\":[1],\"count\":2,\"sum_us\":3000",
    /* counts going down */
    "\"le_us\":[1000,2500],\"counts\":[2,1],\"count\":2,\"sum_us\":3000",
    /* a bucket above the count */
    "\"le_us\":[1000,2500],\"counts\":[1,3],\"count\":2,\"sum_us\":3000",
    /* bounds not increasing */
    "\"le_us\":[2500,1000],\"counts\":[1,2],\"count\":2,\"sum_us\":3000",
    /* no sum */
    "\"le_us\":[1000,2500],\"counts\":[1,2],\"count\":2",
    /* not a number */
    "\"le_us\":[1000,\"x\"],\"counts\":[1,2],\"count\":2,\"sum_us\":3000",
  };

  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autofree char *json = g_strdup_printf (
        "{\"interfaces\":[{\"name\":\"wlan0\",\"up\":true,\"tcp_totals\":{\"flows\":1,"
        "\"rtt\":{%s}}}]}", bad[k]);
      g_autoptr(JsonObject) b = parse (json);
      g_autofree char *t = wf_prometheus_render (b, 1700000000000000);

      g_assert_null (strstr (t, "wlanfair_tcp_rtt_seconds"));
      g_assert_nonnull (strstr (t, "wlanfair_tcp_flows{device=\"wlan0\"} 1\n"));
      check_exposition (t);
    }
}

static void
test_write_atomic (void)
{
  g_autofree char *dir = g_dir_make_tmp ("wfr-prom-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, WF_PROMETHEUS_FILE, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = NULL;
  GStatBuf st;
  guint entries = 0;

  g_assert_true (wf_prometheus_write (dir, "a 1\n", &error));
  g_assert_no_error (error);
  g_assert_true (wf_prometheus_write (dir, "a 2\n", &error));
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "a 2\n");
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);
  /* No temporary file left behind. */
  d = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (d))
    entries++;
  g_assert_cmpuint (entries, ==, 1);
  g_unlink (path);
  g_rmdir (dir);

  /* A directory that does not exist: an error, no crash. */
  g_assert_false (wf_prometheus_write ("/nonexistent/wfr", "a 1\n", &error));
  g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/prometheus/render", test_render);
  g_test_add_func ("/reporter/prometheus/rtt-inconsistent", test_rtt_inconsistent);
  g_test_add_func ("/reporter/prometheus/write-atomic", test_write_atomic);
  return g_test_run ();
}
