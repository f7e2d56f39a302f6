/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-keyfile.h"

#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-readfile.h"

/* What GKeyFile lets pass silently: it keeps the last of two equal keys
 * (also across a repeated [section]), takes key[de]= as a translation,
 * and only warns (a GLib-CRITICAL later) about text that is not UTF-8.
 * Checked over the raw text, so the error can name the file, line and
 * key. */
static gboolean
check_raw (const char *path, const char *text, gsize len, const char *section,
           GError **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *group = NULL;
  const char *p = text, *end = text + len;

  for (guint lineno = 1; p < end; lineno++)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *eol = nl ? nl : end;
      const char *bad = NULL;
      const char *eq;
      g_autofree char *key = NULL;
      g_autofree char *qualified = NULL;

      while (p < eol && g_ascii_isspace (*p))
        p++;
      if (!g_utf8_validate (p, eol - p, &bad))
        {
          /* The key, if the bad byte is in the value: the key is ASCII. */
          eq = memchr (p, '=', (gsize) (eol - p));
          if (*p != '#' && *p != '[' && eq && eq < bad)
            {
              g_autofree char *k = g_strstrip (g_strndup (p, (gsize) (eq - p)));

              g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                           "%s:%u: [%s] %s: the value is not valid UTF-8", path, lineno,
                           group ? group : "", k);
            }
          else
            g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s:%u: not valid UTF-8", path,
                         lineno);
          return FALSE;
        }
      if (p == eol || *p == '#')
        ;
      else if (*p == '[')
        {
          const char *close = memchr (p, ']', (gsize) (eol - p));

          /* Not a group line: GKeyFile's parse error names it. */
          if (!close)
            return TRUE;
          g_free (group);
          group = g_strndup (p + 1, (gsize) (close - p - 1));
        }
      else if ((eq = memchr (p, '=', (gsize) (eol - p))) != NULL)
        {
          key = g_strstrip (g_strndup (p, (gsize) (eq - p)));
          if (group == NULL)
            {
              g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                           "%s:%u: key '%s' before any section (start with [%s])", path,
                           lineno, key, section);
              return FALSE;
            }
          if (!g_str_equal (group, section))
            {
              g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                           "%s:%u: key '%s' in unknown section [%s] (only [%s] is read)", path,
                           lineno, key, group, section);
              return FALSE;
            }
          if (strchr (key, '['))
            {
              g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                           "%s:%u: [%s] %s: localized keys are not supported", path,
                           lineno, group, key);
              return FALSE;
            }
          qualified = g_strconcat (group, "\n", key, NULL);
          if (!g_hash_table_add (seen, g_steal_pointer (&qualified)))
            {
              g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                           "%s:%u: [%s] %s: duplicate key (set it once)", path, lineno,
                           group, key);
              return FALSE;
            }
        }
      /* Anything else: GKeyFile's own error names it. */
      p = nl ? nl + 1 : end;
    }
  return TRUE;
}

gboolean
wf_keyfile_load_section (const char *path, const char *section, const char * const *known,
                         gboolean must_exist, GKeyFile **out, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) groups = NULL;
  g_auto(GStrv) keys = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  *out = NULL;
  if (!wf_readfile_bounded (path, WF_READFILE_CONFIG_MAX, "a configuration file", &text,
                            &len, &local))
    {
      if (!must_exist && g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (!check_raw (path, text, len, section, error))
    return FALSE;
  if (!g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, &local))
    {
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
wf_keyfile_load_bounded (GKeyFile *kf, const char *path, gsize max, const char *what,
                         GKeyFileFlags flags, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  if (!wf_readfile_bounded (path, max, what, &text, &len, error))
    return FALSE;
  if (!g_key_file_load_from_data (kf, text, len, flags, &local))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
      return FALSE;
    }
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
