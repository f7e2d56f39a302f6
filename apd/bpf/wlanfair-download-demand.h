/* SPDX-License-Identifier: GPL-2.0-or-later */
/* download-demand= (apd.conf): the BPF program of
 * wlanfair-download-demand.bpf.c at tc egress of the AP interface,
 * counting the frames handed to each station before any queue of the AP.
 * Set beside what each station got, it tells a download that waits at the
 * AP (a starved one moves less than any idle rate) from an idle station
 * (wlanfair-apd-station-table.c). An owned program
 * (wlanfair-tc-bpf-owned.h): recorded before it is attached. Its kernel
 * names (program wf_offered, map offered) predate the file's name: a
 * filter found after a crash is matched by the program's name. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-state.h"
#include "wlanfair-apd-station-table.h"

G_BEGIN_DECLS

#define WF_DOWNLOAD_DEMAND_NAME      "download-demand"   /* its state group's prefix */
#define WF_DOWNLOAD_DEMAND_TC_HANDLE 0xfa3u
#define WF_DOWNLOAD_DEMAND_TC_PRIO   0xf9fu              /* first: before anything re-marks */

typedef struct _WfDownloadDemand WfDownloadDemand;

/* Loads the program (nothing attached). */
WfDownloadDemand *wf_download_demand_load (GError **error);
void              wf_download_demand_free (WfDownloadDemand *o);
/* Records, attaches. On failure nothing is left (see wf_tc_bpf_owned_attach). */
gboolean          wf_download_demand_attach (WfDownloadDemand *o, const char *ifname,
                                             WfApdState *state, GError **error);
/* Detaches and forgets the record; frees o either way. */
gboolean          wf_download_demand_stop (WfDownloadDemand *o, GError **error);
/* After a crash: what the state's group for ifname says was attached. */
gboolean          wf_download_demand_restore (const char *ifname, WfApdState *state,
                                              GError **error);
/* Every station's counts (WfApdDownloadDemand), every CPU's summed. */
gboolean          wf_download_demand_read (WfDownloadDemand *o, GArray *out, GError **error);
/* Whether ifname has our filter (tests). */
gboolean          wf_download_demand_attached (const char *ifname);
/* The program, for BPF_PROG_TEST_RUN (tests). */
int               wf_download_demand_prog_fd (WfDownloadDemand *o);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfDownloadDemand, wf_download_demand_free)

G_END_DECLS
