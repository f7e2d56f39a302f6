/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A daemon's life under systemd: stop signals, READY, WATCHDOG and STOPPING. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What every daemon of ours does alike around its main loop; the
 * protocol itself is wlanfair-notify.h. */
typedef struct _WfDaemon WfDaemon;

/* SIGTERM and SIGINT log `stop_message` (in `log_domain`, the caller's
 * G_LOG_DOMAIN; once), say STOPPING=1 and quit `loop`. They stay handled
 * until wf_daemon_free(): a second one does not interrupt the cleanup. */
WfDaemon *wf_daemon_new                  (const char *log_domain,
                                          GMainLoop  *loop,
                                          const char *stop_message);
/* Removes the handlers left. */
void      wf_daemon_free                 (WfDaemon   *d);

/* STATUS=<format>, with READY=1 the first time: the daemon serves. */
void      wf_daemon_ready                (WfDaemon   *d,
                                          const char *format,
                                          ...) G_GNUC_PRINTF (2, 3);
/* Whether READY=1 was said. */
gboolean  wf_daemon_is_ready             (WfDaemon   *d);

/* How often to ping systemd's watchdog: half of WatchdogSec= (as
 * sd_watchdog_enabled(3) advises), at least 1 ms; 0 when it is off. */
gint64    wf_daemon_watchdog_interval_us (WfDaemon   *d);
/* WATCHDOG=1, when the watchdog is on. */
void      wf_daemon_watchdog_ping        (WfDaemon   *d);

/* STOPPING=1, once: after a stop signal it was said already. */
void      wf_daemon_stopping             (WfDaemon   *d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfDaemon, wf_daemon_free)

G_END_DECLS
