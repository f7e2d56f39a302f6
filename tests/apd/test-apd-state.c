/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-apd's record of changes: what a crash must let the next start
 * (or --restore) undo. */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlanfair-apd-state.h"
#include "wlanfair-error.h"

typedef struct {
  char *dir;
  char *path;   /* dir/run/state */
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("wf-apd-state-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "run", "state", NULL);
  /* Only the default record's directory is ever made (wlanfair-file.h). */
  {
    g_autofree char *parent = g_path_get_dirname (f->path);

    g_assert_cmpint (g_mkdir (parent, 0700), ==, 0);
  }
}

static void
rm_rf (const char *path)
{
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        rm_rf (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  rm_rf (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

static guint
count_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d && g_dir_read_name (d))
    n++;
  return n;
}

static void
test_round_trip (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdState) st = wf_apd_state_open (f->path, &error);
  g_autoptr(WfApdState) again = NULL;
  g_autofree char *parent = g_path_get_dirname (f->path);
  g_auto(GStrv) groups = NULL;
  g_auto(GStrv) keys = NULL;
  g_auto(GStrv) none = NULL;
  g_autofree char *v = NULL;
  g_autofree char *multi = NULL;
  struct stat sb;

  g_assert_no_error (error);
  g_assert_cmpstr (wf_apd_state_path (st), ==, f->path);
  g_assert_true (wf_apd_state_is_empty (st));
  wf_apd_state_set (st, "rate:wlan0", "egress-before", "tbf 8001:");
  wf_apd_state_set (st, "rate:wlan0", "egress-before-options", "AAAA/+==");
  wf_apd_state_set (st, "rate:wlan0", "sta-aa:bb:cc:dd:ee:ff", "slot=2 down=1000000 up=0");
  wf_apd_state_set (st, "airtime:wlan1", "sta-02:00:00:00:00:01", "256");
  /* What a key file could not hold verbatim survives too. */
  wf_apd_state_set (st, "fake:wlan0", "odd", "  two\nlines # and = [x] ");
  g_assert_false (wf_apd_state_is_empty (st));
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));   /* memory only */
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_no_error (error);

  g_assert_cmpint (g_stat (f->path, &sb), ==, 0);
  g_assert_cmpint (sb.st_mode & 0777, ==, 0600);
  g_assert_cmpint (g_stat (parent, &sb), ==, 0);
  g_assert_cmpint (sb.st_mode & 0777, ==, 0700);

  again = wf_apd_state_open (f->path, &error);
  g_assert_no_error (error);
  groups = wf_apd_state_groups (again);
  g_assert_cmpuint (g_strv_length (groups), ==, 3);
  g_assert_cmpstr (groups[0], ==, "rate:wlan0");
  g_assert_cmpstr (groups[1], ==, "airtime:wlan1");
  g_assert_cmpstr (groups[2], ==, "fake:wlan0");
  keys = wf_apd_state_keys (again, "rate:wlan0");
  g_assert_cmpuint (g_strv_length (keys), ==, 3);
  g_assert_cmpstr (keys[2], ==, "sta-aa:bb:cc:dd:ee:ff");
  v = wf_apd_state_get (again, "rate:wlan0", "egress-before-options");
  g_assert_cmpstr (v, ==, "AAAA/+==");
  multi = wf_apd_state_get (again, "fake:wlan0", "odd");
  g_assert_cmpstr (multi, ==, "  two\nlines # and = [x] ");
  g_assert_null (wf_apd_state_get (again, "rate:wlan0", "nothing"));
  g_assert_null (wf_apd_state_get (again, "nothing:here", "x"));
  none = wf_apd_state_keys (again, "nothing:here");
  g_assert_nonnull (none);
  g_assert_cmpuint (g_strv_length (none), ==, 0);

  /* The last key of a group takes the group with it. */
  wf_apd_state_remove (again, "airtime:wlan1", "sta-02:00:00:00:00:01");
  wf_apd_state_remove (again, "airtime:wlan1", "sta-02:00:00:00:00:01");
  g_strfreev (groups);
  groups = wf_apd_state_groups (again);
  g_assert_cmpuint (g_strv_length (groups), ==, 2);
  wf_apd_state_remove_group (again, "fake:wlan0");
  wf_apd_state_remove_group (again, "not:there");
  g_assert_true (wf_apd_state_save (again, &error));
  g_clear_pointer (&st, wf_apd_state_free);
  st = wf_apd_state_open (f->path, &error);
  g_strfreev (groups);
  groups = wf_apd_state_groups (st);
  g_assert_cmpuint (g_strv_length (groups), ==, 1);
  g_assert_cmpstr (groups[0], ==, "rate:wlan0");
}

