/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record of changes: a GKeyFile in memory, written whole on save
 * (temporary file, fsync, rename: a crash leaves the old record or the
 * new one, never half of each). */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "wlanfair-apd-state.h"
#include "wlanfair-error.h"
#include "wlanfair-file.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-readfile.h"

struct _WfApdState {
  char     *path;
  GKeyFile *kf;
  gboolean  dirty;   /* memory differs from the file */
};

WfApdState *
wf_apd_state_open (const char *path, GError **error)
{
  g_autoptr(GError) local = NULL;
  WfApdState *st;

  g_return_val_if_fail (path != NULL && *path, NULL);

  st = g_new0 (WfApdState, 1);
  st->path = g_strdup (path);
  st->kf = g_key_file_new ();
  if (!wf_keyfile_load_bounded (st->kf, path, WF_READFILE_STATE_MAX, "a state file",
                                G_KEY_FILE_KEEP_COMMENTS, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return st;
      /* Nothing would undo what an unreadable record holds: say which
       * file, and let the caller stop. */
      g_set_error (error, WF_ERROR,
                   g_error_matches (local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE) ||
                   g_error_matches (local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_UNKNOWN_ENCODING)
                   ? WF_ERROR_PARSE : WF_ERROR_FAILED,
                   "%s (the record of wlanfair-apd's changes; undo them by hand "
                   "before removing it)", local->message);
      wf_apd_state_free (st);
      return NULL;
    }
  return st;
}

void
wf_apd_state_free (WfApdState *st)
{
  if (!st)
    return;
  g_key_file_unref (st->kf);
  g_free (st->path);
  g_free (st);
}

const char *
wf_apd_state_path (WfApdState *st)
{
  return st->path;
}

char **
wf_apd_state_groups (WfApdState *st)
{
  return g_key_file_get_groups (st->kf, NULL);
}

char **
wf_apd_state_keys (WfApdState *st, const char *group)
{
  char **keys = g_key_file_get_keys (st->kf, group, NULL, NULL);

  return keys ? keys : g_new0 (char *, 1);
}

char *
wf_apd_state_get (WfApdState *st, const char *group, const char *key)
{
  return g_key_file_get_string (st->kf, group, key, NULL);
}

void
wf_apd_state_set (WfApdState *st, const char *group, const char *key, const char *value)
{
  g_autofree char *old = wf_apd_state_get (st, group, key);

  g_return_if_fail (value != NULL);
  if (g_strcmp0 (old, value) == 0)
    return;
  /* set_string escapes newlines and leading blanks. */
  g_key_file_set_string (st->kf, group, key, value);
  st->dirty = TRUE;
}

void
wf_apd_state_remove (WfApdState *st, const char *group, const char *key)
{
  gsize n = 0;
  g_auto(GStrv) keys = NULL;

  if (!g_key_file_remove_key (st->kf, group, key, NULL))
    return;
  st->dirty = TRUE;
  /* A group without keys records nothing: drop it. */
  keys = g_key_file_get_keys (st->kf, group, &n, NULL);
  if (n == 0)
    g_key_file_remove_group (st->kf, group, NULL);
}

void
wf_apd_state_remove_group (WfApdState *st, const char *group)
{
  if (g_key_file_remove_group (st->kf, group, NULL))
    st->dirty = TRUE;
}

gboolean
wf_apd_state_is_empty (WfApdState *st)
{
  gsize n = 0;
  g_auto(GStrv) groups = g_key_file_get_groups (st->kf, &n);

  return n == 0;
}

/* The default record's directory is ours (RuntimeDirectory=, or made
 * here on a run by hand); any other must exist (wlanfair-file.h). */
static gboolean
make_parent (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (!g_str_equal (path, WF_APD_STATE_DEFAULT))
    return TRUE;
  return wf_file_make_own_dir (dir, 0700, error);
}

gboolean
wf_apd_state_save (WfApdState *st, GError **error)
{
  g_autofree char *data = NULL;
  gsize len;

  if (wf_apd_state_is_empty (st))
    {
      /* Nothing left to undo: no file (as after a clean stop). */
      if (!wf_file_remove (st->path, error))
        return FALSE;
      st->dirty = FALSE;
      return TRUE;
    }
  if (!st->dirty)
    return TRUE;
  if (!make_parent (st->path, error))
    return FALSE;
  g_key_file_set_comment (st->kf, NULL, NULL,
                          " wlanfair-apd: what its actuators changed (written before each "
                          "change; `wlanfair-apd --restore` undoes it)", NULL);
  data = g_key_file_to_data (st->kf, &len, NULL);
  /* Atomic, and a regular file alone replaced: the message names it. */
  if (!wf_file_write (st->path, data, len, 0600, WF_FILE_EXACT_MODE | WF_FILE_DURABLE, error))
    return FALSE;
  st->dirty = FALSE;
  return TRUE;
}
