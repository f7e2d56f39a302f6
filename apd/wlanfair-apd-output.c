/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-output.h"

#include <arpa/inet.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wlanfair-file.h"
#include "wlanfair-prometheus.h"
#include "wlanfair-ratelimit.h"
#include "wlanfair-textfile.h"

static const char *
objective_name (WfApdObjective o)
{
  return o == WF_APD_OBJECTIVE_AIRTIME ? "airtime" : "throughput";
}

static const char *
directions_name (WfApdDir d)
{
  return d == WF_APD_DIR_BOTH ? "both" : d == WF_APD_DIR_DOWN ? "down" : "up";
}

static void
add_setting (JsonBuilder *b, WfActuatorKnob knob, const WfActuatorSetting *s)
{
  json_builder_set_member_name (b, "setting");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "limited");
  json_builder_add_boolean_value (b, s->limited);
  if (s->limited)
    switch (knob)
      {
      case WF_ACTUATOR_KNOB_RATE:
        json_builder_set_member_name (b, "rate_down_bps");
        json_builder_add_double_value (b, s->rate_down_bps);
        json_builder_set_member_name (b, "rate_up_bps");
        json_builder_add_double_value (b, s->rate_up_bps);
        break;
      case WF_ACTUATOR_KNOB_DELAY:
        json_builder_set_member_name (b, "delay_us");
        json_builder_add_int_value (b, s->delay_us);
        break;
      case WF_ACTUATOR_KNOB_WEIGHT:
        json_builder_set_member_name (b, "weight");
        json_builder_add_int_value (b, s->weight);
        break;
      }
  json_builder_end_object (b);
}

static void
member_double (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, isfinite (v) ? v : 0);
}

static void
member_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static void
member_bool (JsonBuilder *b, const char *name, gboolean v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, v);
}

static void
member_string (JsonBuilder *b, const char *name, const char *v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, v ? v : "");
}

static void
add_station (JsonBuilder *b, const WfApdView *v, guint i)
{
  const WfApdStation *s = &v->stations[i];
  const WfApdDecision *d = &v->decisions[i];

  json_builder_begin_object (b);
  member_string (b, "mac", s->mac_str);
  json_builder_set_member_name (b, "addresses");
  json_builder_begin_array (b);
  for (guint a = 0; a < s->n_addrs; a++)
    {
      char text[INET6_ADDRSTRLEN];
      if (inet_ntop (s->addrs[a].family, s->addrs[a].addr, text, sizeof text))
        json_builder_add_string_value (b, text);
    }
  json_builder_end_array (b);
  member_string (b, "hostname", s->hostname);
  if (s->has_signal)
    member_int (b, "signal_dbm", s->signal_dbm);
  if (s->has_tx_bitrate)
    {
      member_int (b, "tx_bitrate_bps", (gint64) s->tx_bitrate_kbps * 1000);
      member_int (b, "tx_mcs", s->tx_mcs);
    }
  if (s->has_rx_bitrate)
    member_int (b, "rx_bitrate_bps", (gint64) s->rx_bitrate_kbps * 1000);
  member_double (b, "ap_down_bps", s->ap_down_bps);
  member_double (b, "ap_up_bps", s->ap_up_bps);
  member_bool (b, "reporting", s->reporting);
  member_bool (b, "trusted", s->trusted);
  if (s->reporting)
    {
      member_string (b, "report_path", wf_apd_path_name (s->report_path));
      member_double (b, "report_down_bps", s->rep_down_bps);
      member_double (b, "report_up_bps", s->rep_up_bps);
      if (s->has_rtt)
        member_double (b, "rtt_s", s->rtt_s);
      member_bool (b, "app_limited", s->app_limited);
      member_bool (b, "wants_more", s->wants_more);
    }
  member_bool (b, "waits_at_ap", s->waits_at_ap);
  member_double (b, "weight", s->weight);
  member_bool (b, "counted", d->counted);
  member_bool (b, "satisfied", d->satisfied);
  member_double (b, "share_bps", d->share_bps);
  add_setting (b, v->config->control.knob, &v->applied[i].setting);
  member_string (b, "why", d->why ? d->why : "");
  json_builder_end_object (b);
}

