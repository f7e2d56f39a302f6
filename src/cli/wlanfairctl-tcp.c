/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl tcp status: what wlanfair-tcpd registered and applied (from
 * its status file, with counters refreshed first where we may signal the
 * daemon), the kernel's CC settings, and the live connections that run an
 * ackloss CC (sock_diag: no privilege needed). */
#include <stdio.h>
#include <string.h>

#include "wlanfair-sockdiag.h"
#include "wlanfair-sysctl.h"
#include "wlanfair-tcpstatus.h"
#include "wlanfair-text.h"
#include "wlanfairctl.h"

#define STATUS_FILE WF_TCPSTATUS_FILE
/* The daemon answers in milliseconds; a stuck one must not hang us. */
#define REFRESH_TIMEOUT_MS 1000

typedef struct {
  GPtrArray *rows; /* JsonNode objects */
} Conns;

static gboolean
collect_conn (const WfSockdiagTcp *s, gpointer data)
{
  Conns *c = data;
  g_autoptr(JsonBuilder) b = NULL;

  if (!g_str_has_prefix (s->cong, "ackloss_"))
    return TRUE;
  b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "local");
  json_builder_add_string_value (b, s->src);
  json_builder_set_member_name (b, "remote");
  json_builder_add_string_value (b, s->dst);
  json_builder_set_member_name (b, "cc");
  json_builder_add_string_value (b, s->cong);
  if (s->have_info)
    {
      json_builder_set_member_name (b, "cwnd");
      json_builder_add_int_value (b, s->info.snd_cwnd);
      json_builder_set_member_name (b, "ssthresh");
      json_builder_add_int_value (b, s->info.snd_ssthresh);
      json_builder_set_member_name (b, "rtt_us");
      json_builder_add_int_value (b, s->info.rtt_us);
      json_builder_set_member_name (b, "retrans");
      json_builder_add_int_value (b, s->info.total_retrans);
    }
  json_builder_end_object (b);
  g_ptr_array_add (c->rows, json_builder_get_root (b));
  return TRUE;
}

/* An unreadable sysctl shows as empty rather than failing the status. */
static char *
read_sysctl (const char *name)
{
  g_autofree char *path = g_strconcat ("net/ipv4/", name, NULL);
  char *value = wf_sysctl_read (path, NULL);

  return value ? value : g_strdup ("");
}

static void
add_words (JsonBuilder *b, const char *key, const char *list)
{
  g_auto(GStrv) words = g_strsplit_set (list, " \t", -1);

  json_builder_set_member_name (b, key);
  json_builder_begin_array (b);
  for (char **w = words; *w; w++)
    if (**w)
      json_builder_add_string_value (b, *w);
  json_builder_end_array (b);
}

/* How old the counters shown are, and why. */
static void
print_counters_age (JsonObject *status, WfTcpstatusRefresh how)
{
  gint64 updated = json_object_get_int_member_with_default (status, "updated", 0);
  gint64 period = json_object_get_int_member_with_default (status, "refresh_s", 0);
  gint64 age = MAX (0, g_get_real_time () / G_USEC_PER_SEC - updated);
  g_autoptr(GDateTime) t = g_date_time_new_from_unix_local (updated);
  g_autofree char *when = t ? g_date_time_format (t, "%H:%M:%S") : g_strdup ("?");

  if (how == WF_TCPSTATUS_REFRESHED)
    {
      printf ("counters     read now\n");
      return;
    }
  if (period <= 0)
    {
      /* An older daemon: it rewrote the file every second. */
      printf ("counters     as of %s (%" G_GINT64_FORMAT " s ago)\n", when, age);
      return;
    }
  /* Rewritten when they change, compared every refresh_s: the file's
   * counters are at most that far behind the kernel's. */
  printf ("counters     as written at %s (%" G_GINT64_FORMAT " s ago), at most %"
          G_GINT64_FORMAT " s behind the kernel's\n", when, age, period);
  if (how == WF_TCPSTATUS_DENIED)
    printf ("             (not refreshed: only root or the daemon's user may ask for "
            "fresh counters)\n");
  else if (how == WF_TCPSTATUS_TIMEOUT)
    printf ("             (not refreshed: the daemon did not answer within %g s)\n",
            REFRESH_TIMEOUT_MS / 1000.0);
}

