/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reporter's loop: every interval one sample, sent over UDP, written
 * as Prometheus text and kept for the local channel. Each output fails on
 * its own without stopping the others. While every interface it reports
 * is down the period stops (a laptop on battery: no wakeup per second for
 * nothing to report) and rtnetlink link events start it again. */
#include "config.h"

#include "wlanfair-reportd-daemon.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "wlanfair-daemon.h"
#include "wlanfair-file.h"
#include "wlanfair-netwatch.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-notify.h"
#include "wlanfair-prometheus.h"
#include "wlanfair-ratelimit.h"
#include "wlanfair-report.h"
#include "wlanfair-reportd-channel.h"
#include "wlanfair-reportd-send.h"
#include "wlanfair-sampler.h"

/* While paused, the textfile and the local channel are refreshed this
 * often: Prometheus' WlanfairReporterSilent fires at 180 s of silence. */
#define PAUSED_REFRESH_US (60 * G_USEC_PER_SEC)
/* Work due this soon is done in the same wakeup. */
#define COALESCE_US (G_USEC_PER_SEC / 2)

typedef struct {
  const WfReportdConfig     *config;
  const WfReportdRunOptions *options;
  GMainLoop        *loop;
  WfDaemon         *life;            /* signals, READY, watchdog, STOPPING */
  WfRatelimit      *rl;
  WfRatelimit      *once;            /* said once until it clears */
  WfSampler        *sampler;
  WfReportSender   *sender;
  WfReportdSend    *send;
  WfReportdChannel *channel;
  WfNetwatch       *netwatch;
  WfScanCount      *scans;
  char             *textfile_dir;
  gboolean          textfile_default;
  guint64           samples;
  int               exit_code;
  guint             interval_ms;
  guint             period;          /* the reporting timer; 0 while paused */
  gboolean          paused;
  gboolean          primed;          /* the last sample opened a period: send the next */
  gint64            last_sample_us;  /* monotonic */
  /* One source for the systemd watchdog and, while paused, the refresh:
   * its ready time is whichever is due first. Ticks ping the watchdog
   * when it is due before the next tick, so it fires only when they do
   * not (paused, or an interval over half WatchdogSec). */
  GSource          *housekeeping;
  gint64            watchdog_us;     /* ping period: half WatchdogSec; 0: none */
  gint64            last_ping_us;
} Reportd;

static void pause_reports (Reportd *d);
static void resume_reports (Reportd *d, GPtrArray *up);
static GPtrArray *take_sample (Reportd *d, gboolean send, gboolean may_pause);

static void
sampler_log (GLogLevelFlags level, const char *key, const char *message, gpointer data)
{
  Reportd *d = data;

  wf_ratelimit_log (d->rl, level, key, message);
}

/* Scan counts need the nl80211 scan multicast group; without cfg80211
 * the "scans" key stays absent. Tried again when links change (a Wi-Fi
 * driver loaded later). */
static void
try_scans (Reportd *d)
{
  g_autoptr(GError) error = NULL;

  if (d->scans)
    return;
  d->scans = wf_scancount_new (&error);
  if (d->scans)
    {
      g_message ("counting nl80211 scans");
      wf_sampler_set_scans (d->sampler, d->scans);
    }
  else if (wf_ratelimit_check (d->once, "scans", NULL))
    g_message ("no scan counts: %s", error->message);
}

static void
network_changed (gpointer data, gboolean links)
{
  Reportd *d = data;

  try_scans (d);
  wf_sampler_network_changed (d->sampler);
  if (d->send)
    wf_reportd_send_network_changed (d->send);
  /* A link came, went, went up or down: pause or resume at once. */
  if (links && !d->options->once)
    {
      g_autoptr(GPtrArray) up = wf_sampler_up_interfaces (d->sampler);

      if (up == NULL)
        return; /* unknown: as before */
      if (up->len == 0 && !d->paused)
        pause_reports (d);
      else if (up->len > 0 && d->paused)
        resume_reports (d, up);
      else
        return;
      /* The textfile and the local channel follow at once. */
      g_ptr_array_unref (take_sample (d, FALSE, FALSE));
    }
}

