/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-apd's loop: every period one round of station dump ->
 * station table -> controller -> actuator, then the status file and the
 * Prometheus textfile. It decides when it may act (mode) and lifts
 * every limit when its inputs stop (fail-open). */
#pragma once

#include <glib.h>

#include "wlanfair-apd-config.h"

G_BEGIN_DECLS

typedef struct _WfApdDaemon WfApdDaemon;

/* Opens the state, undoes what a crashed run left, binds the report
 * port, opens the station source, probes the actuator. Errors are for
 * one line on stderr, exit status 1. config must outlive the daemon. */
/* key: the HMAC key (NULL: none; then the daemon only observes unless
 * insecure-unsigned is set). */
WfApdDaemon *wf_apd_daemon_new (WfApdConfig *config, GBytes *key, GError **error);
void         wf_apd_daemon_free (WfApdDaemon *d);
/* Runs until SIGTERM/SIGINT (0) or a fatal error (1); lifts every limit
 * (actuator stop) and removes the status file before returning. */
int          wf_apd_daemon_run (WfApdDaemon *d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdDaemon, wf_apd_daemon_free)

G_END_DECLS
