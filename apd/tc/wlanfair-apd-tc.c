/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rate and delay actuators' tc tree and its restore (see the header
 * for the tree), built from the rtnetlink pieces of wlanfair-tc-rtnl.c. */
#include "config.h"

#include "wlanfair-apd-tc.h"
#include "wlanfair-apd-station.h"
#include "wlanfair-tc-rtnl.h"

#include <errno.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/netem.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-error.h"

#define DEFAULT_MINOR      1u
#define FIRST_SLOT         2u
#define LEAF_MAJOR(slot)   (0x1000u + (slot))
#define EGRESS_PRIO        1u     /* on our own root: nobody else's */
#define INGRESS_PARENT     TC_H_MAKE (TC_H_CLSACT, TC_H_MIN_INGRESS)  /* ingress or clsact */
#define NETEM_LIMIT        1000u
#define LEAF_QUEUE_S       0.1    /* a pfifo leaf holds ~100 ms at the class rate */

/* Keys of the record (in the actuator's group). */
#define K_IFINDEX       "ifindex"
#define K_EGRESS        "egress-handle"          /* our root, "fa1:" */
#define K_BEFORE        "egress-before"          /* "default" | "<kind> <handle>" */
#define K_BEFORE_OPTS   "egress-before-options"  /* base64 of TCA_OPTIONS' payload */
#define K_BEFORE_STAB   "egress-before-stab"     /* base64 of TCA_STAB's, if any */
#define K_IFB           "ifb"
#define K_INGRESS_PRIO  "ingress-prio"
#define K_INGRESS_QDISC "ingress-qdisc"          /* "ours" | "kept" */
#define K_STA           "sta-"                   /* + MAC: "slot=N down=.. up=.. delay=.." */

/* ---- whether the egress is ours to take ------------------------------ */

/* "a"/"an" before a qdisc's name read letter by letter (an htb, a prio). */
static const char *
article (const char *kind)
{
  return strchr ("aefhilmnorsx", g_ascii_tolower (kind[0])) && kind[0] ? "an" : "a";
}

/* Qdiscs whose classes someone configured (or, prio and its kin, that are
 * nothing but bands): a tree, not ours to replace. Classless qdiscs with
 * an implicit class (tbf, netem, fq_codel's flows) are single. */
static gboolean
kind_is_tree (const char *kind)
{
  static const char *const trees[] = {
    "htb", "hfsc", "cbq", "drr", "qfq", "ets", "prio", "multiq", "mqprio", "taprio", "dsmark", NULL,
  };

  return g_strv_contains (trees, kind);
}

/* Every qdisc of ifindex, its root checked: NULL + the one-line refusal
 * when the root is someone else's tree. *root_out: the root in the array
 * (NULL when none is listed). */
