/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* wlanfair-tcpd's status file (0644): readable without privilege, unlike
 * its BPF counter map. */
#define WF_TCPSTATUS_FILE "/run/wlanfair/tcp-status.json"

/* The running daemon's status object, or NULL when there is no file or
 * it names a dead pid (a killed daemon's leftover): both without an
 * error. A file that cannot be read, is larger than
 * WF_READFILE_STATE_MAX, is not JSON or lacks a field the daemon always
 * writes (or holds one of the wrong type) is NULL with an error naming
 * the file and the field. Free with json_node_unref(). path NULL =
 * WF_TCPSTATUS_FILE. */
JsonNode *wf_tcpstatus_read (const char *path,
                             GError    **error);

/* The reporter's read: bounded and the pid checked as by
 * wf_tcpstatus_read(), but the other fields taken as they are (it
 * forwards the counters the file has, and checks their shape itself);
 * NULL on any error. */
JsonNode *wf_tcpstatus_load (const char *path);

typedef enum {
  WF_TCPSTATUS_NOT_ASKED, /* no daemon that takes requests (an older one) */
  WF_TCPSTATUS_DENIED,    /* not ours to signal (neither root nor its user) */
  WF_TCPSTATUS_TIMEOUT,   /* asked, but the file was not rewritten in time */
  WF_TCPSTATUS_REFRESHED, /* the file was rewritten after the request */
} WfTcpstatusRefresh;

/* As wf_tcpstatus_load(), but first asks the daemon for fresh counters
 * (SIGUSR1, to a process whose name is wlanfair-tcpd) and waits up to
 * timeout_ms for it to rewrite the file. *how says what happened; without
 * a refresh the file's status is returned as it was. Errors as
 * wf_tcpstatus_read()'s. */
JsonNode *wf_tcpstatus_load_fresh (const char         *path,
                                   guint               timeout_ms,
                                   WfTcpstatusRefresh *how,
                                   GError            **error);

G_END_DECLS
