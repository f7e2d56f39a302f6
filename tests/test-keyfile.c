/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wf_keyfile_load_section(): what GKeyFile would take silently is an
 * error naming the file, line and key; every daemon's configuration
 * goes through it. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-readfile.h"

static const char * const known[] = { "interfaces", "thresh", NULL };

static char *
write_conf (const char *dir, const char *text)
{
  char *path = g_build_filename (dir, "x.conf", NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_accepted (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-keyfile-XXXXXX", NULL);
  g_autofree char *path = write_conf (dir, "# comment \xc3\xa9\n\n  [tcp]\n"
                                           "thresh = 3\n# thresh=4\ninterfaces=wl\xc3\xa9\n");
  g_autoptr(GKeyFile) kf = NULL;
  g_autofree char *v = NULL;

  g_assert_true (wf_keyfile_load_section (path, "tcp", known, TRUE, &kf, &error));
  g_assert_no_error (error);
  v = g_key_file_get_string (kf, "tcp", "thresh", NULL);
  g_assert_cmpstr (v, ==, "3");
  g_unlink (path);

  /* Missing and allowed to be. */
  g_clear_pointer (&kf, g_key_file_unref);
  g_assert_true (wf_keyfile_load_section (path, "tcp", known, FALSE, &kf, &error));
  g_assert_no_error (error);
  g_assert_null (kf);
  /* Missing and required. */
  g_assert_false (wf_keyfile_load_section (path, "tcp", known, TRUE, &kf, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_rmdir (dir);
}

static void
test_refused (void)
{
  static const struct {
    const char *text;
    const char *message; /* after "PATH" */
  } cases[] = {
    /* GKeyFile: three GLib-CRITICALs later and the key dropped. */
    { "[tcp]\ninterfaces=wl\xff" "an0\n", ":2: [tcp] interfaces: the value is not valid UTF-8" },
    { "[tcp]\nthresh=1\ninterfaces=a\xc3\n", ":3: [tcp] interfaces: the value is not valid UTF-8" },
    { "# \xfe\n[tcp]\n", ":1: not valid UTF-8" },
    { "[t\xffp]\n", ":1: not valid UTF-8" },
    /* GKeyFile keeps the last. */
    { "[tcp]\nthresh=1\nthresh=2\n", ":3: [tcp] thresh: duplicate key (set it once)" },
    { "[tcp]\nthresh=1\n[tcp]\nthresh = 2\n", ":4: [tcp] thresh: duplicate key (set it once)" },
    /* GKeyFile takes it as a translation of thresh. */
    { "[tcp]\nthresh[de]=1\n", ":2: [tcp] thresh[de]: localized keys are not supported" },
    { "[tcp]\nthresh=1\nthresh[C]=1\n", ":3: [tcp] thresh[C]: localized keys are not supported" },
    { "[other]\nthresh=1\n[tcp]\n", ":2: key 'thresh' in unknown section [other] (only [tcp] is read)" },
    { "thresh=1\n[tcp]\n", ":1: key 'thresh' before any section (start with [tcp])" },
    /* What the loader checked before: kept. */
    { "[tcp]\n[other]\n", ": unknown section [other] (only [tcp])" },
    { "[tcp]\nthres=1\n", ": unknown key 'thres' in [tcp] (known: interfaces, thresh)" },
  };
  g_autofree char *dir = g_dir_make_tmp ("test-keyfile-XXXXXX", NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GKeyFile) kf = NULL;
      g_autofree char *path = write_conf (dir, cases[i].text);
      g_autofree char *want = g_strconcat (path, cases[i].message, NULL);

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_false (wf_keyfile_load_section (path, "tcp", known, TRUE, &kf, &error));
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, want);
      g_assert_null (kf);
      g_unlink (path);
    }

  /* Not a group line: GKeyFile's own error (its wording is GLib's), not
   * "before any section". */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GKeyFile) kf = NULL;
    g_autofree char *path = write_conf (dir, "[tcp\nthresh=1\n");

    g_assert_false (wf_keyfile_load_section (path, "tcp", known, TRUE, &kf, &error));
    g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE);
    g_assert_true (g_str_has_prefix (error->message, path));
    g_assert_null (strstr (error->message, "before any section"));
    g_unlink (path);
  }
  g_rmdir (dir);
}

static void
test_bounded (void)
{
  g_autofree char *dir = g_dir_make_tmp ("test-keyfile-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "big.conf", NULL);
  g_autofree char *want = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GKeyFile) kf = NULL;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 1 << 30), ==, 0);
  close (fd);
  want = g_strdup_printf ("%s: larger than %d bytes (the limit for a configuration file)",
                          path, WF_READFILE_CONFIG_MAX);
  g_assert_false (wf_keyfile_load_section (path, "tcp", known, FALSE, &kf, &error));
  g_assert_cmpstr (error->message, ==, want);
  g_clear_error (&error);
  g_unlink (path);

  g_assert_false (wf_keyfile_load_section ("/dev/zero", "tcp", known, FALSE, &kf, &error));
  g_assert_true (g_str_has_prefix (error->message, "/dev/zero: larger than"));
  g_clear_error (&error);

  /* A state file: the same reader. */
  {
    g_autoptr(GKeyFile) state = g_key_file_new ();

    g_assert_false (wf_keyfile_load_bounded (state, "/dev/zero", WF_READFILE_STATE_MAX,
                                             "a state file", G_KEY_FILE_NONE, &error));
    g_assert_true (g_str_has_suffix (error->message, "(the limit for a state file)"));
  }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/keyfile/accepted", test_accepted);
  g_test_add_func ("/keyfile/refused", test_refused);
  g_test_add_func ("/keyfile/bounded", test_bounded);

  return g_test_run ();
}
