/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A rate cap per TCP flow by the receive window (SAP-LAW): the BPF
 * program of wlanfair-rwnd.bpf.c on the AP interface's ingress and egress
 * lowers the window advertised to each TCP sender to rate x RTT.
 * Downloads: the station's ACKs (ingress) to the server; uploads: the
 * server's ACKs (egress) to the station. Nothing is queued or dropped;
 * only TCP connections whose handshake the program saw are held back
 * (UDP, QUIC and tunnels are not). The rate per flow comes from
 * rwnd-policy= (wlanfair-rwnd-policy.h): the controller's per-station
 * setting split among the station's flows (station), or the capacity
 * less the non-TCP load shared among every flow (equal, rtt-fair). */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"
#include "wlanfair-rwnd.h"
#include "wlanfair-rwnd-policy.h"

#define RWND_RTT_DEFAULT_S  WF_RWND_RTT_DEFAULT_S
#define RWND_IDLE_S         30.0    /* a flow idle this long is not counted */
#define RWND_ACTIVE_BYTES   16384   /* sent since the last apply: it moves data */
#define RWND_STATUS_FLOWS   32      /* connections listed in the status: bounded */

typedef enum {
  RTT_REPORT,       /* the host's report (tcp_info of its flows) */
  RTT_TIMESTAMPS,   /* measured by the program: TCP timestamps echoed */
  RTT_HANDSHAKE,    /* measured by the program: SYN -> third segment */
  RTT_DEFAULT,
  RTT_N
} RttSource;

static const char *const rtt_source_names[] = { "report", "timestamps", "handshake",
                                                "default 50 ms" };

typedef struct {
  WfApdStation      sta;       /* addresses, report RTT */
  WfActuatorSetting setting;
  GArray           *tkeys;     /* struct wf_rwnd_tkey set for it */
  GHashTable       *sent;      /* GBytes (struct wf_rwnd_key) -> guint64[2] bytes */
  char             *logged;    /* last summary logged */
} Sta;

typedef struct {
  WfRwnd     *rw;
  /* Loaded (verified) by the probe, attached by the first start: the
   * verifier's pass is the costly step (17-25 s under emulation, in the
   * daemon's loop at the first trusted report, past its 20 s watchdog),
   * so it is done once, before READY. A later start loads afresh. */
  WfRwnd     *probed;
  GHashTable *stations;        /* mac_str -> Sta */
  /* equal and rtt-fair: every flow of the interface at once. */
  GHashTable *sent;            /* GBytes (struct wf_rwnd_key) -> guint64[2] bytes */
  GHashTable *held;            /* GBytes (struct wf_rwnd_tkey) -> window: targets set */
  GHashTable *held_prev;       /* the same a round earlier */
  gint64      round_us;        /* when the last round set them */
  gint64      other_us;        /* when other_bytes was read */
  guint64     other_bytes;
  double      other_bps;       /* the non-TCP load of the last round */
  guint       n_held, n_active, n_unseen;
  double      rate_bps;        /* rtt-fair: each flow's; equal: the shortest RTT's */
  char       *logged;
  GArray     *last;            /* WfRwndFlow: the map at the last refresh (status) */
  GHashTable *set_now;         /* GBytes (struct wf_rwnd_tkey) -> window: set this round */
} Rwnd;

/* A target set this round: the status shows it at once (the flows it
 * lists were read before the round set their targets). */
static void
note_target (Rwnd *r, const struct wf_rwnd_tkey *tk, guint32 window)
{
  if (r->set_now)
    g_hash_table_insert (r->set_now, g_bytes_new (tk, sizeof *tk), GUINT_TO_POINTER (window));
}

static gboolean
global_policy (WfActuator *a)
{
  return a->options.rwnd_policy != WF_RWND_POLICY_STATION;
}

static void
sta_free (gpointer p)
{
  Sta *s = p;

  g_array_unref (s->tkeys);
  g_hash_table_unref (s->sent);
  g_free (s->logged);
  g_free (s);
}

static GHashTable *
sent_table_new (void)
{
  return g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                g_free);
}