static GPtrArray *
inspect_root (WfTcRtnl *rt, const char *ifname, int ifindex, WfTcObject **root_out, GError **error)
{
  g_autoptr(GPtrArray) qdiscs = wf_tc_rtnl_dump (rt, RTM_GETQDISC, ifindex, 0, ifname, error);
  WfTcObject *root;

  if (!qdiscs)
    return NULL;
  root = wf_tc_rtnl_find_parent (qdiscs, TC_H_ROOT);
  *root_out = root;
  if (root)
    {
      g_autofree char *h = wf_tc_rtnl_handle_str (root->handle);
      g_autofree char *hint = WF_TC_MAJ (root->handle) == WF_APD_TC_MAJOR
        ? g_strdup_printf (" (%s is wlanfair-apd's own handle: another of its tc actuators runs "
                           "on %s, or an instance left it without its state file; `tc qdisc "
                           "del dev %s root` removes it)", h, ifname, ifname)
        : g_strdup ("");

      /* Qdiscs below the root with handles of their own were put there by
       * someone (the kernel's defaults have handle 0), even under a default
       * mq: deleting our root would bring back the default ones alone. */
      for (guint k = 0; k < qdiscs->len; k++)
        {
          WfTcObject *q = qdiscs->pdata[k];

          if (q == root || q->parent == TC_H_INGRESS || q->handle == 0)
            continue;
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "%s has %s %s root qdisc %s with qdiscs under it set by someone else; "
                       "wlanfair-apd will not replace it%s", ifname, article (root->kind),
                       root->kind, h, hint);
          return NULL;
        }
      if (root->handle != 0 && kind_is_tree (root->kind))
        {
          g_autoptr(GPtrArray) classes = wf_tc_rtnl_dump (rt, RTM_GETTCLASS, ifindex, 0, ifname,
                                                          error);

          if (!classes)
            return NULL;
          for (guint k = 0; k < classes->len; k++)
            if (WF_TC_MAJ (((WfTcObject *) classes->pdata[k])->handle) == WF_TC_MAJ (root->handle))
              {
                g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                             "%s has %s %s root qdisc %s with classes set by someone else; "
                             "wlanfair-apd will not replace it%s", ifname, article (root->kind),
                             root->kind, h, hint);
                return NULL;
              }
        }
    }
  return g_steal_pointer (&qdiscs);
}

/* ---- the tree's pieces ------------------------------------------------- */

static double
link_bps (const char *ifname)
{
  g_autofree char *path = g_strdup_printf ("/sys/class/net/%s/speed", ifname);
  g_autofree char *text = NULL;
  gint64 mbit;

  /* Wi-Fi says -1 or nothing, a veth a nominal 10 Gbit/s it exceeds:
   * twice what the link says, and the floor. */
  if (g_file_get_contents (path, &text, NULL, NULL) &&
      (mbit = g_ascii_strtoll (text, NULL, 10)) > 0)
    return MAX (WF_APD_TC_MIN_BPS, 2 * (double) mbit * 1e6);
  return WF_APD_TC_MIN_BPS;
}

static gboolean
put_leaf (WfTcRtnl *rt, const char *dev, int ifindex, guint32 classid, guint32 slot,
          WfApdTcLeaf leaf, double bps, guint32 delay_us, GError **error)
{
  g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (q), ifindex);
  rtnl_tc_set_parent (TC_CAST (q), classid);
  rtnl_tc_set_handle (TC_CAST (q), WF_TC_HANDLE (LEAF_MAJOR (slot), 0));
  if (leaf == WF_APD_TC_LEAF_NETEM)
    {
      rtnl_tc_set_kind (TC_CAST (q), "netem");
      rtnl_netem_set_delay (q, (int) delay_us);
      rtnl_netem_set_limit (q, NETEM_LIMIT);
    }
  else
    {
      /* A short queue: the station's TCP must see drops, not seconds of
       * buffer, when its cap is low. */
      double pkts = bps / 8 * LEAF_QUEUE_S / WF_TC_ETH_FRAME;

      rtnl_tc_set_kind (TC_CAST (q), "pfifo");
      rtnl_qdisc_fifo_set_limit (q, (int) CLAMP (pkts, 10, 1000));
    }
  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_qdisc_add (rt->sk, q, NLM_F_CREATE | NLM_F_REPLACE)) < 0)
    return wf_tc_rtnl_fail (rt, err, error, "%s: adding the %s leaf %x: under %x:%x", dev,
                            leaf == WF_APD_TC_LEAF_NETEM ? "netem" : "pfifo", LEAF_MAJOR (slot),
                            WF_TC_MAJ (classid), TC_H_MIN (classid));
  return TRUE;
}

/* ---- the actuators' tree ---------------------------------------------- */

typedef struct {
  guint32 slot;        /* class minor and u32 node id */
  double  down_bps;    /* as applied (0: none) */
  double  up_bps;
  guint32 delay_us;
} Station;

