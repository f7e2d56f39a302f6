/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl ap: the access-point fairness controller as wlanfair-apd
 * reports it in its status file (rewritten every round). `ap status`
 * prints it once; `ap watch` (wlanfairctl-ap-watch.c) redraws it. The
 * file is only read: nothing here needs privilege or talks to the daemon. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-json.h"
#include "wlanfair-readfile.h"
#include "wlanfair-report-text.h"
#include "wlanfair-text.h"
#include "wlanfairctl-ap.h"
#include "wlanfairctl.h"

void
wf_ap_status_free (WfApStatus *st)
{
  if (st == NULL)
    return;
  g_free (st->path);
  g_clear_object (&st->parser);
  g_free (st->stale);
  g_free (st);
}

static gboolean
is_int (JsonObject *o, const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64;
}

/* The members every view needs, with their types; anything else may be
 * absent (shown as "-") so that a newer daemon's additions do no harm. */
static const char *
check_shape (JsonObject *o)
{
  static const char *const ints[] = { "pid", "time_us" };
  static const char *const strings[] = { "interface", "mode" };
  static const char *const objects[] = { "round", "reports" };
  JsonArray *stations;

  for (gsize i = 0; i < G_N_ELEMENTS (ints); i++)
    if (!is_int (o, ints[i]))
      return ints[i];
  if (json_object_get_int_member (o, "pid") <= 0)
    return "pid";
  for (gsize i = 0; i < G_N_ELEMENTS (strings); i++)
    if (!wf_json_string (o, strings[i], NULL))
      return strings[i];
  for (gsize i = 0; i < G_N_ELEMENTS (objects); i++)
    if (!wf_json_object (o, objects[i]))
      return objects[i];
  stations = wf_json_array (o, "stations");
  if (!stations)
    return "stations";
  for (guint i = 0; i < json_array_get_length (stations); i++)
    {
      JsonNode *n = json_array_get_element (stations, i);

      if (!JSON_NODE_HOLDS_OBJECT (n) || !wf_json_string (json_node_get_object (n), "mac", NULL))
        return "stations[].mac";
    }
  return NULL;
}

static char *
format_age (gint64 us)
{
  gint64 s = MAX (us, 0) / G_USEC_PER_SEC;

  if (s < 120)
    return g_strdup_printf ("%" G_GINT64_FORMAT " s", s);
  if (s < 7200)
    return g_strdup_printf ("%" G_GINT64_FORMAT " min", s / 60);
  if (s < 2 * 86400)
    return g_strdup_printf ("%" G_GINT64_FORMAT " h", s / 3600);
  return g_strdup_printf ("%" G_GINT64_FORMAT " days", s / 86400);
}

/* A file left by a killed daemon, or by one stuck in a round. */
static char *
stale_reason (JsonObject *o, gint64 now_us)
{
  gint64 pid = json_object_get_int_member (o, "pid");
  gint64 age = now_us - json_object_get_int_member (o, "time_us");
  g_autoptr(GString) why = g_string_new (NULL);

  if (age > WF_AP_STALE_US)
    {
      g_autofree char *a = format_age (age);

      g_string_append_printf (why, "last written %s ago", a);
    }
  /* EPERM: alive, only not ours (the daemon runs as root). */
  if (pid > G_MAXINT || (kill ((pid_t) pid, 0) < 0 && errno == ESRCH))
    g_string_append_printf (why, "%spid %" G_GINT64_FORMAT " is not running",
                            why->len ? ", " : "", pid);
  return why->len ? g_strdup (why->str) : NULL;
}

