/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One report body per period: interface counters and rates (rtnetlink),
 * the Wi-Fi link (nl80211), TCP flows and their goodput (sock_diag),
 * the ACK-loss counters (wlanfair-tcpd's status file). */
#include "wlanfair-sampler.h"

#include <linux/nl80211.h>
#include <math.h>
#include <string.h>

#include "wlanfair-flows.h"
#include "wlanfair-linkstats.h"
#include "wlanfair-mac.h"
#include "wlanfair-nl80211.h"
#include "wlanfair-ratelimit.h"
#include "wlanfair-tcpstatus.h"
#include "wlanfair-tcptotals.h"

/* How often to ask again for nl80211 when the kernel had none. */
#define NL80211_RETRY_US (60 * G_USEC_PER_SEC)

typedef struct {
  WfLinkStats stats;
  gint64      when_us;
  guint32     iftype;    /* last nl80211 type, G_MAXUINT32 when not Wi-Fi */
  guint32     seen;
} Prev;

struct _WfSampler {
  WfSamplerConfig  config;
  char           **interfaces;
  WfSamplerLogFunc log;
  gpointer         log_data;
  WfRoute         *route;
  WfFlows         *flows;
  WfNl80211       *nl;
  WfScanCount     *scans;
  GHashTable      *scan_prev;  /* ifindex → WfScanCounts at the last report */
  gint64           nl_next_try_us;
  WfRatelimit     *once;       /* said once until it works again */
  GHashTable      *prev;       /* ifindex → Prev */
  GArray          *ifindexes;  /* last sample's, Wi-Fi first */
  GArray          *names;      /* WfLinkStats of every link, for flows */
  gboolean         flows_ok;   /* this sample's sock_diag dump was whole */
  guint32          gen;
};

static void
say (WfSampler *s, GLogLevelFlags level, const char *key, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static void
say (WfSampler *s, GLogLevelFlags level, const char *key, const char *fmt, ...)
{
  g_autofree char *msg = NULL;
  va_list ap;

  if (s->log == NULL)
    return;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  s->log (level, key, msg, s->log_data);
}

static int
route_flow (const WfSockdiagTcp *sock, gpointer data)
{
  WfSampler *s = data;

  return s->route ? wf_route_egress (s->route, sock->dst) : 0;
}

WfSampler *
wf_sampler_new (const WfSamplerConfig *config, WfSamplerLogFunc log, gpointer log_data)
{
  WfSampler *s = g_new0 (WfSampler, 1);
  g_autoptr(GError) error = NULL;

  s->config = *config;
  s->interfaces = g_strdupv (config->interfaces);
  s->config.interfaces = s->interfaces;
  s->log = log;
  s->log_data = log_data;
  s->route = wf_route_new (&error);
  if (s->route == NULL)
    say (s, G_LOG_LEVEL_WARNING, "route", "flows are not attributed to interfaces: %s",
         error->message);
  s->flows = wf_flows_new (config->top_n, route_flow, s);
  s->prev = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->scan_prev = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->once = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
  s->ifindexes = g_array_new (FALSE, FALSE, sizeof (int));
  s->names = g_array_new (FALSE, FALSE, sizeof (WfLinkStats));
  return s;
}

void
wf_sampler_free (WfSampler *s)
{
  if (s == NULL)
    return;
  wf_route_free (s->route);
  wf_flows_free (s->flows);
  wf_nl80211_free (s->nl);
  g_hash_table_unref (s->prev);
  g_hash_table_unref (s->scan_prev);
  wf_ratelimit_free (s->once);
  g_array_unref (s->ifindexes);
  g_array_unref (s->names);
  g_strfreev (s->interfaces);
  g_free (s);
}

void
wf_sampler_network_changed (WfSampler *s)
{
  if (s->route)
    wf_route_flush (s->route);
  wf_flows_invalidate_routes (s->flows);
  s->nl_next_try_us = 0;
}

void
wf_sampler_set_scans (WfSampler *s, WfScanCount *scans)
{
  s->scans = scans;
}

GArray *
wf_sampler_get_ifindexes (WfSampler *s)
{
  return s->ifindexes;
}

WfRoute *
wf_sampler_get_route (WfSampler *s)
{
  return s->route;
}

static void
ensure_nl80211 (WfSampler *s, gint64 now)
{
  g_autoptr(GError) error = NULL;

  if (s->nl || now < s->nl_next_try_us)
    return;
  s->nl = wf_nl80211_new (&error);
  if (s->nl == NULL)
    {
      s->nl_next_try_us = now + NL80211_RETRY_US;
      if (wf_ratelimit_check (s->once, "nl80211", NULL))
        say (s, G_LOG_LEVEL_MESSAGE, "nl80211",
             "%s: no Wi-Fi link data%s", error->message,
             s->interfaces && s->interfaces[0] ? "" : ", and no interface is Wi-Fi by default");
    }
  else if (wf_ratelimit_clear (s->once, "nl80211", NULL))
    say (s, G_LOG_LEVEL_MESSAGE, "nl80211", "nl80211 is available now");
}

/* ---- JSON ------------------------------------------------------------- */

/* Rates in whole bit/s and packets/s (a "number" in
 * docs/report-protocol.md may be an integer): a double is written with
 * 17 significant digits, "29812345.678901234" for 29812346, about 10
 * bytes more per rate for a precision no measurement here has; with ~4
 * rates per flow that is what decides how many flows fit a datagram. */
static void
set_rate_member (JsonObject *o, const char *name, double v)
{
  if (v >= 0 && v < 9e15)
    json_object_set_int_member (o, name, (gint64) llround (v));
  else
    json_object_set_double_member (o, name, v);
}

static void
set_rate (JsonObject *o, const char *name, const WfWifiRate *r)
{
  JsonObject *j = json_object_new ();

  if (r->has_bitrate)
    json_object_set_int_member (j, "bitrate_kbps", r->bitrate_kbps);
  if (r->mcs >= 0)
    json_object_set_int_member (j, "mcs", r->mcs);
  if (r->nss > 0)
    json_object_set_int_member (j, "nss", r->nss);
  json_object_set_int_member (j, "width_mhz", r->width_mhz);
  if (r->gi)
    json_object_set_string_member (j, "gi", r->gi);
  json_object_set_string_member (j, "mode", r->mode);
  json_object_set_object_member (o, name, j);
}

static JsonObject *
station_json (const WfWifiLink *w)
{
  JsonObject *o = json_object_new ();
  char bssid[WF_MAC_STR_LEN];

  json_object_set_string_member (o, "bssid", wf_mac_format (w->bssid, bssid));
  if (w->ssid[0])
    json_object_set_string_member (o, "ssid", w->ssid);
  if (w->has_freq)
    json_object_set_int_member (o, "freq_mhz", w->freq_mhz);
  if (w->width_mhz)
    json_object_set_int_member (o, "channel_width_mhz", w->width_mhz);
  if (w->sta.has_signal)
    json_object_set_int_member (o, "signal_dbm", w->sta.signal_dbm);
  if (w->sta.has_signal_avg)
    json_object_set_int_member (o, "signal_avg_dbm", w->sta.signal_avg_dbm);
  if (w->sta.has_tx_rate)
    set_rate (o, "tx_rate", &w->sta.tx_rate);
  if (w->sta.has_rx_rate)
    set_rate (o, "rx_rate", &w->sta.rx_rate);
  if (w->sta.has_tx_retries)
    json_object_set_int_member (o, "tx_retries", w->sta.tx_retries);
  if (w->sta.has_tx_failed)
    json_object_set_int_member (o, "tx_failed", w->sta.tx_failed);
  if (w->sta.has_beacon_loss)
    json_object_set_int_member (o, "beacon_loss", w->sta.beacon_loss);
  return o;
}

/* "scans": what happened since the previous report (docs/report-protocol.md);
 * "scans_total": since counting started, for Prometheus and the local
 * channel only (wf_sampler_strip_local() removes it before sending). */
static void
scans_json (WfSampler *s, JsonObject *o, int ifindex)
{
  /* Counting runs: nothing seen is a real zero here. */
  static const WfScanCounts none;
  const WfScanCounts *c = wf_scancount_get (s->scans, ifindex);
  WfScanCounts *prev = g_hash_table_lookup (s->scan_prev, GINT_TO_POINTER (ifindex));
  JsonObject *j = json_object_new ();
  JsonObject *t = json_object_new ();

  c = c ? c : &none;
  if (prev == NULL)
    {
      prev = g_new0 (WfScanCounts, 1);
      g_hash_table_insert (s->scan_prev, GINT_TO_POINTER (ifindex), prev);
    }
#define DELTA(f) json_object_set_int_member (j, #f, (gint64) (c->f >= prev->f ? c->f - prev->f : c->f))
  json_object_set_int_member (j, "count", (gint64) (c->count >= prev->count ? c->count - prev->count : c->count));
  DELTA (duration_ms); DELTA (single_ssid); DELTA (wildcard); DELTA (passive);
  DELTA (multi_ssid); DELTA (aborted);
#undef DELTA
  json_object_set_boolean_member (j, "in_progress", c->in_progress);
#define TOTAL(f) json_object_set_int_member (t, #f, (gint64) c->f)
  TOTAL (count); TOTAL (duration_ms); TOTAL (single_ssid); TOTAL (wildcard); TOTAL (passive);
  TOTAL (multi_ssid); TOTAL (aborted);
#undef TOTAL
  json_object_set_object_member (o, "scans", j);
  json_object_set_object_member (o, "scans_total", t);
  *prev = *c;
}

void
wf_sampler_strip_local (JsonObject *body)
{
  static const char * const local[] = { "scans_total", "tcp_totals" };
  JsonNode *ifs = json_object_get_member (body, "interfaces");

  if (ifs == NULL || !JSON_NODE_HOLDS_ARRAY (ifs))
    return;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (ifs)); i++)
    {
      JsonNode *n = json_array_get_element (json_node_get_array (ifs), i);

      for (guint k = 0; k < G_N_ELEMENTS (local); k++)
        if (JSON_NODE_HOLDS_OBJECT (n) && json_object_has_member (json_node_get_object (n), local[k]))
          json_object_remove_member (json_node_get_object (n), local[k]);
    }
}

