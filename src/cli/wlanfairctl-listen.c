/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl listen: receive the hosts' reports (docs/report-protocol.md)
 * on one dual-stack UDP socket and show them as one live table, with
 * Jain's and the trade-off index across hosts. Any datagram is hostile:
 * it is validated, replay-checked, counted by reason and dropped. */
#include "config.h"

#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include "wlanfair-error.h"
#include "wlanfair-number.h"
#include "wlanfair-report.h"
#include "wlanfair-report-socket.h"
#include "wlanfair-text.h"
#include "wlanfairctl.h"
#include "wlanfairctl-listen.h"

/* Recv buffer: any UDP datagram fits, so oversized ones are seen whole. */
#define RECV_BUF 65536
/* Datagrams handled per wake-up before the refresh gets a turn. */
#define RECV_BATCH 256
/* Rejection log lines per reason per LOG_PERIOD. */
#define LOG_BURST 5
#define LOG_PERIOD (10 * G_USEC_PER_SEC)

static void
row_free (gpointer data)
{
  Row *r = data;

  wf_report_view_free (r->view);
  g_free (r);
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

static int
validate (Listen *l)
{
  int rc;

  if (l->port < 1 || l->port > 65535)
    return wf_cli_usage_error ("--port: %d is not a port (1..65535)", l->port);
  if (l->bind_arg)
    {
      g_autoptr(GInetAddress) a = g_inet_address_new_from_string (l->bind_arg);

      if (a == NULL)
        return wf_cli_usage_error ("--bind: '%s' is not an IPv4 or IPv6 address", l->bind_arg);
    }
  if (l->capacity_arg &&
      (rc = wf_cli_parse_number ("--capacity", l->capacity_arg, WF_NUMBER_SI | WF_NUMBER_POSITIVE,
                        &l->capacity)))
    return rc;
  if (l->alpha_arg &&
      (rc = wf_cli_parse_number ("--alpha", l->alpha_arg, WF_NUMBER_NONNEG, &l->alpha)))
    return rc;
  if (l->alpha_arg && !l->capacity_arg)
    return wf_cli_usage_error ("--alpha needs --capacity");
  if (l->duration_arg &&
      (rc = wf_cli_parse_number ("--duration", l->duration_arg, WF_NUMBER_POSITIVE, &l->duration)))
    return rc;
  if (l->window_arg &&
      (rc = wf_cli_parse_number ("--window", l->window_arg, WF_NUMBER_POSITIVE, &l->window)))
    return rc;
  if (l->window > 86400)
    return wf_cli_usage_error ("--window: at most 86400 seconds");
  if (l->expire < 1 || l->expire > 1000)
    return wf_cli_usage_error ("--expire: %d is not 1..1000 intervals", l->expire);
  if (l->max_hosts < 1 || l->max_hosts > 1000000)
    return wf_cli_usage_error ("--max-hosts: %d is not 1..1000000", l->max_hosts);
  /* Unset (G_MININT): no limit. Given, it must end: 0 would mean "never". */
  if (l->count != G_MININT && l->count <= 0)
    return wf_cli_usage_error ("--count: %d is not 1 or more (leave it out to run until "
                               "interrupted)", l->count);
  if (l->once && l->count > 0)
    return wf_cli_usage_error ("--once and --count exclude each other");
  if (l->count == G_MININT)
    l->count = 0;
  if (l->once)
    l->count = 1;
  if (l->direction_arg == NULL || g_str_equal (l->direction_arg, "total"))
    l->direction = DIR_TOTAL;
  else if (g_str_equal (l->direction_arg, "rx"))
    l->direction = DIR_RX;
  else if (g_str_equal (l->direction_arg, "tx"))
    l->direction = DIR_TX;
  else
    return wf_cli_usage_error ("--direction: '%s' is not rx, tx or total", l->direction_arg);
  return WF_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* Socket                                                              */

static gboolean
open_socket (Listen *l, GError **error)
{
  l->sock = wf_report_socket_open (l->bind_arg, (guint16) l->port, l->bound,
                                   sizeof l->bound, error);
  return l->sock != NULL;
}

static void
refresh (Listen *l)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter it;
  gpointer value;

  /* A host that missed --expire intervals leaves the table (its replay
   * state stays as long as a replay of its reports could be fresh). */
  g_hash_table_iter_init (&it, l->rows);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      Row *r = value;

      if (now - r->seen_mono > (gint64) (l->expire * r->view->interval_s * G_USEC_PER_SEC))
        g_hash_table_iter_remove (&it);
    }

  wf_listen_print_table (l, now);
}

/* ------------------------------------------------------------------ */
/* Datagrams                                                           */

