/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading and attaching the rwnd program; its maps as WfRwndFlow. */
#include "config.h"

#include "wlanfair-rwnd.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-rwnd.skel.h"

struct _WfRwnd {
  struct wlanfair_rwnd *skel;
  char     ifname[IF_NAMESIZE];
  int      ifindex;          /* 0: not attached */
  gboolean created_clsact;
  gboolean attached[2];      /* ingress, egress */
};

static const enum bpf_tc_attach_point points[2] = { BPF_TC_INGRESS, BPF_TC_EGRESS };
static const char *const point_names[2] = { "ingress", "egress" };

static int
print_libbpf (enum libbpf_print_level level, const char *fmt, va_list ap)
{
  g_autofree char *msg = NULL;

  if (level == LIBBPF_DEBUG)
    return 0;
  msg = g_strdup_vprintf (fmt, ap);
  g_strchomp (msg);
  /* What matters reaches the caller as a GError. */
  g_info ("libbpf: %s", msg);
  return 0;
}

static void
set_errno_error (GError **error, int err, const char *what)
{
  const char *hint = "";

  if (err == EPERM)
    hint = " (needs CAP_BPF and CAP_NET_ADMIN, or root)";
  else if (err == EACCES && g_str_has_prefix (what, "loading"))
    hint = " (the verifier refused it: G_MESSAGES_DEBUG=all shows its log)";
  else if (err == ENOSYS || err == EOPNOTSUPP)
    hint = " (the kernel lacks BPF or cls_bpf)";
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rwnd: %s: %s%s", what, g_strerror (err), hint);
}

WfRwnd *
wf_rwnd_new (guint floor_mss, GError **error)
{
  g_autoptr(WfRwnd) rw = g_new0 (WfRwnd, 1);
  int err;

  libbpf_set_print (print_libbpf);
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
  int ifindex = (int) if_nametoindex (ifname);
  int err;

  if (rw->ifindex)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rwnd: already attached to %s",
                   rw->ifname);
      return FALSE;
    }
  if (!ifindex)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rwnd: no interface %s", ifname);
      return FALSE;
    }
  g_strlcpy (rw->ifname, ifname, sizeof rw->ifname);
  rw->ifindex = ifindex;
  rw->created_clsact = FALSE;

  LIBBPF_OPTS (bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
  err = bpf_tc_hook_create (&hook);
  if (err == 0)
    rw->created_clsact = TRUE;
  else if (err != -EEXIST)
    {
      g_autofree char *what = g_strdup_printf ("creating clsact on %s", ifname);

      set_errno_error (error, -err, what);
      rw->ifindex = 0;
      return FALSE;
    }
  if (created_clsact)
    *created_clsact = rw->created_clsact;

  for (int k = 0; k < 2; k++)
    {
      LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex, .attach_point = points[k]);
      LIBBPF_OPTS (bpf_tc_opts, o, .handle = WF_RWND_TC_HANDLE, .priority = WF_RWND_TC_PRIO,
                   .prog_fd = wf_rwnd_prog_fd (rw));

      if ((err = bpf_tc_attach (&h, &o)) < 0)
        {
          g_autofree char *what = g_strdup_printf (
              "attaching to %s %s%s", ifname, point_names[k],
              err == -EINVAL ? " (an ingress qdisc that is not clsact?)"
              : err == -EEXIST ? " (a filter of that handle and priority is there)" : "");
          g_autoptr(GError) local = NULL;

          set_errno_error (error, -err, what);
          if (!wf_rwnd_detach (rw, &local))
            g_warning ("%s", local->message);
          return FALSE;
        }
      rw->attached[k] = TRUE;
    }
  return TRUE;
}

/* Our filter at point k of ifindex, if it holds a wf_rwnd program. */
static gboolean
ours (int ifindex, int k)
{
  LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex, .attach_point = points[k]);
  LIBBPF_OPTS (bpf_tc_opts, o, .handle = WF_RWND_TC_HANDLE, .priority = WF_RWND_TC_PRIO);
  struct bpf_prog_info info = { 0 };
  __u32 len = sizeof info;
  int fd;
  gboolean mine;

  if (bpf_tc_query (&h, &o) < 0)
    return FALSE;
  if ((fd = bpf_prog_get_fd_by_id (o.prog_id)) < 0)
    return TRUE;  /* cannot tell: same handle and priority, take it as ours */
  mine = bpf_obj_get_info_by_fd (fd, &info, &len) == 0 && g_str_equal (info.name, "wf_rwnd");
  close (fd);
  return mine;
}

static gboolean
detach_index (int ifindex, const char *ifname, const gboolean which[2], gboolean remove_clsact,
              GError **error)
{
  gboolean ok = TRUE;
  int err;

  for (int k = 0; k < 2; k++)
    {
      LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex, .attach_point = points[k]);
      LIBBPF_OPTS (bpf_tc_opts, o, .handle = WF_RWND_TC_HANDLE, .priority = WF_RWND_TC_PRIO);

      if (!which[k])
        continue;
      err = bpf_tc_detach (&h, &o);
      if (err < 0 && err != -ENOENT && err != -ENODEV && err != -EINVAL && ok)
        {
          g_autofree char *what = g_strdup_printf ("detaching from %s %s", ifname,
                                                   point_names[k]);

          set_errno_error (error, -err, what);
          ok = FALSE;
        }
    }
  if (remove_clsact)
    {
      LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex,
                   .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

      err = bpf_tc_hook_destroy (&h);
      if (err < 0 && err != -ENOENT && err != -ENODEV && err != -EINVAL && ok)
        {
          g_autofree char *what = g_strdup_printf ("removing clsact from %s", ifname);

          set_errno_error (error, -err, what);
          ok = FALSE;
        }
    }
  return ok;
}

gboolean
wf_rwnd_detach (WfRwnd *rw, GError **error)
{
  gboolean ok;

  if (!rw->ifindex)
    return TRUE;
  ok = detach_index (rw->ifindex, rw->ifname, rw->attached, rw->created_clsact, error);
  rw->ifindex = 0;
  rw->attached[0] = rw->attached[1] = FALSE;
  return ok;
}

gboolean
wf_rwnd_detach_ifname (const char *ifname, gboolean remove_clsact, GError **error)
{
  int ifindex = (int) if_nametoindex (ifname);
  gboolean which[2];

  if (!ifindex)
    return TRUE;
  for (int k = 0; k < 2; k++)
    which[k] = ours (ifindex, k);
  return detach_index (ifindex, ifname, which, remove_clsact, error);
}

gboolean
wf_rwnd_attached (const char *ifname)
{
  int ifindex = (int) if_nametoindex (ifname);

  return ifindex && (ours (ifindex, 0) || ours (ifindex, 1));
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
  int fd = bpf_map__fd (rw->skel->maps.other);
  int ncpu = libbpf_num_possible_cpus ();
  g_autofree guint64 *per_cpu = NULL;

  if (ncpu <= 0)
    {
      set_errno_error (error, -ncpu, "counting the CPUs");
      return FALSE;
    }
  per_cpu = g_new0 (guint64, ncpu);
  for (__u32 k = 0; k < WF_RWND_OTHER_N; k++)
    {
      bytes[k] = 0;
      if (bpf_map_lookup_elem (fd, &k, per_cpu) < 0)
        {
          set_errno_error (error, errno, "reading the non-TCP counters");
          return FALSE;
        }
      for (int c = 0; c < ncpu; c++)
        bytes[k] += per_cpu[c];
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
