/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "apd-plant.h"
#include "wlanfair-fairness.h"

#define LAG 0.6          /* share of the gap a TCP closes per round */
#define NOISE 0.02       /* +- relative, uniform */
#define SHAPED 0.96      /* goodput under a rate cap (headers) */
#define BASE_RTT_S 0.02

typedef struct {
  double   phy, demand, pull, x;
  WfApdDir dir;
  double   cap;          /* 0: none */
  guint32  delay_us;
  guint16  weight;
  int      signal;
  double   limit, limit_noise;  /* limited elsewhere (0: not) */
  double   shaped;       /* share of a rate cap it carries */
  double   seen_phy;     /* the rate the AP sees, 0: phy */
} Sta;

struct _WfApdPlant {
  WfApdPlantMode mode;
  GRand         *rand;
  GArray        *sta;      /* Sta */
  GArray        *view;     /* WfApdStation */
  guint          next_id;
  GArray        *ids;      /* guint */
  gboolean       reporting;
  gboolean       costs_hidden;
  gboolean       demand_probe;
};

WfApdPlant *
wf_apd_plant_new (WfApdPlantMode mode, guint32 seed)
{
  WfApdPlant *p = g_new0 (WfApdPlant, 1);

  p->mode = mode;
  p->rand = g_rand_new_with_seed (seed);
  p->sta = g_array_new (FALSE, TRUE, sizeof (Sta));
  p->view = g_array_new (FALSE, TRUE, sizeof (WfApdStation));
  p->ids = g_array_new (FALSE, TRUE, sizeof (guint));
  p->reporting = TRUE;
  p->next_id = 1;
  return p;
}

void
wf_apd_plant_free (WfApdPlant *p)
{
  if (!p)
    return;
  g_rand_free (p->rand);
  g_array_unref (p->sta);
  g_array_unref (p->view);
  g_array_unref (p->ids);
  g_free (p);
}

void
wf_apd_plant_add_pull (WfApdPlant *p, double phy, WfApdDir dir, double demand,
                       double pull)
{
  Sta s = { .phy = phy, .demand = demand, .pull = pull, .dir = dir,
            .weight = 256, .signal = -50, .shaped = SHAPED };
  guint id = p->next_id++;

  g_array_append_val (p->sta, s);
  g_array_append_val (p->ids, id);
}

void
wf_apd_plant_add (WfApdPlant *p, double phy, WfApdDir dir, double demand)
{
  wf_apd_plant_add_pull (p, phy, dir, demand, 1.0);
}

static void
mac_of (guint id, guint8 mac[6])
{
  mac[0] = 0x02; mac[1] = 0; mac[2] = 0; mac[3] = 0;
  mac[4] = (id >> 8) & 0xff; mac[5] = id & 0xff;
}

void
wf_apd_plant_remove (WfApdPlant *p, guint i, guint8 mac_out[6])
{
  mac_of (g_array_index (p->ids, guint, i), mac_out);
  g_array_remove_index (p->sta, i);
  g_array_remove_index (p->ids, i);
}

void
wf_apd_plant_set_phy (WfApdPlant *p, guint i, double phy)
{
  g_array_index (p->sta, Sta, i).phy = phy;
}

void
wf_apd_plant_set_seen_phy (WfApdPlant *p, guint i, double phy)
{
  g_array_index (p->sta, Sta, i).seen_phy = phy;
}

void
wf_apd_plant_set_signal (WfApdPlant *p, guint i, int dbm)
{
  g_array_index (p->sta, Sta, i).signal = dbm;
}

void
wf_apd_plant_set_limit (WfApdPlant *p, guint i, double limit_bps, double noise)
{
  Sta *s = &g_array_index (p->sta, Sta, i);

  s->limit = isfinite (limit_bps) ? limit_bps : 0;
  s->limit_noise = noise;
}

void
wf_apd_plant_set_shaped (WfApdPlant *p, guint i, double share)
{
  g_array_index (p->sta, Sta, i).shaped = share;
}

