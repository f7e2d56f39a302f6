/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Tracks the local addresses of the Wi-Fi interfaces: the configured
 * ones, or every interface the kernel reports as wireless. Calls back
 * with an array of struct wf_addr_key whenever the set may have changed. */
typedef void (*WfTcpWifiChanged) (GArray *keys, gpointer user_data);

typedef struct _WfTcpWifi WfTcpWifi;

WfTcpWifi *wf_tcp_wifi_new (char            **interfaces,
                            WfTcpWifiChanged  changed,
                            gpointer          user_data,
                            GError          **error);
void       wf_tcp_wifi_free (WfTcpWifi *wifi);
gboolean   wf_tcp_wifi_is_wireless (const char *ifname);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfTcpWifi, wf_tcp_wifi_free)

G_END_DECLS