/* "tcp_totals": the interface's TCP counters since the daemon started,
 * for Prometheus and the local channel only (not sent: a receiver has
 * the per-period goodput, and a datagram has no room for a histogram).
 * An interface no flow has used yet has zeros, which are measured. */
static JsonObject *
tcp_totals_json (WfSampler *s, int ifindex)
{
  static const WfTcpTotalsIface none;
  const WfTcpTotalsIface *t = wf_tcptotals_get (wf_flows_get_totals (s->flows), ifindex);
  JsonObject *o = json_object_new ();
  JsonObject *rtt = json_object_new ();
  JsonArray *le = json_array_new ();
  JsonArray *counts = json_array_new ();

  t = t ? t : &none;
  json_object_set_int_member (o, "flows", t->flows);
  json_object_set_int_member (o, "received_bytes", (gint64) t->received_bytes);
  json_object_set_int_member (o, "acked_bytes", (gint64) t->acked_bytes);
  json_object_set_int_member (o, "retrans_segments", (gint64) t->retrans_segments);
  for (guint b = 0; b < WF_TCPTOTALS_RTT_BUCKETS; b++)
    {
      json_array_add_int_element (le, wf_tcptotals_rtt_bounds_us[b]);
      json_array_add_int_element (counts, (gint64) t->rtt_le[b]);
    }
  json_object_set_array_member (rtt, "le_us", le);
  json_object_set_array_member (rtt, "counts", counts);
  json_object_set_int_member (rtt, "count", (gint64) t->rtt_count);
  json_object_set_int_member (rtt, "sum_us", (gint64) t->rtt_sum_us);
  json_object_set_object_member (o, "rtt", rtt);
  return o;
}

