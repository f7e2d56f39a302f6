/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl ap: wlanfair-apd's status file, read by `ap status`
 * (wlanfairctl-ap.c) and `ap watch` (wlanfairctl-ap-watch.c). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* apd's WF_APD_DEFAULT_STATUS (status= in apd.conf); the CLI does not
 * link libapd, so the path is spelled here too. */
#define WF_AP_STATUS_FILE "/run/wlanfair-apd/status.json"
/* The daemon rewrites the file every round (1 s): older is stale. */
#define WF_AP_STALE_US (10 * G_USEC_PER_SEC)

typedef struct {
  char       *path;
  JsonParser *parser;
  JsonObject *status;  /* the validated version-1 object, owned by parser */
  char       *stale;   /* why it is stale, NULL when fresh */
} WfApStatus;

typedef enum {
  WF_AP_LOAD_OK,
  WF_AP_LOAD_MISSING,  /* no file: the daemon is not running */
  WF_AP_LOAD_INVALID,  /* unreadable, malformed, another version */
} WfApLoad;

/* Reads and validates PATH; else *message is one line naming the file. */
WfApLoad    wf_ap_status_load (const char  *path,
                               gint64       now_us,
                               WfApStatus **out,
                               char       **message);
void        wf_ap_status_free (WfApStatus *st);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApStatus, wf_ap_status_free)

/* The header and the per-station table; lines cut at `width` columns
 * (0: no limit). */
void        wf_ap_status_render (WfApStatus *st,
                                 gint64      now_us,
                                 guint       width,
                                 GString    *out);

int         wf_cli_ap_status (int argc, char **argv);
int         wf_cli_ap_watch (int argc, char **argv);

G_END_DECLS
