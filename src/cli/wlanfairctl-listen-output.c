/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl listen: what it prints. The table (a terminal view) and one
 * JSON object per line (report, reject, table events) for scripts; the
 * per-host goodput and the indices across hosts. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "wlanfair-fairness.h"
#include "wlanfair-output.h"
#include "wlanfair-report.h"
#include "wlanfair-text.h"
#include "wlanfairctl.h"
#include "wlanfairctl-listen.h"

static const char *
direction_name (Direction d)
{
  return d == DIR_RX ? "rx" : d == DIR_TX ? "tx" : "total";
}

/* ------------------------------------------------------------------ */
/* Per-host values                                                     */

/* The interface whose radio the row shows: the first with station data,
 * else the first Wi-Fi one. */
static const WfReportIface *
radio_iface (const WfReportView *v)
{
  const WfReportIface *wifi = NULL;

  for (guint k = 0; k < v->ifaces->len; k++)
    {
      const WfReportIface *i = &g_array_index (v->ifaces, WfReportIface, k);

      if (i->has_station)
        return i;
      if (i->wifi && wifi == NULL)
        wifi = i;
    }
  return wifi;
}

static gboolean
row_goodput (Listen *l, const Row *r, double *rx, double *tx, double *sel)
{
  if (!wf_report_view_goodput (r->view, rx, tx))
    return FALSE;
  *sel = l->direction == DIR_RX ? *rx : l->direction == DIR_TX ? *tx : *rx + *tx;
  return TRUE;
}

static guint64
scan_total (const WfReportView *v, gboolean *any)
{
  guint64 n = 0;

  *any = FALSE;
  for (guint k = 0; k < v->ifaces->len; k++)
    {
      const WfReportIface *i = &g_array_index (v->ifaces, WfReportIface, k);

      if (i->has_scan_count)
        {
          *any = TRUE;
          n += i->scan_count;
        }
    }
  return n;
}

/* Rows sorted by host name then id, for a stable table. */
static gint
row_compare (gconstpointer a, gconstpointer b)
{
  const Row *x = *(Row *const *) a, *y = *(Row *const *) b;
  int c = g_strcmp0 (x->view->hostname, y->view->hostname);

  return c ? c : strcmp (x->view->host, y->view->host);
}

static GPtrArray *
sorted_rows (Listen *l)
{
  GPtrArray *rows = g_ptr_array_new ();
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, l->rows);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_ptr_array_add (rows, value);
  g_ptr_array_sort (rows, row_compare);
  return rows;
}

typedef struct {
  guint    n;            /* hosts with goodput */
  double   sum;
  gboolean have_jain;
  double   jain;
  gboolean have_tradeoff;
  double   tradeoff;
  gboolean over;         /* sum above --capacity */
} Fairness;

