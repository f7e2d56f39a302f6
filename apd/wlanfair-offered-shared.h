/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the offered-load BPF program (wlanfair-offered.bpf.c) and its
 * loader (wlanfair-offered.c). */
#pragma once

/* Stations counted at once; the least recently seen go first beyond. */
#define WF_OFFERED_MAX_STATIONS 1024

/* The value of the `offered` map (per CPU), keyed by the destination MAC
 * in the low 48 bits of a __u64, first octet highest. */
struct wf_offered_count {
  __u64 packets;
  __u64 bytes;
};
