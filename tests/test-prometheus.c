/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The textfile: names, labels, escaping, absent measurements, and the
 * atomic write. */
#include <glib/gstdio.h>
#include <string.h>

#include "wlanfair-prometheus.h"

static const char body_json[] =
  "{\"interfaces\":[{\"name\":\"wlan0\",\"ifindex\":3,\"wifi\":true,\"up\":true,"
  "\"rx_bytes\":1,\"tx_bytes\":2,\"rx_bps\":1500000.0,\"tx_bps\":250.5,"
  "\"goodput_rx_bps\":1400000.0,\"goodput_tx_bps\":0.0,"
  "\"station\":{\"bssid\":\"02:00:00:00:01:00\",\"ssid\":\"a\\\"b\\\\c\",\"freq_mhz\":2412,"
  "\"signal_dbm\":-45,\"signal_avg_dbm\":-46,"
  "\"tx_rate\":{\"bitrate_kbps\":144400,\"mcs\":15,\"nss\":2,\"width_mhz\":20,\"gi\":\"0.4\",\"mode\":\"ht\"},"
  "\"tx_retries\":7,\"beacon_loss\":0},"
  "\"scans\":{\"count\":1,\"duration_ms\":100,\"single_ssid\":0,\"wildcard\":1,\"passive\":0,\"in_progress\":true},"
  "\"scans_total\":{\"count\":3,\"duration_ms\":2500,\"single_ssid\":1,\"wildcard\":2,\"passive\":0,\"aborted\":1}},"
  "{\"name\":\"eth0\",\"ifindex\":2,\"wifi\":false,\"up\":false}],"
  "\"flows_total\":12,"
  "\"flows\":[{\"src\":\"192.0.2.1:5201\",\"dst\":\"[2001:db8::1]:443\",\"iface\":\"wlan0\","
  "\"rtt_us\":2500,\"cwnd\":10,\"total_retrans\":4,\"goodput_tx_bps\":1e6,\"goodput_rx_bps\":2.0}],"
  "\"ackloss\":{\"ackloss_cubic\":{\"acks\":100,\"halvings\":2}}}";

static JsonObject *
body (void)
{
  g_autoptr(JsonParser) p = json_parser_new ();

  g_assert_true (json_parser_load_from_data (p, body_json, -1, NULL));
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

static void
test_render (void)
{
  g_autoptr(JsonObject) b = body ();
  g_autofree char *t = wf_prometheus_render (b, 1700000000500000);

#define HAS(line) g_assert_nonnull (strstr (t, line "\n"))
  HAS ("node_wifi_station_signal_dbm{device=\"wlan0\"} -45");
  HAS ("wlanfair_wifi_station_signal_average_dbm{device=\"wlan0\"} -46");
  HAS ("node_wifi_interface_frequency_hertz{device=\"wlan0\"} 2412000000");
  HAS ("node_wifi_station_transmit_bitrate_bits_per_second{device=\"wlan0\"} 144400000");
  HAS ("node_wifi_station_transmit_retries_total{device=\"wlan0\"} 7");
  HAS ("node_wifi_station_beacon_loss_total{device=\"wlan0\"} 0");
  HAS ("node_wifi_station_info{device=\"wlan0\",bssid=\"02:00:00:00:01:00\",ssid=\"a\\\"b\\\\c\",mode=\"client\"} 1");
  HAS ("wlanfair_wifi_station_mcs{device=\"wlan0\",direction=\"transmit\",mode=\"ht\"} 15");
  HAS ("wlanfair_wifi_station_spatial_streams{device=\"wlan0\",direction=\"transmit\"} 2");
  HAS ("wlanfair_wifi_station_channel_width_hertz{device=\"wlan0\",direction=\"transmit\"} 20000000");
  HAS ("wlanfair_interface_bits_per_second{device=\"wlan0\",direction=\"receive\"} 1500000");
  HAS ("wlanfair_interface_bits_per_second{device=\"wlan0\",direction=\"transmit\"} 250.5");
  HAS ("wlanfair_interface_goodput_bits_per_second{device=\"wlan0\",direction=\"receive\"} 1400000");
  HAS ("wlanfair_interface_up{device=\"eth0\"} 0");
  HAS ("wlanfair_scans_total{device=\"wlan0\",kind=\"wildcard\"} 2");
  HAS ("wlanfair_scan_duration_seconds_total{device=\"wlan0\"} 2.5");
  HAS ("wlanfair_scans_aborted_total{device=\"wlan0\"} 1");
  HAS ("wlanfair_scan_in_progress{device=\"wlan0\"} 1");
  HAS ("wlanfair_tcp_flows 12");
  HAS ("wlanfair_flow_goodput_bits_per_second{src=\"192.0.2.1:5201\",dst=\"[2001:db8::1]:443\",device=\"wlan0\",direction=\"transmit\"} 1000000");
  HAS ("wlanfair_flow_rtt_seconds{src=\"192.0.2.1:5201\",dst=\"[2001:db8::1]:443\",device=\"wlan0\"} 0.0025");
  HAS ("wlanfair_ackloss_events_total{cc=\"ackloss_cubic\",event=\"halvings\"} 2");
  HAS ("wlanfair_report_timestamp_seconds 1700000000.5");
  HAS ("# TYPE node_wifi_station_transmit_retries_total counter");
#undef HAS
  /* One HELP/TYPE per family, even with several samples. */
  g_assert_cmpuint (count (t, "# TYPE wlanfair_interface_bits_per_second "), ==, 1);
  g_assert_cmpuint (count (t, "wlanfair_interface_bits_per_second{"), ==, 2);
  /* Absent measurements are not invented: eth0 has no rates, no tx_failed. */
  g_assert_null (strstr (t, "bits_per_second{device=\"eth0\""));
  g_assert_null (strstr (t, "node_wifi_station_transmit_failed_total"));
  g_assert_null (strstr (t, "receive_bitrate"));
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
  g_test_add_func ("/reporter/prometheus/write-atomic", test_write_atomic);
  return g_test_run ();
}