void
wf_apd_plant_set_costs_known (WfApdPlant *p, gboolean known)
{
  p->costs_hidden = !known;
}

void
wf_apd_plant_set_demand_probe (WfApdPlant *p, gboolean on)
{
  p->demand_probe = on;
}

void
wf_apd_plant_set_reporting (WfApdPlant *p, gboolean reporting)
{
  p->reporting = reporting;
}

guint
wf_apd_plant_n (WfApdPlant *p)
{
  return p->sta->len;
}

/* Each station's airtime this round: weighted water-filling of the whole
 * airtime by pull, no station above what it can use. */
static void
airtime (WfApdPlant *p, double *air)
{
  guint n = p->sta->len;
  g_autofree double *need = g_new0 (double, n + 1);
  g_autofree double *pull = g_new0 (double, n + 1);
  g_autofree gboolean *done = g_new0 (gboolean, n + 1);
  double left = 1.0;

  for (guint i = 0; i < n; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      double want = s->demand;

      if (s->cap > 0)
        want = MIN (want, s->shaped * s->cap);
      /* Its loss-limited window: the rate falls as the RTT grows. */
      if (s->limit > 0)
        want = MIN (want, s->limit * BASE_RTT_S / (BASE_RTT_S + s->delay_us / 1e6));
      need[i] = want / s->phy;
      pull[i] = p->mode == WF_APD_PLANT_PULL ? s->pull : 1.0;
      /* A longer RTT takes a smaller TCP share of a shared bottleneck. */
      pull[i] *= BASE_RTT_S / (BASE_RTT_S + s->delay_us / 1e6);
      if (s->dir & WF_APD_DIR_DOWN)
        pull[i] *= s->weight / 256.0;
      air[i] = 0;
    }
  for (guint round = 0; round < n + 1 && left > 1e-12; round++)
    {
      double sum = 0;
      for (guint i = 0; i < n; i++)
        if (!done[i])
          sum += pull[i];
      if (sum <= 0)
        break;
      gboolean capped = FALSE;
      for (guint i = 0; i < n; i++)
        if (!done[i] && air[i] + left * pull[i] / sum >= need[i])
          {
            left -= need[i] - air[i];
            air[i] = need[i];
            done[i] = TRUE;
            capped = TRUE;
          }
      if (!capped)
        {
          for (guint i = 0; i < n; i++)
            if (!done[i])
              air[i] += left * pull[i] / sum;
          left = 0;
        }
    }
}

static void
advance (WfApdPlant *p)
{
  guint n = p->sta->len;
  g_autofree double *air = g_new0 (double, n + 1);

  airtime (p, air);
  for (guint i = 0; i < n; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      double target = air[i] * s->phy;
      double amp = s->limit > 0 ? s->limit_noise : NOISE;
      double noise = 1 + amp * (2 * g_rand_double (p->rand) - 1);

      s->x = MAX (0, (s->x + LAG * (target - s->x)) * noise);
    }
  /* TCP lags, the air does not: what the stations carried in a round
   * never takes more than all the airtime. */
  double used = 0;
  for (guint i = 0; i < n; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      used += s->x / s->phy;
    }
  if (used > 1.0)
    for (guint i = 0; i < n; i++)
      g_array_index (p->sta, Sta, i).x /= used;
}

void
wf_apd_plant_settle (WfApdPlant *p)
{
  for (int i = 0; i < 40; i++)
    advance (p);
}

