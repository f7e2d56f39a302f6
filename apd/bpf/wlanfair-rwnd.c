/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading and attaching the rwnd program; its maps as WfRwndFlow. */
#include "config.h"

#include "wlanfair-rwnd.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-rwnd.skel.h"
#include "wlanfair-tc-bpf.h"

struct _WfRwnd {
  struct wlanfair_rwnd *skel;
  WfTcBpfLink link;
};

static const WfTcBpfSpec tc_spec = {
  .what = "rwnd", .prog_name = "wf_rwnd",
  .handle = WF_RWND_TC_HANDLE, .prio = WF_RWND_TC_PRIO,
  .points = WF_TC_BPF_INGRESS | WF_TC_BPF_EGRESS,
};

static void
set_errno_error (GError **error, int err, const char *what)
{
  wf_tc_bpf_set_error (error, "rwnd", err, what);
}

WfRwnd *
wf_rwnd_new (guint floor_mss, GError **error)
{
  g_autoptr(WfRwnd) rw = g_new0 (WfRwnd, 1);
  int err;

  wf_tc_bpf_route_libbpf_log ();
  rw->skel = wlanfair_rwnd__open ();
  if (!rw->skel)
    {
      set_errno_error (error, errno, "opening the BPF object");
      return NULL;
    }
  if (floor_mss)
    rw->skel->rodata->wf_floor_mss = floor_mss;
  if ((err = wlanfair_rwnd__load (rw->skel)) < 0)
    {
      set_errno_error (error, -err, "loading the BPF program");
      return NULL;
    }
  return g_steal_pointer (&rw);
}

gboolean
wf_rwnd_probe (GError **error)
{
  g_autoptr(WfRwnd) rw = wf_rwnd_new (0, error);

  return rw != NULL;
}

int
wf_rwnd_prog_fd (WfRwnd *rw)
{
  return bpf_program__fd (rw->skel->progs.wf_rwnd);
}

void
wf_rwnd_free (WfRwnd *rw)
{
  if (!rw)
    return;
  /* Attached filters hold the program and its maps: they stay (as
   * after a crash) until wf_rwnd_detach or wf_rwnd_detach_ifname. */
  if (rw->skel)
    wlanfair_rwnd__destroy (rw->skel);
  g_free (rw);
}

gboolean
wf_rwnd_attach (WfRwnd *rw, const char *ifname, gboolean *created_clsact, GError **error)
{
  return wf_tc_bpf_attach (&rw->link, &tc_spec, wf_rwnd_prog_fd (rw), ifname, created_clsact,
                           error);
}

gboolean
wf_rwnd_detach (WfRwnd *rw, GError **error)
{
  return wf_tc_bpf_detach (&rw->link, error);
}

gboolean
wf_rwnd_detach_ifname (const char *ifname, gboolean remove_clsact, GError **error)
{
  return wf_tc_bpf_detach_ifname (&tc_spec, ifname, remove_clsact, error);
}

gboolean
wf_rwnd_attached (const char *ifname)
{
  return wf_tc_bpf_attached (&tc_spec, ifname);
}

