/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pi`: the published method (Sudibyo et al., 2019) as a reproduction
 * baseline; docs/ap-controller.md, "The pi baseline".
 *
 * Initial delay from the stations' signal as the AP hears it, averaged
 * over the first period:
 *     D(0) = a (RSS_near / RSS_min)^2 exp (b (RSS_near - RSS_far))
 * (a = 9, b = 0.17: the indoor constants; RSS_min = -88 dBm), then every
 * period (20 s) a PI step on Jain's index F of the period's mean goodput:
 *     D(n) = D(n-1) + Kp (F(n-1) - F(n)) + Ki (F_target - F(n))
 * with F in percent and D in milliseconds (with F as a fraction the steps
 * would be a tenth of a millisecond and the published ~130 s convergence
 * could not happen). D(0) goes to the station heard loudest (the near
 * one). Each period the step
 *     step = Kp (F(n-1) - F(n)) + Ki (F_target - F(n))
 * is shared by excess over the mean goodput: station i's delay moves by
 *     w_i step,  w_i = (x_i - mean) / (max - mean)   above the mean,
 *                w_i = (x_i - mean) / (mean - min)   below it, when the
 *                                                    step is positive,
 * and never goes below 0 (the step is the velocity form of a PI on the
 * error F_target - F: positive = hold the faster stations back more). With two stations and the near one staying the
 * faster, that is the published rule (the faster one gets the step, the
 * other has none to lose). When the delay overshoots and the delayed
 * station becomes the slower one, the step takes its delay back instead
 * of moving all of it to the other station: moving all of it, as a
 * literal "delay on the faster host" does, flips the two stations every
 * period in a simulated cell (tests/apd/test-apd-controller.c).
 * The paper leaves F(0) open.  Taking the uncontrolled period's F makes
 * the first step's proportional term charge D(0)'s own gain against it
 * (the velocity form's kick on a step it did not make): in the lab, D(0)
 * = 26 ms lifted F from 70 to 84 % and the kick, 3 x -14, took it all
 * back.  So the first PI step has no proportional term: the PI starts
 * from the cell as D(0) left it.
 * Stability: with a static cell (F = F0 + g D, D in ms, F in %) and one
 * period of lag, the velocity form has a pole near -Kp g, so the
 * published Kp = 3 limit-cycles where one millisecond moves F by more
 * than a third of a point (g ~ 0.5 in a cell with 16 ms of RTT) and holds
 * where D is in the hundreds of milliseconds, as D(0) says it was in the
 * paper's cells.  docs/ap-controller.md, "The pi baseline".
 * Delay only: that is the method. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "wlanfair-apd-controller.h"

#define PI_A 9.0
#define PI_B 0.17
#define RSS_MIN_DBM (-88.0)

typedef struct {
  double  sum_x;       /* goodput summed over the period's rounds */
  double  sum_signal;
  guint   n_signal;
  guint   rounds;
  double  delay_ms;    /* D_i */
} Sta;

typedef struct {
  gint64      period_start;
  gboolean    in_period;   /* period_start is set */
  gboolean    started;   /* D(0) applied */
  double      last_f;    /* F(n-1), percent; < 0 before the first */
} Pi;

static gboolean
pi_supports (WfActuatorKnob knob, const char **why)
{
  if (knob == WF_ACTUATOR_KNOB_DELAY)
    return TRUE;
  *why = "drives the delay actuator only (the published method); "
         "use controller=share with this actuator";
  return FALSE;
}

static void
pi_reset (WfApdController *c)
{
  Pi *p = c->priv;

  p->period_start = 0;
  p->in_period = FALSE;
  p->started = FALSE;
  p->last_f = -1;
}

/* The published initial delay, ms; near and far by signal. */
static double
initial_delay_ms (double rss_near, double rss_far)
{
  double r = rss_near / RSS_MIN_DBM;
  return PI_A * r * r * exp (PI_B * (rss_near - rss_far));
}

static void
pi_step (WfApdController *c, const WfApdStation *stations, guint n,
         gint64 now_us, WfApdDecision *out, WfApdRound *round)
{
  const WfApdControlParams *prm = &c->params;
  Pi *p = c->priv;
  g_autofree double *x = g_new0 (double, n + 1);
  g_autofree double *mean_x = g_new0 (double, n + 1);
  g_autofree double *ones = g_new0 (double, n + 1);
  g_autofree gboolean *active = g_new0 (gboolean, n + 1);
  g_autofree Sta **st = g_new0 (Sta *, n + 1);
  guint n_active = 0;

  if (!p->in_period)
    {
      p->period_start = now_us;
      p->in_period = TRUE;
    }

  for (guint i = 0; i < n; i++)
    {
      const WfApdStation *s = &stations[i];

      st[i] = wf_apd_controller_sta (c, s);
      x[i] = wf_apd_station_bps (s, prm->directions);
      ones[i] = 1;
      active[i] = wf_apd_station_active (s, x[i], prm->idle_bps);
      n_active += active[i];
      st[i]->sum_x += x[i];
      st[i]->rounds++;
      if (s->has_signal)
        {
          st[i]->sum_signal += s->signal_dbm;
          st[i]->n_signal++;
        }
    }

  gboolean period_end = now_us - p->period_start >= (gint64) (prm->pi_period_s * G_USEC_PER_SEC);
  if (period_end)
    {
      /* The period's mean goodput per station. */
      double sum = 0, max = 0, min = G_MAXDOUBLE;
      guint k = 0;
      for (guint i = 0; i < n; i++)
        {
          mean_x[i] = st[i]->rounds ? st[i]->sum_x / st[i]->rounds : 0;
          if (active[i])
            {
              sum += mean_x[i];
              max = MAX (max, mean_x[i]);
              min = MIN (min, mean_x[i]);
              k++;
            }
        }
      double mean = k ? sum / k : 0;
      double f = 100.0 * wf_apd_jain (mean_x, ones, active, n);

      if (k < 2)
        {
          /* Nothing to share: no delay on anyone. */
          for (guint i = 0; i < n; i++)
            st[i]->delay_ms = 0;
          p->started = FALSE;
          p->last_f = -1;
        }
      else if (!p->started)
        {
          double near = -G_MAXDOUBLE, far = G_MAXDOUBLE;
          guint near_i = n;
          for (guint i = 0; i < n; i++)
            if (active[i] && st[i]->n_signal)
              {
                double rss = st[i]->sum_signal / st[i]->n_signal;
                if (rss > near)
                  near = rss, near_i = i;
                far = MIN (far, rss);
              }
          if (near_i < n)
            st[near_i]->delay_ms = initial_delay_ms (near, far);
          p->started = TRUE;
          /* F(0) is the first F under D(0), not the uncontrolled F: see
           * the head comment (the P kick). */
          p->last_f = -1;
        }
      else
        {
          double prev_f = p->last_f < 0 ? f : p->last_f;
          double step = prm->pi_kp * (prev_f - f) +
                        prm->pi_ki * (100.0 * prm->target_jain - f);
          for (guint i = 0; i < n; i++)
            {
              double w = 0;
              if (!active[i])
                continue;
              if (mean_x[i] > mean && max > mean)
                w = (mean_x[i] - mean) / (max - mean);
              else if (mean_x[i] < mean && mean > min && step > 0)
                w = (mean_x[i] - mean) / (mean - min);
              st[i]->delay_ms += w * step;
            }
          p->last_f = f;
        }

      for (guint i = 0; i < n; i++)
        {
          st[i]->delay_ms = CLAMP (st[i]->delay_ms, 0, prm->max_delay_us / 1000.0);
          st[i]->sum_x = 0;
          st[i]->rounds = 0;
          st[i]->sum_signal = 0;
          st[i]->n_signal = 0;
        }
      p->period_start = now_us;
    }

  for (guint i = 0; i < n; i++)
    {
      out[i].counted = active[i];
      guint32 us = (guint32) lround (st[i]->delay_ms * 1000.0);
      out[i].setting.limited = us > 0;
      out[i].setting.delay_us = us;
      out[i].why = !active[i] ? "idle" : us > 0 ? "delayed (pi)" : "not delayed (pi)";
    }

  double total = 0;
  for (guint i = 0; i < n; i++)
    if (active[i])
      total += x[i];
  round->n_counted = n_active;
  round->jain = wf_apd_jain (x, ones, active, n);
  round->total_bps = total;
  round->capacity_bps = total;
  round->tradeoff = wf_apd_tradeoff (x, active, n, total);
}

const WfApdControllerOps wf_apd_controller_pi = {
  .name = "pi",
  .summary = "the published PI step on Jain's index every 20 s (delay only)",
  .priv_size = sizeof (Pi),
  .sta_size = sizeof (Sta),
  .supports = pi_supports,
  .step = pi_step,
  .reset = pi_reset,
};
