/* SPDX-License-Identifier: GPL-2.0-or-later */
/* download-demand= (apd.conf): the BPF program of wlanfair-offered.bpf.c
 * at tc egress of the AP interface, counting the frames handed to each
 * station before any queue of the AP. Set beside what each station got,
 * it tells a download that waits at the AP (a starved one moves less than
 * any idle rate) from an idle station (wlanfair-apd-stations.c). An owned
 * program (wlanfair-tc-bpf-owned.h): recorded before it is attached. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-state.h"
#include "wlanfair-apd-stations.h"

G_BEGIN_DECLS

#define WF_OFFERED_NAME      "download-demand"   /* its state group's prefix */
#define WF_OFFERED_TC_HANDLE 0xfa3u
#define WF_OFFERED_TC_PRIO   0xf9fu              /* first: before anything re-marks */

typedef struct _WfOffered WfOffered;

/* Loads the program (nothing attached). */
WfOffered *wf_offered_load (GError **error);
void       wf_offered_free (WfOffered *o);
/* Records, attaches. On failure nothing is left (see wf_tc_bpf_owned_attach). */
gboolean   wf_offered_attach (WfOffered *o, const char *ifname, WfApdState *state,
                              GError **error);
/* Detaches and forgets the record; frees o either way. */
gboolean   wf_offered_stop (WfOffered *o, GError **error);
/* After a crash: what the state's group for ifname says was attached. */
gboolean   wf_offered_restore (const char *ifname, WfApdState *state, GError **error);
/* Every station's counts (WfApdOffered), every CPU's summed. */
gboolean   wf_offered_read (WfOffered *o, GArray *out, GError **error);
/* Whether ifname has our filter (tests). */
gboolean   wf_offered_attached (const char *ifname);
/* The program, for BPF_PROG_TEST_RUN (tests). */
int        wf_offered_prog_fd (WfOffered *o);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfOffered, wf_offered_free)

G_END_DECLS
