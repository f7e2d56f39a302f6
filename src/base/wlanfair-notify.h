/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* systemd's readiness protocol (sd_notify(3)): one datagram of
 * "VAR=value" lines to $NOTIFY_SOCKET. Returns TRUE when sent, FALSE when
 * no service manager listens (not started by systemd) or the send failed;
 * a daemon carries on either way. */
gboolean wf_notify (const char *state);
gboolean wf_notifyf (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* The watchdog interval systemd asked for (WatchdogSec=, via
 * $WATCHDOG_USEC for this pid), in microseconds; 0 when off. */
guint64  wf_notify_watchdog_usec (void);

G_END_DECLS
