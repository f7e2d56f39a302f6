/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules for every file a program writes (wlanfair-file.h): what is
 * replaced atomically, what is refused with its path named, sockets. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "wlanfair-error.h"
#include "wlanfair-file.h"

typedef struct {
  char *dir;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("wf-file-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
rm_rf (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d == NULL)
    {
      g_unlink (path);
      return;
    }
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (path, name, NULL);
      struct stat st;

      if (g_lstat (p, &st) == 0 && S_ISDIR (st.st_mode))
        rm_rf (p);
      else
        g_unlink (p);
    }
  g_dir_close (d);
  g_rmdir (path);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  rm_rf (f->dir);
  g_free (f->dir);
}

static guint
count_entries (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

/* The error names the path and says what was wrong. */
static void
assert_refused (GError *error, const char *path, const char *what)
{
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, what));
}

static void
test_regular_replaced (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "out.svg", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  struct stat before, after;

  g_assert_true (g_file_set_contents (path, "old", -1, NULL));
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_assert_true (wf_file_check (path, &error));
  g_assert_true (wf_file_write (path, "new text", 8, 0640, WF_FILE_EXACT_MODE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "new text");
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  /* A new inode renamed over the old one: never written in place. */
  g_assert_cmpuint (before.st_ino, !=, after.st_ino);
  g_assert_cmpuint (after.st_mode & 07777, ==, 0640);
  /* No temporary file left beside it. */
  g_assert_cmpuint (count_entries (f->dir), ==, 1);
}

static void
test_new_file (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "new.prom", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_true (wf_file_write (path, "x 1\n", 4, 0644, WF_FILE_DURABLE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "x 1\n");
}

static void
test_fifo_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "fifo", NULL);
  g_autoptr(GError) error = NULL;
  struct stat st;

  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  g_assert_false (wf_file_check (path, &error));
  assert_refused (error, path, "FIFO");
  g_clear_error (&error);
  g_assert_false (wf_file_write (path, "x", 1, 0644, 0, &error));
  assert_refused (error, path, "FIFO");
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_cmpuint (count_entries (f->dir), ==, 1);
}

static void
test_device_refused (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *own = g_build_filename (f->dir, "null", NULL);
  /* As root, a node of our own with /dev/null's numbers: a regression
   * must not replace the host's /dev/null. Otherwise /dev is not ours to
   * write anyway. */
  const char *path = geteuid () == 0 ? own : "/dev/null";
  struct stat st;

  if (geteuid () == 0)
    g_assert_cmpint (mknod (own, S_IFCHR | 0666, makedev (1, 3)), ==, 0);
  g_assert_false (wf_file_check (path, &error));
  assert_refused (error, path, "character device");
  g_clear_error (&error);
  g_assert_false (wf_file_write (path, "x", 1, 0644, 0, &error));
  assert_refused (error, path, "character device");
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
}

static void
test_dir_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "d", NULL);
  g_autofree char *slash = g_strconcat (path, "/", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  g_assert_false (wf_file_write (path, "x", 1, 0644, 0, &error));
  assert_refused (error, path, "directory");
  g_clear_error (&error);
  g_assert_false (wf_file_check (slash, &error));
  assert_refused (error, path, "directory");
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
}

static void
test_symlink_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *target = g_build_filename (f->dir, "target", NULL);
  g_autofree char *link = g_build_filename (f->dir, "link", NULL);
  g_autofree char *dangling = g_build_filename (f->dir, "dangling", NULL);
  g_autofree char *missing = g_build_filename (f->dir, "missing", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;

  g_assert_true (g_file_set_contents (target, "keep", -1, NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_false (wf_file_write (link, "x", 1, 0644, 0, &error));
  assert_refused (error, link, "symbolic link");
  g_clear_error (&error);
  /* Neither written through nor replaced. */
  g_assert_true (g_file_get_contents (target, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "keep");
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));

  /* A dangling link would let a write create its target anywhere. */
  g_assert_cmpint (symlink (missing, dangling), ==, 0);
  g_assert_false (wf_file_write (dangling, "x", 1, 0644, 0, &error));
  assert_refused (error, dangling, "symbolic link");
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
}

static void
test_remove (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->dir, "status.json", NULL);
  g_autofree char *fifo = g_build_filename (f->dir, "fifo", NULL);
  g_autofree char *target = g_build_filename (f->dir, "target", NULL);
  g_autofree char *link = g_build_filename (f->dir, "link", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (file, "{}", -1, NULL));
  g_assert_true (wf_file_remove (file, &error));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  /* Absent: nothing to do. */
  g_assert_true (wf_file_remove (file, &error));
  g_assert_no_error (error);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_false (wf_file_remove (fifo, &error));
  assert_refused (error, fifo, "FIFO");
  g_clear_error (&error);
  g_assert_true (g_file_test (fifo, G_FILE_TEST_EXISTS));

  g_assert_true (g_file_set_contents (target, "keep", -1, NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_false (wf_file_remove (link, &error));
  assert_refused (error, link, "symbolic link");
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (target, G_FILE_TEST_EXISTS));
}

static void
test_missing_dir (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_build_filename (f->dir, "nonexistent", NULL);
  g_autofree char *path = g_build_filename (dir, "x", "out.prom", NULL);
  g_autofree char *sock = g_build_filename (dir, "x.sock", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (wf_file_write (path, "x", 1, 0644, 0, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "never created"));
  g_clear_error (&error);
  g_assert_false (wf_file_check_dir (dir, &error));
  g_assert_nonnull (strstr (error->message, dir));
  g_clear_error (&error);
  g_assert_false (wf_file_claim_socket (sock, &error));
  g_assert_nonnull (strstr (error->message, dir));
  /* Nothing made on the way. */
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_entries (f->dir), ==, 0);
}

static int
bind_socket (const char *path, gboolean do_listen)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpuint (strlen (path), <, sizeof sa.sun_path);
  strcpy (sa.sun_path, path);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  if (do_listen)
    g_assert_cmpint (listen (fd, 1), ==, 0);
  return fd;
}