static JsonObject *
iface_json (WfSampler *s, const WfLinkStats *st, const WfWifiLink *wifi, gint64 now)
{
  JsonObject *o = json_object_new ();
  Prev *p = g_hash_table_lookup (s->prev, GINT_TO_POINTER (st->ifindex));
  double gtx, grx;

  json_object_set_string_member (o, "name", st->name);
  json_object_set_int_member (o, "ifindex", st->ifindex);
  json_object_set_boolean_member (o, "wifi", wifi != NULL);
  if (wifi)
    json_object_set_string_member (o, "iftype", wf_nl80211_iftype_name (wifi->iftype));
  json_object_set_boolean_member (o, "up", st->up);
#define COUNTER(f) json_object_set_int_member (o, #f, (gint64) st->f)
  COUNTER (rx_bytes); COUNTER (tx_bytes); COUNTER (rx_packets); COUNTER (tx_packets);
  COUNTER (rx_errors); COUNTER (tx_errors); COUNTER (rx_dropped); COUNTER (tx_dropped);
#undef COUNTER
  /* Rates need the same interface (same ifindex and name) a period ago. */
  if (p && g_str_equal (p->stats.name, st->name) && now > p->when_us)
    {
      WfLinkRates r;

      wf_linkstats_rates (&p->stats, st, (now - p->when_us) / 1e6, &r);
      set_rate_member (o, "rx_bps", r.rx_bytes * 8);
      set_rate_member (o, "tx_bps", r.tx_bytes * 8);
      set_rate_member (o, "rx_pps", r.rx_packets);
      set_rate_member (o, "tx_pps", r.tx_packets);
    }
  if (wf_flows_iface_goodput (s->flows, st->ifindex, &gtx, &grx))
    {
      set_rate_member (o, "goodput_rx_bps", grx);
      set_rate_member (o, "goodput_tx_bps", gtx);
    }
  if (wifi && wifi->is_station && wifi->connected)
    json_object_set_object_member (o, "station", station_json (wifi));
  if (wifi && s->scans)
    scans_json (s, o, st->ifindex);
  if (s->flows_ok)
    json_object_set_object_member (o, "tcp_totals", tcp_totals_json (s, st->ifindex));
  return o;
}

