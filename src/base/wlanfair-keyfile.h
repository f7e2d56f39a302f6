/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A daemon's configuration file of one section: loads PATH into *out.
 * A missing file is no error unless must_exist (*out is NULL then); any
 * other section, or a key of SECTION not in KNOWN, is (named, with the
 * known ones). So is what GKeyFile would take silently: text that is not
 * UTF-8, a key set twice, a localized key (key[de]=), a key outside
 * [SECTION]; and a file over WF_READFILE_CONFIG_MAX bytes. Errors start
 * with PATH. */
gboolean wf_keyfile_load_section (const char         *path,
                                  const char         *section,
                                  const char * const *known,
                                  gboolean            must_exist,
                                  GKeyFile          **out,
                                  GError            **error);

/* A key file the program wrote itself (state under /run): PATH into KF,
 * at most MAX bytes (WHAT names the limit in the error). Errors start
 * with PATH; a missing file is G_FILE_ERROR_NOENT, a parse error keeps
 * GKeyFile's domain and code. */
gboolean wf_keyfile_load_bounded (GKeyFile     *kf,
                                  const char   *path,
                                  gsize         max,
                                  const char   *what,
                                  GKeyFileFlags flags,
                                  GError      **error);

/* A yes/no value (yes true on 1 / no false off 0); the error names KEY. */
gboolean wf_keyfile_parse_bool (const char *key,
                                const char *value,
                                gboolean   *out,
                                GError    **error);

/* systemd's LoadCredential=NAME:/etc/wlanfair/NAME: a root-only file
 * (a key) handed to a DynamicUser service as its own copy. The path of
 * $CREDENTIALS_DIRECTORY/NAME when it exists, else NULL. */
char    *wf_keyfile_credential (const char *name);

G_END_DECLS
