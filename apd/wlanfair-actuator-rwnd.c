/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A rate cap per station by the TCP receive window (SAP-LAW): the BPF
 * program of wlanfair-rwnd.bpf.c on the AP interface's ingress and egress
 * lowers the window advertised to each of the station's TCP senders to
 * rate x RTT. Downloads: the station's ACKs (ingress) to the server;
 * uploads: the server's ACKs (egress) to the station. Nothing is queued
 * or dropped; only TCP connections whose handshake the program saw are
 * held back (UDP, QUIC and tunnels are not). */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"
#include "wlanfair-rwnd.h"

#define RWND_RTT_DEFAULT_S  0.050   /* neither a report nor a handshake */
#define RWND_IDLE_S         30.0    /* a flow idle this long is not counted */
#define RWND_ACTIVE_BYTES   16384   /* sent since the last apply: it moves data */

typedef enum {
  RTT_REPORT,       /* the host's report (tcp_info of its flows) */
  RTT_HANDSHAKE,    /* measured by the program: SYN -> third segment */
  RTT_DEFAULT,
} RttSource;

static const char *const rtt_source_names[] = { "report", "handshake", "default" };

typedef struct {
  WfApdStation      sta;       /* addresses, report RTT */
  WfActuatorSetting setting;
  GArray           *tkeys;     /* struct wf_rwnd_tkey set for it */
  GHashTable       *sent;      /* GBytes (struct wf_rwnd_key) -> guint64[2] bytes */
  char             *logged;    /* last summary logged */
} Sta;

typedef struct {
  WfRwnd     *rw;
  GHashTable *stations;        /* mac_str -> Sta */
} Rwnd;

static void
sta_free (gpointer p)
{
  Sta *s = p;

  g_array_unref (s->tkeys);
  g_hash_table_unref (s->sent);
  g_free (s->logged);
  g_free (s);
}

static gboolean
rwnd_probe (WfActuator *a, GError **error)
{
  if (!a->ifindex)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rwnd: no interface %s", a->ifname);
      return FALSE;
    }
  return wf_rwnd_probe (error);
}

static gboolean
rwnd_start (WfActuator *a, GError **error)
{
  Rwnd *r = a->priv;
  gboolean created = FALSE;

  if (!(r->rw = wf_rwnd_new (0, error)))
    return FALSE;
  r->stations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, sta_free);
  /* Recorded first: a crash from here on leaves filters restore removes
   * (and, if it came before "clsact", an empty clsact qdisc). */
  if (!wf_actuator_record (a, "filters", "ingress,egress", error) ||
      !wf_rwnd_attach (r->rw, a->ifname, &created, error))
    return FALSE;
  return wf_actuator_record (a, "clsact", created ? "created" : "kept", error);
}

