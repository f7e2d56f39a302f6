/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stop signals and systemd's notifications, written once for every
 * daemon (reportd, tcpd, scand, apd). */
#include "wlanfair-daemon.h"

#include <glib-unix.h>
#include <signal.h>

#include "wlanfair-notify.h"

struct _WfDaemon {
  char      *domain;
  char      *stop_message;
  GMainLoop *loop;
  guint      sig_term, sig_int;
  gint64     watchdog_us;
  gboolean   ready, stopping;
};

/* The handlers stay until the daemon is freed: a second signal while it
 * restores what it changed must not kill it half way (GLib would put the
 * default action back with the last handler). */
static gboolean
on_stop_signal (gpointer data)
{
  WfDaemon *d = data;

  if (!d->stopping)
    g_log (d->domain, G_LOG_LEVEL_MESSAGE, "%s", d->stop_message);
  wf_daemon_stopping (d);
  g_main_loop_quit (d->loop);
  return G_SOURCE_CONTINUE;
}

WfDaemon *
wf_daemon_new (const char *log_domain, GMainLoop *loop, const char *stop_message)
{
  WfDaemon *d = g_new0 (WfDaemon, 1);
  guint64 usec = wf_notify_watchdog_usec ();

  d->domain = g_strdup (log_domain);
  d->stop_message = g_strdup (stop_message);
  d->loop = g_main_loop_ref (loop);
  d->sig_term = g_unix_signal_add (SIGTERM, on_stop_signal, d);
  d->sig_int = g_unix_signal_add (SIGINT, on_stop_signal, d);
  /* Twice per WatchdogSec; sub-millisecond intervals would spin. */
  d->watchdog_us = (gint64) (usec / 2);
  if (d->watchdog_us > 0 && d->watchdog_us < 1000)
    d->watchdog_us = 1000;
  return d;
}

void
wf_daemon_free (WfDaemon *d)
{
  if (d == NULL)
    return;
  if (d->sig_term)
    g_source_remove (d->sig_term);
  if (d->sig_int)
    g_source_remove (d->sig_int);
  g_main_loop_unref (d->loop);
  g_free (d->stop_message);
  g_free (d->domain);
  g_free (d);
}

void
wf_daemon_ready (WfDaemon *d, const char *format, ...)
{
  g_autofree char *status = NULL;
  va_list ap;

  va_start (ap, format);
  status = g_strdup_vprintf (format, ap);
  va_end (ap);
  wf_notifyf ("%sSTATUS=%s", d->ready ? "" : "READY=1\n", status);
  d->ready = TRUE;
}

gboolean
wf_daemon_is_ready (WfDaemon *d)
{
  return d->ready;
}

gint64
wf_daemon_watchdog_interval_us (WfDaemon *d)
{
  return d->watchdog_us;
}

void
wf_daemon_watchdog_ping (WfDaemon *d)
{
  if (d->watchdog_us > 0)
    wf_notify ("WATCHDOG=1");
}

void
wf_daemon_stopping (WfDaemon *d)
{
  if (d->stopping)
    return;
  d->stopping = TRUE;
  wf_notify ("STOPPING=1");
}