static void
print_table (JsonObject *status, WfTcpstatusRefresh how, const char *def,
             const char *allowed, const char *available, GPtrArray *conns)
{
  printf ("daemon       %s\n", status ? "running" : "not running");
  if (status)
    {
      JsonObject *reg = json_object_get_object_member (status, "registered");
      g_autoptr(GList) names = reg ? json_object_get_members (reg) : NULL;
      double qdelay;

      g_autofree char *scope = NULL, *cc = NULL, *registration = NULL, *reduction = NULL;

      /* The status file's strings are shown escaped: whoever could write
       * it must not reach the terminal. */
      scope = wf_text_escape (json_object_get_string_member_with_default (status, "scope", "?"));
      cc = wf_text_escape (json_object_get_string_member_with_default (status, "cc", "?"));
      registration = wf_text_escape (json_object_get_string_member_with_default (status,
                                                                                 "registration", "?"));
      /* No key: a daemon older than the setting, which always halved. */
      reduction = wf_text_escape (json_object_get_string_member_with_default (status, "reduction",
                                                                              "halve"));
      printf ("scope        %s (cc %s)\n", scope, cc);
      printf ("parameters   thresh %" G_GINT64_FORMAT ", beta %g\n",
              json_object_get_int_member_with_default (status, "thresh", 0),
              json_object_get_double_member_with_default (status, "beta", 0));
      printf ("registration %s\n", registration);
      printf ("confirm      %" G_GINT64_FORMAT " lost ACK(s) in the waiting round, or %g %% of ACKs\n",
              json_object_get_int_member_with_default (status, "confirm", 0),
              json_object_get_double_member_with_default (status, "confirm_rate", 0));
      qdelay = json_object_get_double_member_with_default (status, "min_queue_delay_ms", 0);
      if (qdelay > 0)
        printf ("queue delay  halve only %g ms or more above the minimum RTT\n", qdelay);
      else
        printf ("queue delay  not required (gate off)\n");
      printf ("reduction    %s\n", reduction);
      print_counters_age (status, how);
      printf ("\n%-14s %10s %10s %8s  %s\n", "cc", "acks", "ack_losses", "halvings",
              "suppressed: data_loss reorder unconfirmed fallback no_queue");
      for (GList *l = names; l; l = l->next)
        {
          JsonObject *c = json_object_get_object_member (reg, l->data);
          g_autofree char *name = wf_text_fit (l->data, 14, WF_TEXT_KEEP);

          /* Validated: all counters or none (the daemon read none yet). */
          if (json_object_get_size (c) == 0)
            {
              printf ("%s (no counters read yet)\n", name);
              continue;
            }
          printf ("%s %10" G_GINT64_FORMAT " %10" G_GINT64_FORMAT " %8" G_GINT64_FORMAT
                  "  %21" G_GINT64_FORMAT " %7" G_GINT64_FORMAT " %11" G_GINT64_FORMAT
                  " %8" G_GINT64_FORMAT " %8" G_GINT64_FORMAT "\n",
                  name,
                  json_object_get_int_member_with_default (c, "acks", 0),
                  json_object_get_int_member_with_default (c, "ack_losses", 0),
                  json_object_get_int_member_with_default (c, "halvings", 0),
                  json_object_get_int_member_with_default (c, "suppressed_data_loss", 0),
                  json_object_get_int_member_with_default (c, "suppressed_reorder", 0),
                  json_object_get_int_member_with_default (c, "suppressed_unconfirmed", 0),
                  json_object_get_int_member_with_default (c, "suppressed_fallback", 0),
                  json_object_get_int_member_with_default (c, "suppressed_no_queue", 0));
        }
      for (GList *l = names; l; l = l->next)
        {
          JsonObject *c = json_object_get_object_member (reg, l->data);
          gint64 ss = json_object_get_int_member_with_default (c, "repaired_ssthresh", 0);
          gint64 cw = json_object_get_int_member_with_default (c, "repaired_cwnd", 0);
          gint64 dr = json_object_get_int_member_with_default (c, "drained", 0);
          g_autofree char *name = wf_text_fit (l->data, 14, WF_TEXT_KEEP);

          if (dr > 0)
            printf ("%s of the halvings, %" G_GINT64_FORMAT " drained below half\n",
                    name, dr);
          /* Only where it happened: a kernel that skips callbacks (6.18). */
          if (ss > 0 || cw > 0)
            printf ("%s repaired after skipped kernel callbacks: ssthresh %" G_GINT64_FORMAT
                    ", cwnd %" G_GINT64_FORMAT "\n",
                    name, ss, cw);
        }
      printf ("\n");
    }
  printf ("default      %s\nallowed      %s\navailable    %s\n", def, allowed, available);
  printf ("\nconnections using an ackloss CC: %u\n", conns->len);
  for (guint i = 0; i < conns->len; i++)
    {
      JsonObject *c = json_node_get_object (g_ptr_array_index (conns, i));

      printf ("  %-24s -> %-24s %-14s cwnd %-5" G_GINT64_FORMAT " rtt %" G_GINT64_FORMAT " us\n",
              json_object_get_string_member (c, "local"),
              json_object_get_string_member (c, "remote"),
              json_object_get_string_member (c, "cc"),
              json_object_get_int_member_with_default (c, "cwnd", 0),
              json_object_get_int_member_with_default (c, "rtt_us", 0));
    }
}

