/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's configuration: one [scan] group in scan.conf and its
 * drop-ins, overridable per NetworkManager profile via user.data. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-number.h"
#include "wlanfair-scan-config.h"

const char * const wf_scan_mode_names[] = { "auto", "off", "always", NULL };
const char * const wf_scan_policy_names[] = { "observe", "strict", NULL };

/* Every key: short name, and whether a profile may override it. */
typedef struct {
  const char *name;
  const char *full;     /* user.data key, NULL = global only */
} KeyInfo;

static const KeyInfo keys[] = {
  { "mode", WF_SCAN_PROFILE_PREFIX "mode" },
  { "policy", WF_SCAN_PROFILE_PREFIX "policy" },
  { "start-pps", WF_SCAN_PROFILE_PREFIX "start-pps" },
  { "start-window", WF_SCAN_PROFILE_PREFIX "start-window" },
  { "idle-pps", WF_SCAN_PROFILE_PREFIX "idle-pps" },
  { "idle-holdoff", WF_SCAN_PROFILE_PREFIX "idle-holdoff" },
  { "roam-floor", WF_SCAN_PROFILE_PREFIX "roam-floor" },
  { "roam-floor-margin", WF_SCAN_PROFILE_PREFIX "roam-floor-margin" },
  { "roam-hysteresis", WF_SCAN_PROFILE_PREFIX "roam-hysteresis" },
  { "beacon-loss-holdoff", WF_SCAN_PROFILE_PREFIX "beacon-loss-holdoff" },
  { "sample-interval", NULL },
  { "signal-interval", NULL },
  { "textfile-dir", NULL },
};

static const char * const profile_keys[] = {
  WF_SCAN_PROFILE_PREFIX "mode",
  WF_SCAN_PROFILE_PREFIX "policy",
  WF_SCAN_PROFILE_PREFIX "start-pps",
  WF_SCAN_PROFILE_PREFIX "start-window",
  WF_SCAN_PROFILE_PREFIX "idle-pps",
  WF_SCAN_PROFILE_PREFIX "idle-holdoff",
  WF_SCAN_PROFILE_PREFIX "roam-floor",
  WF_SCAN_PROFILE_PREFIX "roam-floor-margin",
  WF_SCAN_PROFILE_PREFIX "roam-hysteresis",
  WF_SCAN_PROFILE_PREFIX "beacon-loss-holdoff",
  NULL
};

/* Defaults. Android's WifiConnectivityManager skips full scans while
 * connected once tx > 8 or rx > 16 packets/s (config_wifi_framework_max_
 * {tx,rx}_rate_for_full_scan); an idle laptop's background chatter (ARP,
 * mDNS, NTP, keep-alives) stays under ~5 packets/s while a voice call is
 * ~50 each way and any download hundreds. So tx+rx >= 20 packets/s,
 * averaged over 0.5 s (two 250 ms samples, to ignore single bursts)
 * starts suppression well within the 1 s target. It ends after 10 s under
 * 10 packets/s: pauses of interactive use (page loads, a paused video)
 * are shorter, and bgscan's shortest interval is 30 s, so restoring 10 s
 * late costs no roaming. The roam floor sits 3 dB under the threshold NM
 * gave bgscan (-70 -> -73): above the threshold bgscan-simple only scans
 * every LONG (86400 s) anyway, and 3 dB is about one MCS step: under it
 * a better AP is worth the scan cost; 4 dB of hysteresis is what
 * bgscan-simple's own CQM uses. */
void
wf_scan_config_init_defaults (WfScanConfig *c)
{
  c->mode = WF_SCAN_MODE_AUTO;
  c->policy = WF_SCAN_POLICY_OBSERVE;
  c->start_pps = 20;
  c->start_window_s = 0.5;
  c->idle_pps = 10;
  c->idle_holdoff_s = 10;
  c->roam_floor_auto = TRUE;
  c->roam_floor_dbm = -73;
  c->roam_floor_margin_db = 3;
  c->roam_hysteresis_db = 4;
  c->beacon_loss_holdoff_s = 30;
  c->sample_interval_ms = 250;
  c->signal_interval_ms = 1000;
  c->textfile_dir = NULL;
}

static gboolean
parse_enum (const char *key, const char *text, const char * const *names,
            guint *out, GError **error)
{
  for (guint i = 0; names[i]; i++)
    if (g_str_equal (text, names[i]))
      {
        *out = i;
        return TRUE;
      }
  {
    /* "a, b or c" */
    g_autoptr(GString) list = g_string_new (NULL);
    guint n = g_strv_length ((char **) names);

    for (guint i = 0; i < n; i++)
      g_string_append_printf (list, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
    g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                 "%s '%s' is invalid: expected %s", key, text, list->str);
  }
  return FALSE;
}

