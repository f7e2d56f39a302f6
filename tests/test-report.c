/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report protocol: sealing, parsing and validation, HMAC, replay.
 * One binary for the module (long: every field's bound is a case). */
#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-report.h"

#define T0 G_GINT64_CONSTANT (1763780000000000) /* 2025-11-22, µs */
#define HOST "0123456789abcdef0123456789abcdef"
#define KEY "test-key-0123456789abcdef"

static GBytes *
test_key (void)
{
  return g_bytes_new_static (KEY, strlen (KEY));
}

/* A realistic body as the reporter builds it. */
static JsonObject *
make_body (guint n_flows)
{
  const char *text =
    "{\"interfaces\":["
    " {\"name\":\"wlan0\",\"ifindex\":3,\"wifi\":true,\"up\":true,"
    "  \"rx_bytes\":123456789,\"tx_bytes\":98765432,\"rx_packets\":1000,\"tx_packets\":900,"
    "  \"rx_errors\":0,\"tx_errors\":0,\"rx_dropped\":1,\"tx_dropped\":0,"
    "  \"rx_bps\":12500000.5,\"tx_bps\":800000,\"rx_pps\":1040.5,\"tx_pps\":520,"
    "  \"goodput_rx_bps\":12000000,\"goodput_tx_bps\":500000,"
    "  \"station\":{\"bssid\":\"02:00:00:00:01:00\",\"ssid\":\"caf\\u00e9 net\",\"freq_mhz\":2412,"
    "   \"signal_dbm\":-45,\"signal_avg_dbm\":-46,"
    "   \"tx_rate\":{\"bitrate_kbps\":65000,\"mcs\":7,\"nss\":1,\"width_mhz\":20,\"gi\":\"0.8\",\"mode\":\"ht\"},"
    "   \"rx_rate\":{\"bitrate_kbps\":72200,\"mcs\":7,\"nss\":1,\"width_mhz\":20,\"gi\":\"0.4\",\"mode\":\"ht\"},"
    "   \"tx_retries\":10,\"tx_failed\":1,\"beacon_loss\":0},"
    "  \"scans\":{\"count\":2,\"duration_ms\":3400,\"single_ssid\":0,\"wildcard\":2,\"passive\":0,\"in_progress\":false}},"
    " {\"name\":\"eth0\",\"ifindex\":2,\"wifi\":false,\"up\":true,\"goodput_rx_bps\":1e6}"
    "],\"flows_total\":42,\"sampled_us\":1795322659000000,"
    "\"sampled_end_us\":1795322659003000,\"span_s\":1.25}";
  g_autoptr(JsonNode) root = json_from_string (text, NULL);
  JsonObject *o;
  JsonArray *flows;

  g_assert_nonnull (root);
  o = json_object_ref (json_node_get_object (root));
  flows = json_array_new ();
  for (guint i = 0; i < n_flows; i++)
    {
      JsonObject *f = json_object_new ();
      g_autofree char *src = g_strdup_printf ("192.0.2.1:%u", 40000 + i);

      json_object_set_string_member (f, "src", src);
      json_object_set_string_member (f, "dst", "[2001:db8::1]:5201");
      json_object_set_string_member (f, "iface", "wlan0");
      json_object_set_string_member (f, "state", "established");
      json_object_set_string_member (f, "cc", "cubic");
      json_object_set_int_member (f, "cwnd", 10 + i);
      json_object_set_int_member (f, "rtt_us", 20000);
      /* Goodputs out of order: 7 i mod 20, all distinct for i < 20. */
      json_object_set_double_member (f, "goodput_tx_bps", 1000.0 * ((7 * i) % 20 + 1));
      json_object_set_double_member (f, "goodput_rx_bps", 0);
      json_object_set_double_member (f, "pacing_rate_bps", 1.8446744073709552e19);
      json_array_add_object_element (flows, f);
    }
  if (n_flows > 0)
    json_object_set_array_member (o, "flows", flows);
  else
    json_array_unref (flows);
  return o;
}

static GBytes *
seal_body (GBytes *key, guint n_flows, gint64 time_us)
{
  g_autoptr(JsonObject) body = make_body (n_flows);
  WfReportSender *s = wf_report_sender_new (HOST, key);
  g_autoptr(GError) error = NULL;
  GBytes *d;

  g_assert_true (wf_report_sender_set_hostname (s, "café-host"));
  d = wf_report_sender_seal_at (s, body, 1.0, time_us, &error);
  g_assert_no_error (error);
  wf_report_sender_free (s);
  return d;
}

static WfReportView *
parse_bytes (GBytes *d, GBytes *key, WfReportReject *reason)
{
  g_autoptr(GError) error = NULL;
  WfReportView *v = wf_report_parse (g_bytes_get_data (d, NULL), g_bytes_get_size (d),
                                     key, reason, &error);

  if (v)
    g_assert_no_error (error);
  else
    g_assert_nonnull (error);
  return v;
}

static WfReportReject
reason_of_text (const char *text, GBytes *key)
{
  g_autoptr(GError) error = NULL;
  WfReportReject reason = WF_REPORT_REJECT_N;
  WfReportView *v = wf_report_parse ((const guint8 *) text, strlen (text), key, &reason, &error);

  if (v == NULL)
    {
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
    }
  wf_report_view_free (v);
  return reason;
}

/* A minimal valid report with `extra` spliced into the top level. */
static char *
text_with (const char *extra)
{
  return g_strdup_printf ("{\"wlanfair_report\":1,\"host\":\"" HOST "\",\"seq\":1,"
                          "\"time_us\":%" G_GINT64_FORMAT ",\"boot\":\"00112233aabbccdd\","
                          "\"interval_s\":1,\"interfaces\":[]%s%s}",
                          T0, *extra ? "," : "", extra);
}

static char *
sign_text (const char *text, GBytes *key)
{
  gsize len = strlen (text);
  g_autofree char *mac = wf_report_hmac_hex (key, (const guint8 *) text, len);

  return g_strdup_printf ("%.*s,\"mac\":\"%s\"}", (int) len - 1, text, mac);
}

/* ------------------------------------------------------------------ */

static char *
write_temp (const char *content, gssize len, int mode)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("wfp-test-XXXXXX", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, content, len, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  return path;
}

static void
test_hostid (void)
{
  g_autofree char *a_path = write_temp ("3d1219c7c4c5404aaa1f6d2a48adfda4\n", -1, 0644);
  g_autofree char *b_path = write_temp ("3d1219c7c4c5404aaa1f6d2a48adfda5\n", -1, 0644);
  g_autofree char *bad_path = write_temp ("uninitialized\n", -1, 0644);
  g_autoptr(GError) error = NULL;
  g_autofree char *a1 = wf_report_host_id (a_path, &error);
  g_autofree char *a2 = wf_report_host_id (a_path, &error);
  g_autofree char *b = wf_report_host_id (b_path, &error);
  char *bad;

  g_assert_no_error (error);
  g_assert_cmpuint (strlen (a1), ==, 32);
  for (const char *p = a1; *p; p++)
    g_assert_true (g_ascii_isdigit (*p) || (*p >= 'a' && *p <= 'f'));
  g_assert_cmpstr (a1, ==, a2);
  g_assert_cmpstr (a1, !=, "3d1219c7c4c5404aaa1f6d2a48adfda4");
  g_assert_cmpstr (a1, !=, b);
  /* The pinned value: the id must not change between releases. Equals
   * `systemd-id128 machine-id -a 45c89c10533343d39b8a714861b07f54` on a
   * host whose machine id is 3d1219c7c4c5404aaa1f6d2a48adfda4. */
  g_assert_cmpstr (a1, ==, "05a037a6756042d4838440a7191fda28");

  bad = wf_report_host_id (bad_path, &error);
  g_assert_null (bad);
  g_assert_error (error, WF_ERROR, WF_ERROR_PARSE);
  g_clear_error (&error);
  bad = wf_report_host_id ("/nonexistent/machine-id", &error);
  g_assert_null (bad);
  g_assert_nonnull (error);

  g_unlink (a_path);
  g_unlink (b_path);
  g_unlink (bad_path);
}

/* Same as systemd's own app-specific id, when this system has one. */
static void
test_hostid_systemd (void)
{
  g_autofree char *out = NULL, *ours = NULL;
  g_autofree char *prog = g_find_program_in_path ("systemd-id128");
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_file_test ("/etc/machine-id", G_FILE_TEST_EXISTS) || prog == NULL)
    {
      g_test_skip ("no /etc/machine-id or systemd-id128");
      return;
    }
  ours = wf_report_host_id (NULL, &error);
  if (ours == NULL)
    {
      g_test_skip (error->message);
      return;
    }
  g_spawn_command_line_sync ("systemd-id128 machine-id --app-specific=" WF_REPORT_APP_ID,
                             &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (g_strstrip (out), ==, ours);
}

static void
test_seal_round_trip (void)
{
  g_autoptr(JsonObject) body = make_body (3);
  WfReportSender *s = wf_report_sender_new (HOST, NULL);
  g_autoptr(GError) error = NULL;
  WfReportReject reason;
  const WfReportIface *w;
  double rx, tx;

  g_assert_cmpuint (strlen (wf_report_sender_get_boot (s)), ==, 16);
  wf_report_sender_set_target_size (s, WF_REPORT_MAX_SIZE);
  /* Members of envelope names in the body are the sender's, not the body's. */
  json_object_set_int_member (body, "seq", 999);
  json_object_set_string_member (body, "mac", "forged");
  json_object_set_string_member (body, "future_member", "kept");

  for (guint64 seq = 1; seq <= 3; seq++)
    {
      g_autoptr(GBytes) d = wf_report_sender_seal_at (s, body, 0.5, T0, &error);
      g_autoptr(WfReportView) v = NULL;

      g_assert_no_error (error);
      v = parse_bytes (d, NULL, &reason);
      g_assert_cmpint (reason, ==, WF_REPORT_OK);
      g_assert_nonnull (v);
      g_assert_cmpint (v->version, ==, 1);
      g_assert_cmpstr (v->host, ==, HOST);
      g_assert_null (v->hostname);
      g_assert_cmpuint (v->seq, ==, seq);
      g_assert_cmpint (v->time_us, ==, T0);
      g_assert_cmpstr (v->boot, ==, wf_report_sender_get_boot (s));
      g_assert_cmpfloat (v->interval_s, ==, 0.5);
      g_assert_false (v->authenticated);
      g_assert_cmpuint (v->ifaces->len, ==, 2);
      g_assert_true (v->has_flows_total);
      g_assert_cmpuint (v->flows_total, ==, 42);
      g_assert_true (v->has_sampled && v->has_span);
      g_assert_cmpint (v->sampled_us, ==, G_GINT64_CONSTANT (1795322659000000));
      g_assert_true (v->has_sampled_end);
      g_assert_cmpint (v->sampled_end_us, ==, G_GINT64_CONSTANT (1795322659003000));
      g_assert_cmpfloat (v->span_s, ==, 1.25);
      g_assert_cmpuint (v->n_flows, ==, 3);
      g_assert_cmpuint (v->flows_dropped, ==, 0);
      g_assert_cmpstr (json_object_get_string_member (v->body, "future_member"), ==, "kept");

      w = &g_array_index (v->ifaces, WfReportIface, 0);
      g_assert_cmpstr (w->name, ==, "wlan0");
      g_assert_true (w->wifi && w->has_up && w->up);
      g_assert_cmpfloat (w->rx_bps, ==, 12500000.5);
      g_assert_true (w->has_station);
      g_assert_cmpstr (w->bssid, ==, "02:00:00:00:01:00");
      g_assert_cmpstr (w->ssid, ==, "café net");
      g_assert_cmpint (w->signal_dbm, ==, -45);
      g_assert_cmpint (w->signal_avg_dbm, ==, -46);
      g_assert_cmpint (w->freq_mhz, ==, 2412);
      g_assert_true (w->has_tx_rate && w->tx_rate.has_mcs);
      g_assert_cmpint (w->tx_rate.mcs, ==, 7);
      g_assert_cmpuint (w->tx_rate.bitrate_kbps, ==, 65000);
      g_assert_cmpstr (w->tx_rate.mode, ==, "ht");
      g_assert_cmpstr (w->rx_rate.gi, ==, "0.4");
      g_assert_true (w->has_scans);
      g_assert_cmpuint (w->scan_count, ==, 2);
      g_assert_cmpuint (w->scan_duration_ms, ==, 3400);
      g_assert_false (w->scan_in_progress);

      /* Host goodput: the Wi-Fi interface's, eth0 is not added. */
      g_assert_true (wf_report_view_goodput (v, &rx, &tx));
      g_assert_cmpfloat (rx, ==, 12e6);
      g_assert_cmpfloat (tx, ==, 5e5);
    }
  g_assert_cmpuint (wf_report_sender_get_next_seq (s), ==, 4);
  /* The caller's body is untouched. */
  g_assert_cmpint (json_object_get_int_member (body, "seq"), ==, 999);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (body, "flows")), ==, 3);
  wf_report_sender_free (s);
}

