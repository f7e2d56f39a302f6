/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tc plumbing shared by the rate and delay actuators (see the header
 * for the tree). What it builds goes through libnl-route's objects; what
 * it must save and put back exactly (someone else's root qdisc) and what
 * it must look at (every qdisc, class and filter of the interface) goes
 * through raw rtnetlink dumps, since libnl keeps a qdisc's options only
 * in its parsed form. */
#include "config.h"

#include "wlanfair-apd-tc.h"
#include "wlanfair-apd-station.h"

#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/act/mirred.h>
#include <netlink/route/action.h>
#include <netlink/route/class.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-error.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define HANDLE(maj, min)   (((guint32) (maj) << 16) | ((guint32) (min) & 0xffffu))
#define MAJ(h)             ((guint32) (h) >> 16)
#define DEFAULT_MINOR      1u
#define FIRST_SLOT         2u
#define LEAF_MAJOR(slot)   (0x1000u + (slot))
#define EGRESS_PRIO        1u     /* on our own root: nobody else's */
#define U32_HTID           0x800u /* the root hash table of a u32 priority */
#define INGRESS_PARENT     TC_H_MAKE (TC_H_CLSACT, TC_H_MIN_INGRESS)  /* ingress or clsact */
#define NETEM_LIMIT        1000u
#define LEAF_QUEUE_S       0.1    /* a pfifo leaf holds ~100 ms at the class rate */
#define ETH_FRAME          1514u

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

typedef struct rtnl_qdisc RtnlQdisc;
typedef struct rtnl_class RtnlClass;
typedef struct rtnl_cls   RtnlCls;
typedef struct rtnl_act   RtnlAct;
typedef struct rtnl_link  RtnlLink;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtnlQdisc, rtnl_qdisc_put)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtnlClass, rtnl_class_put)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtnlCls, rtnl_cls_put)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtnlAct, rtnl_act_put)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtnlLink, rtnl_link_put)

/* ---- rtnetlink with the kernel's own words ---------------------------- */

typedef struct {
  struct nl_sock *sk;
  int             err;        /* errno of the kernel's last refusal, 0: none */
  char            msg[200];   /* its extended ack, "" without */
} Rt;

static int
rt_err_cb (struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
  Rt *rt = arg;
  const struct nlmsghdr *hdr = (const struct nlmsghdr *) (gpointer) ((char *) e - NLMSG_HDRLEN);
  gsize off = NLMSG_ALIGN (sizeof *e);

  rt->err = -e->error;
  rt->msg[0] = '\0';
  if (!(hdr->nlmsg_flags & NLM_F_CAPPED))
    off += NLMSG_ALIGN (e->msg.nlmsg_len - NLMSG_HDRLEN);
  if ((hdr->nlmsg_flags & NLM_F_ACK_TLVS) && hdr->nlmsg_len >= NLMSG_HDRLEN + off)
    {
      int rem = (int) (hdr->nlmsg_len - NLMSG_HDRLEN - off);
      struct nlattr *a;

      for (a = (struct nlattr *) (gpointer) ((char *) e + off); nla_ok (a, rem); a = nla_next (a, &rem))
        if (nla_type (a) == NLMSGERR_ATTR_MSG && nla_len (a) > 0)
          {
            gsize n = MIN ((gsize) nla_len (a), sizeof rt->msg - 1);

            memcpy (rt->msg, nla_data (a), n);
            rt->msg[n] = '\0';
            g_strchomp (rt->msg);
          }
    }
  return NL_STOP;   /* libnl returns the errno, mapped */
}

