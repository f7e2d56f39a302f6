/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prometheus text exposition (format 0.0.4) of a report body for
 * node_exporter's textfile collector, by Prometheus' conventions (what
 * `promtool check metrics` lints): whatever accumulates is a counter in
 * base units named _total, so rate() works at any scrape interval and
 * nothing is lost between scrapes; gauges are states only; labels have
 * bounded values (interfaces, directions, kinds: never a flow's address).
 * Station metrics keep the wifi collector's names (node_wifi_*) except its
 * PHY rates in bits, which promtool refuses; what it lacks is wlanfair_*.
 * Interface counters repeat the netdev collector's under wlanfair_* so
 * that rules need nothing but this file. */
#include "wlanfair-prometheus.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-json.h"
#include "wlanfair-textfile.h"

typedef struct {
  const char *name;
  GString    *samples;
} Family;

typedef struct {
  GPtrArray  *families;  /* Family, in first-use order */
  GHashTable *index;     /* name → Family */
} Out;

/* The families, in the file's order; docs: man/wlanfair-reportd.8. */
static const struct { const char *name, *type, *help; } metrics[] = {
  { "node_wifi_station_info", "gauge", "Labeled WiFi interface station information as provided by the operating system." },
  { "node_wifi_interface_frequency_hertz", "gauge", "The current frequency a WiFi interface is operating at, in hertz." },
  { "node_wifi_station_signal_dbm", "gauge", "The current WiFi signal strength, in decibel-milliwatts (dBm)." },
  { "node_wifi_station_transmit_retries_total", "counter", "The total number of times a station has had to retry while sending a packet." },
  { "node_wifi_station_transmit_failed_total", "counter", "The total number of times a station has failed to send a packet." },
  { "node_wifi_station_beacon_loss_total", "counter", "The total number of times a station has detected a beacon loss." },
  { "wlanfair_wifi_station_signal_average_dbm", "gauge", "Average signal of the BSS as the driver smooths it, dBm." },
  { "wlanfair_wifi_station_phy_rate_bytes_per_second", "gauge", "PHY rate of the last transmitted/received frame, bytes per second (bit rate / 8)." },
  { "wlanfair_wifi_station_mcs", "gauge", "MCS index of the last transmitted/received frame (HT, VHT, HE, EHT)." },
  { "wlanfair_wifi_station_spatial_streams", "gauge", "Spatial streams (NSS) of the last transmitted/received frame." },
  { "wlanfair_wifi_station_channel_width_hertz", "gauge", "Channel width of the last transmitted/received frame, in hertz." },
  { "wlanfair_wifi_station_guard_interval_seconds", "gauge", "Guard interval of the last transmitted/received frame, in seconds." },
  { "wlanfair_interface_up", "gauge", "1 when the interface is up with a carrier." },
  { "wlanfair_interface_receive_bytes_total", "counter", "Bytes received on the interface (rtnetlink link counters)." },
  { "wlanfair_interface_transmit_bytes_total", "counter", "Bytes transmitted on the interface (rtnetlink link counters)." },
  { "wlanfair_interface_receive_packets_total", "counter", "Packets received on the interface (rtnetlink link counters)." },
  { "wlanfair_interface_transmit_packets_total", "counter", "Packets transmitted on the interface (rtnetlink link counters)." },
  { "wlanfair_tcp_flows", "gauge", "TCP connections routed through the interface in the last sample." },
  { "wlanfair_tcp_goodput_bytes_total", "counter", "TCP payload bytes received / acknowledged by the peer, over every flow routed through the interface, since the reporter started." },
  { "wlanfair_tcp_retransmitted_segments_total", "counter", "TCP segments retransmitted by the flows routed through the interface, since the reporter started." },
  { "wlanfair_tcp_rtt_seconds", "histogram", "Smoothed RTT of the TCP flows routed through the interface: each flow observed once per sample." },
  { "wlanfair_scans_total", "counter", "nl80211 scans seen on the interface, by kind." },
  { "wlanfair_scan_duration_seconds_total", "counter", "Time spent scanning, in seconds." },
  { "wlanfair_scans_aborted_total", "counter", "nl80211 scans aborted on the interface." },
  { "wlanfair_scan_in_progress", "gauge", "1 while a scan runs." },
  { "wlanfair_host_tcp_flows", "gauge", "TCP sockets of the host in any state but listening, on every interface (sock_diag)." },
  { "wlanfair_ackloss_events_total", "counter", "Counters of the ACK-loss congestion controls (wlanfair-tcpd), by event." },
  { "wlanfair_report_timestamp_seconds", "gauge", "When this report was sampled, unix seconds." },
};

/* Label values: backslash, double quote and newline escaped. */
static void
append_label (GString *s, const char *name, const char *value)
{
  if (s->len > 0)
    g_string_append_c (s, ',');
  g_string_append_printf (s, "%s=\"", name);
  wf_textfile_label_value (s, value);
  g_string_append_c (s, '"');
}

/* Whole numbers (counters) exactly; others with 15 digits, so that
 * 2500 us reads 0.0025 and not 0.0025000000000000001. */
static void
append_number (GString *s, double value)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  if (value == floor (value) && fabs (value) < 9.2e18)
    g_string_append_printf (s, "%" G_GINT64_FORMAT, (gint64) value);
  else
    g_string_append (s, g_ascii_formatd (num, sizeof num, "%.15g", value));
}