static void
test_seal_hostname (void)
{
  g_autoptr(GBytes) d = seal_body (NULL, 0, T0);
  g_autoptr(WfReportView) v = NULL;
  WfReportReject reason;

  v = parse_bytes (d, NULL, &reason);
  g_assert_nonnull (v);
  g_assert_cmpstr (v->hostname, ==, "café-host");

  /* What receivers would reject is refused at the sender. */
  {
    WfReportSender *s = wf_report_sender_new (HOST, NULL);
    g_autofree char *long_name = g_strnfill (254, 'a');
    g_autoptr(JsonObject) body = make_body (0);
    g_autoptr(GError) error = NULL;

    g_assert_false (wf_report_sender_set_hostname (s, ""));
    g_assert_false (wf_report_sender_set_hostname (s, "a\tb"));
    g_assert_false (wf_report_sender_set_hostname (s, "caf\xc3"));
    g_assert_false (wf_report_sender_set_hostname (s, long_name));
    g_assert_true (wf_report_sender_set_hostname (s, NULL));
    g_assert_null (wf_report_sender_seal_at (s, body, 0.05, T0, &error));
    g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_null (wf_report_sender_seal_at (s, body, NAN, T0, &error));
    g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
    g_assert_cmpuint (wf_report_sender_get_next_seq (s), ==, 1);
    wf_report_sender_free (s);
  }
}

static void
test_seal_size_limit (void)
{
  g_autoptr(JsonObject) body = make_body (20);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) d = NULL, big = NULL;
  g_autoptr(WfReportView) v = NULL;
  WfReportSender *s = wf_report_sender_new (HOST, NULL);
  WfReportReject reason;
  JsonArray *flows;
  double min_kept = G_MAXDOUBLE;

  d = wf_report_sender_seal_at (s, body, 1, T0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (d), <=, WF_REPORT_TARGET_SIZE);
  v = parse_bytes (d, NULL, &reason);
  g_assert_nonnull (v);
  g_assert_cmpuint (v->flows_dropped, >, 0);
  g_assert_cmpuint (v->n_flows + v->flows_dropped, ==, 20);

  /* The kept flows are the highest goodput ones, in the reporter's order:
   * with goodput 1..20 kB/s each, the n kept are exactly 21-n .. 20. */
  flows = json_object_get_array_member (v->body, "flows");
  for (guint i = 0; i < json_array_get_length (flows); i++)
    {
      double g = json_object_get_double_member (json_array_get_object_element (flows, i),
                                                "goodput_tx_bps");
      min_kept = MIN (min_kept, g);
    }
  g_assert_cmpfloat (min_kept, ==, 1000.0 * (v->flows_dropped + 1));

  /* One more flow would not have fitted. */
  {
    WfReportSender *s2 = wf_report_sender_new (HOST, NULL);
    g_autoptr(GBytes) d2 = NULL;

    wf_report_sender_set_target_size (s2, g_bytes_get_size (d) + 50);
    d2 = wf_report_sender_seal_at (s2, body, 1, T0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (d2), <=, g_bytes_get_size (d) + 50);
    wf_report_sender_free (s2);
  }

  /* A larger target carries them all. */
  wf_report_sender_set_target_size (s, WF_REPORT_MAX_SIZE);
  big = wf_report_sender_seal_at (s, body, 1, T0, &error);
  g_assert_no_error (error);
  g_clear_pointer (&v, wf_report_view_free);
  v = parse_bytes (big, NULL, &reason);
  g_assert_nonnull (v);
  g_assert_cmpuint (v->n_flows, ==, 20);
  g_assert_cmpuint (v->flows_dropped, ==, 0);
  g_assert_false (json_object_has_member (v->body, "flows_dropped"));
  wf_report_sender_free (s);
}