static gboolean
rt_open (Rt *rt, GError **error)
{
  int one = 1;
  int err;

  memset (rt, 0, sizeof *rt);
  rt->sk = nl_socket_alloc ();
  if (!rt->sk)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: out of memory");
      return FALSE;
    }
  if ((err = nl_connect (rt->sk, NETLINK_ROUTE)) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: %s", nl_geterror (err));
      nl_socket_free (rt->sk);
      rt->sk = NULL;
      return FALSE;
    }
  /* The kernel's explanation of a refusal ("Specified qdisc kind is
   * unknown"), without a copy of our request in front of it. */
  (void) setsockopt (nl_socket_get_fd (rt->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);
  (void) setsockopt (nl_socket_get_fd (rt->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof one);
  nl_socket_modify_err_cb (rt->sk, NL_CB_CUSTOM, rt_err_cb, rt);
  return TRUE;
}

static void
rt_close (Rt *rt)
{
  if (rt->sk)
    nl_socket_free (rt->sk);
  rt->sk = NULL;
}

static void
rt_reset (Rt *rt)
{
  rt->err = 0;
  rt->msg[0] = '\0';
}

/* The errno of a failed request: the kernel's, else libnl's guess. */
static int
rt_errno (Rt *rt, int nlerr)
{
  if (rt->err)
    return rt->err;
  return nlerr == -NLE_OBJ_NOTFOUND ? ENOENT : nlerr == -NLE_NODEV ? ENODEV : EIO;
}

G_GNUC_PRINTF (4, 5)
static gboolean
rt_fail (Rt *rt, int nlerr, GError **error, const char *fmt, ...)
{
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, fmt);
  what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (rt->err)
    g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s%s%s%s", what, g_strerror (rt->err),
                 rt->msg[0] ? " (" : "", rt->msg, rt->msg[0] ? ")" : "");
  else
    g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", what, nl_geterror (nlerr));
  return FALSE;
}

/* ---- what is there: raw dumps ----------------------------------------- */

typedef struct {
  guint32 parent, handle, info;
  char    kind[32];
  GBytes *options;   /* TCA_OPTIONS' payload, NULL without */
  gboolean options_nested;  /* ... marked NLA_F_NESTED */
  GBytes *stab;      /* TCA_STAB's */
} TcObj;

static void
tc_obj_free (gpointer p)
{
  TcObj *o = p;

  if (o->options)
    g_bytes_unref (o->options);
  if (o->stab)
    g_bytes_unref (o->stab);
  g_free (o);
}

typedef struct {
  int        ifindex;
  GPtrArray *objs;
} Dump;

static int
dump_cb (struct nl_msg *msg, void *arg)
{
  Dump *d = arg;
  struct nlmsghdr *h = nlmsg_hdr (msg);
  struct tcmsg *t;
  struct nlattr *tb[TCA_MAX + 1];
  TcObj *o;

  if (h->nlmsg_len < NLMSG_LENGTH (sizeof *t))
    return NL_SKIP;
  t = nlmsg_data (h);
  /* Qdisc dumps cover every interface of the namespace. */
  if (t->tcm_ifindex != d->ifindex || nlmsg_parse (h, sizeof *t, tb, TCA_MAX, NULL) < 0)
    return NL_SKIP;
  o = g_new0 (TcObj, 1);
  o->parent = t->tcm_parent;
  o->handle = t->tcm_handle;
  o->info = t->tcm_info;
  if (tb[TCA_KIND])
    memcpy (o->kind, nla_data (tb[TCA_KIND]), MIN ((gsize) nla_len (tb[TCA_KIND]), sizeof o->kind - 1));
  if (tb[TCA_OPTIONS])
    {
      o->options = g_bytes_new (nla_data (tb[TCA_OPTIONS]), (gsize) nla_len (tb[TCA_OPTIONS]));
      o->options_nested = (tb[TCA_OPTIONS]->nla_type & NLA_F_NESTED) != 0;
    }
  if (tb[TCA_STAB])
    o->stab = g_bytes_new (nla_data (tb[TCA_STAB]), (gsize) nla_len (tb[TCA_STAB]));
  g_ptr_array_add (d->objs, o);
  return NL_OK;
}

/* RTM_GETQDISC / GETTCLASS / GETTFILTER of ifindex (filters: of parent). */
static GPtrArray *
rt_dump (Rt *rt, int type, int ifindex, guint32 parent, const char *ifname, GError **error)
{
  struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = parent };
  Dump d = { ifindex, g_ptr_array_new_with_free_func (tc_obj_free) };
  struct nl_cb *base = nl_socket_get_cb (rt->sk);
  struct nl_cb *cb = nl_cb_clone (base);
  int err;

  nl_cb_put (base);
  if (!cb)
    {
      g_ptr_array_unref (d.objs);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: out of memory");
      return NULL;
    }
  nl_cb_set (cb, NL_CB_VALID, NL_CB_CUSTOM, dump_cb, &d);
  rt_reset (rt);
  err = nl_send_simple (rt->sk, type, NLM_F_DUMP, &t, sizeof t);
  if (err >= 0)
    err = nl_recvmsgs (rt->sk, cb);
  nl_cb_put (cb);
  if (err < 0)
    {
      g_ptr_array_unref (d.objs);
      rt_fail (rt, err, error, "%s: listing its %s", ifname,
               type == RTM_GETQDISC ? "qdiscs" : type == RTM_GETTCLASS ? "classes" : "filters");
      return NULL;
    }
  return d.objs;
}

