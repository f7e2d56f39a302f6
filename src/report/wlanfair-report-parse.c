/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Receiver side of the report protocol: one datagram to a validated
 * WfReportView, and the per-host replay/freshness state. Every input is
 * hostile: nothing here may abort, and every rejection has a reason. */
#include "wlanfair-report.h"

#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-report-check.h"
#include "wlanfair-report-text.h"

#define MAX_IFACES 64
#define MAX_FLOWS 256
/* 10 Tbit/s: no interface of this decade is faster; above is garbage. */
#define MAX_BPS 1e13
#define MAX_PPS 2e10
#define MAX_COUNTER ((double) G_MAXINT64)

static const char *const reject_names[WF_REPORT_REJECT_N] = {
  [WF_REPORT_OK] = "ok",
  [WF_REPORT_REJECT_OVERSIZED] = "oversized",
  [WF_REPORT_REJECT_EMPTY] = "empty",
  [WF_REPORT_REJECT_UTF8] = "utf8",
  [WF_REPORT_REJECT_JSON] = "json",
  [WF_REPORT_REJECT_NOT_OBJECT] = "not-object",
  [WF_REPORT_REJECT_VERSION] = "version",
  [WF_REPORT_REJECT_FIELD] = "field",
  [WF_REPORT_REJECT_RANGE] = "range",
  [WF_REPORT_REJECT_UNSIGNED] = "unsigned",
  [WF_REPORT_REJECT_BAD_MAC] = "bad-mac",
  [WF_REPORT_REJECT_REPLAY] = "replay",
  [WF_REPORT_REJECT_STALE] = "stale",
  [WF_REPORT_REJECT_FUTURE] = "future",
  [WF_REPORT_REJECT_HOST_LIMIT] = "host-limit",
};

const char *
wf_report_reject_to_string (WfReportReject reason)
{
  if ((unsigned) reason >= WF_REPORT_REJECT_N)
    return "unknown";
  return reject_names[reason];
}

/* ------------------------------------------------------------------ */
/* The report's parts                                                  */

static void
rate_clear (WfReportRate *r)
{
  g_free (r->gi);
  g_free (r->mode);
}

static void
iface_clear (gpointer data)
{
  WfReportIface *i = data;

  g_free (i->name);
  g_free (i->bssid);
  g_free (i->ssid);
  rate_clear (&i->tx_rate);
  rate_clear (&i->rx_rate);
}

static gboolean
parse_rate (WfReportCheck *c, JsonObject *o, WfReportRate *r)
{
  const char *gi, *mode;
  gint64 v;

  if (!wf_report_check_int (c, o, "bitrate_kbps", FALSE, 0, (gint64) (MAX_BPS / 1000), &r->has_bitrate, &v))
    return FALSE;
  r->bitrate_kbps = r->has_bitrate ? (guint32) MIN (v, G_MAXUINT32) : 0;
  /* HT indexes reach 76 (unequal modulation); VHT/HE/EHT restart at 0. */
  if (!wf_report_check_int (c, o, "mcs", FALSE, 0, 76, &r->has_mcs, &v))
    return FALSE;
  r->mcs = (int) v;
  if (!wf_report_check_int (c, o, "nss", FALSE, 1, 16, &r->has_nss, &v))
    return FALSE;
  r->nss = (int) v;
  if (!wf_report_check_int (c, o, "width_mhz", FALSE, 1, 320, &r->has_width, &v))
    return FALSE;
  r->width_mhz = (int) v;
  if (!wf_report_check_string (c, o, "gi", FALSE, 1, 8, TRUE, &gi) ||
      !wf_report_check_string (c, o, "mode", FALSE, 1, 16, TRUE, &mode))
    return FALSE;
  r->gi = g_strdup (gi);
  r->mode = g_strdup (mode);
  return TRUE;
}