WfApLoad
wf_ap_status_load (const char *path, gint64 now_us, WfApStatus **out, char **message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  gsize len;
  JsonNode *root;
  JsonObject *o;
  const char *bad;
  const char *prescan_why = NULL;
  WfApStatus *st;

  *out = NULL;
  if (!wf_readfile_bounded (path, WF_READFILE_STATE_MAX, "a status file", &text, &len, &error))
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          *message = g_strdup_printf ("wlanfair-apd is not running (no %s; a daemon "
                                      "writing elsewhere: --status FILE)", path);
          return WF_AP_LOAD_MISSING;
        }
      /* The message names the file already. */
      *message = g_strdup (error->message);
      return WF_AP_LOAD_INVALID;
    }
  /* json-glib 1.6 leaks on malformed text (two roots, for one: found by
   * fuzzing, tests/fuzz/README.md) and `ap watch` reads the file every
   * few seconds: only well-formed JSON reaches it. */
  switch (wf_report_prescan (text, len, &prescan_why))
    {
    case WF_REPORT_OK:
      break;
    case WF_REPORT_REJECT_NOT_OBJECT:
      *message = g_strdup_printf ("%s: not a wlanfair-apd status (no JSON object)", path);
      return WF_AP_LOAD_INVALID;
    default:
      if (g_strstrip (text)[0] == '\0')
        *message = g_strdup_printf ("%s: not a wlanfair-apd status (no JSON object)", path);
      else
        *message = g_strdup_printf ("%s: not valid JSON (%s)", path, prescan_why);
      return WF_AP_LOAD_INVALID;
    }
  if (!json_parser_load_from_data (parser, text, (gssize) len, &error))
    {
      const char *why = error->message;

      /* json-glib names the text "<data>": the file is named already. */
      if (g_str_has_prefix (why, "<data>:"))
        why += strlen ("<data>:");
      *message = g_strdup_printf ("%s: not valid JSON (%s)", path, why);
      return WF_AP_LOAD_INVALID;
    }
  root = json_parser_get_root (parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT (root))
    {
      *message = g_strdup_printf ("%s: not a wlanfair-apd status (no JSON object)", path);
      return WF_AP_LOAD_INVALID;
    }
  o = json_node_get_object (root);
  if (!is_int (o, "version"))
    {
      *message = g_strdup_printf ("%s: not a wlanfair-apd status (no version)", path);
      return WF_AP_LOAD_INVALID;
    }
  if (json_object_get_int_member (o, "version") != 1)
    {
      *message = g_strdup_printf ("%s: status version %" G_GINT64_FORMAT
                                  ", this wlanfairctl reads version 1",
                                  path, json_object_get_int_member (o, "version"));
      return WF_AP_LOAD_INVALID;
    }
  if ((bad = check_shape (o)) != NULL)
    {
      *message = g_strdup_printf ("%s: malformed wlanfair-apd status: '%s' missing or "
                                  "of the wrong type", path, bad);
      return WF_AP_LOAD_INVALID;
    }

  st = g_new0 (WfApStatus, 1);
  st->path = g_strdup (path);
  st->parser = g_steal_pointer (&parser);
  st->status = o;
  st->stale = stale_reason (o, now_us);
  *out = st;
  return WF_AP_LOAD_OK;
}

/* ---- rendering ----------------------------------------------------------- */

/* Strings come from the file, host names from the stations' reports:
 * escaped (wf_text_escape(): no control, bidi or invalid byte reaches
 * the terminal); "-" for nothing. Cells and lines are then measured and
 * cut as escaped text (WF_TEXT_ESCAPED). */
static char *
clean (const char *s)
{
  if (s == NULL || *s == '\0')
    return g_strdup ("-");
  return wf_text_escape (s);
}

static char *
str_member (JsonObject *o, const char *key)
{
  return clean (wf_json_string (o, key, NULL));
}

static gboolean
bool_member (JsonObject *o, const char *key, gboolean def)
{
  JsonNode *n = o ? json_object_get_member (o, key) : NULL;

  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN
         ? json_node_get_boolean (n) : def;
}

static char *
bps_member (JsonObject *o, const char *key)
{
  double v;

  return wf_json_number (o, key, &v) ? wf_cli_format_bps (v) : g_strdup ("-");
}

/* Table cells are Mbit/s without the unit (the heading has it). */
static char *
mbps_member (JsonObject *o, const char *key)
{
  double v;

  return wf_json_number (o, key, &v) ? g_strdup_printf ("%.2f", v / 1e6) : g_strdup ("-");
}

static char *
down_up (JsonObject *o, const char *down, const char *up)
{
  g_autofree char *d = mbps_member (o, down), *u = mbps_member (o, up);

  return g_strdup_printf ("%s/%s", d, u);
}

