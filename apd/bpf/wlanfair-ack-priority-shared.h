/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the ack-priority BPF program (wlanfair-ack-priority.bpf.c)
 * and its loader (wlanfair-ack-priority.c). */
#pragma once

/* The DS field's DSCP: CS6, precedence 6, which cfg80211_classify8021d
 * maps to 802.1d priority 6, access category voice, on every kernel. */
#define WF_ACK_PRIO_DSCP 48

/* The `counters` map (a per-CPU array of __u64). */
enum {
  WF_ACK_PRIO_MARKED_PACKETS,   /* TCP segments without payload re-marked */
  WF_ACK_PRIO_MARKED_BYTES,     /* their frame bytes (skb->len) */
  WF_ACK_PRIO_KEPT_PACKETS,     /* the same, left alone: a DSCP was set */
  WF_ACK_PRIO_N,
};