static gboolean
parse_station (WfReportCheck *c, JsonObject *o, WfReportIface *i)
{
  static const char *const counters[] = { "tx_retries", "tx_failed", "beacon_loss", NULL };
  const char *bssid, *ssid;
  JsonNode *n;
  gsize plen = strlen (c->path);
  gint64 v;

  if (!wf_report_check_string (c, o, "bssid", FALSE, 17, 17, TRUE, &bssid))
    return FALSE;
  if (bssid && !wf_report_check_is_mac (bssid))
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"bssid\" is not a MAC address");
  /* 32 octets; escaped non-UTF-8 bytes may take up to 4 characters each. */
  if (!wf_report_check_string (c, o, "ssid", FALSE, 0, 128, FALSE, &ssid))
    return FALSE;
  i->bssid = g_strdup (bssid);
  i->ssid = g_strdup (ssid);
  if (!wf_report_check_int (c, o, "freq_mhz", FALSE, 1, 100000, &i->has_freq, &v))
    return FALSE;
  i->freq_mhz = (int) v;
  if (!wf_report_check_int (c, o, "signal_dbm", FALSE, -150, 30, &i->has_signal, &v))
    return FALSE;
  i->signal_dbm = (int) v;
  if (!wf_report_check_int (c, o, "signal_avg_dbm", FALSE, -150, 30, &i->has_signal_avg, &v))
    return FALSE;
  i->signal_avg_dbm = (int) v;
  if (!wf_report_check_counters (c, o, counters))
    return FALSE;

  g_strlcat (c->path, ".tx_rate", sizeof c->path);
  if ((n = wf_report_check_container (c, o, "tx_rate", JSON_NODE_OBJECT)))
    {
      i->has_tx_rate = TRUE;
      if (!parse_rate (c, json_node_get_object (n), &i->tx_rate))
        return FALSE;
    }
  c->path[plen] = '\0';
  g_strlcat (c->path, ".rx_rate", sizeof c->path);
  if ((n = wf_report_check_container (c, o, "rx_rate", JSON_NODE_OBJECT)))
    {
      i->has_rx_rate = TRUE;
      if (!parse_rate (c, json_node_get_object (n), &i->rx_rate))
        return FALSE;
    }
  c->path[plen] = '\0';
  return c->reason == WF_REPORT_OK;
}

static gboolean
parse_scans (WfReportCheck *c, JsonObject *o, WfReportIface *i)
{
  static const char *const counters[] = { "single_ssid", "wildcard", "passive", NULL };
  gint64 v;

  if (!wf_report_check_int (c, o, "count", FALSE, 0, G_MAXINT64, &i->has_scan_count, &v))
    return FALSE;
  i->scan_count = (guint64) v;
  if (!wf_report_check_int (c, o, "duration_ms", FALSE, 0, G_MAXINT64, &i->has_scan_duration, &v))
    return FALSE;
  i->scan_duration_ms = (guint64) v;
  return wf_report_check_counters (c, o, counters) &&
         wf_report_check_bool (c, o, "in_progress", NULL, &i->scan_in_progress);
}