struct _WfApdTc {
  WfTcRtnl          rt;
  char        ifname[IF_NAMESIZE];
  int         ifindex;
  WfApdState *state;        /* not owned */
  char       *group;
  WfApdTcLeaf leaf;
  guint32     major;        /* our root on ifname */
  double      default_bps;  /* the class that does not limit */
  gboolean    uplink;
  char        ifb[IF_NAMESIZE];
  int         ifb_index;
  guint16     ingress_prio;
  GHashTable *stations;     /* "aa:bb:cc:dd:ee:ff" -> Station */
  guint8      used[0x1000]; /* slots taken */
};

void
wf_apd_tc_free (WfApdTc *tc)
{
  if (!tc)
    return;
  wf_tc_rtnl_close (&tc->rt);
  if (tc->stations)
    g_hash_table_unref (tc->stations);
  g_free (tc->group);
  g_free (tc);
}

/* Memory only; record_save writes (before the change it describes). */
static void
record (WfApdTc *tc, const char *key, const char *value)
{
  if (value)
    wf_apd_state_set (tc->state, tc->group, key, value);
  else
    wf_apd_state_remove (tc->state, tc->group, key);
}

static gboolean
record_save (WfApdTc *tc, GError **error)
{
  return wf_apd_state_save (tc->state, error);
}

static int
ifindex_of (const char *ifname, GError **error)
{
  int ifindex = (int) if_nametoindex (ifname);

  if (ifindex <= 0)
    g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: no such interface", ifname);
  return ifindex;
}

gboolean
wf_apd_tc_check (const char *ifname, GError **error)
{
  WfTcRtnl rt;
  g_autoptr(GPtrArray) qdiscs = NULL;
  WfTcObject *root = NULL;
  int ifindex = ifindex_of (ifname, error);

  if (ifindex <= 0 || !wf_tc_rtnl_open (&rt, error))
    return FALSE;
  qdiscs = inspect_root (&rt, ifname, ifindex, &root, error);
  wf_tc_rtnl_close (&rt);
  return qdiscs != NULL;
}

gboolean
wf_apd_tc_probe_netem (const char *ifname, GError **error)
{
  WfTcRtnl rt;
  g_autoptr(GError) local = NULL;
  g_autoptr(RtnlQdisc) q = NULL;
  char name[IF_NAMESIZE];
  int ifindex = ifindex_of (ifname, error);
  int probe_index, err;

  if (ifindex <= 0 || !wf_tc_rtnl_open (&rt, error))
    return FALSE;
  /* A throw-away device named after the interface: one a crash left
   * behind is the first thing removed. */
  g_snprintf (name, sizeof name, "wfnp%d", ifindex);
  if (!wf_tc_rtnl_ifb_del (&rt, name, &local) || !wf_tc_rtnl_ifb_add (&rt, name, FALSE, &local) ||
      (probe_index = (int) if_nametoindex (name)) <= 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "delay: cannot check for netem on a throw-away IFB device: %s",
                   local ? local->message : "it vanished");
      wf_tc_rtnl_ifb_del (&rt, name, NULL);
      wf_tc_rtnl_close (&rt);
      return FALSE;
    }
  q = rtnl_qdisc_alloc ();
  rtnl_tc_set_ifindex (TC_CAST (q), probe_index);
  rtnl_tc_set_parent (TC_CAST (q), TC_H_ROOT);
  rtnl_tc_set_kind (TC_CAST (q), "netem");
  rtnl_netem_set_delay (q, 1000);
  wf_tc_rtnl_reset (&rt);
  err = rtnl_qdisc_add (rt.sk, q, NLM_F_CREATE | NLM_F_EXCL);
  if (err < 0)
    {
      if (wf_tc_rtnl_errno (&rt, err) == ENOENT)
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                     "delay: this kernel has no netem (sch_netem); the delay actuator needs "
                     "CONFIG_NET_SCH_NETEM (a module in Debian's and Ubuntu's kernels; "
                     "`modprobe sch_netem`)");
      else
        wf_tc_rtnl_fail (&rt, err, error, "delay: checking for netem");
    }
  if (!wf_tc_rtnl_ifb_del (&rt, name, &local))
    g_warning ("%s", local->message);
  wf_tc_rtnl_close (&rt);
  return err >= 0;
}

