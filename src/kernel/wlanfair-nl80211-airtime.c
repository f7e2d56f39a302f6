/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl80211's airtime weights: the actuator that sets them (apd) keeps the
 * policy and the record, as hostapd's airtime_policy.c does beside its
 * driver, and never builds an nl80211 message itself. */
#include "wlanfair-nl80211-airtime.h"

#include <errno.h>
#include <linux/nl80211.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

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

/* Sends msg (freed; NULL: ENOMEM) and reads until its end, each reply
 * to valid_cb. Returns 0 or the kernel's errno. */
static int
run (WfNl80211Socket *s, struct nl_msg *msg, nl_recvmsg_msg_cb_t valid_cb, void *arg)
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
  err = nl_send_auto (s->sk, msg);
  nlmsg_free (msg);
  while (err >= 0 && !r.done)
    err = nl_recvmsgs (s->sk, cb);
  nl_cb_put (cb);
  if (r.err)
    return r.err;
  return err < 0 ? EIO : 0;
}

static struct nl_msg *
request (WfNl80211Socket *s, guint8 cmd, int flags, int ifindex)
{
  struct nl_msg *msg = nlmsg_alloc ();

  if (!msg)
    return NULL;
  if (!genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, s->family, 0, flags | NLM_F_ACK, cmd, 0) ||
      (ifindex > 0 && nla_put_u32 (msg, NL80211_ATTR_IFINDEX, (guint32) ifindex) < 0))
    {
      nlmsg_free (msg);
      return NULL;
    }
  return msg;
}

static gboolean
parse (struct nl_msg *msg, struct nlattr **tb)
{
  struct genlmsghdr *gnlh = nlmsg_data (nlmsg_hdr (msg));

  return nla_parse (tb, NL80211_ATTR_MAX, genlmsg_attrdata (gnlh, 0), genlmsg_attrlen (gnlh, 0),
                    NULL) == 0;
}

static int
wiphy_cb (struct nl_msg *msg, void *arg)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  gint64 *wiphy = arg;

  if (parse (msg, tb) && tb[NL80211_ATTR_WIPHY] && nla_len (tb[NL80211_ATTR_WIPHY]) >= 4)
    *wiphy = nla_get_u32 (tb[NL80211_ATTR_WIPHY]);
  return NL_OK;
}

static gboolean
has_airtime_fairness (const guint8 *bits)
{
  const guint ft = NL80211_EXT_FEATURE_AIRTIME_FAIRNESS;

  return (bits[ft / 8] & (1u << (ft % 8))) != 0;
}

gboolean
wf_nl80211_airtime_parse_features (struct nlattr **tb, guint8 bits[WF_NL80211_EXT_FEATURE_BYTES])
{
  if (tb[NL80211_ATTR_EXT_FEATURES])
    {
      const guint8 *b = nla_data (tb[NL80211_ATTR_EXT_FEATURES]);
      int n = MIN (nla_len (tb[NL80211_ATTR_EXT_FEATURES]), WF_NL80211_EXT_FEATURE_BYTES);

      for (int k = 0; k < n; k++)
        bits[k] |= b[k];
    }
  return has_airtime_fairness (bits);
}

static int
features_cb (struct nl_msg *msg, void *arg)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];

  if (parse (msg, tb))
    wf_nl80211_airtime_parse_features (tb, arg);
  return NL_OK;
}

int
wf_nl80211_airtime_supported (WfNl80211Socket *s, int ifindex, gint64 *wiphy,
                              gboolean *supported)
{
  guint8 bits[WF_NL80211_EXT_FEATURE_BYTES] = { 0 };
  struct nl_msg *msg;
  int err;

  *wiphy = -1;
  *supported = FALSE;
  err = run (s, request (s, NL80211_CMD_GET_INTERFACE, 0, ifindex), wiphy_cb, wiphy);
  if (err || *wiphy < 0)
    {
      *wiphy = -1;
      return err;
    }
  /* Extended features come only in the split form of the wiphy dump. */
  msg = request (s, NL80211_CMD_GET_WIPHY, NLM_F_DUMP, 0);
  if (msg && (nla_put_u32 (msg, NL80211_ATTR_WIPHY, (guint32) *wiphy) < 0 ||
              nla_put_flag (msg, NL80211_ATTR_SPLIT_WIPHY_DUMP) < 0))
    g_clear_pointer (&msg, nlmsg_free);
  if ((err = run (s, msg, features_cb, bits)) != 0)
    return err;
  *supported = has_airtime_fairness (bits);
  return 0;
}

gboolean
wf_nl80211_airtime_parse_weight (struct nlattr **tb, guint *weight)
{
  struct nlattr *sinfo[NL80211_STA_INFO_MAX + 1];

  if (!tb[NL80211_ATTR_STA_INFO] ||
      nla_parse_nested (sinfo, NL80211_STA_INFO_MAX, tb[NL80211_ATTR_STA_INFO], NULL) != 0 ||
      !sinfo[NL80211_STA_INFO_AIRTIME_WEIGHT] ||
      nla_len (sinfo[NL80211_STA_INFO_AIRTIME_WEIGHT]) < 2)
    return FALSE;
  *weight = nla_get_u16 (sinfo[NL80211_STA_INFO_AIRTIME_WEIGHT]);
  return TRUE;
}

static int
weight_cb (struct nl_msg *msg, void *arg)
{
  struct nlattr *tb[NL80211_ATTR_MAX + 1];

  if (parse (msg, tb))
    wf_nl80211_airtime_parse_weight (tb, arg);
  return NL_OK;
}

int
wf_nl80211_airtime_get_weight (WfNl80211Socket *s, int ifindex, const guint8 mac[6],
                               guint *weight)
{
  struct nl_msg *msg = request (s, NL80211_CMD_GET_STATION, 0, ifindex);

  *weight = WF_NL80211_AIRTIME_WEIGHT_DEFAULT;
  if (msg && nla_put (msg, NL80211_ATTR_MAC, 6, mac) < 0)
    g_clear_pointer (&msg, nlmsg_free);
  return run (s, msg, weight_cb, weight);
}

int
wf_nl80211_airtime_set_weight (WfNl80211Socket *s, int ifindex, const guint8 mac[6],
                               guint16 weight)
{
  struct nl_msg *msg = request (s, NL80211_CMD_SET_STATION, 0, ifindex);

  if (msg && (nla_put (msg, NL80211_ATTR_MAC, 6, mac) < 0 ||
              nla_put_u16 (msg, NL80211_ATTR_AIRTIME_WEIGHT, weight) < 0))
    g_clear_pointer (&msg, nlmsg_free);
  return run (s, msg, NULL, NULL);
}
