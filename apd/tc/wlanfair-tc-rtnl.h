/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rtnetlink for tc, no policy: a route socket that keeps the kernel's
 * explanation of its last refusal, raw dumps of an interface's qdiscs,
 * classes and filters, and the pieces a tree is built from (an HTB root
 * and class, a u32 filter on a MAC, deletions that take "already gone"
 * for done, IFB devices, a saved root qdisc put back byte for byte). What
 * goes where is the actuators' tree's (wlanfair-apd-tc.c). */
#pragma once

#include <glib.h>
#include <netlink/route/action.h>
#include <netlink/route/class.h>
#include <netlink/route/classifier.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>

G_BEGIN_DECLS

#define WF_TC_HANDLE(maj, min) (((guint32) (maj) << 16) | ((guint32) (min) & 0xffffu))
#define WF_TC_MAJ(h)           ((guint32) (h) >> 16)
#define WF_TC_ETH_FRAME        1514u

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

/* A route socket; a request made directly on sk calls wf_tc_rtnl_reset
 * first, so that err and msg are its own. */
typedef struct {
  struct nl_sock *sk;
  int             err;        /* errno of the kernel's last refusal, 0: none */
  char            msg[200];   /* its extended ack, "" without */
} WfTcRtnl;

/* One qdisc, class or filter as the kernel listed it. */
typedef struct {
  guint32 parent, handle, info;
  char    kind[32];
  GBytes *options;   /* TCA_OPTIONS' payload, NULL without */
  gboolean options_nested;  /* ... marked NLA_F_NESTED */
  GBytes *stab;      /* TCA_STAB's */
} WfTcObject;

gboolean    wf_tc_rtnl_open (WfTcRtnl *rt, GError **error);
void        wf_tc_rtnl_close (WfTcRtnl *rt);
void        wf_tc_rtnl_reset (WfTcRtnl *rt);
/* The errno of a failed request (nlerr: libnl's return). */
int         wf_tc_rtnl_errno (WfTcRtnl *rt, int nlerr);
/* Sets "<fmt>: <the kernel's reason> (<its extended ack>)"; FALSE. */
gboolean    wf_tc_rtnl_fail (WfTcRtnl *rt, int nlerr, GError **error, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);

/* RTM_GETQDISC / GETTCLASS / GETTFILTER of ifindex (filters: of parent):
 * WfTcObjects. */
GPtrArray  *wf_tc_rtnl_dump (WfTcRtnl *rt, int type, int ifindex, guint32 parent,
                             const char *ifname, GError **error);
/* The first of objs under parent, NULL: none. */
WfTcObject *wf_tc_rtnl_find_parent (GPtrArray *objs, guint32 parent);
/* "fa1:" or "fa1:2", as tc writes handles. */
char       *wf_tc_rtnl_handle_str (guint32 h);

/* The pieces; dev names the interface in errors. */
gboolean    wf_tc_rtnl_put_htb_root (WfTcRtnl *rt, const char *dev, int ifindex, guint32 major,
                                     guint32 default_minor, GError **error);
gboolean    wf_tc_rtnl_put_class (WfTcRtnl *rt, const char *dev, int ifindex, guint32 major,
                                  guint32 minor, double bps, GError **error);
gboolean    wf_tc_rtnl_put_filter (WfTcRtnl *rt, const char *dev, int ifindex, guint32 parent,
                                   guint16 prio, guint32 slot, const guint8 mac[6], int mac_off,
                                   guint32 classid, int redirect_ifindex, GError **error);
gboolean    wf_tc_rtnl_del_filters (WfTcRtnl *rt, const char *dev, int ifindex, guint32 parent,
                                    guint16 prio, guint32 slot, GError **error);
gboolean    wf_tc_rtnl_del_class (WfTcRtnl *rt, const char *dev, int ifindex, guint32 classid,
                                  GError **error);
gboolean    wf_tc_rtnl_del_qdisc (WfTcRtnl *rt, const char *dev, int ifindex, guint32 parent,
                                  guint32 handle, GError **error);
gboolean    wf_tc_rtnl_ifb_add (WfTcRtnl *rt, const char *name, gboolean up, GError **error);
gboolean    wf_tc_rtnl_ifb_del (WfTcRtnl *rt, const char *name, GError **error);
gboolean    wf_tc_rtnl_add_saved_root (WfTcRtnl *rt, const char *dev, int ifindex,
                                       const char *kind, guint32 handle, GBytes *opts,
                                       gboolean opts_nested, GBytes *stab, GError **error);

G_END_DECLS
