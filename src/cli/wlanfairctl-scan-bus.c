/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's D-Bus side, shared by `scan status` and `scan hold`
 * (apart from the dispatcher, which only calls them). */
#include "config.h"

#include "wlanfairctl-scan-bus.h"

GDBusConnection *
wf_cli_scan_system_bus (GError **error)
{
  return g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, error);
}

gboolean
wf_cli_scan_is_absent (const GError *error)
{
  return g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN)
         || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
}
