/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The server side of the local channel (wlanfair-localreport.h): hands
 * the latest report to every client that connects. */
typedef struct _WfReportdChannel WfReportdChannel;

WfReportdChannel *wf_reportd_channel_new (const char *path,
                                          GError    **error);
void              wf_reportd_channel_free (WfReportdChannel *ch);
/* Takes the text (JSON). */
void              wf_reportd_channel_set (WfReportdChannel *ch,
                                          char             *json);

G_END_DECLS
