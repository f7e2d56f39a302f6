/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-json-writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

struct _WfJsonWriter {
  GString *out;
  guint    depth;
  gboolean first[MAX_DEPTH]; /* no element yet at this depth */
  gboolean after_member;     /* a member name was written: its value follows */
  gboolean compact;          /* one line, no blanks */
};

WfJsonWriter *
wf_json_writer_new (void)
{
  WfJsonWriter *w = g_new0 (WfJsonWriter, 1);

  w->out = g_string_new (NULL);
  return w;
}

WfJsonWriter *
wf_json_writer_new_compact (void)
{
  WfJsonWriter *w = wf_json_writer_new ();

  w->compact = TRUE;
  return w;
}

static void
newline (WfJsonWriter *w)
{
  if (w->compact)
    return;
  g_string_append_c (w->out, '\n');
  for (guint i = 0; i < w->depth; i++)
    g_string_append (w->out, "  ");
}

/* Separator and indentation before a value (or a member name). */
static void
before_value (WfJsonWriter *w)
{
  if (w->after_member)
    {
      w->after_member = FALSE;
      return;
    }
  if (w->depth == 0)
    return;
  if (!w->first[w->depth])
    g_string_append_c (w->out, ',');
  w->first[w->depth] = FALSE;
  newline (w);
}

static void
open_container (WfJsonWriter *w, char c)
{
  before_value (w);
  g_return_if_fail (w->depth + 1 < MAX_DEPTH);
  g_string_append_c (w->out, c);
  w->depth++;
  w->first[w->depth] = TRUE;
}

static void
close_container (WfJsonWriter *w, char c)
{
  g_return_if_fail (w->depth > 0 && !w->after_member);
  w->depth--;
  if (!w->first[w->depth + 1])
    newline (w);
  g_string_append_c (w->out, c);
}

void
wf_json_writer_begin_object (WfJsonWriter *w)
{
  open_container (w, '{');
}

void
wf_json_writer_end_object (WfJsonWriter *w)
{
  close_container (w, '}');
}

void
wf_json_writer_begin_array (WfJsonWriter *w)
{
  open_container (w, '[');
}

void
wf_json_writer_end_array (WfJsonWriter *w)
{
  close_container (w, ']');
}

static void
append_quoted (GString *out, const char *s)
{
  g_autofree char *valid = g_utf8_make_valid (s, -1);

  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) valid; *p; p++)
    switch (*p)
      {
      case '"': g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\b': g_string_append (out, "\\b"); break;
      case '\f': g_string_append (out, "\\f"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default:
        if (*p < 0x20)
          g_string_append_printf (out, "\\u%04x", *p);
        else
          g_string_append_c (out, (char) *p);
      }
  g_string_append_c (out, '"');
}

void
wf_json_writer_member (WfJsonWriter *w, const char *name)
{
  g_return_if_fail (w->depth > 0 && !w->after_member);
  before_value (w);
  append_quoted (w->out, name);
  g_string_append (w->out, w->compact ? ":" : " : ");
  w->after_member = TRUE;
}

void
wf_json_writer_string (WfJsonWriter *w, const char *value)
{
  before_value (w);
  if (value == NULL)
    g_string_append (w->out, "null");
  else
    append_quoted (w->out, value);
}

void
wf_json_writer_int (WfJsonWriter *w, gint64 value)
{
  before_value (w);
  g_string_append_printf (w->out, "%" G_GINT64_FORMAT, value);
}

void
wf_json_writer_double (WfJsonWriter *w, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE], format[8];
  int digits, exponent;

  before_value (w);
  if (!isfinite (value))
    {
      g_string_append (w->out, "null");
      return;
    }
  /* The fewest significant digits that read back as VALUE (17 always
   * do): 0.1, not 0.10000000000000001; 1e-320, not 9.99988867182683e-321. */
  for (digits = 1; digits < 17; digits++)
    {
      g_snprintf (format, sizeof format, "%%.%de", digits - 1);
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  g_snprintf (format, sizeof format, "%%.%de", digits - 1);
  g_ascii_formatd (buf, sizeof buf, format, value);
  exponent = atoi (strchr (buf, 'e') + 1);
  /* Plain notation where it is short and usual: 100.0, 3000000.0, 0.001,
   * not 1e+02; beyond, the exponent (2e+17, 1e-320). */
  if (exponent >= -5 && exponent < 17)
    {
      g_snprintf (format, sizeof format, "%%.%dg", MAX (digits, exponent + 1));
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) != value)
        g_ascii_formatd (buf, sizeof buf, "%.17g", value);
    }
  g_string_append (w->out, buf);
  /* Keep it a double for readers that tell the two apart ("2.0"); an
   * exponent already says so, and "2e+17.0" would not be JSON. */
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append (w->out, ".0");
}

void
wf_json_writer_boolean (WfJsonWriter *w, gboolean value)
{
  before_value (w);
  g_string_append (w->out, value ? "true" : "false");
}

char *
wf_json_writer_free_to_string (WfJsonWriter *w)
{
  char *text;

  g_warn_if_fail (w->depth == 0 && !w->after_member);
  g_string_append_c (w->out, '\n');
  text = g_string_free (w->out, FALSE);
  g_free (w);
  return text;
}
