/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the scan guard's crash state (STATE_DIR/bgscan.state,
 * read by wf_scan_state_new at start and by --restore) on arbitrary
 * bytes, written to a state file in a temporary directory. Built by
 * run-fuzz scan-state;
 * fuzz-main.c replays the corpus (meson test scan-state-corpus).
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - NULL exactly when an error is set, with a non-empty message;
 *  - every entry kept is complete: its network a D-Bus object path (it
 *    is handed to wpa_supplicant as one), owner and saved set, an
 *    interface name ("?" when the file had none), networks distinct;
 *  - the same file read twice gives the same entries. */
#include "fuzz-file.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-scan-state.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Incomplete entries are logged and skipped: not worth a line each. */
static GLogWriterOutput
quiet (GLogLevelFlags level, const GLogField *fields, gsize n, gpointer user_data)
{
  (void) fields, (void) n, (void) user_data;
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    abort ();
  return G_LOG_WRITER_HANDLED;
}

static char *tmp_dir, *state_path;
static int state_fd = -1;

static void
remove_dir (void)
{
  close (state_fd);
  unlink (state_path);
  rmdir (tmp_dir);
}

/* The state file must be a regular file (wf_file_check refuses a
 * symlink): one kept open, rewritten for each input. */
static const char *
state_dir (const uint8_t *data, size_t size)
{
  if (!tmp_dir)
    {
      g_log_set_writer_func (quiet, NULL, NULL);
      tmp_dir = g_dir_make_tmp ("wlanfair-fuzz-scan-state.XXXXXX", NULL);
      g_assert_nonnull (tmp_dir);
      state_path = g_build_filename (tmp_dir, "bgscan.state", NULL);
      state_fd = open (state_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      g_assert_cmpint (state_fd, >=, 0);
      atexit (remove_dir);
    }
  if (ftruncate (state_fd, 0) < 0 || (size > 0 && pwrite (state_fd, data, size, 0) != (ssize_t) size))
    abort ();
  return tmp_dir;
}

static void
check_entries (GPtrArray *entries)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < entries->len; i++)
    {
      const WfScanStateEntry *e = entries->pdata[i];

      g_assert_true (g_variant_is_object_path (e->network));
      g_assert_true (e->owner && e->saved && e->ifname);
      g_assert_true (g_hash_table_add (seen, e->network));
    }
}

static gboolean
same (GPtrArray *a, GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const WfScanStateEntry *x = a->pdata[i], *y = b->pdata[i];

      if (!g_str_equal (x->network, y->network) || !g_str_equal (x->owner, y->owner) ||
          !g_str_equal (x->ifname, y->ifname) || !g_str_equal (x->saved, y->saved) ||
          x->since_us != y->since_us)
        return FALSE;
    }
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *dir = state_dir (data, size);
  g_autoptr(GError) error = NULL;
  WfScanState *st, *again;

  st = wf_scan_state_new (dir, &error);
  fuzz_check_error (st != NULL, error);
  if (!st)
    return 0;
  check_entries (wf_scan_state_entries (st));
  again = wf_scan_state_new (dir, NULL);
  g_assert_nonnull (again);
  g_assert_true (same (wf_scan_state_entries (st), wf_scan_state_entries (again)));
  wf_scan_state_free (again);
  wf_scan_state_free (st);
  return 0;
}