gboolean
wf_rwnd_set_target (WfRwnd *rw, const struct wf_rwnd_key *key, guint sender, guint32 window,
                    GError **error)
{
  struct wf_rwnd_tkey tk = { .flow = *key, .sender = sender };
  struct wf_rwnd_target t = { .window = window };
  int fd = bpf_map__fd (rw->skel->maps.targets);

  g_return_val_if_fail (sender < 2, FALSE);
  if (window == 0)
    {
      if (bpf_map_delete_elem (fd, &tk) < 0 && errno != ENOENT)
        {
          set_errno_error (error, errno, "removing a target");
          return FALSE;
        }
      return TRUE;
    }
  if (bpf_map_update_elem (fd, &tk, &t, BPF_ANY) < 0)
    {
      set_errno_error (error, errno, "setting a target");
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_rwnd_clear_targets (WfRwnd *rw, GError **error)
{
  int fd = bpf_map__fd (rw->skel->maps.targets);
  struct wf_rwnd_tkey k;

  /* Deleting the first key until none is left: no iteration over keys
   * being deleted. */
  while (bpf_map_get_next_key (fd, NULL, &k) == 0)
    if (bpf_map_delete_elem (fd, &k) < 0 && errno != ENOENT)
      {
        set_errno_error (error, errno, "removing the targets");
        return FALSE;
      }
  return TRUE;
}

static guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + (guint64) ts.tv_nsec;
}

GArray *
wf_rwnd_flows (WfRwnd *rw, GError **error)
{
  int fd = bpf_map__fd (rw->skel->maps.flows);
  int tfd = bpf_map__fd (rw->skel->maps.targets);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (WfRwndFlow));
  struct wf_rwnd_key key, next;
  struct wf_rwnd_key *prev = NULL;
  guint64 now = now_ns ();

  while (bpf_map_get_next_key (fd, prev, &next) == 0)
    {
      struct wf_rwnd_flow v;
      WfRwndFlow f = { 0 };

      key = next;
      prev = &key;
      if (bpf_map_lookup_elem (fd, &key, &v) < 0)
        continue;  /* evicted meanwhile */
      f.key = key;
      f.family = key.family;
      for (int k = 0; k < 2; k++)
        {
          struct wf_rwnd_tkey tk = { .flow = key, .sender = (__u32) k };
          struct wf_rwnd_target t;

          f.port[k] = ntohs (key.port[k]);
          f.wscale[k] = v.wscale[k];
          f.mss[k] = v.mss[k];
          f.rewritten[k] = v.rewritten[k];
          f.bytes[k] = v.bytes[k];
          f.clamp[k] = v.clamp[k];
          if (bpf_map_lookup_elem (tfd, &tk, &t) == 0)
            f.target[k] = t.window;
        }
      f.handshake_seen = !(v.flags & WF_RWND_NO_HS) &&
                         (v.flags & (WF_RWND_SYN0 | WF_RWND_SYN1)) == (WF_RWND_SYN0 | WF_RWND_SYN1);
      f.scaled = (v.flags & WF_RWND_WS0) && (v.flags & WF_RWND_WS1);
      f.rtt_s = v.rtt_us / 1e6;
      /* Both legs or none: one leg alone is not an RTT. */
      if (v.leg_us[0] && v.leg_us[1])
        {
          double standing[2];

          for (int k = 0; k < 2; k++)
            standing[k] = v.prev_min_us[k] ? MIN (v.prev_min_us[k], v.win_min_us[k])
                                           : v.win_min_us[k];
          f.ts_rtt_s = ((double) v.leg_us[0] + v.leg_us[1]) / 1e6;
          f.ts_rtt_standing_s = (standing[0] + standing[1]) / 1e6;
          f.ts_rtt_min_s = ((double) v.leg_min_us[0] + v.leg_min_us[1]) / 1e6;
        }
      f.idle_s = now > v.last_ns ? (now - v.last_ns) / 1e9 : 0;
      g_array_append_val (out, f);
    }
  if (errno != ENOENT)
    {
      set_errno_error (error, errno, "reading the flows");
      g_array_unref (out);
      return NULL;
    }
  return out;
}

gboolean
wf_rwnd_other_bytes (WfRwnd *rw, guint64 bytes[WF_RWND_OTHER_N], GError **error)
{
  int err = wf_tc_bpf_percpu_sums (bpf_map__fd (rw->skel->maps.other), WF_RWND_OTHER_N, bytes);

  if (err)
    {
      set_errno_error (error, err, "reading the non-TCP counters");
      return FALSE;
    }
  return TRUE;
}

char *
wf_rwnd_endpoint_str (const WfRwndFlow *f, guint k)
{
  char buf[INET6_ADDRSTRLEN];

  inet_ntop (f->family, f->key.addr[k & 1], buf, sizeof buf);
  return f->family == AF_INET6 ? g_strdup_printf ("[%s]:%u", buf, f->port[k & 1])
                               : g_strdup_printf ("%s:%u", buf, f->port[k & 1]);
}
