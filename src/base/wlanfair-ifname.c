/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-ifname.h"
#include "wlanfair-text.h"

#define WF_IFNAME_MAX 15 /* IFNAMSIZ - 1 */

gboolean
wf_ifname_validate (const char *what, const char *name, GError **error)
{
  gsize len = name ? strlen (name) : 0;
  const char *why = NULL;

  if (len == 0)
    why = "is empty";
  else if (len > WF_IFNAME_MAX)
    why = "is longer than 15 bytes";
  else if (g_str_equal (name, ".") || g_str_equal (name, ".."))
    why = "is not a name";
  else
    for (const char *p = name; *p; p++)
      if (*p == '/' || *p == ':' || g_ascii_isspace (*p) ||
          (guchar) *p < 0x21 || (guchar) *p > 0x7e)
        {
          why = "holds a character Linux or wlanfair does not allow "
                "(/, :, whitespace, control or non-ASCII)";
          break;
        }
  if (!why)
    return TRUE;

  /* Escaped: the name came from a user or a file and goes to a terminal. */
  g_autofree char *shown = wf_text_fit (name, 64, WF_TEXT_CUT);
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
               "%s: interface name '%s' %s", what, shown, why);
  return FALSE;
}
