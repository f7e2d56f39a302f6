/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WF_SYSCTL_DEFAULT_CC "net/ipv4/tcp_congestion_control"
#define WF_SYSCTL_ALLOWED_CC "net/ipv4/tcp_allowed_congestion_control"


/* The settings wlanfair-tcpd changes, saved under /run before it changes
 * them so that a later instance can undo what a crashed one left. */
typedef struct {
  char     *path;          /* state file */
  char     *saved_default; /* default CC before we changed it, or NULL */
} WfTcpSysctlState;

gboolean wf_tcp_sysctl_recover (const char         *state_path,
                                const char * const *our_ccs,
                                GError            **error);

gboolean wf_tcp_sysctl_apply (WfTcpSysctlState   *state,
                              const char * const *allow,
                              const char         *make_default,
                              GError            **error);

gboolean wf_tcp_sysctl_restore (WfTcpSysctlState   *state,
                                const char * const *our_ccs,
                                GError            **error);

G_END_DECLS
