/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* NetworkManager through libnm: which profile is active on an interface,
 * its id and its user.data, and a notification when any of that may have
 * changed. NetworkManager is optional. */

typedef struct _WfScanNm WfScanNm;

typedef void (*WfScanNmChanged) (gpointer user_data);

/* Never fails for a missing NetworkManager (it is watched for); NULL only
 * when libnm cannot be set up on `bus`. */
WfScanNm *wf_scan_nm_new  (GDBusConnection  *bus,
                           WfScanNmChanged   changed,
                           gpointer          user_data,
                           GError          **error);
void      wf_scan_nm_free (WfScanNm *nm);

/* The active connection on `ifname`: TRUE with its id and a copy of its
 * user.data (key -> value; may be empty); FALSE when NetworkManager does
 * not run or the interface has no active connection. */
gboolean  wf_scan_nm_lookup (WfScanNm    *nm,
                             const char  *ifname,
                             char       **connection_id,
                             GHashTable **user_data);

G_END_DECLS
