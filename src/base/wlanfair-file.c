/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place where a program decides whether it may write a path:
 * the rules are in wlanfair-file.h. */
#include "wlanfair-file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "wlanfair-error.h"

G_STATIC_ASSERT (WF_FILE_SOCKET_PATH_MAX == sizeof ((struct sockaddr_un *) 0)->sun_path - 1);

static const char *
kind (mode_t m)
{
  if (S_ISREG (m))
    return "a regular file";
  if (S_ISDIR (m))
    return "a directory";
  if (S_ISCHR (m))
    return "a character device";
  if (S_ISBLK (m))
    return "a block device";
  if (S_ISFIFO (m))
    return "a FIFO";
  if (S_ISSOCK (m))
    return "a socket";
  if (S_ISLNK (m))
    return "a symbolic link";
  return "of an unknown type";
}

static gboolean
fail_errno (GError **error, int err, const char *path)
{
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (err));
  return FALSE;
}

gboolean
wf_file_check_dir (const char *dir, GError **error)
{
  struct stat st;

  if (g_stat (dir, &st) < 0)
    {
      if (errno == ENOENT)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "%s: %s (a directory is never created)", dir, g_strerror (ENOENT));
          return FALSE;
        }
      return fail_errno (error, errno, dir);
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: not a directory", dir);
      return FALSE;
    }
  /* The temporary file and the rename both need it. */
  if (access (dir, W_OK | X_OK) < 0)
    return fail_errno (error, errno, dir);
  return TRUE;
}

/* PATH names a file, not a directory: "x/", "x/." and "" are refused
 * before anything is looked up. */
static gboolean
check_name (const char *path, GError **error)
{
  g_autofree char *base = NULL;

  if (path == NULL || *path == '\0')
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "empty file name");
      return FALSE;
    }
  base = g_path_get_basename (path);
  if (g_str_has_suffix (path, "/") || g_str_equal (base, ".") || g_str_equal (base, ".."))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: a directory, not a file name", path);
      return FALSE;
    }
  return TRUE;
}

/* The error names PATH too: the user typed it, not its directory. */
static gboolean
check_parent (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  GError *local = NULL;

  if (wf_file_check_dir (dir, &local))
    return TRUE;
  g_propagate_prefixed_error (error, local, "%s: ", path);
  return FALSE;
}

gboolean
wf_file_check (const char *path, GError **error)
{
  struct stat st;

  if (!check_name (path, error))
    return FALSE;
  if (g_lstat (path, &st) < 0)
    {
      if (errno != ENOENT)
        return fail_errno (error, errno, path);
    }
  else if (S_ISLNK (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: a symbolic link; refusing to write through or replace it", path);
      return FALSE;
    }
  else if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: %s, not a regular file; refusing to replace it", path, kind (st.st_mode));
      return FALSE;
    }
  return check_parent (path, error);
}

gboolean
wf_file_write (const char *path, const void *data, gsize len, guint mode,
               WfFileFlags flags, GError **error)
{
  g_autofree char *dir = NULL, *base = NULL, *tmp_name = NULL, *tmp = NULL;
  const char *p = data;
  gsize done = 0;
  int fd, err;

  if (!wf_file_check (path, error))
    return FALSE;
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  /* A dot name: node_exporter reads *.prom alone, and never this. */
  tmp_name = g_strdup_printf (".%s.XXXXXX", base);
  tmp = g_build_filename (dir, tmp_name, NULL);
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, (int) mode);
  if (fd < 0)
    {
      err = errno;
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "cannot write %s: %s", path, g_strerror (err));
      return FALSE;
    }
  if ((flags & WF_FILE_EXACT_MODE) && fchmod (fd, mode) < 0)
    goto fail;
  while (done < len)
    {
      gssize n = write (fd, p + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto fail;
      if (n == 0)
        {
          errno = EIO;
          goto fail;
        }
      done += (gsize) n;
    }
  if ((flags & WF_FILE_DURABLE) && fsync (fd) < 0)
    goto fail;
  /* close() is where NFS and a full quota say so. */
  if (close (fd) < 0)
    {
      fd = -1;
      goto fail;
    }
  fd = -1;
  if (g_rename (tmp, path) < 0)
    goto fail;
  return TRUE;

fail:
  err = errno;
  if (fd >= 0)
    close (fd);
  g_unlink (tmp);
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "cannot write %s: %s", path, g_strerror (err));
  return FALSE;
}