static void
write_textfile (Reportd *d, JsonObject *body, gint64 time_us)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (d->textfile_dir == NULL)
    return;
  /* The default directory is used only while it exists (node_exporter
   * installed); a configured one must work. */
  if (!wf_textfile_dir_in_use (d->textfile_dir, d->textfile_default))
    {
      if (wf_ratelimit_check (d->once, "textfile-dir", NULL))
        g_message ("%s does not exist: no Prometheus textfile (install "
                   "prometheus-node-exporter or set textfile-dir=)", d->textfile_dir);
      return;
    }
  wf_ratelimit_clear (d->once, "textfile-dir", NULL);
  text = wf_prometheus_render (body, time_us);
  if (!wf_prometheus_write (d->textfile_dir, text, &error))
    {
      g_autofree char *msg = g_strdup_printf ("Prometheus textfile not written: %s%s",
                                              error->message,
                                              access (d->textfile_dir, W_OK) < 0
                                              ? " (the directory is not writable by this "
                                                "user: see wlanfair-reportd(8), OUTPUTS)" : "");

      wf_ratelimit_log (d->rl, G_LOG_LEVEL_WARNING, "textfile", msg);
    }
  else
    wf_ratelimit_clear (d->rl, "textfile", "Prometheus textfile written again");
}

/* The local report: the body plus time, interval and how sending goes. */
static char *
local_json (Reportd *d, JsonObject *body, gint64 time_us)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (body);

  for (GList *m = members; m; m = m->next)
    json_object_set_member (copy, m->data, json_node_copy (json_object_get_member (body, m->data)));
  json_object_set_int_member (copy, "time_us", time_us);
  json_object_set_double_member (copy, "interval_s", d->config->interval_s);
  if (d->config->hostname)
    json_object_set_string_member (copy, "hostname", g_get_host_name ());
  json_object_set_int_member (copy, "pid", getpid ());
  json_object_set_object_member (copy, "sending", d->send ? wf_reportd_send_status (d->send)
                                                          : json_object_new ());
  if (d->paused)
    json_object_set_boolean_member (copy, "paused", TRUE);
  json_node_take_object (root, copy);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

static void
notify_status (Reportd *d, JsonObject *body)
{
  JsonNode *ifs = json_object_get_member (body, "interfaces");
  guint n = ifs && JSON_NODE_HOLDS_ARRAY (ifs) ? json_array_get_length (json_node_get_array (ifs)) : 0;

  wf_daemon_ready (d->life, "%s%u interface(s), %" G_GINT64_FORMAT " TCP flow(s), %"
                   G_GUINT64_FORMAT " sample(s)", d->paused ? "reports paused (down): " : "",
                   n, json_object_get_int_member_with_default (body, "flows_total", 0),
                   d->samples);
}

/* Names of the interfaces of a sample that are up. */
static GPtrArray *
body_up (JsonObject *body)
{
  JsonNode *ifs = json_object_get_member (body, "interfaces");
  GPtrArray *up = g_ptr_array_new_with_free_func (g_free);

  if (ifs == NULL || !JSON_NODE_HOLDS_ARRAY (ifs))
    return up;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (ifs)); i++)
    {
      JsonObject *o = json_array_get_object_element (json_node_get_array (ifs), i);

      if (o && json_object_get_boolean_member_with_default (o, "up", FALSE))
        g_ptr_array_add (up, g_strdup (json_object_get_string_member_with_default (o, "name", "")));
    }
  return up;
}

