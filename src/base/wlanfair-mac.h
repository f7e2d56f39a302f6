/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MAC addresses as text: "aa:bb:cc:dd:ee:ff", as iw and the kernel print them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The text's size with its NUL. */
#define WF_MAC_STR_LEN 18

/* Lower-case hex digits, two per byte, colons between; returns `out`. */
const char *wf_mac_format (const guint8 mac[6],
                           char         out[WF_MAC_STR_LEN]);

/* The reverse of wf_mac_format(), either case: exactly 17 characters,
 * two hex digits per byte, colons between. FALSE (mac untouched) for
 * anything else. */
gboolean    wf_mac_parse  (const char *text,
                           guint8      mac[6]);

G_END_DECLS
