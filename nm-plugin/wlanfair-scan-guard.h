/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <gio/gio.h>

#include "wlanfair-scan-config.h"

G_BEGIN_DECLS

/* The scan guard: one device per wpa_supplicant interface, fed by link
 * counters, wpa_supplicant, NetworkManager and nl80211, deciding with
 * wlanfair-scan-policy and acting on bgscan; published on D-Bus. */

typedef struct _WfScanGuard WfScanGuard;

/* `bus` must already own (or be about to own) org.wlanfair.ScanGuard1.
 * Restores what a previous run left in `state_dir` once wpa_supplicant
 * is seen. */
WfScanGuard *wf_scan_guard_new      (GDBusConnection    *bus,
                                     const WfScanConfig *config,
                                     const char         *state_dir,
                                     GError            **error);
/* Restores every bgscan this process changed (SIGTERM). */
void         wf_scan_guard_shutdown (WfScanGuard *guard);
void         wf_scan_guard_free     (WfScanGuard *guard);

/* --restore: restores the entries of `state_dir`'s state file against
 * the running wpa_supplicant and drops them; FALSE if some could not be
 * checked (wpa_supplicant unreachable): they stay for the next try. */
gboolean     wf_scan_guard_restore_state (GDBusConnection *bus,
                                          const char      *state_dir,
                                          GError         **error);

/* Removes the textfile `config` names (at stop, and after a crash with
 * --restore: no hold survives either, so its figures would mislead). */
void         wf_scan_guard_remove_textfile (const WfScanConfig *config);

G_END_DECLS
