/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's textfile metrics. Counters (holds, seconds held) so
 * that rate() and increase() work at any scrape interval; the start of the
 * current hold as a timestamp so that a rule can say "held for more than N
 * minutes" without keeping history. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "wlanfair-scan-metrics.h"
#include "wlanfair-textfile.h"

gboolean
wf_scan_hold_update (WfScanHold *h, gboolean holding, gint64 mono_us, gint64 real_us)
{
  holding = !!holding;
  if (h->holding == holding)
    return FALSE;
  if (holding)
    {
      h->holds++;
      h->since_mono_us = mono_us;
      h->since_real_us = real_us;
    }
  else
    h->held_us += MAX (0, mono_us - h->since_mono_us);
  h->holding = holding;
  return TRUE;
}

double
wf_scan_hold_seconds (const WfScanHold *h, gint64 mono_us)
{
  gint64 us = h->held_us;

  if (h->holding)
    us += MAX (0, mono_us - h->since_mono_us);
  return us / (double) G_USEC_PER_SEC;
}

/* Interface names and fixed words: nothing to escape in practice. */
static void
label (GString *out, const char *name, const char *value)
{
  g_string_append_printf (out, "%s%s=\"", out->str[out->len - 1] == '{' ? "" : ",", name);
  wf_textfile_label_value (out, value);
  g_string_append_c (out, '"');
}

static void
sample_start (GString *out, const char *name, const WfScanMetricsDevice *d)
{
  g_string_append_printf (out, "%s{", name);
  label (out, "device", d->device);
}

/* Seconds to the millisecond: enough for any rule, stable in tests. */
static void
value_seconds (GString *out, double s)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "} %s\n", g_ascii_formatd (num, sizeof num, "%.3f", s));
}

static int
by_device (gconstpointer a, gconstpointer b)
{
  return strcmp (((const WfScanMetricsDevice *) a)->device, ((const WfScanMetricsDevice *) b)->device);
}

char *
wf_scan_metrics_render (const WfScanMetricsDevice *devices, guint n, guint dbus_holds, gint64 mono_us)
{
  GString *out = g_string_new (NULL);
  g_autofree WfScanMetricsDevice *d = NULL;
  gboolean any_holding = FALSE;

  wf_textfile_family (out, "wlanfair_scan_guard_dbus_holds", "gauge",
                      "D-Bus holds in force (Hold without Release); they hold scans off on every device.");
  g_string_append_printf (out, "wlanfair_scan_guard_dbus_holds %u\n", dbus_holds);
  if (n == 0)
    return g_string_free (out, FALSE);
  d = g_memdup2 (devices, n * sizeof *devices);
  qsort (d, n, sizeof *d, by_device);

  wf_textfile_family (out, "wlanfair_scan_guard_info", "gauge",
                      "The scan guard's configuration in effect for the device (1; the labels say it).");
  for (guint i = 0; i < n; i++)
    {
      sample_start (out, "wlanfair_scan_guard_info", &d[i]);
      label (out, "mode", d[i].mode);
      label (out, "policy", d[i].policy);
      g_string_append (out, "} 1\n");
    }
  wf_textfile_family (out, "wlanfair_scan_guard_holding", "gauge",
                      "1 while the guard holds background scans off (bgscan suppressed).");
  for (guint i = 0; i < n; i++)
    {
      sample_start (out, "wlanfair_scan_guard_holding", &d[i]);
      g_string_append_printf (out, "} %d\n", d[i].hold->holding ? 1 : 0);
      any_holding |= d[i].hold->holding;
    }
  wf_textfile_family (out, "wlanfair_scan_guard_holds_total", "counter",
                      "Times the guard started holding scans off.");
  for (guint i = 0; i < n; i++)
    {
      sample_start (out, "wlanfair_scan_guard_holds_total", &d[i]);
      g_string_append_printf (out, "} %" G_GUINT64_FORMAT "\n", d[i].hold->holds);
    }
  wf_textfile_family (out, "wlanfair_scan_guard_held_seconds_total", "counter",
                      "Time the guard held scans off, in seconds.");
  for (guint i = 0; i < n; i++)
    {
      sample_start (out, "wlanfair_scan_guard_held_seconds_total", &d[i]);
      value_seconds (out, wf_scan_hold_seconds (d[i].hold, mono_us));
    }
  /* Only while holding: a rule then needs no "and holding". */
  if (any_holding)
    wf_textfile_family (out, "wlanfair_scan_guard_hold_started_timestamp_seconds", "gauge",
                        "When the current hold started, unix seconds (present only while holding).");
  for (guint i = 0; i < n; i++)
    if (d[i].hold->holding)
      {
        sample_start (out, "wlanfair_scan_guard_hold_started_timestamp_seconds", &d[i]);
        value_seconds (out, d[i].hold->since_real_us / (double) G_USEC_PER_SEC);
      }
  return g_string_free (out, FALSE);
}
