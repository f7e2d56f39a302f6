/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-station airtime weights (nl80211 SET_STATION with
 * NL80211_ATTR_AIRTIME_WEIGHT; `iw dev AP station set MAC airtime_weight
 * W`). mac80211's airtime scheduler shares the AP's own transmit time by
 * these weights: it acts on downloads only, and only where the driver
 * sets NL80211_EXT_FEATURE_AIRTIME_FAIRNESS (mac80211 drivers with
 * wake_tx_queue: ath9k, ath10k, mt76; not FullMAC drivers such as a
 * Raspberry Pi's brcmfmac, nor mac80211_hwsim). Each station's weight
 * before the first change is recorded and put back. The policy is here;
 * nl80211 is src/kernel's (wlanfair-nl80211-airtime.c). */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"
#include "wlanfair-nl80211-airtime.h"

#define STA_KEY "sta-"
/* In Airtime.ours: a station whose weight something else sets. */
#define FOREIGN G_MAXUINT

typedef struct {
  WfNl80211Socket nl;
  GHashTable *ours;   /* mac_str -> the weight we set last (GUINT_TO_POINTER) */
} Airtime;

/* nl80211, or why no weight can be set. */
static gboolean
nl_open (WfNl80211Socket *nl, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (wf_nl80211_socket_open (nl, &local))
    return TRUE;
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
               "airtime: %s: airtime weights need a mac80211 driver with airtime fairness",
               local->message);
  return FALSE;
}

static gboolean
airtime_probe (WfActuator *a, GError **error)
{
  Airtime *at = a->priv;
  gint64 wiphy;
  gboolean supported;
  int err;

  if (!at->nl.sk && !nl_open (&at->nl, error))
    return FALSE;
  if (a->ifindex <= 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime: %s: no such interface", a->ifname);
      return FALSE;
    }
  err = wf_nl80211_airtime_supported (&at->nl, a->ifindex, &wiphy, &supported);
  if (wiphy < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "airtime: %s is not a Wi-Fi interface nl80211 knows (%s)", a->ifname,
                   err ? g_strerror (err) : "no wiphy");
      return FALSE;
    }
  if (err)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime: %s: reading phy%" G_GINT64_FORMAT
                   "'s features: %s", a->ifname, wiphy, g_strerror (err));
      return FALSE;
    }
  if (!supported)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "airtime: the driver of %s has no airtime fairness "
                   "(NL80211_EXT_FEATURE_AIRTIME_FAIRNESS): mac80211 drivers with wake_tx_queue "
                   "such as ath9k, ath10k, mt76 have it; FullMAC drivers such as brcmfmac "
                   "(a Raspberry Pi's built-in Wi-Fi) and mac80211_hwsim do not", a->ifname);
      return FALSE;
    }
  return TRUE;
}

static gboolean
station_gone (int err)
{
  return err == ENOENT || err == ENODEV || err == ENOLINK;
}

/* Puts back the weight recorded for mac (key), then drops the key. */
static gboolean
put_back (WfNl80211Socket *nl, const char *ifname, int ifindex, WfApdState *state, const char *group,
          const char *key, GError **error)
{
  g_autofree char *before = wf_apd_state_get (state, group, key);
  guint8 mac[6];
  guint64 weight;
  int err;

  if (!before)
    return TRUE;
  if (!wf_mac_parse (key + strlen (STA_KEY), mac) ||
      !g_ascii_string_to_unsigned (before, 10, 1, 65535, &weight, NULL))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: [%s] %s=%s is not a station's weight",
                   wf_apd_state_path (state), group, key, before);
      return FALSE;
    }
  err = wf_nl80211_airtime_set_weight (nl, ifindex, mac, (guint16) weight);
  if (err && !station_gone (err))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "airtime on %s: putting back %s's weight %u: %s", ifname,
                   key + strlen (STA_KEY), (guint) weight, g_strerror (err));
      return FALSE;
    }
  wf_apd_state_remove (state, group, key);
  return wf_apd_state_save (state, error);
}

static gboolean
airtime_start (WfActuator *a, GError **error)
{
  Airtime *at = a->priv;

  /* Nothing to install: each station's weight is recorded as it is set. */
  if (!at->ours)
    at->ours = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return TRUE;
}