static TcObj *
find_parent (GPtrArray *objs, guint32 parent)
{
  for (guint k = 0; k < objs->len; k++)
    if (((TcObj *) objs->pdata[k])->parent == parent)
      return objs->pdata[k];
  return NULL;
}

static char *
handle_str (guint32 h)
{
  return TC_H_MIN (h) ? g_strdup_printf ("%x:%x", MAJ (h), TC_H_MIN (h))
                      : g_strdup_printf ("%x:", MAJ (h));
}

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
inspect_root (Rt *rt, const char *ifname, int ifindex, TcObj **root_out, GError **error)
{
  g_autoptr(GPtrArray) qdiscs = rt_dump (rt, RTM_GETQDISC, ifindex, 0, ifname, error);
  TcObj *root;

  if (!qdiscs)
    return NULL;
  root = find_parent (qdiscs, TC_H_ROOT);
  *root_out = root;
  if (root)
    {
      g_autofree char *h = handle_str (root->handle);
      g_autofree char *hint = MAJ (root->handle) == WF_APD_TC_MAJOR
        ? g_strdup_printf (" (%s is wlanfair-apd's own handle: another of its tc actuators runs "
                           "on %s, or an instance left it without its state file; `tc qdisc "
                           "del dev %s root` removes it)", h, ifname, ifname)
        : g_strdup ("");

      /* Qdiscs below the root with handles of their own were put there by
       * someone (the kernel's defaults have handle 0), even under a default
       * mq: deleting our root would bring back the default ones alone. */
      for (guint k = 0; k < qdiscs->len; k++)
        {
          TcObj *q = qdiscs->pdata[k];

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
          g_autoptr(GPtrArray) classes = rt_dump (rt, RTM_GETTCLASS, ifindex, 0, ifname, error);

          if (!classes)
            return NULL;
          for (guint k = 0; k < classes->len; k++)
            if (MAJ (((TcObj *) classes->pdata[k])->handle) == MAJ (root->handle))
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

/* ---- building blocks (libnl-route) ------------------------------------ */

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
put_htb_root (Rt *rt, const char *dev, int ifindex, guint32 major, GError **error)
{
  g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (q), ifindex);
  rtnl_tc_set_parent (TC_CAST (q), TC_H_ROOT);
  rtnl_tc_set_handle (TC_CAST (q), HANDLE (major, 0));
  rtnl_tc_set_kind (TC_CAST (q), "htb");
  rtnl_htb_set_defcls (q, DEFAULT_MINOR);
  rt_reset (rt);
  /* Replaces the kernel's default or the single qdisc saved before. */
  if ((err = rtnl_qdisc_add (rt->sk, q, NLM_F_CREATE | NLM_F_REPLACE)) < 0)
    return rt_fail (rt, err, error, "%s: adding the HTB root qdisc %x:", dev, major);
  return TRUE;
}

/* rate = ceil: a class never borrows (no parent class to borrow from). */
static gboolean
put_class (Rt *rt, const char *dev, int ifindex, guint32 major, guint32 minor, double bps,
           GError **error)
{
  g_autoptr(RtnlClass) c = rtnl_class_alloc ();
  guint64 bytes_s = (guint64) (bps / 8);
  /* 2 ms of tokens: enough to keep a fast class busy between timer
   * ticks, too little to matter for a capped one's average. */
  guint32 burst = (guint32) CLAMP (bytes_s / 500, 2u * ETH_FRAME, 64u << 20);
  int err;

  rtnl_tc_set_ifindex (TC_CAST (c), ifindex);
  rtnl_tc_set_parent (TC_CAST (c), HANDLE (major, 0));
  rtnl_tc_set_handle (TC_CAST (c), HANDLE (major, minor));
  rtnl_tc_set_kind (TC_CAST (c), "htb");
  rtnl_htb_set_rate64 (c, bytes_s);
  rtnl_htb_set_ceil64 (c, bytes_s);
  rtnl_htb_set_rbuffer (c, burst);
  rtnl_htb_set_cbuffer (c, burst);
  /* Set, not derived from r2q: the kernel warns when that falls outside
   * 1000..200000 bytes. */
  rtnl_htb_set_quantum (c, (guint32) CLAMP (bytes_s / 10, ETH_FRAME, 200000u));
  rt_reset (rt);
  if ((err = rtnl_class_add (rt->sk, c, NLM_F_CREATE | NLM_F_REPLACE)) < 0)
    return rt_fail (rt, err, error, "%s: setting HTB class %x:%x to %.0f bit/s", dev, major,
                    minor, bps);
  return TRUE;
}

static gboolean
put_leaf (Rt *rt, const char *dev, int ifindex, guint32 classid, guint32 slot, WfApdTcLeaf leaf,
          double bps, guint32 delay_us, GError **error)
{
  g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (q), ifindex);
  rtnl_tc_set_parent (TC_CAST (q), classid);
  rtnl_tc_set_handle (TC_CAST (q), HANDLE (LEAF_MAJOR (slot), 0));
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
      double pkts = bps / 8 * LEAF_QUEUE_S / ETH_FRAME;

      rtnl_tc_set_kind (TC_CAST (q), "pfifo");
      rtnl_qdisc_fifo_set_limit (q, (int) CLAMP (pkts, 10, 1000));
    }
  rt_reset (rt);
  if ((err = rtnl_qdisc_add (rt->sk, q, NLM_F_CREATE | NLM_F_REPLACE)) < 0)
    return rt_fail (rt, err, error, "%s: adding the %s leaf %x: under %x:%x", dev,
                    leaf == WF_APD_TC_LEAF_NETEM ? "netem" : "pfifo", LEAF_MAJOR (slot),
                    MAJ (classid), TC_H_MIN (classid));
  return TRUE;
}

