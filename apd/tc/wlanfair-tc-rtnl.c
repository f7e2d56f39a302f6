/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rtnetlink for tc (see the header). What it builds goes through
 * libnl-route's objects; what must be saved and put back exactly
 * (someone else's root qdisc) and what must be looked at (every qdisc,
 * class and filter of an interface) goes through raw rtnetlink dumps,
 * since libnl keeps a qdisc's options only in its parsed form. */
#include "config.h"

#include "wlanfair-tc-rtnl.h"

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
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/socket.h>
#include <string.h>

#include "wlanfair-error.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* ---- rtnetlink with the kernel's own words ---------------------------- */

static int
rt_err_cb (struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
  WfTcRtnl *rt = arg;
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

gboolean
wf_tc_rtnl_open (WfTcRtnl *rt, GError **error)
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

void
wf_tc_rtnl_close (WfTcRtnl *rt)
{
  if (rt->sk)
    nl_socket_free (rt->sk);
  rt->sk = NULL;
}

void
wf_tc_rtnl_reset (WfTcRtnl *rt)
{
  rt->err = 0;
  rt->msg[0] = '\0';
}

/* The errno of a failed request: the kernel's, else libnl's guess. */
int
wf_tc_rtnl_errno (WfTcRtnl *rt, int nlerr)
{
  if (rt->err)
    return rt->err;
  return nlerr == -NLE_OBJ_NOTFOUND ? ENOENT : nlerr == -NLE_NODEV ? ENODEV : EIO;
}

gboolean
wf_tc_rtnl_fail (WfTcRtnl *rt, int nlerr, GError **error, const char *fmt, ...)
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

static void
tc_obj_free (gpointer p)
{
  WfTcObject *o = p;

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
  WfTcObject *o;

  if (h->nlmsg_len < NLMSG_LENGTH (sizeof *t))
    return NL_SKIP;
  t = nlmsg_data (h);
  /* Qdisc dumps cover every interface of the namespace. */
  if (t->tcm_ifindex != d->ifindex || nlmsg_parse (h, sizeof *t, tb, TCA_MAX, NULL) < 0)
    return NL_SKIP;
  o = g_new0 (WfTcObject, 1);
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
GPtrArray *
wf_tc_rtnl_dump (WfTcRtnl *rt, int type, int ifindex, guint32 parent, const char *ifname,
                 GError **error)
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
  wf_tc_rtnl_reset (rt);
  err = nl_send_simple (rt->sk, type, NLM_F_DUMP, &t, sizeof t);
  if (err >= 0)
    err = nl_recvmsgs (rt->sk, cb);
  nl_cb_put (cb);
  if (err < 0)
    {
      g_ptr_array_unref (d.objs);
      wf_tc_rtnl_fail (rt, err, error, "%s: listing its %s", ifname,
                       type == RTM_GETQDISC ? "qdiscs"
                       : type == RTM_GETTCLASS ? "classes" : "filters");
      return NULL;
    }
  return d.objs;
}

WfTcObject *
wf_tc_rtnl_find_parent (GPtrArray *objs, guint32 parent)
{
  for (guint k = 0; k < objs->len; k++)
    if (((WfTcObject *) objs->pdata[k])->parent == parent)
      return objs->pdata[k];
  return NULL;
}

char *
wf_tc_rtnl_handle_str (guint32 h)
{
  return TC_H_MIN (h) ? g_strdup_printf ("%x:%x", WF_TC_MAJ (h), TC_H_MIN (h))
                      : g_strdup_printf ("%x:", WF_TC_MAJ (h));
}

/* ---- building blocks (libnl-route) ------------------------------------ */

gboolean
wf_tc_rtnl_put_htb_root (WfTcRtnl *rt, const char *dev, int ifindex, guint32 major,
                         guint32 default_minor, GError **error)
{
  g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (q), ifindex);
  rtnl_tc_set_parent (TC_CAST (q), TC_H_ROOT);
  rtnl_tc_set_handle (TC_CAST (q), WF_TC_HANDLE (major, 0));
  rtnl_tc_set_kind (TC_CAST (q), "htb");
  rtnl_htb_set_defcls (q, default_minor);
  wf_tc_rtnl_reset (rt);
  /* Replaces the kernel's default or the single qdisc saved before. */
  if ((err = rtnl_qdisc_add (rt->sk, q, NLM_F_CREATE | NLM_F_REPLACE)) < 0)
    return wf_tc_rtnl_fail (rt, err, error, "%s: adding the HTB root qdisc %x:", dev, major);
  return TRUE;
}

