/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-report-check.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

gboolean
wf_report_check_fail (WfReportCheck *c, WfReportReject reason, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  if (c->reason != WF_REPORT_OK)
    return FALSE;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  c->reason = reason;
  c->detail = c->path[0] ? g_strdup_printf ("%s: %s", c->path, msg) : g_steal_pointer (&msg);
  return FALSE;
}

/* Returns the member or NULL when absent; a present JSON null is a type
 * error: absent measurements are absent keys. */
JsonNode *
wf_report_check_member (WfReportCheck *c, JsonObject *o, const char *name, gboolean required)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL && required)
    wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is missing", name);
  return n;
}

gboolean
wf_report_check_int (WfReportCheck *c, JsonObject *o, const char *name, gboolean required,
         gint64 min, gint64 max, gboolean *has, gint64 *out)
{
  JsonNode *n = wf_report_check_member (c, o, name, required);
  gint64 v;

  if (has)
    *has = FALSE;
  if (n == NULL)
    return !required;
  if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE ||
      json_node_get_value_type (n) != G_TYPE_INT64)
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is not an integer", name);
  v = json_node_get_int (n);
  if (v < min || v > max)
    return wf_report_check_fail (c, WF_REPORT_REJECT_RANGE, "\"%s\" %" G_GINT64_FORMAT
                 " outside %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT, name, v, min, max);
  if (has)
    *has = TRUE;
  *out = v;
  return TRUE;
}

/* Rates may be written as integers or doubles. */
gboolean
wf_report_check_number (WfReportCheck *c, JsonObject *o, const char *name, gboolean required,
            double min, double max, gboolean *has, double *out)
{
  JsonNode *n = wf_report_check_member (c, o, name, required);
  double v;

  if (has)
    *has = FALSE;
  if (n == NULL)
    return !required;
  if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is not a number", name);
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    v = (double) json_node_get_int (n);
  else if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    v = json_node_get_double (n);
  else
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is not a number", name);
  if (!isfinite (v) || v < min || v > max)
    return wf_report_check_fail (c, WF_REPORT_REJECT_RANGE, "\"%s\" %g outside %g..%g", name, v, min, max);
  if (has)
    *has = TRUE;
  *out = v;
  return TRUE;
}

gboolean
wf_report_check_bool (WfReportCheck *c, JsonObject *o, const char *name, gboolean *has, gboolean *out)
{
  JsonNode *n = wf_report_check_member (c, o, name, FALSE);

  if (has)
    *has = FALSE;
  if (n == NULL)
    return TRUE;
  if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE ||
      json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is not a boolean", name);
  if (has)
    *has = TRUE;
  *out = json_node_get_boolean (n);
  return TRUE;
}

gboolean
wf_report_check_has_control (const char *s)
{
  for (; *s; s++)
    if ((guchar) *s < 0x20 || *s == 0x7f)
      return TRUE;
  return FALSE;
}

/* *out points into the JSON tree. printable: no C0 control or DEL. */
gboolean
wf_report_check_string (WfReportCheck *c, JsonObject *o, const char *name, gboolean required,
            gsize min_len, gsize max_len, gboolean printable, const char **out)
{
  JsonNode *n = wf_report_check_member (c, o, name, required);
  const char *s;
  gsize len;

  *out = NULL;
  if (n == NULL)
    return !required;
  if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE ||
      json_node_get_value_type (n) != G_TYPE_STRING)
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is not a string", name);
  s = json_node_get_string (n);
  len = strlen (s);
  /* \u escapes can encode lone surrogates the byte check never saw. */
  if (!g_utf8_validate (s, len, NULL))
    return wf_report_check_fail (c, WF_REPORT_REJECT_UTF8, "\"%s\" is not valid UTF-8", name);
  if (len < min_len || len > max_len)
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" has %" G_GSIZE_FORMAT
                 " bytes, not %" G_GSIZE_FORMAT "..%" G_GSIZE_FORMAT, name, len, min_len, max_len);
  if (printable && wf_report_check_has_control (s))
    return wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" contains control characters", name);
  *out = s;
  return TRUE;
}

/* Exactly len lowercase hex digits (s may have no NUL after them). */
gboolean
wf_report_check_is_hex (const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isdigit (s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
      return FALSE;
  return TRUE;
}

gboolean
wf_report_check_is_mac (const char *s)
{
  if (strlen (s) != 17)
    return FALSE;
  for (int i = 0; i < 17; i++)
    if (i % 3 == 2 ? s[i] != ':' : !g_ascii_isxdigit (s[i]))
      return FALSE;
  return TRUE;
}

/* Optional object/array member. */
JsonNode *
wf_report_check_container (WfReportCheck *c, JsonObject *o, const char *name, JsonNodeType type)
{
  JsonNode *n = wf_report_check_member (c, o, name, FALSE);

  if (n == NULL)
    return NULL;
  if (JSON_NODE_TYPE (n) != type)
    {
      wf_report_check_fail (c, WF_REPORT_REJECT_FIELD, "\"%s\" is not an %s", name,
            type == JSON_NODE_OBJECT ? "object" : "array");
      return NULL;
    }
  return n;
}

/* Counters: non-negative integers. */
gboolean
wf_report_check_counters (WfReportCheck *c, JsonObject *o, const char *const *names)
{
  gint64 v;

  for (; *names; names++)
    if (!wf_report_check_int (c, o, *names, FALSE, 0, G_MAXINT64, NULL, &v))
      return FALSE;
  return TRUE;
}
