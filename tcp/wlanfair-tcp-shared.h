/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the BPF object and its loader. */
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

#define WF_CC_NAME_MAX 16
#define WF_WIFI_ADDRS_MAX 256

enum {
  WF_CC_RENO = 0,
  WF_CC_CUBIC = 1,
  WF_CC_COUNT,
};

struct wf_addr_key {
  __u32 family; /* AF_INET or AF_INET6 */
  __u32 addr[4]; /* network order; IPv4 in addr[0] */
};