static const char *
tcp_state_name (guint8 state)
{
  static const char * const names[] = {
    "unknown", "established", "syn-sent", "syn-recv", "fin-wait-1", "fin-wait-2",
    "time-wait", "close", "close-wait", "last-ack", "listen", "closing", "new-syn-recv",
  };

  return state < G_N_ELEMENTS (names) ? names[state] : "unknown";
}

static const char *
link_name (WfSampler *s, int ifindex)
{
  for (guint i = 0; i < s->names->len; i++)
    if (g_array_index (s->names, WfLinkStats, i).ifindex == ifindex)
      return g_array_index (s->names, WfLinkStats, i).name;
  return NULL;
}

JsonObject *
wf_sampler_flow_json (const WfFlow *f, const char *iface)
{
  JsonObject *o = json_object_new ();
  const WfTcpInfo *i = &f->sock.info;

  json_object_set_string_member (o, "src", f->sock.src);
  json_object_set_string_member (o, "dst", f->sock.dst);
  if (iface)
    json_object_set_string_member (o, "iface", iface);
  json_object_set_string_member (o, "state", tcp_state_name (f->sock.state));
  if (f->sock.cong[0])
    json_object_set_string_member (o, "cc", f->sock.cong);
  if (f->sock.have_info)
    {
      json_object_set_int_member (o, "cwnd", i->snd_cwnd);
      /* 0x7fffffff: still in slow start, no threshold yet. */
      if (i->snd_ssthresh < 0x7fffffff)
        json_object_set_int_member (o, "ssthresh", i->snd_ssthresh);
      json_object_set_int_member (o, "rtt_us", i->rtt_us);
      json_object_set_int_member (o, "rttvar_us", i->rttvar_us);
      json_object_set_int_member (o, "retrans", i->retrans);
      json_object_set_int_member (o, "total_retrans", i->total_retrans);
    }
  if (f->has_goodput)
    {
      set_rate_member (o, "goodput_tx_bps", f->goodput_tx_bps);
      set_rate_member (o, "goodput_rx_bps", f->goodput_rx_bps);
    }
  if (f->sock.have_info && i->have_rates)
    {
      set_rate_member (o, "delivery_rate_bps", i->delivery_rate * 8.0);
      /* ~0: no pacing limit. */
      if (i->pacing_rate != G_MAXUINT64)
        set_rate_member (o, "pacing_rate_bps", i->pacing_rate * 8.0);
      /* Lets a controller tell an uploader that wants more from one that
       * is satisfied (docs/report-protocol.md). */
      json_object_set_boolean_member (o, "app_limited", i->app_limited);
    }
  return o;
}

/* ---- which interfaces ------------------------------------------------- */

static const WfWifiLink *
find_wifi (GArray *wifi, int ifindex)
{
  for (guint i = 0; wifi && i < wifi->len; i++)
    if (g_array_index (wifi, WfWifiLink, i).ifindex == ifindex)
      return &g_array_index (wifi, WfWifiLink, i);
  return NULL;
}

static gboolean
wanted (WfSampler *s, const WfLinkStats *st, const WfWifiLink *wifi, gboolean any_wifi)
{
  if (s->interfaces && s->interfaces[0])
    return g_strv_contains ((const char * const *) s->interfaces, st->name);
  if (wifi)
    return TRUE;
  return s->config.all_if_no_wifi && !any_wifi && !g_str_equal (st->name, "lo");
}

