/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* wlanfair-tcpd's status file (0644): readable without privilege, unlike
 * its BPF counter map. */
#define WF_TCPSTATUS_FILE "/run/wlanfair/tcp-status.json"

/* The running daemon's status object, or NULL when there is no file or
 * it names a dead pid (a killed daemon's leftover). Free with
 * json_node_unref(). path NULL = WF_TCPSTATUS_FILE. */
JsonNode *wf_tcpstatus_load (const char *path);

G_END_DECLS