const WfApdStation *
wf_apd_plant_measure (WfApdPlant *p)
{
  g_array_set_size (p->view, p->sta->len);
  for (guint i = 0; i < p->sta->len; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      WfApdStation *v = &g_array_index (p->view, WfApdStation, i);

      memset (v, 0, sizeof *v);
      mac_of (g_array_index (p->ids, guint, i), v->mac);
      wf_mac_format (v->mac, v->mac_str);
      v->has_signal = TRUE;
      v->signal_dbm = s->signal;
      v->cost_down_s_per_bit = v->cost_up_s_per_bit =
        p->costs_hidden ? 0 : 1.0 / (s->seen_phy > 0 ? s->seen_phy : s->phy);
      v->weight = 1;
      /* ACKs of the other direction: a few percent. */
      double acks = 0.03 * s->x;
      v->down_bps = (s->dir & WF_APD_DIR_DOWN) ? s->x : acks;
      v->up_bps = (s->dir & WF_APD_DIR_UP) ? s->x : acks;
      v->ap_down_bps = v->down_bps;
      v->ap_up_bps = v->up_bps;
      v->reporting = v->trusted = p->reporting;
      /* As wf_apd_stations_snapshot reads a report: app_limited speaks of
       * the host's sending only, so a receiving host never says it. */
      v->app_limited = p->reporting && s->dir == WF_APD_DIR_UP &&
                       isfinite (s->demand) && s->x < s->demand * 1.1 &&
                       (s->cap <= 0 || s->demand < s->shaped * s->cap * 0.9);
      v->wants_more = p->reporting && s->dir == WF_APD_DIR_UP && !v->app_limited;
      /* download-demand=: a download below what it wants leaves frames
       * at the AP (a backlogged one always: TCP keeps a queue there). */
      v->waits_at_ap = p->demand_probe && (s->dir & WF_APD_DIR_DOWN) && s->x < 0.95 * s->demand;
      v->has_rtt = TRUE;
      v->rtt_s = BASE_RTT_S + s->delay_us / 1e6;
    }
  return (const WfApdStation *) p->view->data;
}

void
wf_apd_plant_apply (WfApdPlant *p, const WfApdDecision *dec)
{
  for (guint i = 0; i < p->sta->len; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      const WfActuatorSetting *set = &dec[i].setting;

      s->cap = 0;
      s->delay_us = 0;
      s->weight = 256;
      if (!set->limited)
        continue;
      double cap = (s->dir & WF_APD_DIR_DOWN) ? set->rate_down_bps : set->rate_up_bps;
      s->cap = cap;
      s->delay_us = set->delay_us;
      if (set->weight)
        s->weight = set->weight;
    }
  advance (p);
}

double
wf_apd_plant_jain (WfApdPlant *p)
{
  g_autofree double *x = g_new (double, p->sta->len + 1);
  double out = 1.0;
  guint k = 0;

  for (guint i = 0; i < p->sta->len; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      if (!isfinite (s->demand) && s->limit <= 0)
        x[k++] = s->x;
    }
  /* The one Jain of the tree (src/metrics); 1 for fewer than two. */
  if (k > 1)
    g_assert_true (wf_fairness_jain (x, k, &out, NULL));
  return out;
}

double
wf_apd_plant_total (WfApdPlant *p)
{
  double t = 0;

  for (guint i = 0; i < p->sta->len; i++)
    t += g_array_index (p->sta, Sta, i).x;
  return t;
}

double
wf_apd_plant_rate (WfApdPlant *p, guint i)
{
  return g_array_index (p->sta, Sta, i).x;
}

gboolean
wf_apd_plant_capped (WfApdPlant *p, guint i)
{
  Sta *s = &g_array_index (p->sta, Sta, i);
  return s->cap > 0 || s->delay_us > 0 || s->weight != 256;
}

double
wf_apd_plant_fair_bound (WfApdPlant *p)
{
  double air = 1.0, cost = 0, fixed = 0;
  guint k = 0;

  for (guint i = 0; i < p->sta->len; i++)
    {
      Sta *s = &g_array_index (p->sta, Sta, i);
      double want = s->limit > 0 ? MIN (s->demand, s->limit) : s->demand;
      if (isfinite (want))
        {
          air -= want / s->phy;
          fixed += want;
        }
      else
        {
          cost += 1.0 / s->phy;
          k++;
        }
    }
  return fixed + (k ? k * MAX (air, 0) / cost : 0);
}
