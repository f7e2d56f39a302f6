/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl ap watch: `ap status` redrawn every interval, with the
 * terminal handling of `top` (wlanfairctl-term.c): q quits, space pauses.
 * The file is re-read each time; once the view runs, a missing or bad
 * file is shown in it (a restarting daemon), not a reason to exit. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "wlanfair-output.h"
#include "wlanfair-text.h"
#include "wlanfairctl-ap.h"
#include "wlanfairctl-term.h"
#include "wlanfairctl.h"

/* One screen: the status, or the one line saying why there is none. */
static void
render_screen (const char *path, guint width, GString *out, WfApLoad *result,
               char **message)
{
  g_autoptr(WfApStatus) st = NULL;
  gint64 now = g_get_real_time ();

  g_clear_pointer (message, g_free);
  *result = wf_ap_status_load (path, now, &st, message);
  if (*result == WF_AP_LOAD_OK)
    wf_ap_status_render (st, now, width, out);
  else
    {
      /* It may quote the file. */
      g_autofree char *shown = wf_text_escape (*message);

      g_string_append_printf (out, "%s\n", shown);
    }
}

int
wf_cli_ap_watch (int argc, char **argv)
{
  g_autofree char *path = NULL, *interval = NULL, *message = NULL;
  int iterations = 0;
  const GOptionEntry entries[] = {
    { "status", 0, 0, G_OPTION_ARG_FILENAME, &path,
      "wlanfair-apd's status file (default " WF_AP_STATUS_FILE ")", "FILE" },
    { "interval", 0, 0, G_OPTION_ARG_STRING, &interval,
      "Seconds between redraws, 0.1 to 60 (default 1)", "SECONDS" },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &iterations,
      "Exit after N screens (default: until q)", "N" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  gboolean tty = isatty (STDIN_FILENO) && isatty (STDOUT_FILENO), paused = FALSE;
  double interval_s = 1;
  WfApLoad result;
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "wlanfair-apd's status, redrawn every interval. q quits, space pauses.\n"
    "Without a terminal it prints one screen per interval.");
  g_option_context_set_description (ctx,
    "For scripts: 'wlanfairctl ap status --json' prints the status once.\n"
    "See wlanfairctl-ap(1).");
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  if (argc > 1)
    return wf_cli_usage_error ("unexpected argument '%s'", argv[1]);
  if (interval && (rc = wf_cli_parse_number ("--interval", interval, WF_NUMBER_POSITIVE,
                                             &interval_s)) != WF_EXIT_OK)
    return rc;
  if (interval_s < 0.1 || interval_s > 60)
    return wf_cli_usage_error ("--interval: %g is not between 0.1 and 60 seconds", interval_s);
  if (iterations < 0)
    return wf_cli_usage_error ("--iterations must not be negative");
  if (!path)
    path = g_strdup (WF_AP_STATUS_FILE);

  /* A wrong path or no daemon at all: say so at once, as `ap status` does. */
  {
    g_autoptr(GString) first = g_string_new (NULL);

    render_screen (path, 0, first, &result, &message);
    if (result != WF_AP_LOAD_OK)
      return wf_cli_fail ("%s", message);
  }

  wf_cli_term_catch_signals ();
  if (tty && !wf_cli_term_enter_raw ())
    tty = FALSE;

  for (int n = 0; !wf_cli_term_stopped () && (iterations == 0 || n < iterations); n++)
    {
      if (!paused)
        {
          g_autoptr(GString) out = g_string_new (NULL);
          guint cols, rows;

          wf_cli_term_size (&cols, &rows);
          render_screen (path, tty ? cols : 0, out, &result, &message);
          if (tty)
            {
              g_autofree char *bar = g_strdup_printf ("q quit  space pause  %s every %g s",
                                                      path, interval_s);

              wf_cli_term_draw (out->str, rows, bar);
            }
          else
            printf ("%s\n", out->str);
          /* A dead stdout ends the view; the exit handler says why. */
          if (!wf_output_flush ())
            break;
        }
      if (iterations && n + 1 >= iterations)
        break;
      if (tty ? wf_cli_term_wait_key ((int) (interval_s * 1000), &paused)
              : (g_usleep ((gulong) (interval_s * G_USEC_PER_SEC)), wf_cli_term_stopped ()))
        break;
    }
  wf_cli_term_restore ();
  return WF_EXIT_OK;
}