static void
test_seal_over_capacity (void)
{
  g_autoptr(JsonObject) body = make_body (5);
  g_autoptr(GError) error = NULL;
  g_autofree char *pad = g_strnfill (WF_REPORT_MAX_SIZE, 'x');
  g_autoptr(GBytes) key = test_key ();
  WfReportSender *s = wf_report_sender_new (HOST, key);
  GBytes *d;

  json_object_set_string_member (body, "padding", pad);
  d = wf_report_sender_seal_at (s, body, 1, T0, &error);
  g_assert_null (d);
  g_assert_error (error, WF_ERROR, WF_ERROR_OVER_CAPACITY);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "5 dropped"));
  /* A failed seal uses no sequence number. */
  g_assert_cmpuint (wf_report_sender_get_next_seq (s), ==, 1);
  wf_report_sender_free (s);
}

/* Non-interface parts above the target are sent (fragmented), flows not. */
static void
test_seal_oversized_body_kept (void)
{
  g_autoptr(JsonObject) body = make_body (5);
  g_autoptr(GError) error = NULL;
  g_autofree char *pad = g_strnfill (3000, 'x');
  g_autoptr(GBytes) d = NULL;
  g_autoptr(WfReportView) v = NULL;
  WfReportSender *s = wf_report_sender_new (HOST, NULL);
  WfReportReject reason;

  json_object_set_string_member (body, "padding", pad);
  d = wf_report_sender_seal_at (s, body, 1, T0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (d), >, WF_REPORT_TARGET_SIZE);
  g_assert_cmpuint (g_bytes_get_size (d), <=, WF_REPORT_MAX_SIZE);
  v = parse_bytes (d, NULL, &reason);
  g_assert_nonnull (v);
  g_assert_cmpuint (v->n_flows, ==, 0);
  g_assert_cmpuint (v->flows_dropped, ==, 5);
  wf_report_sender_free (s);
}

/* json-glib 1.6 writes 1e20 as "1e+20.0": the sender must not. */
static void
test_seal_exponent (void)
{
  g_autoptr(JsonObject) body = make_body (1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) d = NULL;
  g_autoptr(WfReportView) v = NULL;
  g_autoptr(JsonNode) probe = json_from_string ("{\"s\":\"1e+20.0 e5.0\",\"a\":[5e20,1e-300,2E+17,1.5e300,-7e-8,10.0,0.5]}", NULL);
  g_autofree char *text = wf_report_json_to_data (probe, NULL);
  WfReportSender *s = wf_report_sender_new (HOST, NULL);
  JsonArray *a = json_array_new ();
  WfReportReject reason;
  JsonObject *flow;

  /* Strings untouched; every number valid JSON with the same value. */
  g_assert_cmpstr (text, ==, "{\"s\":\"1e+20.0 e5.0\",\"a\":[5e+20,1e-300,2e+17,1.5000000000000001e+300,-7.0000000000000005e-08,10.0,0.5]}");

  flow = json_array_get_object_element (json_object_get_array_member (body, "flows"), 0);
  json_object_set_double_member (flow, "pacing_rate_bps", 1e20);
  json_array_add_double_element (a, 5e20);
  json_array_add_double_element (a, 1e-300);
  json_object_set_array_member (body, "future_numbers", a);
  wf_report_sender_set_target_size (s, WF_REPORT_MAX_SIZE);
  d = wf_report_sender_seal_at (s, body, 1, T0, &error);
  g_assert_no_error (error);
  v = parse_bytes (d, NULL, &reason);
  g_assert_cmpint (reason, ==, WF_REPORT_OK);
  g_assert_cmpfloat (json_array_get_double_element (json_object_get_array_member (v->body, "future_numbers"), 0), ==, 5e20);
  wf_report_sender_free (s);
}

/* ------------------------------------------------------------------ */

static void
test_hmac_good (void)
{
  g_autoptr(GBytes) key = test_key ();
  g_autoptr(GBytes) d = seal_body (key, 2, T0);
  g_autoptr(WfReportView) v = NULL, v2 = NULL;
  const char *data = g_bytes_get_data (d, NULL);
  gsize len = g_bytes_get_size (d);
  g_autofree char *text = NULL, *mac = NULL;
  WfReportReject reason;

  /* Placement: the last member, over the bytes before it plus "}". */
  g_assert_true (g_str_has_prefix (data + len - WF_REPORT_MAC_SUFFIX_LEN, ",\"mac\":\""));
  text = g_strdup_printf ("%.*s}", (int) (len - WF_REPORT_MAC_SUFFIX_LEN), data);
  mac = wf_report_hmac_hex (key, (const guint8 *) text, strlen (text));
  g_assert_cmpint (memcmp (mac, data + len - 66, 64), ==, 0);

  v = parse_bytes (d, key, &reason);
  g_assert_cmpint (reason, ==, WF_REPORT_OK);
  g_assert_nonnull (v);
  g_assert_true (v->authenticated);
  g_assert_false (json_object_has_member (v->body, "mac"));
  /* A receiver without a key takes it, unauthenticated. */
  v2 = parse_bytes (d, NULL, &reason);
  g_assert_nonnull (v2);
  g_assert_false (v2->authenticated);
}

/* The worked example of docs/report-protocol.md verifies. */
static void
test_hmac_doc_example (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "docs", "report-protocol.md", NULL);
  g_autofree char *doc = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) key = g_bytes_new_static ("wlanfair-example-key-0123456789", 31);
  g_autoptr(GBytes) wrong = g_bytes_new_static ("wlanfair-example-key-012345678X", 31);
  g_autoptr(WfReportView) v = NULL;
  WfReportReject reason;
  const char *start;
  char *end;
  double rx, tx;

  g_file_get_contents (path, &doc, NULL, &error);
  g_assert_no_error (error);
  start = strstr (doc, "<!-- example-datagram -->\n```\n");
  g_assert_nonnull (start);
  start = strchr (strchr (start, '`'), '\n') + 1;
  end = strchr (start, '\n');
  *end = '\0';
  g_assert_cmpuint (strlen (start), ==, 1307);

  v = wf_report_parse ((const guint8 *) start, strlen (start), key, &reason, &error);
  g_assert_no_error (error);
  g_assert_true (v->authenticated);
  g_assert_cmpstr (v->hostname, ==, "laptop-1");
  g_assert_true (wf_report_view_goodput (v, &rx, &tx));
  g_assert_cmpfloat (rx, ==, 19660800.0);
  g_assert_null (wf_report_parse ((const guint8 *) start, strlen (start), wrong, &reason, NULL));
  g_assert_cmpint (reason, ==, WF_REPORT_REJECT_BAD_MAC);
}

