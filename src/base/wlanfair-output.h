/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Write errors on standard output are errors (coreutils' close_stdout):
 * a program that printed into a full disk or a closed pipe must not exit 0.
 *
 * Call wf_output_close_at_exit() first thing in main(), before any output
 * and before anything ignores SIGPIPE (GIO's GSocket does so process-wide).
 * At exit, standard output is flushed and closed and standard error
 * flushed (not closed: sanitizers report there after us). On a failure
 * "PRGNAME: write error: REASON" goes to standard error (g_get_prgname()
 * at that time: "wlanfairctl fairness") and the exit status becomes 1,
 * whatever main() returned; GOption's --help, which calls exit(0) itself,
 * is covered too.
 *
 * EPIPE on standard output (the reader went away: `| head -n1`) is what
 * the program would have died of had SIGPIPE not been ignored inside it:
 * unless SIGPIPE was already ignored when the program started, it dies of
 * SIGPIPE then, silently, like any filter; if the caller ignored SIGPIPE
 * (as coreutils) it is a write error. */
void     wf_output_close_at_exit (void);

/* Flushes standard output; FALSE once a write to it has failed (errno
 * set when the flush itself failed). For programs that print as they go
 * (`listen`, `top`): they stop instead of running on into a dead stream,
 * and the exit handler reports the error. */
gboolean wf_output_flush (void);

G_END_DECLS
