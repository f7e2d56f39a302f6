/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state file (what a crash must let the next start restore), and the
 * decoding of wpa_supplicant's quoted Properties values. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlanfair-scan-state.h"
#include "wlanfair-scan-wpas.h"

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("wfs-state-XXXXXX", &error);
  g_autofree char *sub = g_build_filename (dir, "run", NULL);
  WfScanState *st, *again;
  WfScanStateEntry *e;
  struct stat sb;

  /* The directory is never created (the daemon makes its own alone). */
  g_assert_null (wf_scan_state_new (sub, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, sub));
  g_assert_false (g_file_test (sub, G_FILE_TEST_EXISTS));
  g_clear_error (&error);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  st = wf_scan_state_new (sub, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (wf_scan_state_entries (st)->len, ==, 0);
  g_assert_false (g_file_test (wf_scan_state_path (st), G_FILE_TEST_EXISTS));
  g_assert_true (wf_scan_state_add (st, "/fi/w1/wpa_supplicant1/Interfaces/0/Networks/0", ":1.7",
                                    "wlan0", "simple:30:-70:86400", &error));
  g_assert_true (wf_scan_state_add (st, "/fi/w1/wpa_supplicant1/Interfaces/1/Networks/3", ":1.7",
                                    "wlan1", "learn:30:-65:300:/var/lib/a b=c", &error));
  /* Re-adding a network replaces its entry. */
  g_assert_true (wf_scan_state_add (st, "/fi/w1/wpa_supplicant1/Interfaces/0/Networks/0", ":1.7",
                                    "wlan0", "simple:30:-65:300", &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (wf_scan_state_path (st), &sb), ==, 0);
  g_assert_cmpint (sb.st_mode & 0777, ==, 0600);

  /* What the next start reads after a crash. */
  again = wf_scan_state_new (sub, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (wf_scan_state_entries (again)->len, ==, 2);
  e = wf_scan_state_entries (again)->pdata[1];
  g_assert_cmpstr (e->network, ==, "/fi/w1/wpa_supplicant1/Interfaces/0/Networks/0");
  g_assert_cmpstr (e->owner, ==, ":1.7");
  g_assert_cmpstr (e->ifname, ==, "wlan0");
  g_assert_cmpstr (e->saved, ==, "simple:30:-65:300");
  g_assert_cmpint (e->since_us, >, 0);
  e = wf_scan_state_entries (again)->pdata[0];
  g_assert_cmpstr (e->saved, ==, "learn:30:-65:300:/var/lib/a b=c");
  wf_scan_state_free (again);

  g_assert_true (wf_scan_state_remove (st, "/fi/w1/wpa_supplicant1/Interfaces/1/Networks/3", &error));
  g_assert_true (wf_scan_state_remove (st, "/nonexistent", &error));
  g_assert_true (g_file_test (wf_scan_state_path (st), G_FILE_TEST_EXISTS));
  g_assert_true (wf_scan_state_remove (st, "/fi/w1/wpa_supplicant1/Interfaces/0/Networks/0", &error));
  g_assert_no_error (error);
  /* Nothing left to restore: no file. */
  g_assert_false (g_file_test (wf_scan_state_path (st), G_FILE_TEST_EXISTS));
  wf_scan_state_free (st);
  g_rmdir (sub);
  g_rmdir (dir);
}

/* A 1 GB (sparse) state file: refused by its size, naming the limit. */
static void
test_huge (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("wfs-state-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "bgscan.state", NULL);

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  g_assert_cmpint (truncate (path, (off_t) 1 << 30), ==, 0);
  g_assert_null (wf_scan_state_new (dir, &error));
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "(the limit for a state file)"));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_unwritable (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("wfs-state-XXXXXX", &error);
  g_autofree char *blocker = NULL;
  WfScanState *st = wf_scan_state_new (dir, &error);

  g_assert_no_error (error);
  /* A directory where the file should be: the write fails, and the entry
   * is not kept (the caller must then leave bgscan alone). */
  blocker = g_build_filename (dir, "bgscan.state", NULL);
  g_assert_cmpint (g_mkdir (blocker, 0700), ==, 0);
  g_assert_false (wf_scan_state_add (st, "/a", ":1.1", "wlan0", "simple:1:-2:3", &error));
  g_assert_nonnull (error);
  g_assert_cmpuint (wf_scan_state_entries (st)->len, ==, 0);
  wf_scan_state_free (st);
  g_rmdir (blocker);
  g_rmdir (dir);
}

static void
test_unquote (void)
{
  g_autofree char *a = wf_wpas_unquote ("\"simple:30:-70:86400\"");
  g_autofree char *b = wf_wpas_unquote ("\"\"");
  g_autofree char *c = wf_wpas_unquote ("73696d706c65");      /* hex: "simple" */
  g_autofree char *d = wf_wpas_unquote ("simple:30");         /* neither */
  g_autofree char *e = wf_wpas_unquote ("0041");              /* embedded NUL */

  g_assert_cmpstr (a, ==, "simple:30:-70:86400");
  g_assert_cmpstr (b, ==, "");
  g_assert_cmpstr (c, ==, "simple");
  g_assert_null (d);
  g_assert_null (e);
  g_assert_null (wf_wpas_unquote (NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/state/round-trip", test_round_trip);
  g_test_add_func ("/scan/state/unwritable", test_unwritable);
  g_test_add_func ("/scan/state/huge", test_huge);
  g_test_add_func ("/scan/wpas/unquote", test_unquote);
  return g_test_run ();
}
