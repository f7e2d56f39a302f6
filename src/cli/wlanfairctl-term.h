/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The live views' terminal (`top`, `ap watch`): raw mode for single keys,
 * the alternate screen, redraws without flicker, restored on q, on exit
 * and on signals. Plain ANSI escapes: any terminal, over ssh too. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* SIGINT, SIGTERM and SIGHUP only set a flag: the loop ends, restores. */
void     wf_cli_term_catch_signals (void);
gboolean wf_cli_term_stopped (void);

/* Raw mode and the alternate screen; FALSE when stdin is no terminal.
 * Restored by wf_cli_term_restore() and at exit. */
gboolean wf_cli_term_enter_raw (void);
void     wf_cli_term_restore (void);

/* Columns and rows of stdout's terminal (80 x 24 when unknown). */
void     wf_cli_term_size (guint *cols, guint *rows);

/* Waits up to `ms` for a key (space or p toggles *paused); TRUE when it
 * is time to quit (q, ^C, a signal). */
gboolean wf_cli_term_wait_key (int ms, gboolean *paused);

/* Draws `text` from the top left, at most rows - 1 lines, then `bar` in
 * reverse video on the last row; the rest of each line and of the screen
 * is cleared. */
void     wf_cli_term_draw (const char *text, guint rows, const char *bar);

G_END_DECLS
