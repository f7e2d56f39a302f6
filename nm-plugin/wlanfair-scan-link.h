/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-linkstats.h"

G_BEGIN_DECLS

/* One interface's counters, 4 times a second: a persistent rtnetlink
 * socket and RTM_GETLINK for that interface only, instead of
 * wf_linkstats_dump()'s new socket and full link dump per call (a third
 * of the daemon's idle CPU). Same WfLinkStats, same "up" rule. */
typedef struct _WfScanLink WfScanLink;

WfScanLink *wf_scan_link_new  (GError **error);
void        wf_scan_link_free (WfScanLink *link);
/* FALSE with G_IO_ERROR_NOT_FOUND when there is no such interface. */
gboolean    wf_scan_link_read (WfScanLink  *link,
                               const char  *ifname,
                               WfLinkStats *out,
                               GError     **error);

G_END_DECLS
