/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /etc/wlanfair/apd.conf [apd] and the options that mirror it. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-controller.h"
#include "wlanfair-rwnd-policy.h"

G_BEGIN_DECLS

#define WF_APD_DEFAULT_CONFIG SYSCONFDIR "/wlanfair/apd.conf"
#define WF_APD_DEFAULT_STATUS "/run/wlanfair-apd/status.json"
#define WF_APD_MAX_WEIGHTS 256

typedef enum {
  WF_APD_SOURCE_NL80211,      /* a real AP: nl80211 station dump + events */
  WF_APD_SOURCE_BRIDGE_PORTS, /* one station per bridge port (emulations) */
} WfApdSource;

/* Reports carried in transit (wlanfair-apd-carried.c). */
typedef enum {
  WF_APD_CARRIED_AUTO,   /* on when the packet socket opens, else a log line */
  WF_APD_CARRIED_YES,    /* on, or the daemon does not start */
  WF_APD_CARRIED_NO,
} WfApdCarriedMode;

/* download-demand=: what the AP is handed for each station, counted by
 * a BPF program (wlanfair-download-demand.h). */
typedef enum {
  WF_APD_DEMAND_AUTO,   /* where the daemon may act and the program loads */
  WF_APD_DEMAND_YES,    /* required: no start without it */
  WF_APD_DEMAND_NO,
} WfApdDemandProbe;

typedef struct {
  guint8 mac[6];
  double weight;
} WfApdWeight;

/* An emulated station's PHY rate (bridge ports): what nl80211 would say. */
typedef struct {
  char   port[16];
  double bps;
} WfApdPortRate;

typedef struct {
  char       *interface;       /* the AP interface (required) */
  WfApdSource source;
  char       *controller;      /* "share" */
  char       *actuator;        /* "rate"; "none": observe only */
  WfApdControlParams control;  /* objective, directions, target, floors */
  char       *key_file;        /* NULL: no key: observe only ... */
  gboolean    insecure_unsigned; /* ... unless this is set */
  char       *bind;            /* NULL: any address */
  guint16     port;
  WfApdCarriedMode carried;    /* carried-reports= */
  GArray     *weights;         /* WfApdWeight */
  GArray     *port_rates;      /* WfApdPortRate (bridge-ports only) */
  double      tolerance;       /* report vs AP counters, relative */
  double      report_stale_s;  /* a report older than this is not used */
  double      feed_timeout_s;  /* no fresh data this long: lift every limit */
  char       *status_path;     /* "": none */
  char       *state_path;
  char       *textfile_dir;    /* NULL: the default, if it exists; "": none */
  gboolean    textfile_dir_explicit;
  WfRwndPolicy rwnd_policy;    /* rwnd-policy= (actuator=rwnd) */
  double      rwnd_capacity_bps; /* rwnd-capacity=, 0: unset */
  gboolean    ack_priority;    /* ack-priority=: pure ACKs, handshakes CS6 */
  WfApdDemandProbe download_demand; /* download-demand= */
} WfApdConfig;

/* Whether a daemon with this configuration may change anything: a key
 * (have_key) or insecure-unsigned=yes, and an actuator; else it only
 * observes. */
gboolean wf_apd_config_may_act (const WfApdConfig *config, gboolean have_key);
/* Whether a start tries the download-demand program at all: yes, or auto
 * where the daemon may act (observe mode changes nothing). */
gboolean wf_apd_config_demand_probe (const WfApdConfig *config, gboolean may_act);
void     wf_apd_config_init (WfApdConfig *config);
void     wf_apd_config_clear (WfApdConfig *config);
/* Every key known, every value valid, or an error naming them. */
gboolean wf_apd_config_load (WfApdConfig *config, const char *path,
                             gboolean must_exist, GError **error);
gboolean wf_apd_config_set (WfApdConfig *config, const char *key,
                            const char *value, GError **error);
/* The combination makes sense (interface set, the controller drives the
 * actuator's knob...); called once everything is set. */
gboolean wf_apd_config_check (WfApdConfig *config, GError **error);
/* What the actuator is told beyond the settings (WfActuatorOptions). */
#define wf_apd_config_actuator_options(c) \
  ((WfActuatorOptions) { .rwnd_policy = (c)->rwnd_policy, \
                         .rwnd_capacity_bps = (c)->rwnd_capacity_bps })

/* The configured PHY rate of a bridge port, 0 when none. */
double   wf_apd_config_port_rate (const WfApdConfig *config, const char *port);
/* The configured weight of a station, 1 when none. */
double   wf_apd_config_weight (const WfApdConfig *config, const guint8 mac[6]);

G_END_DECLS