static gboolean
parse_iface (WfReportCheck *c, JsonObject *o, WfReportIface *i)
{
  static const char *const counters[] = {
    "rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_errors",
    "tx_errors", "rx_dropped", "tx_dropped", NULL,
  };
  gsize plen = strlen (c->path);
  const char *name;
  double pps;
  gint64 v;
  JsonNode *n;

  /* Linux names are 1..15 bytes (IFNAMSIZ - 1). */
  if (!wf_report_check_string (c, o, "name", TRUE, 1, 15, TRUE, &name))
    return FALSE;
  i->name = g_strdup (name);
  if (!wf_report_check_int (c, o, "ifindex", FALSE, 1, G_MAXINT32, NULL, &v) ||
      !wf_report_check_bool (c, o, "wifi", NULL, &i->wifi) ||
      !wf_report_check_bool (c, o, "up", &i->has_up, &i->up) ||
      !wf_report_check_counters (c, o, counters) ||
      !wf_report_check_number (c, o, "rx_bps", FALSE, 0, MAX_BPS, &i->has_rx_bps, &i->rx_bps) ||
      !wf_report_check_number (c, o, "tx_bps", FALSE, 0, MAX_BPS, &i->has_tx_bps, &i->tx_bps) ||
      !wf_report_check_number (c, o, "rx_pps", FALSE, 0, MAX_PPS, NULL, &pps) ||
      !wf_report_check_number (c, o, "tx_pps", FALSE, 0, MAX_PPS, NULL, &pps) ||
      !wf_report_check_number (c, o, "goodput_rx_bps", FALSE, 0, MAX_BPS, &i->has_goodput_rx, &i->goodput_rx_bps) ||
      !wf_report_check_number (c, o, "goodput_tx_bps", FALSE, 0, MAX_BPS, &i->has_goodput_tx, &i->goodput_tx_bps))
    return FALSE;

  g_strlcat (c->path, ".station", sizeof c->path);
  if ((n = wf_report_check_container (c, o, "station", JSON_NODE_OBJECT)))
    {
      i->has_station = TRUE;
      if (!parse_station (c, json_node_get_object (n), i))
        return FALSE;
    }
  c->path[plen] = '\0';
  g_strlcat (c->path, ".scans", sizeof c->path);
  if ((n = wf_report_check_container (c, o, "scans", JSON_NODE_OBJECT)))
    {
      i->has_scans = TRUE;
      if (!parse_scans (c, json_node_get_object (n), i))
        return FALSE;
    }
  c->path[plen] = '\0';
  return c->reason == WF_REPORT_OK;
}

