/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wf_tcpstatus_read(): wlanfair-tcpd's status file is bounded, and a
 * field it always writes that is missing or of the wrong type is an error
 * naming it, never a value made up (json-glib's defaults) nor a
 * GLib-CRITICAL. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-readfile.h"
#include "wlanfair-tcpstatus.h"

/* A status as the daemon writes it; pid: this process, alive. */
#define COUNTERS "\"acks\":10,\"ack_losses\":1,\"halvings\":1,\"suppressed_data_loss\":0," \
                 "\"suppressed_reorder\":0,\"suppressed_unconfirmed\":0," \
                 "\"suppressed_fallback\":0,\"suppressed_no_queue\":0"

static char *
status_text (const char *drop, const char *extra)
{
  g_autoptr(GString) s = g_string_new ("{");
  const char *fields[] = {
    "\"version\":1", "\"updated\":1700000000", "\"refresh_s\":10", "\"scope\":\"wifi\"",
    "\"cc\":\"ackloss_cubic\"", "\"thresh\":2", "\"beta\":0.125", "\"confirm\":1",
    "\"confirm_rate\":0.5", "\"min_queue_delay_ms\":1", "\"reduction\":\"drain\"",
    "\"registration\":\"struct_ops link\"",
    "\"registered\":{\"ackloss_cubic\":{" COUNTERS "},\"ackloss_reno\":{}}",
  };

  g_string_append_printf (s, "\"pid\":%d", (int) getpid ());
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    if (!drop || !g_str_has_prefix (fields[i] + 1, drop) ||
        fields[i][1 + strlen (drop)] != '"')
      g_string_append_printf (s, ",%s", fields[i]);
  if (extra)
    g_string_append_printf (s, ",%s", extra);
  g_string_append (s, "}");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static char *
write_tmp (const char *text)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("test-tcpstatus-XXXXXX.json", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_valid (void)
{
  g_autofree char *text = status_text (NULL, NULL);
  g_autofree char *path = write_tmp (text);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) st = wf_tcpstatus_read (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (st);
  g_unlink (path);

  /* An older daemon's file: no refresh_s, no reduction. */
  {
    g_autofree char *t1 = status_text ("refresh_s", NULL);
    g_autofree char *p1 = write_tmp (t1);
    g_autoptr(JsonNode) s1 = wf_tcpstatus_read (p1, &error);

    g_assert_no_error (error);
    g_assert_nonnull (s1);
    g_unlink (p1);
  }
}

/* The reporter forwards what the file has: only the pid must be right. */
static void
test_reporter_lenient (void)
{
  g_autofree char *text = g_strdup_printf ("{\"pid\": %d, \"registered\": "
                                           "{\"ackloss_cubic\": {\"acks\": 3}}}",
                                           (int) getpid ());
  g_autofree char *path = write_tmp (text);
  g_autoptr(JsonNode) st = wf_tcpstatus_load (path);

  g_assert_nonnull (st);
  g_unlink (path);
}

static void
test_not_running (void)
{
  g_autofree char *path = write_tmp ("{\"pid\": 999999999}");
  g_autoptr(GError) error = NULL;

  /* A dead daemon's leftover, whatever else it lacks: not running. */
  g_assert_null (wf_tcpstatus_read (path, &error));
  g_assert_no_error (error);
  g_unlink (path);
  /* No file: not running. */
  g_assert_null (wf_tcpstatus_read (path, &error));
  g_assert_no_error (error);
}

static void
test_invalid (void)
{
  static const struct {
    const char *drop, *extra, *message;
  } cases[] = {
    { "updated", NULL, "field 'updated' is missing" },
    { "registered", NULL, "field 'registered' is missing" },
    { "scope", NULL, "field 'scope' is missing" },
    { "beta", NULL, "field 'beta' is missing" },
    { "thresh", "\"thresh\":\"2\"", "field 'thresh' is not an integer" },
    { "beta", "\"beta\":\"x\"", "field 'beta' is not a number" },
    { "cc", "\"cc\":5", "field 'cc' is not a string" },
    { "registered", "\"registered\":[]", "field 'registered' is not an object" },
    { "registered", "\"registered\":{\"x\":1}", "field 'registered.x' is not an object" },
    { "registered", "\"registered\":{\"x\":{\"acks\":1}}",
      "field 'registered.x.ack_losses' is missing" },
    { "registered", "\"registered\":{\"x\":{" COUNTERS ",\"drained\":0.5}}",
      "field 'registered.x.drained' is not an integer" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = status_text (cases[i].drop, cases[i].extra);
      g_autofree char *path = write_tmp (text);
      g_autofree char *want = g_strdup_printf ("%s: %s", path, cases[i].message);
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", text);
      g_assert_null (wf_tcpstatus_read (path, &error));
      g_assert_error (error, WF_ERROR, WF_ERROR_PARSE);
      g_assert_cmpstr (error->message, ==, want);
      g_unlink (path);
    }
  /* pid itself. */
  {
    g_autofree char *path = write_tmp ("{\"version\":1}");
    g_autoptr(GError) error = NULL;

    g_assert_null (wf_tcpstatus_read (path, &error));
    g_assert_nonnull (strstr (error->message, "field 'pid' is missing"));
    g_unlink (path);
  }
}

static void
test_bounded (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *want = g_strdup_printf ("/dev/zero: larger than %d bytes (the limit for a "
                                           "status file)", WF_READFILE_STATE_MAX);
  g_autofree char *path = write_tmp ("");
  int fd;
  WfTcpstatusRefresh how;

  g_assert_null (wf_tcpstatus_read ("/dev/zero", &error));
  g_assert_cmpstr (error->message, ==, want);
  g_clear_error (&error);
  /* The reporter's read is bounded as well. */
  g_assert_null (wf_tcpstatus_load ("/dev/zero"));

  fd = g_open (path, O_WRONLY | O_CLOEXEC, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 1 << 30), ==, 0);
  close (fd);
  g_assert_null (wf_tcpstatus_load_fresh (path, 10, &how, &error));
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "larger than"));
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tcpstatus/valid", test_valid);
  g_test_add_func ("/tcpstatus/not-running", test_not_running);
  g_test_add_func ("/tcpstatus/invalid", test_invalid);
  g_test_add_func ("/tcpstatus/bounded", test_bounded);
  g_test_add_func ("/tcpstatus/reporter-lenient", test_reporter_lenient);

  return g_test_run ();
}