static gboolean
prio_used (GPtrArray *filters, guint prio)
{
  for (guint k = 0; k < filters->len; k++)
    if ((((WfTcObject *) filters->pdata[k])->info >> 16) == prio)
      return TRUE;
  return FALSE;
}

WfApdTc *
wf_apd_tc_start (const char *ifname, WfApdState *state, const char *group, WfApdTcLeaf leaf,
                 gboolean uplink, GError **error)
{
  g_autoptr(WfApdTc) tc = g_new0 (WfApdTc, 1);
  g_autoptr(GPtrArray) qdiscs = NULL;
  g_autofree char *ours = NULL;
  WfTcObject *root = NULL;

  g_strlcpy (tc->ifname, ifname, sizeof tc->ifname);
  tc->state = state;
  tc->group = g_strdup (group);
  tc->leaf = leaf;
  tc->uplink = uplink;
  tc->stations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  tc->used[0] = tc->used[1] = 1;
  if ((tc->ifindex = ifindex_of (ifname, error)) <= 0 || !wf_tc_rtnl_open (&tc->rt, error))
    return NULL;
  if (!(qdiscs = inspect_root (&tc->rt, ifname, tc->ifindex, &root, error)))
    return NULL;
  tc->default_bps = link_bps (ifname);
  /* The IFB the stations' uplinks will be queued on: one of that name
   * without a record is not ours to take (checked before any change). */
  if (uplink)
    {
      g_snprintf (tc->ifb, sizeof tc->ifb, "wfifb%d", tc->ifindex);
      if (if_nametoindex (tc->ifb) > 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "%s exists already (left by an earlier wlanfair-apd whose state file "
                       "is gone?); `ip link del %s` removes it", tc->ifb, tc->ifb);
          return NULL;
        }
    }

  /* 1. What the egress had, then our root. A saved root that happens to
   * use our handle gets the next one. */
  tc->major = root && WF_TC_MAJ (root->handle) == WF_APD_TC_MAJOR ? WF_APD_TC_MAJOR + 1
                                                                  : WF_APD_TC_MAJOR;
  ours = wf_tc_rtnl_handle_str (WF_TC_HANDLE (tc->major, 0));
  {
    g_autofree char *ifindex = g_strdup_printf ("%d", tc->ifindex);

    record (tc, K_IFINDEX, ifindex);
  }
  record (tc, K_EGRESS, ours);
  if (!root || root->handle == 0)
    record (tc, K_BEFORE, "default");
  else
    {
      g_autofree char *h = wf_tc_rtnl_handle_str (root->handle);
      g_autofree char *before = g_strdup_printf ("%s %s%s", root->kind, h,
                                                 root->options && root->options_nested ? " nested" : "");
      g_autofree char *opts = root->options
        ? g_base64_encode (g_bytes_get_data (root->options, NULL), g_bytes_get_size (root->options))
        : NULL;
      g_autofree char *stab = root->stab
        ? g_base64_encode (g_bytes_get_data (root->stab, NULL), g_bytes_get_size (root->stab))
        : NULL;

      record (tc, K_BEFORE, before);
      record (tc, K_BEFORE_OPTS, opts);
      record (tc, K_BEFORE_STAB, stab);
    }
  if (!record_save (tc, error) ||
      !wf_tc_rtnl_put_htb_root (&tc->rt, ifname, tc->ifindex, tc->major, DEFAULT_MINOR, error) ||
      !wf_tc_rtnl_put_class (&tc->rt, ifname, tc->ifindex, tc->major, DEFAULT_MINOR,
                             tc->default_bps, error))
    return NULL;

  if (uplink)
    {
      g_autoptr(GPtrArray) filters = NULL;
      WfTcObject *ingress = wf_tc_rtnl_find_parent (qdiscs, TC_H_INGRESS);
      g_autofree char *prio = NULL;

      /* 2. The IFB, with the same tree. */
      record (tc, K_IFB, tc->ifb);
      if (!record_save (tc, error) || !wf_tc_rtnl_ifb_add (&tc->rt, tc->ifb, TRUE, error))
        return NULL;
      if ((tc->ifb_index = (int) if_nametoindex (tc->ifb)) <= 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: vanished after creation", tc->ifb);
          return NULL;
        }
      if (!wf_tc_rtnl_put_htb_root (&tc->rt, tc->ifb, tc->ifb_index, tc->major, DEFAULT_MINOR,
                                    error) ||
          !wf_tc_rtnl_put_class (&tc->rt, tc->ifb, tc->ifb_index, tc->major, DEFAULT_MINOR,
                                 tc->default_bps, error))
        return NULL;

      /* 3. The ingress: an existing ingress/clsact qdisc is kept, our
       * filters get a priority nobody uses there. */
      tc->ingress_prio = WF_APD_TC_INGRESS_PRIO;
      if (ingress)
        {
          if (!(filters = wf_tc_rtnl_dump (&tc->rt, RTM_GETTFILTER, tc->ifindex, INGRESS_PARENT,
                                           ifname, error)))
            return NULL;
          while (prio_used (filters, tc->ingress_prio))
            tc->ingress_prio++;
        }
      prio = g_strdup_printf ("%u", tc->ingress_prio);
      record (tc, K_INGRESS_PRIO, prio);
      record (tc, K_INGRESS_QDISC, ingress ? "kept" : "ours");
      if (!record_save (tc, error))
        return NULL;
      if (!ingress)
        {
          g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
          int err;

          rtnl_tc_set_ifindex (TC_CAST (q), tc->ifindex);
          rtnl_tc_set_parent (TC_CAST (q), TC_H_INGRESS);
          rtnl_tc_set_handle (TC_CAST (q), WF_TC_HANDLE (0xffff, 0));
          rtnl_tc_set_kind (TC_CAST (q), "ingress");
          wf_tc_rtnl_reset (&tc->rt);
          if ((err = rtnl_qdisc_add (tc->rt.sk, q, NLM_F_CREATE | NLM_F_EXCL)) < 0)
            {
              wf_tc_rtnl_fail (&tc->rt, err, error, "%s: adding an ingress qdisc", ifname);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&tc);
}

static char *
station_str (const Station *s)
{
  return g_strdup_printf ("slot=%u down=%.0f up=%.0f delay=%u", s->slot, s->down_bps, s->up_bps,
                          s->delay_us);
}

static gboolean
drop_down (WfApdTc *tc, guint32 slot, GError **error)
{
  return wf_tc_rtnl_del_filters (&tc->rt, tc->ifname, tc->ifindex, WF_TC_HANDLE (tc->major, 0),
                                 EGRESS_PRIO, slot, error) &&
         wf_tc_rtnl_del_class (&tc->rt, tc->ifname, tc->ifindex, WF_TC_HANDLE (tc->major, slot),
                               error);
}

static gboolean
drop_up (WfApdTc *tc, guint32 slot, GError **error)
{
  /* The redirect first: nothing reaches the IFB for a class no more. */
  return wf_tc_rtnl_del_filters (&tc->rt, tc->ifname, tc->ifindex, INGRESS_PARENT, tc->ingress_prio,
                                 slot, error) &&
         wf_tc_rtnl_del_filters (&tc->rt, tc->ifb, tc->ifb_index, WF_TC_HANDLE (tc->major, 0),
                                 EGRESS_PRIO, slot, error) &&
         wf_tc_rtnl_del_class (&tc->rt, tc->ifb, tc->ifb_index, WF_TC_HANDLE (tc->major, slot),
                               error);
}

gboolean
wf_apd_tc_set (WfApdTc *tc, const guint8 mac[6], double down_bps, double up_bps,
               guint32 delay_us, gboolean *changed, GError **error)
{
  char mac_str[WF_MAC_STR_LEN];
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;
  Station *st, want = { 0 };
  gboolean had_down, had_up, want_down, want_up;

  if (changed)
    *changed = FALSE;
  wf_mac_format (mac, mac_str);
  if (tc->leaf != WF_APD_TC_LEAF_NETEM)
    delay_us = 0;
  if (!tc->uplink)
    up_bps = 0;
  want_down = down_bps > 0 || delay_us > 0;
  want_up = up_bps > 0;
  if (!want_down && !want_up)
    {
      if (changed)
        *changed = g_hash_table_contains (tc->stations, mac_str);
      return wf_apd_tc_forget (tc, mac, error);
    }
  st = g_hash_table_lookup (tc->stations, mac_str);
  if (st && st->down_bps == down_bps && st->up_bps == up_bps && st->delay_us == delay_us)
    return TRUE;
  if (changed)
    *changed = TRUE;
  if (!st)
    {
      guint32 slot = FIRST_SLOT;

      while (slot < FIRST_SLOT + WF_APD_TC_MAX_STATIONS && tc->used[slot])
        slot++;
      if (slot >= FIRST_SLOT + WF_APD_TC_MAX_STATIONS)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_OVER_CAPACITY,
                       "%s: more than %u stations held back", tc->ifname, WF_APD_TC_MAX_STATIONS);
          return FALSE;
        }
      st = g_new0 (Station, 1);
      st->slot = slot;
      tc->used[slot] = 1;
      g_hash_table_insert (tc->stations, g_strdup (mac_str), st);
    }
  had_down = st->down_bps > 0 || st->delay_us > 0;
  had_up = st->up_bps > 0;

  /* Recorded first; restore takes the whole tree away in any case, the
   * line says what this station was given. */
  want = (Station) { st->slot, down_bps, up_bps, delay_us };
  key = g_strconcat (K_STA, mac_str, NULL);
  value = station_str (&want);
  record (tc, key, value);
  if (!record_save (tc, error))
    return FALSE;

  if (want_down)
    {
      guint32 classid = WF_TC_HANDLE (tc->major, st->slot);
      double rate = down_bps > 0 ? down_bps : tc->default_bps;

      if (!wf_tc_rtnl_put_class (&tc->rt, tc->ifname, tc->ifindex, tc->major, st->slot, rate,
                                 error) ||
          !put_leaf (&tc->rt, tc->ifname, tc->ifindex, classid, st->slot, tc->leaf, rate,
                     delay_us, error) ||
          (!had_down &&
           !wf_tc_rtnl_put_filter (&tc->rt, tc->ifname, tc->ifindex, WF_TC_HANDLE (tc->major, 0),
                                   EGRESS_PRIO, st->slot, mac, -14, classid, 0, error)))
        return FALSE;
    }
  else if (had_down && !drop_down (tc, st->slot, error))
    return FALSE;
  st->down_bps = down_bps;
  st->delay_us = delay_us;

  if (want_up)
    {
      guint32 classid = WF_TC_HANDLE (tc->major, st->slot);

      /* Class and leaf on the IFB, its classifier there, and last the
       * redirect from the AP interface's ingress. */
      if (!wf_tc_rtnl_put_class (&tc->rt, tc->ifb, tc->ifb_index, tc->major, st->slot, up_bps,
                                 error) ||
          !put_leaf (&tc->rt, tc->ifb, tc->ifb_index, classid, st->slot, WF_APD_TC_LEAF_PFIFO,
                     up_bps, 0, error) ||
          (!had_up &&
           (!wf_tc_rtnl_put_filter (&tc->rt, tc->ifb, tc->ifb_index, WF_TC_HANDLE (tc->major, 0),
                                    EGRESS_PRIO, st->slot, mac, -8, classid, 0, error) ||
            !wf_tc_rtnl_put_filter (&tc->rt, tc->ifname, tc->ifindex, INGRESS_PARENT,
                                    tc->ingress_prio, st->slot, mac, -8, 0, tc->ifb_index,
                                    error))))
        return FALSE;
    }
  else if (had_up && !drop_up (tc, st->slot, error))
    return FALSE;
  st->up_bps = up_bps;
  return TRUE;
}

