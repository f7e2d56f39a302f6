/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A daemon's life under systemd, against a notify socket of our own:
 * READY once, the watchdog's period, STOPPING once, a stop signal. */
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "wlanfair-daemon.h"

typedef struct {
  char *dir, *path;
  int   fd;
} Manager;

/* A datagram socket where systemd would listen, named by NOTIFY_SOCKET. */
static void
manager_start (Manager *m)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  m->dir = g_dir_make_tmp ("wf-daemon-XXXXXX", NULL);
  g_assert_nonnull (m->dir);
  m->path = g_build_filename (m->dir, "notify", NULL);
  g_assert_cmpuint (strlen (m->path), <, sizeof sa.sun_path);
  strcpy (sa.sun_path, m->path);
  m->fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (m->fd, >=, 0);
  g_assert_cmpint (bind (m->fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  g_setenv ("NOTIFY_SOCKET", m->path, TRUE);
}

/* The next datagram, NULL when none is queued. */
static char *
manager_next (Manager *m)
{
  char buf[512];
  ssize_t n = recv (m->fd, buf, sizeof buf - 1, MSG_DONTWAIT);

  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return g_strdup (buf);
}

static void
manager_stop (Manager *m)
{
  g_unsetenv ("NOTIFY_SOCKET");
  close (m->fd);
  g_unlink (m->path);
  g_rmdir (m->dir);
  g_free (m->path);
  g_free (m->dir);
}

static void
assert_next (Manager *m, const char *want)
{
  g_autofree char *got = manager_next (m);

  g_assert_cmpstr (got, ==, want);
}

static void
test_ready_stopping (void)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Manager m;
  g_autoptr(WfDaemon) d = NULL;

  manager_start (&m);
  d = wf_daemon_new ("test", loop, "stopping");
  g_assert_false (wf_daemon_is_ready (d));
  wf_daemon_ready (d, "%u interface(s)", 2);
  assert_next (&m, "READY=1\nSTATUS=2 interface(s)");
  g_assert_true (wf_daemon_is_ready (d));
  /* Later: the status alone. */
  wf_daemon_ready (d, "reports paused");
  assert_next (&m, "STATUS=reports paused");
  wf_daemon_stopping (d);
  assert_next (&m, "STOPPING=1");
  wf_daemon_stopping (d);
  assert_next (&m, NULL);
  manager_stop (&m);
}

static void
test_watchdog (void)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autofree char *me = g_strdup_printf ("%d", getpid ());
  Manager m;

  manager_start (&m);
  g_setenv ("WATCHDOG_PID", me, TRUE);
  /* Half of WatchdogSec=; never under 1 ms. */
  for (const char *const *c = (const char *const[]) { "30000000", "15000000", "2400", "1200",
                                                       "1500", "1000", NULL }; *c; c += 2)
    {
      g_autoptr(WfDaemon) d = NULL;
      guint64 want;

      g_setenv ("WATCHDOG_USEC", c[0], TRUE);
      d = wf_daemon_new ("test", loop, "stopping");
      g_assert_true (g_ascii_string_to_unsigned (c[1], 10, 0, G_MAXINT64, &want, NULL));
      g_assert_cmpint (wf_daemon_watchdog_interval_us (d), ==, (gint64) want);
      wf_daemon_watchdog_ping (d);
      assert_next (&m, "WATCHDOG=1");
    }
  g_unsetenv ("WATCHDOG_USEC");
  {
    g_autoptr(WfDaemon) d = wf_daemon_new ("test", loop, "stopping");

    /* Off: nothing to ping. */
    g_assert_cmpint (wf_daemon_watchdog_interval_us (d), ==, 0);
    wf_daemon_watchdog_ping (d);
    assert_next (&m, NULL);
  }
  g_unsetenv ("WATCHDOG_PID");
  manager_stop (&m);
}

static gboolean
send_term (gpointer data)
{
  raise (SIGTERM);
  return G_SOURCE_REMOVE;
}

static gboolean
too_long (gpointer data)
{
  g_assert_not_reached ();
  return G_SOURCE_REMOVE;
}

/* SIGTERM: the stop line, STOPPING=1 and the loop ends; again: only
 * the loop ends. */
static void
test_signal (void)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(WfDaemon) d = NULL;
  Manager m;
  guint guard;

  manager_start (&m);
  d = wf_daemon_new ("test", loop, "stopping: restoring");
  g_idle_add (send_term, NULL);
  guard = g_timeout_add_seconds (30, too_long, NULL);
  g_test_expect_message ("test", G_LOG_LEVEL_MESSAGE, "stopping: restoring");
  g_main_loop_run (loop);
  g_test_assert_expected_messages ();
  g_source_remove (guard);
  assert_next (&m, "STOPPING=1");
  /* Said once, whoever asks again. */
  wf_daemon_stopping (d);
  assert_next (&m, NULL);
  /* A second SIGTERM during the cleanup is handled (the process lives
   * on), quits the loop again and says nothing new. */
  g_idle_add (send_term, NULL);
  guard = g_timeout_add_seconds (30, too_long, NULL);
  g_main_loop_run (loop);
  g_source_remove (guard);
  assert_next (&m, NULL);
  manager_stop (&m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/daemon/ready-stopping", test_ready_stopping);
  g_test_add_func ("/daemon/watchdog", test_watchdog);
  g_test_add_func ("/daemon/signal", test_signal);

  return g_test_run ();
}
