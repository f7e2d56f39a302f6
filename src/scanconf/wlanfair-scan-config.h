/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Configuration of the scan guard (wlanfair-scand): the global file with
 * its drop-ins, and the per-connection overrides from NetworkManager's
 * user.data. Shared with `wlanfairctl scan set`, which validates with the
 * same functions. */

/* The most scan.conf.d drop-ins read (wlanfair-scand(8), FILES). */
#define WF_SCAN_CONFIG_DROPINS_MAX 256

typedef enum {
  WF_SCAN_MODE_AUTO,    /* suppress bgscan during traffic and holds */
  WF_SCAN_MODE_OFF,     /* never touch bgscan */
  WF_SCAN_MODE_ALWAYS,  /* suppress whenever connected */
} WfScanMode;

typedef enum {
  WF_SCAN_POLICY_OBSERVE, /* count and log scans bgscan did not start */
  WF_SCAN_POLICY_STRICT,  /* abort them during traffic and holds */
} WfScanPolicyKind;

typedef struct {
  WfScanMode       mode;
  WfScanPolicyKind policy;
  double           start_pps;           /* tx+rx packets/s to start */
  double           start_window_s;      /* averaging window */
  double           idle_pps;            /* under it the link is idle */
  double           idle_holdoff_s;      /* idle this long before restoring */
  gboolean         roam_floor_auto;     /* floor from the saved bgscan */
  int              roam_floor_dbm;      /* when not auto */
  int              roam_floor_margin_db;
  int              roam_hysteresis_db;
  double           beacon_loss_holdoff_s;
  guint            sample_interval_ms;  /* global only */
  guint            signal_interval_ms;  /* global only */
  /* Global only: node_exporter textfile directory; NULL = the default
   * while it exists, "" = none. Interned (g_intern_string), so that the
   * struct copies by value like the rest. */
  const char      *textfile_dir;
} WfScanConfig;

#define WF_SCAN_PROFILE_PREFIX "wlanfair.scan."

extern const char * const wf_scan_mode_names[];   /* by WfScanMode */
extern const char * const wf_scan_policy_names[]; /* by WfScanPolicyKind */

void wf_scan_config_init_defaults (WfScanConfig *config);

/* Loads `path` (missing is fine unless must_exist) and then every
 * `path`.d/ *.conf in lexical order on top of `config`. Unknown groups or
 * keys and bad values fail with "FILE: [scan] KEY: why". */
gboolean wf_scan_config_load (WfScanConfig *config,
                              const char   *path,
                              gboolean      must_exist,
                              GError      **error);

/* Sets one key (short name, as in the file) from its text. */
gboolean wf_scan_config_set (WfScanConfig *config,
                             const char   *key,
                             const char   *value,
                             GError      **error);

/* Full user.data key for a short name or a full key; NULL if unknown or
 * global-only. */
const char *wf_scan_config_profile_key (const char *short_or_full);

/* NULL-terminated list of the user.data keys the daemon reads. */
const char * const *wf_scan_config_profile_keys (void);

/* TRUE if `value` is valid for the profile key (short or full). */
gboolean wf_scan_config_check_profile_value (const char *key,
                                             const char *value,
                                             GError    **error);

/* Copies `global` into `out` and applies every wlanfair.scan.* entry of
 * `user_data` (key -> value, may be NULL). Invalid values and unknown
 * wlanfair.scan.* keys are skipped; each one is described in `warnings`
 * (may be NULL) so that the caller logs it. */
void wf_scan_config_apply_profile (const WfScanConfig *global,
                                   GHashTable         *user_data,
                                   WfScanConfig       *out,
                                   GPtrArray          *warnings);

G_END_DECLS
