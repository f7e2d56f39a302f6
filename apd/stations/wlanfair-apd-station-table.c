/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-station-table.h"

#include <math.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-ratelimit.h"

/* A report may claim a little more than the AP counted: the two measure
 * over intervals that do not line up. */
#define REPORT_SLACK_BPS 500e3

/* download-demand=: a station waits at the AP when, over the last
 * WAIT_ROUNDS rounds, at least WAIT_MIN_FRAMES and WAIT_SHARE of the
 * frames handed over for it were not delivered. Summed over rounds, what
 * queued at one end and left at the other cancels out; what is left is
 * what the AP dropped, and the queue's growth. A starved download is
 * handed a retransmission every few seconds: the window is long and the
 * minimum small. */
#define WAIT_ROUNDS 10
#define WAIT_MIN_FRAMES 2
#define WAIT_SHARE 0.05

/* Airtime measured by the driver (nl80211 TX/RX duration) counts what a
 * PHY rate leaves out: the per-frame overhead (contention, preamble, the
 * acknowledgement), retries, aggregation. A round's measure needs this
 * many bytes carried (about 40 full frames); an idle station keeps the
 * cost it last measured. */
#define AIRTIME_MIN_BYTES 65536

enum { DOWN, UP };     /* the direction of a cost: tx, rx as the AP sees it */

typedef struct {
  WfApdStation  s;
  gboolean      seen;          /* in the current dump */
  gboolean      has_counters;
  guint64       tx_bytes, rx_bytes;
  gint64        counters_at;
  gboolean      has_rate;
  WfReportView *report;        /* the latest, NULL: none */
  gint64        report_at;
  gboolean      was_trusted;   /* for one log line per change */
  /* The cross-check's averages: a report and the AP's counters cover
   * seconds that do not line up, so one round's pair can differ by what
   * a second carries; over a few rounds they must agree. */
  gboolean      has_avg;
  double        ap_down_avg, ap_up_avg, rep_down_avg, rep_up_avg;
  /* download-demand=: delivered frames this round (update_ap), then the
   * last WAIT_ROUNDS rounds' frames handed over and not delivered. */
  gboolean      has_tx_packets;
  guint64       tx_packets;
  /* The driver's airtime counters (DOWN: tx, UP: rx) and the cost per
   * bit they last gave, 0 when they gave none. */
  gboolean      has_duration[2];
  guint64       duration_us[2];
  double        measured[2];
  gint64        delivered;       /* this round; -1: unknown */
  gboolean      has_handed;
  guint64       handed;          /* cumulative, from the program */
  gint64        win_handed[WAIT_ROUNDS];
  gint64        win_missing[WAIT_ROUNDS];
  guint         win_n, win_next;
} Entry;

#define AVG_WEIGHT 0.3   /* of the newest round: about 3 rounds' memory */

struct _WfApdStations {
  const WfApdConfig *config;
  GHashTable        *by_mac;   /* mac_str -> Entry */
  WfRatelimit       *unmatched;  /* by host id: said once until matched */
  guint64            untrusted;
  gint64             last_feed;
  gboolean           airtime_said[2];  /* costs from measured airtime, logged */
};

static void
entry_free (gpointer p)
{
  Entry *e = p;

  wf_report_view_free (e->report);
  g_free (e);
}

WfApdStations *
wf_apd_stations_new (const WfApdConfig *config)
{
  WfApdStations *t = g_new0 (WfApdStations, 1);

  t->config = config;
  t->by_mac = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
  t->unmatched = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
  return t;
}

void
wf_apd_stations_free (WfApdStations *t)
{
  if (!t)
    return;
  g_hash_table_unref (t->by_mac);
  wf_ratelimit_free (t->unmatched);
  g_free (t);
}

/* Cost per bit from the driver's airtime over this round, averaged over
 * a few rounds as the AP's other averages; the last one when too few
 * bytes moved to tell; 0 when the driver counts none (or the counters went
 * back: a re-association). */
