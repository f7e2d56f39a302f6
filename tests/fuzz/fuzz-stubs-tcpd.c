/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run-fuzz only: the CC names of tcp/wlanfair-tcp-loader.c, whose file needs
 * libbpf and the BPF skeleton (the corpus test links the real one). */
#include "wlanfair-tcp-loader.h"

const char * const wf_tcp_cc_names[WF_CC_COUNT + 1] = {
  [WF_CC_RENO] = "ackloss_reno",
  [WF_CC_CUBIC] = "ackloss_cubic",
};
