/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actuator interface of wlanfair-apd: one small ops table, one file
 * per actuator (wlanfair-actuator-<name>.c), a static registry (like
 * power-profiles-daemon's drivers). An actuator holds back one station's
 * traffic on the AP, restores exactly what it changed, and records what
 * it changed in the state file before changing it, so that a restarted
 * daemon or `wlanfair-apd --restore` (ExecStopPost=) can undo it after a
 * crash. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-station.h"
#include "wlanfair-apd-state.h"

G_BEGIN_DECLS

/* What the actuator turns. */
typedef enum {
  WF_ACTUATOR_KNOB_RATE,    /* a rate cap, bit/s */
  WF_ACTUATOR_KNOB_DELAY,   /* an added transmit delay, µs */
  WF_ACTUATOR_KNOB_WEIGHT,  /* an airtime weight, 1..65535 (256 = default) */
} WfActuatorKnob;

/* One station's setting. `limited` FALSE means "no limit": the station
 * gets back exactly what it had before the actuator touched it. */
typedef struct {
  gboolean limited;
  double   rate_down_bps;   /* RATE: cap on AP -> station (0: none) */
  double   rate_up_bps;     /* RATE: cap on station -> AP (0: none) */
  guint32  delay_us;        /* DELAY: added to AP -> station frames */
  guint16  weight;          /* WEIGHT */
} WfActuatorSetting;

typedef struct _WfActuator WfActuator;

typedef struct {
  const char    *name;        /* "rate", "delay", "airtime", "fake" */
  const char    *summary;     /* one line for --help and the man page */
  WfActuatorKnob knob;
  WfApdDir       directions;  /* which traffic it can hold back */
  gsize          priv_size;   /* bytes of a->priv, zeroed */

  /* Can it work on the interface here? FALSE with an error that says why
   * (unsupported driver, missing kernel feature); changes nothing. */
  gboolean (*probe)   (WfActuator *a, GError **error);
  /* Installs its base (e.g. the root qdisc), recording first what was
   * there in the state. Called once, after a successful probe. */
  gboolean (*start)   (WfActuator *a, GError **error);
  /* Applies a setting to a station (first time or a change). */
  gboolean (*set)     (WfActuator *a, const WfApdStation *sta,
                       const WfActuatorSetting *setting, GError **error);
  /* The station left: drop what was set for it (it may be gone from the
   * kernel already; that is not an error). */
  gboolean (*forget)  (WfActuator *a, const guint8 mac[6], GError **error);
  /* Removes everything set, restores what was there before start. */
  gboolean (*stop)    (WfActuator *a, GError **error);
  /* After a crash: undo what the state's group for this actuator says was
   * set, without an instance's memory. Idempotent. */
  gboolean (*restore) (const char *ifname, WfApdState *state, GError **error);
  void     (*finalize)(WfActuator *a);
} WfActuatorOps;

struct _WfActuator {
  const WfActuatorOps *ops;
  char                 ifname[16];  /* the AP interface it acts on */
  int                  ifindex;
  WfApdState          *state;       /* not owned */
  gpointer             priv;
};

/* The registry: every built-in actuator, NULL-terminated. */
const WfActuatorOps *const *wf_actuator_list (void);
const WfActuatorOps *wf_actuator_find (const char *name);

/* Instance on ifname (not yet probed); NULL + error for a bad name. */
WfActuator *wf_actuator_new (const char *name, const char *ifname,
                             WfApdState *state, GError **error);
void        wf_actuator_free (WfActuator *a);

gboolean wf_actuator_probe (WfActuator *a, GError **error);
gboolean wf_actuator_start (WfActuator *a, GError **error);
gboolean wf_actuator_set (WfActuator *a, const WfApdStation *sta,
                          const WfActuatorSetting *setting, GError **error);
gboolean wf_actuator_forget (WfActuator *a, const guint8 mac[6], GError **error);
gboolean wf_actuator_stop (WfActuator *a, GError **error);

/* Restores what every actuator's group in `state` records (start-up after
 * a crash, `--restore`). Goes on after a failure, returns the first. */
gboolean wf_actuator_restore_all (WfApdState *state, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfActuator, wf_actuator_free)

G_END_DECLS
