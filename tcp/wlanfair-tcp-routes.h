/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Routes that name one of our_ccs (`ip route ... congctl ackloss_cubic`)
 * are rewritten without the congctl metric, in every table, IPv4 and
 * IPv6, so that none names a CC that is about to go away. Returns the
 * number of routes changed in *n_changed. Needs CAP_NET_ADMIN. */
gboolean wf_tcp_routes_clear_cc (const char * const *our_ccs,
                                 guint              *n_changed,
                                 GError            **error);

G_END_DECLS