/* What the actuator holds: rate caps (0: none that way), an added delay
 * or an airtime weight, whichever the setting carries. */
static char *
setting_text (JsonObject *s)
{
  g_autoptr(GString) t = g_string_new (NULL);
  double v;

  if (s == NULL)
    return g_strdup ("-");
  if (!bool_member (s, "limited", FALSE))
    return g_strdup ("none");
  if (wf_json_number (s, "rate_down_bps", &v) && v > 0)
    {
      g_autofree char *r = wf_cli_format_bps (v);

      g_string_append_printf (t, "cap down %s", r);
    }
  if (wf_json_number (s, "rate_up_bps", &v) && v > 0)
    {
      g_autofree char *r = wf_cli_format_bps (v);

      g_string_append_printf (t, "%s up %s", t->len ? "," : "cap", r);
    }
  if (wf_json_number (s, "delay_us", &v))
    g_string_append_printf (t, "%sdelay %.1f ms", t->len ? ", " : "", v / 1000);
  if (wf_json_number (s, "weight", &v))
    g_string_append_printf (t, "%sweight %.0f", t->len ? ", " : "", v);
  return g_strdup (t->len ? t->str : "limited");
}

static char *
demand_text (JsonObject *sta)
{
  if (!bool_member (sta, "counted", FALSE))
    return g_strdup ("none");
  if (bool_member (sta, "satisfied", FALSE))
    return g_strdup ("satisfied");
  /* Says why a station below idle= still counts (download-demand). */
  return g_strdup (bool_member (sta, "waits_at_ap", FALSE) ? "waiting" : "unsatisfied");
}

static char *
addresses_text (JsonObject *sta)
{
  JsonArray *a = wf_json_array (sta, "addresses");
  g_autoptr(GString) t = g_string_new (NULL);

  for (guint i = 0; a && i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      g_autofree char *s = NULL;

      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        continue;
      s = clean (json_node_get_string (n));
      g_string_append_printf (t, "%s%s", t->len ? "," : "", s);
    }
  return g_strdup (t->len ? t->str : "-");
}

enum { COL_MAC, COL_ADDR, COL_HOST, COL_SIGNAL, COL_MCS, COL_REPORT, COL_VIA, COL_AP,
       COL_DEMAND, COL_SHARE, COL_SETTING, COL_WHY, N_COLS };

static const char *const headings[N_COLS] = {
  "MAC", "ADDRESSES", "HOST", "SIGNAL", "MCS", "REPORT", "VIA", "AP", "DEMAND",
  "SHARE", "SETTING", "WHY",
};
/* Numbers right-aligned, text left. */
static const gboolean right[N_COLS] = {
  [COL_SIGNAL] = TRUE, [COL_MCS] = TRUE, [COL_REPORT] = TRUE, [COL_AP] = TRUE,
  [COL_SHARE] = TRUE,
};

static char **
station_row (JsonObject *sta)
{
  char **row = g_new0 (char *, N_COLS + 1);
  double v;

  row[COL_MAC] = str_member (sta, "mac");
  row[COL_ADDR] = addresses_text (sta);
  row[COL_HOST] = str_member (sta, "hostname");
  row[COL_SIGNAL] = wf_json_number (sta, "signal_dbm", &v)
                    ? g_strdup_printf ("%.0f dBm", v) : g_strdup ("-");
  /* -1: no MCS (legacy rates). */
  row[COL_MCS] = wf_json_number (sta, "tx_mcs", &v) && v >= 0
                 ? g_strdup_printf ("%.0f", v) : g_strdup ("-");
  row[COL_REPORT] = down_up (sta, "report_down_bps", "report_up_bps");
  /* How its reports arrive: addressed to the AP, or carried for a gateway. */
  row[COL_VIA] = bool_member (sta, "reporting", FALSE) ? str_member (sta, "report_path")
                                                       : g_strdup ("-");
  row[COL_AP] = down_up (sta, "ap_down_bps", "ap_up_bps");
  row[COL_DEMAND] = demand_text (sta);
  row[COL_SHARE] = mbps_member (sta, "share_bps");
  row[COL_SETTING] = setting_text (wf_json_object (sta, "setting"));
  row[COL_WHY] = str_member (sta, "why");
  if (!bool_member (sta, "trusted", TRUE) && bool_member (sta, "reporting", FALSE))
    {
      /* A report the controller does not believe: marked, like listen's "!". */
      char *host = g_strconcat (row[COL_HOST], " !", NULL);

      g_free (row[COL_HOST]);
      row[COL_HOST] = host;
    }
  return row;
}

