/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An added delay on the frames the AP sends a station (netem under an HTB
 * class that does not limit; wlanfair-apd-tc.c). For the station's
 * uploads these frames are the ACKs: a longer RTT slows a window-limited
 * sender without a drop (the paper's netem actuator). */
#include "config.h"

#include "wlanfair-actuator.h"
#include "wlanfair-apd-tc.h"
#include "wlanfair-error.h"

typedef struct {
  WfApdTc *tc;
} Delay;

static gboolean
delay_probe (WfActuator *a, GError **error)
{
  return wf_apd_tc_check (a->ifname, error) && wf_apd_tc_probe_netem (a->ifname, error);
}

static gboolean
delay_start (WfActuator *a, GError **error)
{
  Delay *d = a->priv;
  g_autofree char *group = wf_actuator_group (a->ops->name, a->ifname);

  d->tc = wf_apd_tc_start (a->ifname, a->state, group, WF_APD_TC_LEAF_NETEM, FALSE, error);
  return d->tc != NULL;
}

static gboolean
delay_set (WfActuator *a, const WfApdStation *sta, const WfActuatorSetting *s, GError **error)
{
  Delay *d = a->priv;
  guint32 us = s->limited ? MIN (s->delay_us, WF_ACTUATOR_DELAY_MAX_US) : 0;
  gboolean changed = FALSE;

  if (!wf_apd_tc_set (d->tc, sta->mac, 0, 0, us, &changed, error))
    return FALSE;
  if (changed && s->limited && us != s->delay_us)
    g_message ("delay on %s: %s: %u µs asked, %u µs is the most added", a->ifname,
               sta->mac_str, s->delay_us, WF_ACTUATOR_DELAY_MAX_US);
  return TRUE;
}

static gboolean
delay_forget (WfActuator *a, const guint8 mac[6], GError **error)
{
  Delay *d = a->priv;

  return wf_apd_tc_forget (d->tc, mac, error);
}

static gboolean
delay_restore (const char *ifname, WfApdState *state, GError **error)
{
  g_autofree char *group = wf_actuator_group ("delay", ifname);

  return wf_apd_tc_restore (ifname, state, group, error);
}

static gboolean
delay_stop (WfActuator *a, GError **error)
{
  Delay *d = a->priv;

  g_clear_pointer (&d->tc, wf_apd_tc_free);
  return delay_restore (a->ifname, a->state, error);
}

static void
delay_finalize (WfActuator *a)
{
  Delay *d = a->priv;

  g_clear_pointer (&d->tc, wf_apd_tc_free);
}

const WfActuatorOps wf_actuator_delay = {
  .name = "delay",
  .summary = "netem delay on the AP's frames to a station (the ACKs of its uploads)",
  .knob = WF_ACTUATOR_KNOB_DELAY,
  .directions = WF_APD_DIR_DOWN,
  .priv_size = sizeof (Delay),
  .probe = delay_probe,
  .start = delay_start,
  .set = delay_set,
  .forget = delay_forget,
  .stop = delay_stop,
  .restore = delay_restore,
  .finalize = delay_finalize,
};