static int
tcp_status (int argc, char **argv)
{
  gboolean json = FALSE;
  g_autofree char *status_file = NULL;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
    { "status-file", 0, 0, G_OPTION_ARG_FILENAME, &status_file,
      "The daemon's status file (default " STATUS_FILE ")", "FILE" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *def = read_sysctl ("tcp_congestion_control");
  g_autofree char *allowed = read_sysctl ("tcp_allowed_congestion_control");
  g_autofree char *available = read_sysctl ("tcp_available_congestion_control");
  Conns conns = { rows };
  g_autoptr(JsonNode) status = NULL;
  WfTcpstatusRefresh how = WF_TCPSTATUS_NOT_ASKED;
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Registered ACK-loss congestion controls, scope, parameters, counters\n"
    "and the live connections that use them.");
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  if (argc > 1)
    return wf_cli_usage_error ("unexpected argument '%s'", argv[1]);

  /* The daemon rewrites its file only when the counters changed, and
   * compares them every refresh_s seconds: ask for fresh ones. */
  status = wf_tcpstatus_load_fresh (status_file ? status_file : STATUS_FILE,
                                    REFRESH_TIMEOUT_MS, &how, &error);
  /* A file we cannot trust: nothing of it is printed. */
  if (error)
    return wf_cli_fail ("%s", error->message);
  if (!wf_sockdiag_dump_tcp (collect_conn, &conns, &error))
    return wf_cli_fail ("%s", error->message);

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "running");
      json_builder_add_boolean_value (b, status != NULL);
      json_builder_set_member_name (b, "daemon");
      if (status)
        json_builder_add_value (b, json_node_copy (status));
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "counters_refreshed");
      json_builder_add_boolean_value (b, how == WF_TCPSTATUS_REFRESHED);
      json_builder_set_member_name (b, "default");
      json_builder_add_string_value (b, def);
      add_words (b, "allowed", allowed);
      add_words (b, "available", available);
      json_builder_set_member_name (b, "connections");
      json_builder_begin_array (b);
      for (guint i = 0; i < rows->len; i++)
        json_builder_add_value (b, json_node_copy (g_ptr_array_index (rows, i)));
      json_builder_end_array (b);
      json_builder_end_object (b);
      wf_cli_print_json (b);
    }
  else
    print_table (status ? json_node_get_object (status) : NULL, how, def, allowed, available,
                 rows);
  return WF_EXIT_OK;
}

int
wf_cli_tcp (int argc, char **argv)
{
  if (argc < 2)
    return wf_cli_usage_error ("no tcp command given (status)");
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      printf ("Usage: wlanfairctl tcp status [--json] [--status-file FILE]\n\n"
              "See wlanfairctl-tcp(1).\n");
      return WF_EXIT_OK;
    }
  if (g_str_equal (argv[1], "status"))
    {
      wf_cli_enter_command ("status");
      return tcp_status (argc - 1, argv + 1);
    }
  return wf_cli_usage_error ("unknown tcp command '%s'", argv[1]);
}
