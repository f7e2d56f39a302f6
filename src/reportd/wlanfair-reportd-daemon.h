/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-reportd-config.h"

G_BEGIN_DECLS

typedef struct {
  gboolean    once;         /* two samples one interval apart, print, exit */
  const char *tcp_status;   /* NULL: wlanfair-tcpd's default status file */
  const char *machine_id;   /* NULL: /etc/machine-id */
} WfReportdRunOptions;

/* Runs until SIGTERM/SIGINT; returns the exit status. */
int wf_reportd_run (const WfReportdConfig     *config,
                    const WfReportdRunOptions *options);

G_END_DECLS