static gboolean
addr_is (const WfApdStation *sta, const WfRwndFlow *f, guint k)
{
  for (guint i = 0; i < sta->n_addrs && i < WF_APD_MAX_ADDRS; i++)
    if (sta->addrs[i].family == f->family &&
        memcmp (sta->addrs[i].addr, f->key.addr[k], f->family == AF_INET ? 4 : 16) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
clear_targets (Rwnd *r, Sta *s, GError **error)
{
  for (guint i = 0; i < s->tkeys->len; i++)
    {
      struct wf_rwnd_tkey *tk = &g_array_index (s->tkeys, struct wf_rwnd_tkey, i);

      if (!wf_rwnd_set_target (r->rw, &tk->flow, tk->sender, 0, error))
        return FALSE;
    }
  g_array_set_size (s->tkeys, 0);
  return TRUE;
}

/* A flow's window for rate (bit/s) over rtt: at most what the field can
 * carry scaled by 14. */
static guint32
window_for (double rate_bps, double rtt_s)
{
  double w = rate_bps / 8 * rtt_s;

  return w >= 65535.0 * (1 << 14) ? 65535u << 14 : (guint32) MAX (w, 1);
}

/* The station's rate split among its flows, each its weight's share
 * (equal weights for now: the RTT-fair policy will set them). */
static double
flow_share (double rate_bps, double weight, double weight_sum)
{
  return weight_sum > 0 ? rate_bps * weight / weight_sum : 0;
}

/* Whether endpoint `sender` of f sent data since the last apply. */
static gboolean
moved_data (Sta *s, const WfRwndFlow *f, guint sender)
{
  g_autoptr(GBytes) key = g_bytes_new (&f->key, sizeof f->key);
  const guint64 *prev = g_hash_table_lookup (s->sent, key);

  return f->bytes[sender] - (prev ? prev[sender] : 0) > RWND_ACTIVE_BYTES;
}

/* Sets the targets of s's connections among `flows` (the map as read
 * once for the round). */
static gboolean
apply (WfActuator *a, Sta *s, GArray *flows, GError **error)
{
  Rwnd *r = a->priv;
  g_autoptr(GArray) mine = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GHashTable) sent = NULL;
  g_autofree char *summary = NULL;
  guint unseen = 0, n_report = 0, n_hs = 0, n_default = 0;
  /* [0] down: the peer sends; [1] up: the station sends. */
  double rate[2] = { s->setting.rate_down_bps, s->setting.rate_up_bps };
  double weight_sum[2] = { 0, 0 };
  g_autoptr(GArray) old = g_steal_pointer (&s->tkeys);

  s->tkeys = g_array_new (FALSE, FALSE, sizeof (struct wf_rwnd_tkey));

  /* The station's live connections, and the weight of those that move
   * data in each direction (1 each: equal shares; the hook of the
   * RTT-fair policy). */
  for (guint i = 0; i < flows->len; i++)
    {
      WfRwndFlow *f = &g_array_index (flows, WfRwndFlow, i);
      guint k = addr_is (&s->sta, f, 0) ? 0 : addr_is (&s->sta, f, 1) ? 1 : 2;

      if (k == 2 || f->idle_s > RWND_IDLE_S)
        continue;
      if (!f->handshake_seen)
        {
          unseen++;
          continue;
        }
      g_array_append_val (mine, i);
      weight_sum[0] += moved_data (s, f, k ^ 1) ? 1.0 : 0;
      weight_sum[1] += moved_data (s, f, k) ? 1.0 : 0;
    }

  sent = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                g_free);
  for (guint j = 0; j < mine->len; j++)
    {
      WfRwndFlow *f = &g_array_index (flows, WfRwndFlow, g_array_index (mine, guint, j));
      guint k = addr_is (&s->sta, f, 0) ? 0 : 1;
      guint sender[2] = { k ^ 1, k };
      double rtt;

      g_hash_table_insert (sent, g_bytes_new (&f->key, sizeof f->key),
                           g_memdup2 (f->bytes, sizeof f->bytes));
      if (!s->setting.limited)
        continue;
      if (s->sta.has_rtt && s->sta.rtt_s > 0)
        rtt = s->sta.rtt_s, n_report++;
      else if (f->rtt_s > 0)
        rtt = f->rtt_s, n_hs++;
      else
        rtt = RWND_RTT_DEFAULT_S, n_default++;
      for (int d = 0; d < 2; d++)
        {
          struct wf_rwnd_tkey tk = { .flow = f->key, .sender = sender[d] };

          if (rate[d] <= 0)
            continue;
          /* A flow idle now is held to one share too: it would be
           * counted at the next round. */
          if (!wf_rwnd_set_target (r->rw, &f->key, sender[d],
                                   window_for (flow_share (rate[d], 1.0, MAX (weight_sum[d], 1.0)),
                                               rtt),
                                   error))
            return FALSE;
          g_array_append_val (s->tkeys, tk);
        }
    }
  g_hash_table_unref (s->sent);
  s->sent = g_steal_pointer (&sent);
  /* The old targets go after the new ones are in: no gap in which a
   * flow runs free (and grants an edge the program did not see). */
  for (guint i = 0; i < old->len; i++)
    {
      struct wf_rwnd_tkey *tk = &g_array_index (old, struct wf_rwnd_tkey, i);
      gboolean kept = FALSE;

      for (guint j = 0; j < s->tkeys->len && !kept; j++)
        kept = memcmp (tk, &g_array_index (s->tkeys, struct wf_rwnd_tkey, j), sizeof *tk) == 0;
      if (!kept && !wf_rwnd_set_target (r->rw, &tk->flow, tk->sender, 0, error))
        return FALSE;
    }
  if (!s->setting.limited)
    return TRUE;

  /* Said when it changes, not every round. */
  summary = g_strdup_printf ("%u TCP flow%s held back (%.0f/%.0f moving data down/up; RTT from "
                             "%s%s%s%s%s), %u left alone (handshake not seen)",
                             mine->len, mine->len == 1 ? "" : "s", weight_sum[0], weight_sum[1],
                             n_report ? rtt_source_names[RTT_REPORT] : "",
                             n_report && (n_hs || n_default) ? ", " : "",
                             n_hs ? rtt_source_names[RTT_HANDSHAKE] : "",
                             n_hs && n_default ? ", " : "",
                             n_default ? "default 50 ms" : (mine->len ? "" : "none"), unseen);
  if (!s->logged || !g_str_equal (s->logged, summary))
    {
      g_message ("rwnd on %s: %s: %s", a->ifname, s->sta.mac_str, summary);
      g_free (s->logged);
      s->logged = g_steal_pointer (&summary);
    }
  return TRUE;
}