char *
wf_apd_output_status (const WfApdView *v)
{
  const WfApdConfig *c = v->config;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  member_int (b, "version", WF_APD_STATUS_VERSION);
  member_int (b, "pid", getpid ());
  member_int (b, "time_us", v->time_us);
  member_int (b, "started_us", v->started_us);
  member_string (b, "interface", c->interface);
  member_string (b, "stations_from",
                 c->source == WF_APD_SOURCE_NL80211 ? "nl80211" : "bridge-ports");
  member_string (b, "controller", c->controller);
  member_string (b, "actuator", c->actuator);
  member_string (b, "objective", objective_name (c->control.objective));
  member_string (b, "directions", directions_name (c->control.directions));
  member_string (b, "mode", wf_apd_mode_name (v->mode));
  member_string (b, "mode_reason", v->mode_reason);
  member_double (b, "period_s", c->control.period_s);
  member_int (b, "rounds", (gint64) v->rounds);

  json_builder_set_member_name (b, "round");
  json_builder_begin_object (b);
  member_int (b, "stations", v->n_stations);
  member_int (b, "counted", v->round->n_counted);
  member_double (b, "jain", v->round->jain);
  member_double (b, "total_bps", v->round->total_bps);
  member_double (b, "bound_bps", v->round->bound_bps);
  member_double (b, "capacity_bps", v->round->capacity_bps);
  member_double (b, "tradeoff", v->round->tradeoff);
  member_double (b, "level_bps", v->round->level_bps);
  member_bool (b, "saturated", v->round->saturated);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "reports");
  json_builder_begin_object (b);
  member_int (b, "accepted", (gint64) v->accepted);
  json_builder_set_member_name (b, "accepted_by_path");
  json_builder_begin_object (b);
  for (int p = 0; p < WF_APD_PATH_N; p++)
    member_int (b, wf_apd_path_name (p), (gint64) v->accepted_by[p]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "carried");
  json_builder_begin_object (b);
  member_bool (b, "enabled", v->carried_on);
  member_string (b, "note", v->carried_note);
  member_int (b, "addressed_here", (gint64) v->carried_local);
  member_int (b, "fragments", (gint64) v->carried_fragments);
  member_int (b, "malformed", (gint64) v->carried_malformed);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "rejected");
  json_builder_begin_object (b);
  for (int r = 1; r < WF_REPORT_REJECT_N; r++)
    member_int (b, wf_report_reject_to_string (r), (gint64) v->rejected[r]);
  json_builder_end_object (b);
  member_int (b, "untrusted", (gint64) v->untrusted);
  member_int (b, "unmatched", (gint64) v->unmatched);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "stations");
  json_builder_begin_array (b);
  for (guint i = 0; i < v->n_snap; i++)
    add_station (b, v, i);
  json_builder_end_array (b);
  if (v->ack_priority_on)
    {
      json_builder_set_member_name (b, "ack_priority");
      json_builder_begin_object (b);
      member_int (b, "marked_packets", (gint64) v->ack_priority_packets);
      member_int (b, "marked_bytes", (gint64) v->ack_priority_bytes);
      member_int (b, "kept_packets", (gint64) v->ack_priority_kept);
      json_builder_end_object (b);
    }
  /* What the actuator holds beyond the settings (rwnd: its flows). */
  if (v->actuator_status)
    {
      json_builder_set_member_name (b, "actuator_status");
      json_builder_add_value (b, json_node_copy (v->actuator_status));
    }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

/* ---- Prometheus ------------------------------------------------------ */

static void
sample (GString *out, const char *name, const char *labels, double value)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (num, sizeof num, "%.17g", isfinite (value) ? value : 0);
  g_string_append_printf (out, "%s%s%s%s %s\n", name, labels[0] ? "{" : "", labels,
                          labels[0] ? "}" : "", num);
}

static char *
mac_label (const char *mac, const char *extra)
{
  return g_strdup_printf ("station=\"%s\"%s%s", mac, extra ? "," : "", extra ? extra : "");
}

