/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-daemon.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-apd-carried.h"
#include "wlanfair-apd-output.h"
#include "wlanfair-apd-receiver.h"
#include "wlanfair-apd-restore.h"
#include "wlanfair-apd-station-source.h"
#include "wlanfair-apd-station-table.h"
#include "wlanfair-apd-view.h"
#include "wlanfair-cell-program.h"
#include "wlanfair-daemon.h"
#include "wlanfair-error.h"
#include "wlanfair-mac.h"
#include "wlanfair-ratelimit.h"

/* A cap that moves by less than this is left as it is: a tc change per
 * station per round for noise would only churn the state file. */
#define RATE_DEADBAND   0.02
#define DELAY_DEADBAND_US 500
#define LOG_MOVE        0.25   /* a limit that moves this much is logged again */

typedef struct {
  WfApdApplied  applied;
  WfApdCounters counters;
  const char   *logged_why;    /* the decision last said in the journal */
  gboolean      logged_limited;
  double        logged_size;   /* ... and the limit it logged */
} StaState;

struct _WfApdDaemon {
  WfApdConfig     *config;
  GBytes          *key;
  WfApdState      *state;
  WfApdStationSource *source;
  WfApdStations   *stations;
  WfApdReceiver   *receiver;
  WfApdCarried    *carried;       /* NULL: off (carried_note says why) */
  char            *carried_note;
  WfApdController *controller;
  WfActuator      *actuator;      /* NULL: actuator=none */
  WfCellPrograms  *cell;          /* the cell programs started (NULL: before) */
  gboolean         may_act;
  char            *observe_reason;
  WfApdMode        mode;
  char            *mode_reason;
  GMainLoop       *loop;
  int              exit_code;
  guint            timer;
  WfDaemon        *life;          /* stop signals, READY, watchdog */
  WfRatelimit     *once;          /* failures said once until they work again */
  gint64           started_us, started_mono;
  gint64           last_dump_ok, last_report, last_round;
  guint64          rounds, unmatched;
  GHashTable      *sta;           /* mac_str -> StaState */
  WfApdOutputs    *outputs;
};

static StaState *
sta_state (WfApdDaemon *d, const char *mac)
{
  StaState *s = g_hash_table_lookup (d->sta, mac);

  if (!s)
    {
      s = g_new0 (StaState, 1);
      g_hash_table_insert (d->sta, g_strdup (mac), s);
    }
  return s;
}

static void
on_report (WfReportView *view, const WfApdReportFrom *from, gpointer user_data)
{
  WfApdDaemon *d = user_data;

  if (!wf_apd_stations_add_report (d->stations, view, from->family, from->addr,
                                   from->has_mac ? from->mac : NULL, from->path,
                                   g_get_monotonic_time ()))
    d->unmatched++;
}

/* The reports the AP carries for a gateway it is not: on unless
 * configured off; without the privilege, one line says so (auto). */
static gboolean
carried_open (WfApdDaemon *d, GError **error)
{
  const WfApdConfig *c = d->config;
  g_autoptr(GError) local = NULL;

  if (c->carried == WF_APD_CARRIED_NO)
    {
      d->carried_note = g_strdup ("off (carried-reports=no)");
      return TRUE;
    }
  d->carried = wf_apd_carried_new (c->interface, c->port, d->receiver, &local);
  if (d->carried)
    {
      d->carried_note = g_strdup_printf ("on (UDP to port %u crossing %s or its bridge ports)",
                                         c->port, c->interface);
      return TRUE;
    }
  if (c->carried == WF_APD_CARRIED_YES)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "carried-reports=yes: %s%s",
                   local->message,
                   g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)
                   ? " (needs CAP_NET_RAW)" : "");
      return FALSE;
    }
  d->carried_note = g_strdup_printf ("off%s: %s",
                                     g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)
                                     ? " (needs CAP_NET_RAW)" : "", local->message);
  g_message ("carried reports: %s; only reports addressed to this host are read", d->carried_note);
  return TRUE;
}