static gboolean
rwnd_set (WfActuator *a, const WfApdStation *sta, const WfActuatorSetting *setting,
          GError **error)
{
  Rwnd *r = a->priv;
  Sta *s = g_hash_table_lookup (r->stations, sta->mac_str);
  g_autoptr(GArray) flows = NULL;

  if (!(setting->rate_down_bps >= 0) || !(setting->rate_up_bps >= 0))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "rwnd on %s: %s: rates must be >= 0",
                   a->ifname, sta->mac_str);
      return FALSE;
    }
  if (!s)
    {
      s = g_new0 (Sta, 1);
      s->tkeys = g_array_new (FALSE, FALSE, sizeof (struct wf_rwnd_tkey));
      s->sent = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                       (GDestroyNotify) g_bytes_unref, g_free);
      g_hash_table_insert (r->stations, g_strdup (sta->mac_str), s);
    }
  s->sta = *sta;
  s->setting = *setting;
  /* The same floor as the other rate actuators (the program adds its own,
   * 4 segments per flow). */
  if (s->setting.limited && s->setting.rate_down_bps > 0)
    s->setting.rate_down_bps = MAX (s->setting.rate_down_bps, WF_ACTUATOR_RATE_FLOOR_BPS);
  if (s->setting.limited && s->setting.rate_up_bps > 0)
    s->setting.rate_up_bps = MAX (s->setting.rate_up_bps, WF_ACTUATOR_RATE_FLOOR_BPS);
  if (!(flows = wf_rwnd_flows (r->rw, error)))
    return FALSE;
  return apply (a, s, flows, error);
}

static gboolean
rwnd_forget (WfActuator *a, const guint8 mac[6], GError **error)
{
  Rwnd *r = a->priv;
  char m[18];
  Sta *s = g_hash_table_lookup (r->stations, wf_actuator_mac_str (mac, m));

  if (!s)
    return TRUE;
  if (!clear_targets (r, s, error))
    return FALSE;
  g_hash_table_remove (r->stations, m);
  return TRUE;
}

static gboolean
rwnd_restore (const char *ifname, WfApdState *state, GError **error)
{
  g_autofree char *group = wf_actuator_group ("rwnd", ifname);
  g_autofree char *filters = wf_apd_state_get (state, group, "filters");
  g_autofree char *clsact = wf_apd_state_get (state, group, "clsact");

  if (!filters)
    return TRUE;
  return wf_rwnd_detach_ifname (ifname, clsact && g_str_equal (clsact, "created"), error);
}

static void
rwnd_finalize (WfActuator *a)
{
  Rwnd *r = a->priv;

  /* The filters stay attached (and recorded) for stop or --restore. */
  g_clear_pointer (&r->rw, wf_rwnd_free);
  g_clear_pointer (&r->stations, g_hash_table_unref);
}

static gboolean
rwnd_stop (WfActuator *a, GError **error)
{
  Rwnd *r = a->priv;
  g_autoptr(GError) local = NULL;

  if (r->rw && !wf_rwnd_detach (r->rw, &local))
    g_info ("%s (restore next)", local->message);
  rwnd_finalize (a);
  /* The same path as after a crash. */
  return rwnd_restore (a->ifname, a->state, error);
}

/* Every round: each station's setting applied again to the connections
 * there are now (new flows get their share, closed ones give theirs
 * back). */
static gboolean
rwnd_refresh (WfActuator *a, GError **error)
{
  Rwnd *r = a->priv;
  g_autoptr(GArray) flows = NULL;
  GHashTableIter it;
  gpointer v;

  if (g_hash_table_size (r->stations) == 0)
    return TRUE;
  if (!(flows = wf_rwnd_flows (r->rw, error)))
    return FALSE;
  g_hash_table_iter_init (&it, r->stations);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (!apply (a, v, flows, error))
      return FALSE;
  return TRUE;
}

const WfActuatorOps wf_actuator_rwnd = {
  .name = "rwnd",
  .summary = "TCP receive window per flow (BPF at tc): rate x RTT, no queue, TCP only",
  .knob = WF_ACTUATOR_KNOB_RATE,
  .directions = WF_APD_DIR_BOTH,
  .priv_size = sizeof (Rwnd),
  .probe = rwnd_probe,
  .start = rwnd_start,
  .set = rwnd_set,
  .forget = rwnd_forget,
  .stop = rwnd_stop,
  .restore = rwnd_restore,
  .refresh = rwnd_refresh,
  .finalize = rwnd_finalize,
};
