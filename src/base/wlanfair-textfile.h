/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* node_exporter's textfile collector directory (Debian's
 * prometheus-node-exporter reads it). */
#define WF_TEXTFILE_DEFAULT_DIR "/var/lib/prometheus/node-exporter"

/* The directory a daemon's textfile goes to, one rule for every daemon:
 * `configured` as its textfile-dir= says (NULL: not set; "": none), else
 * node_exporter's, with *is_default TRUE. NULL: none. */
const char *wf_textfile_dir        (const char *configured,
                                    gboolean   *is_default);
/* Whether that directory is written to now: a configured one always (it
 * must work), the default only while it exists (node_exporter
 * installed); never NULL. */
gboolean    wf_textfile_dir_in_use (const char *dir,
                                    gboolean    is_default);

/* Writes `text` as DIR/NAME atomically (temporary file in the same
 * directory, then rename) so that the collector never reads half; mode
 * 0644 whatever the umask, so that node_exporter's user can read it.
 * DIR/NAME may replace a regular file alone (wf_file_write()). */
gboolean wf_textfile_write (const char *dir,
                            const char *name,
                            const char *text,
                            GError    **error);

/* What --check runs: DIR exists (never created) and DIR/NAME may be
 * written by wf_textfile_write(). */
gboolean wf_textfile_check (const char *dir,
                            const char *name,
                            GError    **error);

/* The exposition format's pieces every textfile of ours writes. */
void wf_textfile_family      (GString    *out,
                              const char *name,
                              const char *type,
                              const char *help);
/* A label value escaped as the format wants (\\, \", \n). */
void wf_textfile_label_value (GString    *out,
                              const char *value);

G_END_DECLS
