/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The local channel of wlanfair-reportd (wlanfair-reportd(8)): a unix
 * stream socket; a client connects, the daemon writes its latest report
 * as one JSON object and closes. Nothing is read from the client. */
#define WF_LOCALREPORT_SOCKET "/run/wlanfair-reportd/report.sock"
#define WF_LOCALREPORT_MAX (4 * 1024 * 1024)

/* The latest report, or NULL with an error (no daemon: G_IO_ERROR-like
 * WF_ERROR_FAILED naming the socket). path NULL = the default. */
JsonObject *wf_localreport_fetch (const char *path,
                                  int         timeout_ms,
                                  GError    **error);

G_END_DECLS
