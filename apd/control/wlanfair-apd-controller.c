/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controller registry and what both controllers share. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "wlanfair-apd-controller.h"
#include "wlanfair-error.h"
#include "wlanfair-fairness.h"

#define ACK_SHARE 0.10

extern const WfApdControllerOps wf_apd_controller_share;
extern const WfApdControllerOps wf_apd_controller_pi;

static const WfApdControllerOps *const controllers[] = {
  &wf_apd_controller_share,
  &wf_apd_controller_pi,
  NULL,
};

void
wf_apd_control_params_init (WfApdControlParams *p)
{
  *p = (WfApdControlParams) {
    .objective = WF_APD_OBJECTIVE_THROUGHPUT,
    .directions = WF_APD_DIR_BOTH,
    .knob = WF_ACTUATOR_KNOB_RATE,
    .target_jain = 0.97,
    .period_s = 1.0,
    .idle_bps = 100e3,
    .floor_bps = 1e6,
    .floor_auto = TRUE,
    .max_delay_us = 200000,
    .pi_kp = 3.0,
    .pi_ki = 0.8,
    .pi_period_s = 20.0,
  };
}

const WfApdControllerOps *const *
wf_apd_controller_list (void)
{
  return controllers;
}

WfApdController *
wf_apd_controller_new (const char *name, const WfApdControlParams *params,
                       GError **error)
{
  const WfApdControllerOps *ops = NULL;
  const char *why = NULL;

  for (guint i = 0; controllers[i]; i++)
    if (g_strcmp0 (controllers[i]->name, name) == 0)
      ops = controllers[i];
  if (!ops)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "unknown controller '%s' (share, pi)", name ? name : "");
      return NULL;
    }
  if (!ops->supports (params->knob, &why))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "controller %s: %s", ops->name, why);
      return NULL;
    }

  WfApdController *c = g_new0 (WfApdController, 1);
  c->ops = ops;
  c->params = *params;
  c->priv = ops->priv_size ? g_malloc0 (ops->priv_size) : NULL;
  c->sta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (ops->reset)
    ops->reset (c);
  return c;
}

void
wf_apd_controller_free (WfApdController *c)
{
  if (!c)
    return;
  if (c->ops->finalize)
    c->ops->finalize (c);
  g_hash_table_unref (c->sta);
  g_free (c->priv);
  g_free (c);
}

void
wf_apd_controller_step (WfApdController *c, const WfApdStation *stations,
                        guint n, gint64 now_us, WfApdDecision *out,
                        WfApdRound *round)
{
  memset (out, 0, n * sizeof *out);
  *round = (WfApdRound) { .jain = 1.0 };
  c->ops->step (c, stations, n, now_us, out, round);
}

void
wf_apd_controller_forget (WfApdController *c, const guint8 mac[6])
{
  char key[WF_MAC_STR_LEN];

  wf_mac_format (mac, key);
  g_hash_table_remove (c->sta, key);
}

void
wf_apd_controller_reset (WfApdController *c)
{
  g_hash_table_remove_all (c->sta);
  if (c->ops->reset)
    c->ops->reset (c);
}

gpointer
wf_apd_controller_sta (WfApdController *c, const WfApdStation *s)
{
  gpointer st = g_hash_table_lookup (c->sta, s->mac_str);

  if (!st)
    {
      st = g_malloc0 (c->ops->sta_size);
      g_hash_table_insert (c->sta, g_strdup (s->mac_str), st);
    }
  return st;
}

double
wf_apd_station_cost (const WfApdStation *s, WfApdDir dirs)
{
  double x_down = (dirs & WF_APD_DIR_DOWN) ? s->down_bps : 0;
  double x_up = (dirs & WF_APD_DIR_UP) ? s->up_bps : 0;
  double c_down = s->cost_down_s_per_bit, c_up = s->cost_up_s_per_bit;

  /* A direction without its own cost borrows the other's: the same
   * distance, a similar rate. */
  if (c_down <= 0)
    c_down = c_up;
  if (c_up <= 0)
    c_up = c_down;
  if (c_down <= 0)
    return 0;
  if (x_down + x_up <= 0)
    return (dirs & WF_APD_DIR_DOWN) ? c_down : c_up;
  return (x_down * c_down + x_up * c_up) / (x_down + x_up);
}

double
wf_apd_station_shape (const WfApdStation *s, WfApdObjective objective,
                      double cost)
{
  double w = s->weight > 0 ? s->weight : 1.0;

  if (objective == WF_APD_OBJECTIVE_AIRTIME && cost > 0)
    return w / cost;
  return w;
}

double
wf_apd_jain (const double *x, const double *shape, const gboolean *in, guint n)
{
  g_autofree double *v = g_new (double, n + 1);
  g_autofree double *w = g_new (double, n + 1);
  double out;
  guint k = 0;

  for (guint i = 0; i < n; i++)
    if (in[i] && shape[i] > 0)
      {
        v[k] = x[i];
        w[k++] = shape[i];
      }
  /* Jain's index is src/metrics' alone; here only who counts. */
  if (k <= 1)
    return 1.0;
  if (!wf_fairness_jain_weighted (v, w, k, &out, NULL))
    return NAN;
  return out;
}

void
wf_apd_split_cap (const WfApdStation *s, WfApdDir dirs, double cap_bps,
                  double floor_bps, WfActuatorSetting *out)
{
  double x_down = (dirs & WF_APD_DIR_DOWN) ? s->down_bps : 0;
  double x_up = (dirs & WF_APD_DIR_UP) ? s->up_bps : 0;
  double total = x_down + x_up;

  out->rate_down_bps = out->rate_up_bps = 0;
  if (cap_bps <= 0)
    return;
  if (total <= 0)
    {
      /* Nothing to go by: the cap holds each direction alone. */
      if (dirs & WF_APD_DIR_DOWN)
        out->rate_down_bps = MAX (cap_bps, floor_bps);
      if (dirs & WF_APD_DIR_UP)
        out->rate_up_bps = MAX (cap_bps, floor_bps);
      return;
    }
  /* A direction carrying under 10 % of the station's traffic is its
   * ACKs (66 to 78 bytes on the wire for every one or two 1514-byte
   * segments: 2 to 5 %) or noise: capping it, at the floor at that,
   * would only throttle the other one through its ACKs. */
  if (x_down > ACK_SHARE * total)
    out->rate_down_bps = MAX (cap_bps * x_down / total, floor_bps);
  if (x_up > ACK_SHARE * total)
    out->rate_up_bps = MAX (cap_bps * x_up / total, floor_bps);
}

double
wf_apd_tradeoff (const double *x, const gboolean *in, guint n, double capacity_bps)
{
  g_autofree double *v = g_new0 (double, n + 1);
  guint k = 0;
  double out = 0;

  for (guint i = 0; i < n; i++)
    if (in[i])
      v[k++] = x[i];
  if (k == 0 || capacity_bps <= 0 ||
      !wf_fairness_tradeoff (v, k, capacity_bps, 1.0, WF_FAIRNESS_ALLOW_OVER, &out, NULL))
    return 0;
  return out;
}