gboolean
wf_apd_tc_forget (WfApdTc *tc, const guint8 mac[6], GError **error)
{
  char mac_str[WF_MAC_STR_LEN];
  g_autofree char *key = NULL;
  Station *st;

  wf_mac_format (mac, mac_str);
  st = g_hash_table_lookup (tc->stations, mac_str);
  key = g_strconcat (K_STA, mac_str, NULL);
  if (!st)
    {
      record (tc, key, NULL);
      return record_save (tc, error);
    }
  /* A half-applied set left some of these: remove whatever exists. */
  if (!drop_down (tc, st->slot, error) || (tc->uplink && !drop_up (tc, st->slot, error)))
    return FALSE;
  tc->used[st->slot] = 0;
  g_hash_table_remove (tc->stations, mac_str);
  record (tc, key, NULL);
  return record_save (tc, error);
}

static gboolean
parse_handle (const char *text, guint32 *out)
{
  unsigned int maj = 0, min = 0;

  if (!text || sscanf (text, "%x:%x", &maj, &min) < 1 || maj > 0xffff || min > 0xffff)
    return FALSE;
  *out = WF_TC_HANDLE (maj, min);
  return TRUE;
}

/* Keeps the first error, logs the others. */
static void
keep_first (GError **first, GError *e)
{
  if (!e)
    return;
  if (*first)
    {
      g_warning ("%s", e->message);
      g_error_free (e);
    }
  else
    *first = e;
}