static gboolean
parse_flow (WfReportCheck *c, JsonObject *o)
{
  static const char *const counters[] = {
    "cwnd", "ssthresh", "rtt_us", "rttvar_us", "retrans", "total_retrans", NULL,
  };
  static const char *const rates[] = {
    "goodput_tx_bps", "goodput_rx_bps", "delivery_rate_bps", "pacing_rate_bps", NULL,
  };
  const char *s;
  double v;
  gboolean b;

  if (!wf_report_check_string (c, o, "src", FALSE, 1, 64, TRUE, &s) ||
      !wf_report_check_string (c, o, "dst", FALSE, 1, 64, TRUE, &s) ||
      !wf_report_check_string (c, o, "iface", FALSE, 1, 15, TRUE, &s) ||
      !wf_report_check_string (c, o, "state", FALSE, 1, 32, TRUE, &s) ||
      !wf_report_check_string (c, o, "cc", FALSE, 1, 32, TRUE, &s) ||
      !wf_report_check_counters (c, o, counters) ||
      /* Optional, added in version 1: typed here, read from view->body. */
      !wf_report_check_bool (c, o, "app_limited", NULL, &b))
    return FALSE;
  /* The kernel's pacing rate is ~0U (unlimited) for some flows: that is
   * 1.8e19 bytes/s, so the range check is for the reported goodput only. */
  for (const char *const *r = rates; *r; r++)
    if (!wf_report_check_number (c, o, *r, FALSE, 0, g_str_has_prefix (*r, "goodput") ? MAX_BPS : 1.5e20,
                     NULL, &v))
      return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Datagram                                                            */

/* `,"mac":"<64 lowercase hex>"}` at the very end. */
static gboolean
has_mac_suffix (const guint8 *data, gsize len)
{
  static const char head[] = ",\"mac\":\"";
  const char *s;

  if (len < WF_REPORT_MAC_SUFFIX_LEN + 2)
    return FALSE;
  s = (const char *) data + len - WF_REPORT_MAC_SUFFIX_LEN;
  return memcmp (s, head, 8) == 0 &&
         wf_report_check_is_hex (s + 8, 64) &&
         s[72] == '"' && s[73] == '}';
}

void
wf_report_view_free (WfReportView *v)
{
  if (v == NULL)
    return;
  g_free (v->hostname);
  if (v->ifaces)
    g_array_unref (v->ifaces);
  if (v->body)
    json_object_unref (v->body);
  g_free (v);
}

static gboolean
parse_body (WfReportCheck *c, JsonObject *o, WfReportView *v)
{
  const char *s;
  gint64 i64;
  JsonNode *n;

  /* The version comes first: a future major may change everything else. */
  n = json_object_get_member (o, "wlanfair_report");
  if (n == NULL)
    return wf_report_check_fail (c, WF_REPORT_REJECT_VERSION, "not a wlanfair report (no \"wlanfair_report\")");
  if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE || json_node_get_value_type (n) != G_TYPE_INT64)
    return wf_report_check_fail (c, WF_REPORT_REJECT_VERSION, "\"wlanfair_report\" is not an integer");
  i64 = json_node_get_int (n);
  if (i64 != WF_REPORT_VERSION)
    return wf_report_check_fail (c, WF_REPORT_REJECT_VERSION, "version %" G_GINT64_FORMAT
                 " is not supported (this receiver speaks %d)", i64, WF_REPORT_VERSION);
  v->version = (int) i64;

  if (json_object_has_member (o, "mac"))
    return wf_report_check_fail (c, WF_REPORT_REJECT_BAD_MAC, "\"mac\" is not the last member of the datagram");

  if (!wf_report_check_string (c, o, "host", TRUE, 32, 32, TRUE, &s))
    return FALSE;
  if (!wf_report_check_is_hex (s, 32))
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"host\" is not 32 lowercase hex digits");
  memcpy (v->host, s, 33);
  if (!wf_report_check_string (c, o, "hostname", FALSE, 1, 253, TRUE, &s))
    return FALSE;
  v->hostname = g_strdup (s);
  if (!wf_report_check_int (c, o, "seq", TRUE, 1, G_MAXINT64, NULL, &i64))
    return FALSE;
  v->seq = (guint64) i64;
  /* After 2001-09-09 (1e15 µs): a clock that never got set is no clock. */
  if (!wf_report_check_int (c, o, "time_us", TRUE, G_GINT64_CONSTANT (1000000000000000),
                G_GINT64_CONSTANT (100000000000000000), NULL, &v->time_us))
    return FALSE;
  if (!wf_report_check_string (c, o, "boot", TRUE, 16, 16, TRUE, &s))
    return FALSE;
  if (!wf_report_check_is_hex (s, 16))
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"boot\" is not 16 lowercase hex digits");
  memcpy (v->boot, s, 17);
  if (!wf_report_check_number (c, o, "interval_s", TRUE, 0.1, 60, NULL, &v->interval_s))
    return FALSE;

  n = wf_report_check_member (c, o, "interfaces", TRUE);
  if (n == NULL)
    return FALSE;
  if (JSON_NODE_TYPE (n) != JSON_NODE_ARRAY)
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"interfaces\" is not an array");
  {
    JsonArray *a = json_node_get_array (n);
    guint len = json_array_get_length (a);

    if (len > MAX_IFACES)
      return wf_report_check_fail (c, WF_REPORT_REJECT_RANGE, "%u interfaces, at most %d", len, MAX_IFACES);
    for (guint k = 0; k < len; k++)
      {
        JsonNode *e = json_array_get_element (a, k);
        WfReportIface i = { 0 };

        g_snprintf (c->path, sizeof c->path, "interfaces[%u]", k);
        if (JSON_NODE_TYPE (e) != JSON_NODE_OBJECT)
          return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "not an object");
        if (!parse_iface (c, json_node_get_object (e), &i))
          {
            iface_clear (&i);
            return FALSE;
          }
        g_array_append_val (v->ifaces, i);
      }
    c->path[0] = '\0';
  }

  /* Where the rates sit in time (docs/report-protocol.md): optional. */
  if (!wf_report_check_int (c, o, "sampled_us", FALSE, G_GINT64_CONSTANT (1000000000000000),
                G_GINT64_CONSTANT (100000000000000000), &v->has_sampled, &v->sampled_us))
    return FALSE;
  if (!wf_report_check_int (c, o, "sampled_end_us", FALSE, G_GINT64_CONSTANT (1000000000000000),
                G_GINT64_CONSTANT (100000000000000000), &v->has_sampled_end, &v->sampled_end_us))
    return FALSE;
  if (v->has_sampled_end && (!v->has_sampled || v->sampled_end_us < v->sampled_us))
    return wf_report_check_fail (c, WF_REPORT_REJECT_RANGE,
                                 "sampled_end_us without sampled_us, or before it");
  if (!wf_report_check_number (c, o, "span_s", FALSE, 0.001, 3600, &v->has_span, &v->span_s))
    return FALSE;
  if (!wf_report_check_int (c, o, "flows_total", FALSE, 0, G_MAXINT64, &v->has_flows_total, &i64))
    return FALSE;
  v->flows_total = (guint64) i64;
  if (!wf_report_check_int (c, o, "flows_dropped", FALSE, 0, G_MAXINT64, NULL, &i64))
    return FALSE;
  v->flows_dropped = json_object_has_member (o, "flows_dropped") ? (guint64) i64 : 0;
  if ((n = wf_report_check_container (c, o, "flows", JSON_NODE_ARRAY)))
    {
      JsonArray *a = json_node_get_array (n);
      guint len = json_array_get_length (a);

      if (len > MAX_FLOWS)
        return wf_report_check_fail (c, WF_REPORT_REJECT_RANGE, "%u flows, at most %d", len, MAX_FLOWS);
      for (guint k = 0; k < len; k++)
        {
          JsonNode *e = json_array_get_element (a, k);

          g_snprintf (c->path, sizeof c->path, "flows[%u]", k);
          if (JSON_NODE_TYPE (e) != JSON_NODE_OBJECT)
            return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "not an object");
          if (!parse_flow (c, json_node_get_object (e)))
            return FALSE;
        }
      c->path[0] = '\0';
      v->n_flows = len;
    }
  wf_report_check_container (c, o, "ackloss", JSON_NODE_OBJECT);
  return c->reason == WF_REPORT_OK;
}

