/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl scan hold -- COMMAND: a scan guard hold for the life of a
 * command. The hold belongs to this process's bus connection, so the
 * daemon drops it even if we are killed; on a normal exit we Release it.
 * A guard that stops (a package upgrade restarts it) takes our hold with
 * it: we say so, and take it again from the guard that comes back. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>

#include "wlanfairctl-scan-bus.h"
#include "wlanfairctl-scan.h"
#include "wlanfairctl.h"

typedef struct {
  GMainLoop *loop;
  GPid pid;
  int wait_status;
  gboolean exited;
} Child;

/* The hold as it stands: the guard may come and go while COMMAND runs. */
typedef struct {
  GDBusConnection *bus;
  const char *reason;
  gboolean held;
  guint32 cookie;
} Hold;

static void
child_exited (GPid pid, int wait_status, gpointer data)
{
  Child *c = data;

  c->wait_status = wait_status;
  c->exited = TRUE;
  g_spawn_close_pid (pid);
  g_main_loop_quit (c->loop);
}

/* Signals come through a pipe with their si_code, so that one from the
 * terminal can be told from one sent with kill(). */
static int sig_pipe[2] = { -1, -1 };
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };

static void
on_signal (int signo, siginfo_t *info, void *uctx)
{
  int saved = errno;
  int msg[2] = { signo, info ? info->si_code : SI_USER };

  /* Non-blocking: a full pipe drops it; the command gets the next one. */
  if (write (sig_pipe[1], msg, sizeof msg) < 0)
    {
    }
  errno = saved;
}