WfApdDaemon *
wf_apd_daemon_new (WfApdConfig *config, GBytes *key, GError **error)
{
  g_autoptr(WfApdDaemon) d = g_new0 (WfApdDaemon, 1);

  d->config = config;
  d->key = key ? g_bytes_ref (key) : NULL;
  d->sta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  d->once = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
  d->exit_code = 0;

  /* The status file is for every user (wlanfairctl ap): its directory
   * too, before the state file's code would make it 0700. */
  if (!wf_apd_outputs_check (config, TRUE, error))
    return NULL;
  d->state = wf_apd_state_open (config->state_path, error);
  if (!d->state)
    return NULL;
  /* A crashed run's limits go first: nothing of it may outlive it. */
  if (!wf_apd_state_is_empty (d->state))
    {
      g_autoptr(GError) local = NULL;

      g_message ("%s records changes of an earlier run: restoring them", config->state_path);
      if (!wf_apd_restore_all (d->state, &local))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "could not restore what an earlier run changed: %s", local->message);
          return NULL;
        }
    }

  d->may_act = wf_apd_config_may_act (config, d->key != NULL);
  if (g_str_equal (config->actuator, "none"))
    d->observe_reason = g_strdup ("actuator=none");
  else if (!d->may_act)
    d->observe_reason = g_strdup ("no key: set key= (the reporters' HMAC key) to control, "
                                  "or insecure-unsigned=yes");

  d->controller = wf_apd_controller_new (config->controller, &config->control, error);
  if (!d->controller)
    return NULL;
  d->stations = wf_apd_stations_new (config);
  d->source = wf_apd_station_source_new (config, NULL, NULL, error);
  if (!d->source)
    return NULL;
  if (!g_str_equal (config->actuator, "none"))
    {
      d->actuator = wf_actuator_new (config->actuator, config->interface, d->state, error);
      if (!d->actuator)
        return NULL;
      d->actuator->options = wf_apd_config_actuator_options (config);
      if (!wf_actuator_probe (d->actuator, error))
        return NULL;
    }
  /* With a key unsigned reports are refused; without one they are taken
   * (observing, or insecure-unsigned). */
  d->receiver = wf_apd_receiver_new (config->bind, config->port, d->key, on_report, d, error);
  if (!d->receiver || !carried_open (d, error))
    return NULL;

  d->outputs = wf_apd_outputs_new (config);
  d->mode = d->may_act ? WF_APD_MODE_FAIL_OPEN : WF_APD_MODE_OBSERVE;
  d->mode_reason = g_strdup (d->may_act ? "waiting for a first trusted report" : d->observe_reason);
  return g_steal_pointer (&d);
}

void
wf_apd_daemon_free (WfApdDaemon *d)
{
  if (!d)
    return;
  g_clear_pointer (&d->carried, wf_apd_carried_free);
  g_clear_pointer (&d->receiver, wf_apd_receiver_free);
  g_clear_pointer (&d->actuator, wf_actuator_free);
  g_clear_pointer (&d->source, wf_apd_station_source_free);
  g_clear_pointer (&d->stations, wf_apd_stations_free);
  g_clear_pointer (&d->controller, wf_apd_controller_free);
  g_clear_pointer (&d->state, wf_apd_state_free);
  g_clear_pointer (&d->key, g_bytes_unref);
  g_clear_pointer (&d->sta, g_hash_table_unref);
  g_clear_pointer (&d->loop, g_main_loop_unref);
  g_clear_pointer (&d->once, wf_ratelimit_free);
  g_free (d->observe_reason);
  g_free (d->carried_note);
  g_free (d->mode_reason);
  g_clear_pointer (&d->outputs, wf_apd_outputs_free);
  g_free (d);
}

static void
fatal (WfApdDaemon *d, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
fatal (WfApdDaemon *d, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_critical ("%s", msg);
  d->exit_code = 1;
  g_main_loop_quit (d->loop);
}

/* Every limit lifted, what was there before put back. */
static gboolean
lift_all (WfApdDaemon *d, GError **error)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, d->sta);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      StaState *s = value;
      memset (&s->applied.setting, 0, sizeof s->applied.setting);
    }
  if (!d->actuator || !d->actuator->started)
    return TRUE;
  return wf_actuator_stop (d->actuator, error);
}