static void
reject (Listen *l, WfReportReject reason, const char *from, gsize size, const char *detail)
{
  LogLimit *lim = &l->limits[reason];
  gint64 now = g_get_monotonic_time ();

  l->rejected[reason]++;
  if (now - lim->period_start >= LOG_PERIOD)
    {
      lim->period_start = now;
      lim->in_period = 0;
    }
  if (lim->in_period >= LOG_BURST)
    {
      lim->suppressed++;
      return;
    }
  lim->in_period++;

  {
    /* Parser messages may quote the datagram: no control, bidi or
     * invalid byte to the terminal (their own escapes stay as they are). */
    g_autofree char *safe = wf_text_fit (detail, G_MAXSIZE, WF_TEXT_CUT | WF_TEXT_ESCAPED);
    g_printerr ("%s: rejected %" G_GSIZE_FORMAT " bytes from %s: %s",
                g_get_prgname (), size, from, safe);
  }
  if (lim->suppressed)
    g_printerr (" (%" G_GUINT64_FORMAT " more '%s' not logged)", lim->suppressed,
                wf_report_reject_to_string (reason));
  g_printerr ("\n");

  if (l->json)
    wf_listen_print_reject (l, reason, from, size, detail, lim->suppressed);
  lim->suppressed = 0;
}

static void
handle (Listen *l, const guint8 *data, gsize size, const char *from)
{
  g_autoptr(GError) error = NULL;
  WfReportReject reason = WF_REPORT_OK;
  WfReportView *v;
  Row *r;

  l->received++;
  v = wf_report_parse (data, size, l->key, &reason, &error);
  if (v == NULL)
    {
      reject (l, reason, from, size, error ? error->message : "?");
      return;
    }
  reason = wf_report_replay_check (l->replay, v, g_get_real_time (), &error);
  if (reason != WF_REPORT_OK)
    {
      reject (l, reason, from, size, error ? error->message : "?");
      wf_report_view_free (v);
      return;
    }

  r = g_hash_table_lookup (l->rows, v->host);
  if (r == NULL)
    {
      /* Rows can outlive the replay state with a long --expire: bound
       * them too, the longest silent one goes. */
      if (g_hash_table_size (l->rows) >= (guint) l->max_hosts)
        {
          GHashTableIter it;
          gpointer key, value;
          const char *oldest = NULL;
          gint64 oldest_seen = G_MAXINT64;

          g_hash_table_iter_init (&it, l->rows);
          while (g_hash_table_iter_next (&it, &key, &value))
            if (((Row *) value)->seen_mono < oldest_seen)
              {
                oldest_seen = ((Row *) value)->seen_mono;
                oldest = key;
              }
          if (oldest)
            g_hash_table_remove (l->rows, oldest);
        }
      r = g_new0 (Row, 1);
      g_hash_table_insert (l->rows, g_strdup (v->host), r);
    }
  wf_report_view_free (r->view);
  r->view = v;
  g_strlcpy (r->from, from, sizeof r->from);
  r->seen_mono = g_get_monotonic_time ();
  r->reports++;
  l->accepted++;

  if (l->json)
    wf_listen_print_report (l, r);
  if (l->count > 0 && l->accepted >= (guint64) l->count)
    g_main_loop_quit (l->loop);
}

