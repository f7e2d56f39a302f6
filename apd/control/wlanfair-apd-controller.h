/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Controllers of wlanfair-apd: pure functions of the station table to one
 * setting per station, behind one small interface (like the actuators):
 * `share` (the default, wlanfair-apd-share.c) and `pi` (the published
 * method as a reproduction baseline, wlanfair-apd-pi.c). No I/O: the unit
 * tests run them against simulated cells. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-station.h"
#include "wlanfair-actuator.h"

G_BEGIN_DECLS

typedef enum {
  WF_APD_OBJECTIVE_THROUGHPUT,  /* equal goodput (x weight) */
  WF_APD_OBJECTIVE_AIRTIME,     /* equal airtime (x weight) */
} WfApdObjective;

typedef struct {
  WfApdObjective objective;
  WfApdDir       directions;     /* the traffic that counts (both) */
  WfActuatorKnob knob;           /* what the actuator turns */
  double         target_jain;    /* 0.97 */
  double         period_s;       /* 1 s: one control round */
  double         idle_bps;       /* below: the station has no demand */
  double         floor_bps;      /* no rate cap below this ... */
  gboolean       floor_auto;     /* ... or below half the station's share,
                                  * where that is less (floor=auto) */
  guint32        max_delay_us;   /* delay knob: ceiling */
  /* pi: the published gains and period */
  double         pi_kp, pi_ki;   /* 3, 0.8 (F in percent -> ms) */
  double         pi_period_s;    /* 20 s */
} WfApdControlParams;

void wf_apd_control_params_init (WfApdControlParams *p);

/* What a controller decided for one station this round. */
typedef struct {
  gboolean          counted;   /* has demand: in the fairness figures */
  gboolean          satisfied; /* uses less than its share by itself */
  double            share_bps; /* its fair allocation (0: none computed) */
  WfActuatorSetting setting;   /* what the actuator should hold */
  const char       *why;       /* static text for the journal */
} WfApdDecision;

/* The round's cell-wide figures. */
typedef struct {
  guint  n_counted;
  double jain;              /* among the stations with demand; 1 when <= 1 */
  double total_bps;         /* sum of the counted stations' goodput */
  double bound_bps;         /* best total at equal share (0: unknown) */
  double capacity_bps;      /* the capacity estimate the trade-off uses */
  double tradeoff;          /* F(X, C, alpha = 1); 0 when unknown */
  double level_bps;         /* the water level (share per unit weight) */
  gboolean saturated;       /* the cell used all the airtime it had */
} WfApdRound;

typedef struct _WfApdController WfApdController;

typedef struct {
  const char *name;
  const char *summary;
  gsize       priv_size;
  gsize       sta_size;   /* per-station memory, zeroed on first sight */
  /* Which knobs it can drive; FALSE + why otherwise (config error). */
  gboolean  (*supports) (WfActuatorKnob knob, const char **why);
  /* One control round at now_us over n stations (their previous decisions
   * in/out: the controller keeps per-station memory by MAC itself). */
  void      (*step)     (WfApdController *c, const WfApdStation *stations,
                         guint n, gint64 now_us, WfApdDecision *out,
                         WfApdRound *round);
  /* Everything forgotten (the per-station memory is cleared first). */
  void      (*reset)    (WfApdController *c);
  void      (*finalize) (WfApdController *c);
} WfApdControllerOps;

struct _WfApdController {
  const WfApdControllerOps *ops;
  WfApdControlParams        params;
  gpointer                  priv;
  GHashTable               *sta;   /* mac_str -> ops->sta_size bytes */
};

const WfApdControllerOps *const *wf_apd_controller_list (void);
/* NULL + error naming the choices for an unknown name, or when it cannot
 * drive the knob. */
WfApdController *wf_apd_controller_new (const char *name,
                                        const WfApdControlParams *params,
                                        GError **error);
void wf_apd_controller_free (WfApdController *c);
void wf_apd_controller_step (WfApdController *c, const WfApdStation *stations,
                             guint n, gint64 now_us, WfApdDecision *out,
                             WfApdRound *round);
void wf_apd_controller_forget (WfApdController *c, const guint8 mac[6]);
void wf_apd_controller_reset (WfApdController *c);

/* Shared by the controllers (wlanfair-apd-controller.c). */

/* The controller's memory of station s (zeroed the first time). */
gpointer wf_apd_controller_sta (WfApdController *c, const WfApdStation *s);

/* Per-station share of the objective: goodput per unit of share is what
 * is equalised (weight for throughput, weight / cost for airtime). */
double wf_apd_station_shape (const WfApdStation *s, WfApdObjective objective,
                             double mean_cost);
/* Airtime cost per bit in the counted directions, 0 when unknown. */
double wf_apd_station_cost (const WfApdStation *s, WfApdDir dirs);
/* Jain's index of x[i] / shape[i] over the flagged stations with a
 * shape > 0 (wf_fairness_jain_weighted); 1 for fewer than two or all
 * idle, NaN for a goodput that is negative or not finite. */
double wf_apd_jain (const double *x, const double *shape, const gboolean *in,
                    guint n);
/* The trade-off index F(X, C, alpha = 1) of the flagged stations'
 * goodput against capacity C; 0 when it cannot be computed. */
double wf_apd_tradeoff (const double *x, const gboolean *in, guint n,
                        double capacity_bps);
/* Splits a total cap over the directions in proportion to use (a
 * direction not in use gets no cap), with the floor per capped direction. */
void wf_apd_split_cap (const WfApdStation *s, WfApdDir dirs, double cap_bps,
                       double floor_bps, WfActuatorSetting *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdController, wf_apd_controller_free)

G_END_DECLS