/* RFC 4231 test case 2: our HMAC is the standard one. */
static void
test_hmac_rfc4231 (void)
{
  g_autoptr(GBytes) key = g_bytes_new_static ("Jefe", 4);
  const char *data = "what do ya want for nothing?";
  g_autofree char *mac = wf_report_hmac_hex (key, (const guint8 *) data, strlen (data));

  g_assert_cmpstr (mac, ==, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

static void
test_hmac_bad (void)
{
  g_autoptr(GBytes) key = test_key ();
  g_autoptr(GBytes) other = g_bytes_new_static ("another-key-0123456789", 22);
  g_autoptr(GBytes) d = seal_body (key, 0, T0);
  gsize len = g_bytes_get_size (d);
  g_autofree guint8 *copy = g_memdup2 (g_bytes_get_data (d, NULL), len);
  WfReportReject reason;
  WfReportView *v;

  /* Wrong key. */
  v = parse_bytes (d, other, &reason);
  g_assert_null (v);
  g_assert_cmpint (reason, ==, WF_REPORT_REJECT_BAD_MAC);

  /* Every single-byte change of the signed part, or of the mac. */
  for (gsize i = 0; i < len; i++)
    {
      g_autoptr(GError) error = NULL;
      guint8 saved = copy[i];

      /* Stay ASCII so the change is seen by the mac, not the UTF-8 check;
       * toggling 0x01 keeps hex digits hex ('a' <-> '`' is not, fine). */
      copy[i] ^= 0x01;
      v = wf_report_parse (copy, len, key, &reason, &error);
      g_assert_null (v);
      g_assert_true (reason == WF_REPORT_REJECT_BAD_MAC || reason == WF_REPORT_REJECT_UNSIGNED ||
                     reason == WF_REPORT_REJECT_UTF8);
      copy[i] = saved;
    }
  v = wf_report_parse (copy, len, key, &reason, NULL);
  g_assert_nonnull (v);
  wf_report_view_free (v);
}

static void
test_hmac_missing (void)
{
  g_autoptr(GBytes) key = test_key ();
  g_autoptr(GBytes) d = seal_body (NULL, 0, T0);
  g_autofree char *moved = NULL, *text = text_with ("");
  WfReportReject reason;
  WfReportView *v;

  v = parse_bytes (d, key, &reason);
  g_assert_null (v);
  g_assert_cmpint (reason, ==, WF_REPORT_REJECT_UNSIGNED);

  /* A mac member anywhere but at the end is not a signature. */
  moved = g_strdup_printf ("{\"mac\":\"%s\",%s", "00000000000000000000000000000000"
                           "00000000000000000000000000000000", text + 1);
  g_assert_cmpint (reason_of_text (moved, NULL), ==, WF_REPORT_REJECT_BAD_MAC);
  g_assert_cmpint (reason_of_text (moved, key), ==, WF_REPORT_REJECT_UNSIGNED);
  /* Signed, and a second mac inside the signed text. */
  {
    g_autofree char *inner = text_with ("\"mac\":\"x\"");
    g_autofree char *s = sign_text (inner, key);

    g_assert_cmpint (reason_of_text (s, key), ==, WF_REPORT_REJECT_BAD_MAC);
  }
}

static void
test_hmac_key_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *good = write_temp ("0123456789abcdef0123456789abcdef\n", -1, 0600);
  g_autofree char *ro = write_temp ("0123456789abcdef0123456789abcdef", -1, 0400);
  g_autofree char *group = write_temp ("0123456789abcdef0123456789abcdef\n", -1, 0640);
  g_autofree char *other = write_temp ("0123456789abcdef0123456789abcdef\n", -1, 0604);
  g_autofree char *gw = write_temp ("0123456789abcdef0123456789abcdef\n", -1, 0620);
  g_autofree char *shrt = write_temp ("short\n", -1, 0600);
  g_autofree char *dir = g_dir_make_tmp ("wfp-key-XXXXXX", NULL);
  g_autoptr(GBytes) k1 = NULL, k2 = NULL;
  GBytes *k;

  k1 = wf_report_load_key (good, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (k1), ==, 32); /* newline is not key */
  k2 = wf_report_load_key (ro, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (k1, k2));

  for (const char *const *p = (const char *const[]) { group, other, gw, NULL }; *p; p++)
    {
      k = wf_report_load_key (*p, &error);
      g_assert_null (k);
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "chmod 600"));
      g_clear_error (&error);
    }
  k = wf_report_load_key (shrt, &error);
  g_assert_null (k);
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_clear_error (&error);
  g_chmod (dir, 0700);
  k = wf_report_load_key (dir, &error);
  g_assert_null (k);
  g_assert_nonnull (error);
  g_clear_error (&error);
  k = wf_report_load_key ("/nonexistent/key", &error);
  g_assert_null (k);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  /* A systemd credential: 0440 as systemd 257 writes it is taken; group
   * write and others' bits are still refused. */
  k = wf_report_load_key_full (group, TRUE, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (k, k1));
  g_bytes_unref (k);
  k = wf_report_load_key_full (ro, TRUE, &error);
  g_assert_no_error (error);
  g_bytes_unref (k);
  for (const char *const *p = (const char *const[]) { other, gw, NULL }; *p; p++)
    {
      k = wf_report_load_key_full (*p, TRUE, &error);
      g_assert_null (k);
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      g_clear_error (&error);
    }

  /* A FIFO without a writer: refused at once, not waited on in open(). */
  {
    g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
    gint64 t0 = g_get_monotonic_time ();

    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
    k = wf_report_load_key (fifo, &error);
    g_assert_null (k);
    g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "not a regular file"));
    g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
    g_clear_error (&error);
    g_unlink (fifo);
  }
  /* The machine id: bounded too. */
  g_assert_null (wf_report_host_id ("/dev/zero", &error));
  g_assert_cmpstr (error->message, ==,
                   "/dev/zero: larger than 4096 bytes (the limit for a machine id file)");
  g_clear_error (&error);

  for (const char *const *p = (const char *const[]) { good, ro, group, other, gw, shrt, NULL }; *p; p++)
    g_unlink (*p);
  g_rmdir (dir);
}

/* ------------------------------------------------------------------ */

static void
test_parse_truncated (void)
{
  g_autoptr(GBytes) key = test_key ();

  for (int keyed = 0; keyed < 2; keyed++)
    {
      g_autoptr(GBytes) d = seal_body (keyed ? key : NULL, 2, T0);
      const guint8 *data = g_bytes_get_data (d, NULL);
      gsize len = g_bytes_get_size (d);

      for (gsize n = 0; n < len; n++)
        {
          g_autoptr(GError) error = NULL;
          WfReportReject reason = WF_REPORT_OK;
          WfReportView *v = wf_report_parse (data, n, keyed ? key : NULL, &reason, &error);

          g_assert_null (v);
          g_assert_cmpint (reason, !=, WF_REPORT_OK);
          if (n == 0)
            g_assert_cmpint (reason, ==, WF_REPORT_REJECT_EMPTY);
          else if (keyed)
            g_assert_true (reason == WF_REPORT_REJECT_UNSIGNED || reason == WF_REPORT_REJECT_UTF8);
          else
            g_assert_true (reason == WF_REPORT_REJECT_JSON || reason == WF_REPORT_REJECT_UTF8);
        }
    }
}

static void
test_parse_oversized (void)
{
  g_autofree char *pad = g_strnfill (WF_REPORT_MAX_SIZE, ' ');
  g_autofree char *text = text_with ("");
  g_autofree char *big = g_strconcat (pad, text, NULL);
  g_autofree char *fits = g_strconcat (pad + strlen (text), text, NULL);

  g_assert_cmpuint (strlen (fits), ==, WF_REPORT_MAX_SIZE);
  g_assert_cmpint (reason_of_text (fits, NULL), ==, WF_REPORT_OK);
  g_assert_cmpint (reason_of_text (big, NULL), ==, WF_REPORT_REJECT_OVERSIZED);
  g_assert_cmpint (reason_of_text ("", NULL), ==, WF_REPORT_REJECT_EMPTY);
}

static void
test_parse_version (void)
{
  g_autofree char *ok = text_with ("");
  g_autofree char *v2 = g_strdup (ok), *vs = NULL, *none = NULL;

  /* "wlanfair_report":1 -> 2 */
  strstr (v2, "\":1,")[2] = '2';
  g_assert_cmpint (reason_of_text (ok, NULL), ==, WF_REPORT_OK);
  g_assert_cmpint (reason_of_text (v2, NULL), ==, WF_REPORT_REJECT_VERSION);
  vs = g_strdup_printf ("{\"wlanfair_report\":\"1\"%s", strchr (ok, ','));
  g_assert_cmpint (reason_of_text (vs, NULL), ==, WF_REPORT_REJECT_VERSION);
  none = g_strdup_printf ("{\"x\":1%s", strchr (ok, ','));
  g_assert_cmpint (reason_of_text (none, NULL), ==, WF_REPORT_REJECT_VERSION);
  g_assert_cmpint (reason_of_text ("{\"wlanfair_report\":0}", NULL), ==, WF_REPORT_REJECT_VERSION);
  /* Empty objects are JSON: what they lack is the version. */
  g_assert_cmpint (reason_of_text ("{}", NULL), ==, WF_REPORT_REJECT_VERSION);
  g_assert_cmpint (reason_of_text (" { } \n", NULL), ==, WF_REPORT_REJECT_VERSION);
  g_assert_cmpint (reason_of_text ("{} {}", NULL), ==, WF_REPORT_REJECT_JSON);
}

