/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cell-wide programs of wlanfair-apd: tc BPF programs on the AP
 * interface that serve every station and need no report (ack-priority=,
 * download-demand=). One small ops table, one file each
 * (wlanfair-cell-<name>.c), a static registry beside the actuators' (as
 * power-profiles-daemon's actions beside its drivers), so that the
 * daemon, --check and --restore walk a list instead of naming each. A
 * started program runs from the daemon's start to its stop, in every
 * mode, and is recorded in the state file (group "<name>:<ifname>")
 * before it is attached. Without the BPF toolchain the registry is
 * empty and apd.conf refuses a key that requires one. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-config.h"
#include "wlanfair-apd-state.h"
#include "wlanfair-apd-station-table.h"
#include "wlanfair-apd-view.h"

G_BEGIN_DECLS

typedef enum {
  WF_CELL_PROGRAM_OFF,       /* not asked for */
  WF_CELL_PROGRAM_WANTED,    /* auto: a failed start is a warning */
  WF_CELL_PROGRAM_REQUIRED,  /* yes: no start without it */
} WfCellProgramWant;

typedef struct {
  const char *name;      /* its apd.conf key and its state group's prefix */
  const char *without;   /* what running without it costs, for the logs */

  /* What the configuration asks of it; may_act: the daemon may control. */
  WfCellProgramWant (*wanted) (const WfApdConfig *c, gboolean may_act);
  /* Whether it loads here; changes nothing. */
  gboolean (*probe)   (GError **error);
  /* Loads, records, attaches; on failure nothing is left (or the record
   * says what --restore finishes). */
  gpointer (*start)   (const char *ifname, WfApdState *state, GError **error);
  /* Detaches and forgets the record; frees priv either way. */
  gboolean (*stop)    (gpointer priv, GError **error);
  /* After a crash: what the state's group for ifname says was attached.
   * Idempotent; leaves the group for the caller to remove. */
  gboolean (*restore) (const char *ifname, WfApdState *state, GError **error);
  /* Optional, after each station dump, so that both count the same
   * interval. On failure the program has still updated t (with nothing). */
  gboolean (*after_dump) (gpointer priv, WfApdStations *t, GError **error);
  /* Optional: its part of the round's view. */
  void     (*view)    (gpointer priv, WfApdView *v);
} WfCellProgramOps;

/* The registry: every built-in cell program in start order, NULL-terminated. */
const WfCellProgramOps *const *wf_cell_program_list (void);
const WfCellProgramOps *wf_cell_program_find (const char *name);

/* apd.conf's keys that require a cell program this build lacks
 * (-Dbpf=disabled) are refused, never dropped: after
 * wf_apd_config_check(), with the same exit status. */
gboolean wf_cell_program_check_config (const WfApdConfig *c, GError **error);

/* Whether the configuration asks for any (the capabilities it keeps). */
gboolean wf_cell_program_any_wanted (const WfApdConfig *c, gboolean may_act);

/* The started programs of one daemon. */
typedef struct _WfCellPrograms WfCellPrograms;

/* Starts every wanted program in registry order. A required one that
 * fails stops those started (reverse order) and fails; a wanted one
 * that fails is one warning. */
WfCellPrograms *wf_cell_programs_start (const WfApdConfig *c, gboolean may_act,
                                        WfApdState *state, GError **error);
/* Stops them in reverse order (after the actuator: a clsact qdisc it
 * kept may be theirs); goes on after a failure, returns the first;
 * frees p either way. */
gboolean wf_cell_programs_stop (WfCellPrograms *p, GError **error);
/* Each program's after_dump; a failure is said once until it works. */
void     wf_cell_programs_after_dump (WfCellPrograms *p, WfApdStations *t);
void     wf_cell_programs_view (WfCellPrograms *p, WfApdView *v);

/* The built-in programs (wlanfair-cell-<name>.c), with the BPF toolchain. */
#ifdef WF_HAVE_BPF
extern const WfCellProgramOps wf_cell_ack_priority;
extern const WfCellProgramOps wf_cell_download_demand;
#endif

G_END_DECLS
