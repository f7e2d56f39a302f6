/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rwnd policies' arithmetic (see wlanfair-rwnd-policy.h). */
#include "config.h"

#include "wlanfair-rwnd-policy.h"

#include <math.h>

static const char *const names[] = { "station", "equal", "rtt-fair" };

const char *
wf_rwnd_policy_name (WfRwndPolicy policy)
{
  return (guint) policy < G_N_ELEMENTS (names) ? names[policy] : "?";
}

gboolean
wf_rwnd_policy_parse (const char *text, WfRwndPolicy *out)
{
  for (guint i = 0; text && i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (text, names[i]))
      {
        *out = (WfRwndPolicy) i;
        return TRUE;
      }
  return FALSE;
}

static double
rtt_of (const WfRwndPolicyFlow *f)
{
  return f->rtt_s > 0 ? f->rtt_s : WF_RWND_RTT_DEFAULT_S;
}

/* The RTT with a standing queue only: never above the current one. */
static double
standing_rtt_of (const WfRwndPolicyFlow *f)
{
  double rtt = rtt_of (f);

  return f->standing_rtt_s > 0 && f->standing_rtt_s < rtt ? f->standing_rtt_s : rtt;
}

/* The RTT without the queue: never above the standing one. */
static double
base_rtt_of (const WfRwndPolicyFlow *f)
{
  double rtt = standing_rtt_of (f);

  return f->base_rtt_s > 0 && f->base_rtt_s < rtt ? f->base_rtt_s : rtt;
}

guint32
wf_rwnd_policy_window (double rate_bps, double rtt_s, guint mss)
{
  double floor_b = (double) WF_RWND_FLOOR_SEGS * (mss ? mss : WF_RWND_MSS_DEFAULT);
  double w = rate_bps > 0 && rtt_s > 0 ? rate_bps / 8 * rtt_s : 0;

  if (!(w > floor_b))  /* NaN too */
    w = floor_b;
  return w >= (double) WF_RWND_WINDOW_MAX ? WF_RWND_WINDOW_MAX : (guint32) lround (w);
}

/* station: each station's rate among its own flows that move data (an
 * idle one gets a share too: it is counted at the next round). */
static void
apply_station (WfRwndPolicyFlow *flows, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      WfRwndPolicyFlow *f = &flows[i];
      guint active = 0;

      if (!(f->station_bps > 0))
        {
          f->rate_bps = 0;
          f->window = 0;
          continue;
        }
      for (guint j = 0; j < n; j++)
        active += flows[j].station == f->station && flows[j].active;
      f->rate_bps = f->station_bps / MAX (active, 1);
      f->window = wf_rwnd_policy_window (f->rate_bps, rtt_of (f), f->mss);
    }
}

void
wf_rwnd_policy_apply (const WfRwndPolicyParams *p, WfRwndPolicyFlow *flows, guint n)
{
  double avail = MAX (p->capacity_bps - MAX (p->other_bps, 0), 0);
  double min_rtt = 0, queue_sum = 0;
  guint active = 0;

  if (p->policy == WF_RWND_POLICY_STATION)
    {
      apply_station (flows, n);
      return;
    }
  /* N, the shortest RTT and sum_j RTT_j / baseRTT_j over the flows that
   * move data (over all of them when none does yet). */
  for (guint pass = 0; pass < 2 && active == 0; pass++)
    for (guint i = 0; i < n; i++)
      if (flows[i].active || pass == 1)
        {
          double rtt = rtt_of (&flows[i]);

          active++;
          min_rtt = min_rtt > 0 ? MIN (min_rtt, rtt) : rtt;
          queue_sum += standing_rtt_of (&flows[i]) / base_rtt_of (&flows[i]);
        }
  for (guint i = 0; i < n; i++)
    {
      WfRwndPolicyFlow *f = &flows[i];
      double rtt = rtt_of (f);

      if (p->policy == WF_RWND_POLICY_EQUAL)
        {
          /* One window for all: the shortest-RTT flow's share. */
          f->window = wf_rwnd_policy_window (avail / active, min_rtt, f->mss);
        }
      else
        {
          /* Equal throughput: the window grows with the flow's RTT (the
           * one it cycles at); a standing queue (above base) makes the
           * sum larger, every window smaller, until it drains. */
          f->window = wf_rwnd_policy_window (avail / queue_sum, rtt, f->mss);
        }
      f->rate_bps = f->window * 8.0 / rtt;
    }
}
