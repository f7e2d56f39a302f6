/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading, attaching and reading the download-demand program. */
#include "config.h"

#include "wlanfair-download-demand.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>

#include "wlanfair-download-demand-shared.h"
#include "wlanfair-download-demand.skel.h"
#include "wlanfair-tc-bpf-owned.h"

struct _WfDownloadDemand {
  struct wlanfair_download_demand *skel;
  WfTcBpfOwned owned;
  gboolean     attached;
};

/* prog_name: the kernel's name (wlanfair-download-demand.h), kept. */
static const WfTcBpfSpec tc_spec = {
  .what = WF_DOWNLOAD_DEMAND_NAME, .prog_name = "wf_offered",
  .handle = WF_DOWNLOAD_DEMAND_TC_HANDLE, .prio = WF_DOWNLOAD_DEMAND_TC_PRIO,
  .points = WF_TC_BPF_EGRESS,
};

WfDownloadDemand *
wf_download_demand_load (GError **error)
{
  g_autoptr(WfDownloadDemand) o = g_new0 (WfDownloadDemand, 1);
  int err;

  wf_tc_bpf_route_libbpf_log ();
  if (!(o->skel = wlanfair_download_demand__open ()))
    {
      wf_tc_bpf_set_error (error, WF_DOWNLOAD_DEMAND_NAME, errno, "opening the BPF object");
      return NULL;
    }
  if ((err = wlanfair_download_demand__load (o->skel)) < 0)
    {
      wf_tc_bpf_set_error (error, WF_DOWNLOAD_DEMAND_NAME, -err, "loading the BPF program");
      return NULL;
    }
  return g_steal_pointer (&o);
}

void
wf_download_demand_free (WfDownloadDemand *o)
{
  if (!o)
    return;
  if (o->skel)
    wlanfair_download_demand__destroy (o->skel);
  wf_tc_bpf_owned_clear (&o->owned);
  g_free (o);
}

gboolean
wf_download_demand_attach (WfDownloadDemand *o, const char *ifname, WfApdState *state,
                           GError **error)
{
  if (!wf_tc_bpf_owned_attach (&o->owned, &tc_spec, bpf_program__fd (o->skel->progs.wf_offered),
                               ifname, state, error))
    return FALSE;
  o->attached = TRUE;
  g_message ("%s on %s: counting what the AP is handed for each station", WF_DOWNLOAD_DEMAND_NAME,
             ifname);
  return TRUE;
}

gboolean
wf_download_demand_stop (WfDownloadDemand *o, GError **error)
{
  g_autoptr(WfDownloadDemand) owned = o;
  char ifname[IF_NAMESIZE];

  if (!o->attached)
    return TRUE;
  g_strlcpy (ifname, o->owned.link.ifname, sizeof ifname);
  if (!wf_tc_bpf_owned_detach (&o->owned, error))
    return FALSE;
  g_message ("%s on %s: removed", WF_DOWNLOAD_DEMAND_NAME, ifname);
  return TRUE;
}

gboolean
wf_download_demand_restore (const char *ifname, WfApdState *state, GError **error)
{
  return wf_tc_bpf_owned_restore (&tc_spec, ifname, state, error);
}

gboolean
wf_download_demand_read (WfDownloadDemand *o, GArray *out, GError **error)
{
  int fd = bpf_map__fd (o->skel->maps.offered);
  int ncpu = libbpf_num_possible_cpus ();
  g_autofree struct wf_download_demand_count *per_cpu = NULL;
  __u64 key, next;
  gboolean first = TRUE;

  g_array_set_size (out, 0);
  if (ncpu <= 0)
    {
      wf_tc_bpf_set_error (error, WF_DOWNLOAD_DEMAND_NAME, -ncpu, "counting the CPUs");
      return FALSE;
    }
  per_cpu = g_new0 (struct wf_download_demand_count, ncpu);
  /* Bounded: a walk from a key evicted meanwhile starts over. */
  for (guint n = 0; n < 2 * WF_DOWNLOAD_DEMAND_MAX_STATIONS; n++)
    {
      WfApdDownloadDemand c = { 0 };

      if (bpf_map_get_next_key (fd, first ? NULL : &key, &next) < 0)
        {
          if (errno == ENOENT)
            return TRUE;
          wf_tc_bpf_set_error (error, WF_DOWNLOAD_DEMAND_NAME, errno, "walking the counts");
          return FALSE;
        }
      first = FALSE;
      key = next;
      if (bpf_map_lookup_elem (fd, &key, per_cpu) < 0)
        {
          if (errno == ENOENT)   /* evicted between the two calls */
            continue;
          wf_tc_bpf_set_error (error, WF_DOWNLOAD_DEMAND_NAME, errno, "reading the counts");
          return FALSE;
        }
      for (int k = 0; k < 6; k++)
        c.mac[k] = (guint8) (key >> (40 - 8 * k));
      for (int cpu = 0; cpu < ncpu; cpu++)
        {
          c.packets += per_cpu[cpu].packets;
          c.bytes += per_cpu[cpu].bytes;
        }
      g_array_append_val (out, c);
    }
  return TRUE;
}

gboolean
wf_download_demand_attached (const char *ifname)
{
  return wf_tc_bpf_attached (&tc_spec, ifname);
}

int
wf_download_demand_prog_fd (WfDownloadDemand *o)
{
  return bpf_program__fd (o->skel->progs.wf_offered);
}