static gboolean
rwnd_probe (WfActuator *a, GError **error)
{
  Rwnd *r = a->priv;

  if (!a->ifindex)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rwnd: no interface %s", a->ifname);
      return FALSE;
    }
  g_clear_pointer (&r->probed, wf_rwnd_free);
  r->probed = wf_rwnd_new (0, error);
  return r->probed != NULL;
}

static gboolean
rwnd_start (WfActuator *a, GError **error)
{
  Rwnd *r = a->priv;
  gboolean created = FALSE;

  r->rw = g_steal_pointer (&r->probed);
  if (!r->rw && !(r->rw = wf_rwnd_new (0, error)))
    return FALSE;
  r->stations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, sta_free);
  r->sent = sent_table_new ();
  r->held = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                   NULL);
  r->held_prev = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                        (GDestroyNotify) g_bytes_unref, NULL);
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

/* Bytes that endpoint `sender` of f sent since the last round, by the
 * table of that round (a reused 4-tuple starts again from 0). */
static guint64
sent_since (GHashTable *prev_table, const WfRwndFlow *f, guint sender)
{
  g_autoptr(GBytes) key = g_bytes_new (&f->key, sizeof f->key);
  const guint64 *prev = g_hash_table_lookup (prev_table, key);
  guint64 p = prev ? prev[sender] : 0;

  return f->bytes[sender] >= p ? f->bytes[sender] - p : f->bytes[sender];
}

/* Whether endpoint `sender` of f sent data since the last apply. */
static gboolean
moved_data (GHashTable *prev_table, const WfRwndFlow *f, guint sender)
{
  return sent_since (prev_table, f, sender) > RWND_ACTIVE_BYTES;
}

/* Sets the targets of s's connections among `flows` (the map as read
 * once for the round): the station's rate per direction split among
 * its flows that move data that way (rwnd-policy=station). */
static gboolean
apply (WfActuator *a, Sta *s, GArray *flows, GError **error)
{
  Rwnd *r = a->priv;
  g_autoptr(GArray) mine = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) pf = g_array_new (FALSE, TRUE, sizeof (WfRwndPolicyFlow));
  g_autoptr(GArray) pk = g_array_new (FALSE, FALSE, sizeof (struct wf_rwnd_tkey));
  g_autoptr(GHashTable) sent = NULL;
  g_autofree char *summary = NULL;
  WfRwndPolicyParams params = { .policy = WF_RWND_POLICY_STATION };
  guint unseen = 0, n_src[RTT_N] = { 0 };
  g_autoptr(GString) sources = g_string_new (NULL);
  /* [0] down: the peer sends; [1] up: the station sends. */
  double rate[2] = { s->setting.rate_down_bps, s->setting.rate_up_bps };
  double moving[2] = { 0, 0 };
  g_autoptr(GArray) old = g_steal_pointer (&s->tkeys);

  s->tkeys = g_array_new (FALSE, FALSE, sizeof (struct wf_rwnd_tkey));

  /* The station's live connections whose handshake was seen. */
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
    }

  sent = sent_table_new ();
  for (guint j = 0; j < mine->len; j++)
    {
      WfRwndFlow *f = &g_array_index (flows, WfRwndFlow, g_array_index (mine, guint, j));
      guint k = addr_is (&s->sta, f, 0) ? 0 : 1;
      guint sender[2] = { k ^ 1, k };
      double rtt;

      if (s->setting.limited)
        {
          if (s->sta.has_rtt && s->sta.rtt_s > 0)
            rtt = s->sta.rtt_s, n_src[RTT_REPORT]++;
          else if (f->ts_rtt_s > 0)
            /* The standing RTT: a station held below what the link
             * carries does not queue behind itself, and the smoothed one
             * (delayed ACKs, the queue before the cap) gave 26 % more. */
            rtt = f->ts_rtt_standing_s, n_src[RTT_TIMESTAMPS]++;
          else if (f->rtt_s > 0)
            rtt = f->rtt_s, n_src[RTT_HANDSHAKE]++;
          else
            rtt = RWND_RTT_DEFAULT_S, n_src[RTT_DEFAULT]++;
          for (int d = 0; d < 2; d++)
            {
              /* station index d: one split per direction. A flow idle now
               * is held to one share too: it would be counted at the
               * next round. */
              WfRwndPolicyFlow e = {
                .rtt_s = rtt, .active = moved_data (s->sent, f, sender[d]),
                .station = (guint) d, .station_bps = rate[d], .mss = f->mss[sender[d] ^ 1],
              };
              struct wf_rwnd_tkey tk = { .flow = f->key, .sender = sender[d] };

              moving[d] += e.active;
              if (rate[d] <= 0)
                continue;
              g_array_append_val (pf, e);
              g_array_append_val (pk, tk);
            }
        }
      g_hash_table_insert (sent, g_bytes_new (&f->key, sizeof f->key),
                           g_memdup2 (f->bytes, sizeof f->bytes));
    }
  wf_rwnd_policy_apply (&params, (WfRwndPolicyFlow *) pf->data, pf->len);
  for (guint i = 0; i < pf->len; i++)
    {
      struct wf_rwnd_tkey *tk = &g_array_index (pk, struct wf_rwnd_tkey, i);

      if (!wf_rwnd_set_target (r->rw, &tk->flow, tk->sender,
                               g_array_index (pf, WfRwndPolicyFlow, i).window, error))
        return FALSE;
      note_target (r, tk, g_array_index (pf, WfRwndPolicyFlow, i).window);
      g_array_append_val (s->tkeys, *tk);
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
  for (guint k = 0; k < RTT_N; k++)
    if (n_src[k])
      g_string_append_printf (sources, "%s%s", sources->len ? ", " : "", rtt_source_names[k]);
  summary = g_strdup_printf ("%u TCP flow%s held back (%.0f/%.0f moving data down/up; RTT from "
                             "%s), %u left alone (handshake not seen)",
                             mine->len, mine->len == 1 ? "" : "s", moving[0], moving[1],
                             sources->len ? sources->str : "none", unseen);
  if (!s->logged || !g_str_equal (s->logged, summary))
    {
      g_message ("rwnd on %s: %s: %s", a->ifname, s->sta.mac_str, summary);
      g_free (s->logged);
      s->logged = g_steal_pointer (&summary);
    }
  return TRUE;
}