/* Log interfaces that came, went or changed mode. */
static void
track (WfSampler *s, const WfLinkStats *st, const WfWifiLink *wifi, gint64 now)
{
  Prev *p = g_hash_table_lookup (s->prev, GINT_TO_POINTER (st->ifindex));
  guint32 iftype = wifi ? wifi->iftype : G_MAXUINT32;

  if (p == NULL || !g_str_equal (p->stats.name, st->name))
    {
      if (p == NULL)
        {
          p = g_new0 (Prev, 1);
          g_hash_table_insert (s->prev, GINT_TO_POINTER (st->ifindex), p);
        }
      say (s, G_LOG_LEVEL_MESSAGE, NULL, "reporting %s (ifindex %d, %s%s%s)", st->name,
           st->ifindex, wifi ? "Wi-Fi " : "not Wi-Fi",
           wifi ? wf_nl80211_iftype_name (iftype) : "", st->up ? "" : ", down");
    }
  else if (p->iftype != iftype)
    say (s, G_LOG_LEVEL_MESSAGE, NULL, "%s changed mode: %s -> %s", st->name,
         p->iftype == G_MAXUINT32 ? "not Wi-Fi" : wf_nl80211_iftype_name (p->iftype),
         wifi ? wf_nl80211_iftype_name (iftype) : "not Wi-Fi");
  p->stats = *st;
  p->when_us = now;
  p->iftype = iftype;
  p->seen = s->gen;
}

static gboolean
forget (gpointer key, gpointer value, gpointer data)
{
  WfSampler *s = data;
  Prev *p = value;

  if (p->seen == s->gen)
    return FALSE;
  say (s, G_LOG_LEVEL_MESSAGE, NULL, "%s (ifindex %d) is gone; its counters and rates "
       "are no longer reported", p->stats.name, GPOINTER_TO_INT (key));
  g_hash_table_remove (s->scan_prev, key);
  return TRUE;
}

static void
check_missing (WfSampler *s)
{
  for (char **n = s->interfaces; n && *n; n++)
    {
      g_autofree char *key = g_strconcat ("absent:", *n, NULL);
      gboolean present = FALSE;

      for (guint i = 0; i < s->names->len; i++)
        if (g_str_equal (g_array_index (s->names, WfLinkStats, i).name, *n))
          present = TRUE;
      /* Said once while the configured name is absent. */
      if (present)
        wf_ratelimit_clear (s->once, key, NULL);
      else if (wf_ratelimit_check (s->once, key, NULL))
        say (s, G_LOG_LEVEL_MESSAGE, NULL, "interface %s is not present; reporting it "
             "when it appears", *n);
    }
}

/* TCP totals of interfaces that are gone: a later interface may get the
 * same ifindex, and it starts from zero. */
static void
retain_totals (WfSampler *s)
{
  g_autoptr(GArray) present = g_array_sized_new (FALSE, FALSE, sizeof (int), s->names->len);

  for (guint i = 0; i < s->names->len; i++)
    g_array_append_val (present, g_array_index (s->names, WfLinkStats, i).ifindex);
  wf_tcptotals_retain (wf_flows_get_totals (s->flows), present);
}

GPtrArray *
wf_sampler_up_interfaces (WfSampler *s)
{
  g_autoptr(GArray) links = g_array_new (FALSE, FALSE, sizeof (WfLinkStats));
  g_autoptr(GArray) wifi = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *up;
  gboolean any_wifi = FALSE;

  if (!wf_linkstats_dump (links, &error))
    {
      say (s, G_LOG_LEVEL_WARNING, "links", "interface counters unavailable: %s", error->message);
      return NULL;
    }
  /* Which links are Wi-Fi matters only without a list of names. */
  if (!(s->interfaces && s->interfaces[0]))
    {
      ensure_nl80211 (s, g_get_monotonic_time ());
      if (s->nl)
        {
          wifi = g_array_new (FALSE, FALSE, sizeof (WfWifiLink));
          if (!wf_nl80211_dump (s->nl, wifi, &error))
            {
              say (s, G_LOG_LEVEL_WARNING, "nl80211-dump", "Wi-Fi link data unavailable: %s",
                   error->message);
              return NULL;
            }
          any_wifi = wifi->len > 0;
        }
    }
  up = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < links->len; i++)
    {
      const WfLinkStats *st = &g_array_index (links, WfLinkStats, i);

      if (st->up && wanted (s, st, find_wifi (wifi, st->ifindex), any_wifi))
        g_ptr_array_add (up, g_strdup (st->name));
    }
  return up;
}