static void
test_parse_utf8 (void)
{
  g_autofree char *ok = text_with ("\"hostname\":\"caf\xc3\xa9\"");
  g_autofree char *bad = text_with ("\"hostname\":\"caf\xc3\"");
  g_autofree char *overlong = text_with ("\"hostname\":\"\xc0\xaf\"");
  g_autofree char *surrogate = text_with ("\"hostname\":\"\\ud800\"");
  g_autofree char *escaped_nul = text_with ("\"hostname\":\"a\\u0000b\"");
  /* json-glib decodes these to invalid UTF-8 (found by fuzzing). */
  g_autofree char *surrogate_key = text_with ("\"\\ud800es\":1");
  g_autofree char *surrogate_unknown = text_with ("\"x\":\"\\ud800xy\"");
  g_autofree char *pair = text_with ("\"x\":\"\\ud83d\\ude00\"");
  g_autofree char *ctrl = text_with ("\"hostname\":\"a\\u001b[2Jb\"");
  g_autofree char *with_nul = text_with ("");
  WfReportReject r;

  g_assert_cmpint (reason_of_text (ok, NULL), ==, WF_REPORT_OK);
  g_assert_cmpint (reason_of_text (bad, NULL), ==, WF_REPORT_REJECT_UTF8);
  g_assert_cmpint (reason_of_text (overlong, NULL), ==, WF_REPORT_REJECT_UTF8);
  /* json-glib either refuses a lone surrogate or decodes it to invalid
   * UTF-8 that the string check catches: rejected either way. */
  r = reason_of_text (surrogate, NULL);
  g_assert_true (r == WF_REPORT_REJECT_UTF8 || r == WF_REPORT_REJECT_JSON ||
                 r == WF_REPORT_REJECT_FIELD);
  /* json-glib would cut the string at it. */
  g_assert_cmpint (reason_of_text (escaped_nul, NULL), ==, WF_REPORT_REJECT_UTF8);
  g_assert_cmpint (reason_of_text (surrogate_key, NULL), ==, WF_REPORT_REJECT_UTF8);
  g_assert_cmpint (reason_of_text (surrogate_unknown, NULL), ==, WF_REPORT_REJECT_UTF8);
  g_assert_cmpint (reason_of_text (pair, NULL), ==, WF_REPORT_OK);
  /* json-glib leaks memory on a malformed pair: never handed to it
   * (run under ASan with G_SLICE=always-malloc, this test would leak). */
  {
    static const char *const bad_escapes[] = {
      "\"x\":\"\\ud800\\ud800\"", "\"x\":\"\\ud800\\u0041\"", "\"x\":\"\\udc00\"",
      "\"x\":\"\\ud800\"", "\"\\udbff\\ue000\":1", NULL,
    };
    g_autofree char *not_hex = text_with ("\"x\":\"\\u12g4\"");
    g_autofree char *short_esc = text_with ("\"x\":\"\\u12\"");
    g_autofree char *literal = text_with ("\"x\":\"\\\\u0000 \\\\ud800\"");

    for (const char *const *b = bad_escapes; *b; b++)
      {
        g_autofree char *t = text_with (*b);

        g_assert_cmpint (reason_of_text (t, NULL), ==, WF_REPORT_REJECT_UTF8);
      }
    g_assert_cmpint (reason_of_text (not_hex, NULL), ==, WF_REPORT_REJECT_JSON);
    g_assert_cmpint (reason_of_text (short_esc, NULL), ==, WF_REPORT_REJECT_JSON);
    /* Escaped backslashes followed by "u0000": text, not escapes. */
    g_assert_cmpint (reason_of_text (literal, NULL), ==, WF_REPORT_OK);
  }
  /* Terminal escapes never reach a table. */
  g_assert_cmpint (reason_of_text (ctrl, NULL), ==, WF_REPORT_REJECT_FIELD);
  /* A raw NUL byte inside the datagram. */
  {
    WfReportView *v;
    gsize len = strlen (with_nul);

    with_nul[len / 2] = '\0';
    v = wf_report_parse ((const guint8 *) with_nul, len, NULL, &r, NULL);
    g_assert_null (v);
    g_assert_cmpint (r, ==, WF_REPORT_REJECT_UTF8);
  }
}

static void
test_parse_not_object (void)
{
  g_assert_cmpint (reason_of_text ("[1,2,3]", NULL), ==, WF_REPORT_REJECT_NOT_OBJECT);
  g_assert_cmpint (reason_of_text ("42", NULL), ==, WF_REPORT_REJECT_NOT_OBJECT);
  g_assert_cmpint (reason_of_text ("\"x\"", NULL), ==, WF_REPORT_REJECT_NOT_OBJECT);
  g_assert_cmpint (reason_of_text ("{", NULL), ==, WF_REPORT_REJECT_JSON);
  g_assert_cmpint (reason_of_text ("GET / HTTP/1.0\r\n\r\n", NULL), ==, WF_REPORT_REJECT_JSON);
  g_assert_cmpint (reason_of_text ("   ", NULL), !=, WF_REPORT_OK);
  /* json-glib takes several roots (and leaks all but the last): one
   * object and nothing after it (found by fuzzing). */
  {
    g_autofree char *ok = text_with ("");
    g_autofree char *two = g_strconcat (ok, "{\"a\":1}", NULL);
    g_autofree char *before = g_strconcat ("[[]]", ok, NULL);
    g_autofree char *trailing = g_strconcat (ok, " x", NULL);
    g_autofree char *ws = g_strconcat (" \n", ok, " \r\n\t", NULL);
    g_autofree char *raw_ctl = text_with ("\"x\":\"a\x15" "b\"");

    g_assert_cmpint (reason_of_text (two, NULL), ==, WF_REPORT_REJECT_JSON);
    g_assert_cmpint (reason_of_text (before, NULL), ==, WF_REPORT_REJECT_NOT_OBJECT);
    g_assert_cmpint (reason_of_text (trailing, NULL), ==, WF_REPORT_REJECT_JSON);
    g_assert_cmpint (reason_of_text (ws, NULL), ==, WF_REPORT_OK);
    g_assert_cmpint (reason_of_text (raw_ctl, NULL), ==, WF_REPORT_REJECT_JSON);
    g_assert_cmpint (reason_of_text ("{}]", NULL), ==, WF_REPORT_REJECT_JSON);
  }
}

static void
test_parse_depth (void)
{
  g_autofree char *open = g_strnfill (1000, '[');
  g_autofree char *close = g_strnfill (1000, ']');
  g_autofree char *deep = g_strconcat ("\"x\":", open, close, NULL);
  g_autofree char *text = text_with (deep);
  /* Brackets inside strings do not count. */
  g_autofree char *in_str = g_strconcat ("\"x\":\"", open, "\\\"", close, "\"", NULL);
  g_autofree char *text2 = text_with (in_str);

  g_assert_cmpint (reason_of_text (text, NULL), ==, WF_REPORT_REJECT_JSON);
  g_assert_cmpint (reason_of_text (text2, NULL), ==, WF_REPORT_OK);
}

/* Malformed JSON is refused by the grammar check before json-glib sees
 * it (json-glib 1.6 leaks on its error paths); well-formed JSON of every
 * kind still passes. */
