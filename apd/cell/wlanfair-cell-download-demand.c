/* SPDX-License-Identifier: GPL-2.0-or-later */
/* download-demand= as a cell program: what the AP is handed for each
 * station, read right after each station dump
 * (bpf/wlanfair-download-demand.h). */
#include "config.h"

#include "wlanfair-cell-program.h"

#include "wlanfair-download-demand.h"

static WfCellProgramWant
wanted (const WfApdConfig *c, gboolean may_act)
{
  /* auto: only where the daemon may act, the only use of the counts. */
  if (c->download_demand == WF_APD_DEMAND_YES)
    return WF_CELL_PROGRAM_REQUIRED;
  return wf_apd_config_demand_probe (c, may_act) ? WF_CELL_PROGRAM_WANTED : WF_CELL_PROGRAM_OFF;
}

static gboolean
probe (GError **error)
{
  g_autoptr(WfDownloadDemand) o = wf_download_demand_load (error);

  return o != NULL;
}

static gpointer
start (const char *ifname, WfApdState *state, GError **error)
{
  g_autoptr(WfDownloadDemand) o = wf_download_demand_load (error);

  if (!o || !wf_download_demand_attach (o, ifname, state, error))
    return NULL;
  return g_steal_pointer (&o);
}

static gboolean
stop (gpointer priv, GError **error)
{
  return wf_download_demand_stop (priv, error);
}

static gboolean
after_dump (gpointer priv, WfApdStations *t, GError **error)
{
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (WfApdDownloadDemand));
  gboolean ok = wf_download_demand_read (priv, counts, error);

  /* Unreadable: no station's counts, which resets every window. */
  if (!ok)
    g_array_set_size (counts, 0);
  wf_apd_stations_update_download_demand (t, (WfApdDownloadDemand *) counts->data, counts->len);
  return ok;
}

const WfCellProgramOps wf_cell_download_demand = {
  .name = WF_DOWNLOAD_DEMAND_NAME,
  .without = "starved downloads look idle",
  .wanted = wanted,
  .probe = probe,
  .start = start,
  .stop = stop,
  .restore = wf_download_demand_restore,
  .after_dump = after_dump,
};
