/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sd_notify without libsystemd: the protocol is a stable interface that
 * systemd documents for reimplementation (sd_notify(3), "Standalone
 * implementations"). Linking libsystemd for these few lines mapped
 * libsystemd, libgcrypt, libgpg-error, libzstd, liblzma, liblz4 and libcap
 * into every daemon. */
#include "wlanfair-notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

gboolean
wf_notify (const char *state)
{
  const char *path = g_getenv ("NOTIFY_SOCKET");
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t len;
  socklen_t salen;
  ssize_t sent;
  int fd, saved;

  if (path == NULL || state == NULL)
    return FALSE;
  len = strlen (path);
  /* A path, or '@' for the abstract namespace; anything else (vsock:...)
   * is not for a local daemon. */
  if (len < 2 || len >= sizeof sa.sun_path || (path[0] != '/' && path[0] != '@'))
    {
      g_debug ("NOTIFY_SOCKET '%s' is not a local socket; not notifying", path);
      return FALSE;
    }
  memcpy (sa.sun_path, path, len);
  if (sa.sun_path[0] == '@')
    sa.sun_path[0] = '\0';
  salen = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + len + (path[0] == '/'));

  fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    {
      g_debug ("notify socket: %s", g_strerror (errno));
      return FALSE;
    }
  sent = sendto (fd, state, strlen (state), MSG_NOSIGNAL, (struct sockaddr *) &sa, salen);
  saved = errno;
  close (fd);
  if (sent < 0)
    {
      g_debug ("notify %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_notifyf (const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list ap;

  va_start (ap, format);
  text = g_strdup_vprintf (format, ap);
  va_end (ap);
  return wf_notify (text);
}

guint64
wf_notify_watchdog_usec (void)
{
  const char *usec = g_getenv ("WATCHDOG_USEC");
  const char *pid = g_getenv ("WATCHDOG_PID");
  guint64 v = 0, p = 0;

  if (usec == NULL || !g_ascii_string_to_unsigned (usec, 10, 1, G_MAXUINT64, &v, NULL))
    return 0;
  /* Meant for another process (a parent that exec'd us keeps the env). */
  if (pid != NULL &&
      (!g_ascii_string_to_unsigned (pid, 10, 1, G_MAXINT, &p, NULL) || (pid_t) p != getpid ()))
    return 0;
  return v;
}