static double
measured_cost (const Entry *e, int dir, gboolean has, guint64 duration_us, gboolean has_bytes,
               guint64 bytes)
{
  double last = e->measured[dir], now;

  if (!has || !e->has_duration[dir] || duration_us < e->duration_us[dir] || !has_bytes)
    return 0;
  if (bytes < AIRTIME_MIN_BYTES)
    return last;
  if (duration_us == e->duration_us[dir])
    return 0;
  now = (duration_us - e->duration_us[dir]) * 1e-6 / (bytes * 8.0);
  return last > 0 ? (1 - AVG_WEIGHT) * last + AVG_WEIGHT * now : now;
}

/* 1 / its PHY rate that way, 0 when the AP does not know the rate. */
static double
phy_cost (const Entry *e, int dir)
{
  gboolean has = dir == DOWN ? e->s.has_tx_bitrate : e->s.has_rx_bitrate;
  guint32 kbps = dir == DOWN ? e->s.tx_bitrate_kbps : e->s.rx_bitrate_kbps;

  return has && kbps ? 1.0 / (kbps * 1e3) : 0;
}

/* Costs compare in one unit: a station the driver measured costs its
 * measure; one it did not (yet) costs its PHY rate's, scaled by the mean
 * ratio of measure to PHY-rate cost of those it did, so that the overhead
 * the others showed is not left out of it alone. Called after the
 * departures: every entry is in the current dump. */
static void
set_costs (WfApdStations *t)
{
  static const char *const names[2] = { "TX", "RX" };
  GHashTableIter it;
  gpointer value;

  for (int dir = DOWN; dir <= UP; dir++)
    {
      double ratio_sum = 0;
      guint n_ratio = 0;

      g_hash_table_iter_init (&it, t->by_mac);
      while (g_hash_table_iter_next (&it, NULL, &value))
        {
          Entry *e = value;
          double phy = phy_cost (e, dir);

          if (e->measured[dir] > 0 && phy > 0)
            {
              ratio_sum += e->measured[dir] / phy;
              n_ratio++;
            }
        }
      if ((n_ratio > 0) != t->airtime_said[dir])
        {
          t->airtime_said[dir] = n_ratio > 0;
          if (n_ratio)
            g_message ("airtime costs %s: the driver's %s duration (%.2f x the PHY rate's)",
                       dir == DOWN ? "down" : "up", names[dir], ratio_sum / n_ratio);
          else
            g_message ("airtime costs %s: PHY rates (no station's %s duration measured)",
                       dir == DOWN ? "down" : "up", names[dir]);
        }

      g_hash_table_iter_init (&it, t->by_mac);
      while (g_hash_table_iter_next (&it, NULL, &value))
        {
          Entry *e = value;
          double cost = e->measured[dir] > 0 ? e->measured[dir]
                        : phy_cost (e, dir) * (n_ratio ? ratio_sum / n_ratio : 1.0);

          if (dir == DOWN)
            e->s.cost_down_s_per_bit = cost;
          else
            e->s.cost_up_s_per_bit = cost;
        }
    }
}

