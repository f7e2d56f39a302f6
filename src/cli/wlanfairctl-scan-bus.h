/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The scan guard's D-Bus API (nm-plugin/org.wlanfair.ScanGuard1.xml). */
#define WF_SCAN_BUS_NAME "org.wlanfair.ScanGuard1"
#define WF_SCAN_PATH "/org/wlanfair/ScanGuard1"
#define WF_SCAN_IFACE "org.wlanfair.ScanGuard1"
#define WF_SCAN_DEVICE_IFACE "org.wlanfair.ScanGuard1.Device"
#define WF_SCAN_CALL_TIMEOUT_MS 5000

/* The system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured). */
GDBusConnection *wf_cli_scan_system_bus (GError **error);
/* TRUE when ERROR says nobody owns the guard's name on the bus. */
gboolean wf_cli_scan_is_absent (const GError *error);

G_END_DECLS