/* Appends `text` cut at `width` columns (0: whole). */
static void
put_line (GString *out, guint width, const char *text)
{
  g_autofree char *shown = wf_text_fit (text, width > 0 ? width : G_MAXSIZE,
                                        WF_TEXT_CUT | WF_TEXT_ESCAPED);

  g_string_append (out, shown);
  g_string_append_c (out, '\n');
}

static void
put_cells (GString *line, char **cells, const guint *widths)
{
  for (int c = 0; c < N_COLS; c++)
    {
      int pad = (int) widths[c] - (int) wf_text_width (cells[c], WF_TEXT_ESCAPED);

      if (c > 0)
        g_string_append (line, "  ");
      if (right[c])
        g_string_append_printf (line, "%*s%s", pad, "", cells[c]);
      else if (c == N_COLS - 1)
        g_string_append (line, cells[c]); /* no trailing blanks */
      else
        g_string_append_printf (line, "%s%*s", cells[c], pad, "");
    }
}

static void
render_table (JsonArray *stations, guint width, GString *out)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  guint widths[N_COLS];
  g_autoptr(GString) line = g_string_new (NULL);

  for (int c = 0; c < N_COLS; c++)
    widths[c] = (guint) strlen (headings[c]);
  for (guint i = 0; i < json_array_get_length (stations); i++)
    {
      char **row = station_row (json_array_get_object_element (stations, i));

      for (int c = 0; c < N_COLS; c++)
        widths[c] = MAX (widths[c], (guint) wf_text_width (row[c], WF_TEXT_ESCAPED));
      g_ptr_array_add (rows, row);
    }

  put_line (out, width, "REPORT, AP: goodput down/up in Mbit/s (the station's report, the AP's "
                        "counters); VIA: how its reports arrive (addressed to the AP, or "
                        "carried to a gateway); SHARE: its allocation in Mbit/s");
  put_cells (line, (char **) headings, widths);
  put_line (out, width, line->str);
  for (guint i = 0; i < rows->len; i++)
    {
      g_string_truncate (line, 0);
      put_cells (line, g_ptr_array_index (rows, i), widths);
      put_line (out, width, line->str);
    }
}

static void
render_reports (JsonObject *r, guint width, GString *out)
{
  JsonObject *rej = wf_json_object (r, "rejected");
  JsonObject *by = wf_json_object (r, "accepted_by_path");
  JsonObject *carried = wf_json_object (r, "carried");
  g_autoptr(GList) names = rej ? json_object_get_members (rej) : NULL;
  g_autoptr(GString) which = g_string_new (NULL);
  g_autofree char *line = NULL, *paths = NULL;
  double total = 0, v, accepted = 0, untrusted = 0, unmatched = 0, addressed = 0, carried_n = 0;

  for (GList *l = names; l; l = l->next)
    if (wf_json_number (rej, l->data, &v) && v > 0)
      {
        g_autofree char *name = clean (l->data);

        total += v;
        g_string_append_printf (which, "%s%s %.0f", which->len ? ", " : "", name, v);
      }
  wf_json_number (r, "accepted", &accepted);
  wf_json_number (r, "untrusted", &untrusted);
  wf_json_number (r, "unmatched", &unmatched);
  /* An older daemon's file has no paths: the line as it was. */
  if (by && wf_json_number (by, "addressed", &addressed) && wf_json_number (by, "carried", &carried_n))
    paths = g_strdup_printf (" (addressed %.0f, carried %.0f)", addressed, carried_n);
  line = g_strdup_printf ("reports     accepted %.0f%s, rejected %.0f%s%s%s, untrusted %.0f, "
                          "unmatched %.0f", accepted, paths ? paths : "", total,
                          which->len ? " (" : "", which->str, which->len ? ")" : "",
                          untrusted, unmatched);
  put_line (out, width, line);
  if (carried)
    {
      g_autofree char *note = str_member (carried, "note");

      g_free (line);
      line = g_strdup_printf ("carried     %s", note);
      put_line (out, width, line);
    }
}