/* One sample of `family`; `suffix` names a histogram's _bucket, _sum and
 * _count samples (NULL for the others). */
static void
emit_sample (Out *out, const char *family, const char *suffix, const char *labels, double value)
{
  Family *f = g_hash_table_lookup (out->index, family);

  if (f == NULL)
    {
      f = g_new0 (Family, 1);
      f->name = family;
      f->samples = g_string_new (NULL);
      g_ptr_array_add (out->families, f);
      g_hash_table_insert (out->index, (gpointer) family, f);
    }
  g_string_append (f->samples, family);
  if (suffix)
    g_string_append (f->samples, suffix);
  if (labels && *labels)
    g_string_append_printf (f->samples, "{%s}", labels);
  g_string_append_c (f->samples, ' ');
  append_number (f->samples, value);
  g_string_append_c (f->samples, '\n');
}

static void
emit (Out *out, const char *name, const char *labels, double value)
{
  emit_sample (out, name, NULL, labels, value);
}

/* name="value" with one more label pair. */
static char *
labels2 (const char *base, const char *name, const char *value)
{
  GString *s = g_string_new (base);

  append_label (s, name, value);
  return g_string_free (s, FALSE);
}

static void
emit_if (Out *out, JsonObject *o, const char *key, const char *metric,
         const char *labels, double scale)
{
  double v;

  if (wf_json_number (o, key, &v))
    emit (out, metric, labels, v * scale);
}

static gboolean
array_number (JsonArray *a, guint i, double *v)
{
  return wf_json_node_number (json_array_get_element (a, i), v);
}

static void
station (Out *out, const char *dev, JsonObject *sta)
{
  g_autoptr(GString) info = g_string_new (NULL);
  const char *dirs[] = { "transmit", "receive" };
  const char *keys[] = { "tx_rate", "rx_rate" };

  append_label (info, "device", dev);
  append_label (info, "bssid", json_object_get_string_member_with_default (sta, "bssid", ""));
  append_label (info, "ssid", json_object_get_string_member_with_default (sta, "ssid", ""));
  append_label (info, "mode", "client");
  emit (out, "node_wifi_station_info", info->str, 1);

  g_autoptr(GString) d = g_string_new (NULL);
  append_label (d, "device", dev);
  emit_if (out, sta, "freq_mhz", "node_wifi_interface_frequency_hertz", d->str, 1e6);
  emit_if (out, sta, "signal_dbm", "node_wifi_station_signal_dbm", d->str, 1);
  emit_if (out, sta, "signal_avg_dbm", "wlanfair_wifi_station_signal_average_dbm", d->str, 1);
  emit_if (out, sta, "tx_retries", "node_wifi_station_transmit_retries_total", d->str, 1);
  emit_if (out, sta, "tx_failed", "node_wifi_station_transmit_failed_total", d->str, 1);
  emit_if (out, sta, "beacon_loss", "node_wifi_station_beacon_loss_total", d->str, 1);
  for (int i = 0; i < 2; i++)
    {
      JsonObject *r = wf_json_object (sta, keys[i]);
      g_autofree char *l = NULL;
      g_autofree char *lm = NULL;
      double gi;

      if (r == NULL)
        continue;
      l = labels2 (d->str, "direction", dirs[i]);
      lm = labels2 (l, "mode", json_object_get_string_member_with_default (r, "mode", "legacy"));
      /* kbit/s to bytes/s: the base unit (promtool refuses "bits"). */
      emit_if (out, r, "bitrate_kbps", "wlanfair_wifi_station_phy_rate_bytes_per_second", l, 1000 / 8.0);
      emit_if (out, r, "mcs", "wlanfair_wifi_station_mcs", lm, 1);
      emit_if (out, r, "nss", "wlanfair_wifi_station_spatial_streams", l, 1);
      emit_if (out, r, "width_mhz", "wlanfair_wifi_station_channel_width_hertz", l, 1e6);
      if (json_object_has_member (r, "gi") &&
          (gi = g_ascii_strtod (json_object_get_string_member_with_default (r, "gi", "0"), NULL)) > 0)
        emit (out, "wlanfair_wifi_station_guard_interval_seconds", l, gi * 1e-6);
    }
}