static void
test_parse_grammar (void)
{
  static const char *const bad[] = {
    "\"x\":1,", "\"x\" 1", "\"x\":01", "\"x\":1.", "\"x\":.5", "\"x\":1e",
    "\"x\":+1", "\"x\":-", "\"x\":tru", "\"x\":nul", "\"x\":True", "\"x\":\"\\x\"",
    "\"x\":[1,]", "\"x\":[1 2]", "\"x\":{\"a\"}", "\"x\":{\"a\":}", "\"x\":{1:2}",
    "\"x\":[}", "\"x\":{]", "\"x\":'a'", "\"x\":1 \"y\":2", "x:1", "\"x\":NaN",
    NULL,
  };
  static const char *const good[] = {
    "\"x\":[]", "\"x\":{}", "\"x\":[ ]", "\"x\":{ }", "\"x\":-0", "\"x\":0.5e-3",
    "\"x\":1E+2", "\"x\":[true,false,null]", "\"x\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
    "\"x\" : [ { \"a\" : [ [ ] ] } , 1 ]", NULL,
  };
  /* What libFuzzer found leaking 88 bytes inside json-glib. */
  static const char leak[] = "{\"wlit\":\"46b\",\"seq\":1,\"aces\"/:aces\"/:[]}[]}";

  for (const char *const *b = bad; *b; b++)
    {
      g_autofree char *t = text_with (*b);

      g_test_message ("bad: %s", *b);
      g_assert_cmpint (reason_of_text (t, NULL), ==, WF_REPORT_REJECT_JSON);
    }
  for (const char *const *g = good; *g; g++)
    {
      g_autofree char *t = text_with (*g);

      g_test_message ("good: %s", *g);
      g_assert_cmpint (reason_of_text (t, NULL), ==, WF_REPORT_OK);
    }
  g_assert_cmpint (reason_of_text (leak, NULL), ==, WF_REPORT_REJECT_JSON);
}

typedef struct {
  const char    *extra;
  WfReportReject reason;
} Case;

static void
test_parse_absurd (void)
{
  static const Case cases[] = {
    { "", WF_REPORT_OK },
    { "\"unknown\":{\"a\":[1,{\"b\":null}]}", WF_REPORT_OK },
    { "\"flows_total\":-1", WF_REPORT_REJECT_RANGE },
    /* sampled_us, span_s: optional; a clock like time_us, a span > 0. */
    { "\"sampled_us\":1795322659000000,\"span_s\":0.98", WF_REPORT_OK },
    { "\"sampled_us\":0", WF_REPORT_REJECT_RANGE },
    /* sampled_end_us: the dump's end, never before its start. */
    { "\"sampled_us\":1795322659000000,\"sampled_end_us\":1795322659004000", WF_REPORT_OK },
    { "\"sampled_us\":1795322659000000,\"sampled_end_us\":1795322658999999",
      WF_REPORT_REJECT_RANGE },
    { "\"sampled_end_us\":1795322659004000", WF_REPORT_REJECT_RANGE },
    { "\"sampled_us\":1795322659000000,\"sampled_end_us\":\"x\"", WF_REPORT_REJECT_FIELD },
    { "\"sampled_us\":1.5e15", WF_REPORT_REJECT_FIELD },
    { "\"span_s\":0", WF_REPORT_REJECT_RANGE },
    { "\"span_s\":-1", WF_REPORT_REJECT_RANGE },
    { "\"span_s\":\"1\"", WF_REPORT_REJECT_FIELD },
    { "\"flows_total\":1.5", WF_REPORT_REJECT_FIELD },
    { "\"flows_total\":null", WF_REPORT_REJECT_FIELD },
    { "\"flows\":{}", WF_REPORT_REJECT_FIELD },
    { "\"flows\":[1]", WF_REPORT_REJECT_FIELD },
    { "\"flows\":[{\"goodput_tx_bps\":-5}]", WF_REPORT_REJECT_RANGE },
    { "\"flows\":[{\"goodput_tx_bps\":2e13}]", WF_REPORT_REJECT_RANGE },
    { "\"flows\":[{\"goodput_tx_bps\":1e400}]", WF_REPORT_REJECT_RANGE },
    { "\"flows\":[{\"cwnd\":\"10\"}]", WF_REPORT_REJECT_FIELD },
    /* app_limited: optional, a boolean when present. */
    { "\"flows\":[{\"app_limited\":true}]", WF_REPORT_OK },
    { "\"flows\":[{\"app_limited\":false,\"goodput_tx_bps\":1}]", WF_REPORT_OK },
    { "\"flows\":[{\"app_limited\":1}]", WF_REPORT_REJECT_FIELD },
    { "\"flows\":[{\"app_limited\":\"true\"}]", WF_REPORT_REJECT_FIELD },
    { "\"flows\":[{\"app_limited\":null}]", WF_REPORT_REJECT_FIELD },
    { "\"flows\":[{},{\"app_limited\":[]}]", WF_REPORT_REJECT_FIELD },
    /* What a receiver before app_limited saw, and what every receiver sees
     * of a later flow member: unknown, any JSON type, accepted. */
    { "\"flows\":[{\"app_limited_later\":1}]", WF_REPORT_OK },
    { "\"flows\":[{\"later\":{\"x\":null}}]", WF_REPORT_OK },
    { "\"flows_dropped\":3", WF_REPORT_OK },
    /* Unknown members are not typed, but must be writable back as JSON. */
    { "\"unknown\":[1e999]", WF_REPORT_REJECT_RANGE },
    { "\"unknown\":-1e999", WF_REPORT_REJECT_RANGE },
    { "\"unknown\":1e308", WF_REPORT_OK },
    { "\"ackloss\":[]", WF_REPORT_REJECT_FIELD },
    { "\"hostname\":\"\"", WF_REPORT_REJECT_FIELD },
    { "\"hostname\":7", WF_REPORT_REJECT_FIELD },
  };
  static const Case iface_cases[] = {
    { "", WF_REPORT_OK },
    { ",\"unknown\":1", WF_REPORT_OK },
    { ",\"rx_bps\":-1", WF_REPORT_REJECT_RANGE },
    { ",\"rx_bps\":1e13", WF_REPORT_OK },
    { ",\"rx_bps\":1.0001e13", WF_REPORT_REJECT_RANGE },
    { ",\"goodput_rx_bps\":-0.5", WF_REPORT_REJECT_RANGE },
    { ",\"goodput_tx_bps\":\"fast\"", WF_REPORT_REJECT_FIELD },
    { ",\"tx_pps\":1e12", WF_REPORT_REJECT_RANGE },
    { ",\"rx_bytes\":-1", WF_REPORT_REJECT_RANGE },
    { ",\"rx_bytes\":1.5", WF_REPORT_REJECT_FIELD },
    { ",\"wifi\":1", WF_REPORT_REJECT_FIELD },
    { ",\"ifindex\":0", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"signal_dbm\":-45}", WF_REPORT_OK },
    { ",\"station\":{\"signal_dbm\":-151}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"signal_dbm\":31}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"signal_dbm\":-150,\"signal_avg_dbm\":30}", WF_REPORT_OK },
    { ",\"station\":{\"signal_avg_dbm\":-1000}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"signal_dbm\":-45.5}", WF_REPORT_REJECT_FIELD },
    { ",\"station\":{\"freq_mhz\":0}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"bssid\":\"02:00:00:00:01\"}", WF_REPORT_REJECT_FIELD },
    { ",\"station\":{\"bssid\":\"02:00:00:00:01:zz\"}", WF_REPORT_REJECT_FIELD },
    { ",\"station\":{\"tx_rate\":{\"mcs\":77}}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"tx_rate\":{\"mcs\":-1}}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"rx_rate\":{\"bitrate_kbps\":10000000001}}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"rx_rate\":{\"nss\":0}}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"rx_rate\":{\"width_mhz\":640}}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":{\"rx_rate\":[]}", WF_REPORT_REJECT_FIELD },
    { ",\"station\":{\"tx_retries\":-3}", WF_REPORT_REJECT_RANGE },
    { ",\"station\":7", WF_REPORT_REJECT_FIELD },
    { ",\"scans\":{\"count\":-1}", WF_REPORT_REJECT_RANGE },
    { ",\"scans\":{\"in_progress\":\"no\"}", WF_REPORT_REJECT_FIELD },
  };
  static const Case envelope_cases[] = {
    { "\"seq\":0", WF_REPORT_REJECT_RANGE },
    { "\"seq\":-1", WF_REPORT_REJECT_RANGE },
    { "\"seq\":1.0", WF_REPORT_REJECT_FIELD },
    { "\"time_us\":0", WF_REPORT_REJECT_RANGE },
    { "\"interval_s\":0", WF_REPORT_REJECT_RANGE },
    { "\"interval_s\":61", WF_REPORT_REJECT_RANGE },
    { "\"interval_s\":0.1", WF_REPORT_OK },
    { "\"host\":\"0123456789ABCDEF0123456789ABCDEF\"", WF_REPORT_REJECT_FIELD },
    { "\"host\":\"0123\"", WF_REPORT_REJECT_FIELD },
    { "\"boot\":\"xyz\"", WF_REPORT_REJECT_FIELD },
    { "\"interfaces\":{}", WF_REPORT_REJECT_FIELD },
  };
  static const char *const required[] = { "host", "seq", "time_us", "boot", "interval_s",
                                          "interfaces", NULL };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *t = text_with (cases[i].extra);

      g_test_message ("top: %s", cases[i].extra);
      g_assert_cmpstr (wf_report_reject_to_string (reason_of_text (t, NULL)), ==,
                       wf_report_reject_to_string (cases[i].reason));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (iface_cases); i++)
    {
      g_autofree char *ifaces = g_strdup_printf ("\"interfaces\":[{\"name\":\"wlan0\"%s}]",
                                                 iface_cases[i].extra);
      g_autofree char *t = text_with ("");
      g_autofree char *t2 = NULL;
      char *at = strstr (t, "\"interfaces\":[]");

      *at = '\0';
      t2 = g_strconcat (t, ifaces, at + strlen ("\"interfaces\":[]"), NULL);
      g_test_message ("iface: %s", t2);
      g_assert_cmpstr (wf_report_reject_to_string (reason_of_text (t2, NULL)), ==,
                       wf_report_reject_to_string (iface_cases[i].reason));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (envelope_cases); i++)
    {
      /* Duplicate keys: json-glib keeps the last, which is ours. */
      g_autofree char *t = text_with (envelope_cases[i].extra);

      g_test_message ("envelope: %s", envelope_cases[i].extra);
      g_assert_cmpstr (wf_report_reject_to_string (reason_of_text (t, NULL)), ==,
                       wf_report_reject_to_string (envelope_cases[i].reason));
    }
  /* Each required member missing in turn. */
  for (const char *const *r = required; *r; r++)
    {
      g_autofree char *base = text_with ("");
      g_autoptr(JsonNode) root = json_from_string (base, NULL);
      g_autofree char *t = NULL;

      json_object_remove_member (json_node_get_object (root), *r);
      t = json_to_string (root, FALSE);
      g_assert_cmpint (reason_of_text (t, NULL), ==, WF_REPORT_REJECT_FIELD);
    }
  /* Interface without a name, name too long, too many interfaces. */
  {
    g_autofree char *noname = text_with ("");
    g_autofree char *t = NULL;
    GString *many = g_string_new ("\"interfaces\":[");
    g_autofree char *tm = NULL;

    t = g_strdup_printf ("{\"wlanfair_report\":1,\"host\":\"" HOST "\",\"seq\":1,\"time_us\":%"
                         G_GINT64_FORMAT ",\"boot\":\"00112233aabbccdd\",\"interval_s\":1,"
                         "\"interfaces\":[{\"name\":\"0123456789abcdef\"}]}", T0);
    g_assert_cmpint (reason_of_text (t, NULL), ==, WF_REPORT_REJECT_FIELD);
    g_free (t);
    t = g_strdup_printf ("{\"wlanfair_report\":1,\"host\":\"" HOST "\",\"seq\":1,\"time_us\":%"
                         G_GINT64_FORMAT ",\"boot\":\"00112233aabbccdd\",\"interval_s\":1,"
                         "\"interfaces\":[{\"wifi\":true}]}", T0);
    g_assert_cmpint (reason_of_text (t, NULL), ==, WF_REPORT_REJECT_FIELD);
    for (int i = 0; i < 65; i++)
      g_string_append_printf (many, "%s{\"name\":\"e%d\"}", i ? "," : "", i);
    g_string_append (many, "]");
    tm = g_strdup_printf ("{\"wlanfair_report\":1,\"host\":\"" HOST "\",\"seq\":1,\"time_us\":%"
                          G_GINT64_FORMAT ",\"boot\":\"00112233aabbccdd\",\"interval_s\":1,%s}",
                          T0, many->str);
    g_assert_cmpint (reason_of_text (tm, NULL), ==, WF_REPORT_REJECT_RANGE);
    g_string_free (many, TRUE);
  }
}