/* ---- one sample ------------------------------------------------------- */

JsonObject *
wf_sampler_sample (WfSampler *s)
{
  JsonObject *body = json_object_new ();
  g_autoptr(GArray) wifi = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) tcp = NULL;
  gint64 now, flows_real, flows_end;
  gboolean links_ok, any_wifi = FALSE;

  s->gen++;
  g_array_set_size (s->names, 0);
  g_array_set_size (s->ifindexes, 0);

  now = g_get_monotonic_time ();
  links_ok = wf_linkstats_dump (s->names, &error);
  if (!links_ok)
    {
      say (s, G_LOG_LEVEL_WARNING, "links", "interface counters unavailable: %s", error->message);
      g_clear_error (&error);
    }

  /* Flows right after the counters, before nl80211 (whose requests take a
   * varying time, more so under emulation): the interface rates and the
   * goodput then cover the same interval. The flows carry the goodput
   * sums of the interfaces; their own time stamp, taken at their dump. */
  flows_real = g_get_real_time ();
  s->flows_ok = wf_flows_sample (s->flows, g_get_monotonic_time (), &error);
  flows_end = g_get_real_time ();
  if (!s->flows_ok)
    {
      say (s, G_LOG_LEVEL_WARNING, "sockdiag", "TCP flows unavailable: %s", error->message);
      g_clear_error (&error);
    }
  else
    {
      JsonArray *flows = json_array_new ();
      guint n;
      const WfFlow *top = wf_flows_top (s->flows, &n);

      json_object_set_int_member (body, "flows_total", wf_flows_total (s->flows));
      for (guint i = 0; i < n; i++)
        {
          const char *iface = top[i].ifindex > 0 ? link_name (s, top[i].ifindex) : NULL;

          json_array_add_object_element (flows, wf_sampler_flow_json (&top[i], iface));
        }
      json_object_set_array_member (body, "flows", flows);
      /* Where the rates sit in time: a late tick stretches the span past
       * interval_s, and the report is sealed later still (nl80211, send),
       * so time_us alone misplaces them by up to seconds under load. */
      json_object_set_int_member (body, "sampled_us", flows_real);
      /* A stall inside the dump (a loaded or emulated machine) lets
       * sockets be read well after sampled_us: both ends tell a receiver
       * how sharp the boundary is. */
      json_object_set_int_member (body, "sampled_end_us", MAX (flows_end, flows_real));
      if (wf_flows_span (s->flows) > 0)
        json_object_set_double_member (body, "span_s", wf_flows_span (s->flows));
    }

  ensure_nl80211 (s, now);
  if (s->nl)
    {
      wifi = g_array_new (FALSE, FALSE, sizeof (WfWifiLink));
      if (!wf_nl80211_dump (s->nl, wifi, &error))
        {
          say (s, G_LOG_LEVEL_WARNING, "nl80211-dump", "Wi-Fi link data unavailable: %s",
               error->message);
          g_clear_error (&error);
          g_clear_pointer (&wifi, g_array_unref);
          /* A broken socket: start over next time. */
          g_clear_pointer (&s->nl, wf_nl80211_free);
        }
      any_wifi = wifi && wifi->len > 0;
    }

  if (links_ok)
    {
      JsonArray *ifaces = json_array_new ();

      /* Two passes: Wi-Fi interfaces first (the default destination). */
      for (int pass = 0; pass < 2; pass++)
        for (guint i = 0; i < s->names->len; i++)
          {
            const WfLinkStats *st = &g_array_index (s->names, WfLinkStats, i);
            const WfWifiLink *w = find_wifi (wifi, st->ifindex);

            if ((w != NULL) != (pass == 0) || !wanted (s, st, w, any_wifi))
              continue;
            json_array_add_object_element (ifaces, iface_json (s, st, w, now));
            g_array_append_val (s->ifindexes, st->ifindex);
            track (s, st, w, now);
          }
      json_object_set_array_member (body, "interfaces", ifaces);
      g_hash_table_foreach_remove (s->prev, forget, s);
      check_missing (s);
      retain_totals (s);
    }

  tcp = wf_tcpstatus_load (s->config.tcp_status);
  if (tcp)
    {
      JsonNode *reg = json_object_get_member (json_node_get_object (tcp), "registered");

      if (reg && JSON_NODE_HOLDS_OBJECT (reg))
        json_object_set_member (body, "ackloss", json_node_copy (reg));
    }
  return body;
}
