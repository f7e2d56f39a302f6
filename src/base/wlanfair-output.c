/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

static gboolean sigpipe_ignored_at_start;
/* errno of the first failed flush we saw: g_print() and the stream's
 * error flag keep no reason. */
static int      flush_errno;

gboolean
wf_output_flush (void)
{
  if (fflush (stdout) != 0 && flush_errno == 0)
    flush_errno = errno;
  return !ferror (stdout);
}

/* A write failed and nobody kept its errno (g_print() flushes itself):
 * a pipe or socket whose reader has gone reports POLLERR on our end. */
static int
guess_errno (void)
{
  struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

  if (poll (&p, 1, 0) == 1 && (p.revents & POLLERR))
    return EPIPE;
  return 0;
}

static void G_GNUC_NORETURN
die_of_sigpipe (void)
{
  sigset_t set;

  /* What a filter with SIGPIPE's default action does: no message, the
   * shell sees the signal. GIO ignored it, not our caller. */
  signal (SIGPIPE, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, SIGPIPE);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
  raise (SIGPIPE);
  _exit (1);
}

static void
write_error (int err)
{
  const char *name = g_get_prgname () ? g_get_prgname () : "wlanfair";

  /* stdio, not g_printerr(): a print handler must not run this late. */
  if (err)
    fprintf (stderr, "%s: write error: %s\n", name, g_strerror (err));
  else
    fprintf (stderr, "%s: write error\n", name);
  fflush (stderr);
}

static void
close_stdout (void)
{
  gboolean pending = __fpending (stdout) != 0;
  gboolean failed_before = ferror (stdout) != 0;
  /* Asked while fd 1 is still open. */
  int earlier = failed_before ? (flush_errno ? flush_errno : guess_errno ()) : 0;
  gboolean close_failed = fclose (stdout) != 0;
  int err = close_failed ? errno : 0;

  /* A stdout closed before we started (EBADF) that nothing was written
   * to is no error (coreutils' close_stream). */
  if (failed_before || (close_failed && (pending || err != EBADF)))
    {
      if (err == 0)
        err = earlier;
      if (err == EPIPE && !sigpipe_ignored_at_start)
        die_of_sigpipe ();
      write_error (err);
      _exit (1);
    }
  /* Nothing more can be said when standard error fails. */
  if (fflush (stderr) != 0 || ferror (stderr))
    _exit (1);
}

void
wf_output_close_at_exit (void)
{
  static gboolean registered;
  struct sigaction old;

  if (registered)
    return;
  registered = TRUE;
  /* A closed stdout or stderr stays unusable: the next file we open
   * would otherwise become fd 1 and receive our output. */
  for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
    if (fcntl (fd, F_GETFD) < 0 && errno == EBADF)
      {
        int null = open ("/dev/null", O_RDONLY | O_CLOEXEC);

        /* Read-only: every write still fails (EBADF), as on the closed fd. */
        if (null >= 0 && null != fd)
          {
            dup2 (null, fd);
            close (null);
          }
      }
  sigpipe_ignored_at_start = sigaction (SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
  atexit (close_stdout);
}
