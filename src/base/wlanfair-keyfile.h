/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A daemon's configuration file of one section: loads PATH into *out.
 * A missing file is no error unless must_exist (*out is NULL then); any
 * other section, or a key of SECTION not in KNOWN, is (named, with the
 * known ones). Errors start with PATH. */
gboolean wf_keyfile_load_section (const char         *path,
                                  const char         *section,
                                  const char * const *known,
                                  gboolean            must_exist,
                                  GKeyFile          **out,
                                  GError            **error);

/* A yes/no value (yes true on 1 / no false off 0); the error names KEY. */
gboolean wf_keyfile_parse_bool (const char *key,
                                const char *value,
                                gboolean   *out,
                                GError    **error);

G_END_DECLS
