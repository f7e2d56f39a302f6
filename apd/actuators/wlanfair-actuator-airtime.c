/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-station airtime weights (nl80211 SET_STATION with
 * NL80211_ATTR_AIRTIME_WEIGHT; `iw dev AP station set MAC airtime_weight
 * W`). mac80211's airtime scheduler shares the AP's own transmit time by
 * these weights: it acts on downloads only, and only where the driver
 * sets NL80211_EXT_FEATURE_AIRTIME_FAIRNESS (mac80211 drivers with
 * wake_tx_queue: ath9k, ath10k, mt76; not FullMAC drivers such as a
 * Raspberry Pi's brcmfmac, nor mac80211_hwsim). Each station's weight
 * before the first change is recorded and put back. The SET_STATION
 * writer lives here until a second module needs nl80211 writes. */
#include "config.h"

#include <errno.h>
#include <linux/nl80211.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"

#define STA_KEY "sta-"
/* In Airtime.ours: a station whose weight something else sets. */
#define FOREIGN G_MAXUINT

typedef struct {
  struct nl_sock *sk;
  int             family;
} Genl;

typedef struct {
  Genl        genl;
  GHashTable *ours;   /* mac_str -> the weight we set last (GUINT_TO_POINTER) */
} Airtime;

/* One request's end: its ACK, the end of a dump, or an error. */
typedef struct {
  gboolean done;
  int      err;   /* errno, 0: none */
} Run;

static int
run_err_cb (struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
  Run *r = arg;

  r->err = -e->error;
  r->done = TRUE;
  return NL_STOP;
}

static int
run_end_cb (struct nl_msg *msg, void *arg)
{
  ((Run *) arg)->done = TRUE;
  return NL_STOP;
}

static void
genl_close (Genl *g)
{
  if (g->sk)
    nl_socket_free (g->sk);
  g->sk = NULL;
}

static gboolean
genl_open (Genl *g, GError **error)
{
  memset (g, 0, sizeof *g);
  if (!(g->sk = nl_socket_alloc ()) || genl_connect (g->sk) < 0)
    {
      genl_close (g);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime: no generic netlink socket");
      return FALSE;
    }
  if ((g->family = genl_ctrl_resolve (g->sk, NL80211_GENL_NAME)) < 0)
    {
      genl_close (g);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "airtime: nl80211 not available (no cfg80211 in this kernel, or no Wi-Fi "
                   "driver loaded): airtime weights need a mac80211 driver with airtime fairness");
      return FALSE;
    }
  return TRUE;
}

/* Sends msg (freed) and reads until its end, each reply to valid_cb.
 * Returns 0 or the kernel's errno. */
static int
genl_run (Genl *g, struct nl_msg *msg, nl_recvmsg_msg_cb_t valid_cb, void *arg)
{
  struct nl_cb *cb = nl_cb_alloc (NL_CB_DEFAULT);
  Run r = { FALSE, 0 };
  int err;

  if (!msg || !cb)
    {
      nlmsg_free (msg);
      if (cb)
        nl_cb_put (cb);
      return ENOMEM;
    }
  nl_cb_err (cb, NL_CB_CUSTOM, run_err_cb, &r);
  nl_cb_set (cb, NL_CB_ACK, NL_CB_CUSTOM, run_end_cb, &r);
  nl_cb_set (cb, NL_CB_FINISH, NL_CB_CUSTOM, run_end_cb, &r);
  if (valid_cb)
    nl_cb_set (cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, arg);
  err = nl_send_auto (g->sk, msg);
  nlmsg_free (msg);
  while (err >= 0 && !r.done)
    err = nl_recvmsgs (g->sk, cb);
  nl_cb_put (cb);
  if (r.err)
    return r.err;
  return err < 0 ? EIO : 0;
}

static struct nl_msg *
genl_msg (Genl *g, guint8 cmd, int flags, int ifindex)
{
  struct nl_msg *msg = nlmsg_alloc ();

  if (!msg)
    return NULL;
  if (!genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, g->family, 0, flags | NLM_F_ACK, cmd, 0) ||
      (ifindex > 0 && nla_put_u32 (msg, NL80211_ATTR_IFINDEX, (guint32) ifindex) < 0))
    {
      nlmsg_free (msg);
      return NULL;
    }
  return msg;
}

static int
wiphy_cb (struct nl_msg *msg, void *arg)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  gint64 *wiphy = arg;

  if (nla_parse (tb, NL80211_ATTR_MAX, genlmsg_attrdata (nlmsg_data (nlmsg_hdr (msg)), 0),
                 genlmsg_attrlen (nlmsg_data (nlmsg_hdr (msg)), 0), NULL) == 0 &&
      tb[NL80211_ATTR_WIPHY] && nla_len (tb[NL80211_ATTR_WIPHY]) >= 4)
    *wiphy = nla_get_u32 (tb[NL80211_ATTR_WIPHY]);
  return NL_OK;
}

typedef struct {
  guint8 bits[64];   /* NL80211_ATTR_EXT_FEATURES, ORed over a split dump */
} ExtFeatures;

static int
features_cb (struct nl_msg *msg, void *arg)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  ExtFeatures *f = arg;

  if (nla_parse (tb, NL80211_ATTR_MAX, genlmsg_attrdata (nlmsg_data (nlmsg_hdr (msg)), 0),
                 genlmsg_attrlen (nlmsg_data (nlmsg_hdr (msg)), 0), NULL) == 0 &&
      tb[NL80211_ATTR_EXT_FEATURES])
    {
      const guint8 *b = nla_data (tb[NL80211_ATTR_EXT_FEATURES]);
      int n = MIN (nla_len (tb[NL80211_ATTR_EXT_FEATURES]), (int) sizeof f->bits);

      for (int k = 0; k < n; k++)
        f->bits[k] |= b[k];
    }
  return NL_OK;
}

