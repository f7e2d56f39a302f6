/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks of a report's JSON text around json-glib: before it (the whole
 * grammar, so that json-glib 1.6 never meets malformed input, on which it
 * leaks or goes wrong) and after it (what typed validation
 * of known members cannot see in unknown ones). */
#include "wlanfair-report-text.h"

#include <math.h>
#include <string.h>

static int
hex4 (const char *s)
{
  int v = 0;

  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (s[i]);

      if (d < 0)
        return -1;
      v = v << 4 | d;
    }
  return v;
}

typedef struct {
  const char    *s;
  gsize          len;
  gsize          i;
  const char    *why;
  WfReportReject reason;
} Scan;

static gboolean
scan_fail (Scan *p, WfReportReject reason, const char *why)
{
  p->reason = reason;
  p->why = why;
  return FALSE;
}

static void
scan_ws (Scan *p)
{
  while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                           p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

/* A string from its opening quote. Every \u escape is checked because
 * json-glib 1.6 cuts a string at \u0000, turns a lone surrogate into
 * invalid UTF-8 and leaks on a malformed surrogate pair. */
static gboolean
scan_string (Scan *p)
{
  const char *s = p->s;

  for (p->i++; p->i < p->len; p->i++)
    {
      int v, lo;

      if (s[p->i] == '"')
        {
          p->i++;
          return TRUE;
        }
      /* RFC 8259 wants them escaped; json-glib lets them through. */
      if ((guchar) s[p->i] < 0x20)
        return scan_fail (p, WF_REPORT_REJECT_JSON, "a control character inside a string");
      if (s[p->i] != '\\')
        continue;
      if (p->i + 1 >= p->len)
        break;
      if (s[p->i + 1] != 'u')
        {
          /* strchr would match the terminator on a NUL byte. */
          if (s[p->i + 1] == '\0' || !strchr ("\"\\/bfnrt", s[p->i + 1]))
            return scan_fail (p, WF_REPORT_REJECT_JSON, "an unknown escape in a string");
          p->i++;
          continue;
        }
      if (p->i + 6 > p->len || (v = hex4 (s + p->i + 2)) < 0)
        return scan_fail (p, WF_REPORT_REJECT_JSON, "a \\u escape without 4 hex digits");
      p->i += 5;
      if (v == 0)
        return scan_fail (p, WF_REPORT_REJECT_UTF8, "a string contains \\u0000");
      if (v >= 0xDC00 && v <= 0xDFFF)
        return scan_fail (p, WF_REPORT_REJECT_UTF8, "a \\u escape is a lone low surrogate");
      if (v >= 0xD800 && v <= 0xDBFF)
        {
          if (p->i + 7 > p->len || s[p->i + 1] != '\\' || s[p->i + 2] != 'u' ||
              (lo = hex4 (s + p->i + 3)) < 0xDC00 || lo > 0xDFFF)
            return scan_fail (p, WF_REPORT_REJECT_UTF8, "a \\u escape is a lone high surrogate");
          p->i += 6;
        }
    }
  return scan_fail (p, WF_REPORT_REJECT_JSON, "an unterminated string");
}

static gsize
scan_digits (Scan *p)
{
  gsize start = p->i;

  while (p->i < p->len && g_ascii_isdigit (p->s[p->i]))
    p->i++;
  return p->i - start;
}

/* RFC 8259 section 6: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static gboolean
scan_number (Scan *p)
{
  const char *s = p->s;

  if (s[p->i] == '-')
    p->i++;
  if (p->i < p->len && s[p->i] == '0')
    p->i++;
  else if (scan_digits (p) == 0)
    return scan_fail (p, WF_REPORT_REJECT_JSON, "a malformed number");
  if (p->i < p->len && s[p->i] == '.')
    {
      p->i++;
      if (scan_digits (p) == 0)
        return scan_fail (p, WF_REPORT_REJECT_JSON, "a malformed number");
    }
  if (p->i < p->len && (s[p->i] == 'e' || s[p->i] == 'E'))
    {
      p->i++;
      if (p->i < p->len && (s[p->i] == '+' || s[p->i] == '-'))
        p->i++;
      if (scan_digits (p) == 0)
        return scan_fail (p, WF_REPORT_REJECT_JSON, "a malformed number");
    }
  return TRUE;
}

static gboolean
scan_literal (Scan *p)
{
  static const char *const words[] = { "true", "false", "null" };

  for (guint k = 0; k < G_N_ELEMENTS (words); k++)
    {
      gsize n = strlen (words[k]);

      if (p->len - p->i >= n && memcmp (p->s + p->i, words[k], n) == 0)
        {
          p->i += n;
          return TRUE;
        }
    }
  return scan_fail (p, WF_REPORT_REJECT_JSON, "expected a value");
}

/* A scalar value, or the opening bracket of a container (not consumed). */
static gboolean
scan_scalar (Scan *p)
{
  char ch = p->s[p->i];

  if (ch == '"')
    return scan_string (p);
  if (ch == '-' || g_ascii_isdigit (ch))
    return scan_number (p);
  return scan_literal (p);
}

/* The whole text against the JSON grammar (RFC 8259) before json-glib
 * sees it, so that no malformed datagram reaches json-glib's error paths:
 * those of 1.6 leak (found by fuzzing, a remote attacker could grow the
 * receiver without bound), and its recursion is bounded by the depth
 * limit. Iterative, with the open containers on a stack. */
WfReportReject
wf_report_prescan (const char *text, gsize len, const char **why)
{
  enum { VALUE, MEMBER, AFTER } state = VALUE;
  char open[WF_REPORT_MAX_DEPTH];
  int depth = 0;
  Scan p = { text, len, 0, NULL, WF_REPORT_OK };

  scan_ws (&p);
  if (p.i == len || text[p.i] != '{')
    {
      *why = "not a JSON object";
      return p.i < len && text[p.i] && strchr ("[\"-0123456789tfn", text[p.i])
             ? WF_REPORT_REJECT_NOT_OBJECT : WF_REPORT_REJECT_JSON;
    }

  for (;;)
    {
      scan_ws (&p);
      if (p.i == len)
        {
          scan_fail (&p, WF_REPORT_REJECT_JSON, "the text ends inside the object");
          break;
        }
      if (state == MEMBER)
        {
          if (text[p.i] != '"')
            {
              scan_fail (&p, WF_REPORT_REJECT_JSON, "expected a member name");
              break;
            }
          if (!scan_string (&p))
            break;
          scan_ws (&p);
          if (p.i == len || text[p.i] != ':')
            {
              scan_fail (&p, WF_REPORT_REJECT_JSON, "expected ':' after a member name");
              break;
            }
          p.i++;
          state = VALUE;
        }
      else if (state == VALUE)
        {
          char ch = text[p.i];

          if (ch != '{' && ch != '[')
            {
              if (!scan_scalar (&p))
                break;
              state = AFTER;
              continue;
            }
          if (depth == WF_REPORT_MAX_DEPTH)
            {
              scan_fail (&p, WF_REPORT_REJECT_JSON,
                         "nested deeper than " G_STRINGIFY (WF_REPORT_MAX_DEPTH));
              break;
            }
          open[depth++] = ch;
          p.i++;
          scan_ws (&p);
          /* An empty container: its closing bracket is AFTER's to take. */
          if (p.i < len && text[p.i] == (ch == '{' ? '}' : ']'))
            state = AFTER;
          else
            state = ch == '{' ? MEMBER : VALUE;
        }
      else if (depth == 0)
        {
          /* The object is closed: only whitespace may follow. json-glib
           * takes "{..}{..}" and leaks all roots but the last. */
          scan_fail (&p, WF_REPORT_REJECT_JSON, "data after the object");
          break;
        }
      else if (text[p.i] == ',')
        {
          p.i++;
          state = open[depth - 1] == '{' ? MEMBER : VALUE;
        }
      else if (text[p.i] == (open[depth - 1] == '{' ? '}' : ']'))
        {
          p.i++;
          depth--;
          if (depth == 0)
            {
              scan_ws (&p);
              if (p.i == len)
                return WF_REPORT_OK;
            }
        }
      else
        {
          scan_fail (&p, WF_REPORT_REJECT_JSON, "expected ',' or the end of the container");
          break;
        }
    }
  *why = p.why;
  return p.reason;
}

/* Whole-tree checks that typed validation cannot do for unknown members,
 * which `listen --json` echoes: every member name and string valid UTF-8
 * (json-glib turns a lone \ud800 escape into invalid UTF-8) and every
 * number finite (1e999 becomes inf, which no JSON writer can write back).
 * Both found by the fuzzer. Depth is bounded by WF_REPORT_MAX_DEPTH. */
WfReportReject
wf_report_tree_check (JsonNode *n)
{
  WfReportReject r = WF_REPORT_OK;

  switch (JSON_NODE_TYPE (n))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter it;
        const char *name;
        JsonNode *m;

        json_object_iter_init (&it, json_node_get_object (n));
        while (r == WF_REPORT_OK && json_object_iter_next (&it, &name, &m))
          r = g_utf8_validate (name, -1, NULL) ? wf_report_tree_check (m) : WF_REPORT_REJECT_UTF8;
        return r;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (n);

        for (guint i = 0; r == WF_REPORT_OK && i < json_array_get_length (a); i++)
          r = wf_report_tree_check (json_array_get_element (a, i));
        return r;
      }
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (n) == G_TYPE_STRING &&
          !g_utf8_validate (json_node_get_string (n), -1, NULL))
        return WF_REPORT_REJECT_UTF8;
      if (json_node_get_value_type (n) == G_TYPE_DOUBLE && !isfinite (json_node_get_double (n)))
        return WF_REPORT_REJECT_RANGE;
      return WF_REPORT_OK;
    case JSON_NODE_NULL:
    default:
      return WF_REPORT_OK;
    }
}
