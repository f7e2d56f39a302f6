/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Calls `func` when rtnetlink announces a link, address or route change
 * (multicast groups: no capability needed); `links` when a link was
 * among them (new, changed, e.g. up/down or carrier, or gone) or
 * notifications were lost. */
typedef struct _WfNetwatch WfNetwatch;
typedef void (*WfNetwatchFunc) (gpointer data,
                                gboolean links);

WfNetwatch *wf_netwatch_new (WfNetwatchFunc func,
                             gpointer       data,
                             GError       **error);
void        wf_netwatch_free (WfNetwatch *nw);

G_END_DECLS
