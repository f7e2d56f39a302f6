/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one way our programs read a file a user may name: bounded in size
 * and time, so /dev/zero, an endless FIFO or a huge file end in an error
 * and not in all of the memory. */
#include "wlanfair-readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlanfair-error.h"

/* Pieces of the input, joined at the end: a growing buffer would, under
 * ASan (whose quarantine keeps freed blocks), hold twice the limit. */
#define CHUNK (64 * 1024)

static void
set_errno_error (GError **error, const char *path, int e)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", path,
               g_strerror (e));
}

static void
set_too_large (GError **error, const char *path, gsize max, const char *what)
{
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
               "%s: larger than %" G_GSIZE_FORMAT " bytes (the limit for %s)", path, max, what);
}

/* Reads FD to its end, at most max bytes; FD is left open. */
static gboolean
read_all (int fd, const char *path, gsize max, const char *what, char **contents,
          gsize *length, GError **error)
{
  g_autoptr(GPtrArray) chunks = g_ptr_array_new_with_free_func (g_free);
  gint64 deadline = g_get_monotonic_time () + WF_READFILE_TIMEOUT_S * G_USEC_PER_SEC;
  gsize total = 0, fill = CHUNK;
  char *out;

  /* Read up to max + 1 bytes: one more than allowed is the proof. */
  while (total <= max)
    {
      gssize n;

      if (fill == CHUNK)
        {
          g_ptr_array_add (chunks, g_malloc (CHUNK));
          fill = 0;
        }
      n = read (fd, (char *) chunks->pdata[chunks->len - 1] + fill,
                MIN (CHUNK - fill, max + 1 - total));
      if (n > 0)
        {
          fill += (gsize) n;
          total += (gsize) n;
          continue;
        }
      if (n == 0)
        break;
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN)
        {
          struct pollfd p = { .fd = fd, .events = POLLIN };
          gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;

          /* Nothing yet from a writer that is still there: wait, but
           * not for ever. */
          if (left_ms > 0)
            {
              (void) poll (&p, 1, (int) MIN (left_ms, G_MAXINT));
              continue;
            }
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "%s: no end of file after %d s (a FIFO or device that does not end?)",
                       path, WF_READFILE_TIMEOUT_S);
          return FALSE;
        }
      set_errno_error (error, path, errno);
      return FALSE;
    }
  if (total > max)
    {
      set_too_large (error, path, max, what);
      return FALSE;
    }

  out = g_malloc (total + 1);
  for (gsize i = 0, done = 0; i < chunks->len; i++)
    {
      gsize n = MIN ((gsize) CHUNK, total - done);

      memcpy (out + done, chunks->pdata[i], n);
      done += n;
    }
  out[total] = '\0';
  *contents = out;
  if (length)
    *length = total;
  return TRUE;
}

gboolean
wf_readfile_bounded (const char *path, gsize max, const char *what, char **contents,
                     gsize *length, GError **error)
{
  struct stat st;
  gboolean ok;
  int fd;

  *contents = NULL;
  if (length)
    *length = 0;
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      set_errno_error (error, path, errno);
      return FALSE;
    }
  if (fstat (fd, &st) < 0)
    {
      set_errno_error (error, path, errno);
      close (fd);
      return FALSE;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "%s: is a directory", path);
      close (fd);
      return FALSE;
    }
  /* A regular file tells its size: refused without reading it. */
  if (S_ISREG (st.st_mode) && (guint64) st.st_size > max)
    {
      set_too_large (error, path, max, what);
      close (fd);
      return FALSE;
    }
  ok = read_all (fd, path, max, what, contents, length, error);
  close (fd);
  return ok;
}

gboolean
wf_readfile_bounded_fd (int fd, const char *name, gsize max, const char *what,
                        char **contents, gsize *length, GError **error)
{
  *contents = NULL;
  if (length)
    *length = 0;
  return read_all (fd, name, max, what, contents, length, error);
}
