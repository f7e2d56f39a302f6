/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files for node_exporter's textfile collector, written the way it needs:
 * whole or not at all, readable by its user. */
#include "wlanfair-textfile.h"

#include <string.h>

#include "wlanfair-file.h"

const char *
wf_textfile_dir (const char *configured, gboolean *is_default)
{
  *is_default = configured == NULL;
  if (configured == NULL)
    return WF_TEXTFILE_DEFAULT_DIR;
  return configured[0] ? configured : NULL;
}

gboolean
wf_textfile_dir_in_use (const char *dir, gboolean is_default)
{
  return dir != NULL && (!is_default || g_file_test (dir, G_FILE_TEST_IS_DIR));
}

gboolean
wf_textfile_check (const char *dir, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return wf_file_check_dir (dir, error) && wf_file_check (path, error);
}

gboolean
wf_textfile_write (const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  /* Readable by node_exporter whatever our umask. */
  return wf_file_write (path, text, strlen (text), 0644, WF_FILE_EXACT_MODE, error);
}

void
wf_textfile_family (GString *out, const char *name, const char *type, const char *help)
{
  g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void
wf_textfile_label_value (GString *out, const char *value)
{
  for (const char *p = value; *p; p++)
    {
      if (*p == '\\' || *p == '"')
        g_string_append_c (out, '\\');
      if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
}
