/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One round of wlanfair-apd as its outputs see it: the mode, what each
 * station was given, the counters. The daemon fills it, the renderers of
 * wlanfair-apd-output.h read it; neither needs the other's header. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-config.h"
#include "wlanfair-apd-controller.h"
#include "wlanfair-report.h"

G_BEGIN_DECLS

typedef enum {
  WF_APD_MODE_OBSERVE,    /* computes decisions, applies none */
  WF_APD_MODE_CONTROL,    /* applies them */
  WF_APD_MODE_FAIL_OPEN,  /* may act, but its inputs stopped: nothing held */
} WfApdMode;

const char *wf_apd_mode_name (WfApdMode mode);

/* What was last applied to (or, observing, decided for) one station. */
typedef struct {
  WfActuatorSetting setting;
  const char       *why;
} WfApdApplied;

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

G_END_DECLS
