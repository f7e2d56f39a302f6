/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The record of every bgscan the daemon changed, on disk before the change
 * is made, so that a restart after a crash (or --restore) can undo it. */

typedef struct {
  char   *network;   /* wpa_supplicant network object path */
  char   *owner;     /* wpa_supplicant's unique bus name at the change */
  char   *ifname;
  char   *saved;     /* the original value, unquoted */
  gint64  since_us;  /* CLOCK_REALTIME */
} WfScanStateEntry;

typedef struct _WfScanState WfScanState;

/* `dir` exists (it is not created) and `dir`/bgscan.state is absent
 * or a regular file (wlanfair-file.h): what --check and the start test. */
gboolean     wf_scan_state_check  (const char  *dir,
                                   GError     **error);
/* Loads `dir`/bgscan.state if it exists, after wf_scan_state_check(). */
WfScanState *wf_scan_state_new    (const char  *dir,
                                   GError     **error);
void         wf_scan_state_free   (WfScanState *state);
const char  *wf_scan_state_path   (WfScanState *state);

/* Records (replacing an entry of the same network) and writes the file
 * atomically; only then may the caller change bgscan. */
gboolean     wf_scan_state_add    (WfScanState *state,
                                   const char  *network,
                                   const char  *owner,
                                   const char  *ifname,
                                   const char  *saved,
                                   GError     **error);
gboolean     wf_scan_state_remove (WfScanState *state,
                                   const char  *network,
                                   GError     **error);
/* The entries (WfScanStateEntry *), in insertion order; borrowed. */
GPtrArray   *wf_scan_state_entries (WfScanState *state);

G_END_DECLS