static gboolean
parse_range (const char *key, const char *text, double min, double max,
             double *out, GError **error)
{
  double v;
  g_autoptr(GError) local = NULL;

  if (!wf_number_parse (text, WF_NUMBER_PLAIN, &v, &local) || !isfinite (v)
      || v < min || v > max)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "%s '%s' must be a number from %g to %g", key, text, min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_int_range (const char *key, const char *text, int min, int max,
                 int *out, GError **error)
{
  double v;

  if (!parse_range (key, text, min, max, &v, NULL) || v != floor (v))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "%s '%s' must be a whole number from %d to %d", key, text, min, max);
      return FALSE;
    }
  *out = (int) v;
  return TRUE;
}

static const char *
short_name (const char *key)
{
  if (g_str_has_prefix (key, WF_SCAN_PROFILE_PREFIX))
    return key + strlen (WF_SCAN_PROFILE_PREFIX);
  return key;
}

gboolean
wf_scan_config_set (WfScanConfig *c, const char *key, const char *value,
                    GError **error)
{
  double d;
  int i;
  guint u;

  if (g_str_equal (key, "mode"))
    {
      if (!parse_enum (key, value, wf_scan_mode_names, &u, error))
        return FALSE;
      c->mode = u;
    }
  else if (g_str_equal (key, "policy"))
    {
      if (!parse_enum (key, value, wf_scan_policy_names, &u, error))
        return FALSE;
      c->policy = u;
    }
  else if (g_str_equal (key, "start-pps"))
    {
      if (!parse_range (key, value, 0.1, 1e6, &d, error))
        return FALSE;
      c->start_pps = d;
    }
  else if (g_str_equal (key, "start-window"))
    {
      if (!parse_range (key, value, 0.1, 10, &d, error))
        return FALSE;
      c->start_window_s = d;
    }
  else if (g_str_equal (key, "idle-pps"))
    {
      if (!parse_range (key, value, 0, 1e6, &d, error))
        return FALSE;
      c->idle_pps = d;
    }
  else if (g_str_equal (key, "idle-holdoff"))
    {
      if (!parse_range (key, value, 0, 3600, &d, error))
        return FALSE;
      c->idle_holdoff_s = d;
    }
  else if (g_str_equal (key, "roam-floor"))
    {
      if (g_str_equal (value, "auto"))
        c->roam_floor_auto = TRUE;
      else
        {
          if (!parse_int_range (key, value, -100, -20, &i, NULL))
            {
              g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                           "roam-floor '%s' must be auto or a whole number of dBm from -100 to -20",
                           value);
              return FALSE;
            }
          c->roam_floor_auto = FALSE;
          c->roam_floor_dbm = i;
        }
    }
  else if (g_str_equal (key, "roam-floor-margin"))
    {
      if (!parse_int_range (key, value, 0, 30, &i, error))
        return FALSE;
      c->roam_floor_margin_db = i;
    }
  else if (g_str_equal (key, "roam-hysteresis"))
    {
      if (!parse_int_range (key, value, 0, 20, &i, error))
        return FALSE;
      c->roam_hysteresis_db = i;
    }
  else if (g_str_equal (key, "beacon-loss-holdoff"))
    {
      if (!parse_range (key, value, 0, 3600, &d, error))
        return FALSE;
      c->beacon_loss_holdoff_s = d;
    }
  else if (g_str_equal (key, "sample-interval"))
    {
      if (!parse_int_range (key, value, 50, 5000, &i, error))
        return FALSE;
      c->sample_interval_ms = (guint) i;
    }
  else if (g_str_equal (key, "signal-interval"))
    {
      if (!parse_int_range (key, value, 250, 60000, &i, error))
        return FALSE;
      c->signal_interval_ms = (guint) i;
    }
  else if (g_str_equal (key, "textfile-dir"))
    c->textfile_dir = g_intern_string (g_str_equal (value, "none") ? "" : value);
  else
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "unknown key '%s'", key);
      return FALSE;
    }
  return TRUE;
}

/* Cross-key rule: the idle threshold may not exceed the start threshold,
 * or the detector would flap. */