WfReportView *
wf_report_parse (const guint8   *data,
                 gsize           len,
                 GBytes         *key,
                 WfReportReject *reason,
                 GError        **error)
{
  g_autoptr(WfReportView) v = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) json_error = NULL;
  g_autofree char *text = NULL;
  WfReportCheck c = { WF_REPORT_OK, NULL, "" };
  gboolean signed_ = FALSE;
  gsize text_len;

  if (len == 0)
    wf_report_check_fail (&c, WF_REPORT_REJECT_EMPTY, "empty datagram");
  else if (len > WF_REPORT_MAX_SIZE)
    wf_report_check_fail (&c, WF_REPORT_REJECT_OVERSIZED, "%" G_GSIZE_FORMAT " bytes, at most %d",
          len, WF_REPORT_MAX_SIZE);
  /* Also rejects NUL bytes, which would cut the text short. */
  else if (!g_utf8_validate ((const char *) data, len, NULL))
    wf_report_check_fail (&c, WF_REPORT_REJECT_UTF8, "not valid UTF-8");
  if (c.reason != WF_REPORT_OK)
    goto out;

  signed_ = has_mac_suffix (data, len);
  /* The unsigned text: the mac member cut off, the object closed again. */
  text_len = signed_ ? len - WF_REPORT_MAC_SUFFIX_LEN + 1 : len;
  text = g_malloc (text_len + 1);
  memcpy (text, data, text_len);
  if (signed_)
    text[text_len - 1] = '}';
  text[text_len] = '\0';

  /* Authenticate before parsing: with a key, nothing unauthenticated
   * reaches the JSON parser. */
  if (key && !signed_)
    {
      wf_report_check_fail (&c, WF_REPORT_REJECT_UNSIGNED, "no mac at the end of the datagram");
      goto out;
    }
  if (key)
    {
      g_autofree char *mac = wf_report_hmac_hex (key, (const guint8 *) text, text_len);
      const char *got = (const char *) data + len - WF_REPORT_MAC_SUFFIX_LEN + 8;
      guint8 diff = 0;

      /* Constant time: no timing oracle for a forger. */
      for (int i = 0; i < 64; i++)
        diff |= (guint8) (mac[i] ^ got[i]);
      if (diff != 0)
        {
          wf_report_check_fail (&c, WF_REPORT_REJECT_BAD_MAC, "mac does not verify");
          goto out;
        }
    }

  {
    const char *why = NULL;
    WfReportReject r = wf_report_prescan (text, text_len, &why);

    if (r != WF_REPORT_OK)
      {
        wf_report_check_fail (&c, r, "%s", why);
        goto out;
      }
  }
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, text, (gssize) text_len, &json_error))
    {
      wf_report_check_fail (&c, WF_REPORT_REJECT_JSON, "%s", json_error->message);
      goto out;
    }
  root = json_parser_steal_root (parser);
  if (root == NULL || JSON_NODE_TYPE (root) != JSON_NODE_OBJECT)
    {
      wf_report_check_fail (&c, WF_REPORT_REJECT_NOT_OBJECT, "not a JSON object");
      goto out;
    }
  switch (wf_report_tree_check (root))
    {
    case WF_REPORT_OK:
      break;
    case WF_REPORT_REJECT_UTF8:
      wf_report_check_fail (&c, WF_REPORT_REJECT_UTF8, "a \\u escape decodes to invalid UTF-8");
      goto out;
    default:
      wf_report_check_fail (&c, WF_REPORT_REJECT_RANGE, "a number is beyond the double range");
      goto out;
    }

  v = g_new0 (WfReportView, 1);
  v->ifaces = g_array_new (FALSE, TRUE, sizeof (WfReportIface));
  g_array_set_clear_func (v->ifaces, iface_clear);
  v->body = json_object_ref (json_node_get_object (root));
  v->size = len;
  v->authenticated = key != NULL;
  parse_body (&c, v->body, v);