/* ack-priority=yes: what went out as voice. */
static void
render_ack_priority (JsonObject *a, guint width, GString *out)
{
  g_autofree char *line = NULL;
  double marked = 0, kept = 0;

  if (!a)
    return;
  wf_json_number (a, "marked_packets", &marked);
  wf_json_number (a, "kept_packets", &kept);
  line = g_strdup_printf ("ack-prio    %.0f ACKs and handshakes sent as CS6 (voice), %.0f kept "
                          "their own DSCP", marked, kept);
  put_line (out, width, line);
}

/* What the actuator holds beyond the settings, when it says (rwnd: its
 * TCP connections). */
static void
render_actuator (JsonObject *a, guint width, GString *out)
{
  g_autofree char *policy = a ? str_member (a, "rwnd_policy") : NULL;
  g_autofree char *line = NULL, *extra = NULL;
  double flows = 0, held = 0, untouched = 0, cap = 0, other = 0;

  if (!a || !json_object_has_member (a, "rwnd_policy"))
    return;
  wf_json_number (a, "flows", &flows);
  wf_json_number (a, "flows_held", &held);
  wf_json_number (a, "flows_untouched", &untouched);
  if (wf_json_number (a, "capacity_bps", &cap) && wf_json_number (a, "other_bps", &other))
    extra = g_strdup_printf ("; C %.1f Mbit/s, non-TCP %.1f Mbit/s", cap / 1e6, other / 1e6);
  line = g_strdup_printf ("rwnd        %s: %.0f TCP connection%s, %.0f held back, %.0f left alone "
                          "(handshake not seen)%s", policy, flows, flows == 1 ? "" : "s", held,
                          untouched, extra ? extra : "");
  put_line (out, width, line);
}

void
wf_ap_status_render (WfApStatus *st, gint64 now_us, guint width, GString *out)
{
  JsonObject *o = st->status, *round = wf_json_object (o, "round");
  g_autofree char *iface = str_member (o, "interface"), *from = str_member (o, "stations_from");
  g_autofree char *ctl = str_member (o, "controller"), *act = str_member (o, "actuator");
  g_autofree char *obj = str_member (o, "objective"), *dirs = str_member (o, "directions");
  g_autofree char *mode = str_member (o, "mode"), *reason = str_member (o, "mode_reason");
  g_autofree char *total = bps_member (round, "total_bps"), *bound = bps_member (round, "bound_bps");
  g_autofree char *cap = bps_member (round, "capacity_bps"), *level = bps_member (round, "level_bps");
  g_autofree char *age = format_age (now_us - json_object_get_int_member (o, "time_us"));
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (json_object_get_int_member (o, "time_us")
                                                              / G_USEC_PER_SEC);
  g_autofree char *stamp = when ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
  g_autofree char *line = NULL;
  double jain = 0, tradeoff = 0, n = 0, counted = 0, rounds = 0;
  gboolean have_jain = wf_json_number (round, "jain", &jain);
  gboolean have_tradeoff = wf_json_number (round, "tradeoff", &tradeoff);
  char jain_s[32] = "-", tradeoff_s[32] = "-";

  wf_json_number (round, "stations", &n);
  wf_json_number (round, "counted", &counted);
  wf_json_number (o, "rounds", &rounds);
  if (have_jain)
    g_snprintf (jain_s, sizeof jain_s, "%.3f", jain);
  /* 0: unknown (no capacity estimate yet). */
  if (have_tradeoff && tradeoff > 0)
    g_snprintf (tradeoff_s, sizeof tradeoff_s, "%.3f", tradeoff);

  line = g_strdup_printf ("wlanfair-apd on %s (stations from %s), pid %" G_GINT64_FORMAT
                          ", round %.0f, written %s (%s ago)", iface, from,
                          json_object_get_int_member (o, "pid"), rounds, stamp, age);
  put_line (out, width, line);
  if (st->stale)
    {
      g_free (line);
      line = g_strdup_printf ("STALE       %s: wlanfair-apd stopped or is stuck", st->stale);
      put_line (out, width, line);
    }
  g_free (line);
  line = g_strdup_printf ("controller  %s, actuator %s, objective %s, directions %s",
                          ctl, act, obj, dirs);
  put_line (out, width, line);
  g_free (line);
  line = g_strdup_printf ("mode        %s: %s", mode, reason);
  put_line (out, width, line);
  g_free (line);
  render_actuator (wf_json_object (o, "actuator_status"), width, out);
  line = g_strdup_printf ("fairness    jain %s, trade-off %s (this round; %.0f station%s, "
                          "%.0f with demand)", jain_s, tradeoff_s, n, n == 1 ? "" : "s", counted);
  put_line (out, width, line);
  g_free (line);
  line = g_strdup_printf ("goodput     total %s, bound %s, capacity %s, level %s%s", total, bound,
                          cap, level, bool_member (round, "saturated", FALSE) ? ", saturated" : "");
  put_line (out, width, line);
  render_reports (wf_json_object (o, "reports"), width, out);
  render_ack_priority (wf_json_object (o, "ack_priority"), width, out);
  g_string_append_c (out, '\n');
  render_table (wf_json_array (o, "stations"), width, out);
}