/* u32 keys on the 6 bytes of a MAC at `off` from the network header
 * (negative: the link-layer header), as 32-bit words at aligned offsets
 * like tc's `match ether`. */
static void
add_mac_keys (RtnlCls *cls, const guint8 mac[6], int off)
{
  int first = off & ~3;
  int last = (off + 5) & ~3;

  for (int word = first; word <= last; word += 4)
    {
      guint8 val[4] = { 0 }, mask[4] = { 0 };
      guint32 v, m;

      for (int k = 0; k < 6; k++)
        if (((off + k) & ~3) == word)
          {
            val[off + k - word] = mac[k];
            mask[off + k - word] = 0xff;
          }
      memcpy (&v, val, 4);   /* network order, as the kernel compares */
      memcpy (&m, mask, 4);
      rtnl_u32_add_key (cls, v, m, word, 0);
    }
}

/* A u32 filter for one station's frames at `prio` of parent: to classid,
 * or redirected to the IFB redirect_ifindex. Its handle gives the node id
 * only: on a shared ingress block the priority's hash table is not 800:. */
static gboolean
put_filter (Rt *rt, const char *dev, int ifindex, guint32 parent, guint16 prio, guint32 slot,
            const guint8 mac[6], int mac_off, guint32 classid, int redirect_ifindex,
            GError **error)
{
  g_autoptr(RtnlCls) cls = rtnl_cls_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (cls), ifindex);
  rtnl_tc_set_parent (TC_CAST (cls), parent);
  rtnl_tc_set_kind (TC_CAST (cls), "u32");
  rtnl_cls_set_prio (cls, prio);
  rtnl_cls_set_protocol (cls, ETH_P_ALL);
  rtnl_u32_set_handle (cls, 0, 0, (int) slot);
  add_mac_keys (cls, mac, mac_off);
  rtnl_u32_set_cls_terminal (cls);
  if (classid)
    rtnl_u32_set_classid (cls, classid);
  if (redirect_ifindex)
    {
      g_autoptr(RtnlAct) act = rtnl_act_alloc ();

      rtnl_tc_set_kind (TC_CAST (act), "mirred");
      rtnl_mirred_set_action (act, TCA_EGRESS_REDIR);  /* before the policy (libnl 3.5) */
      rtnl_mirred_set_policy (act, TC_ACT_STOLEN);
      rtnl_mirred_set_ifindex (act, (guint32) redirect_ifindex);
      rtnl_u32_add_action (cls, act);
    }
  rt_reset (rt);
  if ((err = rtnl_cls_add (rt->sk, cls, NLM_F_CREATE | NLM_F_EXCL)) < 0)
    return rt_fail (rt, err, error, "%s: adding a u32 filter (priority %u, node %x)", dev, prio,
                    slot);
  return TRUE;
}

static gboolean
gone (Rt *rt, int nlerr)
{
  int e = rt_errno (rt, nlerr);

  /* Already gone, or its parent is: what we wanted. */
  return e == ENOENT || e == ENODEV || e == EINVAL;
}

