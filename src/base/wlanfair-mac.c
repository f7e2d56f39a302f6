/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MAC address text, written one way: station keys, state files, log
 * lines and reports must agree byte for byte. */
#include "wlanfair-mac.h"

#include <string.h>

const char *
wf_mac_format (const guint8 mac[6], char out[WF_MAC_STR_LEN])
{
  g_snprintf (out, WF_MAC_STR_LEN, "%02x:%02x:%02x:%02x:%02x:%02x",
              mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
  return out;
}

gboolean
wf_mac_parse (const char *text, guint8 mac[6])
{
  guint8 b[6];

  /* By hand: sscanf's %x takes signs, spaces and "0x". */
  for (int i = 0; i < 6; i++)
    {
      const char *p = text + i * 3;
      int hi, lo;

      if ((hi = g_ascii_xdigit_value (p[0])) < 0 || (lo = g_ascii_xdigit_value (p[1])) < 0 ||
          p[2] != (i < 5 ? ':' : '\0'))
        return FALSE;
      b[i] = (guint8) (hi << 4 | lo);
    }
  memcpy (mac, b, sizeof b);
  return TRUE;
}