/* The non-TCP load since the last round (bit/s, both directions: they
 * share the channel). */
static gboolean
measure_other (Rwnd *r, GError **error)
{
  guint64 b[WF_RWND_OTHER_N], total;
  gint64 now = g_get_monotonic_time ();

  if (!wf_rwnd_other_bytes (r->rw, b, error))
    return FALSE;
  total = b[WF_RWND_OTHER_IN] + b[WF_RWND_OTHER_OUT];
  if (r->other_us && now > r->other_us && total >= r->other_bytes)
    r->other_bps = (double) (total - r->other_bytes) * 8 / ((double) (now - r->other_us) / 1e6);
  r->other_bytes = total;
  r->other_us = now;
  return TRUE;
}

/* A flow's RTT for equal and rtt-fair, in *standing its RTT with a
 * standing queue only and in *base without a queue (0: not known). Its
 * own, measured at the AP, first (a station's report gives one mean for
 * all its flows, which would make rtt-fair equal-window for them): from
 * TCP timestamps, the smoothed one (what its window cycles at), the
 * standing one and the lowest (rtt-fair's sum of standing / base is what
 * shrinks every window while a queue stands); else from the handshake
 * (once, and too large when a queue stood then); else the report of the
 * station it belongs to; else 0 (the default). */
static double
flow_rtt (Rwnd *r, const WfRwndFlow *f, double *standing, double *base)
{
  GHashTableIter it;
  gpointer v;

  *standing = *base = 0;
  if (f->ts_rtt_s > 0)
    {
      *standing = f->ts_rtt_standing_s;
      *base = f->ts_rtt_min_s;
      if (f->rtt_s > 0 && f->rtt_s < *base)
        *base = f->rtt_s;
      return f->ts_rtt_s;
    }
  if (f->rtt_s > 0)
    return f->rtt_s;
  g_hash_table_iter_init (&it, r->stations);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Sta *s = v;

      if ((addr_is (&s->sta, f, 0) || addr_is (&s->sta, f, 1)) && s->sta.has_rtt &&
          s->sta.rtt_s > 0)
        return s->sta.rtt_s;
    }
  return 0;
}

static guint32
held_window (GHashTable *held, const struct wf_rwnd_tkey *tk)
{
  g_autoptr(GBytes) key = g_bytes_new (tk, sizeof *tk);

  return GPOINTER_TO_UINT (g_hash_table_lookup (held, key));
}