/* The command decides what a signal means; we stay until it exits. */
static gboolean
on_signal_fd (int fd, GIOCondition cond, gpointer data)
{
  Child *c = data;
  int msg[2];

  while (read (fd, msg, sizeof msg) == (ssize_t) sizeof msg)
    {
      /* From the terminal (Ctrl-C, hangup) the kernel signals the whole
       * foreground process group, the command included: passing it on
       * would make one Ctrl-C two. */
      if (msg[1] == SI_KERNEL)
        continue;
      if (!c->exited)
        kill (c->pid, msg[0]);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
catch_signals (struct sigaction *old, GError **error)
{
  struct sigaction sa = { 0 };

  if (!g_unix_open_pipe (sig_pipe, FD_CLOEXEC, error)
      || !g_unix_set_fd_nonblocking (sig_pipe[0], TRUE, error)
      || !g_unix_set_fd_nonblocking (sig_pipe[1], TRUE, error))
    return FALSE;
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  for (gsize i = 0; i < G_N_ELEMENTS (forwarded); i++)
    sigaction (forwarded[i], &sa, &old[i]);
  return TRUE;
}

static void
restore_signals (const struct sigaction *old)
{
  for (gsize i = 0; i < G_N_ELEMENTS (forwarded); i++)
    sigaction (forwarded[i], &old[i], NULL);
  for (gsize i = 0; i < 2; i++)
    if (sig_pipe[i] >= 0)
      {
        close (sig_pipe[i]);
        sig_pipe[i] = -1;
      }
}

static gboolean
take_hold (GDBusConnection *bus, const char *reason, guint32 *cookie, GError **error)
{
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_sync (bus, WF_SCAN_BUS_NAME, WF_SCAN_PATH,
                                       WF_SCAN_IFACE, "Hold",
                                       g_variant_new ("(s)", reason),
                                       G_VARIANT_TYPE ("(u)"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                       WF_SCAN_CALL_TIMEOUT_MS, NULL, error);
  if (!reply)
    return FALSE;
  g_variant_get (reply, "(u)", cookie);
  return TRUE;
}

static void
release_hold (GDBusConnection *bus, guint32 cookie)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_sync (bus, WF_SCAN_BUS_NAME, WF_SCAN_PATH,
                                       WF_SCAN_IFACE, "Release",
                                       g_variant_new ("(u)", cookie), NULL,
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                       WF_SCAN_CALL_TIMEOUT_MS, NULL, &error);
  /* Not fatal: the daemon drops our holds when we leave the bus anyway. */
  if (!reply)
    {
      g_dbus_error_strip_remote_error (error);
      g_printerr ("%s: warning: could not release hold %u: %s\n",
                  g_get_prgname (), cookie, error->message);
    }
}

static void
guard_vanished (GDBusConnection *bus, const char *name, gpointer data)
{
  Hold *h = data;

  if (!h->held)
    return;
  h->held = FALSE;
  g_printerr ("%s: warning: the scan guard stopped: hold %u lost; it is taken "
              "again when the guard is back\n", g_get_prgname (), h->cookie);
}

/* Also called once at the start, for the guard we already hold from. */
static void
guard_appeared (GDBusConnection *bus, const char *name, const char *owner, gpointer data)
{
  Hold *h = data;
  g_autoptr(GError) error = NULL;

  if (h->held)
    return;
  if (!take_hold (h->bus, h->reason, &h->cookie, &error))
    {
      g_dbus_error_strip_remote_error (error);
      g_printerr ("%s: warning: the scan guard started but refused the hold: %s\n",
                  g_get_prgname (), error->message);
      return;
    }
  h->held = TRUE;
  g_printerr ("%s: the scan guard started: scans held again (hold %u)\n",
              g_get_prgname (), h->cookie);
}

int
wf_cli_scan_hold (int argc, char **argv)
{
  g_autofree char *reason = NULL;
  gboolean require = FALSE;
  const GOptionEntry entries[] = {
    { "reason", 'r', 0, G_OPTION_ARG_STRING, &reason,
      "Why, as shown by 'scan status' (default: the command's name)", "TEXT" },
    { "require", 0, 0, G_OPTION_ARG_NONE, &require,
      "Fail (exit 1) instead of running the command without a hold when "
      "the scan guard is not running", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("-- COMMAND [ARGS...]");
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  char **command;
  Hold hold = { 0 };
  struct sigaction old_sa[G_N_ELEMENTS (forwarded)];
  guint sig_watch;
  guint name_watch = 0;
  Child child = { 0 };
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Run COMMAND with a scan guard hold: no background scans while it runs,\n"
    "even without traffic. The hold is released when COMMAND exits (or when\n"
    "this process dies). SIGINT, SIGTERM and SIGHUP sent to this process are\n"
    "passed to COMMAND (not those from the terminal: COMMAND has them too);\n"
    "the exit status is COMMAND's (128+N when killed by signal N).\n"
    "Without the scan guard, COMMAND still runs (with a warning) unless\n"
    "--require is given. When the guard stops while COMMAND runs (an\n"
    "upgrade restarts it), the hold is lost: a warning says so, and the\n"
    "hold is taken again when the guard is back.");
  /* Options end at the command: its own options are not ours. */
  g_option_context_set_strict_posix (ctx, TRUE);
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  command = argv + 1;
  if (command[0] && g_str_equal (command[0], "--"))
    command++;
  if (!command[0])
    return wf_cli_usage_error ("no command given");
  if (!reason)
    reason = g_path_get_basename (command[0]);

  bus = wf_cli_scan_system_bus (&error);
  hold.bus = bus;
  hold.reason = reason;
  if (bus)
    hold.held = take_hold (bus, reason, &hold.cookie, &error);
  if (!hold.held)
    {
      g_autofree char *why = NULL;

      if (!bus)
        why = g_strdup_printf ("no system D-Bus: %s", error->message);
      else if (wf_cli_scan_is_absent (error))
        why = g_strdup ("the scan guard is not running");
      else
        {
          g_dbus_error_strip_remote_error (error);
          why = g_strdup (error->message);
        }
      if (require)
        return wf_cli_fail ("cannot hold scans: %s", why);
      g_printerr ("%s: warning: cannot hold scans (%s); running the command anyway\n",
                  g_get_prgname (), why);
    }

  loop = g_main_loop_new (NULL, FALSE);
  child.loop = loop;
  g_clear_error (&error);
  /* Handlers before the child exists, so no signal falls between; exec
   * resets them to the default in the child. */
  if (!catch_signals (old_sa, &error))
    {
      if (hold.held)
        release_hold (bus, hold.cookie);
      return wf_cli_fail ("cannot set up signals: %s", error->message);
    }
  sig_watch = g_unix_fd_add (sig_pipe[0], G_IO_IN, on_signal_fd, &child);
  if (!g_spawn_async (NULL, command, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD
                      | G_SPAWN_CHILD_INHERITS_STDIN,
                      NULL, NULL, &child.pid, &error))
    {
      g_source_remove (sig_watch);
      restore_signals (old_sa);
      if (hold.held)
        release_hold (bus, hold.cookie);
      wf_cli_fail ("cannot run %s: %s", command[0], error->message);
      /* As a shell does for a command it cannot run. */
      return 127;
    }
  g_child_watch_add (child.pid, child_exited, &child);
  /* Follows the guard while COMMAND runs (not before: a guard that was
   * never there is the warning above, or --require's failure). */
  if (bus)
    name_watch = g_bus_watch_name_on_connection (bus, WF_SCAN_BUS_NAME,
                                                 G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                 guard_appeared, guard_vanished,
                                                 &hold, NULL);
  g_main_loop_run (loop);
  if (name_watch)
    g_bus_unwatch_name (name_watch);
  g_source_remove (sig_watch);
  restore_signals (old_sa);
  if (hold.held)
    release_hold (bus, hold.cookie);

  if (WIFEXITED (child.wait_status))
    return WEXITSTATUS (child.wait_status);
  if (WIFSIGNALED (child.wait_status))
    return 128 + WTERMSIG (child.wait_status);
  return WF_EXIT_FAILURE;
}