/* The histogram as the sampler writes it: cumulative counts per upper
 * bound in µs, +Inf being the count. Left out whole if inconsistent, since
 * a partial histogram would mislead histogram_quantile(). */
static void
rtt_histogram (Out *out, const char *dev_labels, JsonObject *rtt)
{
  static const char family[] = "wlanfair_tcp_rtt_seconds";
  JsonArray *le = wf_json_array (rtt, "le_us");
  JsonArray *counts = wf_json_array (rtt, "counts");
  double count, sum, bound, n, prev_bound = -1, prev_n = 0;
  guint len;

  if (le == NULL || counts == NULL || !wf_json_number (rtt, "count", &count) ||
      !wf_json_number (rtt, "sum_us", &sum))
    return;
  len = json_array_get_length (le);
  if (len != json_array_get_length (counts))
    return;
  for (guint b = 0; b < len; b++)
    {
      if (!array_number (le, b, &bound) || !array_number (counts, b, &n) || bound <= prev_bound ||
          n < prev_n || n > count)
        return;
      prev_bound = bound;
      prev_n = n;
    }
  for (guint b = 0; b < len; b++)
    {
      g_autoptr(GString) l = g_string_new (dev_labels);
      g_autoptr(GString) v = g_string_new (NULL);

      array_number (le, b, &bound);
      array_number (counts, b, &n);
      append_number (v, bound * 1e-6);
      append_label (l, "le", v->str);
      emit_sample (out, family, "_bucket", l->str, n);
    }
  {
    g_autofree char *inf = labels2 (dev_labels, "le", "+Inf");

    emit_sample (out, family, "_bucket", inf, count);
  }
  emit_sample (out, family, "_sum", dev_labels, sum * 1e-6);
  emit_sample (out, family, "_count", dev_labels, count);
}

/* The daemon's running TCP totals of the interface (local members). */
static void
tcp_totals (Out *out, const char *d, JsonObject *t)
{
  g_autofree char *rx = labels2 (d, "direction", "receive");
  g_autofree char *tx = labels2 (d, "direction", "transmit");

  emit_if (out, t, "flows", "wlanfair_tcp_flows", d, 1);
  emit_if (out, t, "received_bytes", "wlanfair_tcp_goodput_bytes_total", rx, 1);
  emit_if (out, t, "acked_bytes", "wlanfair_tcp_goodput_bytes_total", tx, 1);
  emit_if (out, t, "retrans_segments", "wlanfair_tcp_retransmitted_segments_total", d, 1);
  if (wf_json_object (t, "rtt"))
    rtt_histogram (out, d, wf_json_object (t, "rtt"));
}