static void
set_mode (WfApdDaemon *d, WfApdMode mode, const char *reason)
{
  if (mode == d->mode && g_strcmp0 (reason, d->mode_reason) == 0)
    return;
  if (mode != d->mode)
    {
      if (mode == WF_APD_MODE_FAIL_OPEN)
        g_warning ("fail-open: %s; every limit lifted", reason);
      else
        g_message ("%s: %s", wf_apd_mode_name (mode), reason);
    }
  d->mode = mode;
  g_free (d->mode_reason);
  d->mode_reason = g_strdup (reason);
}

/* The mode this round: may it act, and are its inputs alive? */
static void
decide_mode (WfApdDaemon *d, gint64 now)
{
  const WfApdConfig *c = d->config;
  gint64 timeout = (gint64) (c->feed_timeout_s * G_USEC_PER_SEC);
  g_autofree char *why = NULL;

  if (!d->may_act)
    {
      set_mode (d, WF_APD_MODE_OBSERVE, d->observe_reason);
      return;
    }
  if (now - d->last_dump_ok > timeout)
    why = g_strdup_printf ("the station table has not been read for %.0f s", c->feed_timeout_s);
  else if (d->last_report == 0)
    why = g_strdup ("waiting for a first trusted report");
  else if (now - d->last_report > timeout)
    why = g_strdup_printf ("no trusted report for %.0f s", c->feed_timeout_s);
  if (why)
    {
      WfApdMode was = d->mode;
      g_autoptr(GError) error = NULL;

      set_mode (d, WF_APD_MODE_FAIL_OPEN, why);
      if (was == WF_APD_MODE_CONTROL && !lift_all (d, &error))
        fatal (d, "lifting the limits: %s", error->message);
      return;
    }
  if (d->mode != WF_APD_MODE_CONTROL)
    {
      g_autoptr(GError) error = NULL;

      /* A fresh start: what the controller held before the gap is stale. */
      wf_apd_controller_reset (d->controller);
      /* A start may load a BPF program (rwnd after a fail-open: seconds
       * on a slow machine): the watchdog's whole period for it. */
      wf_daemon_watchdog_ping (d->life);
      if (!d->actuator->started && !wf_actuator_start (d->actuator, &error))
        {
          fatal (d, "%s", error->message);
          return;
        }
    }
  set_mode (d, WF_APD_MODE_CONTROL,
            d->key ? "reports signed with the configured key"
                   : "insecure-unsigned=yes: unsigned reports steer control");
}

static gboolean
setting_changed (WfActuatorKnob knob, const WfActuatorSetting *a, const WfActuatorSetting *b)
{
  if (a->limited != b->limited)
    return TRUE;
  if (!a->limited)
    return FALSE;
  switch (knob)
    {
    case WF_ACTUATOR_KNOB_RATE:
      return fabs (a->rate_down_bps - b->rate_down_bps) > RATE_DEADBAND * MAX (a->rate_down_bps, b->rate_down_bps) ||
             fabs (a->rate_up_bps - b->rate_up_bps) > RATE_DEADBAND * MAX (a->rate_up_bps, b->rate_up_bps) ||
             (a->rate_down_bps == 0) != (b->rate_down_bps == 0) ||
             (a->rate_up_bps == 0) != (b->rate_up_bps == 0);
    case WF_ACTUATOR_KNOB_DELAY:
      return (a->delay_us > b->delay_us ? a->delay_us - b->delay_us : b->delay_us - a->delay_us)
             >= DELAY_DEADBAND_US || (a->delay_us == 0) != (b->delay_us == 0);
    case WF_ACTUATOR_KNOB_WEIGHT:
    default:
      return a->weight != b->weight;
    }
}

