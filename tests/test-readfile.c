/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wf_readfile_bounded(): the one bounded reader. Whatever a user names
 * (/dev/zero, a FIFO that never ends, a 1 GB file, a directory) ends in
 * an error naming the path and the limit, quickly. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-readfile.h"

static char *
tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("test-readfile-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
assert_too_large (GError *error, const char *path, gsize max, const char *what)
{
  g_autofree char *want = g_strdup_printf ("%s: larger than %" G_GSIZE_FORMAT
                                           " bytes (the limit for %s)", path, max, what);

  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, want);
}

static void
test_regular (void)
{
  g_autofree char *dir = tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "f", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len = 99;

  /* More than one internal chunk, exactly at the limit: accepted. */
  {
    g_autofree char *big = g_malloc (200000);

    memset (big, 'x', 200000);
    g_assert_true (g_file_set_contents (path, big, 200000, NULL));
    g_assert_true (wf_readfile_bounded (path, 200000, "a test", &text, &len, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (len, ==, 200000);
    g_assert_cmpmem (text, len, big, 200000);
    g_assert_cmpint (text[len], ==, '\0');
    g_clear_pointer (&text, g_free);
    /* One byte more than the limit: refused. */
    g_assert_false (wf_readfile_bounded (path, 199999, "a test", &text, &len, &error));
    assert_too_large (error, path, 199999, "a test");
    g_assert_null (text);
    g_clear_error (&error);
  }
  /* Empty. */
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  g_assert_true (wf_readfile_bounded (path, 10, "a test", &text, &len, &error));
  g_assert_cmpuint (len, ==, 0);
  g_assert_cmpstr (text, ==, "");
  g_clear_pointer (&text, g_free);

  /* Missing: NOENT, as callers that allow a missing file test for. */
  g_unlink (path);
  g_assert_false (wf_readfile_bounded (path, 10, "a test", &text, &len, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_clear_error (&error);

  /* A directory. */
  g_assert_false (wf_readfile_bounded (dir, 10, "a test", &text, &len, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
  g_assert_true (g_str_has_prefix (error->message, dir));
  g_rmdir (dir);
}

/* A 1 GB sparse file: refused by its size, without reading it. */
static void
test_huge_sparse (void)
{
  g_autofree char *dir = tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "big", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gint64 t0;
  int fd;

  fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 1 << 30), ==, 0);
  close (fd);
  t0 = g_get_monotonic_time ();
  g_assert_false (wf_readfile_bounded (path, WF_READFILE_CONFIG_MAX, "a configuration file",
                                       &text, NULL, &error));
  assert_too_large (error, path, WF_READFILE_CONFIG_MAX, "a configuration file");
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
  g_unlink (path);
  g_rmdir (dir);
}

/* A device without end: stops one byte past the limit. */
static void
test_dev_zero (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_false (wf_readfile_bounded ("/dev/zero", WF_READFILE_CONFIG_MAX,
                                       "a configuration file", &text, NULL, &error));
  assert_too_large (error, "/dev/zero", WF_READFILE_CONFIG_MAX, "a configuration file");
  g_assert_null (text);
}

/* A child that writes to the FIFO at PATH: for ever (endless), a little
 * then nothing while keeping it open (stall). */
static GPid
fifo_writer (const char *path, gboolean endless)
{
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      static const char line[] = "0,1,a,1000\n";
      int fd = open (path, O_WRONLY | O_CLOEXEC);

      if (fd < 0)
        _exit (1);
      do
        if (write (fd, line, sizeof line - 1) < 0)
          _exit (0);
      while (endless);
      pause ();
      _exit (0);
    }
  return pid;
}

static void
stop_child (GPid pid)
{
  int status;

  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
}

static void
test_fifo (void)
{
  g_autofree char *dir = tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "fifo", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len = 99;
  gint64 t0;
  GPid pid;

  g_assert_cmpint (mkfifo (path, 0600), ==, 0);

  /* No writer: read as empty at once, no wait for one. */
  t0 = g_get_monotonic_time ();
  g_assert_true (wf_readfile_bounded (path, 1000, "a test", &text, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
  g_clear_pointer (&text, g_free);

  /* A writer that never ends: stops at the limit. The writer opens
   * first (its open waits for a reader, ours for nothing), so the
   * reader is opened once it is blocked there. */
  pid = fifo_writer (path, TRUE);
  {
    int keep = open (path, O_RDONLY | O_CLOEXEC); /* lets the writer's open return */

    g_assert_cmpint (keep, >=, 0);
    g_assert_false (wf_readfile_bounded (path, 100000, "a test", &text, &len, &error));
    close (keep);
  }
  assert_too_large (error, path, 100000, "a test");
  g_clear_error (&error);
  stop_child (pid);

  /* A writer that stalls with the FIFO open: a timeout, not a hang. */
  pid = fifo_writer (path, FALSE);
  {
    int keep = open (path, O_RDONLY | O_CLOEXEC);

    g_assert_cmpint (keep, >=, 0);
    t0 = g_get_monotonic_time ();
    g_assert_false (wf_readfile_bounded (path, 100000, "a test", &text, &len, &error));
    close (keep);
  }
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "no end of file after"));
  g_assert_cmpint (g_get_monotonic_time () - t0, <,
                   (WF_READFILE_TIMEOUT_S + 2) * G_USEC_PER_SEC);
  stop_child (pid);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/readfile/regular", test_regular);
  g_test_add_func ("/readfile/huge-sparse", test_huge_sparse);
  g_test_add_func ("/readfile/dev-zero", test_dev_zero);
  g_test_add_func ("/readfile/fifo", test_fifo);

  return g_test_run ();
}