char *
wf_apd_output_prometheus (const WfApdView *v)
{
  const WfApdConfig *c = v->config;
  const WfApdRound *r = v->round;
  GString *out = g_string_new (NULL);
  static const WfApdMode modes[] = { WF_APD_MODE_CONTROL, WF_APD_MODE_OBSERVE,
                                     WF_APD_MODE_FAIL_OPEN };
  GString *info = g_string_new (NULL);

  wf_textfile_family (out, "wlanfair_ap_info", "gauge",
                      "The controller's configuration (1; the labels say it).");
  g_string_append (info, "interface=\"");
  wf_textfile_label_value (info, c->interface);
  g_string_append_printf (info, "\",controller=\"%s\",actuator=\"%s\",objective=\"%s\"",
                          c->controller, c->actuator, objective_name (c->control.objective));
  sample (out, "wlanfair_ap_info", info->str, 1);
  g_string_free (info, TRUE);

  wf_textfile_family (out, "wlanfair_ap_mode", "gauge",
                      "1 for the mode the controller is in (control, observe, fail-open), 0 for the others.");
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *l = g_strdup_printf ("mode=\"%s\"", wf_apd_mode_name (modes[i]));
      sample (out, "wlanfair_ap_mode", l, v->mode == modes[i]);
    }
  wf_textfile_family (out, "wlanfair_ap_rounds_total", "counter", "Control rounds run.");
  sample (out, "wlanfair_ap_rounds_total", "", (double) v->rounds);
  wf_textfile_family (out, "wlanfair_ap_stations", "gauge", "Stations associated with the AP.");
  sample (out, "wlanfair_ap_stations", "", v->n_stations);
  wf_textfile_family (out, "wlanfair_ap_stations_with_demand", "gauge",
                      "Stations with demand (above the idle rate, or waiting for more), among which fairness is measured.");
  sample (out, "wlanfair_ap_stations_with_demand", "", r->n_counted);
  wf_textfile_family (out, "wlanfair_ap_jain_index", "gauge",
                      "Jain's fairness index of the stations with demand (per unit of weight).");
  sample (out, "wlanfair_ap_jain_index", "", r->jain);
  wf_textfile_family (out, "wlanfair_ap_tradeoff_index", "gauge",
                      "Utilisation-aware trade-off index against the estimated capacity (0: unknown).");
  sample (out, "wlanfair_ap_tradeoff_index", "", r->tradeoff);
  wf_textfile_family (out, "wlanfair_ap_reports_accepted_total", "counter",
                      "Station reports that passed every check, by path (addressed: to this host; "
                      "carried: read in transit to another gateway).");
  for (int p = 0; p < WF_APD_PATH_N; p++)
    {
      g_autofree char *l = g_strdup_printf ("path=\"%s\"", wf_apd_path_name (p));
      sample (out, "wlanfair_ap_reports_accepted_total", l, (double) v->accepted_by[p]);
    }
  wf_textfile_family (out, "wlanfair_ap_carried_reports_enabled", "gauge",
                      "1 when reports carried in transit are read (carried-reports=, CAP_NET_RAW).");
  sample (out, "wlanfair_ap_carried_reports_enabled", "", v->carried_on);
  wf_textfile_family (out, "wlanfair_ap_reports_rejected_total", "counter",
                      "Station reports dropped, by reason.");
  for (int i = 1; i < WF_REPORT_REJECT_N; i++)
    {
      g_autofree char *l = g_strdup_printf ("reason=\"%s\"", wf_report_reject_to_string (i));
      sample (out, "wlanfair_ap_reports_rejected_total", l, (double) v->rejected[i]);
    }
  wf_textfile_family (out, "wlanfair_ap_reports_untrusted_total", "counter",
                      "Rounds in which a station's report claimed more than the AP carried.");
  sample (out, "wlanfair_ap_reports_untrusted_total", "", (double) v->untrusted);

  if (v->ack_priority_on)
    {
      wf_textfile_family (out, "wlanfair_ap_ack_priority_packets_total", "counter",
                          "TCP segments without payload (and SYNs) sent to the stations as CS6 "
                          "(ack-priority=yes).");
      sample (out, "wlanfair_ap_ack_priority_packets_total", "", (double) v->ack_priority_packets);
      wf_textfile_family (out, "wlanfair_ap_ack_priority_bytes_total", "counter",
                          "Frame bytes of those segments.");
      sample (out, "wlanfair_ap_ack_priority_bytes_total", "", (double) v->ack_priority_bytes);
    }

  /* rwnd's connections: two series whatever the number of flows (no
   * label per flow: bounded). */
  if (v->actuator_status && JSON_NODE_HOLDS_OBJECT (v->actuator_status) &&
      json_object_has_member (json_node_get_object (v->actuator_status), "flows_held"))
    {
      JsonObject *a = json_node_get_object (v->actuator_status);

      wf_textfile_family (out, "wlanfair_ap_rwnd_flows", "gauge",
                          "TCP connections the rwnd actuator sees: held back (a target window) "
                          "or left alone (handshake not seen).");
      sample (out, "wlanfair_ap_rwnd_flows", "state=\"held\"",
              (double) json_object_get_int_member (a, "flows_held"));
      sample (out, "wlanfair_ap_rwnd_flows", "state=\"untouched\"",
              (double) json_object_get_int_member (a, "flows_untouched"));
    }

  wf_textfile_family (out, "wlanfair_ap_station_goodput_bytes_total", "counter",
                      "Goodput the controller counted for the station, by direction (down: AP to station).");
  for (guint i = 0; i < v->n_snap; i++)
    {
      g_autofree char *dn = mac_label (v->stations[i].mac_str, "direction=\"down\"");
      g_autofree char *up = mac_label (v->stations[i].mac_str, "direction=\"up\"");
      sample (out, "wlanfair_ap_station_goodput_bytes_total", dn, v->counters[i].goodput_down_bytes);
      sample (out, "wlanfair_ap_station_goodput_bytes_total", up, v->counters[i].goodput_up_bytes);
    }
  wf_textfile_family (out, "wlanfair_ap_station_signal_dbm", "gauge", "Signal of the station as the AP hears it.");
  for (guint i = 0; i < v->n_snap; i++)
    if (v->stations[i].has_signal)
      {
        g_autofree char *l = mac_label (v->stations[i].mac_str, NULL);
        sample (out, "wlanfair_ap_station_signal_dbm", l, v->stations[i].signal_dbm);
      }
  wf_textfile_family (out, "wlanfair_ap_station_reporting", "gauge",
                      "1 when a fresh report of the station's host is in, and it agrees with the AP.");
  for (guint i = 0; i < v->n_snap; i++)
    {
      g_autofree char *l = mac_label (v->stations[i].mac_str, NULL);
      sample (out, "wlanfair_ap_station_reporting", l,
              v->stations[i].reporting && v->stations[i].trusted);
    }
  wf_textfile_family (out, "wlanfair_ap_station_report_path", "gauge",
                      "1 for the path by which the station's latest fresh report arrived.");
  for (guint i = 0; i < v->n_snap; i++)
    if (v->stations[i].reporting)
      for (int p = 0; p < WF_APD_PATH_N; p++)
        {
          g_autofree char *pl = g_strdup_printf ("path=\"%s\"", wf_apd_path_name (p));
          g_autofree char *l = mac_label (v->stations[i].mac_str, pl);
          sample (out, "wlanfair_ap_station_report_path", l, v->stations[i].report_path == (WfApdPath) p);
        }
  wf_textfile_family (out, "wlanfair_ap_station_limited", "gauge",
                      "1 when the actuator holds the station back now.");
  for (guint i = 0; i < v->n_snap; i++)
    {
      g_autofree char *l = mac_label (v->stations[i].mac_str, NULL);
      sample (out, "wlanfair_ap_station_limited", l, v->applied[i].setting.limited);
    }
  if (c->control.knob == WF_ACTUATOR_KNOB_RATE)
    {
      wf_textfile_family (out, "wlanfair_ap_station_rate_limit_bytes_per_second", "gauge",
                          "The rate cap the actuator holds, by direction (absent: none).");
      for (guint i = 0; i < v->n_snap; i++)
        {
          const WfActuatorSetting *s = &v->applied[i].setting;
          if (!s->limited)
            continue;
          if (s->rate_down_bps > 0)
            {
              g_autofree char *l = mac_label (v->stations[i].mac_str, "direction=\"down\"");
              sample (out, "wlanfair_ap_station_rate_limit_bytes_per_second", l, s->rate_down_bps / 8);
            }
          if (s->rate_up_bps > 0)
            {
              g_autofree char *l = mac_label (v->stations[i].mac_str, "direction=\"up\"");
              sample (out, "wlanfair_ap_station_rate_limit_bytes_per_second", l, s->rate_up_bps / 8);
            }
        }
    }
  else if (c->control.knob == WF_ACTUATOR_KNOB_DELAY)
    {
      wf_textfile_family (out, "wlanfair_ap_station_delay_seconds", "gauge",
                          "The delay the actuator adds to the AP's frames to the station.");
      for (guint i = 0; i < v->n_snap; i++)
        {
          g_autofree char *l = mac_label (v->stations[i].mac_str, NULL);
          const WfActuatorSetting *s = &v->applied[i].setting;
          sample (out, "wlanfair_ap_station_delay_seconds", l, s->limited ? s->delay_us / 1e6 : 0);
        }
    }
  else
    {
      wf_textfile_family (out, "wlanfair_ap_station_airtime_weight", "gauge",
                          "The airtime weight the actuator set (absent: the station's own).");
      for (guint i = 0; i < v->n_snap; i++)
        if (v->applied[i].setting.limited)
          {
            g_autofree char *l = mac_label (v->stations[i].mac_str, NULL);
            sample (out, "wlanfair_ap_station_airtime_weight", l, v->applied[i].setting.weight);
          }
    }
  return g_string_free (out, FALSE);
}

