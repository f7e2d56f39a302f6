/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Stand-in for the scan guard's src/common/wlanfair-scan-config.h (same
 * functions, same keys as nm-plugin/README.md) until that file is merged;
 * then this one goes. The per-profile keys live in a NetworkManager
 * profile's user.data as "wlanfair.scan.<name>". */
#define WF_SCAN_PROFILE_PREFIX "wlanfair.scan."

/* Full user.data key ("wlanfair.scan.mode") for a short name ("mode") or a
 * full key; NULL if the daemon does not read such a key. */
const char *wf_scan_config_profile_key (const char *short_or_full);
/* NULL-terminated list of the full keys. */
const char *const *wf_scan_config_profile_keys (void);
/* TRUE if `value` is valid for `key` (short or full); else WF_ERROR_INVALID
 * with a message naming the key and the accepted values. */
gboolean wf_scan_config_check_profile_value (const char *key,
                                             const char *value,
                                             GError    **error);

G_END_DECLS
