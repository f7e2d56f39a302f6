/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The receiving end of the report transport: one UDP socket for both
 * address families, as `wlanfairctl listen` and wlanfair-apd bind it. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Binds a non-blocking UDP socket to bind_addr:port (NULL: [::] with
 * IPv4-mapped addresses, or 0.0.0.0 where IPv6 is disabled) and writes
 * what it bound, e.g. "[::]:7455 (IPv4+IPv6)", into bound. */
GSocket *wf_report_socket_open (const char *bind_addr,
                                guint16     port,
                                char       *bound,
                                gsize       bound_size,
                                GError    **error);

/* "10.0.0.2:5000" or "[2001:db8::2]:5000"; v4-mapped shown as IPv4;
 * "?" for anything else. */
void wf_report_format_from (GSocketAddress *sa, char *out, gsize size);

/* The sender's address as an IPv4 or IPv6 address (v4-mapped unmapped):
 * family AF_INET / AF_INET6 and 4 or 16 bytes in addr; FALSE otherwise. */
gboolean wf_report_from_addr (GSocketAddress *sa, int *family, guint8 addr[16]);

G_END_DECLS