/* The files: where they go, written each round, removed at the stop. */

struct _WfApdOutputs {
  char    *status_path;   /* "": none */
  char    *textfile_dir;  /* NULL: none */
  WfRatelimit *once;      /* a failing write said once until one works */
};

/* Where the textfile goes: the configured directory, or node_exporter's
 * where it exists; NULL for none. */
static char *
textfile_dir (const WfApdConfig *config)
{
  gboolean is_default;
  const char *dir = wf_textfile_dir (config->textfile_dir_explicit
                                     ? (config->textfile_dir ? config->textfile_dir : "") : NULL,
                                     &is_default);

  return wf_textfile_dir_in_use (dir, is_default) ? g_strdup (dir) : NULL;
}

/* A default path (RuntimeDirectory=) whose directory is not there yet:
 * made at start, so --check has nothing to test. */
static gboolean
own_dir_pending (const char *path, const char *default_path, gboolean make)
{
  g_autofree char *dir = g_path_get_dirname (default_path);

  return !make && g_str_equal (path, default_path) && !g_file_test (dir, G_FILE_TEST_EXISTS);
}

gboolean
wf_apd_outputs_check (const WfApdConfig *config, gboolean make, GError **error)
{
  g_autofree char *sdir = g_path_get_dirname (WF_APD_DEFAULT_STATUS);

  /* The defaults' directory is ours; made on a run by hand, for every
   * user (wlanfairctl ap), before the state file's code would make it
   * 0700. Any other directory must exist (wlanfair-file.h). */
  if (make && (g_str_equal (config->status_path, WF_APD_DEFAULT_STATUS) ||
               g_str_equal (config->state_path, WF_APD_STATE_DEFAULT)) &&
      !wf_file_make_own_dir (sdir, 0755, error))
    return FALSE;
  if (config->status_path[0] &&
      !own_dir_pending (config->status_path, WF_APD_DEFAULT_STATUS, make) &&
      !wf_file_check (config->status_path, error))
    return FALSE;
  if (!own_dir_pending (config->state_path, WF_APD_STATE_DEFAULT, make) &&
      !wf_file_check (config->state_path, error))
    return FALSE;
  /* The default textfile directory is used while it exists; a named one
   * must work from the start. */
  if (config->textfile_dir_explicit && config->textfile_dir && config->textfile_dir[0] &&
      !wf_textfile_check (config->textfile_dir, WF_APD_PROM_FILE, error))
    return FALSE;
  return TRUE;
}