static gboolean
restore_egress (WfTcRtnl *rt, const char *ifname, int ifindex, WfApdState *st, const char *group,
                GError **error)
{
  g_autofree char *ours_s = wf_apd_state_get (st, group, K_EGRESS);
  g_autofree char *before = wf_apd_state_get (st, group, K_BEFORE);
  g_autofree char *opts_b64 = wf_apd_state_get (st, group, K_BEFORE_OPTS);
  g_autofree char *stab_b64 = wf_apd_state_get (st, group, K_BEFORE_STAB);
  g_autoptr(GPtrArray) qdiscs = NULL;
  g_auto(GStrv) words = NULL;
  g_autoptr(GBytes) opts = NULL;
  g_autoptr(GBytes) stab = NULL;
  guint32 ours, saved_handle;
  WfTcObject *root;

  if (!ours_s)
    return TRUE;
  if (!parse_handle (ours_s, &ours))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: [%s] %s=%s is not a handle",
                   wf_apd_state_path (st), group, K_EGRESS, ours_s);
      return FALSE;
    }
  if (!(qdiscs = wf_tc_rtnl_dump (rt, RTM_GETQDISC, ifindex, 0, ifname, error)))
    return FALSE;
  root = wf_tc_rtnl_find_parent (qdiscs, TC_H_ROOT);
  if (root && g_str_equal (root->kind, "htb") && WF_TC_MAJ (root->handle) == WF_TC_MAJ (ours))
    {
      /* Its classes, leaves and filters go with it; the kernel puts its
       * default back. */
      if (!wf_tc_rtnl_del_qdisc (rt, ifname, ifindex, TC_H_ROOT, root->handle, error))
        return FALSE;
      root = NULL;
    }
  if (!before || g_str_equal (before, "default"))
    return TRUE;

  words = g_strsplit (before, " ", -1);
  if (g_strv_length (words) < 2 || !parse_handle (words[1], &saved_handle))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: [%s] %s=%s is not '<kind> <handle>'",
                   wf_apd_state_path (st), group, K_BEFORE, before);
      return FALSE;
    }
  if (root && root->handle != 0)
    {
      if (root->handle != saved_handle || !g_str_equal (root->kind, words[0]))
        g_message ("%s: its root qdisc is %s %x: now, set by someone else since: "
                   "left as is (the %s %s it had is not put back)", ifname, root->kind,
                   WF_TC_MAJ (root->handle), words[0], words[1]);
      return TRUE;   /* the saved one is there (we never replaced it), or another */
    }
  if (opts_b64)
    {
      gsize n;
      guchar *raw = g_base64_decode (opts_b64, &n);

      opts = g_bytes_new_take (raw, n);
    }
  if (stab_b64)
    {
      gsize n;
      guchar *raw = g_base64_decode (stab_b64, &n);

      stab = g_bytes_new_take (raw, n);
    }
  return wf_tc_rtnl_add_saved_root (rt, ifname, ifindex, words[0], saved_handle, opts,
                                    g_strv_length (words) > 2 && g_str_equal (words[2], "nested"),
                                    stab, error);
}