static void
compute_fairness (Listen *l, GPtrArray *rows, Fairness *f)
{
  g_autofree double *x = g_new (double, rows->len + 1);
  double rx, tx;

  memset (f, 0, sizeof *f);
  for (guint i = 0; i < rows->len; i++)
    if (row_goodput (l, g_ptr_array_index (rows, i), &rx, &tx, &x[f->n]))
      f->n++;
  if (f->n == 0)
    return;
  f->sum = wf_fairness_sum (x, f->n);
  f->have_jain = wf_fairness_jain (x, f->n, &f->jain, NULL);
  if (l->capacity > 0)
    {
      f->over = f->sum > l->capacity * (1 + WF_FAIRNESS_OVER_SLACK);
      /* Reported goodputs are measurements: a sum a little above an
       * estimated capacity is noise, the index caps utilisation at 1. */
      f->have_tradeoff = wf_fairness_tradeoff (x, f->n, l->capacity, l->alpha,
                                               WF_FAIRNESS_ALLOW_OVER, &f->tradeoff, NULL);
    }
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static void
add_nullable_double (JsonBuilder *b, const char *name, gboolean have, double v)
{
  json_builder_set_member_name (b, name);
  if (have)
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
add_nullable_int (JsonBuilder *b, const char *name, gboolean have, gint64 v)
{
  json_builder_set_member_name (b, name);
  if (have)
    json_builder_add_int_value (b, v);
  else
    json_builder_add_null_value (b);
}

/* A stdout that no longer takes our lines ends the run (the exit
 * handler says why) instead of receiving into the void. */
static void
flush_or_quit (Listen *l)
{
  if (!wf_output_flush ())
    g_main_loop_quit (l->loop);
}

static void
print_json_line (Listen *l, JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);
  /* One line each (JSON Lines); not json-glib's generator, which writes
   * 1e20 as "1e+20.0" and NaN as "nan". */
  g_autofree char *text = wf_cli_json_to_text (root, TRUE);

  fputs (text, stdout);
  flush_or_quit (l);
}

static void
add_counters (Listen *l, JsonBuilder *b)
{
  guint64 rejected = 0;

  for (int i = 1; i < WF_REPORT_REJECT_N; i++)
    rejected += l->rejected[i];
  json_builder_set_member_name (b, "counters");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "received");
  json_builder_add_int_value (b, (gint64) l->received);
  json_builder_set_member_name (b, "accepted");
  json_builder_add_int_value (b, (gint64) l->accepted);
  json_builder_set_member_name (b, "rejected");
  json_builder_add_int_value (b, (gint64) rejected);
  json_builder_set_member_name (b, "by_reason");
  json_builder_begin_object (b);
  for (int i = 1; i < WF_REPORT_REJECT_N; i++)
    {
      json_builder_set_member_name (b, wf_report_reject_to_string (i));
      json_builder_add_int_value (b, (gint64) l->rejected[i]);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

static void
add_host (Listen *l, JsonBuilder *b, const Row *r, gint64 now_mono)
{
  const WfReportView *v = r->view;
  const WfReportIface *w = radio_iface (v);
  double rx = 0, tx = 0, sel = 0;
  gboolean have = row_goodput (l, r, &rx, &tx, &sel), any_scans;
  guint64 scans = scan_total (v, &any_scans);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "host");
  json_builder_add_string_value (b, v->host);
  json_builder_set_member_name (b, "hostname");
  if (v->hostname)
    json_builder_add_string_value (b, v->hostname);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "from");
  json_builder_add_string_value (b, r->from);
  json_builder_set_member_name (b, "authenticated");
  json_builder_add_boolean_value (b, v->authenticated);
  json_builder_set_member_name (b, "seq");
  json_builder_add_int_value (b, (gint64) v->seq);
  json_builder_set_member_name (b, "boot");
  json_builder_add_string_value (b, v->boot);
  json_builder_set_member_name (b, "interval_s");
  json_builder_add_double_value (b, v->interval_s);
  json_builder_set_member_name (b, "age_s");
  json_builder_add_double_value (b, (double) (now_mono - r->seen_mono) / G_USEC_PER_SEC);
  json_builder_set_member_name (b, "reports");
  json_builder_add_int_value (b, (gint64) r->reports);
  add_nullable_double (b, "goodput_rx_bps", have, rx);
  add_nullable_double (b, "goodput_tx_bps", have, tx);
  add_nullable_double (b, "goodput_bps", have, sel);
  json_builder_set_member_name (b, "interface");
  if (w)
    json_builder_add_string_value (b, w->name);
  else
    json_builder_add_null_value (b);
  add_nullable_int (b, "signal_dbm", w && w->has_signal, w ? w->signal_dbm : 0);
  add_nullable_int (b, "tx_mcs", w && w->has_tx_rate && w->tx_rate.has_mcs, w ? w->tx_rate.mcs : 0);
  add_nullable_int (b, "tx_bitrate_kbps", w && w->has_tx_rate && w->tx_rate.has_bitrate,
                    w ? w->tx_rate.bitrate_kbps : 0);
  add_nullable_int (b, "rx_mcs", w && w->has_rx_rate && w->rx_rate.has_mcs, w ? w->rx_rate.mcs : 0);
  add_nullable_int (b, "rx_bitrate_kbps", w && w->has_rx_rate && w->rx_rate.has_bitrate,
                    w ? w->rx_rate.bitrate_kbps : 0);
  add_nullable_int (b, "scans", any_scans, (gint64) MIN (scans, (guint64) G_MAXINT64));
  json_builder_end_object (b);
}

