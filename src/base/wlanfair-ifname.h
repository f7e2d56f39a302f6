/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The one rule for interface names, in options and configuration files
 * alike: what the kernel's dev_valid_name() accepts. 1..15 bytes
 * (IFNAMSIZ - 1), not "." or "..", no '/', ':' or whitespace; and, since
 * names end up in logs, textfile labels and terminals, printable ASCII
 * only (the kernel takes any other byte, udev and NetworkManager never
 * make one). The error names WHAT ("-i", "interfaces") and the name,
 * escaped. */
gboolean wf_ifname_validate (const char *what,
                             const char *name,
                             GError    **error);

G_END_DECLS
