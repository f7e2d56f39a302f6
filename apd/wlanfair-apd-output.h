/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What wlanfair-apd shows of each round: the status file that
 * `wlanfairctl ap` reads (JSON, version 1, tests/data/apd-status.json)
 * and node_exporter's textfile (wlanfair_ap_* metrics). Pure renderers
 * of one round's view (wlanfair-apd-view.h); the daemon writes them. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-view.h"

G_BEGIN_DECLS

#define WF_APD_STATUS_VERSION 1
#define WF_APD_PROM_FILE "wlanfair-ap.prom"

/* Pretty JSON text of the status object. */
char *wf_apd_output_status (const WfApdView *v);
/* The Prometheus text exposition. */
char *wf_apd_output_prometheus (const WfApdView *v);

G_END_DECLS