static gboolean
airtime_set (WfActuator *a, const WfApdStation *sta, const WfActuatorSetting *s, GError **error)
{
  Airtime *at = a->priv;
  g_autofree char *group = wf_actuator_group (a->ops->name, a->ifname);
  g_autofree char *key = g_strconcat (STA_KEY, sta->mac_str, NULL);
  g_autofree char *before = wf_apd_state_get (a->state, group, key);
  guint weight;
  int err;

  if (!s->limited)
    {
      if (GPOINTER_TO_UINT (g_hash_table_lookup (at->ours, sta->mac_str)) != FOREIGN)
        g_hash_table_remove (at->ours, sta->mac_str);
      return put_back (&at->nl, a->ifname, a->ifindex, a->state, group, key, error);
    }
  if (s->weight == 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "airtime on %s: %s: a weight is 1..65535", a->ifname, sta->mac_str);
      return FALSE;
    }
  if (!before)
    {
      g_autofree char *text = NULL;

      /* The weight it had before our first change, recorded first. */
      err = wf_nl80211_airtime_get_weight (&at->nl, a->ifindex, sta->mac, &weight);
      if (station_gone (err))
        return TRUE;
      if (err)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime on %s: reading %s: %s",
                       a->ifname, sta->mac_str, g_strerror (err));
          return FALSE;
        }
      text = g_strdup_printf ("%u", weight);
      if (!wf_actuator_record (a, key, text, error))
        return FALSE;
    }
  else if (g_hash_table_contains (at->ours, sta->mac_str))
    {
      guint set = GPOINTER_TO_UINT (g_hash_table_lookup (at->ours, sta->mac_str));

      if (set == FOREIGN)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "airtime on %s: %s: left to whatever else sets its weight",
                       a->ifname, sta->mac_str);
          return FALSE;
        }

      /* hostapd's dynamic airtime policies (airtime_mode=2, 3) rewrite
       * every station's weight on their own timer: two writers would
       * only fight. Static weights (airtime_mode=0, 1) are set once, at
       * association, and are what was recorded above. */
      err = wf_nl80211_airtime_get_weight (&at->nl, a->ifindex, sta->mac, &weight);
      if (station_gone (err))
        return TRUE;
      if (err == 0 && weight != set)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "airtime on %s: %s has weight %u, not the %u set: something else "
                       "sets airtime weights (hostapd's airtime_mode=2 or 3?); wlanfair-apd "
                       "works beside static weights only (airtime_mode=0 or 1)",
                       a->ifname, sta->mac_str, weight, set);
          g_hash_table_insert (at->ours, g_strdup (sta->mac_str), GUINT_TO_POINTER (FOREIGN));
          return FALSE;
        }
    }
  err = wf_nl80211_airtime_set_weight (&at->nl, a->ifindex, sta->mac, s->weight);
  if (err && !station_gone (err))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime on %s: %s: weight %u: %s",
                   a->ifname, sta->mac_str, s->weight, g_strerror (err));
      return FALSE;
    }
  if (!err)
    g_hash_table_insert (at->ours, g_strdup (sta->mac_str), GUINT_TO_POINTER (s->weight));
  return TRUE;
}

static gboolean
airtime_forget (WfActuator *a, const guint8 mac[6], GError **error)
{
  Airtime *at = a->priv;
  char buf[WF_MAC_STR_LEN];
  g_autofree char *group = wf_actuator_group (a->ops->name, a->ifname);
  g_autofree char *key = g_strconcat (STA_KEY, wf_mac_format (mac, buf), NULL);

  if (at->ours)
    g_hash_table_remove (at->ours, buf);
  return put_back (&at->nl, a->ifname, a->ifindex, a->state, group, key, error);
}

static gboolean
restore_with (WfNl80211Socket *nl, const char *ifname, WfApdState *state, GError **error)
{
  g_autofree char *group = wf_actuator_group ("airtime", ifname);
  g_auto(GStrv) keys = wf_apd_state_keys (state, group);
  int ifindex = (int) if_nametoindex (ifname);
  GError *first = NULL;

  if (ifindex <= 0)
    {
      g_message ("airtime: %s is gone, and its stations with it", ifname);
      return TRUE;
    }
  for (guint k = 0; keys[k]; k++)
    {
      GError *e = NULL;

      if (g_str_has_prefix (keys[k], STA_KEY) &&
          !put_back (nl, ifname, ifindex, state, group, keys[k], &e))
        {
          if (first)
            {
              g_warning ("%s", e->message);
              g_error_free (e);
            }
          else
            first = e;
        }
    }
  if (first)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}

static gboolean
airtime_stop (WfActuator *a, GError **error)
{
  Airtime *at = a->priv;

  return restore_with (&at->nl, a->ifname, a->state, error);
}

static gboolean
airtime_restore (const char *ifname, WfApdState *state, GError **error)
{
  g_autoptr(GError) local = NULL;
  WfNl80211Socket nl;
  gboolean ok;

  /* Without nl80211 no station has a weight left to put back. */
  if (!nl_open (&nl, &local))
    {
      g_message ("%s; nothing to restore", local->message);
      return TRUE;
    }
  ok = restore_with (&nl, ifname, state, error);
  wf_nl80211_socket_close (&nl);
  return ok;
}

static void
airtime_finalize (WfActuator *a)
{
  Airtime *at = a->priv;

  wf_nl80211_socket_close (&at->nl);
  g_clear_pointer (&at->ours, g_hash_table_unref);
}

const WfActuatorOps wf_actuator_airtime = {
  .name = "airtime",
  .summary = "mac80211 airtime weight per station (the AP's own transmissions)",
  .knob = WF_ACTUATOR_KNOB_WEIGHT,
  .directions = WF_APD_DIR_DOWN,
  .priv_size = sizeof (Airtime),
  .probe = airtime_probe,
  .start = airtime_start,
  .set = airtime_set,
  .forget = airtime_forget,
  .stop = airtime_stop,
  .restore = airtime_restore,
  .finalize = airtime_finalize,
};