/* Deletes the u32 filters of `prio` under parent: every node `slot`
 * (0: the whole priority). */
static gboolean
del_filters (Rt *rt, const char *dev, int ifindex, guint32 parent, guint16 prio, guint32 slot,
             GError **error)
{
  g_autoptr(GPtrArray) filters = NULL;
  g_autoptr(GError) local = NULL;
  int err;

  if (slot == 0)
    {
      g_autoptr(RtnlCls) cls = rtnl_cls_alloc ();

      rtnl_tc_set_ifindex (TC_CAST (cls), ifindex);
      rtnl_tc_set_parent (TC_CAST (cls), parent);
      rtnl_tc_set_kind (TC_CAST (cls), "u32");
      rtnl_cls_set_prio (cls, prio);
      rtnl_cls_set_protocol (cls, ETH_P_ALL);
      rt_reset (rt);
      if ((err = rtnl_cls_delete (rt->sk, cls, 0)) < 0 && !gone (rt, err))
        return rt_fail (rt, err, error, "%s: deleting our u32 filters (priority %u)", dev, prio);
      return TRUE;
    }
  /* The node's full handle (hash table, bucket, node) from the kernel. */
  if (!(filters = rt_dump (rt, RTM_GETTFILTER, ifindex, parent, dev, &local)))
    {
      if (gone (rt, 0))   /* no parent, no filters */
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  for (guint k = 0; k < filters->len; k++)
    {
      TcObj *f = filters->pdata[k];
      g_autoptr(RtnlCls) cls = NULL;

      if ((f->info >> 16) != prio || !g_str_equal (f->kind, "u32") || TC_U32_NODE (f->handle) != slot)
        continue;
      cls = rtnl_cls_alloc ();
      rtnl_tc_set_ifindex (TC_CAST (cls), ifindex);
      rtnl_tc_set_parent (TC_CAST (cls), parent);
      rtnl_tc_set_kind (TC_CAST (cls), "u32");
      rtnl_tc_set_handle (TC_CAST (cls), f->handle);
      rtnl_cls_set_prio (cls, prio);
      rtnl_cls_set_protocol (cls, ETH_P_ALL);
      rt_reset (rt);
      if ((err = rtnl_cls_delete (rt->sk, cls, 0)) < 0 && !gone (rt, err))
        return rt_fail (rt, err, error, "%s: deleting u32 filter %x (priority %u)", dev,
                        f->handle, prio);
    }
  return TRUE;
}

static gboolean
del_class (Rt *rt, const char *dev, int ifindex, guint32 classid, GError **error)
{
  g_autoptr(RtnlClass) c = rtnl_class_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (c), ifindex);
  rtnl_tc_set_handle (TC_CAST (c), classid);
  rt_reset (rt);
  /* Its leaf qdisc goes with it. */
  if ((err = rtnl_class_delete (rt->sk, c)) < 0 && !gone (rt, err))
    return rt_fail (rt, err, error, "%s: deleting class %x:%x", dev, MAJ (classid),
                    TC_H_MIN (classid));
  return TRUE;
}

static gboolean
del_qdisc (Rt *rt, const char *dev, int ifindex, guint32 parent, guint32 handle, GError **error)
{
  g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (q), ifindex);
  rtnl_tc_set_parent (TC_CAST (q), parent);
  rtnl_tc_set_handle (TC_CAST (q), handle);
  rt_reset (rt);
  if ((err = rtnl_qdisc_delete (rt->sk, q)) < 0 && !gone (rt, err))
    return rt_fail (rt, err, error, "%s: deleting qdisc %x:", dev, MAJ (handle));
  return TRUE;
}

static gboolean
ifb_add (Rt *rt, const char *name, gboolean up, GError **error)
{
  g_autoptr(RtnlLink) l = rtnl_link_alloc ();
  int err;

  rtnl_link_set_name (l, name);
  if ((err = rtnl_link_set_type (l, "ifb")) < 0)
    return rt_fail (rt, err, error, "%s: creating the IFB device", name);
  if (up)
    rtnl_link_set_flags (l, IFF_UP);
  rt_reset (rt);
  if ((err = rtnl_link_add (rt->sk, l, NLM_F_CREATE | NLM_F_EXCL)) < 0)
    return rt_fail (rt, err, error, "%s: creating the IFB device", name);
  return TRUE;
}

/* Deletes `name` if it is an IFB device (nothing else of that name is
 * ours). */
