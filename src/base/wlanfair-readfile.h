/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The limits of what our programs read, documented in their man pages
 * (FILES). Far above any real file; low enough that /dev/zero or a 1 GB
 * file is refused in well under a second and 64 MiB. */
#define WF_READFILE_CONFIG_MAX   (1024 * 1024)       /* a configuration file */
#define WF_READFILE_STATE_MAX    (4 * 1024 * 1024)   /* a daemon's state or status file */
#define WF_READFILE_SERIES_MAX   (32 * 1024 * 1024)  /* a series CSV */
/* How long a read may take at most: a FIFO whose writer stalls. */
#define WF_READFILE_TIMEOUT_S    5

/* Reads PATH whole, at most MAX bytes: *contents is NUL-terminated (not
 * counted in *length). WHAT names the limit in the error ("a
 * configuration file"): "PATH: larger than MAX bytes (the limit for
 * WHAT)". Opens without blocking (O_NONBLOCK): a FIFO without a writer
 * reads as empty at once, a writer that pauses is waited for up to
 * WF_READFILE_TIMEOUT_S in all. A directory is refused
 * (G_FILE_ERROR_ISDIR); a failing open is a G_FILE_ERROR from errno
 * (G_FILE_ERROR_NOENT for a missing file); the rest are WF_ERROR. Every
 * error message starts with PATH. */
gboolean wf_readfile_bounded (const char *path,
                              gsize       max,
                              const char *what,
                              char      **contents,
                              gsize      *length,
                              GError    **error);

/* The same limit on a descriptor the caller holds (standard input, as
 * "-"), read from where it is to its end and left open; NAME stands for
 * the path in errors. Its blocking mode is the caller's: a blocking one
 * is waited on as long as its writer lives (the size still bounds it). */
gboolean wf_readfile_bounded_fd (int         fd,
                                 const char *name,
                                 gsize       max,
                                 const char *what,
                                 char      **contents,
                                 gsize      *length,
                                 GError    **error);

G_END_DECLS
