/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Text from the network, files or profiles on its way to a terminal.
 *
 * Escaped: C0 controls and DEL ("\e", "\n", "\r", "\t", else "\x1b"
 * style), C1 controls (U+0080-U+009F, "\u0085"), the line and paragraph
 * separators, every format character (Unicode category Cf: bidi
 * overrides and isolates U+202A-U+202E, U+2066-U+2069, zero-width
 * U+200B-U+200F, U+FEFF, ...: "\u202e"), invalid UTF-8 byte by byte
 * ("\x85"), and the backslash itself ("\\") so that an escape cannot be
 * forged. Everything else passes unchanged. NULL gives "". */
char *wf_text_escape (const char *text);

typedef enum {
  WF_TEXT_LEFT    = 0,
  WF_TEXT_RIGHT   = 1 << 0, /* pad on the left */
  WF_TEXT_KEEP    = 1 << 1, /* pad only: longer text stays whole */
  WF_TEXT_CUT     = 1 << 2, /* cut only: shorter text is not padded */
  /* TEXT is wf_text_escape()'s or the program's own: its backslashes
   * stay as they are (an escape is not escaped twice); a control or
   * format character is still escaped. */
  WF_TEXT_ESCAPED = 1 << 3,
} WfTextFlags;

/* Terminal columns of TEXT as shown (escaped): East Asian wide and
 * fullwidth characters 2, combining marks and other zero-width
 * characters 0. Of FLAGS only WF_TEXT_ESCAPED counts. */
gsize wf_text_width (const char *text, WfTextFlags flags);

/* TEXT escaped, then cut or padded with spaces to exactly COLUMNS
 * columns (at least with WF_TEXT_KEEP, at most with WF_TEXT_CUT). A wide
 * character or an escape that does not fit whole is left out and padded
 * for. For table cells, where printf's "%-16s" counts bytes, not
 * columns, and for lines cut to a terminal's width. */
char *wf_text_fit (const char *text, gsize columns, WfTextFlags flags);

G_END_DECLS