/* rate = ceil: a class never borrows (no parent class to borrow from). */
gboolean
wf_tc_rtnl_put_class (WfTcRtnl *rt, const char *dev, int ifindex, guint32 major, guint32 minor,
                      double bps, GError **error)
{
  g_autoptr(RtnlClass) c = rtnl_class_alloc ();
  guint64 bytes_s = (guint64) (bps / 8);
  /* 2 ms of tokens: enough to keep a fast class busy between timer
   * ticks, too little to matter for a capped one's average. */
  guint32 burst = (guint32) CLAMP (bytes_s / 500, 2u * WF_TC_ETH_FRAME, 64u << 20);
  int err;

  rtnl_tc_set_ifindex (TC_CAST (c), ifindex);
  rtnl_tc_set_parent (TC_CAST (c), WF_TC_HANDLE (major, 0));
  rtnl_tc_set_handle (TC_CAST (c), WF_TC_HANDLE (major, minor));
  rtnl_tc_set_kind (TC_CAST (c), "htb");
  rtnl_htb_set_rate64 (c, bytes_s);
  rtnl_htb_set_ceil64 (c, bytes_s);
  rtnl_htb_set_rbuffer (c, burst);
  rtnl_htb_set_cbuffer (c, burst);
  /* Set, not derived from r2q: the kernel warns when that falls outside
   * 1000..200000 bytes. */
  rtnl_htb_set_quantum (c, (guint32) CLAMP (bytes_s / 10, WF_TC_ETH_FRAME, 200000u));
  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_class_add (rt->sk, c, NLM_F_CREATE | NLM_F_REPLACE)) < 0)
    return wf_tc_rtnl_fail (rt, err, error, "%s: setting HTB class %x:%x to %.0f bit/s", dev, major,
                            minor, bps);
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
gboolean
wf_tc_rtnl_put_filter (WfTcRtnl *rt, const char *dev, int ifindex, guint32 parent, guint16 prio,
                       guint32 slot, const guint8 mac[6], int mac_off, guint32 classid,
                       int redirect_ifindex, GError **error)
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
  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_cls_add (rt->sk, cls, NLM_F_CREATE | NLM_F_EXCL)) < 0)
    return wf_tc_rtnl_fail (rt, err, error, "%s: adding a u32 filter (priority %u, node %x)", dev,
                            prio, slot);
  return TRUE;
}

static gboolean
gone (WfTcRtnl *rt, int nlerr)
{
  int e = wf_tc_rtnl_errno (rt, nlerr);

  /* Already gone, or its parent is: what we wanted. */
  return e == ENOENT || e == ENODEV || e == EINVAL;
}

/* Deletes the u32 filters of `prio` under parent: every node `slot`
 * (0: the whole priority). */
gboolean
wf_tc_rtnl_del_filters (WfTcRtnl *rt, const char *dev, int ifindex, guint32 parent, guint16 prio,
                        guint32 slot, GError **error)
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
      wf_tc_rtnl_reset (rt);
      if ((err = rtnl_cls_delete (rt->sk, cls, 0)) < 0 && !gone (rt, err))
        return wf_tc_rtnl_fail (rt, err, error, "%s: deleting our u32 filters (priority %u)", dev,
                                prio);
      return TRUE;
    }
  /* The node's full handle (hash table, bucket, node) from the kernel. */
  if (!(filters = wf_tc_rtnl_dump (rt, RTM_GETTFILTER, ifindex, parent, dev, &local)))
    {
      if (gone (rt, 0))   /* no parent, no filters */
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  for (guint k = 0; k < filters->len; k++)
    {
      WfTcObject *f = filters->pdata[k];
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
      wf_tc_rtnl_reset (rt);
      if ((err = rtnl_cls_delete (rt->sk, cls, 0)) < 0 && !gone (rt, err))
        return wf_tc_rtnl_fail (rt, err, error, "%s: deleting u32 filter %x (priority %u)", dev,
                                f->handle, prio);
    }
  return TRUE;
}

