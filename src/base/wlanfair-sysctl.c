/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-sysctl.h"

#include <errno.h>
#include <stdio.h>

#include "wlanfair-error.h"

char *
wf_sysctl_read (const char *name, GError **error)
{
  g_autofree char *path = g_build_filename ("/proc/sys", name, NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  return g_strstrip (text);
}

gboolean
wf_sysctl_write (const char *name, const char *value, GError **error)
{
  g_autofree char *path = g_build_filename ("/proc/sys", name, NULL);
  FILE *f = fopen (path, "we");
  int ok;

  if (f == NULL)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  ok = fputs (value, f) >= 0;
  ok = (fclose (f) == 0) && ok; /* the kernel reports EINVAL/ENOENT here */
  if (!ok)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "writing '%s' to %s: %s",
                   value, path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}