static char *
describe_setting (WfActuatorKnob knob, const WfActuatorSetting *s)
{
  if (!s->limited)
    return g_strdup ("not limited");
  switch (knob)
    {
    case WF_ACTUATOR_KNOB_RATE:
      if (s->rate_down_bps > 0 && s->rate_up_bps > 0)
        return g_strdup_printf ("limited to %.1f Mbit/s down, %.1f up",
                                s->rate_down_bps / 1e6, s->rate_up_bps / 1e6);
      return g_strdup_printf ("limited to %.1f Mbit/s %s",
                              (s->rate_down_bps > 0 ? s->rate_down_bps : s->rate_up_bps) / 1e6,
                              s->rate_down_bps > 0 ? "down" : "up");
    case WF_ACTUATOR_KNOB_DELAY:
      return g_strdup_printf ("delayed by %.1f ms", s->delay_us / 1e3);
    case WF_ACTUATOR_KNOB_WEIGHT:
    default:
      return g_strdup_printf ("airtime weight %u", s->weight);
    }
}

/* How much a setting limits, in the knob's unit, to tell a move. */
static double
setting_size (WfActuatorKnob knob, const WfActuatorSetting *s)
{
  switch (knob)
    {
    case WF_ACTUATOR_KNOB_RATE:
      return s->rate_down_bps + s->rate_up_bps;
    case WF_ACTUATOR_KNOB_DELAY:
      return s->delay_us;
    case WF_ACTUATOR_KNOB_WEIGHT:
    default:
      return s->weight;
    }
}

/* One journal line when a station becomes limited or free, when a free
 * one's reason changes, or when a limit moves by LOG_MOVE. A held
 * station's reason alone ("above its share", "held at its share") flips
 * every round as its goodput crosses its share: logged, that was a line
 * per station per second (20 a second in a 20-station cell). */
static void
log_decision (WfApdDaemon *d, const WfApdStation *s, const WfApdDecision *dec, StaState *st)
{
  const char *why = dec->why ? dec->why : "";
  double size = setting_size (d->config->control.knob, &dec->setting);
  g_autofree char *what = NULL;

  if (st->logged_why && st->logged_limited == dec->setting.limited &&
      (dec->setting.limited
         ? fabs (size - st->logged_size) <= LOG_MOVE * MAX (size, st->logged_size)
         : g_str_equal (st->logged_why, why)))
    return;
  st->logged_why = why;
  st->logged_limited = dec->setting.limited;
  st->logged_size = size;
  what = describe_setting (d->config->control.knob, &dec->setting);
  g_message ("%s%sstation %s%s%s%s: %s%s: %s (share %.1f Mbit/s, goodput %.1f)",
             d->mode == WF_APD_MODE_CONTROL ? "" : wf_apd_mode_name (d->mode),
             d->mode == WF_APD_MODE_CONTROL ? "" : ": ",
             s->mac_str, s->hostname[0] ? " (" : "", s->hostname, s->hostname[0] ? ")" : "",
             d->mode != WF_APD_MODE_CONTROL && dec->setting.limited ? "would be " : "", what, why,
             dec->share_bps / 1e6, wf_apd_station_bps (s, d->config->control.directions) / 1e6);
}

static void
apply (WfApdDaemon *d, const WfApdStation *s, const WfApdDecision *dec, StaState *st)
{
  g_autoptr(GError) error = NULL;
  WfActuatorKnob knob = d->config->control.knob;

  st->applied.why = dec->why;
  if (d->mode != WF_APD_MODE_CONTROL ||
      !setting_changed (knob, &dec->setting, &st->applied.setting))
    return;
  if (!wf_actuator_set (d->actuator, s, &dec->setting, &error))
    {
      if (wf_ratelimit_check (d->once, s->mac_str, NULL))
        g_warning ("station %s: %s", s->mac_str, error->message);
      return;
    }
  if (wf_ratelimit_clear (d->once, s->mac_str, NULL))
    g_message ("station %s: the actuator works again", s->mac_str);
  st->applied.setting = dec->setting;
}

