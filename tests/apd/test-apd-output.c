/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-apd's outputs of one round: the status file (read back with
 * json-glib, member by member, as `wlanfairctl ap` reads it) and the
 * Prometheus textfile (every sample declared, counters named _total,
 * no series twice, bounded labels). */
#include <arpa/inet.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wlanfair-apd-output.h"

typedef struct {
  WfApdConfig    config;
  WfApdStation   sta[2];
  WfApdDecision  dec[2];
  WfApdApplied   applied[2];
  WfApdCounters  counters[2];
  WfApdRound     round;
  guint64        rejected[WF_REPORT_REJECT_N];
  WfApdView      view;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  WfApdStation *near = &f->sta[0], *far = &f->sta[1];

  memset (f, 0, sizeof *f);
  wf_apd_config_init (&f->config);
  g_assert_true (wf_apd_config_set (&f->config, "interface", "wlan0", NULL));
  g_assert_true (wf_apd_config_check (&f->config, NULL));

  g_strlcpy (near->mac_str, "02:00:00:00:01:00", sizeof near->mac_str);
  near->n_addrs = 2;
  near->addrs[0].family = AF_INET;
  inet_pton (AF_INET, "10.77.0.11", near->addrs[0].addr);
  near->addrs[1].family = AF_INET6;
  inet_pton (AF_INET6, "fd77::11", near->addrs[1].addr);
  g_strlcpy (near->hostname, "near-laptop", sizeof near->hostname);
  near->has_signal = TRUE;
  near->signal_dbm = -42;
  near->has_tx_bitrate = TRUE;
  near->tx_bitrate_kbps = 54000;
  near->tx_mcs = 7;
  near->ap_down_bps = 4.8e6;
  near->reporting = near->trusted = TRUE;
  near->report_path = WF_APD_PATH_CARRIED;
  near->rep_down_bps = 4.75e6;
  near->has_rtt = TRUE;
  near->rtt_s = 0.012;
  near->weight = 1;
  near->down_bps = 4.75e6;

  g_strlcpy (far->mac_str, "02:00:00:00:02:00", sizeof far->mac_str);
  far->ap_down_bps = 5e6;
  far->weight = 2;
  far->down_bps = 5e6;

  f->dec[0] = (WfApdDecision) { .counted = TRUE, .share_bps = 4.9e6,
                                .setting = { .limited = TRUE, .rate_down_bps = 5.145e6 },
                                .why = "held at its share" };
  f->dec[1] = (WfApdDecision) { .counted = TRUE, .share_bps = 4.9e6, .why = "below its share" };
  f->applied[0].setting = f->dec[0].setting;
  f->counters[0].goodput_down_bytes = 1.5e9;
  f->counters[1].goodput_up_bytes = 12345;
  f->round = (WfApdRound) { .n_counted = 2, .jain = 0.991, .total_bps = 9.75e6,
                            .bound_bps = 1.01e7, .tradeoff = 0.93, .saturated = TRUE };
  f->rejected[WF_REPORT_REJECT_BAD_MAC] = 2;
  f->view = (WfApdView) {
    .config = &f->config, .time_us = 1764052800000000, .started_us = 1764052700000000,
    .mode = WF_APD_MODE_CONTROL, .mode_reason = "reports signed with the configured key",
    .rounds = 100, .round = &f->round, .n_stations = 3, .stations = f->sta,
    .decisions = f->dec, .applied = f->applied, .counters = f->counters, .n_snap = 2,
    .accepted = 180, .rejected = f->rejected, .untrusted = 1, .unmatched = 4,
    .accepted_by = { 120, 60 }, .carried_on = TRUE,
    .carried_note = "on (UDP to port 7455 crossing wlan0 or its bridge ports)",
    .carried_local = 3, .carried_fragments = 1,
  };
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  wf_apd_config_clear (&f->config);
}

static JsonObject *
parse_status (Fixture *f, JsonParser *p)
{
  g_autofree char *text = wf_apd_output_status (&f->view);
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (p, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (p));
}