static gboolean
airtime_probe (WfActuator *a, GError **error)
{
  Airtime *at = a->priv;
  ExtFeatures f = { { 0 } };
  struct nl_msg *msg;
  gint64 wiphy = -1;
  int err;
  const guint ft = NL80211_EXT_FEATURE_AIRTIME_FAIRNESS;

  if (!at->genl.sk && !genl_open (&at->genl, error))
    return FALSE;
  if (a->ifindex <= 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime: %s: no such interface", a->ifname);
      return FALSE;
    }
  err = genl_run (&at->genl, genl_msg (&at->genl, NL80211_CMD_GET_INTERFACE, 0, a->ifindex),
                  wiphy_cb, &wiphy);
  if (err || wiphy < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "airtime: %s is not a Wi-Fi interface nl80211 knows (%s)", a->ifname,
                   err ? g_strerror (err) : "no wiphy");
      return FALSE;
    }
  /* Extended features come only in the split form of the wiphy dump. */
  msg = genl_msg (&at->genl, NL80211_CMD_GET_WIPHY, NLM_F_DUMP, 0);
  if (msg && (nla_put_u32 (msg, NL80211_ATTR_WIPHY, (guint32) wiphy) < 0 ||
              nla_put_flag (msg, NL80211_ATTR_SPLIT_WIPHY_DUMP) < 0))
    g_clear_pointer (&msg, nlmsg_free);
  if ((err = genl_run (&at->genl, msg, features_cb, &f)) != 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "airtime: %s: reading phy%" G_GINT64_FORMAT
                   "'s features: %s", a->ifname, wiphy, g_strerror (err));
      return FALSE;
    }
  if (!(f.bits[ft / 8] & (1u << (ft % 8))))
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

static int
weight_cb (struct nl_msg *msg, void *arg)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  struct nlattr *sinfo[NL80211_STA_INFO_MAX + 1];
  guint *weight = arg;

  if (nla_parse (tb, NL80211_ATTR_MAX, genlmsg_attrdata (nlmsg_data (nlmsg_hdr (msg)), 0),
                 genlmsg_attrlen (nlmsg_data (nlmsg_hdr (msg)), 0), NULL) == 0 &&
      tb[NL80211_ATTR_STA_INFO] &&
      nla_parse_nested (sinfo, NL80211_STA_INFO_MAX, tb[NL80211_ATTR_STA_INFO], NULL) == 0 &&
      sinfo[NL80211_STA_INFO_AIRTIME_WEIGHT] && nla_len (sinfo[NL80211_STA_INFO_AIRTIME_WEIGHT]) >= 2)
    *weight = nla_get_u16 (sinfo[NL80211_STA_INFO_AIRTIME_WEIGHT]);
  return NL_OK;
}

/* The station's weight now (default when the driver does not say);
 * ENOENT when it is gone. */
static int
get_weight (Genl *g, int ifindex, const guint8 mac[6], guint *weight)
{
  struct nl_msg *msg = genl_msg (g, NL80211_CMD_GET_STATION, 0, ifindex);

  *weight = WF_ACTUATOR_WEIGHT_DEFAULT;
  if (msg && nla_put (msg, NL80211_ATTR_MAC, 6, mac) < 0)
    g_clear_pointer (&msg, nlmsg_free);
  return genl_run (g, msg, weight_cb, weight);
}

static int
set_weight (Genl *g, int ifindex, const guint8 mac[6], guint weight)
{
  struct nl_msg *msg = genl_msg (g, NL80211_CMD_SET_STATION, 0, ifindex);

  if (msg && (nla_put (msg, NL80211_ATTR_MAC, 6, mac) < 0 ||
              nla_put_u16 (msg, NL80211_ATTR_AIRTIME_WEIGHT, (guint16) weight) < 0))
    g_clear_pointer (&msg, nlmsg_free);
  return genl_run (g, msg, NULL, NULL);
}

static gboolean
station_gone (int err)
{
  return err == ENOENT || err == ENODEV || err == ENOLINK;
}

/* Puts back the weight recorded for mac (key), then drops the key. */
static gboolean
put_back (Genl *g, const char *ifname, int ifindex, WfApdState *state, const char *group,
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
  err = set_weight (g, ifindex, mac, (guint) weight);
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
      return put_back (&at->genl, a->ifname, a->ifindex, a->state, group, key, error);
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
      err = get_weight (&at->genl, a->ifindex, sta->mac, &weight);
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
      err = get_weight (&at->genl, a->ifindex, sta->mac, &weight);
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
  err = set_weight (&at->genl, a->ifindex, sta->mac, s->weight);
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
  return put_back (&at->genl, a->ifname, a->ifindex, a->state, group, key, error);
}

static gboolean
restore_with (Genl *g, const char *ifname, WfApdState *state, GError **error)
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
          !put_back (g, ifname, ifindex, state, group, keys[k], &e))
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

  return restore_with (&at->genl, a->ifname, a->state, error);
}

static gboolean
airtime_restore (const char *ifname, WfApdState *state, GError **error)
{
  g_autoptr(GError) local = NULL;
  Genl g;
  gboolean ok;

  /* Without nl80211 no station has a weight left to put back. */
  if (!genl_open (&g, &local))
    {
      g_message ("%s; nothing to restore", local->message);
      return TRUE;
    }
  ok = restore_with (&g, ifname, state, error);
  genl_close (&g);
  return ok;
}

static void
airtime_finalize (WfActuator *a)
{
  Airtime *at = a->priv;

  genl_close (&at->genl);
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
