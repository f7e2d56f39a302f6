/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A repeating condition said once per interval with the count held back,
 * or once until it clears; in the caller's log domain. */
#include <glib.h>

#include "wlanfair-ratelimit.h"

static GPtrArray *lines;   /* "domain|level|message" */

static GLogWriterOutput
writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  const char *domain = "", *message = "";

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "MESSAGE"))
        message = fields[i].value;
      else if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
        domain = fields[i].value;
    }
  g_ptr_array_add (lines, g_strdup_printf ("%s|%d|%s", domain, level & G_LOG_LEVEL_MASK,
                                           message));
  return G_LOG_WRITER_HANDLED;
}

static const char *
line (guint i)
{
  g_assert_cmpuint (i, <, lines->len);
  return lines->pdata[i];
}

static void
test_interval (void)
{
  g_autoptr(WfRatelimit) rl = wf_ratelimit_new ("dom", 1000);
  guint64 held = 9;

  g_ptr_array_set_size (lines, 0);
  wf_ratelimit_log (rl, G_LOG_LEVEL_WARNING, "send", "unreachable");
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpstr (line (0), ==, "dom|16|unreachable");
  /* Within the interval (1 ms: asked at once, twice): held back. */
  g_assert_false (wf_ratelimit_check (rl, "send", &held));
  g_assert_cmpuint (held, ==, 0);
  /* Another key is said on its own. */
  wf_ratelimit_log (rl, G_LOG_LEVEL_MESSAGE, "mark", "no mark");
  g_assert_cmpstr (line (1), ==, "dom|32|no mark");
  /* A NULL key always. */
  wf_ratelimit_log (rl, G_LOG_LEVEL_MESSAGE, NULL, "each time");
  wf_ratelimit_log (rl, G_LOG_LEVEL_MESSAGE, NULL, "each time");
  g_assert_cmpuint (lines->len, ==, 4);

  g_usleep (2000);
  wf_ratelimit_log (rl, G_LOG_LEVEL_WARNING, "send", "unreachable");
  g_assert_cmpstr (line (4), ==, "dom|16|unreachable (1 more like it since the last message)");
  g_usleep (2000);
  g_assert_true (wf_ratelimit_check (rl, "send", &held));
  g_assert_cmpuint (held, ==, 0);
}

static void
test_once (void)
{
  g_autoptr(WfRatelimit) rl = wf_ratelimit_new (NULL, WF_RATELIMIT_ONCE);
  guint64 held = 9;

  g_ptr_array_set_size (lines, 0);
  /* Nothing said: nothing to clear, and no line. */
  g_assert_false (wf_ratelimit_clear (rl, "textfile", "written again"));
  g_assert_true (wf_ratelimit_check (rl, "textfile", &held));
  g_assert_cmpuint (held, ==, 0);
  g_usleep (2000);
  for (int i = 0; i < 3; i++)
    g_assert_false (wf_ratelimit_check (rl, "textfile", NULL));
  wf_ratelimit_log (rl, G_LOG_LEVEL_WARNING, "textfile", "not written");
  g_assert_cmpuint (lines->len, ==, 0);
  g_assert_true (wf_ratelimit_clear (rl, "textfile", "written again"));
  g_assert_cmpstr (line (0), ==, "|32|written again");
  g_assert_false (wf_ratelimit_clear (rl, "textfile", "written again"));
  /* Cleared: said again the next time, with nothing held. */
  wf_ratelimit_log (rl, G_LOG_LEVEL_WARNING, "textfile", "not written");
  g_assert_cmpstr (line (1), ==, "|16|not written");
  g_assert_true (wf_ratelimit_clear (rl, "textfile", NULL));
  g_assert_cmpuint (lines->len, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  lines = g_ptr_array_new_with_free_func (g_free);
  /* The lines are the data: a warning must not end the test. */
  g_log_set_writer_func (writer, NULL, NULL);
  g_log_set_always_fatal (G_LOG_FATAL_MASK);

  g_test_add_func ("/ratelimit/interval", test_interval);
  g_test_add_func ("/ratelimit/once", test_once);

  return g_test_run ();
}
