/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files for node_exporter's textfile collector, written the way it needs:
 * whole or not at all, readable by its user. */
#include "wlanfair-textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "wlanfair-error.h"

gboolean
wf_textfile_write (const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  /* A dot name: the collector reads *.prom only, and never this. */
  g_autofree char *dot = g_strdup_printf (".%s.XXXXXX", name);
  g_autofree char *tmp = g_build_filename (dir, dot, NULL);
  gsize len = strlen (text);
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  gboolean ok;

  if (fd < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", tmp, g_strerror (errno));
      return FALSE;
    }
  /* Readable by node_exporter whatever our umask. */
  ok = fchmod (fd, 0644) == 0 && write (fd, text, len) == (gssize) len;
  if (!ok)
    g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "writing %s: %s", tmp, g_strerror (errno));
  if (close (fd) < 0 && ok)
    {
      ok = FALSE;
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "writing %s: %s", tmp, g_strerror (errno));
    }
  if (ok && g_rename (tmp, path) < 0)
    {
      ok = FALSE;
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
    }
  if (!ok)
    g_unlink (tmp);
  return ok;
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