static void
print_table_json (Listen *l, GPtrArray *rows, const Fairness *f, gint64 now_mono)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, "table");
  json_builder_set_member_name (b, "time_us");
  json_builder_add_int_value (b, g_get_real_time ());
  json_builder_set_member_name (b, "hosts");
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    add_host (l, b, g_ptr_array_index (rows, i), now_mono);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "fairness");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "direction");
  json_builder_add_string_value (b, direction_name (l->direction));
  json_builder_set_member_name (b, "n");
  json_builder_add_int_value (b, f->n);
  add_nullable_double (b, "sum_bps", f->n > 0, f->sum);
  add_nullable_double (b, "jain", f->have_jain, f->jain);
  add_nullable_double (b, "tradeoff", f->have_tradeoff, f->tradeoff);
  add_nullable_double (b, "capacity_bps", l->capacity > 0, l->capacity);
  add_nullable_double (b, "alpha", l->capacity > 0, l->alpha);
  json_builder_set_member_name (b, "over_capacity");
  json_builder_add_boolean_value (b, f->over);
  json_builder_end_object (b);
  add_counters (l, b);
  json_builder_end_object (b);
  print_json_line (l, b);
}

/* "12.3M" style, bit/s. */
static char *
format_bps (gboolean have, double v)
{
  static const char *const units[] = { "", "k", "M", "G", "T" };
  int u = 0;

  if (!have)
    return g_strdup ("-");
  while (v >= 1000 && u < 4)
    {
      v /= 1000;
      u++;
    }
  return g_strdup_printf (v < 10 && u > 0 ? "%.2f%s" : "%.1f%s", v, units[u]);
}

static void
print_table_text (Listen *l, GPtrArray *rows, const Fairness *f, gint64 now_mono)
{
  GString *out = g_string_new (NULL);
  guint64 rejected = 0;

  if (l->tty)
    g_string_append (out, "\033[H\033[2J");
  g_string_append_printf (out, "wlanfairctl listen on %s, %s, %u host%s\n", l->bound,
                          l->key ? "HMAC required" : "no key (unauthenticated)",
                          rows->len, rows->len == 1 ? "" : "s");
  g_string_append_printf (out, "%-16s %-22s %9s %9s %7s %4s %8s %6s %6s\n",
                          "HOST", "FROM", "GOOD-RX", "GOOD-TX", "SIGNAL", "MCS",
                          "BITRATE", "SCANS", "AGE");
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = g_ptr_array_index (rows, i);
      const WfReportView *v = r->view;
      const WfReportIface *w = radio_iface (v);
      double rx = 0, tx = 0, sel;
      gboolean have = row_goodput (l, r, &rx, &tx, &sel), any_scans;
      guint64 scans = scan_total (v, &any_scans);
      /* The sender chose its hostname: escaped, cut to 16 columns. */
      g_autofree char *name = wf_text_fit (v->hostname ? v->hostname : v->host, 16, WF_TEXT_LEFT);
      g_autofree char *grx = format_bps (have, rx), *gtx = format_bps (have, tx);
      g_autofree char *sig = w && w->has_signal ? g_strdup_printf ("%d", w->signal_dbm) : g_strdup ("-");
      g_autofree char *mcs = w && w->has_tx_rate && w->tx_rate.has_mcs
        ? g_strdup_printf ("%d", w->tx_rate.mcs) : g_strdup ("-");
      g_autofree char *rate = format_bps (w && w->has_tx_rate && w->tx_rate.has_bitrate,
                                          w ? w->tx_rate.bitrate_kbps * 1000.0 : 0);
      g_autofree char *sc = any_scans ? g_strdup_printf ("%" G_GUINT64_FORMAT, scans) : g_strdup ("-");

      g_string_append_printf (out, "%s %-22s %9s %9s %7s %4s %8s %6s %5.1fs%s\n",
                              name, r->from, grx, gtx, sig, mcs, rate, sc,
                              (double) (now_mono - r->seen_mono) / G_USEC_PER_SEC,
                              v->authenticated ? "" : " !");
    }
  if (f->n > 0)
    {
      g_autofree char *sum = format_bps (TRUE, f->sum);

      g_string_append_printf (out, "fairness over %u host%s (%s goodput, sum %sb/s): jain %.4f",
                              f->n, f->n == 1 ? "" : "s", direction_name (l->direction),
                              sum, f->jain);
      if (f->have_tradeoff)
        g_string_append_printf (out, "  tradeoff %.4f (capacity %.10g, alpha %g)%s",
                                f->tradeoff, l->capacity, l->alpha,
                                f->over ? " over capacity" : "");
      else
        g_string_append (out, "  tradeoff - (needs --capacity)");
      g_string_append_c (out, '\n');
    }
  else
    g_string_append (out, "fairness: no host reports goodput yet\n");

  for (int i = 1; i < WF_REPORT_REJECT_N; i++)
    rejected += l->rejected[i];
  g_string_append_printf (out, "received %" G_GUINT64_FORMAT "  accepted %" G_GUINT64_FORMAT
                          "  rejected %" G_GUINT64_FORMAT, l->received, l->accepted, rejected);
  for (int i = 1; i < WF_REPORT_REJECT_N; i++)
    if (l->rejected[i])
      g_string_append_printf (out, "  %s %" G_GUINT64_FORMAT, wf_report_reject_to_string (i),
                              l->rejected[i]);
  g_string_append (out, l->tty ? "\n" : "\n\n");
  fputs (out->str, stdout);
  flush_or_quit (l);
  g_string_free (out, TRUE);
}