static void
housekeeping_schedule (Reportd *d)
{
  gint64 t = -1;

  if (d->watchdog_us > 0)
    t = d->last_ping_us + d->watchdog_us;
  if (d->paused && (t < 0 || d->last_sample_us + PAUSED_REFRESH_US < t))
    t = d->last_sample_us + PAUSED_REFRESH_US;
  if (d->housekeeping)
    g_source_set_ready_time (d->housekeeping, t);
}

/* Pings when the watchdog would be due before `next_us`, the caller's
 * next wakeup. */
static void
watchdog_feed (Reportd *d, gint64 now, gint64 next_us)
{
  if (d->watchdog_us <= 0 || d->last_ping_us + d->watchdog_us > next_us)
    return;
  wf_daemon_watchdog_ping (d->life);
  d->last_ping_us = now;
  housekeeping_schedule (d);
}

static char *
names_text (Reportd *d, GPtrArray *names)
{
  if (names && names->len > 0)
    {
      GString *text = g_string_new (NULL);

      for (guint i = 0; i < names->len; i++)
        g_string_append_printf (text, "%s%s", i ? ", " : "", (const char *) names->pdata[i]);
      return g_string_free (text, FALSE);
    }
  if (d->config->interfaces && d->config->interfaces[0])
    return g_strjoinv (", ", d->config->interfaces);
  return g_strdup ("every Wi-Fi interface");
}

/* Every reported interface is down or absent: no reports and no wakeup
 * per period until a link event brings one up (rtnetlink: without it
 * nothing would, so the period then never stops). The caller samples
 * once more for the textfile and the local channel: no stale "up",
 * counters as they are; they are refreshed every PAUSED_REFRESH_US. */
static void
pause_reports (Reportd *d)
{
  g_autofree char *which = names_text (d, NULL);

  if (d->period)
    g_source_remove (d->period);
  d->period = 0;
  d->paused = TRUE;
  d->primed = FALSE;
  g_message ("%s down: reports paused", which);
  wf_notifyf ("STATUS=reports paused: %s down", which);
  housekeeping_schedule (d);
}

static gboolean tick (gpointer data);

/* The caller samples (for the textfile and the local channel at once);
 * reports are sent from the next tick on: the rates of that sample span
 * the pause. */
static void
resume_reports (Reportd *d, GPtrArray *up)
{
  g_autofree char *which = names_text (d, up);

  d->paused = FALSE;
  d->primed = TRUE;
  g_message ("%s up: reports resumed", which);
  wf_notifyf ("STATUS=reports resumed: %s up", which);
  d->period = g_timeout_add (d->interval_ms, tick, d);
  housekeeping_schedule (d);
}

/* One sample to the textfile and the local channel and, when `send`, as
 * a UDP report; with `may_pause` a sample with nothing up pauses first
 * (so that it is not sent, and its local report says "paused"). The
 * names of the sampled interfaces that are up. */
static GPtrArray *
take_sample (Reportd *d, gboolean send, gboolean may_pause)
{
  g_autoptr(JsonObject) body = wf_sampler_sample (d->sampler);
  gint64 now = g_get_real_time ();
  GPtrArray *up = body_up (body);

  d->samples++;
  d->last_sample_us = g_get_monotonic_time ();
  if (d->options->once && d->samples < 2)
    return up; /* rates need a second sample */
  if (may_pause && up->len == 0 && !d->paused && d->netwatch && !d->options->once)
    pause_reports (d);
  write_textfile (d, body, now);
  if (d->channel || d->options->once)
    {
      char *text = local_json (d, body, now);

      if (d->options->once)
        {
          printf ("%s\n", text);
          g_free (text);
        }
      else
        wf_reportd_channel_set (d->channel, text);
    }
  /* The first sample (at start, after a pause) has no rates over one
   * period: a receiver would count a host without goodput. */
  if (d->send && send && !d->paused)
    {
      wf_sampler_strip_local (body);
      wf_reportd_send_report (d->send, d->sampler, body, d->config->interval_s);
    }
  if (d->samples == 1 || d->samples % 60 == 0 || !wf_daemon_is_ready (d->life))
    notify_status (d, body);
  housekeeping_schedule (d); /* a refresh is due a while after this sample */
  return up;
}

