/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-scan-keys.h"

#include <math.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-number.h"

static const WfScanKey keys[WF_SCAN_KEY_COUNT] = {
  { WF_SCAN_KEY_MODE, "mode", "auto, off or always" },
  { WF_SCAN_KEY_POLICY, "policy", "observe or strict" },
  { WF_SCAN_KEY_TRAFFIC_PPS, "traffic-pps",
    "a number of packets per second above 0 and at most 1000000" },
  { WF_SCAN_KEY_TRAFFIC_TIME, "traffic-time",
    "a number of seconds from 0 to 60" },
  { WF_SCAN_KEY_HOLD_OFF, "hold-off",
    "a number of seconds above 0 and at most 3600" },
  { WF_SCAN_KEY_ROAM_FLOOR, "roam-floor",
    "auto or a whole number of dBm from -100 to -20" },
};

const WfScanKey *
wf_scan_key_get (WfScanKeyId id)
{
  g_return_val_if_fail (id < WF_SCAN_KEY_COUNT, NULL);
  return &keys[id];
}

const WfScanKey *
wf_scan_key_lookup (const char *key)
{
  g_return_val_if_fail (key != NULL, NULL);

  if (g_str_has_prefix (key, WF_SCAN_KEY_PREFIX))
    key += strlen (WF_SCAN_KEY_PREFIX);
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (g_str_equal (key, keys[i].name))
      return &keys[i];
  return NULL;
}

char *
wf_scan_key_full_name (const WfScanKey *key)
{
  return g_strconcat (WF_SCAN_KEY_PREFIX, key->name, NULL);
}

char *
wf_scan_key_list (void)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", keys[i].name);
  return g_string_free (s, FALSE);
}

static gboolean
in_range (const char *value, double lo, gboolean lo_open, double hi,
          gboolean whole)
{
  double v;

  if (!wf_number_parse (value, WF_NUMBER_PLAIN, &v, NULL))
    return FALSE;
  if (whole && v != floor (v))
    return FALSE;
  return (lo_open ? v > lo : v >= lo) && v <= hi;
}

gboolean
wf_scan_key_validate (const WfScanKey *key,
                      const char      *value,
                      GError         **error)
{
  gboolean ok = FALSE;

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  switch (key->id)
    {
    case WF_SCAN_KEY_MODE:
      ok = g_str_equal (value, "auto") || g_str_equal (value, "off")
           || g_str_equal (value, "always");
      break;
    case WF_SCAN_KEY_POLICY:
      ok = g_str_equal (value, "observe") || g_str_equal (value, "strict");
      break;
    case WF_SCAN_KEY_TRAFFIC_PPS:
      ok = in_range (value, 0, TRUE, 1e6, FALSE);
      break;
    case WF_SCAN_KEY_TRAFFIC_TIME:
      ok = in_range (value, 0, FALSE, 60, FALSE);
      break;
    case WF_SCAN_KEY_HOLD_OFF:
      ok = in_range (value, 0, TRUE, 3600, FALSE);
      break;
    case WF_SCAN_KEY_ROAM_FLOOR:
      ok = g_str_equal (value, "auto") || in_range (value, -100, FALSE, -20, TRUE);
      break;
    case WF_SCAN_KEY_COUNT:
    default:
      g_assert_not_reached ();
    }
  if (!ok)
    g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                 "invalid value '%s' for %s%s: expected %s", value,
                 WF_SCAN_KEY_PREFIX, key->name, key->allowed);
  return ok;
}
