/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The loader of the rwnd BPF program (wlanfair-rwnd.bpf.c): loads it,
 * attaches it at tc (clsact ingress and egress, cls_bpf direct action:
 * 6.1 has no tcx) on one interface, writes the per-flow target windows
 * and reads the per-flow entries. It removes exactly what it added: its
 * two filters (handle and priority of its own) and the clsact qdisc if
 * it created it. */
#pragma once

#include <glib.h>

#include "wlanfair-rwnd-shared.h"

G_BEGIN_DECLS

#define WF_RWND_TC_HANDLE 0xfa1u
#define WF_RWND_TC_PRIO   0xfa1u

typedef struct _WfRwnd WfRwnd;

/* One connection as the program saw it. Endpoint k: addr[k], port[k]. */
typedef struct {
  struct wf_rwnd_key key;   /* the map's key (for wf_rwnd_set_target) */
  int      family;          /* AF_INET or AF_INET6 */
  guint16  port[2];         /* host order */
  gboolean handshake_seen;  /* FALSE: left alone ("handshake not seen") */
  gboolean scaled;          /* both SYNs carried a window scale */
  guint8   wscale[2];
  guint16  mss[2];
  double   rtt_s;           /* handshake RTT at this hop, 0: none */
  /* The RTT from TCP timestamps, once both legs have a sample (else 0). */
  double   ts_rtt_s;           /* smoothed (gain 1/8): what the flow cycles at */
  double   ts_rtt_standing_s;  /* lowest of the last 1-2 s: a standing queue */
  double   ts_rtt_min_s;       /* lowest ever: no queue */
  double   idle_s;          /* since the last segment */
  guint64  rewritten[2];    /* segments whose window to k was lowered */
  guint64  bytes[2];        /* payload bytes k sent */
  guint32  clamp[2];        /* bytes: the window last let through to k */
  guint32  target[2];       /* bytes: k's target as a sender, 0: none */
} WfRwndFlow;

/* Whether BPF programs can be loaded here (a load of the object, nothing
 * attached); the error says why not (EPERM, no BPF). */
gboolean wf_rwnd_probe (GError **error);

/* Loads the program (floor: segments, 0: the default). Not attached. */
WfRwnd  *wf_rwnd_new (guint floor_mss, GError **error);
/* Leaves attached filters in place (they keep the program running, as
 * after a crash): detach first. */
void     wf_rwnd_free (WfRwnd *rw);
int      wf_rwnd_prog_fd (WfRwnd *rw);

/* Attaches on ifname's ingress and egress, creating clsact only when no
 * clsact is there (*created_clsact says; may be NULL). A second attach is
 * an error. An ingress qdisc (not clsact) is refused. */
gboolean wf_rwnd_attach (WfRwnd *rw, const char *ifname, gboolean *created_clsact,
                         GError **error);
/* Removes the filters and, if the attach created it, the clsact qdisc. */
gboolean wf_rwnd_detach (WfRwnd *rw, GError **error);
/* The same without an instance (after a crash): our filters on ifname
 * (only if they hold a program named wf_rwnd) and clsact when asked.
 * An interface that is gone took them with it: not an error. */
gboolean wf_rwnd_detach_ifname (const char *ifname, gboolean remove_clsact, GError **error);
/* Whether ifname has a filter of ours on ingress or egress. */
gboolean wf_rwnd_attached (const char *ifname);

/* The target window (bytes) of endpoint `sender` of flow `key` as a data
 * sender; 0 removes it. */
gboolean wf_rwnd_set_target (WfRwnd *rw, const struct wf_rwnd_key *key, guint sender,
                             guint32 window, GError **error);
gboolean wf_rwnd_clear_targets (WfRwnd *rw, GError **error);
/* Every connection in the map (WfRwndFlow). */
GArray  *wf_rwnd_flows (WfRwnd *rw, GError **error);

/* The non-TCP bytes counted since the load, [WF_RWND_OTHER_IN] and
 * [WF_RWND_OTHER_OUT] (every CPU's summed). */
gboolean wf_rwnd_other_bytes (WfRwnd *rw, guint64 bytes[WF_RWND_OTHER_N], GError **error);

/* "10.0.0.1:5201" / "[fd00::1]:5201" of endpoint k. */
char    *wf_rwnd_endpoint_str (const WfRwndFlow *f, guint k);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfRwnd, wf_rwnd_free)

G_END_DECLS