void
wf_apd_stations_update_ap (WfApdStations *t, const WfApdApEntry *entries, guint n,
                           gint64 now_us, GPtrArray *left)
{
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, t->by_mac);
  while (g_hash_table_iter_next (&it, &key, &value))
    ((Entry *) value)->seen = FALSE;

  for (guint i = 0; i < n; i++)
    {
      const WfApdApEntry *a = &entries[i];
      char mac[WF_MAC_STR_LEN];
      Entry *e;

      wf_mac_format (a->mac, mac);
      e = g_hash_table_lookup (t->by_mac, mac);
      if (!e)
        {
          e = g_new0 (Entry, 1);
          memcpy (e->s.mac, a->mac, 6);
          g_strlcpy (e->s.mac_str, mac, sizeof e->s.mac_str);
          e->was_trusted = TRUE;
          g_hash_table_insert (t->by_mac, g_strdup (mac), e);
          g_message ("station %s associated", mac);
        }
      e->seen = TRUE;
      e->s.ifindex = a->ifindex;
      e->s.has_signal = a->has_signal;
      e->s.signal_dbm = a->signal_dbm;
      e->s.has_tx_bitrate = a->has_tx_bitrate;
      e->s.tx_bitrate_kbps = a->tx_bitrate_kbps;
      e->s.has_rx_bitrate = a->has_rx_bitrate;
      e->s.rx_bitrate_kbps = a->rx_bitrate_kbps;
      e->s.tx_mcs = a->tx_mcs;
      /* Airtime per bit each way (set_costs, after every station): relative
       * costs are what the controller needs. */
      {
        gboolean bytes_ok = e->has_counters && a->tx_bytes >= e->tx_bytes &&
                            a->rx_bytes >= e->rx_bytes;

        e->measured[DOWN] = measured_cost (e, DOWN, a->has_tx_duration, a->tx_duration_us,
                                           bytes_ok, a->tx_bytes - e->tx_bytes);
        e->measured[UP] = measured_cost (e, UP, a->has_rx_duration, a->rx_duration_us,
                                         bytes_ok, a->rx_bytes - e->rx_bytes);
        e->duration_us[DOWN] = a->tx_duration_us;
        e->duration_us[UP] = a->rx_duration_us;
        e->has_duration[DOWN] = a->has_tx_duration;
        e->has_duration[UP] = a->has_rx_duration;
      }

      if (e->has_counters && now_us > e->counters_at &&
          a->tx_bytes >= e->tx_bytes && a->rx_bytes >= e->rx_bytes)
        {
          double dt = (now_us - e->counters_at) / 1e6;
          e->s.ap_down_bps = (a->tx_bytes - e->tx_bytes) * 8.0 / dt;
          e->s.ap_up_bps = (a->rx_bytes - e->rx_bytes) * 8.0 / dt;
          e->has_rate = TRUE;
          if (e->s.ap_down_bps + e->s.ap_up_bps > 0)
            t->last_feed = now_us;
        }
      else
        /* First dump, or the counters went back (a re-association):
         * no rate this round. */
        e->has_rate = FALSE;
      /* Frames delivered this round (nl80211's counter is 32 bits). */
      e->delivered = -1;
      if (a->has_tx_packets && e->has_tx_packets && e->has_rate)
        {
          if (a->tx_packets >= e->tx_packets)
            e->delivered = (gint64) (a->tx_packets - e->tx_packets);
          else if (a->tx_packets_32bit)
            e->delivered = (gint64) ((a->tx_packets - e->tx_packets) & G_MAXUINT32);
        }
      e->has_tx_packets = a->has_tx_packets;
      e->tx_packets = a->tx_packets;
      e->has_counters = TRUE;
      e->tx_bytes = a->tx_bytes;
      e->rx_bytes = a->rx_bytes;
      e->counters_at = now_us;
    }

  g_hash_table_iter_init (&it, t->by_mac);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (!((Entry *) value)->seen)
      {
        g_message ("station %s left", (const char *) key);
        if (left)
          g_ptr_array_add (left, g_bytes_new (((Entry *) value)->s.mac, 6));
        g_hash_table_iter_remove (&it);
      }
  set_costs (t);
}

void
wf_apd_stations_update_download_demand (WfApdStations *t, const WfApdDownloadDemand *counts,
                                        guint n)
{
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, t->by_mac);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      Entry *e = value;
      guint64 now = 0;
      gint64 off = -1;
      gint64 sum_off = 0, sum_missing = 0;

      /* Absent: nothing handed over for it yet (or evicted: a reset). */
      for (guint i = 0; i < n; i++)
        if (memcmp (counts[i].mac, e->s.mac, 6) == 0)
          now = counts[i].packets;
      if (e->has_handed && now >= e->handed)
        off = (gint64) (now - e->handed);
      e->has_handed = TRUE;
      e->handed = now;
      if (off < 0 || e->delivered < 0)
        {
          /* No round to count: start over rather than mix intervals. */
          e->win_n = e->win_next = 0;
          e->s.waits_at_ap = FALSE;
          continue;
        }
      e->win_handed[e->win_next] = off;
      e->win_missing[e->win_next] = off - e->delivered;
      e->win_next = (e->win_next + 1) % WAIT_ROUNDS;
      e->win_n = MIN (e->win_n + 1, WAIT_ROUNDS);
      for (guint k = 0; k < e->win_n; k++)
        {
          sum_off += e->win_handed[k];
          sum_missing += e->win_missing[k];
        }
      e->s.waits_at_ap = sum_missing >= WAIT_MIN_FRAMES && sum_missing >= WAIT_SHARE * sum_off;
    }
}

