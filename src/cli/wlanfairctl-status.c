/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl status: what this host gets (interfaces, Wi-Fi link, TCP
 * flows), from wlanfair-reportd's local channel or, without the daemon,
 * by sampling directly for one interval. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-json.h"
#include "wlanfair-localreport.h"
#include "wlanfair-number.h"
#include "wlanfair-text.h"
#include "wlanfairctl-report.h"
#include "wlanfairctl.h"

#define DEFAULT_TOP 10

/* ---- where the report comes from -------------------------------------- */

JsonObject *
wf_cli_report_get (WfCliReportSource *src)
{
  g_autoptr(GError) error = NULL;
  JsonObject *body;

  if (!src->direct)
    {
      JsonObject *report = wf_localreport_fetch (src->socket_path, 2000, &error);

      if (report)
        {
          src->from_daemon = TRUE;
          return report;
        }
      g_free (src->daemon_error);
      src->daemon_error = g_strdup (error->message);
    }
  src->from_daemon = FALSE;
  if (src->sampler == NULL)
    {
      WfSamplerConfig sc = {
        .interfaces = src->interfaces,
        .all_if_no_wifi = TRUE,
        .top_n = src->top_n,
      };

      src->sampler = wf_sampler_new (&sc, NULL, NULL);
      json_object_unref (wf_sampler_sample (src->sampler));
      g_usleep ((gulong) (src->interval_s * G_USEC_PER_SEC));
    }
  body = wf_sampler_sample (src->sampler);
  json_object_set_int_member (body, "time_us", g_get_real_time ());
  json_object_set_double_member (body, "interval_s", src->interval_s);
  return body;
}

int
wf_cli_report_source_set_interval (WfCliReportSource *src, const char *text)
{
  double v = 1;

  if (text && (!wf_number_parse (text, WF_NUMBER_POSITIVE, &v, NULL) || v < 0.1 || v > 60))
    return wf_cli_usage_error ("--interval '%s' must be seconds from 0.1 to 60", text);
  src->interval_s = v;
  return WF_EXIT_OK;
}

void
wf_cli_report_source_clear (WfCliReportSource *src)
{
  g_clear_pointer (&src->sampler, wf_sampler_free);
  g_clear_pointer (&src->daemon_error, g_free);
}

/* ---- drawing ---------------------------------------------------------- */





/* "12.3M" style, 7 columns; "-" when absent. */
static const char *
rate (JsonObject *o, const char *key, char buf[16])
{
  double v;

  if (!wf_json_number (o, key, &v))
    return "-";
  if (v >= 1e9)
    g_snprintf (buf, 16, "%.2fG", v / 1e9);
  else if (v >= 1e6)
    g_snprintf (buf, 16, "%.2fM", v / 1e6);
  else if (v >= 1e3)
    g_snprintf (buf, 16, "%.1fk", v / 1e3);
  else
    g_snprintf (buf, 16, "%.0f", v);
  return buf;
}

