/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* NAME is relative to /proc/sys, e.g. "net/ipv4/tcp_congestion_control";
 * the value comes back stripped. */
char    *wf_sysctl_read (const char *name,
                         GError    **error);
gboolean wf_sysctl_write (const char *name,
                          const char *value,
                          GError    **error);

G_END_DECLS