static void
test_status (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonParser) p = json_parser_new ();
  JsonObject *o = parse_status (f, p), *r, *s0, *s1, *set;
  JsonArray *stations, *addrs;

  g_assert_cmpint (json_object_get_int_member (o, "version"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "interface"), ==, "wlan0");
  g_assert_cmpstr (json_object_get_string_member (o, "stations_from"), ==, "nl80211");
  g_assert_cmpstr (json_object_get_string_member (o, "controller"), ==, "share");
  g_assert_cmpstr (json_object_get_string_member (o, "actuator"), ==, "rate");
  g_assert_cmpstr (json_object_get_string_member (o, "mode"), ==, "control");
  g_assert_cmpint (json_object_get_int_member (o, "rounds"), ==, 100);
  g_assert_cmpint (json_object_get_int_member (o, "time_us"), ==, 1764052800000000);

  r = json_object_get_object_member (o, "round");
  g_assert_cmpint (json_object_get_int_member (r, "stations"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (r, "counted"), ==, 2);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (r, "jain"), 0.991, 1e-9);
  g_assert_true (json_object_get_boolean_member (r, "saturated"));

  r = json_object_get_object_member (o, "reports");
  g_assert_cmpint (json_object_get_int_member (r, "accepted"), ==, 180);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (r, "rejected"),
                                               "bad-mac"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (r, "rejected"),
                                               "replay"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (r, "unmatched"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (r, "accepted_by_path"),
                                               "addressed"), ==, 120);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (r, "accepted_by_path"),
                                               "carried"), ==, 60);
  r = json_object_get_object_member (r, "carried");
  g_assert_true (json_object_get_boolean_member (r, "enabled"));
  g_assert_cmpint (json_object_get_int_member (r, "addressed_here"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (r, "fragments"), ==, 1);

  stations = json_object_get_array_member (o, "stations");
  g_assert_cmpuint (json_array_get_length (stations), ==, 2);
  s0 = json_array_get_object_element (stations, 0);
  g_assert_cmpstr (json_object_get_string_member (s0, "mac"), ==, "02:00:00:00:01:00");
  addrs = json_object_get_array_member (s0, "addresses");
  g_assert_cmpstr (json_array_get_string_element (addrs, 0), ==, "10.77.0.11");
  g_assert_cmpstr (json_array_get_string_element (addrs, 1), ==, "fd77::11");
  g_assert_cmpstr (json_object_get_string_member (s0, "hostname"), ==, "near-laptop");
  g_assert_cmpstr (json_object_get_string_member (s0, "report_path"), ==, "carried");
  g_assert_cmpint (json_object_get_int_member (s0, "signal_dbm"), ==, -42);
  g_assert_cmpint (json_object_get_int_member (s0, "tx_bitrate_bps"), ==, 54000000);
  g_assert_cmpint (json_object_get_int_member (s0, "tx_mcs"), ==, 7);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s0, "report_down_bps"), 4.75e6, 1);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s0, "rtt_s"), 0.012, 1e-9);
  set = json_object_get_object_member (s0, "setting");
  g_assert_true (json_object_get_boolean_member (set, "limited"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (set, "rate_down_bps"), 5.145e6, 1);
  g_assert_cmpstr (json_object_get_string_member (s0, "why"), ==, "held at its share");

  /* What the AP does not know is absent, never a made-up 0. */
  s1 = json_array_get_object_element (stations, 1);
  g_assert_false (json_object_has_member (s1, "signal_dbm"));
  g_assert_false (json_object_has_member (s1, "tx_bitrate_bps"));
  g_assert_false (json_object_has_member (s1, "report_down_bps"));
  g_assert_false (json_object_get_boolean_member (s1, "reporting"));
  g_assert_cmpfloat (json_object_get_double_member (s1, "weight"), ==, 2.0);
  set = json_object_get_object_member (s1, "setting");
  g_assert_false (json_object_get_boolean_member (set, "limited"));
  g_assert_false (json_object_has_member (set, "rate_down_bps"));
}