static void
test_socket_stale_replaced (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "s.sock", NULL);
  g_autoptr(GError) error = NULL;
  int fd = bind_socket (path, FALSE);

  /* Bound, never listening: what a crashed instance leaves. */
  close (fd);
  g_assert_true (wf_file_check_socket (path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (wf_file_claim_socket (path, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_socket_live_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "s.sock", NULL);
  g_autoptr(GError) error = NULL;
  struct stat st;
  int fd = bind_socket (path, TRUE);

  g_assert_false (wf_file_claim_socket (path, &error));
  assert_refused (error, path, "in use");
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISSOCK (st.st_mode));
  /* Removed at stop only while it is still the one we bound. */
  wf_file_remove_socket (path, st.st_dev, st.st_ino + 1);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  wf_file_remove_socket (path, st.st_dev, st.st_ino);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  close (fd);
}

static void
test_socket_not_a_socket (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "notes.txt", NULL);
  g_autofree char *link = g_build_filename (f->dir, "link.sock", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  /* connect() to a regular file fails with ECONNREFUSED too: the old
   * "nobody answers" test took it for a stale socket and deleted it. */
  g_assert_true (g_file_set_contents (path, "my notes", -1, NULL));
  g_assert_false (wf_file_claim_socket (path, &error));
  assert_refused (error, path, "not a socket");
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "my notes");

  g_assert_cmpint (symlink (path, link), ==, 0);
  g_assert_false (wf_file_claim_socket (link, &error));
  assert_refused (error, link, "symbolic link");
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
}

static void
test_socket_long_path (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *fill = g_strnfill (200, 'a');
  g_autofree char *path = g_build_filename (f->dir, fill, NULL);
  g_autofree char *exact = NULL;
  gsize room;

  path[WF_FILE_SOCKET_PATH_MAX + 1] = '\0';
  g_assert_false (wf_file_check_socket (path, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "108 bytes"));
  g_clear_error (&error);

  /* 107 bytes fit (sun_path keeps its NUL). */
  room = WF_FILE_SOCKET_PATH_MAX - strlen (f->dir) - 1;
  fill[room] = '\0';
  exact = g_build_filename (f->dir, fill, NULL);
  g_assert_cmpuint (strlen (exact), ==, WF_FILE_SOCKET_PATH_MAX);
  g_assert_true (wf_file_check_socket (exact, &error));
  g_assert_no_error (error);
}

static void
test_own_dir (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_build_filename (f->dir, "run", NULL);
  g_autofree char *deep = g_build_filename (f->dir, "a", "b", NULL);
  g_autofree char *file = g_build_filename (f->dir, "file", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (wf_file_make_own_dir (dir, 0700, &error));
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  g_assert_true (wf_file_make_own_dir (dir, 0700, &error));
  /* One level only: never a chain of parents. */
  g_assert_false (wf_file_make_own_dir (deep, 0700, &error));
  g_assert_nonnull (strstr (error->message, deep));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (file, "", -1, NULL));
  g_assert_false (wf_file_make_own_dir (file, 0700, &error));
  assert_refused (error, file, "not a directory");
  g_clear_error (&error);

  /* systemd's DynamicUser= makes RuntimeDirectory= /run/NAME a link to
   * /run/private/NAME: a link to a directory of ours is our directory;
   * a link to a file is not. */
  {
    g_autofree char *private_dir = g_build_filename (f->dir, "private", NULL);
    g_autofree char *link = g_build_filename (f->dir, "dynamic", NULL);
    g_autofree char *link_file = g_build_filename (f->dir, "dynamic-file", NULL);

    g_assert_cmpint (g_mkdir (private_dir, 0700), ==, 0);
    g_assert_cmpint (symlink (private_dir, link), ==, 0);
    g_assert_true (wf_file_make_own_dir (link, 0700, &error));
    g_assert_no_error (error);
    g_assert_cmpint (symlink (file, link_file), ==, 0);
    g_assert_false (wf_file_make_own_dir (link_file, 0700, &error));
    assert_refused (error, link_file, "not a directory");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add ("/file/" name, Fixture, NULL, setup, fn, teardown)
  ADD ("regular-replaced", test_regular_replaced);
  ADD ("new-file", test_new_file);
  ADD ("fifo-refused", test_fifo_refused);
  ADD ("device-refused", test_device_refused);
  ADD ("dir-refused", test_dir_refused);
  ADD ("symlink-refused", test_symlink_refused);
  ADD ("remove", test_remove);
  ADD ("missing-dir", test_missing_dir);
  ADD ("socket-stale-replaced", test_socket_stale_replaced);
  ADD ("socket-live-refused", test_socket_live_refused);
  ADD ("socket-not-a-socket", test_socket_not_a_socket);
  ADD ("socket-long-path", test_socket_long_path);
  ADD ("own-dir", test_own_dir);
  return g_test_run ();
}