static gboolean
tick (gpointer data)
{
  Reportd *d = data;
  g_autoptr(GPtrArray) up = take_sample (d, d->primed || d->options->once, TRUE);
  gint64 now = g_get_monotonic_time ();

  if (d->options->once && d->samples >= 2)
    {
      g_main_loop_quit (d->loop);
      d->period = 0;
      return G_SOURCE_REMOVE;
    }
  if (d->paused)
    return G_SOURCE_REMOVE; /* pause_reports() let go of the period */
  d->primed = TRUE;
  /* The watchdog rides on the ticks: no wakeup of its own. */
  watchdog_feed (d, now, now + (gint64) d->interval_ms * 1000 + COALESCE_US);
  return G_SOURCE_CONTINUE;
}

static gboolean
housekeeping_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
  return callback (data);
}

static GSourceFuncs housekeeping_funcs = { .dispatch = housekeeping_dispatch };

static gboolean
housekeeping (gpointer data)
{
  Reportd *d = data;
  gint64 now = g_get_monotonic_time ();

  if (d->paused && now + COALESCE_US >= d->last_sample_us + PAUSED_REFRESH_US)
    {
      g_autoptr(GPtrArray) up = take_sample (d, FALSE, FALSE);

      /* Up without a link event (notifications lost, or unreadable). */
      if (up->len > 0)
        resume_reports (d, up);
    }
  if (d->watchdog_us > 0)
    {
      wf_daemon_watchdog_ping (d->life);
      d->last_ping_us = now;
    }
  housekeeping_schedule (d);
  return G_SOURCE_CONTINUE;
}

static gboolean
setup (Reportd *d, GError **error)
{
  const WfReportdConfig *c = d->config;
  WfSamplerConfig sc = {
    .interfaces = c->interfaces,
    .top_n = c->top_flows,
    .tcp_status = d->options->tcp_status,
  };
  g_autoptr(GError) local = NULL;

  d->sampler = wf_sampler_new (&sc, sampler_log, d);
  try_scans (d);
  if (c->send)
    {
      g_autofree char *host_id = wf_report_host_id (d->options->machine_id, error);
      g_autoptr(GBytes) key = NULL;
      g_autofree char *key_file = c->key_file ? g_strdup (c->key_file)
                                              : wf_keyfile_credential ("reportd.key");

      if (host_id == NULL)
        return FALSE;
      /* systemd 257 writes credentials 0440 (wf_report_load_key_full). */
      if (key_file && (key = wf_report_load_key_full (key_file, c->key_file == NULL, error)) == NULL)
        return FALSE;
      d->sender = wf_report_sender_new (host_id, key);
      wf_report_sender_set_target_size (d->sender, c->max_datagram);
      if (c->hostname && !wf_report_sender_set_hostname (d->sender, g_get_host_name ()))
        g_message ("host name '%s' is not usable in reports (control characters or too "
                   "long): reports carry none", g_get_host_name ());
      d->send = wf_reportd_send_new (d->sender, c->destination, c->port, c->dscp, d->rl);
      g_message ("host id %s, reports %s, destination %s, datagrams up to %u bytes "
                 "(lowest-goodput flows left out above)", host_id,
                 key ? "signed (HMAC-SHA256)" : "unsigned (no key)",
                 c->destination ? c->destination : "the default gateway", c->max_datagram);
      if (c->dscp)
        g_message ("reports marked DSCP %s (%u), priority %d", wf_reportd_dscp_name (c->dscp)
                   ? wf_reportd_dscp_name (c->dscp) : "number", c->dscp, WF_REPORTD_SO_PRIORITY);
      else
        g_message ("reports not marked (dscp=0)");
    }
  else
    g_message ("not sending reports (--no-send / send=no)");

  d->textfile_dir = g_strdup (wf_textfile_dir (c->textfile_dir_explicit ? c->textfile_dir : NULL,
                                                &d->textfile_default));
  /* A directory or file the user named must work from the start: it is
   * never created, and never replaces what is not a regular file. */
  if (d->textfile_dir && !d->textfile_default &&
      !wf_textfile_check (d->textfile_dir, WF_PROMETHEUS_FILE, error))
    return FALSE;

  if (!d->options->once && c->socket_path[0])
    {
      gboolean own = g_str_equal (c->socket_path, WF_REPORTD_DEFAULT_SOCKET);
      g_autofree char *dir = g_path_get_dirname (c->socket_path);

      /* Our RuntimeDirectory= alone is ours to create (a run by hand). */
      if (!own || wf_file_make_own_dir (dir, 0755, &local))
        d->channel = wf_reportd_channel_new (c->socket_path, &local);
      if (d->channel == NULL && !own)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "--socket: ");
          return FALSE;
        }
      /* The default one: the reports and the textfile do not need it. */
      if (d->channel == NULL)
        g_warning ("no local channel for wlanfairctl: %s", local->message);
      g_clear_error (&local);
    }

  d->netwatch = wf_netwatch_new (network_changed, d, &local);
  if (d->netwatch == NULL)
    g_warning ("%s: gateway and route changes are only noticed when sending fails",
               local->message);
  return TRUE;
}