/* The setting's members follow the actuator's knob. */
static void
test_status_knobs (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonParser) p = json_parser_new ();
  JsonObject *set;

  f->config.control.knob = WF_ACTUATOR_KNOB_DELAY;
  f->applied[0].setting = (WfActuatorSetting) { .limited = TRUE, .delay_us = 12500 };
  set = json_object_get_object_member (
    json_array_get_object_element (json_object_get_array_member (parse_status (f, p), "stations"), 0),
    "setting");
  g_assert_cmpint (json_object_get_int_member (set, "delay_us"), ==, 12500);
  g_assert_false (json_object_has_member (set, "rate_down_bps"));

  f->config.control.knob = WF_ACTUATOR_KNOB_WEIGHT;
  f->applied[0].setting = (WfActuatorSetting) { .limited = TRUE, .weight = 512 };
  set = json_object_get_object_member (
    json_array_get_object_element (json_object_get_array_member (parse_status (f, p), "stations"), 0),
    "setting");
  g_assert_cmpint (json_object_get_int_member (set, "weight"), ==, 512);
}

/* The text exposition format's rules that promtool checks, here without
 * promtool: each sample's family declared (HELP, TYPE) before it, counters
 * end in _total, a series once, base units. */
static void
check_exposition (const char *text, GHashTable *values)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GHashTable) types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) helped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (char **l = lines; *l; l++)
    {
      g_auto(GStrv) w = NULL;
      g_autofree char *name = NULL;
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
          g_assert_true (g_str_equal (w[1], "gauge") || g_str_equal (w[1], "counter"));
          g_assert_true (g_str_has_suffix (w[0], "_total") == g_str_equal (w[1], "counter"));
          g_hash_table_insert (types, g_strdup (w[0]), g_strdup (w[1]));
          continue;
        }
      sp = strrchr (*l, ' ');
      g_assert_nonnull (sp);
      name = g_strndup (*l, strcspn (*l, "{ "));
      type = g_hash_table_lookup (types, name);
      g_assert_nonnull (type);
      g_assert_true (g_str_has_prefix (name, "wlanfair_ap_"));
      g_assert_null (strstr (name, "bits"));
      g_assert_false (g_hash_table_contains (series, *l));
      g_hash_table_add (series, g_strndup (*l, (gsize) (sp - *l)));
      g_hash_table_insert (values, g_strndup (*l, (gsize) (sp - *l)), g_strdup (sp + 1));
    }
}

/* promtool's own lint, where Debian's prometheus package is installed. */
static void
promtool_check (const char *text)
{
  g_autofree char *promtool = g_find_program_in_path ("promtool");
  g_autofree char *path = NULL, *out = NULL, *err = NULL, *cmd = NULL;
  g_autoptr(GError) error = NULL;
  int fd, status;

  if (!promtool)
    {
      g_test_message ("no promtool: its check skipped");
      return;
    }
  fd = g_file_open_tmp ("wf-apd-XXXXXX.prom", &path, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  close (fd);
  cmd = g_strdup_printf ("sh -c '%s check metrics < %s'", promtool, path);
  g_assert_true (g_spawn_command_line_sync (cmd, &out, &err, &status, &error));
  g_unlink (path);
  if (!g_spawn_check_wait_status (status, NULL) || *out || *err)
    g_error ("promtool check metrics: %s%s", out, err);
  g_test_message ("%s check metrics: no finding", promtool);
}

static void
test_prometheus (Fixture *f, gconstpointer data)
{
  g_autofree char *text = wf_apd_output_prometheus (&f->view);
  g_autoptr(GHashTable) v = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_test_message ("%s", text);
  check_exposition (text, v);
  promtool_check (text);
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_mode{mode=\"control\"}"), ==, "1");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_mode{mode=\"fail-open\"}"), ==, "0");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_jain_index"), ==, "0.99099999999999999");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_stations"), ==, "3");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_reports_rejected_total{reason=\"bad-mac\"}"), ==, "2");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_reports_accepted_total{path=\"addressed\"}"), ==, "120");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_reports_accepted_total{path=\"carried\"}"), ==, "60");
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_carried_reports_enabled"), ==, "1");
  g_assert_cmpstr (g_hash_table_lookup (v,
    "wlanfair_ap_station_report_path{station=\"02:00:00:00:01:00\",path=\"carried\"}"), ==, "1");
  g_assert_cmpstr (g_hash_table_lookup (v,
    "wlanfair_ap_station_report_path{station=\"02:00:00:00:01:00\",path=\"addressed\"}"), ==, "0");
  /* A station without a fresh report has no path. */
  g_assert_null (g_hash_table_lookup (v,
    "wlanfair_ap_station_report_path{station=\"02:00:00:00:02:00\",path=\"carried\"}"));
  g_assert_cmpstr (g_hash_table_lookup (v,
    "wlanfair_ap_station_goodput_bytes_total{station=\"02:00:00:00:01:00\",direction=\"down\"}"),
    ==, "1500000000");
  /* Bytes per second, not bits. */
  g_assert_cmpstr (g_hash_table_lookup (v,
    "wlanfair_ap_station_rate_limit_bytes_per_second{station=\"02:00:00:00:01:00\",direction=\"down\"}"),
    ==, "643125");
  g_assert_null (g_hash_table_lookup (v,
    "wlanfair_ap_station_rate_limit_bytes_per_second{station=\"02:00:00:00:02:00\",direction=\"down\"}"));
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_station_signal_dbm{station=\"02:00:00:00:01:00\"}"),
                   ==, "-42");
  g_assert_null (g_hash_table_lookup (v, "wlanfair_ap_station_signal_dbm{station=\"02:00:00:00:02:00\"}"));
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_station_limited{station=\"02:00:00:00:02:00\"}"),
                   ==, "0");

  /* The delay actuator's gauge instead of the rate's. */
  f->config.control.knob = WF_ACTUATOR_KNOB_DELAY;
  f->applied[0].setting = (WfActuatorSetting) { .limited = TRUE, .delay_us = 12500 };
  g_hash_table_remove_all (v);
  g_free (text);
  text = wf_apd_output_prometheus (&f->view);
  check_exposition (text, v);
  promtool_check (text);
  g_assert_cmpstr (g_hash_table_lookup (v, "wlanfair_ap_station_delay_seconds{station=\"02:00:00:00:01:00\"}"),
                   ==, "0.012500000000000001");
  g_assert_null (strstr (text, "rate_limit"));
}