/* ---- wlanfairctl ap status ----------------------------------------------- */

int
wf_cli_ap_status (int argc, char **argv)
{
  g_autofree char *path = NULL, *message = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "status", 0, 0, G_OPTION_ARG_FILENAME, &path,
      "wlanfair-apd's status file (default " WF_AP_STATUS_FILE ")", "FILE" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the status object (version 1) as JSON", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(WfApStatus) st = NULL;
  gint64 now = g_get_real_time ();
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "The access-point fairness controller: mode, Jain's and the trade-off index,\n"
    "and per station its addresses, signal, goodput, share, limit and why.");
  g_option_context_set_description (ctx,
    "Exit status 1 when wlanfair-apd is not running or its file is malformed,\n"
    "and when the file is stale (printed anyway, with a warning).\n"
    "See wlanfairctl-ap(1).");
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  if (argc > 1)
    return wf_cli_usage_error ("unexpected argument '%s'", argv[1]);

  if (wf_ap_status_load (path ? path : WF_AP_STATUS_FILE, now, &st, &message) != WF_AP_LOAD_OK)
    return wf_cli_fail ("%s", message);

  if (json)
    wf_cli_print_json_node (json_parser_get_root (st->parser));
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      wf_ap_status_render (st, now, 0, out);
      fputs (out->str, stdout);
    }
  if (st->stale)
    {
      /* After the output: the last line a person sees. */
      fflush (stdout);
      return wf_cli_fail ("warning: %s is stale (%s): wlanfair-apd stopped or is stuck",
                          st->path, st->stale);
    }
  return WF_EXIT_OK;
}

/* ---- wlanfairctl ap ------------------------------------------------------ */

static const WfCliCommand subcommands[] = {
  { "status", "Mode, fairness, and per station: goodput, share, limit, why",
    wf_cli_ap_status },
  { "watch", "The same, redrawn every interval (q to quit)",
    wf_cli_ap_watch },
};

static void
usage (void)
{
  printf ("Usage: wlanfairctl ap [status] [--status FILE] [--json]\n"
          "       wlanfairctl ap watch [--status FILE] [--interval SECONDS] [-n N]\n"
          "\n"
          "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (subcommands); i++)
    printf ("  %-7s %s\n", subcommands[i].name, subcommands[i].summary);
  printf ("\nSee wlanfairctl-ap(1).\n");
}

int
wf_cli_ap (int argc, char **argv)
{
  /* Bare "ap" and "ap --json" mean "ap status". */
  return wf_cli_run_subcommand (argc, argv, subcommands, G_N_ELEMENTS (subcommands), usage);
}
