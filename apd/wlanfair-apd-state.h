/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record of every change wlanfair-apd made to the system, kept under
 * /run (a GKeyFile, one group per actuator and interface), written to
 * disk (atomically, fsync'd) BEFORE the change it describes. What is in it
 * is undone at the next start, by `--restore` and on a clean stop. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WF_APD_STATE_DEFAULT "/run/wlanfair-apd/state"

typedef struct _WfApdState WfApdState;

/* Loads path if it exists (an unreadable or corrupt file is an error,
 * WF_ERROR_PARSE or _FAILED, naming the path: nothing would undo what it
 * recorded; the caller says so and stops). save creates the parent
 * directory (0700) and writes the file 0600, atomically and fsync'd. */
WfApdState *wf_apd_state_open (const char *path, GError **error);
void        wf_apd_state_free (WfApdState *st);
const char *wf_apd_state_path (WfApdState *st);

/* Groups are "<actuator>:<ifname>". Keys and values are free-form text
 * chosen by the actuator (keys: no '=', '[', ']', newline). set/remove
 * change memory only; save writes (nothing when nothing changed). A group
 * whose last key is removed is dropped. keys: empty (not NULL) for a
 * missing group; get: NULL for a missing key. */
char      **wf_apd_state_groups (WfApdState *st);              /* g_strfreev */
char      **wf_apd_state_keys (WfApdState *st, const char *group);
char       *wf_apd_state_get (WfApdState *st, const char *group, const char *key);
void        wf_apd_state_set (WfApdState *st, const char *group,
                              const char *key, const char *value);
void        wf_apd_state_remove (WfApdState *st, const char *group, const char *key);
void        wf_apd_state_remove_group (WfApdState *st, const char *group);
gboolean    wf_apd_state_save (WfApdState *st, GError **error);
/* No group. save removes the file then. */
gboolean    wf_apd_state_is_empty (WfApdState *st);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdState, wf_apd_state_free)

G_END_DECLS
