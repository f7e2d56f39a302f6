/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "wlanfairctl-term.h"

static struct termios saved;
static gboolean raw_on;
static volatile sig_atomic_t stop_signal;

static void
on_signal (int sig)
{
  stop_signal = sig;
}

void
wf_cli_term_catch_signals (void)
{
  struct sigaction sa = { .sa_handler = on_signal };

  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
}

gboolean
wf_cli_term_stopped (void)
{
  return stop_signal != 0;
}

void
wf_cli_term_restore (void)
{
  if (!raw_on)
    return;
  tcsetattr (STDIN_FILENO, TCSAFLUSH, &saved);
  /* Cursor back, main screen back. */
  fputs ("\033[?25h\033[?1049l", stdout);
  fflush (stdout);
  raw_on = FALSE;
}

gboolean
wf_cli_term_enter_raw (void)
{
  static gboolean registered;
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
  if (!registered)
    atexit (wf_cli_term_restore);
  registered = TRUE;
  /* Alternate screen, cursor hidden. */
  fputs ("\033[?1049h\033[?25l", stdout);
  return TRUE;
}

void
wf_cli_term_size (guint *cols, guint *rows)
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

gboolean
wf_cli_term_wait_key (int ms, gboolean *paused)
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

void
wf_cli_term_draw (const char *text, guint rows, const char *bar)
{
  /* Home, draw, clear each line's rest and below: no flicker. */
  g_autoptr(GString) screen = g_string_new ("\033[H");
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint shown = 0;

  for (char **l = lines; *l && shown + 1 < rows; l++, shown++)
    g_string_append_printf (screen, "%s\033[K\r\n", *l);
  g_string_append_printf (screen, "\033[7m %s \033[0m\033[K\033[J", bar);
  fputs (screen->str, stdout);
}
