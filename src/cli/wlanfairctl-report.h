/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared by `status` and `top` (defined in wlanfairctl-status.c): where a
 * report comes from and how it is drawn. */
#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-sampler.h"

G_BEGIN_DECLS

typedef struct {
  char      *socket_path;   /* NULL: the default */
  char     **interfaces;    /* direct sampling: these, else Wi-Fi (or all) */
  double     interval_s;    /* direct sampling period */
  guint      top_n;
  gboolean   direct;        /* never ask the daemon */
  WfSampler *sampler;       /* direct sampling, kept between calls */
  gboolean   from_daemon;   /* the last report came from the daemon */
  char      *daemon_error;  /* why not, when it did not */
} WfCliReportSource;

/* The latest report from the daemon, else a direct sample: the first call
 * samples twice, interval_s apart (rates need two). */
JsonObject *wf_cli_report_get (WfCliReportSource *src);
void        wf_cli_report_source_clear (WfCliReportSource *src);
/* --interval TEXT (NULL: keep 1 s): seconds from 0.1 to 60. Returns
 * WF_EXIT_OK, or the usage error's exit status after printing it. */
int         wf_cli_report_source_set_interval (WfCliReportSource *src,
                                               const char        *text);

/* The human-readable view, `width` columns wide (0: no limit). */
void        wf_cli_report_render (JsonObject        *report,
                                  WfCliReportSource *src,
                                  guint              width,
                                  guint              max_flows,
                                  GString           *out);

G_END_DECLS
