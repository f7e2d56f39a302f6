/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The two sysctls behind which congestion control sockets get, and how
 * wlanfair-tcpd changes and restores them. */
#include "wlanfair-tcp-sysctl.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-file.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-readfile.h"
#include "wlanfair-sysctl.h"

static gboolean
word_in (const char *list, const char *word)
{
  g_auto(GStrv) words = g_strsplit_set (list, " \t", -1);

  return g_strv_contains ((const char * const *) words, word);
}

/* The list without the given names, keeping everything else in order. */
static char *
list_without (const char *list, const char * const *remove)
{
  g_auto(GStrv) words = g_strsplit_set (list, " \t", -1);
  g_autoptr(GString) out = g_string_new (NULL);

  for (char **w = words; *w; w++)
    if (**w && !g_strv_contains (remove, *w))
      g_string_append_printf (out, "%s%s", out->len ? " " : "", *w);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
save (WfTcpSysctlState *state, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *data = NULL;
  gsize len;

  if (state->saved_default)
    g_key_file_set_string (kf, "saved", "default_cc", state->saved_default);
  /* Our CCs leave the allowed list on undo whatever it held: no one else
   * can have listed them, they did not exist before we registered them. */
  g_key_file_set_int64 (kf, "saved", "pid", getpid ());
  /* The state directory exists (made or checked at start); the file
   * replaces a regular file alone (wlanfair-file.h). */
  data = g_key_file_to_data (kf, &len, NULL);
  return wf_file_write (state->path, data, len, 0644, WF_FILE_DURABLE, error);
}

/* Undo, in the safe order: no default may name a CC about to go away,
 * and a CC leaves the allowed list only after it stopped being default. */
static gboolean
undo (const char *saved_default, const char * const *ours, GError **error)
{
  g_autofree char *current = wf_sysctl_read (WF_SYSCTL_DEFAULT_CC, error);
  g_autofree char *allowed = NULL;
  g_autofree char *reduced = NULL;

  if (current == NULL)
    return FALSE;
  if (g_strv_contains (ours, current))
    {
      const char *back = saved_default ? saved_default : "cubic";

      if (!wf_sysctl_write (WF_SYSCTL_DEFAULT_CC, back, error))
        return FALSE;
      g_message ("default congestion control: %s -> %s (restored)", current, back);
    }
  else if (saved_default && !g_str_equal (current, saved_default))
    g_message ("default congestion control was changed to %s by someone else; left as is",
               current);

  allowed = wf_sysctl_read (WF_SYSCTL_ALLOWED_CC, error);
  if (allowed == NULL)
    return FALSE;
  reduced = list_without (allowed, ours);
  if (!g_str_equal (reduced, allowed))
    {
      if (!wf_sysctl_write (WF_SYSCTL_ALLOWED_CC, reduced, error))
        return FALSE;
      g_message ("allowed congestion controls: '%s' -> '%s' (restored)", allowed, reduced);
    }
  return TRUE;
}

gboolean
wf_tcp_sysctl_recover (const char *state_path, const char * const *our_ccs, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autofree char *saved_default = NULL;

  if (!wf_keyfile_load_bounded (kf, state_path, WF_READFILE_STATE_MAX, "a state file",
                                G_KEY_FILE_NONE, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  g_message ("%s: an earlier instance did not stop cleanly; restoring its changes",
             state_path);
  saved_default = g_key_file_get_string (kf, "saved", "default_cc", NULL);
  if (!undo (saved_default, our_ccs, error))
    return FALSE;
  wf_file_remove (state_path, NULL);
  return TRUE;
}

gboolean
wf_tcp_sysctl_apply (WfTcpSysctlState   *state,
                     const char * const *allow,
                     const char         *make_default,
                     GError            **error)
{
  g_autofree char *allowed = wf_sysctl_read (WF_SYSCTL_ALLOWED_CC, error);
  g_autoptr(GString) wanted = NULL;

  if (allowed == NULL)
    return FALSE;
  if (make_default)
    {
      state->saved_default = wf_sysctl_read (WF_SYSCTL_DEFAULT_CC, error);
      if (state->saved_default == NULL)
        return FALSE;
    }

  wanted = g_string_new (allowed);
  for (guint i = 0; allow && allow[i]; i++)
    if (!word_in (allowed, allow[i]))
      g_string_append_printf (wanted, "%s%s", wanted->len ? " " : "", allow[i]);

  /* Written down before anything changes: a crash in between is undone. */
  if (!save (state, error))
    return FALSE;

  if (!g_str_equal (wanted->str, allowed))
    {
      if (!wf_sysctl_write (WF_SYSCTL_ALLOWED_CC, wanted->str, error))
        return FALSE;
      g_message ("allowed congestion controls: '%s' -> '%s'", allowed, wanted->str);
    }
  /* Allowed first: a restricted CC as a namespace default is refused
   * (and on some kernels leaks a reference). */
  if (make_default)
    {
      if (!wf_sysctl_write (WF_SYSCTL_DEFAULT_CC, make_default, error))
        return FALSE;
      g_message ("default congestion control: %s -> %s", state->saved_default, make_default);
    }
  return TRUE;
}

gboolean
wf_tcp_sysctl_restore (WfTcpSysctlState *state, const char * const *our_ccs, GError **error)
{
  if (!undo (state->saved_default, our_ccs, error))
    return FALSE;
  wf_file_remove (state->path, NULL);
  return TRUE;
}