gboolean
wf_tc_rtnl_del_class (WfTcRtnl *rt, const char *dev, int ifindex, guint32 classid, GError **error)
{
  g_autoptr(RtnlClass) c = rtnl_class_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (c), ifindex);
  rtnl_tc_set_handle (TC_CAST (c), classid);
  wf_tc_rtnl_reset (rt);
  /* Its leaf qdisc goes with it. */
  if ((err = rtnl_class_delete (rt->sk, c)) < 0 && !gone (rt, err))
    return wf_tc_rtnl_fail (rt, err, error, "%s: deleting class %x:%x", dev, WF_TC_MAJ (classid),
                            TC_H_MIN (classid));
  return TRUE;
}

gboolean
wf_tc_rtnl_del_qdisc (WfTcRtnl *rt, const char *dev, int ifindex, guint32 parent, guint32 handle,
                      GError **error)
{
  g_autoptr(RtnlQdisc) q = rtnl_qdisc_alloc ();
  int err;

  rtnl_tc_set_ifindex (TC_CAST (q), ifindex);
  rtnl_tc_set_parent (TC_CAST (q), parent);
  rtnl_tc_set_handle (TC_CAST (q), handle);
  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_qdisc_delete (rt->sk, q)) < 0 && !gone (rt, err))
    return wf_tc_rtnl_fail (rt, err, error, "%s: deleting qdisc %x:", dev, WF_TC_MAJ (handle));
  return TRUE;
}

gboolean
wf_tc_rtnl_ifb_add (WfTcRtnl *rt, const char *name, gboolean up, GError **error)
{
  g_autoptr(RtnlLink) l = rtnl_link_alloc ();
  int err;

  rtnl_link_set_name (l, name);
  if ((err = rtnl_link_set_type (l, "ifb")) < 0)
    return wf_tc_rtnl_fail (rt, err, error, "%s: creating the IFB device", name);
  if (up)
    rtnl_link_set_flags (l, IFF_UP);
  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_link_add (rt->sk, l, NLM_F_CREATE | NLM_F_EXCL)) < 0)
    return wf_tc_rtnl_fail (rt, err, error, "%s: creating the IFB device", name);
  return TRUE;
}

/* Deletes `name` if it is an IFB device (nothing else of that name is
 * ours). */
gboolean
wf_tc_rtnl_ifb_del (WfTcRtnl *rt, const char *name, GError **error)
{
  g_autoptr(RtnlLink) l = NULL;
  const char *type;
  int err;

  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_link_get_kernel (rt->sk, 0, name, &l)) < 0)
    {
      if (gone (rt, err) || err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV)
        return TRUE;
      return wf_tc_rtnl_fail (rt, err, error, "%s: looking up the IFB device", name);
    }
  type = rtnl_link_get_type (l);
  if (g_strcmp0 (type, "ifb") != 0)
    {
      g_message ("%s is a %s device now, not our IFB: left as is", name, type ? type : "plain");
      return TRUE;
    }
  wf_tc_rtnl_reset (rt);
  if ((err = rtnl_link_delete (rt->sk, l)) < 0 && !gone (rt, err))
    return wf_tc_rtnl_fail (rt, err, error, "%s: deleting the IFB device", name);
  return TRUE;
}

/* Someone else's root qdisc, from what was saved: its kind, handle and
 * options exactly as the kernel listed them. */
gboolean
wf_tc_rtnl_add_saved_root (WfTcRtnl *rt, const char *dev, int ifindex, const char *kind,
                           guint32 handle, GBytes *opts, gboolean opts_nested, GBytes *stab,
                           GError **error)
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
      return wf_tc_rtnl_fail (rt, err, error, "%s: putting back its %s root qdisc", dev, kind);
    }
  wf_tc_rtnl_reset (rt);
  if ((err = nl_send_sync (rt->sk, msg)) < 0)   /* frees msg */
    return wf_tc_rtnl_fail (rt, err, error, "%s: putting back its %s root qdisc %x:", dev, kind,
                            WF_TC_MAJ (handle));
  return TRUE;
}