static void
test_atomic_save (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdState) st = wf_apd_state_open (f->path, &error);
  g_autofree char *parent = g_path_get_dirname (f->path);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *big = NULL;
  struct rlimit old, small;
  void (*old_handler) (int);
  gboolean ok;

  wf_apd_state_set (st, "rate:wlan0", "egress-before", "default");
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_true (g_file_get_contents (f->path, &before, NULL, NULL));

  /* A write that fails half-way (the file size limit stops it) leaves
   * the last record whole, and no temporary file beside it. */
  big = g_strnfill (64 * 1024, 'x');
  wf_apd_state_set (st, "rate:wlan0", "sta-aa:bb:cc:dd:ee:ff", big);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  small = old;
  small.rlim_cur = 4096;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  ok = wf_apd_state_save (st, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);
  signal (SIGXFSZ, old_handler);
  g_assert_false (ok);
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, f->path));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (f->path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (count_files (parent), ==, 1);

  /* Memory still differs from the file: the next save writes it all. */
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_no_error (error);
  g_clear_pointer (&after, g_free);
  g_assert_true (g_file_get_contents (f->path, &after, NULL, NULL));
  g_assert_nonnull (strstr (after, big));
  g_assert_cmpuint (count_files (parent), ==, 1);
}

static void
test_corrupt (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_path_get_dirname (f->path);
  WfApdState *st;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (f->path, "[rate:wlan0\negress-before=default\n", -1, NULL));
  st = wf_apd_state_open (f->path, &error);
  g_assert_null (st);
  g_assert_error (error, WF_ERROR, WF_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, f->path));
  g_clear_error (&error);

  /* A 1 GB (sparse) record: refused by its size, naming the limit. */
  g_assert_cmpint (truncate (f->path, (off_t) 1 << 30), ==, 0);
  st = wf_apd_state_open (f->path, &error);
  g_assert_null (st);
  g_assert_true (g_str_has_prefix (error->message, f->path));
  g_assert_nonnull (strstr (error->message, "(the limit for a state file)"));
  g_clear_error (&error);

  /* Not a file at all. */
  g_assert_cmpint (g_unlink (f->path), ==, 0);
  g_assert_cmpint (g_mkdir (f->path, 0700), ==, 0);
  st = wf_apd_state_open (f->path, &error);
  g_assert_null (st);
  g_assert_true (error->domain == WF_ERROR);   /* GLib calls it a parse error */
  g_assert_nonnull (strstr (error->message, f->path));
}

static void
test_empty_removed (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdState) st = wf_apd_state_open (f->path, &error);
  g_autoptr(WfApdState) again = NULL;

  /* Nothing recorded: no file, not even a directory. */
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));

  wf_apd_state_set (st, "fake:wlan0", "base", "installed");
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_true (g_file_test (f->path, G_FILE_TEST_EXISTS));
  wf_apd_state_remove (st, "fake:wlan0", "base");
  g_assert_true (wf_apd_state_is_empty (st));
  g_assert_true (g_file_test (f->path, G_FILE_TEST_EXISTS));   /* until saved */
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));

  /* A missing file opens as an empty record. */
  again = wf_apd_state_open (f->path, &error);
  g_assert_no_error (error);
  g_assert_true (wf_apd_state_is_empty (again));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/apd-state/round-trip", Fixture, NULL, setup, test_round_trip, teardown);
  g_test_add ("/apd-state/atomic-save", Fixture, NULL, setup, test_atomic_save, teardown);
  g_test_add ("/apd-state/corrupt", Fixture, NULL, setup, test_corrupt, teardown);
  g_test_add ("/apd-state/empty-removed", Fixture, NULL, setup, test_empty_removed, teardown);
  return g_test_run ();
}
