/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the scan guard's configuration (/etc/wlanfair/scan.conf,
 * wf_scan_config_load) and the per-connection overrides from
 * NetworkManager's user.data (wf_scan_config_apply_profile: any user who
 * may edit a connection sets them), on arbitrary text. Built by run-fuzz
 * scan-config; fuzz-main.c replays the corpus (meson test
 * scan-config-corpus).
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - TRUE exactly when no error is set; every error has a non-empty
 *    message that starts with the path;
 *  - what loads is in range (every key's documented bounds, finite) and
 *    consistent (idle-pps <= start-pps);
 *  - a file that loads, loaded again (fresh, and on top of itself), gives
 *    the same configuration;
 *  - the file's [scan] keys as wlanfair.scan.* user.data never make the
 *    profile leave those ranges either: bad ones are skipped with a
 *    warning, and a profile never changes the global-only keys. */
#include "fuzz-file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wlanfair-scan-config.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_ranges (const WfScanConfig *c)
{
  g_assert_cmpuint (c->mode, <=, WF_SCAN_MODE_ALWAYS);
  g_assert_cmpuint (c->policy, <=, WF_SCAN_POLICY_STRICT);
  g_assert_true (isfinite (c->start_pps) && c->start_pps >= 0.1 && c->start_pps <= 1e6);
  g_assert_true (isfinite (c->start_window_s) && c->start_window_s >= 0.1 &&
                 c->start_window_s <= 10);
  g_assert_true (isfinite (c->idle_pps) && c->idle_pps >= 0 && c->idle_pps <= c->start_pps);
  g_assert_true (isfinite (c->idle_holdoff_s) && c->idle_holdoff_s >= 0 &&
                 c->idle_holdoff_s <= 3600);
  g_assert_cmpint (c->roam_floor_dbm, >=, -100);
  g_assert_cmpint (c->roam_floor_dbm, <=, -20);
  g_assert_cmpint (c->roam_floor_margin_db, >=, 0);
  g_assert_cmpint (c->roam_floor_margin_db, <=, 30);
  g_assert_cmpint (c->roam_hysteresis_db, >=, 0);
  g_assert_cmpint (c->roam_hysteresis_db, <=, 20);
  g_assert_true (isfinite (c->beacon_loss_holdoff_s) && c->beacon_loss_holdoff_s >= 0 &&
                 c->beacon_loss_holdoff_s <= 3600);
  g_assert_cmpuint (c->sample_interval_ms, >=, 50);
  g_assert_cmpuint (c->sample_interval_ms, <=, 5000);
  g_assert_cmpuint (c->signal_interval_ms, >=, 250);
  g_assert_cmpuint (c->signal_interval_ms, <=, 60000);
}

/* The struct holds numbers and one interned string: bytes compare. */
static gboolean
same (const WfScanConfig *a, const WfScanConfig *b)
{
  return memcmp (a, b, sizeof *a) == 0;
}

/* Whatever keys the text has in [scan], as user.data would carry them. */
static void
check_profile (const uint8_t *data, size_t size, const WfScanConfig *global)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GHashTable) user_data = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) keys = NULL;
  WfScanConfig out;

  if (!g_key_file_load_from_data (kf, (const char *) data, size, G_KEY_FILE_NONE, NULL))
    return;
  keys = g_key_file_get_keys (kf, "scan", NULL, NULL);
  for (char **k = keys; k && *k; k++)
    {
      char *v = g_key_file_get_value (kf, "scan", *k, NULL);

      if (v)
        g_hash_table_replace (user_data, g_strconcat (WF_SCAN_PROFILE_PREFIX, *k, NULL), v);
    }
  wf_scan_config_apply_profile (global, user_data, &out, warnings);
  check_ranges (&out);
  g_assert_cmpuint (out.sample_interval_ms, ==, global->sample_interval_ms);
  g_assert_cmpuint (out.signal_interval_ms, ==, global->signal_interval_ms);
  g_assert_true (out.textfile_dir == global->textfile_dir);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file (data, size);
  WfScanConfig c, again, defaults;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  wf_scan_config_init_defaults (&c);
  ok = wf_scan_config_load (&c, path, TRUE, &error);
  fuzz_check_error (ok, error);
  if (!ok)
    g_assert_true (g_str_has_prefix (error->message, path));
  else
    {
      check_ranges (&c);
      wf_scan_config_init_defaults (&again);
      g_assert_true (wf_scan_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      g_assert_true (wf_scan_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
    }
  wf_scan_config_init_defaults (&defaults);
  check_profile (data, size, &defaults);
  return 0;
}
