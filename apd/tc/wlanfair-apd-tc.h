/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rate and delay actuators' tc tree and its restore (its rtnetlink
 * pieces: wlanfair-tc-rtnl.h).
 *
 * Egress of the AP interface: an HTB root (handle fa1:) whose default
 * class fa1:1 does not limit (rate = ceil = twice the link's speed, 40
 * Gbit/s at least: veths and Wi-Fi report no useful speed), and per
 * station a class fa1:N, a leaf (0x1000+N): (pfifo sized to ~100 ms at the
 * class rate, or netem for a delay) and a u32 filter on
 * the destination MAC (the link-layer header, at -14 from the network
 * header on egress).
 *
 * Uplink (optional): an IFB device wfifb<ifindex> with the same HTB tree,
 * and on the AP interface's ingress (an ingress or clsact qdisc, ours or
 * kept) a u32 filter on the source MAC (at -8) at a priority of our own
 * that redirects the station's frames to the IFB: they are queued there
 * after reception, so the station's TCP sees the queue and its drops.
 *
 * Every change is recorded in the actuator's group of the state before
 * it is made; wf_apd_tc_restore undoes it from the record alone. What
 * was there before is put back: the kernel's default root (handle 0) by
 * deleting ours, an administrator's single root qdisc re-created from its
 * saved kind, handle and raw options. A root with classes of someone
 * else's is refused; an existing ingress/clsact qdisc keeps all but our
 * filters. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-state.h"

G_BEGIN_DECLS

#define WF_APD_TC_MAJOR          0xfa1u  /* "fa1:", our HTB roots */
#define WF_APD_TC_INGRESS_PRIO   0xfa1u  /* first priority tried on ingress */
#define WF_APD_TC_MIN_BPS        40e9    /* the default class: 40 Gbit/s at least */
#define WF_APD_TC_MAX_STATIONS   4000u   /* u32 node ids are 12 bits */

typedef enum {
  WF_APD_TC_LEAF_PFIFO,   /* rate: a short FIFO behind the class */
  WF_APD_TC_LEAF_NETEM,   /* delay: netem under a class that does not limit */
} WfApdTcLeaf;

typedef struct _WfApdTc WfApdTc;

/* Whether ifname's egress may be taken over: the interface exists and its
 * root qdisc is the kernel's default or a single qdisc (else the one-line
 * refusal). Changes nothing. */
gboolean wf_apd_tc_check (const char *ifname, GError **error);
/* Whether the kernel has netem: tries it on a throw-away IFB device. */
gboolean wf_apd_tc_probe_netem (const char *ifname, GError **error);

/* Installs the base on ifname (uplink: the IFB and the ingress filter
 * priority too), recording in `group` of `state` first. On failure what
 * was done is recorded: wf_apd_tc_restore undoes it. */
WfApdTc *wf_apd_tc_start (const char *ifname, WfApdState *state, const char *group,
                          WfApdTcLeaf leaf, gboolean uplink, GError **error);
void     wf_apd_tc_free (WfApdTc *tc);

/* One station: a cap on each direction (bit/s, 0: none) and, for a netem
 * leaf, a delay (µs). All zero: the station's tc entries are removed.
 * Unchanged values change nothing; *changed (may be NULL) says whether
 * anything was. */
gboolean wf_apd_tc_set (WfApdTc *tc, const guint8 mac[6], double down_bps, double up_bps,
                        guint32 delay_us, gboolean *changed, GError **error);
/* Removes the station's classes, leaves and filters (none: no error). */
gboolean wf_apd_tc_forget (WfApdTc *tc, const guint8 mac[6], GError **error);

/* Undoes everything `group` records for ifname, with no other memory
 * (stop, and after a crash). Idempotent; an interface that is gone (or
 * was re-created) took our qdiscs with it. Does not remove the group. */
gboolean wf_apd_tc_restore (const char *ifname, WfApdState *state, const char *group,
                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdTc, wf_apd_tc_free)

G_END_DECLS
