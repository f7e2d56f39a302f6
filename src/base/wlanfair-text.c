/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One sanitizer for untrusted text bound for a terminal: a hostname in a
 * report, a value in a status file or a profile name could otherwise
 * move the cursor, rewrite the screen or reverse what follows it. */
#include "config.h"

#include "wlanfair-text.h"

/* Whether C must be shown as an escape rather than as itself. */
static gboolean
must_escape (gunichar c, WfTextFlags flags)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:             /* C0, DEL, C1 (U+0085 too) */
    case G_UNICODE_FORMAT:              /* bidi, zero-width, U+FEFF ... */
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_SURROGATE:
      return TRUE;
    default:
      return c == '\\' && !(flags & WF_TEXT_ESCAPED);
    }
}

static void
append_escape (GString *out, gunichar c)
{
  switch (c)
    {
    case '\\': g_string_append (out, "\\\\"); return;
    case 0x1b: g_string_append (out, "\\e"); return;
    case '\n': g_string_append (out, "\\n"); return;
    case '\r': g_string_append (out, "\\r"); return;
    case '\t': g_string_append (out, "\\t"); return;
    default: break;
    }
  if (c < 0x80)
    g_string_append_printf (out, "\\x%02x", c);
  else if (c <= 0xffff)
    g_string_append_printf (out, "\\u%04x", c);
  else
    g_string_append_printf (out, "\\U%08x", c);
}

/* Walks TEXT one shown unit at a time: a character as itself or an
 * escape, with its width in columns. Returns FALSE at the end. */
typedef struct {
  const char *p;
  GString    *unit;
  gsize       width;
  WfTextFlags flags;
} Walk;

static gboolean
walk_next (Walk *w)
{
  gunichar c;
  const char *next;

  g_string_truncate (w->unit, 0);
  if (!w->p || !*w->p)
    return FALSE;
  c = g_utf8_get_char_validated (w->p, -1);
  if (c == (gunichar) -1 || c == (gunichar) -2)
    {
      /* Invalid UTF-8: the one byte, escaped; the next starts afresh. */
      g_string_append_printf (w->unit, "\\x%02x", (guchar) *w->p);
      w->width = w->unit->len;
      w->p++;
      return TRUE;
    }
  next = g_utf8_next_char (w->p);
  if (must_escape (c, w->flags))
    {
      append_escape (w->unit, c);
      w->width = w->unit->len;
    }
  else
    {
      g_string_append_len (w->unit, w->p, next - w->p);
      w->width = g_unichar_iszerowidth (c) ? 0 : g_unichar_iswide (c) ? 2 : 1;
    }
  w->p = next;
  return TRUE;
}

char *
wf_text_escape (const char *text)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GString) unit = g_string_new (NULL);
  Walk w = { text, unit, 0, 0 };

  while (walk_next (&w))
    g_string_append_len (out, unit->str, unit->len);
  return g_string_free (out, FALSE);
}

gsize
wf_text_width (const char *text, WfTextFlags flags)
{
  g_autoptr(GString) unit = g_string_new (NULL);
  Walk w = { text, unit, 0, flags & WF_TEXT_ESCAPED };
  gsize width = 0;

  while (walk_next (&w))
    width += w.width;
  return width;
}

char *
wf_text_fit (const char *text, gsize columns, WfTextFlags flags)
{
  g_autoptr(GString) body = g_string_new (NULL);
  g_autoptr(GString) unit = g_string_new (NULL);
  Walk w = { text, unit, 0, flags & WF_TEXT_ESCAPED };
  gsize width = 0;
  GString *out;

  while (walk_next (&w))
    {
      if (!(flags & WF_TEXT_KEEP) && width + w.width > columns)
        break;
      g_string_append_len (body, unit->str, unit->len);
      width += w.width;
    }
  if (flags & WF_TEXT_CUT)
    columns = width;
  out = g_string_sized_new (body->len + (columns > width ? columns - width : 0));
  if ((flags & WF_TEXT_RIGHT) && columns > width)
    for (gsize i = width; i < columns; i++)
      g_string_append_c (out, ' ');
  g_string_append_len (out, body->str, body->len);
  if (!(flags & WF_TEXT_RIGHT) && columns > width)
    for (gsize i = width; i < columns; i++)
      g_string_append_c (out, ' ');
  return g_string_free (out, FALSE);
}
