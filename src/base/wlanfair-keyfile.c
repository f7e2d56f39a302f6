/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-keyfile.h"

#include "wlanfair-error.h"

gboolean
wf_keyfile_load_section (const char *path, const char *section, const char * const *known,
                         gboolean must_exist, GKeyFile **out, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) groups = NULL;
  g_auto(GStrv) keys = NULL;

  *out = NULL;
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local))
    {
      if (!must_exist && g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
      return FALSE;
    }
  groups = g_key_file_get_groups (kf, NULL);
  for (char **g = groups; *g; g++)
    if (!g_str_equal (*g, section))
      {
        g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                     "%s: unknown section [%s] (only [%s])", path, *g, section);
        return FALSE;
      }
  keys = g_key_file_get_keys (kf, section, NULL, NULL);
  /* Unknown keys first, so a typo is named even next to a bad value. */
  for (char **k = keys; k && *k; k++)
    if (!g_strv_contains (known, *k))
      {
        g_autofree char *list = g_strjoinv (", ", (char **) known);

        g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                     "%s: unknown key '%s' in [%s] (known: %s)", path, *k, section, list);
        return FALSE;
      }
  *out = g_steal_pointer (&kf);
  return TRUE;
}

gboolean
wf_keyfile_parse_bool (const char *key, const char *v, gboolean *out, GError **error)
{
  static const char * const yes[] = { "yes", "true", "on", "1", NULL };
  static const char * const no[] = { "no", "false", "off", "0", NULL };

  if (g_strv_contains (yes, v))
    *out = TRUE;
  else if (g_strv_contains (no, v))
    *out = FALSE;
  else
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s '%s' must be yes or no", key, v);
      return FALSE;
    }
  return TRUE;
}

char *
wf_keyfile_credential (const char *name)
{
  const char *dir = g_getenv ("CREDENTIALS_DIRECTORY");
  g_autofree char *path = dir ? g_build_filename (dir, name, NULL) : NULL;

  return path && g_file_test (path, G_FILE_TEST_EXISTS) ? g_steal_pointer (&path) : NULL;
}