void
wf_apd_outputs_remove (const WfApdConfig *config)
{
  g_autofree char *dir = textfile_dir (config);

  g_autoptr(GError) error = NULL;

  /* Regular files alone: status=/dev/null must not lose the device. */
  if (config->status_path[0] && !wf_file_remove (config->status_path, &error))
    g_debug ("%s", error->message);
  g_clear_error (&error);
  if (dir)
    {
      g_autofree char *prom = g_build_filename (dir, WF_APD_PROM_FILE, NULL);

      if (!wf_file_remove (prom, &error))
        g_debug ("%s", error->message);
    }
}

WfApdOutputs *
wf_apd_outputs_new (const WfApdConfig *config)
{
  WfApdOutputs *o = g_new0 (WfApdOutputs, 1);

  o->status_path = g_strdup (config->status_path);
  o->textfile_dir = textfile_dir (config);
  o->once = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
  return o;
}

void
wf_apd_outputs_free (WfApdOutputs *o)
{
  if (!o)
    return;
  g_free (o->status_path);
  g_free (o->textfile_dir);
  wf_ratelimit_free (o->once);
  g_free (o);
}

void
wf_apd_outputs_write (WfApdOutputs *o, const WfApdView *v)
{
  g_autoptr(GError) error = NULL;

  if (o->status_path[0])
    {
      g_autofree char *text = wf_apd_output_status (v);

      if (wf_file_write (o->status_path, text, strlen (text), 0644, WF_FILE_EXACT_MODE, &error))
        wf_ratelimit_clear (o->once, "status", NULL);
      else if (wf_ratelimit_check (o->once, "status", NULL))
        g_warning ("status file: %s", error->message);
      g_clear_error (&error);
    }
  if (o->textfile_dir)
    {
      g_autofree char *text = wf_apd_output_prometheus (v);

      if (wf_prometheus_write_named (o->textfile_dir, WF_APD_PROM_FILE, text, &error))
        wf_ratelimit_clear (o->once, "textfile", NULL);
      else if (wf_ratelimit_check (o->once, "textfile", NULL))
        g_warning ("textfile: %s", error->message);
    }
}
