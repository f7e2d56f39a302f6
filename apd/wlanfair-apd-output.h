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

/* The status file, the state file and a named textfile directory by the
 * rules of wlanfair-file.h; `make`: the daemon's own directory is made
 * (the start), else nothing is written (--check). */
gboolean wf_apd_outputs_check (const WfApdConfig *config, gboolean make, GError **error);
/* Removes the status file and the textfile a run writes: after a crash
 * (`--restore`) as after a stop, last figures would look current. */
void     wf_apd_outputs_remove (const WfApdConfig *config);

/* A run's files; a write that fails is said once until one works. */
typedef struct _WfApdOutputs WfApdOutputs;

WfApdOutputs *wf_apd_outputs_new   (const WfApdConfig *config);
void          wf_apd_outputs_write (WfApdOutputs *o, const WfApdView *v);
void          wf_apd_outputs_free  (WfApdOutputs *o);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdOutputs, wf_apd_outputs_free)

G_END_DECLS