gboolean
wf_file_remove (const char *path, GError **error)
{
  struct stat st;

  if (g_lstat (path, &st) < 0)
    return errno == ENOENT ? TRUE : fail_errno (error, errno, path);
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: %s, not a regular file; not removed", path, kind (st.st_mode));
      return FALSE;
    }
  if (g_unlink (path) < 0 && errno != ENOENT)
    return fail_errno (error, errno, path);
  return TRUE;
}

/* 0 when nobody listens at PATH (ECONNREFUSED: a crashed instance's
 * leftover), 1 when somebody does, -1 (errno) when we cannot tell. */
static int
listened (const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int r, err;

  if (fd < 0)
    return -1;
  memcpy (sa.sun_path, path, strlen (path) + 1);
  r = connect (fd, (struct sockaddr *) &sa, sizeof sa);
  err = errno;
  close (fd);
  if (r == 0)
    return 1;
  /* A datagram socket answers a stream connect() with EPROTOTYPE:
   * somebody's, and alive or not, not ours to judge. */
  if (err == ECONNREFUSED)
    return 0;
  errno = err;
  return -1;
}

gboolean
wf_file_check_socket (const char *path, GError **error)
{
  struct stat st;
  gsize n;
  int l;

  if (!check_name (path, error))
    return FALSE;
  n = strlen (path);
  if (n > WF_FILE_SOCKET_PATH_MAX)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "%s: %" G_GSIZE_FORMAT " bytes, longer than a socket path may be (%d)",
                   path, n, WF_FILE_SOCKET_PATH_MAX);
      return FALSE;
    }
  if (g_lstat (path, &st) < 0)
    {
      if (errno != ENOENT)
        return fail_errno (error, errno, path);
      return check_parent (path, error);
    }
  if (!S_ISSOCK (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: %s, not a socket; refusing to replace it", path, kind (st.st_mode));
      return FALSE;
    }
  l = listened (path);
  if (l == 1)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: in use (a program listens there)", path);
      return FALSE;
    }
  if (l < 0)
    {
      int err = errno;

      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: cannot tell whether the socket is in use: %s", path, g_strerror (err));
      return FALSE;
    }
  return check_parent (path, error);
}

gboolean
wf_file_claim_socket (const char *path, GError **error)
{
  if (!wf_file_check_socket (path, error))
    return FALSE;
  if (g_unlink (path) < 0 && errno != ENOENT)
    return fail_errno (error, errno, path);
  return TRUE;
}

void
wf_file_remove_socket (const char *path, dev_t dev, ino_t ino)
{
  struct stat st;

  if (g_lstat (path, &st) == 0 && S_ISSOCK (st.st_mode) && st.st_dev == dev && st.st_ino == ino)
    g_unlink (path);
}

gboolean
wf_file_make_own_dir (const char *dir, guint mode, GError **error)
{
  struct stat st;

  if (g_mkdir (dir, (int) mode) == 0)
    return TRUE;
  if (errno != EEXIST)
    return fail_errno (error, errno, dir);
  /* Followed: systemd's DynamicUser= makes RuntimeDirectory= a link to
   * /run/private/NAME. What it leads to must be a directory of ours (or
   * root's): a link somewhere else is not our directory. */
  if (g_stat (dir, &st) < 0)
    return fail_errno (error, errno, dir);
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s, not a directory", dir,
                   kind (st.st_mode));
      return FALSE;
    }
  if (st.st_uid != geteuid () && st.st_uid != 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s: owned by uid %u, not by this program (uid %u) or root", dir,
                   (guint) st.st_uid, (guint) geteuid ());
      return FALSE;
    }
  return TRUE;
}
