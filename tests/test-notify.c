/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wf_notify against a datagram socket of our own, the way systemd
 * listens: a path and an abstract name; and the watchdog variables. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "wlanfair-notify.h"

/* A bound datagram socket; name starting with '@' is abstract. */
static int
listener (const char *name)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t len = strlen (name);
  int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpuint (len, <, sizeof sa.sun_path);
  memcpy (sa.sun_path, name, len);
  if (name[0] == '@')
    sa.sun_path[0] = '\0';
  g_assert_cmpint (bind (fd, (struct sockaddr *) &sa,
                         (socklen_t) (offsetof (struct sockaddr_un, sun_path) + len +
                                      (name[0] == '/'))), ==, 0);
  return fd;
}

static char *
receive (int fd)
{
  char buf[512];
  ssize_t n = recv (fd, buf, sizeof buf - 1, MSG_DONTWAIT);

  g_assert_cmpint (n, >=, 0);
  buf[n] = '\0';
  return g_strdup (buf);
}

static void
test_path (void)
{
  g_autofree char *dir = g_dir_make_tmp ("wf-notify-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "notify", NULL);
  int fd = listener (path);
  g_autofree char *got = NULL;

  g_setenv ("NOTIFY_SOCKET", path, TRUE);
  g_assert_true (wf_notifyf ("READY=1\nSTATUS=%s registered", "ackloss_cubic"));
  got = receive (fd);
  g_assert_cmpstr (got, ==, "READY=1\nSTATUS=ackloss_cubic registered");
  close (fd);
  g_unlink (path);
  g_rmdir (dir);
  g_unsetenv ("NOTIFY_SOCKET");
}

static void
test_abstract (void)
{
  g_autofree char *name = g_strdup_printf ("@wlanfair-test-notify-%d", getpid ());
  int fd = listener (name);
  g_autofree char *got = NULL;

  g_setenv ("NOTIFY_SOCKET", name, TRUE);
  g_assert_true (wf_notify ("WATCHDOG=1"));
  got = receive (fd);
  g_assert_cmpstr (got, ==, "WATCHDOG=1");
  close (fd);
  g_unsetenv ("NOTIFY_SOCKET");
}

static void
test_no_manager (void)
{
  g_unsetenv ("NOTIFY_SOCKET");
  g_assert_false (wf_notify ("READY=1"));
  g_setenv ("NOTIFY_SOCKET", "vsock:2:1234", TRUE);
  g_assert_false (wf_notify ("READY=1"));
  g_setenv ("NOTIFY_SOCKET", "@", TRUE);
  g_assert_false (wf_notify ("READY=1"));
  /* Nobody bound there: the send fails, the caller carries on. */
  g_setenv ("NOTIFY_SOCKET", "/nonexistent/wlanfair/notify", TRUE);
  g_assert_false (wf_notify ("READY=1"));
  g_unsetenv ("NOTIFY_SOCKET");
}

static void
test_watchdog (void)
{
  g_autofree char *me = g_strdup_printf ("%d", getpid ());
  g_autofree char *other = g_strdup_printf ("%d", getpid () + 1);

  g_unsetenv ("WATCHDOG_PID");
  g_unsetenv ("WATCHDOG_USEC");
  g_assert_cmpuint (wf_notify_watchdog_usec (), ==, 0);
  g_setenv ("WATCHDOG_USEC", "30000000", TRUE);
  g_assert_cmpuint (wf_notify_watchdog_usec (), ==, 30000000);
  g_setenv ("WATCHDOG_PID", me, TRUE);
  g_assert_cmpuint (wf_notify_watchdog_usec (), ==, 30000000);
  g_setenv ("WATCHDOG_PID", other, TRUE);
  g_assert_cmpuint (wf_notify_watchdog_usec (), ==, 0);
  g_setenv ("WATCHDOG_PID", me, TRUE);
  for (const char *const *bad = (const char *const[]) { "0", "-5", "30s", "", "1e6", NULL };
       *bad; bad++)
    {
      g_setenv ("WATCHDOG_USEC", *bad, TRUE);
      g_assert_cmpuint (wf_notify_watchdog_usec (), ==, 0);
    }
  g_unsetenv ("WATCHDOG_PID");
  g_unsetenv ("WATCHDOG_USEC");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/notify/path", test_path);
  g_test_add_func ("/notify/abstract", test_abstract);
  g_test_add_func ("/notify/no-manager", test_no_manager);
  g_test_add_func ("/notify/watchdog", test_watchdog);

  return g_test_run ();
}