void
wf_listen_print_report (Listen *l, const Row *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) body = json_node_new (JSON_NODE_OBJECT);
  double rx = 0, tx = 0;
  gboolean have = wf_report_view_goodput (r->view, &rx, &tx);

  json_node_set_object (body, r->view->body);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, "report");
  json_builder_set_member_name (b, "time_us");
  json_builder_add_int_value (b, g_get_real_time ());
  json_builder_set_member_name (b, "from");
  json_builder_add_string_value (b, r->from);
  json_builder_set_member_name (b, "host");
  json_builder_add_string_value (b, r->view->host);
  json_builder_set_member_name (b, "seq");
  json_builder_add_int_value (b, (gint64) r->view->seq);
  json_builder_set_member_name (b, "authenticated");
  json_builder_add_boolean_value (b, r->view->authenticated);
  add_nullable_double (b, "goodput_rx_bps", have, rx);
  add_nullable_double (b, "goodput_tx_bps", have, tx);
  json_builder_set_member_name (b, "report");
  json_builder_add_value (b, g_steal_pointer (&body));
  json_builder_end_object (b);
  print_json_line (l, b);
}

void
wf_listen_print_reject (Listen *l, WfReportReject reason, const char *from,
                        gsize size, const char *detail, guint64 suppressed)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, "reject");
  json_builder_set_member_name (b, "time_us");
  json_builder_add_int_value (b, g_get_real_time ());
  json_builder_set_member_name (b, "from");
  json_builder_add_string_value (b, from);
  json_builder_set_member_name (b, "size");
  json_builder_add_int_value (b, (gint64) size);
  json_builder_set_member_name (b, "reason");
  json_builder_add_string_value (b, wf_report_reject_to_string (reason));
  json_builder_set_member_name (b, "detail");
  /* The detail may quote hostile text; the JSON writer escapes it. */
  json_builder_add_string_value (b, g_utf8_validate (detail, -1, NULL) ? detail : "?");
  json_builder_set_member_name (b, "suppressed");
  json_builder_add_int_value (b, (gint64) suppressed);
  json_builder_end_object (b);
  print_json_line (l, b);
}

void
wf_listen_print_table (Listen *l, gint64 now_mono)
{
  g_autoptr(GPtrArray) rows = sorted_rows (l);
  Fairness f;

  compute_fairness (l, rows, &f);
  if (l->json)
    print_table_json (l, rows, &f, now_mono);
  else
    print_table_text (l, rows, &f, now_mono);
}