static void
forget_left (WfApdDaemon *d, GPtrArray *left)
{
  for (guint i = 0; i < left->len; i++)
    {
      gsize n;
      const guint8 *mac = g_bytes_get_data (left->pdata[i], &n);
      char m[WF_MAC_STR_LEN];
      g_autoptr(GError) error = NULL;

      wf_mac_format (mac, m);
      wf_apd_controller_forget (d->controller, mac);
      if (d->actuator && d->actuator->started && !wf_actuator_forget (d->actuator, mac, &error))
        g_warning ("station %s left: %s", m, error->message);
      g_hash_table_remove (d->sta, m);
      wf_ratelimit_clear (d->once, m, NULL);
    }
}

static void
round_run (WfApdDaemon *d)
{
  const WfApdConfig *c = d->config;
  gint64 now = g_get_monotonic_time ();
  double dt = d->last_round ? (now - d->last_round) / 1e6 : c->control.period_s;
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (WfApdApEntry));
  g_autoptr(GArray) neighs = g_array_new (FALSE, FALSE, sizeof (WfNeigh));
  g_autoptr(GArray) snap = g_array_new (FALSE, TRUE, sizeof (WfApdStation));
  g_autoptr(GPtrArray) left = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GError) error = NULL;
  g_autofree WfApdDecision *dec = NULL;
  g_autofree WfApdApplied *applied = NULL;
  g_autofree WfApdCounters *counters = NULL;
  guint64 rejected[WF_REPORT_REJECT_N] = { 0 };
  WfApdRound round = { 0 };
  WfApdView view;

  d->last_round = now;
  d->rounds++;
  if (wf_apd_station_source_dump (d->source, entries, neighs, &error))
    {
      wf_ratelimit_clear (d->once, "dump", "the station table can be read again");
      d->last_dump_ok = now;
      wf_apd_stations_update_ap (d->stations, (WfApdApEntry *) entries->data, entries->len,
                                 now, left);
      wf_apd_stations_update_neigh (d->stations, neighs);
      forget_left (d, left);
      wf_cell_programs_after_dump (d->cell, d->stations);
    }
  else
    {
      if (wf_ratelimit_check (d->once, "dump", NULL))
        g_warning ("reading the stations: %s", error->message);
    }

  wf_apd_stations_snapshot (d->stations, now, snap);
  for (guint i = 0; i < snap->len; i++)
    {
      const WfApdStation *s = &g_array_index (snap, WfApdStation, i);
      if (s->reporting && s->trusted)
        d->last_report = now;
    }
  /* The mode first: entering control resets the controller. */
  decide_mode (d, now);
  dec = g_new0 (WfApdDecision, MAX (snap->len, 1));
  wf_apd_controller_step (d->controller, (WfApdStation *) snap->data, snap->len, now, dec, &round);

  applied = g_new0 (WfApdApplied, MAX (snap->len, 1));
  counters = g_new0 (WfApdCounters, MAX (snap->len, 1));
  for (guint i = 0; i < snap->len; i++)
    {
      const WfApdStation *s = &g_array_index (snap, WfApdStation, i);
      StaState *st = sta_state (d, s->mac_str);

      st->counters.goodput_down_bytes += s->down_bps * dt / 8;
      st->counters.goodput_up_bytes += s->up_bps * dt / 8;
      if (d->exit_code == 0)
        apply (d, s, &dec[i], st);
      log_decision (d, s, &dec[i], st);
      applied[i] = st->applied;
      counters[i] = st->counters;
    }
  /* An actuator that follows more than the settings (rwnd: the
   * connections) catches up every round. */
  if (d->exit_code == 0 && d->mode == WF_APD_MODE_CONTROL && d->actuator)
    {
      g_autoptr(GError) rerr = NULL;

      if (!wf_actuator_refresh (d->actuator, &rerr))
        g_warning ("%s", rerr->message);
    }

  for (int r = 1; r < WF_REPORT_REJECT_N; r++)
    rejected[r] = wf_apd_receiver_rejected (d->receiver, r);
  view = (WfApdView) {
    .config = c, .time_us = g_get_real_time (),
    .started_us = d->started_us, .mode = d->mode, .mode_reason = d->mode_reason,
    .rounds = d->rounds, .round = &round, .n_stations = wf_apd_stations_count (d->stations),
    .stations = (WfApdStation *) snap->data, .decisions = dec, .applied = applied,
    .counters = counters, .n_snap = snap->len,
    .accepted = wf_apd_receiver_accepted (d->receiver), .rejected = rejected,
    .accepted_by = { wf_apd_receiver_accepted_by (d->receiver, WF_APD_PATH_ADDRESSED),
                     wf_apd_receiver_accepted_by (d->receiver, WF_APD_PATH_CARRIED) },
    .carried_on = d->carried != NULL, .carried_note = d->carried_note,
    .carried_local = d->carried ? wf_apd_carried_local (d->carried) : 0,
    .carried_fragments = d->carried ? wf_apd_carried_dropped (d->carried, WF_APD_FRAME_FRAGMENT) : 0,
    .carried_malformed = d->carried ? wf_apd_carried_dropped (d->carried, WF_APD_FRAME_MALFORMED) : 0,
    .untrusted = wf_apd_stations_untrusted (d->stations), .unmatched = d->unmatched,
    .actuator_status = d->actuator ? wf_actuator_status (d->actuator) : NULL,
  };
  wf_cell_programs_view (d->cell, &view);
  wf_apd_outputs_write (d->outputs, &view);
  g_clear_pointer (&view.actuator_status, json_node_unref);
  wf_daemon_watchdog_ping (d->life);
}