static gboolean
on_readable (GSocket *sock, GIOCondition cond, gpointer data)
{
  Listen *l = data;

  for (int i = 0; i < RECV_BATCH && g_main_loop_is_running (l->loop); i++)
    {
      g_autoptr(GSocketAddress) sa = NULL;
      g_autoptr(GError) error = NULL;
      char from[64];
      gssize n;

      n = g_socket_receive_from (sock, &sa, (char *) l->buf, RECV_BUF, NULL, &error);
      if (n < 0)
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            /* ICMP errors and the like are per datagram: go on. */
            g_debug ("receive: %s", error->message);
          break;
        }
      wf_report_format_from (sa, from, sizeof from);
      handle (l, l->buf, (gsize) n, from);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_tick (gpointer data)
{
  refresh (data);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_signal (gpointer data)
{
  g_main_loop_quit (((Listen *) data)->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_duration (gpointer data)
{
  Listen *l = data;

  g_main_loop_quit (l->loop);
  return G_SOURCE_CONTINUE; /* removed by the caller of the loop */
}

int
wf_cli_listen (int argc, char **argv)
{
  Listen l = {
    .port = WF_REPORT_PORT, .expire = 5, .max_hosts = WF_REPORT_REPLAY_MAX_HOSTS,
    .alpha = 1.0, .window = 30, .count = G_MININT,
  };
  g_autofree char *help = g_strdup_printf (
    "Receives wlanfair reports (UDP port %d by default, IPv4 and IPv6) and shows\n"
    "every host's goodput, signal, MCS, bitrate and scans with Jain's index and\n"
    "the trade-off index across hosts. Rejected datagrams are counted by reason.\n"
    "See wlanfairctl-listen(1) and docs/report-protocol.md.", WF_REPORT_PORT);
  const GOptionEntry entries[] = {
    { "port", 'p', 0, G_OPTION_ARG_INT, &l.port, "UDP port (default 7455)", "P" },
    { "bind", 'b', 0, G_OPTION_ARG_STRING, &l.bind_arg,
      "Local address (default [::], IPv4 and IPv6)", "ADDR" },
    { "key", 'k', 0, G_OPTION_ARG_FILENAME, &l.key_path,
      "Pre-shared key file: accept only reports with a valid HMAC", "FILE" },
    { "capacity", 'c', 0, G_OPTION_ARG_STRING, &l.capacity_arg,
      "Capacity in bit/s (SI suffixes) for the trade-off index", "C" },
    { "alpha", 'a', 0, G_OPTION_ARG_STRING, &l.alpha_arg,
      "Trade-off exponent (default 1)", "A" },
    { "direction", 0, 0, G_OPTION_ARG_STRING, &l.direction_arg,
      "Goodput the indices use: rx, tx or total (default)", "DIR" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &l.json,
      "One JSON object per line: each report, rejection and refresh", NULL },
    { "once", '1', 0, G_OPTION_ARG_NONE, &l.once, "Exit after the first accepted report", NULL },
    { "count", 'n', 0, G_OPTION_ARG_INT, &l.count, "Exit after N accepted reports", "N" },
    { "duration", 'd', 0, G_OPTION_ARG_STRING, &l.duration_arg, "Exit after S seconds", "S" },
    { "expire", 0, 0, G_OPTION_ARG_INT, &l.expire,
      "Drop a host from the table after N missed intervals (default 5)", "N" },
    { "window", 0, 0, G_OPTION_ARG_STRING, &l.window_arg,
      "Accepted clock difference in seconds, plus one interval (default 30)", "S" },
    { "max-hosts", 0, 0, G_OPTION_ARG_INT, &l.max_hosts, "Hosts tracked at most (default 1024)", "N" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) src = NULL;
  guint ids[4] = { 0 };
  int rc = WF_EXIT_OK;

  g_option_context_set_summary (ctx, help);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    goto out;
  if (argc > 1)
    {
      rc = wf_cli_usage_error ("unexpected argument '%s'", argv[1]);
      goto out;
    }
  if ((rc = validate (&l)))
    goto out;

  if (l.key_path && (l.key = wf_report_load_key (l.key_path, &error)) == NULL)
    {
      rc = wf_cli_fail ("%s", error->message);
      goto out;
    }
  if (!open_socket (&l, &error))
    {
      rc = wf_cli_fail ("cannot listen on port %d: %s", l.port, error->message);
      goto out;
    }

  l.replay = wf_report_replay_new ((gint64) (l.window * G_USEC_PER_SEC), (guint) l.max_hosts);
  l.rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, row_free);
  l.loop = g_main_loop_new (NULL, FALSE);
  l.buf = g_malloc (RECV_BUF);
  l.tty = !l.json && isatty (STDOUT_FILENO);

  src = g_socket_create_source (l.sock, G_IO_IN, NULL);
  g_source_set_callback (src, (GSourceFunc) (void (*) (void)) on_readable, &l, NULL);
  g_source_attach (src, NULL);
  ids[0] = g_timeout_add (1000, on_tick, &l);
  if (l.duration > 0)
    ids[1] = g_timeout_add ((guint) MIN (l.duration * 1000, G_MAXUINT), on_duration, &l);
  ids[2] = g_unix_signal_add (SIGINT, on_signal, &l);
  ids[3] = g_unix_signal_add (SIGTERM, on_signal, &l);

  if (!l.json)
    g_printerr ("%s: listening on %s\n", g_get_prgname (), l.bound);
  g_main_loop_run (l.loop);
  /* The final state, for scripts and for --once. */
  refresh (&l);
  g_source_destroy (src);
  for (gsize i = 0; i < G_N_ELEMENTS (ids); i++)
    if (ids[i])
      g_source_remove (ids[i]);

out:
  g_free (l.bind_arg);
  g_free (l.key_path);
  g_free (l.capacity_arg);
  g_free (l.alpha_arg);
  g_free (l.duration_arg);
  g_free (l.window_arg);
  g_free (l.direction_arg);
  g_free (l.buf);
  if (l.key)
    g_bytes_unref (l.key);
  g_clear_object (&l.sock);
  wf_report_replay_free (l.replay);
  if (l.rows)
    g_hash_table_unref (l.rows);
  if (l.loop)
    g_main_loop_unref (l.loop);
  return rc;
}
