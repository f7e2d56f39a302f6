/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The per-profile keys of the scan guard, stored in a NetworkManager
 * profile's user.data ("wlanfair.scan.<name>"). One table for the CLI
 * (which rejects bad values) and the daemon (which warns and falls back
 * to the global value). */
#define WF_SCAN_KEY_PREFIX "wlanfair.scan."

typedef enum {
  WF_SCAN_KEY_MODE,         /* auto | off | always */
  WF_SCAN_KEY_POLICY,       /* observe | strict */
  WF_SCAN_KEY_TRAFFIC_PPS,  /* tx+rx packets/s that count as traffic, > 0 */
  WF_SCAN_KEY_TRAFFIC_TIME, /* seconds above the threshold before suppressing */
  WF_SCAN_KEY_HOLD_OFF,     /* idle seconds before bgscan is restored */
  WF_SCAN_KEY_ROAM_FLOOR,   /* dBm, or "auto" (under NM's bgscan threshold) */
  WF_SCAN_KEY_COUNT
} WfScanKeyId;

typedef struct {
  WfScanKeyId id;
  const char *name;    /* short form: "mode" */
  const char *allowed; /* for messages and --help: "auto, off or always" */
} WfScanKey;

/* "mode" or "wlanfair.scan.mode" -> the table entry; NULL when unknown. */
const WfScanKey *wf_scan_key_lookup (const char *key);
const WfScanKey *wf_scan_key_get (WfScanKeyId id);
/* "wlanfair.scan.mode"; free with g_free(). */
char *wf_scan_key_full_name (const WfScanKey *key);
/* WF_ERROR_INVALID naming the allowed values when VALUE is not one. */
gboolean wf_scan_key_validate (const WfScanKey *key,
                               const char      *value,
                               GError         **error);
/* "mode, policy, ..." for messages. */
char *wf_scan_key_list (void);

G_END_DECLS
