/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A simulated Wi-Fi cell for the controllers' unit tests: stations with a
 * PHY goodput (airtime cost 1 / rate), a direction and a demand share the
 * airtime by weighted water-filling, move towards their share like TCP
 * (a first-order lag per round) with seeded noise, and obey the
 * actuators' settings (rate caps, delay through the TCP share, airtime
 * weights). Deterministic for a seed. */
#pragma once

#include "wlanfair-apd-controller.h"

typedef enum {
  WF_APD_PLANT_AIRTIME,  /* airtime-fair MAC: equal airtime to the backlogged */
  WF_APD_PLANT_PULL,     /* airtime in proportion to each station's pull (TCP) */
} WfApdPlantMode;

typedef struct _WfApdPlant WfApdPlant;

WfApdPlant *wf_apd_plant_new (WfApdPlantMode mode, guint32 seed);
void        wf_apd_plant_free (WfApdPlant *p);
/* demand: bit/s the station wants (INFINITY: backlogged). */
void        wf_apd_plant_add (WfApdPlant *p, double phy_bps, WfApdDir dir, double demand);
void        wf_apd_plant_add_pull (WfApdPlant *p, double phy_bps, WfApdDir dir,
                                   double demand, double pull);
void        wf_apd_plant_remove (WfApdPlant *p, guint i, guint8 mac_out[6]);
void        wf_apd_plant_set_phy (WfApdPlant *p, guint i, double phy_bps);
/* The rate the AP takes station i's cost from, where it is not what the
 * station gets of its air: a PHY rate, which leaves out each frame's
 * overhead (contention, preamble, the acknowledgement). 0: the cost the
 * cell charges (as measured airtime gives it). */
void        wf_apd_plant_set_seen_phy (WfApdPlant *p, guint i, double phy_bps);
void        wf_apd_plant_set_signal (WfApdPlant *p, guint i, int dbm);
/* Limited elsewhere: station i's TCP cannot carry more than limit_bps at
 * the cell's base RTT (its frames lost after the MAC's retries: the
 * Mathis rate, lower as a delay lengthens its RTT), with +- noise
 * (relative) per round; INFINITY lifts it. Such a station still wants
 * more (its report says so), and counts in no Jain of the plant. */
void        wf_apd_plant_set_limit (WfApdPlant *p, guint i, double limit_bps, double noise);
/* The share of any rate cap station i carries (0.96 by default:
 * headers); less for a TCP whose sawtooth under the cap leaves it idle
 * now and then. Whatever the air: the bench's downloads carried 0.8-0.85
 * of their caps for want of air, which this does not model. */
void        wf_apd_plant_set_shaped (WfApdPlant *p, guint i, double share);
/* FALSE: the AP cannot tell the stations' airtime costs (no PHY rates:
 * a bridge port in an emulation); the costs still hold in the cell. */
void        wf_apd_plant_set_costs_known (WfApdPlant *p, gboolean known);
/* TRUE: the AP counts what it is handed for each station
 * (download-demand=); off by default. */
void        wf_apd_plant_set_demand_probe (WfApdPlant *p, gboolean on);
/* FALSE: no station reports (the controller sees the AP's view only). */
void        wf_apd_plant_set_reporting (WfApdPlant *p, gboolean reporting);
guint       wf_apd_plant_n (WfApdPlant *p);
/* 40 uncontrolled rounds. */
void        wf_apd_plant_settle (WfApdPlant *p);
const WfApdStation *wf_apd_plant_measure (WfApdPlant *p);
/* Takes the settings and advances one round. */
void        wf_apd_plant_apply (WfApdPlant *p, const WfApdDecision *dec);
/* Jain over the backlogged stations not limited elsewhere; everyone's
 * total. */
double      wf_apd_plant_jain (WfApdPlant *p);
double      wf_apd_plant_total (WfApdPlant *p);
double      wf_apd_plant_rate (WfApdPlant *p, guint i);
gboolean    wf_apd_plant_capped (WfApdPlant *p, guint i);
/* The best total at equal throughput for the backlogged stations (the
 * others at their demand, a limited one at its limit): N / sum of costs,
 * in airtime. */
double      wf_apd_plant_fair_bound (WfApdPlant *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdPlant, wf_apd_plant_free)
