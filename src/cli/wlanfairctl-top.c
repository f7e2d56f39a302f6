/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl top: the status view, redrawn every interval, like iftop.
 * Plain ANSI escapes (any terminal, over ssh), the terminal in raw mode
 * for single keys, restored on q, on exit and on signals. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "wlanfair-localreport.h"
#include "wlanfair-output.h"
#include "wlanfairctl-report.h"
#include "wlanfairctl-term.h"
#include "wlanfairctl.h"

int
wf_cli_top (int argc, char **argv)
{
  g_autofree char *socket_path = NULL, *interval = NULL;
  g_auto(GStrv) interfaces = NULL;
  gboolean direct = FALSE, paused = FALSE;
  /* Unset: until q. Given, it must end: 0 would mean "never". */
  int iterations = G_MININT;
  const GOptionEntry entries[] = {
    { "socket", 0, 0, G_OPTION_ARG_FILENAME, &socket_path,
      "The daemon's local channel (default " WF_LOCALREPORT_SOCKET ")", "PATH" },
    { "direct", 0, 0, G_OPTION_ARG_NONE, &direct,
      "Sample directly even when the daemon runs", NULL },
    { "interface", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &interfaces,
      "Direct sampling: this interface (repeatable; default Wi-Fi, else all)", "IFACE" },
    { "interval", 0, 0, G_OPTION_ARG_STRING, &interval,
      "Seconds between redraws (default 1)", "SECONDS" },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &iterations,
      "Exit after N screens (default: until q)", "N" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  WfCliReportSource src = { 0 };
  gboolean tty = isatty (STDIN_FILENO) && isatty (STDOUT_FILENO);
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "A live view of interfaces, the Wi-Fi link and TCP flows. q quits, space\n"
    "pauses. Without a terminal it prints one screen per interval.");
  /* No --json: a live view is for people; scripts loop over status. */
  g_option_context_set_description (ctx,
    "For scripts: 'wlanfairctl status --json' prints the same report once.\n"
    "See wlanfairctl-top(1).");
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  if (argc > 1)
    return wf_cli_usage_error ("unexpected argument '%s'", argv[1]);
  if ((rc = wf_cli_check_interfaces (interfaces)) != WF_EXIT_OK)
    return rc;
  if ((rc = wf_cli_report_source_set_interval (&src, interval)) != WF_EXIT_OK)
    return rc;
  if (iterations != G_MININT && iterations <= 0)
    return wf_cli_usage_error ("--iterations must be 1 or more (leave it out to run until q)");
  if (iterations == G_MININT)
    iterations = 0;

  src.socket_path = socket_path;
  src.interfaces = interfaces;
  src.top_n = 50;
  src.direct = direct || interfaces != NULL;

  wf_cli_term_catch_signals ();
  if (tty && !wf_cli_term_enter_raw ())
    tty = FALSE;

  for (int n = 0; !wf_cli_term_stopped () && (iterations == 0 || n < iterations); n++)
    {
      g_autoptr(JsonObject) report = NULL;
      g_autoptr(GString) out = g_string_new (NULL);
      guint cols, rows, header;

      if (!paused)
        {
          report = wf_cli_report_get (&src);
          wf_cli_term_size (&cols, &rows);
          /* Flows get what the interface part leaves of the screen. */
          header = 14;
          wf_cli_report_render (report, &src, tty ? cols : 0,
                                tty ? (rows > header ? rows - header : 1) : 50, out);
          if (tty)
            {
              g_autofree char *bar = g_strdup_printf ("q quit  space pause  %s",
                                                      src.from_daemon ? "(wlanfair-reportd)" : "(direct)");

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
      /* Direct sampling waits itself only on the first call. */
      if (tty ? wf_cli_term_wait_key ((int) (src.interval_s * 1000), &paused)
              : (g_usleep ((gulong) (src.interval_s * G_USEC_PER_SEC)), wf_cli_term_stopped ()))
        break;
    }
  wf_cli_term_restore ();
  wf_cli_report_source_clear (&src);
  return WF_EXIT_OK;
}