static void
test_parse_goodput (void)
{
  static const struct {
    const char *ifaces;
    gboolean    any;
    double      rx, tx;
  } cases[] = {
    /* Wi-Fi present: only Wi-Fi counts (eth0 may be the uplink). */
    { "[{\"name\":\"wlan0\",\"wifi\":true,\"goodput_rx_bps\":5,\"goodput_tx_bps\":1},"
      " {\"name\":\"eth0\",\"goodput_rx_bps\":100}]", TRUE, 5, 1 },
    /* Two Wi-Fi interfaces add up. */
    { "[{\"name\":\"wlan0\",\"wifi\":true,\"goodput_rx_bps\":5},"
      " {\"name\":\"wlan1\",\"wifi\":true,\"goodput_tx_bps\":7}]", TRUE, 5, 7 },
    /* Wi-Fi without goodput: the others. */
    { "[{\"name\":\"wlan0\",\"wifi\":true},"
      " {\"name\":\"veth0\",\"goodput_rx_bps\":3},{\"name\":\"eth0\",\"goodput_tx_bps\":4}]", TRUE, 3, 4 },
    { "[{\"name\":\"wlan0\",\"wifi\":true}]", FALSE, 0, 0 },
    { "[]", FALSE, 0, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *t = g_strdup_printf ("{\"wlanfair_report\":1,\"host\":\"" HOST "\",\"seq\":1,"
                                            "\"time_us\":%" G_GINT64_FORMAT ",\"boot\":\"00112233aabbccdd\","
                                            "\"interval_s\":1,\"interfaces\":%s}", T0, cases[i].ifaces);
      g_autoptr(WfReportView) v = wf_report_parse ((const guint8 *) t, strlen (t), NULL, NULL, NULL);
      double rx = -1, tx = -1;

      g_assert_nonnull (v);
      g_assert_cmpint (wf_report_view_goodput (v, &rx, &tx), ==, cases[i].any);
      g_assert_cmpfloat (rx, ==, cases[i].rx);
      g_assert_cmpfloat (tx, ==, cases[i].tx);
    }
}

/* ------------------------------------------------------------------ */

static WfReportView *
view (const char *host, const char *boot, guint64 seq, gint64 time_us)
{
  g_autofree char *t = g_strdup_printf ("{\"wlanfair_report\":1,\"host\":\"%s\",\"seq\":%" G_GUINT64_FORMAT
                                        ",\"time_us\":%" G_GINT64_FORMAT ",\"boot\":\"%s\","
                                        "\"interval_s\":1,\"interfaces\":[]}", host, seq, time_us, boot);
  WfReportView *v = wf_report_parse ((const guint8 *) t, strlen (t), NULL, NULL, NULL);

  g_assert_nonnull (v);
  return v;
}

static WfReportReject
check (WfReportReplay *r, const char *host, const char *boot, guint64 seq, gint64 time_us,
       gint64 now)
{
  g_autoptr(WfReportView) v = view (host, boot, seq, time_us);
  g_autoptr(GError) error = NULL;
  WfReportReject reason = wf_report_replay_check (r, v, now, &error);

  g_assert_true ((reason == WF_REPORT_OK) == (error == NULL));
  if (error)
    g_test_message ("%s", error->message);
  return reason;
}

#define B1 "1111111111111111"
#define B2 "2222222222222222"
#define S ((gint64) G_USEC_PER_SEC)

static void
test_replay_sequence (void)
{
  WfReportReplay *r = wf_report_replay_new (0, 0);

  g_assert_cmpint (check (r, HOST, B1, 1, T0, T0), ==, WF_REPORT_OK);
  g_assert_cmpint (check (r, HOST, B1, 2, T0 + S, T0 + S), ==, WF_REPORT_OK);
  g_assert_cmpint (check (r, HOST, B1, 2, T0 + S, T0 + S), ==, WF_REPORT_REJECT_REPLAY);
  g_assert_cmpint (check (r, HOST, B1, 1, T0, T0 + 2 * S), ==, WF_REPORT_REJECT_REPLAY);
  /* Gaps are fine (lost datagrams). */
  g_assert_cmpint (check (r, HOST, B1, 10, T0 + 3 * S, T0 + 3 * S), ==, WF_REPORT_OK);
  /* Other hosts have their own sequence. */
  g_assert_cmpint (check (r, "ffffffffffffffffffffffffffffffff", B1, 1, T0, T0 + 3 * S), ==, WF_REPORT_OK);
  g_assert_cmpuint (wf_report_replay_n_hosts (r), ==, 2);
  wf_report_replay_free (r);
}

static void
test_replay_new_boot (void)
{
  WfReportReplay *r = wf_report_replay_new (0, 0);

  g_assert_cmpint (check (r, HOST, B1, 100, T0, T0), ==, WF_REPORT_OK);
  /* The sender restarted: a new boot id, seq from 1, a later time. */
  g_assert_cmpint (check (r, HOST, B2, 1, T0 + S, T0 + S), ==, WF_REPORT_OK);
  g_assert_cmpint (check (r, HOST, B2, 2, T0 + 2 * S, T0 + 2 * S), ==, WF_REPORT_OK);
  /* The old boot's report replayed within the window. */
  g_assert_cmpint (check (r, HOST, B1, 100, T0, T0 + 3 * S), ==, WF_REPORT_REJECT_REPLAY);
  g_assert_cmpint (check (r, HOST, B1, 101, T0 + S, T0 + 3 * S), ==, WF_REPORT_REJECT_REPLAY);
  wf_report_replay_free (r);
}

static void
test_replay_freshness (void)
{
  WfReportReplay *r = wf_report_replay_new (0, 0);
  WfReportReplay *r5 = wf_report_replay_new (5 * S, 0);

  /* Default: +-30 s plus one interval (1 s). */
  g_assert_cmpint (check (r, HOST, B1, 1, T0 - 31 * S, T0), ==, WF_REPORT_OK);
  g_assert_cmpint (check (r, HOST, B1, 2, T0 - 31 * S - 1, T0), ==, WF_REPORT_REJECT_STALE);
  g_assert_cmpint (check (r, HOST, B1, 3, T0 + 31 * S, T0), ==, WF_REPORT_OK);
  g_assert_cmpint (check (r, HOST, B1, 4, T0 + 31 * S + 1, T0), ==, WF_REPORT_REJECT_FUTURE);
  g_assert_cmpint (check (r, HOST, B1, 5, T0 - 3600 * S, T0), ==, WF_REPORT_REJECT_STALE);
  /* A rejected report leaves no state: seq 2 is still unused. */
  g_assert_cmpint (check (r, HOST, B1, 4, T0, T0), ==, WF_REPORT_OK);

  g_assert_cmpint (check (r5, HOST, B1, 1, T0 - 7 * S, T0), ==, WF_REPORT_REJECT_STALE);
  g_assert_cmpint (check (r5, HOST, B1, 1, T0 + 7 * S, T0), ==, WF_REPORT_REJECT_FUTURE);
  g_assert_cmpint (check (r5, HOST, B1, 1, T0 + 6 * S, T0), ==, WF_REPORT_OK);
  wf_report_replay_free (r);
  wf_report_replay_free (r5);
}

static void
test_replay_bounded (void)
{
  WfReportReplay *r = wf_report_replay_new (0, 3);
  char host[33];

  for (int i = 0; i < 3; i++)
    {
      g_snprintf (host, sizeof host, "%032x", i);
      g_assert_cmpint (check (r, host, B1, 1, T0, T0), ==, WF_REPORT_OK);
    }
  g_snprintf (host, sizeof host, "%032x", 3);
  g_assert_cmpint (check (r, host, B1, 1, T0, T0 + S), ==, WF_REPORT_REJECT_HOST_LIMIT);
  g_assert_cmpuint (wf_report_replay_n_hosts (r), ==, 3);
  /* Known hosts still pass while the table is full. */
  g_assert_cmpint (check (r, "00000000000000000000000000000000", B1, 2, T0 + S, T0 + S), ==, WF_REPORT_OK);
  /* After 2 * (30 s + 1 s) + 1 s of silence, the idle ones go. */
  g_assert_cmpint (check (r, host, B1, 1, T0 + 63 * S + 1, T0 + 63 * S + 1), ==, WF_REPORT_OK);
  g_assert_cmpuint (wf_report_replay_n_hosts (r), ==, 2);
  wf_report_replay_expire (r, T0 + 200 * S);
  g_assert_cmpuint (wf_report_replay_n_hosts (r), ==, 0);
  wf_report_replay_free (r);
}

/* Once a host's state expired, a replay of anything it sent is stale. */
static void
test_replay_expiry_safe (void)
{
  for (gint64 skew = -31 * S; skew <= 31 * S; skew += 31 * S)
    {
      WfReportReplay *r = wf_report_replay_new (0, 0);
      gint64 t_sent = T0 + skew; /* host clock ahead or behind */
      gint64 now;

      g_assert_cmpint (check (r, HOST, B1, 1, t_sent, T0), ==, WF_REPORT_OK);
      for (now = T0; wf_report_replay_n_hosts (r) > 0; now += S / 10)
        wf_report_replay_expire (r, now);
      g_assert_cmpint (check (r, HOST, B1, 1, t_sent, now), ==, WF_REPORT_REJECT_STALE);
      wf_report_replay_free (r);
    }
}

static void
test_reject_names (void)
{
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (int i = 0; i < WF_REPORT_REJECT_N; i++)
    {
      const char *n = wf_report_reject_to_string (i);

      g_assert_nonnull (n);
      g_assert_false (g_hash_table_contains (seen, n));
      g_hash_table_add (seen, (gpointer) n);
    }
  g_assert_cmpstr (wf_report_reject_to_string (WF_REPORT_REJECT_N), ==, "unknown");
  g_hash_table_unref (seen);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/report/hostid/stable", test_hostid);
  g_test_add_func ("/report/hostid/systemd", test_hostid_systemd);
  g_test_add_func ("/report/seal/round-trip", test_seal_round_trip);
  g_test_add_func ("/report/seal/hostname", test_seal_hostname);
  g_test_add_func ("/report/seal/size-limit", test_seal_size_limit);
  g_test_add_func ("/report/seal/over-capacity", test_seal_over_capacity);
  g_test_add_func ("/report/seal/oversized-body-kept", test_seal_oversized_body_kept);
  g_test_add_func ("/report/seal/exponent", test_seal_exponent);
  g_test_add_func ("/report/hmac/good", test_hmac_good);
  g_test_add_func ("/report/hmac/rfc4231", test_hmac_rfc4231);
  g_test_add_func ("/report/hmac/doc-example", test_hmac_doc_example);
  g_test_add_func ("/report/hmac/bad", test_hmac_bad);
  g_test_add_func ("/report/hmac/missing", test_hmac_missing);
  g_test_add_func ("/report/hmac/key-file", test_hmac_key_file);
  g_test_add_func ("/report/parse/truncated", test_parse_truncated);
  g_test_add_func ("/report/parse/oversized", test_parse_oversized);
  g_test_add_func ("/report/parse/version", test_parse_version);
  g_test_add_func ("/report/parse/utf8", test_parse_utf8);
  g_test_add_func ("/report/parse/not-object", test_parse_not_object);
  g_test_add_func ("/report/parse/depth", test_parse_depth);
  g_test_add_func ("/report/parse/grammar", test_parse_grammar);
  g_test_add_func ("/report/parse/absurd", test_parse_absurd);
  g_test_add_func ("/report/parse/goodput", test_parse_goodput);
  g_test_add_func ("/report/parse/reject-names", test_reject_names);
  g_test_add_func ("/report/replay/sequence", test_replay_sequence);
  g_test_add_func ("/report/replay/new-boot", test_replay_new_boot);
  g_test_add_func ("/report/replay/freshness", test_replay_freshness);
  g_test_add_func ("/report/replay/bounded", test_replay_bounded);
  g_test_add_func ("/report/replay/expiry-safe", test_replay_expiry_safe);
  return g_test_run ();
}
