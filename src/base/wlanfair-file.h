/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every file a wlanfair program writes (textfiles, status and state
 * files, plots, the local socket) goes through here, so that one rule
 * holds everywhere:
 *
 *  - PATH must be absent or a regular file; it is then replaced
 *    atomically (a temporary file in the same directory, every write and
 *    the close checked, then rename()), so no reader sees half of it.
 *  - A symbolic link at PATH is refused, never followed nor replaced:
 *    a daemon running as root must not write where a link points, and
 *    replacing the link would silently break what the user set up.
 *  - A directory, device, FIFO or socket at PATH is refused; the error
 *    names the path.
 *  - The directory holding PATH must already exist: it is never created
 *    here (a typo must not make /nonexistent/...). A program creates its
 *    own runtime or state directory alone, with wf_file_make_own_dir().
 *  - A socket path must fit sun_path (107 bytes), never cut short, and
 *    may replace nothing but a stale socket (one nobody listens on).
 *
 * The wf_file_check*() functions are what --check runs: the same tests
 * as the write, without writing. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef enum {
  WF_FILE_NONE = 0,
  /* Exactly `mode`, whatever the umask (a textfile node_exporter must
   * read); otherwise `mode` less the umask. */
  WF_FILE_EXACT_MODE = 1 << 0,
  /* fsync() before the rename: state a crash must not lose. */
  WF_FILE_DURABLE = 1 << 1,
} WfFileFlags;

/* The longest socket path: sun_path less its terminating NUL. */
#define WF_FILE_SOCKET_PATH_MAX 107

/* DIR exists and is a directory we may create files in. */
gboolean wf_file_check_dir    (const char *dir,
                               GError    **error);

/* PATH may be written by wf_file_write(): its directory exists, and
 * PATH is absent or a regular file (not a symbolic link). */
gboolean wf_file_check        (const char *path,
                               GError    **error);

/* Replaces PATH by `len` bytes of `data` atomically, after
 * wf_file_check(). */
gboolean wf_file_write        (const char  *path,
                               const void  *data,
                               gsize        len,
                               guint        mode,
                               WfFileFlags  flags,
                               GError     **error);

/* Removes PATH if it is a regular file (what wf_file_write() makes);
 * absent is fine. A link, device, FIFO or directory is left alone: an
 * error naming it (a daemon's cleanup must not delete /dev/null). */
gboolean wf_file_remove       (const char *path,
                               GError    **error);

/* PATH may hold a listening unix socket: short enough for sun_path, its
 * directory exists, and PATH is absent or a stale socket (connect()
 * refused). A live socket or anything else is an error. */
gboolean wf_file_check_socket (const char *path,
                               GError    **error);

/* wf_file_check_socket(), then removes the stale socket, if any, so that
 * bind() can create PATH. */
gboolean wf_file_claim_socket (const char *path,
                               GError    **error);

/* Removes PATH if it is still the socket we bound (device and inode
 * taken right after bind()); anything put there since is left alone. */
void     wf_file_remove_socket (const char *path,
                                dev_t       dev,
                                ino_t       ino);

/* Creates DIR (one level: its parent must exist) with MODE if missing;
 * an existing directory is fine, anything else at DIR an error. For a
 * program's own runtime or state directory only (what systemd's
 * RuntimeDirectory= makes for the service), never a user's path. */
gboolean wf_file_make_own_dir (const char *dir,
                               guint       mode,
                               GError    **error);

G_END_DECLS