/* rwnd's status object: copied into the status file as it is; two
 * gauges of connections in the textfile. */
static void
test_actuator_status (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonParser) p = json_parser_new ();
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *prom = NULL;
  JsonObject *o, *a;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "rwnd_policy");
  json_builder_add_string_value (b, "rtt-fair");
  json_builder_set_member_name (b, "flows_held");
  json_builder_add_int_value (b, 3);
  json_builder_set_member_name (b, "flows_untouched");
  json_builder_add_int_value (b, 1);
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  f->view.actuator_status = node;
  o = parse_status (f, p);
  a = json_object_get_object_member (o, "actuator_status");
  g_assert_nonnull (a);
  g_assert_cmpstr (json_object_get_string_member (a, "rwnd_policy"), ==, "rtt-fair");
  g_assert_cmpint (json_object_get_int_member (a, "flows_held"), ==, 3);
  prom = wf_apd_output_prometheus (&f->view);
  g_assert_nonnull (strstr (prom, "wlanfair_ap_rwnd_flows{state=\"held\"} 3\n"));
  g_assert_nonnull (strstr (prom, "wlanfair_ap_rwnd_flows{state=\"untouched\"} 1\n"));
  /* None: neither. */
  f->view.actuator_status = NULL;
  g_clear_object (&p);
  p = json_parser_new ();
  o = parse_status (f, p);
  g_assert_false (json_object_has_member (o, "actuator_status"));
  g_free (prom);
  prom = wf_apd_output_prometheus (&f->view);
  g_assert_null (strstr (prom, "wlanfair_ap_rwnd_flows"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/apd/output/status", Fixture, NULL, fixture_set_up, test_status, fixture_tear_down);
  g_test_add ("/apd/output/actuator-status", Fixture, NULL, fixture_set_up, test_actuator_status,
              fixture_tear_down);
  g_test_add ("/apd/output/status-knobs", Fixture, NULL, fixture_set_up, test_status_knobs,
              fixture_tear_down);
  g_test_add ("/apd/output/prometheus", Fixture, NULL, fixture_set_up, test_prometheus,
              fixture_tear_down);
  return g_test_run ();
}
