/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state file: STATE_DIR/bgscan.state, a GKeyFile with one group per
 * network whose bgscan is ours (""), rewritten atomically (mode 0600) on
 * every change so that it is never half written. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "wlanfair-scan-state.h"
#include "wlanfair-file.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-readfile.h"

#define STATE_NAME "bgscan.state"

struct _WfScanState {
  char      *path;
  GPtrArray *entries;
};

static void
entry_free (gpointer p)
{
  WfScanStateEntry *e = p;

  g_free (e->network);
  g_free (e->owner);
  g_free (e->ifname);
  g_free (e->saved);
  g_free (e);
}

const char *
wf_scan_state_path (WfScanState *st)
{
  return st->path;
}

GPtrArray *
wf_scan_state_entries (WfScanState *st)
{
  return st->entries;
}

static gboolean
save (WfScanState *st, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *data = NULL;
  gsize len;

  g_key_file_set_comment (kf, NULL, NULL,
                          " wlanfair-scand: bgscan values to restore (written before each change)",
                          NULL);
  for (guint k = 0; k < st->entries->len; k++)
    {
      WfScanStateEntry *e = st->entries->pdata[k];

      g_key_file_set_string (kf, e->network, "owner", e->owner);
      g_key_file_set_string (kf, e->network, "interface", e->ifname);
      /* set_string escapes what a key file cannot hold verbatim. */
      g_key_file_set_string (kf, e->network, "saved", e->saved);
      g_key_file_set_int64 (kf, e->network, "since", e->since_us);
    }
  data = g_key_file_to_data (kf, &len, NULL);
  /* Atomic, and a regular file alone replaced (wlanfair-file.h). */
  return wf_file_write (st->path, data, len, 0600, WF_FILE_EXACT_MODE | WF_FILE_DURABLE, error);
}

static gboolean
load (WfScanState *st, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) groups = NULL;

  if (!wf_keyfile_load_bounded (kf, st->path, WF_READFILE_STATE_MAX, "a state file",
                                G_KEY_FILE_NONE, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  groups = g_key_file_get_groups (kf, NULL);
  for (guint g = 0; groups[g]; g++)
    {
      WfScanStateEntry *e = g_new0 (WfScanStateEntry, 1);

      e->network = g_strdup (groups[g]);
      e->owner = g_key_file_get_string (kf, groups[g], "owner", NULL);
      e->ifname = g_key_file_get_string (kf, groups[g], "interface", NULL);
      e->saved = g_key_file_get_string (kf, groups[g], "saved", NULL);
      e->since_us = g_key_file_get_int64 (kf, groups[g], "since", NULL);
      if (!e->owner || !e->saved || !g_variant_is_object_path (e->network))
        {
          g_warning ("%s: entry [%s] is incomplete; ignored", st->path, groups[g]);
          entry_free (e);
          continue;
        }
      if (!e->ifname)
        e->ifname = g_strdup ("?");
      g_ptr_array_add (st->entries, e);
    }
  return TRUE;
}

gboolean
wf_scan_state_check (const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename (dir, STATE_NAME, NULL);

  return wf_file_check_dir (dir, error) && wf_file_check (path, error);
}

WfScanState *
wf_scan_state_new (const char *dir, GError **error)
{
  WfScanState *st;

  /* Never created here: the daemon makes its own directory alone. */
  if (!wf_scan_state_check (dir, error))
    return NULL;
  st = g_new0 (WfScanState, 1);
  st->path = g_build_filename (dir, STATE_NAME, NULL);
  st->entries = g_ptr_array_new_with_free_func (entry_free);
  if (!load (st, error))
    {
      wf_scan_state_free (st);
      return NULL;
    }
  return st;
}

void
wf_scan_state_free (WfScanState *st)
{
  if (!st)
    return;
  g_ptr_array_free (st->entries, TRUE);
  g_free (st->path);
  g_free (st);
}

static gint
find (WfScanState *st, const char *network)
{
  for (guint k = 0; k < st->entries->len; k++)
    if (g_str_equal (((WfScanStateEntry *) st->entries->pdata[k])->network, network))
      return (gint) k;
  return -1;
}

gboolean
wf_scan_state_add (WfScanState *st, const char *network, const char *owner,
                   const char *ifname, const char *saved, GError **error)
{
  WfScanStateEntry *e = g_new0 (WfScanStateEntry, 1);
  gint k = find (st, network);

  e->network = g_strdup (network);
  e->owner = g_strdup (owner);
  e->ifname = g_strdup (ifname);
  e->saved = g_strdup (saved);
  e->since_us = g_get_real_time ();
  if (k >= 0)
    g_ptr_array_remove_index (st->entries, (guint) k);
  g_ptr_array_add (st->entries, e);
  if (!save (st, error))
    {
      /* Not on disk: the caller must not change bgscan. */
      g_ptr_array_remove (st->entries, e);
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_scan_state_remove (WfScanState *st, const char *network, GError **error)
{
  gint k = find (st, network);

  if (k < 0)
    return TRUE;
  g_ptr_array_remove_index (st->entries, (guint) k);
  if (st->entries->len == 0)
    {
      /* A regular file alone (wlanfair-file.h). */
      return wf_file_remove (st->path, error);
    }
  return save (st, error);
}
