/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-number.h"

#include <math.h>

#include "wlanfair-error.h"

/* A strict decimal grammar: strtod alone would also take "nan", "inf",
 * hex floats and leading blanks, none of which is a throughput. */
static gboolean
scan_decimal (const char *s, const char **end)
{
  gboolean digits = FALSE;

  if (*s == '+' || *s == '-')
    s++;
  while (g_ascii_isdigit (*s))
    s++, digits = TRUE;
  if (*s == '.')
    {
      s++;
      while (g_ascii_isdigit (*s))
        s++, digits = TRUE;
    }
  if (!digits)
    return FALSE;
  if (*s == 'e' || *s == 'E')
    {
      const char *e = s + 1;
      if (*e == '+' || *e == '-')
        e++;
      if (!g_ascii_isdigit (*e))
        return FALSE;
      while (g_ascii_isdigit (*e))
        e++;
      s = e;
    }
  *end = s;
  return TRUE;
}

static double
si_multiplier (char c)
{
  switch (c)
    {
    case 'k':
    case 'K':
      return 1e3;
    case 'M':
      return 1e6;
    case 'G':
      return 1e9;
    case 'T':
      return 1e12;
    default:
      return 0;
    }
}

gboolean
wf_number_parse (const char    *text,
                 WfNumberFlags  flags,
                 double        *out,
                 GError       **error)
{
  const char *end = NULL;
  double value, mult = 1;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!scan_decimal (text, &end))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "'%s' is not a number", text);
      return FALSE;
    }

  if (*end != '\0')
    {
      mult = (flags & WF_NUMBER_SI) && end[1] == '\0' ? si_multiplier (*end) : 0;
      if (mult == 0)
        {
          if (flags & WF_NUMBER_SI)
            g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                         "'%s' is not a number (suffixes: k, M, G, T)", text);
          else
            g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                         "'%s' is not a number", text);
          return FALSE;
        }
    }

  value = g_ascii_strtod (text, NULL) * mult;
  if (!isfinite (value))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "'%s' is out of range", text);
      return FALSE;
    }
  if (value == 0)
    value = 0; /* no "-0" in output */

  if ((flags & WF_NUMBER_POSITIVE) && !(value > 0))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "'%s' must be greater than zero", text);
      return FALSE;
    }
  if ((flags & WF_NUMBER_NONNEG) && value < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "'%s' is negative", text);
      return FALSE;
    }

  *out = value;
  return TRUE;
}
