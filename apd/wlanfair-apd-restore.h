/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Undoing what a crashed run recorded: every group of the state file
 * goes to the actuator or cell program its name says, at start-up and
 * for `wlanfair-apd --restore` (ExecStopPost=). */
#pragma once

#include <glib.h>

#include "wlanfair-apd-state.h"

G_BEGIN_DECLS

/* Restores what every group in `state` records ("<name>:<ifname>"). Goes
 * on after a failure, returns the first (a group naming nothing known is
 * one, left as is). Removes each group restored and saves the state. */
gboolean wf_apd_restore_all (WfApdState *state, GError **error);
/* `--restore`: the same for the state file at state_path. */
gboolean wf_apd_restore (const char *state_path, GError **error);

G_END_DECLS
