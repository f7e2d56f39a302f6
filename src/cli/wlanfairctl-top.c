/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl top: the status view, redrawn every interval, like iftop.
 * Plain ANSI escapes (any terminal, over ssh), the terminal in raw mode
 * for single keys, restored on q, on exit and on signals. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "wlanfair-localreport.h"
#include "wlanfairctl-report.h"
#include "wlanfairctl.h"

static struct termios saved;
static gboolean raw_on;
static volatile sig_atomic_t stop_signal;

static void
restore_terminal (void)
{
  if (!raw_on)
    return;
  tcsetattr (STDIN_FILENO, TCSAFLUSH, &saved);
  /* Cursor back, main screen back. */
  fputs ("\033[?25h\033[?1049l", stdout);
  fflush (stdout);
  raw_on = FALSE;
}

static void
on_signal (int sig)
{
  stop_signal = sig;
}

static gboolean
enter_raw (void)
{
  struct termios t;

  if (tcgetattr (STDIN_FILENO, &saved) < 0)
    return FALSE;
  t = saved;
  /* No line buffering, no echo; ISIG kept so ^C still arrives as SIGINT. */
  t.c_lflag &= ~(ICANON | ECHO);
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  if (tcsetattr (STDIN_FILENO, TCSAFLUSH, &t) < 0)
    return FALSE;
  raw_on = TRUE;
  atexit (restore_terminal);
  /* Alternate screen, cursor hidden. */
  fputs ("\033[?1049h\033[?25l", stdout);
  return TRUE;
}

static void
screen_size (guint *cols, guint *rows)
{
  struct winsize ws;

  *cols = 80;
  *rows = 24;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    {
      *cols = ws.ws_col;
      *rows = ws.ws_row;
    }
}

/* Waits up to `ms` for a key; TRUE when it is time to quit. */
static gboolean
wait_key (int ms, gboolean *paused)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  for (;;)
    {
      struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
      int left = (int) ((end - g_get_monotonic_time ()) / 1000);
      char c;

      if (stop_signal)
        return TRUE;
      if (left <= 0)
        return FALSE;
      if (poll (&p, 1, left) <= 0)
        continue; /* timeout, or EINTR: the signal flag decides */
      if (read (STDIN_FILENO, &c, 1) != 1)
        {
          /* stdin closed (no terminal): just wait out the interval. */
          g_usleep ((gulong) MAX (left, 0) * 1000);
          return stop_signal != 0;
        }
      if (c == 'q' || c == 'Q' || c == 3 /* ^C in case ISIG is off */)
        return TRUE;
      if (c == ' ' || c == 'p')
        *paused = !*paused;
    }
}

int
wf_cli_top (int argc, char **argv)
{
  g_autofree char *socket_path = NULL, *interval = NULL;
  g_auto(GStrv) interfaces = NULL;
  gboolean direct = FALSE, paused = FALSE;
  int iterations = 0;
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
  struct sigaction sa = { .sa_handler = on_signal };
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
  if ((rc = wf_cli_report_source_set_interval (&src, interval)) != WF_EXIT_OK)
    return rc;
  if (iterations < 0)
    return wf_cli_usage_error ("--iterations must not be negative");

  src.socket_path = socket_path;
  src.interfaces = interfaces;
  src.top_n = 50;
  src.direct = direct || interfaces != NULL;

  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  if (tty && !enter_raw ())
    tty = FALSE;

  for (int n = 0; !stop_signal && (iterations == 0 || n < iterations); n++)
    {
      g_autoptr(JsonObject) report = NULL;
      g_autoptr(GString) out = g_string_new (NULL);
      guint cols, rows, header;

      if (!paused)
        {
          report = wf_cli_report_get (&src);
          screen_size (&cols, &rows);
          /* Flows get what the interface part leaves of the screen. */
          header = 14;
          wf_cli_report_render (report, &src, tty ? cols : 0,
                                tty ? (rows > header ? rows - header : 1) : 50, out);
          if (tty)
            {
              /* Home, draw, clear each line's rest and below: no flicker. */
              g_autoptr(GString) screen = g_string_new ("\033[H");
              g_auto(GStrv) lines = g_strsplit (out->str, "\n", -1);
              guint shown = 0;

              for (char **l = lines; *l && shown + 1 < rows; l++, shown++)
                g_string_append_printf (screen, "%s\033[K\r\n", *l);
              g_string_append_printf (screen, "\033[7m q quit  space pause  %s \033[0m\033[K\033[J",
                                      src.from_daemon ? "(wlanfair-reportd)" : "(direct)");
              fputs (screen->str, stdout);
            }
          else
            printf ("%s\n", out->str);
          fflush (stdout);
        }
      if (iterations && n + 1 >= iterations)
        break;
      /* Direct sampling waits itself only on the first call. */
      if (tty ? wait_key ((int) (src.interval_s * 1000), &paused) : (g_usleep ((gulong) (src.interval_s * G_USEC_PER_SEC)), stop_signal != 0))
        break;
    }
  restore_terminal ();
  wf_cli_report_source_clear (&src);
  return WF_EXIT_OK;
}
