/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libbpf's printer: debug dropped, warnings as warnings or at info, in
 * the includer's log domain. */
#define G_LOG_DOMAIN "test-bpf-log"

#include "wlanfair-bpf-log.h"

typedef struct {
  GLogLevelFlags level;
  char          *domain;
  char          *message;
  guint          n;
} Seen;

static Seen seen;

static GLogWriterOutput
writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  seen.n++;
  seen.level = level & G_LOG_LEVEL_MASK;
  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "MESSAGE"))
        {
          g_free (seen.message);
          seen.message = g_strdup (fields[i].value);
        }
      else if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
        {
          g_free (seen.domain);
          seen.domain = g_strdup (fields[i].value);
        }
    }
  return G_LOG_WRITER_HANDLED;
}

static void
say (libbpf_print_fn_t fn, enum libbpf_print_level level, const char *fmt, ...)
{
  va_list ap;

  g_clear_pointer (&seen.message, g_free);
  g_clear_pointer (&seen.domain, g_free);
  seen.n = 0;
  va_start (ap, fmt);
  g_assert_cmpint (fn (level, fmt, ap), ==, 0);
  va_end (ap);
}

static void
test_levels (void)
{
  say (wf_bpf_log_warnings, LIBBPF_WARN, "map '%s': %d\n", "counters", -22);
  g_assert_cmpuint (seen.n, ==, 1);
  g_assert_cmpint (seen.level, ==, G_LOG_LEVEL_WARNING);
  g_assert_cmpstr (seen.message, ==, "libbpf: map 'counters': -22");
  g_assert_cmpstr (seen.domain, ==, "test-bpf-log");

  say (wf_bpf_log_warnings, LIBBPF_INFO, "loaded\n");
  g_assert_cmpint (seen.level, ==, G_LOG_LEVEL_INFO);
  g_assert_cmpstr (seen.message, ==, "libbpf: loaded");

  say (wf_bpf_log_info, LIBBPF_WARN, "Kernel error message: %s\n", "Exclusivity flag on");
  g_assert_cmpuint (seen.n, ==, 1);
  g_assert_cmpint (seen.level, ==, G_LOG_LEVEL_INFO);
  g_assert_cmpstr (seen.message, ==, "libbpf: Kernel error message: Exclusivity flag on");

  say (wf_bpf_log_warnings, LIBBPF_DEBUG, "verifier said %d lines\n", 3);
  g_assert_cmpuint (seen.n, ==, 0);
  say (wf_bpf_log_info, LIBBPF_DEBUG, "nothing\n");
  g_assert_cmpuint (seen.n, ==, 0);
}

static void
test_route (void)
{
  wf_bpf_log_route (TRUE);
  g_assert_true (libbpf_set_print (NULL) == wf_bpf_log_warnings);
  wf_bpf_log_route (FALSE);
  g_assert_true (libbpf_set_print (NULL) == wf_bpf_log_info);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* Every level reaches the writer, and a warning is data here, not the
   * failure g_test_init makes it. */
  g_log_set_writer_func (writer, NULL, NULL);
  g_log_set_always_fatal (G_LOG_FATAL_MASK);

  g_test_add_func ("/bpf-log/levels", test_levels);
  g_test_add_func ("/bpf-log/route", test_route);

  return g_test_run ();
}