/* The RTT of a sender held to a window for the last two rounds, from
 * what it moved: rate <= window / RTT, so window / rate is never below
 * its RTT now; it is the RTT (queue included) when the window is what
 * limits it. A handshake RTT taken while a queue was full is too large,
 * and would give that flow a window too large (seen: 184 ms for a 100 ms
 * path, 9.4 Mbit/s where 6 was its share): this brings it down. 0: no
 * estimate this round. */
static double
rtt_from_rate (Rwnd *r, const WfRwndFlow *f, const struct wf_rwnd_tkey *tk, double dt)
{
  guint32 w1 = held_window (r->held, tk), w2 = held_window (r->held_prev, tk);
  guint64 moved = sent_since (r->sent, f, tk->sender);

  if (!w1 || !w2 || !(dt > 0) || moved <= RWND_ACTIVE_BYTES)
    return 0;
  /* The larger of the two: what was in flight from the earlier one
   * drains in this interval. */
  return MAX (w1, w2) / ((double) moved / dt);
}

/* rwnd-policy=equal or rtt-fair: every flow crossing the interface, one
 * computation for all. A direction gets a target when it sends data (now
 * or before: more than 16 KiB in all), or when its connection has not
 * moved 16 KiB either way yet (who will send is not known); the pure
 * ACK direction of a transfer gets none (no rewrite of every data
 * segment for nothing). */