static void
line (GString *out, guint width, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
line (GString *out, guint width, const char *fmt, ...)
{
  g_autofree char *text = NULL, *shown = NULL;
  va_list ap;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* The report's strings (SSIDs from the air, names, errors) reach the
   * terminal escaped; long lines would wrap and scroll a live view: cut
   * them, by columns. */
  shown = width > 0 ? wf_text_fit (text, width, WF_TEXT_CUT) : wf_text_escape (text);
  g_string_append (out, shown);
  g_string_append_c (out, '\n');
}

/* RAW padded to COLUMNS as line() will show it (escaped, wide characters
 * two columns): printf's "%-12s" counts bytes. */
static char *
cell (const char *raw, guint columns)
{
  gsize w = wf_text_width (raw, 0);

  return g_strdup_printf ("%s%*s", raw, w < columns ? (int) (columns - w) : 0, "");
}

static void
rate_text (JsonObject *r, GString *s)
{
  double v;

  if (wf_json_number (r, "bitrate_kbps", &v))
    g_string_append_printf (s, "%.1f Mbit/s", v / 1000);
  g_string_append_printf (s, " %s", wf_json_string (r, "mode", "?"));
  if (wf_json_number (r, "mcs", &v))
    g_string_append_printf (s, " MCS %.0f", v);
  if (wf_json_number (r, "nss", &v))
    g_string_append_printf (s, " NSS %.0f", v);
  if (wf_json_number (r, "width_mhz", &v))
    g_string_append_printf (s, " %.0f MHz", v);
  if (wf_json_string (r, "gi", NULL))
    g_string_append_printf (s, " GI %s us", wf_json_string (r, "gi", NULL));
}

static void
render_station (JsonObject *i, guint width, GString *out)
{
  JsonObject *sta = wf_json_object (i, "station");
  JsonObject *now = wf_json_object (i, "scans");
  /* The daemon's running totals when it has them, else this interval's. */
  JsonObject *scans = wf_json_object (i, "scans_total") ? wf_json_object (i, "scans_total") : now;
  g_autoptr(GString) s = g_string_new (NULL);
  double v, a;

  if (sta)
    {
      g_string_printf (s, "%s: BSSID %s SSID \"%s\"", wf_json_string (i, "name", "?"),
                       wf_json_string (sta, "bssid", "?"), wf_json_string (sta, "ssid", ""));
      if (wf_json_number (sta, "freq_mhz", &v))
        g_string_append_printf (s, " %.0f MHz", v);
      if (wf_json_number (sta, "signal_dbm", &v))
        g_string_append_printf (s, ", signal %.0f dBm", v);
      if (wf_json_number (sta, "signal_avg_dbm", &a))
        g_string_append_printf (s, " (avg %.0f)", a);
      line (out, width, "%s", s->str);
      if (wf_json_object (sta, "tx_rate"))
        {
          g_string_assign (s, "  tx");
          rate_text (wf_json_object (sta, "tx_rate"), s);
          line (out, width, "%s", s->str);
        }
      if (wf_json_object (sta, "rx_rate"))
        {
          g_string_assign (s, "  rx");
          rate_text (wf_json_object (sta, "rx_rate"), s);
          line (out, width, "%s", s->str);
        }
      g_string_assign (s, " ");
      if (wf_json_number (sta, "tx_retries", &v))
        g_string_append_printf (s, " retries %.0f", v);
      if (wf_json_number (sta, "tx_failed", &v))
        g_string_append_printf (s, " failed %.0f", v);
      if (wf_json_number (sta, "beacon_loss", &v))
        g_string_append_printf (s, " beacon loss %.0f", v);
      if (s->len > 1)
        line (out, width, "%s", s->str);
    }
  else if (json_object_get_boolean_member_with_default (i, "wifi", FALSE))
    line (out, width, "%s: %s, not associated", wf_json_string (i, "name", "?"), wf_json_string (i, "iftype", "wifi"));
  if (scans)
    {
      double c = 0, ss = 0, w = 0, p = 0, d = 0;

      wf_json_number (scans, "count", &c);
      wf_json_number (scans, "single_ssid", &ss);
      wf_json_number (scans, "wildcard", &w);
      wf_json_number (scans, "passive", &p);
      wf_json_number (scans, "duration_ms", &d);
      line (out, width, "  scans%s %.0f (single-SSID %.0f, wildcard %.0f, passive %.0f), %.0f ms%s",
            scans == now ? " this interval" : " since the daemon started", c, ss, w, p, d,
            now && json_object_get_boolean_member_with_default (now, "in_progress", FALSE)
            ? ", scanning now" : "");
    }
}

void
wf_cli_report_render (JsonObject *r, WfCliReportSource *src, guint width, guint max_flows,
                      GString *out)
{
  JsonArray *ifs = wf_json_array (r, "interfaces");
  JsonArray *flows = wf_json_array (r, "flows");
  JsonObject *sending = wf_json_object (r, "sending");
  JsonObject *ackloss = wf_json_object (r, "ackloss");
  double interval = 0, total;
  char b1[16], b2[16], b3[16], b4[16], b5[16], b6[16];

  wf_json_number (r, "interval_s", &interval);
  if (src->from_daemon)
    {
      double t = 0, pid = 0;

      wf_json_number (r, "time_us", &t);
      wf_json_number (r, "pid", &pid);
      line (out, width, "source: wlanfair-reportd (pid %.0f), interval %g s, sampled %.1f s ago",
            pid, interval, (g_get_real_time () - t) / 1e6);
      if (sending && wf_json_string (sending, "mode", NULL))
        {
          double sent = 0, errors = 0;

          wf_json_number (sending, "sent", &sent);
          wf_json_number (sending, "errors", &errors);
          line (out, width, "reports: to %s (%s), %.0f sent, %.0f errors%s%s",
                wf_json_string (sending, "destination", "nowhere yet"), wf_json_string (sending, "mode", ""), sent,
                errors, wf_json_string (sending, "last_error", NULL) ? "; last: " : "",
                wf_json_string (sending, "last_error", ""));
        }
      else
        line (out, width, "reports: not sent (--no-send)");
    }
  else if (src->direct)
    line (out, width, "source: direct sample over %g s", interval);
  else
    line (out, width, "source: direct sample over %g s (wlanfair-reportd not reachable: %s)",
          interval, src->daemon_error ? src->daemon_error : "?");
  line (out, width, "%s", "");

  line (out, width, "%-12s %-4s %-4s %9s %9s %9s %9s %9s %9s", "INTERFACE", "WIFI", "UP",
        "RX bit/s", "TX bit/s", "RX pkt/s", "TX pkt/s", "GOODP RX", "GOODP TX");
  for (guint i = 0; ifs && i < json_array_get_length (ifs); i++)
    {
      JsonObject *o = json_array_get_object_element (ifs, i);
      g_autofree char *name = NULL;

      if (o == NULL)
        continue;
      name = cell (wf_json_string (o, "name", "?"), 12);
      line (out, width, "%s %-4s %-4s %9s %9s %9s %9s %9s %9s", name,
            json_object_get_boolean_member_with_default (o, "wifi", FALSE) ? "yes" : "no",
            json_object_get_boolean_member_with_default (o, "up", FALSE) ? "up" : "down",
            rate (o, "rx_bps", b1), rate (o, "tx_bps", b2), rate (o, "rx_pps", b3),
            rate (o, "tx_pps", b4), rate (o, "goodput_rx_bps", b5), rate (o, "goodput_tx_bps", b6));
    }
  if (ifs == NULL || json_array_get_length (ifs) == 0)
    line (out, width, "(no interface: none is Wi-Fi here; name one with -i)");
  for (guint i = 0; ifs && i < json_array_get_length (ifs); i++)
    {
      JsonObject *o = json_array_get_object_element (ifs, i);

      if (o && json_object_get_boolean_member_with_default (o, "wifi", FALSE))
        {
          line (out, width, "%s", "");
          render_station (o, width, out);
        }
    }

  line (out, width, "%s", "");
  if (wf_json_number (r, "flows_total", &total))
    {
      guint shown = flows ? MIN (json_array_get_length (flows), max_flows) : 0;

      line (out, width, "TCP flows: %.0f seen, top %u by goodput", total, shown);
      line (out, width, "%-24s %-24s %-8s %-7s %7s %5s %5s %9s %9s", "LOCAL", "REMOTE", "IFACE",
            "CC", "RTT ms", "CWND", "RETR", "GOODP TX", "GOODP RX");
      for (guint i = 0; i < shown; i++)
        {
          JsonObject *f = json_array_get_object_element (flows, i);
          double rtt = -1, cwnd = -1, retr = -1;
          char rtt_s[16] = "-", cwnd_s[16] = "-", retr_s[16] = "-";
          g_autofree char *fif = NULL, *fcc = NULL;

          if (f == NULL)
            continue;
          fif = cell (wf_json_string (f, "iface", "-"), 8);
          fcc = cell (wf_json_string (f, "cc", "-"), 7);
          if (wf_json_number (f, "rtt_us", &rtt))
            g_snprintf (rtt_s, sizeof rtt_s, "%.1f", rtt / 1000);
          if (wf_json_number (f, "cwnd", &cwnd))
            g_snprintf (cwnd_s, sizeof cwnd_s, "%.0f", cwnd);
          if (wf_json_number (f, "total_retrans", &retr))
            g_snprintf (retr_s, sizeof retr_s, "%.0f", retr);
          line (out, width, "%-24s %-24s %s %s %7s %5s %5s %9s %9s", wf_json_string (f, "src", "?"),
                wf_json_string (f, "dst", "?"), fif, fcc, rtt_s, cwnd_s,
                retr_s, rate (f, "goodput_tx_bps", b1), rate (f, "goodput_rx_bps", b2));
        }
    }
  else
    line (out, width, "TCP flows: unavailable");

  if (ackloss)
    {
      g_autoptr(GList) ccs = json_object_get_members (ackloss);

      line (out, width, "%s", "");
      for (GList *c = ccs; c; c = c->next)
        {
          JsonObject *k = wf_json_object (ackloss, c->data);
          double acks = 0, losses = 0, halvings = 0;

          wf_json_number (k, "acks", &acks);
          wf_json_number (k, "ack_losses", &losses);
          wf_json_number (k, "halvings", &halvings);
          line (out, width, "%s: acks %.0f, ack losses %.0f, halvings %.0f",
                (const char *) c->data, acks, losses, halvings);
        }
    }
}

/* ---- the command ------------------------------------------------------ */

int
wf_cli_status (int argc, char **argv)
{
  gboolean json = FALSE, direct = FALSE;
  g_autofree char *socket_path = NULL, *interval = NULL;
  g_auto(GStrv) interfaces = NULL;
  int top = DEFAULT_TOP;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print the report as one JSON object", NULL },
    { "socket", 0, 0, G_OPTION_ARG_FILENAME, &socket_path,
      "The daemon's local channel (default " WF_LOCALREPORT_SOCKET ")", "PATH" },
    { "direct", 0, 0, G_OPTION_ARG_NONE, &direct,
      "Sample directly even when the daemon runs", NULL },
    { "interface", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &interfaces,
      "Direct sampling: this interface (repeatable; default Wi-Fi, else all)", "IFACE" },
    { "interval", 0, 0, G_OPTION_ARG_STRING, &interval,
      "Direct sampling: seconds between the two samples (default 1)", "SECONDS" },
    { "top", 'n', 0, G_OPTION_ARG_INT, &top, "Flows to show (default 10)", "N" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(JsonObject) report = NULL;
  WfCliReportSource src = { 0 };
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "What this host gets: interface rates, the Wi-Fi link, TCP flows and their\n"
    "goodput. From wlanfair-reportd when it runs, else sampled directly.");
  g_option_context_set_description (ctx, "See wlanfairctl-status(1).");
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  if (argc > 1)
    return wf_cli_usage_error ("unexpected argument '%s'", argv[1]);
  if ((rc = wf_cli_check_interfaces (interfaces)) != WF_EXIT_OK)
    return rc;
  if ((rc = wf_cli_report_source_set_interval (&src, interval)) != WF_EXIT_OK)
    return rc;
  if (top < 0 || top > 100)
    return wf_cli_usage_error ("--top %d must be from 0 to 100", top);

  src.socket_path = socket_path;
  src.interfaces = interfaces;
  src.top_n = (guint) MAX (top, 1);
  src.direct = direct || interfaces != NULL;
  report = wf_cli_report_get (&src);
  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, src.from_daemon ? "daemon" : "direct");
      json_builder_set_member_name (b, "report");
      json_builder_add_value (b, json_node_init_object (json_node_alloc (), report));
      json_builder_end_object (b);
      wf_cli_print_json (b);
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      wf_cli_report_render (report, &src, 0, (guint) top, out);
      fputs (out->str, stdout);
    }
  wf_cli_report_source_clear (&src);
  return WF_EXIT_OK;
}