static gboolean
ifb_del (Rt *rt, const char *name, GError **error)
{
  g_autoptr(RtnlLink) l = NULL;
  const char *type;
  int err;

  rt_reset (rt);
  if ((err = rtnl_link_get_kernel (rt->sk, 0, name, &l)) < 0)
    {
      if (gone (rt, err) || err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV)
        return TRUE;
      return rt_fail (rt, err, error, "%s: looking up the IFB device", name);
    }
  type = rtnl_link_get_type (l);
  if (g_strcmp0 (type, "ifb") != 0)
    {
      g_message ("%s is a %s device now, not our IFB: left as is", name, type ? type : "plain");
      return TRUE;
    }
  rt_reset (rt);
  if ((err = rtnl_link_delete (rt->sk, l)) < 0 && !gone (rt, err))
    return rt_fail (rt, err, error, "%s: deleting the IFB device", name);
  return TRUE;
}

/* Someone else's root qdisc, from what was saved: its kind, handle and
 * options exactly as the kernel listed them. */
static gboolean
add_saved_root (Rt *rt, const char *dev, int ifindex, const char *kind, guint32 handle,
                GBytes *opts, gboolean opts_nested, GBytes *stab, GError **error)
{
  struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = TC_H_ROOT,
                     .tcm_handle = handle };
  struct nl_msg *msg = nlmsg_alloc_simple (RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL);
  int err = -NLE_NOMEM;

  if (!msg || nlmsg_append (msg, &t, sizeof t, NLMSG_ALIGNTO) < 0 ||
      nla_put_string (msg, TCA_KIND, kind) < 0 ||
      (opts && nla_put (msg, TCA_OPTIONS | (opts_nested ? NLA_F_NESTED : 0),
                        (int) g_bytes_get_size (opts), g_bytes_get_data (opts, NULL)) < 0) ||
      (stab && nla_put (msg, TCA_STAB, (int) g_bytes_get_size (stab),
                        g_bytes_get_data (stab, NULL)) < 0))
    {
      nlmsg_free (msg);
      return rt_fail (rt, err, error, "%s: putting back its %s root qdisc", dev, kind);
    }
  rt_reset (rt);
  if ((err = nl_send_sync (rt->sk, msg)) < 0)   /* frees msg */
    return rt_fail (rt, err, error, "%s: putting back its %s root qdisc %x:", dev, kind, MAJ (handle));
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
  Rt          rt;
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
  rt_close (&tc->rt);
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
  Rt rt;
  g_autoptr(GPtrArray) qdiscs = NULL;
  TcObj *root = NULL;
  int ifindex = ifindex_of (ifname, error);

  if (ifindex <= 0 || !rt_open (&rt, error))
    return FALSE;
  qdiscs = inspect_root (&rt, ifname, ifindex, &root, error);
  rt_close (&rt);
  return qdiscs != NULL;
}

gboolean
wf_apd_tc_probe_netem (const char *ifname, GError **error)
{
  Rt rt;
  g_autoptr(GError) local = NULL;
  g_autoptr(RtnlQdisc) q = NULL;
  char name[IF_NAMESIZE];
  int ifindex = ifindex_of (ifname, error);
  int probe_index, err;

  if (ifindex <= 0 || !rt_open (&rt, error))
    return FALSE;
  /* A throw-away device named after the interface: one a crash left
   * behind is the first thing removed. */
  g_snprintf (name, sizeof name, "wfnp%d", ifindex);
  if (!ifb_del (&rt, name, &local) || !ifb_add (&rt, name, FALSE, &local) ||
      (probe_index = (int) if_nametoindex (name)) <= 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "delay: cannot check for netem on a throw-away IFB device: %s",
                   local ? local->message : "it vanished");
      ifb_del (&rt, name, NULL);
      rt_close (&rt);
      return FALSE;
    }
  q = rtnl_qdisc_alloc ();
  rtnl_tc_set_ifindex (TC_CAST (q), probe_index);
  rtnl_tc_set_parent (TC_CAST (q), TC_H_ROOT);
  rtnl_tc_set_kind (TC_CAST (q), "netem");
  rtnl_netem_set_delay (q, 1000);
  rt_reset (&rt);
  err = rtnl_qdisc_add (rt.sk, q, NLM_F_CREATE | NLM_F_EXCL);
  if (err < 0)
    {
      if (rt_errno (&rt, err) == ENOENT)
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                     "delay: this kernel has no netem (sch_netem); the delay actuator needs "
                     "CONFIG_NET_SCH_NETEM (a module in Debian's and Ubuntu's kernels; "
                     "`modprobe sch_netem`)");
      else
        rt_fail (&rt, err, error, "delay: checking for netem");
    }
  if (!ifb_del (&rt, name, &local))
    g_warning ("%s", local->message);
  rt_close (&rt);
  return err >= 0;
}