static gboolean
apply_global (WfActuator *a, GArray *flows, GError **error)
{
  Rwnd *r = a->priv;
  WfRwndPolicyParams params = {
    .policy = a->options.rwnd_policy, .capacity_bps = a->options.rwnd_capacity_bps,
  };
  g_autoptr(GArray) pf = g_array_new (FALSE, TRUE, sizeof (WfRwndPolicyFlow));
  g_autoptr(GArray) pk = g_array_new (FALSE, FALSE, sizeof (struct wf_rwnd_tkey));
  g_autoptr(GHashTable) sent = sent_table_new ();
  g_autoptr(GHashTable) held = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                      (GDestroyNotify) g_bytes_unref, NULL);
  g_autofree char *summary = NULL;
  GHashTableIter it;
  gpointer key;
  guint unseen = 0, active = 0;

  gint64 now = g_get_monotonic_time ();
  double dt = r->round_us && now > r->round_us ? (double) (now - r->round_us) / 1e6 : 0;

  if (!measure_other (r, error))
    return FALSE;
  params.other_bps = r->other_bps;
  for (guint i = 0; i < flows->len; i++)
    {
      WfRwndFlow *f = &g_array_index (flows, WfRwndFlow, i);
      gboolean young = f->bytes[0] <= RWND_ACTIVE_BYTES && f->bytes[1] <= RWND_ACTIVE_BYTES;

      if (f->idle_s > RWND_IDLE_S)
        continue;
      if (!f->handshake_seen)
        {
          unseen++;
          continue;
        }
      for (guint k = 0; k < 2; k++)
        {
          WfRwndPolicyFlow e = {
            .active = moved_data (r->sent, f, k), .mss = f->mss[k ^ 1],
          };
          struct wf_rwnd_tkey tk = { .flow = f->key, .sender = k };
          double est;

          if (!e.active && !young && f->bytes[k] <= RWND_ACTIVE_BYTES)
            continue;
          e.rtt_s = flow_rtt (r, f, &e.standing_rtt_s, &e.base_rtt_s);
          /* Without timestamps: what the flow moved bounds its RTT. */
          est = f->ts_rtt_s > 0 ? 0 : rtt_from_rate (r, f, &tk, dt);
          if (est > 0 && (e.rtt_s <= 0 || est < e.rtt_s))
            e.rtt_s = est;
          active += e.active;
          g_array_append_val (pf, e);
          g_array_append_val (pk, tk);
        }
      g_hash_table_insert (sent, g_bytes_new (&f->key, sizeof f->key),
                           g_memdup2 (f->bytes, sizeof f->bytes));
    }
  wf_rwnd_policy_apply (&params, (WfRwndPolicyFlow *) pf->data, pf->len);
  r->rate_bps = 0;
  for (guint i = 0; i < pf->len; i++)
    {
      struct wf_rwnd_tkey *tk = &g_array_index (pk, struct wf_rwnd_tkey, i);
      const WfRwndPolicyFlow *e = &g_array_index (pf, WfRwndPolicyFlow, i);

      if (!wf_rwnd_set_target (r->rw, &tk->flow, tk->sender, e->window, error))
        return FALSE;
      note_target (r, tk, e->window);
      g_hash_table_insert (held, g_bytes_new (tk, sizeof *tk), GUINT_TO_POINTER (e->window));
      r->rate_bps = MAX (r->rate_bps, e->rate_bps);
    }
  /* The old targets go after the new ones are in (as in apply). */
  g_hash_table_iter_init (&it, r->held);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (held, key))
      {
        const struct wf_rwnd_tkey *tk = g_bytes_get_data (key, NULL);

        if (!wf_rwnd_set_target (r->rw, &tk->flow, tk->sender, 0, error))
          return FALSE;
      }
  g_hash_table_unref (r->held_prev);
  r->held_prev = g_steal_pointer (&r->held);
  r->held = g_steal_pointer (&held);
  r->round_us = now;
  g_hash_table_unref (r->sent);
  r->sent = g_steal_pointer (&sent);
  r->n_held = pf->len;
  r->n_active = active;
  r->n_unseen = unseen;

  /* Said when the flows change, not when the rates move. */
  summary = g_strdup_printf ("%s: %u TCP sender%s held back (C %.1f Mbit/s less the non-TCP "
                             "load), %u connection%s left alone (handshake not seen)",
                             wf_rwnd_policy_name (params.policy), pf->len,
                             pf->len == 1 ? "" : "s", params.capacity_bps / 1e6, unseen,
                             unseen == 1 ? "" : "s");
  if (!r->logged || !g_str_equal (r->logged, summary))
    {
      g_message ("rwnd on %s: %s", a->ifname, summary);
      g_free (r->logged);
      r->logged = g_steal_pointer (&summary);
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
      s->sent = sent_table_new ();
      g_hash_table_insert (r->stations, g_strdup (sta->mac_str), s);
    }
  s->sta = *sta;
  s->setting = *setting;
  /* equal, rtt-fair: the station's addresses and report RTT only; every
   * round's refresh sets every flow's target. */
  if (global_policy (a))
    return TRUE;
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
  char m[WF_MAC_STR_LEN];
  Sta *s = g_hash_table_lookup (r->stations, wf_mac_format (mac, m));

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
  g_clear_pointer (&r->probed, wf_rwnd_free);
  g_clear_pointer (&r->stations, g_hash_table_unref);
  g_clear_pointer (&r->sent, g_hash_table_unref);
  g_clear_pointer (&r->held, g_hash_table_unref);
  g_clear_pointer (&r->held_prev, g_hash_table_unref);
  r->round_us = 0;
  g_clear_pointer (&r->logged, g_free);
  g_clear_pointer (&r->last, g_array_unref);
  /* A later start measures afresh. */
  r->other_us = 0;
  r->other_bps = 0;
  r->n_held = r->n_active = r->n_unseen = 0;
  r->rate_bps = 0;
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
  gboolean ok = TRUE;

  if (!(flows = wf_rwnd_flows (r->rw, error)))
    return FALSE;
  g_clear_pointer (&r->last, g_array_unref);
  r->last = g_array_ref (flows);
  if (g_hash_table_size (r->stations) == 0 && !global_policy (a))
    return TRUE;
  r->set_now = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                      (GDestroyNotify) g_bytes_unref, NULL);
  if (global_policy (a))
    ok = apply_global (a, flows, error);
  else
    {
      g_hash_table_iter_init (&it, r->stations);
      while (ok && g_hash_table_iter_next (&it, NULL, &v))
        ok = apply (a, v, flows, error);
    }
  /* The targets as this round left them, for the status. */
  for (guint i = 0; ok && i < flows->len; i++)
    {
      WfRwndFlow *f = &g_array_index (flows, WfRwndFlow, i);

      for (guint k = 0; k < 2; k++)
        {
          struct wf_rwnd_tkey tk = { .flow = f->key, .sender = k };
          g_autoptr(GBytes) key = g_bytes_new (&tk, sizeof tk);

          f->target[k] = GPOINTER_TO_UINT (g_hash_table_lookup (r->set_now, key));
        }
    }
  g_clear_pointer (&r->set_now, g_hash_table_unref);
  return ok;
}