gboolean
wf_apd_tc_restore (const char *ifname, WfApdState *st, const char *group, GError **error)
{
  g_autofree char *rec_ifindex = wf_apd_state_get (st, group, K_IFINDEX);
  g_autofree char *prio_s = wf_apd_state_get (st, group, K_INGRESS_PRIO);
  g_autofree char *ingress_q = wf_apd_state_get (st, group, K_INGRESS_QDISC);
  g_autofree char *ifb = wf_apd_state_get (st, group, K_IFB);
  g_autofree char *egress = wf_apd_state_get (st, group, K_EGRESS);
  GError *first = NULL;
  GError *e = NULL;
  int ifindex = (int) if_nametoindex (ifname);
  gboolean same;
  WfTcRtnl rt;

  if (!wf_tc_rtnl_open (&rt, error))
    return FALSE;
  /* A re-created interface has other qdiscs: ours went with the old one. */
  same = ifindex > 0 && (!rec_ifindex || g_ascii_strtoll (rec_ifindex, NULL, 10) == ifindex);
  if (!same && (prio_s || egress))
    g_message ("%s is gone or was re-created: the qdiscs set on it went with it", ifname);

  /* Uplink first: the redirect, then the ingress qdisc if it is ours and
   * holds nobody's filters, then the IFB it redirected to. */
  if (same && prio_s)
    {
      guint16 prio = (guint16) g_ascii_strtoull (prio_s, NULL, 10);

      if (wf_tc_rtnl_del_filters (&rt, ifname, ifindex, INGRESS_PARENT, prio, 0, &e) &&
          g_strcmp0 (ingress_q, "ours") == 0)
        {
          g_autoptr(GPtrArray) left = wf_tc_rtnl_dump (&rt, RTM_GETTFILTER, ifindex, INGRESS_PARENT,
                                                       ifname, NULL);

          if (left && left->len == 0)
            wf_tc_rtnl_del_qdisc (&rt, ifname, ifindex, TC_H_INGRESS, WF_TC_HANDLE (0xffff, 0), &e);
          else if (left)
            g_message ("%s: someone added filters to the ingress qdisc wlanfair-apd created: "
                       "left in place", ifname);
        }
      keep_first (&first, g_steal_pointer (&e));
    }
  if (ifb)
    {
      wf_tc_rtnl_ifb_del (&rt, ifb, &e);
      keep_first (&first, g_steal_pointer (&e));
    }
  if (same)
    {
      restore_egress (&rt, ifname, ifindex, st, group, &e);
      keep_first (&first, g_steal_pointer (&e));
    }
  wf_tc_rtnl_close (&rt);
  if (first)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}
