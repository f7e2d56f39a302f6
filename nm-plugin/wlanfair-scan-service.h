/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The org.wlanfair.ScanGuard1 service (org.wlanfair.ScanGuard1.xml): holds
 * with automatic release, and one object per device whose properties the
 * guard sets; PropertiesChanged is emitted from an idle, coalesced. */

#define WF_SCAN_SERVICE_NAME "org.wlanfair.ScanGuard1"
#define WF_SCAN_SERVICE_PATH "/org/wlanfair/ScanGuard1"

typedef struct _WfScanService WfScanService;

typedef void (*WfScanHoldsChanged) (guint n_holds, gpointer user_data);

WfScanService *wf_scan_service_new     (GDBusConnection     *bus,
                                        gboolean             nl80211,
                                        WfScanHoldsChanged   holds_changed,
                                        gpointer             user_data,
                                        GError             **error);
void           wf_scan_service_free    (WfScanService *service);
guint          wf_scan_service_n_holds (WfScanService *service);

/* /org/wlanfair/ScanGuard1/Device/IFINDEX */
char          *wf_scan_service_device_path (int ifindex);
gboolean       wf_scan_service_device_add    (WfScanService *service,
                                              const char    *path,
                                              GError       **error);
void           wf_scan_service_device_remove (WfScanService *service,
                                              const char    *path);
/* Sets a property (consumes a floating `value`); PropertiesChanged when
 * it differs from the current value. */
void           wf_scan_service_device_set    (WfScanService *service,
                                              const char    *path,
                                              const char    *property,
                                              GVariant      *value);

G_END_DECLS