static gboolean
on_timer (gpointer user_data)
{
  round_run (user_data);
  return G_SOURCE_CONTINUE;
}

int
wf_apd_daemon_run (WfApdDaemon *d)
{
  const WfApdConfig *c = d->config;
  g_autoptr(GError) error = NULL;
  g_autofree char *src = wf_apd_station_source_describe (d->source);

  d->loop = g_main_loop_new (NULL, FALSE);
  /* Cell-wide and independent of the reports: on from start to stop, in
   * every mode. */
  if (!(d->cell = wf_cell_programs_start (c, d->may_act, d->state, &error)))
    {
      g_critical ("%s", error->message);
      return 1;
    }
  d->started_us = g_get_real_time ();
  d->started_mono = g_get_monotonic_time ();
  d->last_dump_ok = d->started_mono;
  d->life = wf_daemon_new (G_LOG_DOMAIN, d->loop, "stopping");
  d->timer = g_timeout_add ((guint) lround (c->control.period_s * 1000), on_timer, d);

  g_message ("started on %s (%s): controller %s, actuator %s, objective %s, "
             "reports on %s, carried %s; %s: %s", c->interface, src, c->controller, c->actuator,
             c->control.objective == WF_APD_OBJECTIVE_AIRTIME ? "equal airtime" : "equal throughput",
             wf_apd_receiver_bound (d->receiver), d->carried ? "on" : "off",
             wf_apd_mode_name (d->mode), d->mode_reason);
  if (!d->key && c->insecure_unsigned && d->may_act)
    g_warning ("insecure-unsigned=yes: anyone who can send UDP to port %u steers "
               "this cell's throughput; configure key= instead", c->port);
  wf_daemon_ready (d->life, "running");
  round_run (d);
  if (d->exit_code == 0)
    g_main_loop_run (d->loop);

  wf_daemon_stopping (d->life);
  g_source_remove (d->timer);
  if (!lift_all (d, &error))
    {
      g_critical ("lifting the limits: %s (wlanfair-apd --restore retries)", error->message);
      d->exit_code = 1;
      g_clear_error (&error);
    }
  /* After the actuator: a clsact qdisc the actuator kept may be theirs. */
  if (!wf_cell_programs_stop (g_steal_pointer (&d->cell), &error))
    {
      g_critical ("%s (wlanfair-apd --restore retries)", error->message);
      d->exit_code = 1;
      g_clear_error (&error);
    }
  wf_apd_outputs_remove (c);
  /* Only now: its handlers keep a second stop signal from killing the
   * daemon while it lifts the limits and detaches its programs. */
  g_clear_pointer (&d->life, wf_daemon_free);
  return d->exit_code;
}
