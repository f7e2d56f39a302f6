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
#include <json-glib/json-glib.h>

#include "wlanfair-apd-station.h"
#include "wlanfair-apd-state.h"
#include "wlanfair-rwnd-policy.h"

G_BEGIN_DECLS

/* Floors and ceilings every actuator keeps to (a request beyond one is
 * clamped and logged, not refused): a station is never starved, and an
 * added delay never grows beyond what TCP's timers tolerate. */
#define WF_ACTUATOR_RATE_FLOOR_BPS   256000.0  /* bit/s, each direction */
#define WF_ACTUATOR_DELAY_MAX_US     200000u   /* 200 ms */
#define WF_ACTUATOR_WEIGHT_DEFAULT   256u      /* mac80211's airtime weight */

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

/* What apd.conf says to one actuator beyond the settings; the caller
 * fills a->options in after wf_actuator_new (zero: the defaults). */
typedef struct {
  WfRwndPolicy rwnd_policy;        /* rwnd-policy= */
  double       rwnd_capacity_bps;  /* rwnd-capacity=: C of equal, rtt-fair */
} WfActuatorOptions;

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
  /* Optional: called every control round while started, for an actuator
   * whose set depends on more than the setting (rwnd: the connections
   * there are now). */
  gboolean (*refresh) (WfActuator *a, GError **error);
  /* Optional: what it holds beyond the per-station settings, for the
   * status file (an object, bounded in size; rwnd: its flows). */
  JsonNode *(*status) (WfActuator *a);
  void     (*finalize)(WfActuator *a);
} WfActuatorOps;

struct _WfActuator {
  const WfActuatorOps *ops;
  char                 ifname[16];  /* the AP interface it acts on */
  int                  ifindex;     /* at wf_actuator_new (0: none then) */
  WfApdState          *state;       /* not owned */
  WfActuatorOptions    options;
  gpointer             priv;
  gboolean             probed;      /* kept by the wf_actuator_* wrappers */
  gboolean             started;
};

/* The registry: every built-in actuator, NULL-terminated. */
const WfActuatorOps *const *wf_actuator_list (void);
const WfActuatorOps *wf_actuator_find (const char *name);

/* Instance on ifname (not yet probed); NULL + error for a bad name. */
WfActuator *wf_actuator_new (const char *name, const char *ifname,
                             WfApdState *state, GError **error);
void        wf_actuator_free (WfActuator *a);

/* The wrappers keep the order: start only after a successful probe, set
 * and forget only after a successful start (else an error, nothing
 * called). start refuses while the state still holds the actuator's
 * group (restore first); a failed start is undone at once through the
 * actuator's restore. stop (nothing to do when not started) and a successful
 * restore remove the actuator's group from the state. One log line per
 * start and stop. wf_actuator_free neither stops nor restores: what was
 * set stays recorded for the next start or `--restore`. */
gboolean wf_actuator_probe (WfActuator *a, GError **error);
gboolean wf_actuator_start (WfActuator *a, GError **error);
gboolean wf_actuator_set (WfActuator *a, const WfApdStation *sta,
                          const WfActuatorSetting *setting, GError **error);
gboolean wf_actuator_forget (WfActuator *a, const guint8 mac[6], GError **error);
gboolean wf_actuator_stop (WfActuator *a, GError **error);
/* The actuator's refresh, if it has one and is started (else nothing). */
gboolean wf_actuator_refresh (WfActuator *a, GError **error);

/* The actuator's status object, if it has a status op and is started
 * (else NULL). */
JsonNode *wf_actuator_status (WfActuator *a);

/* For the actuators. The group of `name` on `ifname`: "<name>:<ifname>". */
char    *wf_actuator_group (const char *name, const char *ifname);
/* Sets (value NULL: removes) a key of a's group and saves the state:
 * call it BEFORE the change it describes. */
gboolean wf_actuator_record (WfActuator *a, const char *key, const char *value,
                             GError **error);

/* The built-in actuators (wlanfair-actuator-<name>.c). */
extern const WfActuatorOps wf_actuator_rate;
extern const WfActuatorOps wf_actuator_delay;
extern const WfActuatorOps wf_actuator_airtime;
extern const WfActuatorOps wf_actuator_fake;
#ifdef WF_HAVE_BPF
extern const WfActuatorOps wf_actuator_rwnd;   /* built with the BPF toolchain */
#endif

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfActuator, wf_actuator_free)

G_END_DECLS
