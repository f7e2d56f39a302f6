/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks of a report's JSON text around json-glib: before it (what its
 * 1.6 parser gets wrong or leaks on) and after it (what typed validation
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

/* Checks the JSON text before json-glib sees it: the nesting depth (its
 * parser recurses), and every \u escape, because json-glib 1.6 cuts a
 * string at \u0000, turns a lone surrogate into invalid UTF-8, and leaks
 * memory on a malformed surrogate pair (found by fuzzing: a remote
 * attacker could grow the receiver without bound). Only well-formed
 * escapes reach it. */
WfReportReject
wf_report_prescan (const char *s, gsize len, const char **why)
{
  int depth = 0;
  gboolean in_string = FALSE, done = FALSE;
  gsize i = 0;

  /* One object and nothing after it: json-glib takes "{..}{..}" and
   * leaks all roots but the last (found by fuzzing). */
  while (i < len && g_ascii_isspace (s[i]))
    i++;
  if (i == len || s[i] != '{')
    {
      *why = "not a JSON object";
      return i < len && strchr ("[\"-0123456789tfn", s[i]) ? WF_REPORT_REJECT_NOT_OBJECT
                                                            : WF_REPORT_REJECT_JSON;
    }

  for (; i < len; i++)
    {
      char ch = s[i];

      if (done)
        {
          if (!g_ascii_isspace (ch))
            {
              *why = "data after the object";
              return WF_REPORT_REJECT_JSON;
            }
          continue;
        }
      if (in_string)
        {
          int v, lo;

          if (ch == '"')
            in_string = FALSE;
          /* RFC 8259 wants them escaped; json-glib lets them through. */
          if ((guchar) ch < 0x20)
            {
              *why = "a control character inside a string";
              return WF_REPORT_REJECT_JSON;
            }
          if (ch != '\\')
            continue;
          if (i + 1 >= len || s[i + 1] != 'u')
            {
              i++;
              continue;
            }
          if (i + 6 > len || (v = hex4 (s + i + 2)) < 0)
            {
              *why = "a \\u escape without 4 hex digits";
              return WF_REPORT_REJECT_JSON;
            }
          i += 5;
          if (v == 0)
            {
              *why = "a string contains \\u0000";
              return WF_REPORT_REJECT_UTF8;
            }
          if (v >= 0xDC00 && v <= 0xDFFF)
            {
              *why = "a \\u escape is a lone low surrogate";
              return WF_REPORT_REJECT_UTF8;
            }
          if (v >= 0xD800 && v <= 0xDBFF)
            {
              if (i + 7 > len || s[i + 1] != '\\' || s[i + 2] != 'u' ||
                  (lo = hex4 (s + i + 3)) < 0xDC00 || lo > 0xDFFF)
                {
                  *why = "a \\u escape is a lone high surrogate";
                  return WF_REPORT_REJECT_UTF8;
                }
              i += 6;
            }
          continue;
        }
      if (ch == '"')
        in_string = TRUE;
      else if (ch == '{' || ch == '[')
        {
          if (++depth > WF_REPORT_MAX_DEPTH)
            {
              *why = "nested deeper than " G_STRINGIFY (WF_REPORT_MAX_DEPTH);
              return WF_REPORT_REJECT_JSON;
            }
        }
      else if ((ch == '}' || ch == ']') && --depth <= 0)
        done = TRUE;
    }
  return WF_REPORT_OK;
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
