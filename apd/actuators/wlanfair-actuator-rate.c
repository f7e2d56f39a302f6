/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A rate cap per station and direction with HTB (wlanfair-apd-tc.c):
 * downloads on the AP interface's egress, uploads on an IFB the station's
 * frames are redirected to as they arrive. The AP cannot queue what a
 * station transmits; it queues it after reception instead, so that the
 * station's TCP sees that queue and its drops, and slows down. */
#include "config.h"

#include "wlanfair-actuator.h"
#include "wlanfair-apd-tc.h"
#include "wlanfair-error.h"

typedef struct {
  WfApdTc *tc;
} Rate;

static gboolean
rate_probe (WfActuator *a, GError **error)
{
  return wf_apd_tc_check (a->ifname, error);
}

static gboolean
rate_start (WfActuator *a, GError **error)
{
  Rate *r = a->priv;
  g_autofree char *group = wf_actuator_group (a->ops->name, a->ifname);

  r->tc = wf_apd_tc_start (a->ifname, a->state, group, WF_APD_TC_LEAF_PFIFO, TRUE, error);
  return r->tc != NULL;
}

/* 0 stays 0 (no cap); anything else is at least the floor. */
static double
floor_bps (double bps)
{
  return bps > 0 && bps < WF_ACTUATOR_RATE_FLOOR_BPS ? WF_ACTUATOR_RATE_FLOOR_BPS : bps;
}

static gboolean
rate_set (WfActuator *a, const WfApdStation *sta, const WfActuatorSetting *s, GError **error)
{
  Rate *r = a->priv;
  double down = s->limited ? floor_bps (s->rate_down_bps) : 0;
  double up = s->limited ? floor_bps (s->rate_up_bps) : 0;
  gboolean changed = FALSE;

  if (!(s->rate_down_bps >= 0) || !(s->rate_up_bps >= 0))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "rate on %s: %s: rates must be >= 0",
                   a->ifname, sta->mac_str);
      return FALSE;
    }
  if (!wf_apd_tc_set (r->tc, sta->mac, down, up, 0, &changed, error))
    return FALSE;
  /* Said once per change, not every round. */
  if (changed && s->limited && (down != s->rate_down_bps || up != s->rate_up_bps))
    g_message ("rate on %s: %s: %.0f/%.0f bit/s (down/up) asked, %.0f bit/s is the floor",
               a->ifname, sta->mac_str, s->rate_down_bps, s->rate_up_bps,
               WF_ACTUATOR_RATE_FLOOR_BPS);
  return TRUE;
}

static gboolean
rate_forget (WfActuator *a, const guint8 mac[6], GError **error)
{
  Rate *r = a->priv;

  return wf_apd_tc_forget (r->tc, mac, error);
}

static gboolean
rate_restore (const char *ifname, WfApdState *state, GError **error)
{
  g_autofree char *group = wf_actuator_group ("rate", ifname);

  return wf_apd_tc_restore (ifname, state, group, error);
}

static gboolean
rate_stop (WfActuator *a, GError **error)
{
  Rate *r = a->priv;

  /* The same path as after a crash: what stop leaves is what restore
   * leaves. */
  g_clear_pointer (&r->tc, wf_apd_tc_free);
  return rate_restore (a->ifname, a->state, error);
}

static void
rate_finalize (WfActuator *a)
{
  Rate *r = a->priv;

  g_clear_pointer (&r->tc, wf_apd_tc_free);
}

const WfActuatorOps wf_actuator_rate = {
  .name = "rate",
  .summary = "HTB rate cap per station: egress for downloads, an IFB for uploads",
  .knob = WF_ACTUATOR_KNOB_RATE,
  .directions = WF_APD_DIR_BOTH,
  .priv_size = sizeof (Rate),
  .probe = rate_probe,
  .start = rate_start,
  .set = rate_set,
  .forget = rate_forget,
  .stop = rate_stop,
  .restore = rate_restore,
  .finalize = rate_finalize,
};