static gboolean
check_consistent (const WfScanConfig *c, GError **error)
{
  if (c->idle_pps > c->start_pps)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "idle-pps %g must not exceed start-pps %g", c->idle_pps, c->start_pps);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_one (WfScanConfig *c, const char *path, gboolean must_exist, GError **error)
{
  g_autoptr(GKeyFile) kf = NULL;
  g_autoptr(GPtrArray) known = g_ptr_array_new ();
  g_auto(GStrv) names = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    g_ptr_array_add (known, (gpointer) keys[i].name);
  g_ptr_array_add (known, NULL);
  if (!wf_keyfile_load_section (path, "scan", (const char * const *) known->pdata,
                                must_exist, &kf, error))
    return FALSE;
  if (kf == NULL)
    return TRUE;
  names = g_key_file_get_keys (kf, "scan", NULL, NULL);
  for (guint k = 0; names && names[k]; k++)
    {
      g_autoptr(GError) local = NULL;
      g_autofree char *value = g_key_file_get_string (kf, "scan", names[k], &local);

      if (!value || !wf_scan_config_set (c, names[k], value, &local))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s: [scan] %s: %s",
                       path, names[k], local ? local->message : "unreadable");
          return FALSE;
        }
    }
  return TRUE;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

gboolean
wf_scan_config_load (WfScanConfig *c, const char *path, gboolean must_exist,
                     GError **error)
{
  g_autofree char *dir_path = g_strconcat (path, ".d", NULL);
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) local = NULL;
  const char *name;

  if (!load_one (c, path, must_exist, error))
    return FALSE;
  dir = g_dir_open (dir_path, 0, &local);
  if (!dir && !g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", dir_path);
      return FALSE;
    }
  g_clear_error (&local);
  while (dir && (name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, ".conf") && name[0] != '.')
      {
        /* Each drop-in is bounded; so is their number (a runaway
         * generator must not make the guard read for minutes). */
        if (files->len == WF_SCAN_CONFIG_DROPINS_MAX)
          {
            g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                         "%s: more than %u drop-ins (*.conf)", dir_path,
                         WF_SCAN_CONFIG_DROPINS_MAX);
            return FALSE;
          }
        g_ptr_array_add (files, g_build_filename (dir_path, name, NULL));
      }
  g_ptr_array_sort (files, compare_names);
  for (guint i = 0; i < files->len; i++)
    if (!load_one (c, files->pdata[i], TRUE, error))
      return FALSE;
  if (!check_consistent (c, &local))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s (with drop-ins): ", path);
      return FALSE;
    }
  return TRUE;
}

const char *
wf_scan_config_profile_key (const char *short_or_full)
{
  const char *name = short_name (short_or_full);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (keys[i].full && g_str_equal (keys[i].name, name))
      return keys[i].full;
  return NULL;
}

const char * const *
wf_scan_config_profile_keys (void)
{
  return profile_keys;
}

gboolean
wf_scan_config_check_profile_value (const char *key, const char *value,
                                    GError **error)
{
  WfScanConfig scratch;

  if (!wf_scan_config_profile_key (key))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) profile_keys);
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "unknown key '%s' (known: %s)", key, list);
      return FALSE;
    }
  wf_scan_config_init_defaults (&scratch);
  return wf_scan_config_set (&scratch, short_name (key), value, error);
}

void
wf_scan_config_apply_profile (const WfScanConfig *global, GHashTable *user_data,
                              WfScanConfig *out, GPtrArray *warnings)
{
  GHashTableIter it;
  gpointer k, v;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  *out = *global;
  if (!user_data)
    return;
  /* Sorted, so that warnings come out in a stable order. */
  g_hash_table_iter_init (&it, user_data);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (g_str_has_prefix (k, WF_SCAN_PROFILE_PREFIX))
      g_ptr_array_add (names, k);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *key = names->pdata[i];
      const char *value = g_hash_table_lookup (user_data, key);
      WfScanConfig trial = *out;
      g_autoptr(GError) local = NULL;

      if (!wf_scan_config_profile_key (key))
        {
          if (warnings)
            g_ptr_array_add (warnings, g_strdup_printf ("unknown key %s ignored", key));
          continue;
        }
      if (!wf_scan_config_set (&trial, short_name (key), value, &local))
        {
          if (warnings)
            g_ptr_array_add (warnings, g_strdup_printf ("%s: %s; using the global value",
                                                        key, local->message));
          continue;
        }
      *out = trial;
    }
  /* Checked after all keys, so that their order does not matter. */
  if (out->idle_pps > out->start_pps)
    {
      if (warnings)
        g_ptr_array_add (warnings, g_strdup_printf ("idle-pps %g exceeds start-pps %g; using %g",
                                                    out->idle_pps, out->start_pps, out->start_pps));
      out->idle_pps = out->start_pps;
    }
}