out:
  if (reason)
    *reason = c.reason;
  if (c.reason != WF_REPORT_OK)
    {
      g_set_error (error, WF_ERROR,
                   c.reason == WF_REPORT_REJECT_RANGE ? WF_ERROR_INVALID : WF_ERROR_PARSE,
                   "%s: %s", wf_report_reject_to_string (c.reason), c.detail);
      g_free (c.detail);
      return NULL;
    }
  return g_steal_pointer (&v);
}

gboolean
wf_report_view_goodput (const WfReportView *v, double *rx_bps, double *tx_bps)
{
  gboolean any_wifi = FALSE, any = FALSE;
  double rx = 0, tx = 0;

  for (guint k = 0; k < v->ifaces->len; k++)
    {
      const WfReportIface *i = &g_array_index (v->ifaces, WfReportIface, k);

      if (i->wifi && (i->has_goodput_rx || i->has_goodput_tx))
        any_wifi = TRUE;
    }
  for (guint k = 0; k < v->ifaces->len; k++)
    {
      const WfReportIface *i = &g_array_index (v->ifaces, WfReportIface, k);

      if (any_wifi && !i->wifi)
        continue;
      if (!i->has_goodput_rx && !i->has_goodput_tx)
        continue;
      any = TRUE;
      rx += i->has_goodput_rx ? i->goodput_rx_bps : 0;
      tx += i->has_goodput_tx ? i->goodput_tx_bps : 0;
    }
  if (rx_bps)
    *rx_bps = rx;
  if (tx_bps)
    *tx_bps = tx;
  return any;
}
