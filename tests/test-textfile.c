/* SPDX-License-Identifier: GPL-2.0-or-later */
/* node_exporter textfiles: which directory a daemon writes to, and the
 * exposition pieces. */
#include <glib.h>
#include <glib/gstdio.h>

#include "wlanfair-textfile.h"

static void
test_dir (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("wf-textfile-XXXXXX", NULL);
  g_autofree char *gone = g_build_filename (tmp, "gone", NULL);
  gboolean is_default = FALSE;

  g_assert_nonnull (tmp);
  /* Not set: node_exporter's, used while it exists. */
  g_assert_cmpstr (wf_textfile_dir (NULL, &is_default), ==, WF_TEXTFILE_DEFAULT_DIR);
  g_assert_true (is_default);
  g_assert_true (wf_textfile_dir_in_use (tmp, TRUE));
  g_assert_false (wf_textfile_dir_in_use (gone, TRUE));
  /* Set: that one, always (writing it says what is wrong). */
  g_assert_cmpstr (wf_textfile_dir (tmp, &is_default), ==, tmp);
  g_assert_false (is_default);
  g_assert_true (wf_textfile_dir_in_use (gone, FALSE));
  /* "none". */
  g_assert_null (wf_textfile_dir ("", &is_default));
  g_assert_false (is_default);
  g_assert_false (wf_textfile_dir_in_use (NULL, FALSE));
  g_assert_false (wf_textfile_dir_in_use (NULL, TRUE));
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

static void
test_exposition (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  wf_textfile_family (out, "wlanfair_x_total", "counter", "X.");
  wf_textfile_label_value (out, "a\"b\\c\nd");
  g_assert_cmpstr (out->str, ==,
                   "# HELP wlanfair_x_total X.\n# TYPE wlanfair_x_total counter\n"
                   "a\\\"b\\\\c\\nd");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/textfile/dir", test_dir);
  g_test_add_func ("/textfile/exposition", test_exposition);

  return g_test_run ();
}
