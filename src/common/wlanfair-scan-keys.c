/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stand-in for wlanfair-scan-config.c's profile-key validation (see the
 * header): the table of nm-plugin/README.md, "Configuration". */
#include "wlanfair-scan-keys.h"

#include <math.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-number.h"

typedef enum { WORD, NUMBER, DBM_OR_AUTO } Kind;

typedef struct {
  const char *full;
  Kind kind;
  const char *words; /* WORD: allowed values, space separated */
  double lo, hi;     /* NUMBER, DBM_OR_AUTO: inclusive range */
  const char *allowed;
} Key;

static const Key keys[] = {
  { "wlanfair.scan.mode", WORD, "auto off always", 0, 0, "auto, off or always" },
  { "wlanfair.scan.policy", WORD, "observe strict", 0, 0, "observe or strict" },
  { "wlanfair.scan.start-pps", NUMBER, NULL, 0.1, 1e6, "a number from 0.1 to 1000000" },
  { "wlanfair.scan.start-window", NUMBER, NULL, 0.1, 10, "a number of seconds from 0.1 to 10" },
  { "wlanfair.scan.idle-pps", NUMBER, NULL, 0, 1e6, "a number from 0 to 1000000 (and at most start-pps)" },
  { "wlanfair.scan.idle-holdoff", NUMBER, NULL, 0, 3600, "a number of seconds from 0 to 3600" },
  { "wlanfair.scan.roam-floor", DBM_OR_AUTO, NULL, -100, -20, "auto or a number of dBm from -100 to -20" },
  { "wlanfair.scan.roam-floor-margin", NUMBER, NULL, 0, 30, "a number of dB from 0 to 30" },
  { "wlanfair.scan.roam-hysteresis", NUMBER, NULL, 0, 20, "a number of dB from 0 to 20" },
  { "wlanfair.scan.beacon-loss-holdoff", NUMBER, NULL, 0, 3600, "a number of seconds from 0 to 3600" },
};

static const char *const full_keys[] = {
  "wlanfair.scan.mode", "wlanfair.scan.policy", "wlanfair.scan.start-pps",
  "wlanfair.scan.start-window", "wlanfair.scan.idle-pps",
  "wlanfair.scan.idle-holdoff", "wlanfair.scan.roam-floor",
  "wlanfair.scan.roam-floor-margin", "wlanfair.scan.roam-hysteresis",
  "wlanfair.scan.beacon-loss-holdoff", NULL,
};

static const Key *
find (const char *short_or_full)
{
  const char *name = short_or_full;

  if (g_str_has_prefix (name, WF_SCAN_PROFILE_PREFIX))
    name += strlen (WF_SCAN_PROFILE_PREFIX);
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (g_str_equal (name, keys[i].full + strlen (WF_SCAN_PROFILE_PREFIX)))
      return &keys[i];
  return NULL;
}

const char *
wf_scan_config_profile_key (const char *short_or_full)
{
  const Key *k;

  g_return_val_if_fail (short_or_full != NULL, NULL);
  k = find (short_or_full);
  return k ? k->full : NULL;
}

const char *const *
wf_scan_config_profile_keys (void)
{
  return full_keys;
}

static gboolean
in_range (const Key *k, const char *value)
{
  double v;

  if (!wf_number_parse (value, WF_NUMBER_PLAIN, &v, NULL))
    return FALSE;
  return v >= k->lo && v <= k->hi;
}

gboolean
wf_scan_config_check_profile_value (const char *key,
                                    const char *value,
                                    GError    **error)
{
  const Key *k;
  gboolean ok = FALSE;

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  k = find (key);
  if (!k)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "unknown key '%s'", key);
      return FALSE;
    }
  switch (k->kind)
    {
    case WORD:
      {
        g_auto(GStrv) words = g_strsplit (k->words, " ", -1);

        ok = *value && g_strv_contains ((const char *const *) words, value);
      }
      break;
    case NUMBER:
      ok = in_range (k, value);
      break;
    case DBM_OR_AUTO:
      ok = g_str_equal (value, "auto") || in_range (k, value);
      break;
    default:
      g_assert_not_reached ();
    }
  if (!ok)
    g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                 "invalid value '%s' for %s: expected %s", value, k->full, k->allowed);
  return ok;
}
