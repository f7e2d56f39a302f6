/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the download-demand BPF program
 * (wlanfair-download-demand.bpf.c) and its loader
 * (wlanfair-download-demand.c). */
#pragma once

/* Stations counted at once; the least recently seen go first beyond. */
#define WF_DOWNLOAD_DEMAND_MAX_STATIONS 1024

/* The value of the `offered` map (per CPU; the kernel's name for it), keyed by the destination MAC
 * in the low 48 bits of a __u64, first octet highest. */
struct wf_download_demand_count {
  __u64 packets;
  __u64 bytes;
};