void
wf_apd_stations_update_neigh (WfApdStations *t, GArray *neighs)
{
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, t->by_mac);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      Entry *e = value;
      e->s.n_addrs = 0;
      for (guint i = 0; i < neighs->len && e->s.n_addrs < WF_APD_MAX_ADDRS; i++)
        {
          const WfNeigh *n = &g_array_index (neighs, WfNeigh, i);
          if (memcmp (n->mac, e->s.mac, 6) != 0)
            continue;
          e->s.addrs[e->s.n_addrs].family = n->family;
          memcpy (e->s.addrs[e->s.n_addrs].addr, n->addr, 16);
          e->s.n_addrs++;
        }
    }
}

static Entry *
entry_by_addr (WfApdStations *t, int family, const guint8 addr[16])
{
  GHashTableIter it;
  gpointer key, value;
  gsize len = family == AF_INET ? 4 : 16;

  g_hash_table_iter_init (&it, t->by_mac);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      Entry *e = value;
      for (guint i = 0; i < e->s.n_addrs; i++)
        if (e->s.addrs[i].family == family && memcmp (e->s.addrs[i].addr, addr, len) == 0)
          return e;
    }
  return NULL;
}

gboolean
wf_apd_stations_add_report (WfApdStations *t, WfReportView *view, int family,
                            const guint8 addr[16], const guint8 *mac, WfApdPath path,
                            gint64 now_us)
{
  Entry *e = NULL;

  if (mac)
    {
      char m[WF_MAC_STR_LEN];

      wf_mac_format (mac, m);
      e = g_hash_table_lookup (t->by_mac, m);
    }
  if (!e)
    e = entry_by_addr (t, family, addr);

  if (!e)
    {
      if (wf_ratelimit_check (t->unmatched, view->host, NULL))
        g_message ("report of host %s%s%s comes from an address of no associated "
                   "station: not used", view->host, view->hostname ? " " : "",
                   view->hostname ? view->hostname : "");
      wf_report_view_free (view);
      return FALSE;
    }
  wf_ratelimit_clear (t->unmatched, view->host, NULL);
  wf_report_view_free (e->report);
  e->report = view;
  e->report_at = now_us;
  e->s.report_path = path;
  g_strlcpy (e->s.hostname, view->hostname ? view->hostname : "", sizeof e->s.hostname);
  t->last_feed = now_us;
  return TRUE;
}

/* What the report says beyond goodput: RTT (goodput-weighted), whether
 * every busy flow is application-limited, and whether a flow it sends on
 * waits for the path. */
static void
report_flows (const WfReportView *v, double idle_bps, WfApdStation *s)
{
  JsonArray *flows;
  double w_sum = 0, rtt_sum = 0;
  guint busy = 0, limited = 0, receiving = 0;

  s->has_rtt = FALSE;
  s->app_limited = FALSE;
  s->wants_more = FALSE;
  if (!v->body || !json_object_has_member (v->body, "flows"))
    return;
  flows = json_object_get_array_member (v->body, "flows");
  for (guint i = 0; flows && i < json_array_get_length (flows); i++)
    {
      JsonObject *f = json_array_get_object_element (flows, i);
      double g = 0, tx = 0, rx = 0;

      if (!f)
        continue;
      if (json_object_has_member (f, "goodput_tx_bps"))
        tx = json_object_get_double_member (f, "goodput_tx_bps");
      if (json_object_has_member (f, "goodput_rx_bps"))
        rx = json_object_get_double_member (f, "goodput_rx_bps");
      g = tx + rx;
      /* Below the idle rate too: a starved upload moves a segment now
       * and then, and says it has more to send. */
      if (tx > rx && json_object_has_member (f, "app_limited") &&
          !json_object_get_boolean_member (f, "app_limited"))
        s->wants_more = TRUE;
      if (g < idle_bps)
        continue;
      /* app_limited speaks of the host's sending only: a flow that
       * mostly receives is no evidence that the host wants no more. */
      if (json_object_has_member (f, "rtt_us"))
        {
          rtt_sum += g * json_object_get_int_member (f, "rtt_us") / 1e6;
          w_sum += g;
        }
      if (rx > tx)
        receiving++;
      else
        {
          busy++;
          if (json_object_has_member (f, "app_limited") &&
              json_object_get_boolean_member (f, "app_limited"))
            limited++;
        }
    }
  if (w_sum > 0)
    {
      s->has_rtt = TRUE;
      s->rtt_s = rtt_sum / w_sum;
    }
  s->app_limited = busy > 0 && limited == busy && receiving == 0;
}

