/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `share`, the default controller: max-min fair shares recomputed every
 * round (1 s) from what the round measured, in airtime.
 *
 * The cell's usable airtime U_max (the most airtime the stations used in
 * any of the last WINDOW rounds, sum of goodput x cost per bit) is shared
 * by water-filling: stations that use less than their share keep what
 * they use (`satisfied`), the others get an equal share L per unit of
 * shape (weight, or weight / cost for the airtime objective):
 *
 *     L = (U_max - sum_satisfied x_i c_i) / sum_demanding shape_i c_i
 *
 * A station above L x shape (by more than MARGIN) is held at that level
 * plus MARGIN, the margin letting it probe for more. The law sets the
 * level from the measured airtime, not from an integrated error: a
 * station the caps free airtime for takes it within a TCP ramp, and the
 * next round's level is the same (U_max does not depend on who used the
 * air), so the caps settle after one or two rounds with no integrator to
 * wind up. A station with demand that stays below its share while its
 * air is idle is limited elsewhere (loss, its own TCP): it is counted at
 * what it carries plus headroom, like a satisfied one, so that the air it
 * cannot use goes to the others (work-conserving max-min). An upload
 * that carries more of its cap than the downloads carry of theirs (the
 * MAC gives it its own contender, the downloads the AP's one) is held
 * lower, by the ratio: equal goodputs, not equal caps. Once one download
 * is held, every download with demand is (an unheld one's TCP fills the
 * AP's FIFO the held one's frames wait in). Changes per round are
 * bounded (a cap at most halves the station's rate; a delay moves at
 * most MAX_DELAY_STEP_US). Docs:
 * docs/ap-controller.md, "The default controller". */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wlanfair-apd-controller.h"

#define WINDOW 10                 /* rounds U_max looks back */
#define MARGIN 0.05               /* cap = level x (1 + MARGIN) */
#define SATURATED 0.92            /* U / U_max above: no spare airtime */
#define SAT_EXIT_GROWTH 1.25      /* a satisfied station wants more again */
#define STILL_GROWTH 1.05         /* "did not grow" between two rounds */
#define STILL_ROUNDS 3            /* ... rounds in a row, with spare airtime */
#define DELAY_GAIN 0.5
#define MAX_DELAY_STEP_US 20000
#define DEFAULT_RTT_S 0.02
#define WINDOW_NO_COSTS 3         /* ... where no station's cost is known */
#define PRESSING 0.80              /* x / cap above: the cap holds it */
#define SQUEEZED 0.90             /* a held station below this x its cap ... */
#define GOT_CAP 0.95              /* ... while another got this x its own */
#define RAMP_GROWTH 1.10          /* used above this x the window's max: ramping */
#define AUTO_FLOOR_SHARE 0.5      /* floor=auto: down to this x the share */
#define LIMITED_ROUNDS 5          /* rounds below its share, nobody above theirs */
#define LIMITED_AVG 0.1           /* a limited station's mean: EWMA gain a round */
#define LIMITED_HEADROOM 0.25     /* ... it is counted at that mean x (1 + this) */
#define LIMITED_EXIT 1.20         /* ... has demand again above that mean x this */
#define LIMITED_EXIT_ROUNDS 3     /* ... rounds in a row (its noise does it once or twice) */
#define LIMITED_GROWTH 0.10       /* grew this x its mean over LIMITED_ROUNDS: still ramping */
#define LIMITED_HOLDOFF 30        /* rounds a station released (the air was not idle) is not watched */
#define FILL_AVG 0.2              /* a held station's fill of its cap: EWMA gain a round */
#define FILL_EVEN 0.05            /* fills this close to the downloads': even, no correction */
#define SCALE_MIN 0.8             /* an upload's cap is lowered to at most this x */

typedef struct {
  double  cap_bps;          /* 0: none */
  guint32 delay_us;
  double  last_x;
  double  last_cost;        /* s/bit last round, 0 before */
  gboolean satisfied;
  double  satisfied_x;      /* what it used when found satisfied */
  guint   still_rounds;     /* rounds in a row it looked satisfied */
  gboolean limited;         /* demand, but limited elsewhere */
  guint   below_rounds;     /* rounds in a row it could have used more */
  guint   above_rounds;     /* limited: rounds in a row above its mean */
  double  limited_mean;     /* limited: what it carries, EWMA */
  double  recent[LIMITED_ROUNDS]; /* its goodput, the last rounds (ring) */
  guint   recent_next;
  guint   holdoff;          /* rounds left before it may be watched again */
  gboolean had_demand;      /* last round */
  double  fill;             /* held: x / its cap, EWMA (0: not held) */
  double  scale;            /* a held upload: its cap over (1 + MARGIN) x its share (0: 1) */
} Sta;

typedef struct {
  double      used[WINDOW]; /* airtime used per round, ring */
  guint       n_used, next;
  double      level;        /* last round's level per unit shape */
  guint       n_limited;    /* last round */
  guint       short_rounds; /* rounds in a row nobody with demand got its share */
} Share;

static gboolean
share_supports (WfActuatorKnob knob, const char **why)
{
  return TRUE;
}

static void
share_reset (WfApdController *c)
{
  Share *p = c->priv;

  p->n_used = p->next = 0;
  p->level = 0;
  p->n_limited = p->short_rounds = 0;
}

/* The most used in the last `rounds` rounds. */
static double
window_max (const Share *p, guint rounds)
{
  double m = 0;

  for (guint k = 1; k <= MIN (rounds, p->n_used); k++)
    m = MAX (m, p->used[(p->next + WINDOW - k) % WINDOW]);
  return m;
}

/* The most used in two rounds in a row, over the last `rounds`: air the
 * cell held, not one round's burst (a slow start counted at the AP's
 * radio before a bottleneck past the AP drops the excess: 6 of 5 Mbit/s
 * in the lab's cell). */
static double
window_sustained (const Share *p, guint rounds)
{
  double m = 0;

  for (guint k = 1; k < MIN (rounds, p->n_used); k++)
    m = MAX (m, MIN (p->used[(p->next + WINDOW - k) % WINDOW],
                     p->used[(p->next + WINDOW - k - 1) % WINDOW]));
  return m;
}

/* The floor keeps a cap from going below what TCP needs to keep going
 * when a share is misread. A fixed 1 Mbit/s sat above every share of a
 * dense slow cell (20 stations in 10 Mbit/s: 0.37 each), so no cap was
 * ever set there; floor=auto lets it down to half the share, not below
 * what the actuators go to. */
static double
floor_for (const WfApdControlParams *prm, double share)
{
  if (!prm->floor_auto)
    return prm->floor_bps;
  return MIN (prm->floor_bps, MAX (AUTO_FLOOR_SHARE * share, WF_ACTUATOR_RATE_FLOOR_BPS));
}

static guint32
delay_step (const WfApdControlParams *prm, const WfApdStation *s, Sta *st,
            double x, double target)
{
  double rtt = s->has_rtt && s->rtt_s > 0.001 ? s->rtt_s : DEFAULT_RTT_S;
  double d = st->delay_us;

  if (target <= 0)
    return st->delay_us;
  /* Inside the margin the goodput is at its share: an integrator fed
   * with measurement noise would random-walk the delay. */
  if (fabs (x / target - 1.0) <= MARGIN / 2)
    return st->delay_us;
  /* Integral on the relative excess, scaled by the flows' own RTT: the
   * delay that changes a window-limited rate by the error is about
   * RTT x error; half of it per round keeps the loop well damped. */
  double step = DELAY_GAIN * rtt * 1e6 * (x / target - 1.0);
  step = CLAMP (step, -MAX_DELAY_STEP_US, MAX_DELAY_STEP_US);
  d = CLAMP (d + step, 0, prm->max_delay_us);
  return (guint32) lround (d);
}

/* Below 1 where its cap was lowered for the downloads. */
static double
scale_of (const Sta *st)
{
  return st->scale > 0 ? st->scale : 1;
}

/* Whether a station's traffic is mostly AP -> station. */
static gboolean
downloads (const WfApdStation *s, WfApdDir dirs)
{
  double down = (dirs & WF_APD_DIR_DOWN) ? s->down_bps : 0;
  double up = (dirs & WF_APD_DIR_UP) ? s->up_bps : 0;
  return down > up;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v); 0 for none. */
static double
median (double *v, guint n)
{
  if (n == 0)
    return 0;
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What it used in the last LIMITED_ROUNDS rounds, on average. */
static double
recent_mean (const Sta *st)
{
  double m = 0;

  for (guint k = 0; k < LIMITED_ROUNDS; k++)
    m += st->recent[k];
  return m / LIMITED_ROUNDS;
}

/* Whether its use still grew over the last LIMITED_ROUNDS rounds (least
 * squares, oldest to newest): a TCP still ramping into the air it was
 * given (a long RTT takes seconds) is not limited, it is on its way. */
static gboolean
still_growing (const Sta *st)
{
  double mean = recent_mean (st), slope = 0, den = 0;

  for (guint k = 0; k < LIMITED_ROUNDS; k++)
    {
      double t = k - (LIMITED_ROUNDS - 1) / 2.0;
      slope += t * (st->recent[(st->recent_next + k) % LIMITED_ROUNDS] - mean);
      den += t * t;
    }
  slope /= den;
  return slope * (LIMITED_ROUNDS - 1) > LIMITED_GROWTH * mean;
}

/* Whether a station with demand is limited elsewhere: its frames lost
 * after the MAC's retries, its TCP backing off, a sender that cannot
 * keep up. Below its share for LIMITED_ROUNDS rounds in a row while at
 * least half the air it left unused was idle (`spare`; where the others
 * used it, the air it lacks is someone's, and caps are what it needs)
 * and no station took more than its own share (`overtaken`), and not
 * pressing a cap; and no longer growing (a slow TCP ramp below its share
 * for five rounds is not a limit: measured in the lab, a 140-ms host
 * classified on its way up, the other host given its air, and the cell
 * at a Jain of 0.79).
 * A limited station is counted at a slow mean of what it carries plus
 * headroom (its noise, and room to show it can do more): the others'
 * caps follow the mean, not the noise. It has demand again when it
 * reaches its share, computed with it limited (the others' level:
 * higher), or when it carries more than its headroom's worth above the
 * mean (x LIMITED_EXIT, LIMITED_EXIT_ROUNDS rounds in a row): its loss is
 * gone and it takes the headroom. A third round of that is not noise. */
static gboolean
limited_elsewhere (Sta *st, double x, double share, gboolean spare, gboolean overtaken)
{
  if (share <= 0)
    {
      st->below_rounds = 0;
      return FALSE;
    }
  if (st->limited)
    {
      st->above_rounds = x > LIMITED_EXIT * st->limited_mean ? st->above_rounds + 1 : 0;
      st->limited_mean += LIMITED_AVG * (x - st->limited_mean);
      if (x < (1 - 2 * MARGIN) * share && st->above_rounds < LIMITED_EXIT_ROUNDS)
        return TRUE;
      st->below_rounds = st->above_rounds = 0;
      return FALSE;
    }
  if (st->holdoff == 0 && spare && !overtaken && x < (1 - 2 * MARGIN) * share &&
      (st->cap_bps <= 0 || x < 0.7 * st->cap_bps))
    st->below_rounds++;
  else
    st->below_rounds = 0;
  if (st->below_rounds < LIMITED_ROUNDS || still_growing (st))
    return FALSE;
  st->limited_mean = recent_mean (st);
  st->above_rounds = 0;
  return TRUE;
}

static void
share_step (WfApdController *c, const WfApdStation *stations, guint n,
            gint64 now_us, WfApdDecision *out, WfApdRound *round)
{
  const WfApdControlParams *prm = &c->params;
  Share *p = c->priv;
  g_autofree double *x = g_new0 (double, n + 1);
  g_autofree double *cost = g_new0 (double, n + 1);
  g_autofree double *shape = g_new0 (double, n + 1);
  g_autofree gboolean *active = g_new0 (gboolean, n + 1);
  g_autofree gboolean *demand = g_new0 (gboolean, n + 1);
  double known = 0, used = 0;
  guint n_known = 0, n_active = 0;
  (void) now_us;

  /* Costs: where the AP cannot tell a station's cost, assume the mean of
   * those it can; with none known, 1 (airtime in bits: equal costs). */
  for (guint i = 0; i < n; i++)
    {
      x[i] = wf_apd_station_bps (&stations[i], prm->directions);
      cost[i] = wf_apd_station_cost (&stations[i], prm->directions);
      if (cost[i] > 0)
        {
          known += cost[i];
          n_known++;
        }
    }
  double mean_cost = n_known ? known / n_known : 1.0;
  for (guint i = 0; i < n; i++)
    {
      if (cost[i] <= 0)
        cost[i] = mean_cost;
      shape[i] = wf_apd_station_shape (&stations[i], prm->objective, cost[i] / mean_cost);
      active[i] = wf_apd_station_active (&stations[i], x[i], prm->idle_bps);
      Sta *st = wf_apd_controller_sta (c, &stations[i]);
      /* The round's goodput was carried at last round's rate as much as
       * at this one's: the lower cost of the two keeps a station that
       * just slowed down from counting airtime it never used (which
       * would hold a too high capacity for WINDOW rounds). */
      double c_used = st->last_cost > 0 ? MIN (cost[i], st->last_cost) : cost[i];
      st->last_cost = cost[i];
      if (active[i])
        {
          used += x[i] * c_used;
          n_active++;
        }
    }

  /* While the cell's use still grows (flows in slow start, after a start
   * or a join), what it used is not yet what it can use: caps set from it
   * would hold every station below what the air gives. */
  /* Where the AP can tell no station's cost (bridge ports of an
   * emulation without port-rates=), airtime is counted in bits, and bits
   * are not invariant: the cell carries fewer once the cheap stations are
   * held back, so a long memory would overstate the level for WINDOW
   * rounds. A short one forgets the overstatement sooner. */
  guint window = n_known ? WINDOW : WINDOW_NO_COSTS;
  double prev_max = window_max (p, window);
  double prev_held = window_sustained (p, window);
  gboolean ramping = used > RAMP_GROWTH * prev_max;

  /* The air a limited station leaves is idle only if the others take
   * it. Where every station with demand stayed below the share it was
   * given for LIMITED_EXIT_ROUNDS rounds, something else holds them all:
   * a bottleneck past the AP, or a window that overstates the air (a
   * ramp's transient, counted at the AP's radio before a wired
   * bottleneck dropped it: the lab's cell, where the far host was given
   * up and the near one took the bottleneck from it). The limited
   * stations are released and not watched for LIMITED_HOLDOFF rounds,
   * and the window is forgotten: this round's use is what the cell has. */
  gboolean released = FALSE;
  if (p->n_limited > 0 && p->level > 0)
    {
      guint n_had = 0, n_short = 0;
      for (guint i = 0; i < n; i++)
        {
          Sta *st = wf_apd_controller_sta (c, &stations[i]);
          if (!active[i] || !st->had_demand)
            continue;
          n_had++;
          /* Against the share its cap was lowered to, if it was. */
          n_short += x[i] < SQUEEZED * p->level * shape[i] * scale_of (st);
        }
      p->short_rounds = n_had > 0 && n_short == n_had ? p->short_rounds + 1 : 0;
      released = p->short_rounds >= LIMITED_EXIT_ROUNDS;
    }
  else
    p->short_rounds = 0;
  for (guint i = 0; i < n && released; i++)
    {
      Sta *st = wf_apd_controller_sta (c, &stations[i]);
      if (st->limited)
        {
          st->limited = FALSE;
          st->below_rounds = st->above_rounds = 0;
          st->holdoff = LIMITED_HOLDOFF;
        }
    }
  if (released)
    p->short_rounds = 0;

  double idle = !released && n_known > 0 && prev_held > 0 ? MAX (prev_held - used, 0) : 0;

  /* Every active station either held by a cap it presses against or
   * satisfied: the caps, not the air, set what the cell used, so this
   * round says nothing of the air's capacity. Recording it would let
   * U_max, and with it every cap, ratchet down on noise (measured: two
   * held downloads ending at 0.63 of what the cell carries). A station
   * that may be limited elsewhere (below its share with its air idle: it
   * is being watched) is not one the air holds back either: while it is
   * watched, the window must not forget the cell's capacity (it would, in
   * the LIMITED_ROUNDS it takes, and every station would end held at the
   * limited one's rate). Where no station's cost is known, airtime is
   * counted in bits, which fall as a slow station takes more of the air:
   * no idle air can be told, and nobody is limited. What such a round
   * records, and what idle air is measured from, is the air the cell
   * held (two rounds in a row), not the window's one-round burst, which
   * a held cell would otherwise keep for ever. */
  gboolean caps_bind = n_active >= 2;
  guint n_held = 0, n_squeezed = 0, n_got = 0;
  for (guint i = 0; i < n && caps_bind; i++)
    {
      Sta *st = wf_apd_controller_sta (c, &stations[i]);
      if (!active[i] || st->satisfied || st->limited || (idle > 0 && st->below_rounds > 0))
        continue;
      if (st->cap_bps > 0 && x[i] >= PRESSING * st->cap_bps)
        {
          n_held++;
          n_squeezed += x[i] < SQUEEZED * st->cap_bps;
          /* Not an upload held below its share for the downloads (rule
           * below): it gets its lowered cap by design, not from the MAC.
           * Counted as got, it made every round forget the window while
           * a download carried its usual lower share of its cap, and the
           * level ratchet down (the simulated cell: to 0.05 of its
           * capacity). */
          n_got += x[i] >= GOT_CAP * st->cap_bps && scale_of (st) >= 1;
        }
      else
        caps_bind = FALSE;
    }
  /* Held stations that do not get their caps while others get theirs:
   * the caps ask for more air than there is (U_max is the most of noisy
   * rounds; or the cell lost capacity), and whoever the MAC favours
   * (an uploader, its own contender, against the AP's one queue for
   * every download) takes it from the rest. The air set what the cell
   * carried: this round's use is its capacity, the window forgotten. */
  if (released || (caps_bind && n_squeezed > 0 && n_got > 0))
    {
      caps_bind = FALSE;
      p->n_used = 0;
    }
  else if (caps_bind && n_held > 0)
    used = MAX (used, prev_held);
  p->used[p->next] = used;
  p->next = (p->next + 1) % WINDOW;
  p->n_used = MIN (p->n_used + 1, WINDOW);
  double u_max = window_max (p, window);
  gboolean saturated = u_max <= 0 || used >= SATURATED * u_max;

  /* Who has demand. Frames for it that the AP did not deliver settle it
   * (demand); then a report, where it speaks: every busy flow
   * application-limited (satisfied), or a flow it sends on held back by
   * the path (demand). Otherwise (no report, or a host that
   * mostly receives: the sender is elsewhere) a station below the level
   * that does not grow while airtime is spare uses what it wants. It
   * stays satisfied until it grows by SAT_EXIT_GROWTH: without that
   * memory, the cell would cap the others, find the station satisfied,
   * lift the caps, find the cell saturated and cap again, round after
   * round. */
  /* A station with demand above its share (by more than the margins)
   * and no cap holding it there, or a cap still above it (coming down):
   * the air another lacks may be the air it takes. (A station held at
   * its share that reads above it for a second: the noise of its
   * goodput.) */
  gboolean overtaken = ramping || p->level <= 0;
  for (guint i = 0; i < n && !overtaken; i++)
    {
      Sta *st = wf_apd_controller_sta (c, &stations[i]);
      double share = p->level * shape[i];
      if (active[i] && !st->satisfied && !st->limited && x[i] > (1 + 2 * MARGIN) * share &&
          (st->cap_bps <= 0 || st->cap_bps > (1 + 2 * MARGIN) * share))
        overtaken = TRUE;
    }

  double sat_air = 0, dem_air = 0;
  guint n_dem = 0, n_limited = 0;
  for (guint i = 0; i < n; i++)
    {
      const WfApdStation *s = &stations[i];
      Sta *st = wf_apd_controller_sta (c, s);

      if (!active[i])
        {
          st->satisfied = st->limited = st->had_demand = FALSE;
          st->still_rounds = st->below_rounds = 0;
          memset (st->recent, 0, sizeof st->recent);
          st->last_x = x[i];
          out[i].why = "idle";
          continue;
        }
      st->recent[st->recent_next++ % LIMITED_ROUNDS] = x[i];
      if (st->holdoff > 0)
        st->holdoff--;
      gboolean still = FALSE;

      if (s->waits_at_ap)
        /* Handed more than it got: whatever its report says of its
         * sending, a download waits. */
        st->satisfied = FALSE;
      else if (s->reporting && s->trusted && (s->app_limited || s->wants_more))
        /* The flag is one sample of tcp_info (the last delivery-rate
         * sample): it reads true now and then for a flow at its cap or
         * at its share. Taken alone it lifted caps for a round (the
         * bench: a 1-s Jain of 0.77-0.87, six times in 240 s). So only
         * a station clearly below its share and not pressing a cap is
         * satisfied by its own word. */
        {
          st->satisfied = !s->wants_more && s->app_limited &&
                          (p->level <= 0 || x[i] < (1 - 2 * MARGIN) * p->level * shape[i]) &&
                          (st->cap_bps <= 0 || x[i] < PRESSING * st->cap_bps);
          if (st->satisfied)
            st->satisfied_x = x[i];
        }
      else if (st->satisfied)
        st->satisfied = x[i] < SAT_EXIT_GROWTH * st->satisfied_x;
      else if (!st->limited && !saturated && p->level > 0 &&
               x[i] < (1 - 2 * MARGIN) * p->level * shape[i] &&
               x[i] <= STILL_GROWTH * st->last_x &&
               (st->cap_bps <= 0 || x[i] < 0.7 * st->cap_bps))
        {
          still = TRUE;
          if (++st->still_rounds >= STILL_ROUNDS)
            {
              st->satisfied = TRUE;
              st->satisfied_x = x[i];
            }
        }
      /* In a row: any other round starts the count over. */
      if (!still || st->satisfied)
        st->still_rounds = 0;
      /* Only a station that says it wants more (its report), or whose
       * frames wait at the AP, can be limited elsewhere: one that says
       * nothing and stays below its share uses what it wants (the still
       * rule above), and needs no one held to protect it. Waiting at the
       * AP is no exception: frames lost after the retries are frames
       * handed over and not delivered too; a starved download waits
       * while others take its air (overtaken). */
      gboolean wants = s->waits_at_ap || (s->reporting && s->trusted && s->wants_more);
      if (st->satisfied || !wants)
        {
          st->limited = FALSE;
          st->below_rounds = 0;
        }
      else
        {
          /* The air it left unused (at last round's level) was idle. */
          double unused = MAX (p->level * shape[i] - x[i], 0) * cost[i];
          gboolean spare = idle > 0 && idle >= 0.5 * unused;
          st->limited = limited_elsewhere (st, x[i], p->level * shape[i], spare, overtaken);
        }
      demand[i] = !st->satisfied && !st->limited;
      st->had_demand = demand[i];
      if (demand[i])
        {
          dem_air += shape[i] * cost[i];
          n_dem++;
        }
      else if (st->limited)
        {
          sat_air += (1 + LIMITED_HEADROOM) * st->limited_mean * cost[i];
          n_limited++;
        }
      else
        sat_air += x[i] * cost[i];
    }

  double level = 0;
  if (n_dem > 0 && dem_air > 0)
    level = MAX (u_max - sat_air, 0) / dem_air;

  /* How much of its cap each held station with demand carries, on
   * average (a mean over rounds, not one round's noise; a station above
   * its cap is still coming down to it and says nothing of it). Stations
   * held at the same share do not carry their caps alike: in the bench's
   * 8-station mix an upload, its own contender for the air, carried
   * 0.95-0.97 of its cap, a download, behind the AP's one queue for every
   * download, 0.79-0.85, so equal caps left the downloads 10-20 % below
   * the uploads. An upload that carries more than the downloads' median
   * (by more than FILL_EVEN) is held at its share x that median over its
   * own fill, not below SCALE_MIN: equal goodputs, not equal caps. The
   * air it frees is the downloads'. Only uploads, against the downloads'
   * median: the asymmetry is the MAC's, and a station that carries
   * little for reasons of its own (its frames lost, its TCP backing
   * off) is an outlier of that median or an upload, and lowers nobody
   * (measured: with the lowest fill of all as the reference, a lossy
   * station held every other one at 0.8 of its share, and four lossy
   * cells carried 0.69-0.92 of the max-min bound). Raising the
   * downloads' caps instead did not help there (their air, not their
   * caps, held them: 27-29 s to fairness in the 8-station mix). */
  g_autofree double *down_fill = g_new0 (double, n + 1);
  guint n_down_fill = 0, n_up_fill = 0;
  for (guint i = 0; i < n; i++)
    {
      Sta *st = wf_apd_controller_sta (c, &stations[i]);
      if (!demand[i] || st->cap_bps <= 0)
        {
          st->fill = 0;
          continue;
        }
      double f = x[i] / st->cap_bps;
      if (f > 1 + 2 * MARGIN)
        continue;
      st->fill = st->fill > 0 ? st->fill + FILL_AVG * (f - st->fill) : f;
      if (downloads (&stations[i], prm->directions))
        down_fill[n_down_fill++] = st->fill;
      else
        n_up_fill++;
    }
  double down_ref = n_up_fill > 0 ? median (down_fill, n_down_fill) : 0;

  /* A download held at its share has its own leaf at the AP; one that is
   * not shares the AP's FIFO with every other unheld one, and its TCP
   * keeps that FIFO full: the held download's frames wait behind it (the
   * bench's 2-station download cell: the one held at 6.9 s carried 2.9
   * of its 5.1 at 12.9 s, the other 5.4, just under the margin that holds
   * a station). Once one download is held, every download with demand is
   * held at its share too, even below it: a cap it does not press costs
   * it nothing. Not only those whose frames wait at the AP: a FIFO that
   * stays full drops less than download-demand's 5 %. */
  gboolean down_held = FALSE;
  for (guint i = 0; i < n && !ramping && prm->knob == WF_ACTUATOR_KNOB_RATE; i++)
    {
      Sta *st = wf_apd_controller_sta (c, &stations[i]);
      if (demand[i] && downloads (&stations[i], prm->directions) &&
          (st->cap_bps > 0 || x[i] > (1 + MARGIN) * level * shape[i]))
        down_held = TRUE;
    }

  for (guint i = 0; i < n; i++)
    {
      const WfApdStation *s = &stations[i];
      Sta *st = wf_apd_controller_sta (c, s);
      WfApdDecision *d = &out[i];
      double share = level * shape[i];

      d->counted = demand[i];
      d->satisfied = active[i] && !demand[i];
      d->share_bps = demand[i] ? share : x[i];
      st->last_x = x[i];

      /* A limited station is one to protect: the one station with demand
       * beside it is held at what it leaves, or its queue at the AP would
       * lengthen the limited one's RTT and take what its TCP can do. */
      if (!demand[i] || n_dem + n_limited < 2)
        {
          /* Nobody to protect from it (or it is below its share by
           * itself): no limit at all. */
          st->cap_bps = 0;
          st->scale = 1;
          st->delay_us = 0;
          if (!d->why)
            d->why = !active[i] ? "idle"
                     : st->limited ? "limited elsewhere: below its share with air to spare"
                     : !demand[i] ? "uses less than its share"
                                  : "alone with demand";
          continue;
        }

      switch (prm->knob)
        {
        case WF_ACTUATOR_KNOB_RATE:
          if (st->cap_bps > 0 || (x[i] > (1 + MARGIN) * share && !ramping) ||
              (down_held && downloads (s, prm->directions)))
            {
              double scale = 1;
              if (down_ref > 0 && st->fill > 0 && !downloads (s, prm->directions) &&
                  down_ref < (1 - FILL_EVEN) * st->fill)
                scale = MAX (down_ref / st->fill, SCALE_MIN);
              st->scale = scale;
              /* At most halve per round; at most double. */
              double cap = (1 + MARGIN) * share * scale;
              cap = MAX (cap, 0.5 * x[i]);
              if (st->cap_bps > 0)
                cap = MIN (cap, 2 * st->cap_bps);
              double floor_bps = floor_for (prm, share);
              st->cap_bps = MAX (cap, floor_bps);
              d->setting.limited = TRUE;
              wf_apd_split_cap (s, prm->directions, st->cap_bps, floor_bps, &d->setting);
              d->why = scale < 1 ? "held below its share: the downloads carry less of theirs"
                       : x[i] > (1 + MARGIN) * share ? "above its share" : "held at its share";
            }
          else
            {
              st->scale = 1;
              d->why = ramping ? "the cell is ramping up" : "at or below its share";
            }
          break;

        case WF_ACTUATOR_KNOB_DELAY:
          st->delay_us = delay_step (prm, s, st, x[i], share);
          d->setting.limited = st->delay_us > 0;
          d->setting.delay_us = st->delay_us;
          d->why = st->delay_us > 0 ? (x[i] > share ? "above its share" : "held at its share")
                                    : "at or below its share";
          break;

        case WF_ACTUATOR_KNOB_WEIGHT:
          {
            /* Airtime weights are open loop: a station needs airtime in
             * proportion to shape x cost for its share. */
            double min_need = G_MAXDOUBLE;
            for (guint j = 0; j < n; j++)
              if (demand[j])
                min_need = MIN (min_need, shape[j] * cost[j]);
            double w = 256.0 * shape[i] * cost[i] / min_need;
            d->setting.limited = TRUE;
            d->setting.weight = (guint16) CLAMP (lround (w), 1, 65535);
            d->why = "weight for its share";
          }
          break;
        }
    }

  /* Round figures over the stations with demand. */
  double total = 0;
  for (guint i = 0; i < n; i++)
    if (active[i])
      total += x[i];
  double bound = 0;
  for (guint i = 0; i < n; i++)
    if (active[i])
      bound += demand[i] ? level * shape[i] : x[i];

  round->n_counted = n_dem;
  round->jain = wf_apd_jain (x, shape, demand, n);
  round->total_bps = total;
  /* With no cost known the bound assumes equal costs (a wired cell). */
  round->bound_bps = n_active > 0 ? bound : 0;
  round->capacity_bps = MAX (bound, total);
  round->tradeoff = wf_apd_tradeoff (x, active, n, round->capacity_bps);
  round->level_bps = level;
  round->saturated = saturated;
  p->level = level;
  p->n_limited = n_limited;
}

const WfApdControllerOps wf_apd_controller_share = {
  .name = "share",
  .summary = "max-min fair shares from each round's measured airtime (default)",
  .priv_size = sizeof (Share),
  .sta_size = sizeof (Sta),
  .supports = share_supports,
  .step = share_step,
  .reset = share_reset,
};