static void
status_flow (JsonBuilder *b, const WfRwndFlow *f)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "endpoints");
  json_builder_begin_array (b);
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *e = wf_rwnd_endpoint_str (f, k);

      json_builder_add_string_value (b, e);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "handshake_seen");
  json_builder_add_boolean_value (b, f->handshake_seen);
  if (f->rtt_s > 0)
    {
      json_builder_set_member_name (b, "rtt_handshake_s");
      json_builder_add_double_value (b, f->rtt_s);
    }
  if (f->ts_rtt_s > 0)
    {
      json_builder_set_member_name (b, "rtt_timestamps_s");
      json_builder_add_double_value (b, f->ts_rtt_s);
      json_builder_set_member_name (b, "rtt_timestamps_standing_s");
      json_builder_add_double_value (b, f->ts_rtt_standing_s);
      json_builder_set_member_name (b, "rtt_timestamps_min_s");
      json_builder_add_double_value (b, f->ts_rtt_min_s);
    }
  json_builder_set_member_name (b, "idle_s");
  json_builder_add_double_value (b, f->idle_s);
  /* Per endpoint as a data sender (index as in endpoints). */
  json_builder_set_member_name (b, "senders");
  json_builder_begin_array (b);
  for (guint k = 0; k < 2; k++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) f->bytes[k]);
      json_builder_set_member_name (b, "target_bytes");
      json_builder_add_int_value (b, f->target[k]);
      json_builder_set_member_name (b, "clamp_bytes");
      json_builder_add_int_value (b, f->clamp[k]);
      json_builder_set_member_name (b, "rewritten");
      json_builder_add_int_value (b, (gint64) f->rewritten[k]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The connections as of the last refresh: counts, and at most
 * RWND_STATUS_FLOWS of them (held back first, then those left alone). */
static JsonNode *
rwnd_status (WfActuator *a)
{
  Rwnd *r = a->priv;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint live = 0, held = 0, unseen = 0, listed = 0;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "rwnd_policy");
  json_builder_add_string_value (b, wf_rwnd_policy_name (a->options.rwnd_policy));
  if (global_policy (a))
    {
      json_builder_set_member_name (b, "capacity_bps");
      json_builder_add_double_value (b, a->options.rwnd_capacity_bps);
      json_builder_set_member_name (b, "other_bps");
      json_builder_add_double_value (b, r->other_bps);
      /* rtt-fair: every flow's rate; equal: the shortest RTT's. */
      json_builder_set_member_name (b, "rate_bps");
      json_builder_add_double_value (b, r->rate_bps);
      json_builder_set_member_name (b, "senders_held");
      json_builder_add_int_value (b, r->n_held);
      json_builder_set_member_name (b, "senders_moving");
      json_builder_add_int_value (b, r->n_active);
    }
  for (guint i = 0; r->last && i < r->last->len; i++)
    {
      const WfRwndFlow *f = &g_array_index (r->last, WfRwndFlow, i);

      if (f->idle_s > RWND_IDLE_S)
        continue;
      live++;
      if (!f->handshake_seen)
        unseen++;
      else if (f->target[0] || f->target[1])
        held++;
    }
  json_builder_set_member_name (b, "flows");
  json_builder_add_int_value (b, live);
  json_builder_set_member_name (b, "flows_held");
  json_builder_add_int_value (b, held);
  json_builder_set_member_name (b, "flows_untouched");
  json_builder_add_int_value (b, unseen);
  json_builder_set_member_name (b, "flows_listed");
  json_builder_begin_array (b);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; r->last && i < r->last->len && listed < RWND_STATUS_FLOWS; i++)
      {
        const WfRwndFlow *f = &g_array_index (r->last, WfRwndFlow, i);
        gboolean is_held = f->handshake_seen && (f->target[0] || f->target[1]);

        if (f->idle_s > RWND_IDLE_S || (pass == 0) != is_held)
          continue;
        status_flow (b, f);
        listed++;
      }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
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
  .status = rwnd_status,
  .finalize = rwnd_finalize,
};