void
wf_apd_stations_snapshot (WfApdStations *t, gint64 now_us, GArray *out)
{
  const WfApdConfig *c = t->config;
  GHashTableIter it;
  gpointer key, value;

  g_array_set_size (out, 0);
  g_hash_table_iter_init (&it, t->by_mac);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      Entry *e = value;
      WfApdStation *s = &e->s;
      double rx = 0, tx = 0;

      if (!e->has_rate)
        continue;
      s->weight = wf_apd_config_weight (c, s->mac);
      s->reporting = e->report && now_us - e->report_at <= (gint64) (c->report_stale_s * G_USEC_PER_SEC);
      s->trusted = FALSE;
      s->rep_down_bps = s->rep_up_bps = 0;
      if (!s->reporting)
        e->has_avg = FALSE;
      if (s->reporting && wf_report_view_goodput (e->report, &rx, &tx))
        {
          s->rep_down_bps = rx;
          s->rep_up_bps = tx;
          if (!e->has_avg)
            {
              e->ap_down_avg = s->ap_down_bps;
              e->ap_up_avg = s->ap_up_bps;
              e->rep_down_avg = rx;
              e->rep_up_avg = tx;
              e->has_avg = TRUE;
            }
          e->ap_down_avg += AVG_WEIGHT * (s->ap_down_bps - e->ap_down_avg);
          e->ap_up_avg += AVG_WEIGHT * (s->ap_up_bps - e->ap_up_avg);
          e->rep_down_avg += AVG_WEIGHT * (rx - e->rep_down_avg);
          e->rep_up_avg += AVG_WEIGHT * (tx - e->rep_up_avg);
          /* Goodput is payload: it can be below what the AP carried (headers,
           * UDP) but not above it. */
          s->trusted = e->rep_down_avg <= e->ap_down_avg * (1 + c->tolerance) + REPORT_SLACK_BPS &&
                       e->rep_up_avg <= e->ap_up_avg * (1 + c->tolerance) + REPORT_SLACK_BPS;
          if (!s->trusted)
            t->untrusted++;
          if (s->trusted != e->was_trusted)
            g_message ("station %s%s%s: its report %s (reported %.1f/%.1f Mbit/s down/up, "
                       "the AP carried %.1f/%.1f)", s->mac_str, s->hostname[0] ? " " : "",
                       s->hostname, s->trusted ? "agrees with the AP again"
                                               : "claims more than the AP carried: not used for control",
                       rx / 1e6, tx / 1e6, s->ap_down_bps / 1e6, s->ap_up_bps / 1e6);
          e->was_trusted = s->trusted;
          report_flows (e->report, c->control.idle_bps, s);
        }
      /* Control acts on the AP's own counters, read in this round: a
       * report covers a second that does not line up with the round,
       * and acting on it adds a round of delay to the loop (measured:
       * the caps then swung every other round). A trusted report adds
       * what only the host knows: RTT and whether it wants more. */
      s->down_bps = s->ap_down_bps;
      s->up_bps = s->ap_up_bps;
      if (!s->trusted)
        {
          s->app_limited = FALSE;
          s->wants_more = FALSE;
          s->has_rtt = FALSE;
        }
      g_array_append_val (out, *s);
    }
}

guint
wf_apd_stations_count (WfApdStations *t)
{
  return g_hash_table_size (t->by_mac);
}

guint64
wf_apd_stations_untrusted (WfApdStations *t)
{
  return t->untrusted;
}

gint64
wf_apd_stations_last_feed (WfApdStations *t)
{
  return t->last_feed;
}
