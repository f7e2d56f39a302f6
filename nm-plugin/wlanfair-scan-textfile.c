/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guard's node_exporter textfile (wlanfair-scan.prom): written on
 * every change of what it says and, while a device holds (its seconds-held
 * counter grows), every TEXTFILE_US; removed at stop. Like the reporter's: the default directory is used
 * only while it exists (node_exporter installed), an explicit one always. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "wlanfair-file.h"
#include "wlanfair-scan-device.h"
#include "wlanfair-textfile.h"

void
wf_scan_guard_textfile_init (WfScanGuard *g, const WfScanConfig *config)
{
  g->textfile_dir = g_strdup (wf_textfile_dir (config->textfile_dir, &g->textfile_default));
  g->textfile_dirty = TRUE;
  g->textfile_said = wf_ratelimit_new (G_LOG_DOMAIN, WF_RATELIMIT_ONCE);
}

static char *
render (WfScanGuard *g, gint64 now)
{
  g_autoptr(GArray) devs = g_array_new (FALSE, TRUE, sizeof (WfScanMetricsDevice));
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      WfScanDevice *d = v;
      WfScanMetricsDevice m = { d->ifname, wf_scan_mode_names[d->cfg.mode],
                                wf_scan_policy_names[d->cfg.policy], &d->hold };

      g_array_append_val (devs, m);
    }
  return wf_scan_metrics_render ((WfScanMetricsDevice *) (void *) devs->data, devs->len,
                                 wf_scan_service_n_holds (g->service), now);
}

static gboolean
holding (WfScanGuard *g)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (((WfScanDevice *) v)->hold.holding)
      return TRUE;
  return FALSE;
}

void
wf_scan_guard_textfile_update (WfScanGuard *g, gint64 now)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!g->textfile_dir
      || (!g->textfile_dirty && (now - g->textfile_written_us < TEXTFILE_US || !holding (g))))
    return;
  g->textfile_dirty = FALSE;
  g->textfile_written_us = now;
  if (!wf_textfile_dir_in_use (g->textfile_dir, g->textfile_default))
    {
      if (wf_ratelimit_check (g->textfile_said, "missing", NULL))
        g_message ("%s does not exist: no Prometheus textfile (install "
                   "prometheus-node-exporter or set textfile-dir=)", g->textfile_dir);
      return;
    }
  wf_ratelimit_clear (g->textfile_said, "missing", NULL);
  text = render (g, now);
  if (!wf_textfile_write (g->textfile_dir, WF_SCAN_METRICS_FILE, text, &error))
    {
      if (wf_ratelimit_check (g->textfile_said, "failing", NULL))
        g_warning ("Prometheus textfile not written: %s", error->message);
    }
  else
    wf_ratelimit_clear (g->textfile_said, "failing", "Prometheus textfile written again");
}

static void
remove_in (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, WF_SCAN_METRICS_FILE, NULL);
  g_autoptr(GError) error = NULL;

  /* A regular file alone (wlanfair-file.h). */
  if (!wf_file_remove (path, &error))
    g_warning ("%s", error->message);
}

void
wf_scan_guard_textfile_remove (WfScanGuard *g)
{
  if (g->textfile_dir)
    remove_in (g->textfile_dir);
}

void
wf_scan_guard_remove_textfile (const WfScanConfig *config)
{
  gboolean is_default;
  const char *dir = wf_textfile_dir (config->textfile_dir, &is_default);

  if (wf_textfile_dir_in_use (dir, is_default))
    remove_in (dir);
}