static gboolean
prio_used (GPtrArray *filters, guint prio)
{
  for (guint k = 0; k < filters->len; k++)
    if ((((TcObj *) filters->pdata[k])->info >> 16) == prio)
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
  TcObj *root = NULL;

  g_strlcpy (tc->ifname, ifname, sizeof tc->ifname);
  tc->state = state;
  tc->group = g_strdup (group);
  tc->leaf = leaf;
  tc->uplink = uplink;
  tc->stations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  tc->used[0] = tc->used[1] = 1;
  if ((tc->ifindex = ifindex_of (ifname, error)) <= 0 || !rt_open (&tc->rt, error))
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
  tc->major = root && MAJ (root->handle) == WF_APD_TC_MAJOR ? WF_APD_TC_MAJOR + 1 : WF_APD_TC_MAJOR;
  ours = handle_str (HANDLE (tc->major, 0));
  {
    g_autofree char *ifindex = g_strdup_printf ("%d", tc->ifindex);

    record (tc, K_IFINDEX, ifindex);
  }
  record (tc, K_EGRESS, ours);
  if (!root || root->handle == 0)
    record (tc, K_BEFORE, "default");
  else
    {
      g_autofree char *h = handle_str (root->handle);
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
      !put_htb_root (&tc->rt, ifname, tc->ifindex, tc->major, error) ||
      !put_class (&tc->rt, ifname, tc->ifindex, tc->major, DEFAULT_MINOR, tc->default_bps, error))
    return NULL;

  if (uplink)
    {
      g_autoptr(GPtrArray) filters = NULL;
      TcObj *ingress = find_parent (qdiscs, TC_H_INGRESS);
      g_autofree char *prio = NULL;

      /* 2. The IFB, with the same tree. */
      record (tc, K_IFB, tc->ifb);
      if (!record_save (tc, error) || !ifb_add (&tc->rt, tc->ifb, TRUE, error))
        return NULL;
      if ((tc->ifb_index = (int) if_nametoindex (tc->ifb)) <= 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: vanished after creation", tc->ifb);
          return NULL;
        }
      if (!put_htb_root (&tc->rt, tc->ifb, tc->ifb_index, tc->major, error) ||
          !put_class (&tc->rt, tc->ifb, tc->ifb_index, tc->major, DEFAULT_MINOR,
                      tc->default_bps, error))
        return NULL;

      /* 3. The ingress: an existing ingress/clsact qdisc is kept, our
       * filters get a priority nobody uses there. */
      tc->ingress_prio = WF_APD_TC_INGRESS_PRIO;
      if (ingress)
        {
          if (!(filters = rt_dump (&tc->rt, RTM_GETTFILTER, tc->ifindex, INGRESS_PARENT, ifname,
                                   error)))
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
          rtnl_tc_set_handle (TC_CAST (q), HANDLE (0xffff, 0));
          rtnl_tc_set_kind (TC_CAST (q), "ingress");
          rt_reset (&tc->rt);
          if ((err = rtnl_qdisc_add (tc->rt.sk, q, NLM_F_CREATE | NLM_F_EXCL)) < 0)
            {
              rt_fail (&tc->rt, err, error, "%s: adding an ingress qdisc", ifname);
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
  return del_filters (&tc->rt, tc->ifname, tc->ifindex, HANDLE (tc->major, 0), EGRESS_PRIO, slot,
                      error) &&
         del_class (&tc->rt, tc->ifname, tc->ifindex, HANDLE (tc->major, slot), error);
}

static gboolean
drop_up (WfApdTc *tc, guint32 slot, GError **error)
{
  /* The redirect first: nothing reaches the IFB for a class no more. */
  return del_filters (&tc->rt, tc->ifname, tc->ifindex, INGRESS_PARENT, tc->ingress_prio, slot,
                      error) &&
         del_filters (&tc->rt, tc->ifb, tc->ifb_index, HANDLE (tc->major, 0), EGRESS_PRIO, slot,
                      error) &&
         del_class (&tc->rt, tc->ifb, tc->ifb_index, HANDLE (tc->major, slot), error);
}

gboolean
wf_apd_tc_set (WfApdTc *tc, const guint8 mac[6], double down_bps, double up_bps,
               guint32 delay_us, gboolean *changed, GError **error)
{
  char mac_str[18];
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;
  Station *st, want = { 0 };
  gboolean had_down, had_up, want_down, want_up;

  if (changed)
    *changed = FALSE;
  wf_apd_format_mac (mac, mac_str);
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
      guint32 classid = HANDLE (tc->major, st->slot);
      double rate = down_bps > 0 ? down_bps : tc->default_bps;

      if (!put_class (&tc->rt, tc->ifname, tc->ifindex, tc->major, st->slot, rate, error) ||
          !put_leaf (&tc->rt, tc->ifname, tc->ifindex, classid, st->slot, tc->leaf, rate,
                     delay_us, error) ||
          (!had_down &&
           !put_filter (&tc->rt, tc->ifname, tc->ifindex, HANDLE (tc->major, 0), EGRESS_PRIO,
                        st->slot, mac, -14, classid, 0, error)))
        return FALSE;
    }
  else if (had_down && !drop_down (tc, st->slot, error))
    return FALSE;
  st->down_bps = down_bps;
  st->delay_us = delay_us;

  if (want_up)
    {
      guint32 classid = HANDLE (tc->major, st->slot);

      /* Class and leaf on the IFB, its classifier there, and last the
       * redirect from the AP interface's ingress. */
      if (!put_class (&tc->rt, tc->ifb, tc->ifb_index, tc->major, st->slot, up_bps, error) ||
          !put_leaf (&tc->rt, tc->ifb, tc->ifb_index, classid, st->slot, WF_APD_TC_LEAF_PFIFO,
                     up_bps, 0, error) ||
          (!had_up &&
           (!put_filter (&tc->rt, tc->ifb, tc->ifb_index, HANDLE (tc->major, 0), EGRESS_PRIO,
                         st->slot, mac, -8, classid, 0, error) ||
            !put_filter (&tc->rt, tc->ifname, tc->ifindex, INGRESS_PARENT, tc->ingress_prio,
                         st->slot, mac, -8, 0, tc->ifb_index, error))))
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
  char mac_str[18];
  g_autofree char *key = NULL;
  Station *st;

  wf_apd_format_mac (mac, mac_str);
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
  *out = HANDLE (maj, min);
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
restore_egress (Rt *rt, const char *ifname, int ifindex, WfApdState *st, const char *group,
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
  TcObj *root;

  if (!ours_s)
    return TRUE;
  if (!parse_handle (ours_s, &ours))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: [%s] %s=%s is not a handle",
                   wf_apd_state_path (st), group, K_EGRESS, ours_s);
      return FALSE;
    }
  if (!(qdiscs = rt_dump (rt, RTM_GETQDISC, ifindex, 0, ifname, error)))
    return FALSE;
  root = find_parent (qdiscs, TC_H_ROOT);
  if (root && g_str_equal (root->kind, "htb") && MAJ (root->handle) == MAJ (ours))
    {
      /* Its classes, leaves and filters go with it; the kernel puts its
       * default back. */
      if (!del_qdisc (rt, ifname, ifindex, TC_H_ROOT, root->handle, error))
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
                   MAJ (root->handle), words[0], words[1]);
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
  return add_saved_root (rt, ifname, ifindex, words[0], saved_handle, opts,
                         g_strv_length (words) > 2 && g_str_equal (words[2], "nested"), stab,
                         error);
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
  Rt rt;

  if (!rt_open (&rt, error))
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

      if (del_filters (&rt, ifname, ifindex, INGRESS_PARENT, prio, 0, &e) &&
          g_strcmp0 (ingress_q, "ours") == 0)
        {
          g_autoptr(GPtrArray) left = rt_dump (&rt, RTM_GETTFILTER, ifindex, INGRESS_PARENT,
                                               ifname, NULL);

          if (left && left->len == 0)
            del_qdisc (&rt, ifname, ifindex, TC_H_INGRESS, HANDLE (0xffff, 0), &e);
          else if (left)
            g_message ("%s: someone added filters to the ingress qdisc wlanfair-apd created: "
                       "left in place", ifname);
        }
      keep_first (&first, g_steal_pointer (&e));
    }
  if (ifb)
    {
      ifb_del (&rt, ifb, &e);
      keep_first (&first, g_steal_pointer (&e));
    }
  if (same)
    {
      restore_egress (&rt, ifname, ifindex, st, group, &e);
      keep_first (&first, g_steal_pointer (&e));
    }
  rt_close (&rt);
  if (first)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}
