/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What wlanfair-apd shows of each round: the status file that
 * `wlanfairctl ap` reads (JSON, version 1, tests/data/apd-status.json)
 * and node_exporter's textfile (wlanfair_ap_* metrics). Pure renderers
 * of one round's view; the daemon writes them. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-config.h"
#include "wlanfair-apd-controller.h"
#include "wlanfair-apd-daemon.h"
#include "wlanfair-report.h"

G_BEGIN_DECLS

#define WF_APD_STATUS_VERSION 1
#define WF_APD_PROM_FILE "wlanfair-ap.prom"

/* Per-station byte counters kept by the daemon over the rounds. */
typedef struct {
  double goodput_down_bytes, goodput_up_bytes;   /* what control acted on */
} WfApdCounters;

/* One round as the outputs see it. */
typedef struct {
  const WfApdConfig   *config;
  gint64               time_us;        /* wall clock */
  gint64               started_us;     /* wall clock */
  WfApdMode            mode;
  const char          *mode_reason;
  guint64              rounds;
  const WfApdRound    *round;
  guint                n_stations;     /* associated, with or without a rate */
  const WfApdStation  *stations;       /* n_snap, the controller's input */
  const WfApdDecision *decisions;      /* n_snap */
  const WfApdApplied  *applied;        /* n_snap: what the actuator holds now */
  const WfApdCounters *counters;       /* n_snap */
  guint                n_snap;
  guint64              accepted;
  guint64              accepted_by[WF_APD_PATH_N];  /* addressed, carried */
  gboolean             carried_on;
  const char          *carried_note;
  guint64              carried_local;      /* frames left to the UDP socket */
  guint64              carried_fragments;  /* IPv4 fragments, not read */
  guint64              carried_malformed;
  const guint64       *rejected;       /* WF_REPORT_REJECT_N */
  guint64              untrusted;
  guint64              unmatched;
  JsonNode            *actuator_status;  /* NULL: none (wf_actuator_status) */
  gboolean             ack_priority_on;  /* ack-priority=: attached */
  guint64              ack_priority_packets;  /* re-marked CS6 */
  guint64              ack_priority_bytes;
  guint64              ack_priority_kept;     /* left: had a DSCP */
} WfApdView;

/* Pretty JSON text of the status object. */
char *wf_apd_output_status (const WfApdView *v);
/* The Prometheus text exposition. */
char *wf_apd_output_prometheus (const WfApdView *v);

G_END_DECLS
