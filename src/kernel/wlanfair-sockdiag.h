/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <netinet/in.h>

#include "wlanfair-tcpinfo.h"

G_BEGIN_DECLS

/* One TCP socket from an INET_DIAG dump (no privilege needed). */
typedef struct {
  int                   family;  /* AF_INET or AF_INET6 */
  guint8                state;   /* TCP_ESTABLISHED, ... */
  char                  src[INET6_ADDRSTRLEN + 8]; /* "addr:port" / "[addr]:port" */
  char                  dst[INET6_ADDRSTRLEN + 8];
  guint32               ifindex; /* bound device, 0 if none */
  guint32               uid;
  guint64               inode;   /* 0 once orphaned (closed, still sending) */
  /* The kernel's socket cookie: one per socket, never reused, kept when
   * the socket is orphaned and by its TIME-WAIT successor. */
  guint64               cookie;
  guint32               wqueue;  /* bytes written and not yet acknowledged */
  char                  cong[16]; /* "" when the kernel did not say */
  gboolean              have_info;
  WfTcpInfo             info;
} WfSockdiagTcp;

/* Returns FALSE to stop the dump. */
typedef gboolean (*WfSockdiagFunc) (const WfSockdiagTcp *sock, gpointer user_data);

gboolean wf_sockdiag_dump_tcp (WfSockdiagFunc func,
                               gpointer       user_data,
                               GError       **error);

G_END_DECLS