int
wf_reportd_run (const WfReportdConfig *config, const WfReportdRunOptions *options)
{
  Reportd d = { .config = config, .options = options,
                .interval_ms = (guint) lround (config->interval_s * 1000) };
  g_autoptr(GError) error = NULL;

  d.loop = g_main_loop_new (NULL, FALSE);
  d.rl = wf_ratelimit_new (G_LOG_DOMAIN, 60 * G_USEC_PER_SEC);
  d.once = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
  d.life = wf_daemon_new (G_LOG_DOMAIN, d.loop, "stopping");
  /* A local client that goes away mid-write must not kill us. */
  signal (SIGPIPE, SIG_IGN);

  if (!setup (&d, &error))
    {
      g_printerr ("wlanfair-reportd: %s\n", error->message);
      d.exit_code = 1;
      goto out;
    }
  g_message ("sampling every %g s, %s, top %u flows", config->interval_s,
             config->interfaces && config->interfaces[0] ? "configured interfaces" : "Wi-Fi interfaces",
             config->top_flows);

  d.watchdog_us = wf_daemon_watchdog_interval_us (d.life);
  d.last_ping_us = g_get_monotonic_time ();
  d.housekeeping = g_source_new (&housekeeping_funcs, sizeof (GSource));
  g_source_set_callback (d.housekeeping, housekeeping, &d, NULL);
  g_source_set_name (d.housekeeping, "wlanfair-reportd housekeeping");
  housekeeping_schedule (&d);
  g_source_attach (d.housekeeping, NULL);

  /* The first sample at once; it may pause already. */
  d.period = g_timeout_add (d.interval_ms, tick, &d);
  tick (&d);
  g_main_loop_run (d.loop);
  wf_daemon_stopping (d.life);

out:
  if (d.housekeeping)
    {
      g_source_destroy (d.housekeeping);
      g_source_unref (d.housekeeping);
    }
  wf_reportd_channel_free (d.channel);
  wf_netwatch_free (d.netwatch);
  wf_reportd_send_free (d.send);
  wf_report_sender_free (d.sender);
  wf_sampler_free (d.sampler);
  wf_scancount_free (d.scans);
  wf_ratelimit_free (d.rl);
  wf_ratelimit_free (d.once);
  g_free (d.textfile_dir);
  wf_daemon_free (d.life);
  g_main_loop_unref (d.loop);
  return d.exit_code;
}
