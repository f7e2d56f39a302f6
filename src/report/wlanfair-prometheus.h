/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-textfile.h"

G_BEGIN_DECLS

#define WF_PROMETHEUS_DEFAULT_DIR WF_TEXTFILE_DEFAULT_DIR
#define WF_PROMETHEUS_FILE "wlanfair.prom"

/* The text exposition of a report body (the sampler's JSON): node_exporter
 * wifi collector names where they overlap, wlanfair_* otherwise. */
char    *wf_prometheus_render (JsonObject *body,
                               gint64      time_us);

/* Writes `text` as DIR/wlanfair.prom atomically (temporary file in the
 * same directory, then rename) so that the collector never reads half. */
gboolean wf_prometheus_write (const char *dir,
                              const char *text,
                              GError    **error);
/* The same as DIR/NAME (another program's metrics: wlanfair-ap.prom). */
gboolean wf_prometheus_write_named (const char *dir,
                                    const char *name,
                                    const char *text,
                                    GError    **error);

G_END_DECLS