static void
iface (Out *out, JsonObject *i)
{
  const char *dev = json_object_get_string_member_with_default (i, "name", "");
  g_autoptr(GString) d = g_string_new (NULL);
  JsonObject *scans;

  append_label (d, "device", dev);
  emit (out, "wlanfair_interface_up", d->str,
        json_object_get_boolean_member_with_default (i, "up", FALSE));
  /* The cumulative counters, not the report's per-period rates. */
  emit_if (out, i, "rx_bytes", "wlanfair_interface_receive_bytes_total", d->str, 1);
  emit_if (out, i, "tx_bytes", "wlanfair_interface_transmit_bytes_total", d->str, 1);
  emit_if (out, i, "rx_packets", "wlanfair_interface_receive_packets_total", d->str, 1);
  emit_if (out, i, "tx_packets", "wlanfair_interface_transmit_packets_total", d->str, 1);
  if (wf_json_object (i, "tcp_totals"))
    tcp_totals (out, d->str, wf_json_object (i, "tcp_totals"));
  if (wf_json_object (i, "station"))
    station (out, dev, wf_json_object (i, "station"));
  /* Counters need the running totals; the per-report "scans" has the
   * in-progress flag. */
  scans = wf_json_object (i, "scans_total");
  if (scans)
    {
      static const char * const kinds[] = { "single_ssid", "wildcard", "passive", "multi_ssid" };

      for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
        {
          g_autofree char *l = labels2 (d->str, "kind", kinds[k]);

          emit_if (out, scans, kinds[k], "wlanfair_scans_total", l, 1);
        }
      emit_if (out, scans, "duration_ms", "wlanfair_scan_duration_seconds_total", d->str, 1e-3);
      emit_if (out, scans, "aborted", "wlanfair_scans_aborted_total", d->str, 1);
    }
  scans = wf_json_object (i, "scans");
  if (scans && json_object_has_member (scans, "in_progress"))
    emit (out, "wlanfair_scan_in_progress", d->str,
          json_object_get_boolean_member_with_default (scans, "in_progress", FALSE));
}

static void
family_free (gpointer p)
{
  Family *f = p;

  g_string_free (f->samples, TRUE);
  g_free (f);
}

char *
wf_prometheus_render (JsonObject *body, gint64 time_us)
{
  Out out = { g_ptr_array_new_with_free_func (family_free), g_hash_table_new (g_str_hash, g_str_equal) };
  GString *text = g_string_new (NULL);
  JsonArray *a;
  JsonObject *ackloss;
  double v;

  if ((a = wf_json_array (body, "interfaces")))
    for (guint i = 0; i < json_array_get_length (a); i++)
      if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (a, i)))
        iface (&out, json_array_get_object_element (a, i));
  /* Per-flow detail ("flows") stays in the reports, status and top: a
   * flow's addresses as labels would make new series with every
   * connection. */
  if (wf_json_number (body, "flows_total", &v))
    emit (&out, "wlanfair_host_tcp_flows", "", v);
  if ((ackloss = wf_json_object (body, "ackloss")))
    {
      g_autoptr(GList) ccs = json_object_get_members (ackloss);

      for (GList *c = ccs; c; c = c->next)
        {
          JsonObject *counters = wf_json_object (ackloss, c->data);
          g_autoptr(GList) names = counters ? json_object_get_members (counters) : NULL;

          for (GList *n = names; n; n = n->next)
            {
              g_autoptr(GString) l = g_string_new (NULL);

              append_label (l, "cc", c->data);
              append_label (l, "event", n->data);
              emit_if (&out, counters, n->data, "wlanfair_ackloss_events_total", l->str, 1);
            }
        }
    }
  emit (&out, "wlanfair_report_timestamp_seconds", "", time_us / 1e6);

  /* HELP and TYPE once per family, in the table's order. */
  for (guint m = 0; m < G_N_ELEMENTS (metrics); m++)
    {
      Family *f = g_hash_table_lookup (out.index, metrics[m].name);

      if (f == NULL)
        continue;
      wf_textfile_family (text, f->name, metrics[m].type, metrics[m].help);
      g_string_append (text, f->samples->str);
    }
  g_ptr_array_unref (out.families);
  g_hash_table_unref (out.index);
  return g_string_free (text, FALSE);
}

gboolean
wf_prometheus_write (const char *dir, const char *text, GError **error)
{
  return wf_prometheus_write_named (dir, WF_PROMETHEUS_FILE, text, error);
}

gboolean
wf_prometheus_write_named (const char *dir, const char *name, const char *text,
                           GError **error)
{
  return wf_textfile_write (dir, name, text, error);
}
