/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MAC address text: the one format and its strict reverse. */
#include <string.h>

#include <glib.h>

#include "wlanfair-mac.h"

static void
test_format (void)
{
  const guint8 mac[6] = { 0x02, 0x00, 0xab, 0xCD, 0x0f, 0xff };
  char text[WF_MAC_STR_LEN];

  g_assert_true (wf_mac_format (mac, text) == text);
  g_assert_cmpstr (text, ==, "02:00:ab:cd:0f:ff");
}

static void
test_parse (void)
{
  static const char *const bad[] = {
    "", "02:00:ab:cd:0f", "02:00:ab:cd:0f:f", "02:00:ab:cd:0f:fff", "02:00:ab:cd:0f:ff ",
    " 2:00:ab:cd:0f:ff", "+2:00:ab:cd:0f:ff", "02-00-ab-cd-0f-ff", "02:00:ab:cd:0f:gf",
    "0x:00:ab:cd:0f:ff", "02:00:ab:cd:0f:ff:", "020:0:ab:cd:0f:ff",
  };
  const guint8 want[6] = { 0x02, 0x00, 0xab, 0xcd, 0x0f, 0xff };
  guint8 mac[6] = { 0 }, keep[6];
  char text[WF_MAC_STR_LEN];

  g_assert_true (wf_mac_parse ("02:00:AB:cd:0F:ff", mac));
  g_assert_cmpmem (mac, 6, want, 6);
  /* What wf_mac_format writes reads back. */
  g_assert_true (wf_mac_parse (wf_mac_format (want, text), mac));
  g_assert_cmpmem (mac, 6, want, 6);
  memcpy (keep, mac, 6);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (wf_mac_parse (bad[i], mac));
      g_assert_cmpmem (mac, 6, keep, 6);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mac/format", test_format);
  g_test_add_func ("/mac/parse", test_parse);

  return g_test_run ();
}
