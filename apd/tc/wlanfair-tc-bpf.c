/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tc BPF filters of our own: attach, detach, find after a crash. */
#include "config.h"

#include "wlanfair-tc-bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-bpf-log.h"
#include "wlanfair-error.h"

static const enum bpf_tc_attach_point points[2] = { BPF_TC_INGRESS, BPF_TC_EGRESS };
static const char *const point_names[2] = { "ingress", "egress" };

void
wf_tc_bpf_route_libbpf_log (void)
{
  /* What matters reaches the caller as a GError; the kernel's extack
   * lines (a query that finds nothing) are no news. */
  wf_bpf_log_route (FALSE);
}

static gboolean
wants (const WfTcBpfSpec *spec, int k)
{
  return (spec->points & (k ? WF_TC_BPF_EGRESS : WF_TC_BPF_INGRESS)) != 0;
}

void
wf_tc_bpf_set_error (GError **error, const char *what, int err, const char *doing)
{
  const char *hint = "";

  if (err == EPERM)
    hint = " (needs CAP_BPF and CAP_NET_ADMIN, or root)";
  else if (err == EACCES && g_str_has_prefix (doing, "loading"))
    hint = " (the verifier refused it: G_MESSAGES_DEBUG=all shows its log)";
  else if (err == ENOSYS || err == EOPNOTSUPP)
    hint = " (the kernel lacks BPF or cls_bpf)";
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s: %s%s", what, doing, g_strerror (err),
               hint);
}

static gboolean
detach_index (const WfTcBpfSpec *spec, int ifindex, const char *ifname, const gboolean which[2],
              gboolean remove_clsact, GError **error)
{
  gboolean ok = TRUE;
  int err;

  for (int k = 0; k < 2; k++)
    {
      LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex, .attach_point = points[k]);
      LIBBPF_OPTS (bpf_tc_opts, o, .handle = spec->handle, .priority = spec->prio);

      if (!which[k])
        continue;
      err = bpf_tc_detach (&h, &o);
      if (err < 0 && err != -ENOENT && err != -ENODEV && err != -EINVAL && ok)
        {
          g_autofree char *doing = g_strdup_printf ("detaching from %s %s", ifname,
                                                    point_names[k]);

          wf_tc_bpf_set_error (error, spec->what, -err, doing);
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
          g_autofree char *doing = g_strdup_printf ("removing clsact from %s", ifname);

          wf_tc_bpf_set_error (error, spec->what, -err, doing);
          ok = FALSE;
        }
    }
  return ok;
}

gboolean
wf_tc_bpf_attach (WfTcBpfLink *link, const WfTcBpfSpec *spec, int prog_fd, const char *ifname,
                  gboolean *created_clsact, GError **error)
{
  int ifindex = (int) if_nametoindex (ifname);
  int err;

  if (link->ifindex)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: already attached to %s", spec->what,
                   link->ifname);
      return FALSE;
    }
  if (!ifindex)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: no interface %s", spec->what, ifname);
      return FALSE;
    }
  memset (link, 0, sizeof *link);
  link->spec = spec;
  g_strlcpy (link->ifname, ifname, sizeof link->ifname);
  link->ifindex = ifindex;

  LIBBPF_OPTS (bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
  err = bpf_tc_hook_create (&hook);
  if (err == 0)
    link->created_clsact = TRUE;
  else if (err != -EEXIST)
    {
      g_autofree char *doing = g_strdup_printf ("creating clsact on %s", ifname);

      wf_tc_bpf_set_error (error, spec->what, -err, doing);
      link->ifindex = 0;
      return FALSE;
    }
  if (created_clsact)
    *created_clsact = link->created_clsact;

  for (int k = 0; k < 2; k++)
    {
      LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex, .attach_point = points[k]);
      LIBBPF_OPTS (bpf_tc_opts, o, .handle = spec->handle, .priority = spec->prio,
                   .prog_fd = prog_fd);

      if (!wants (spec, k))
        continue;
      if ((err = bpf_tc_attach (&h, &o)) < 0)
        {
          g_autofree char *doing = g_strdup_printf (
              "attaching to %s %s%s", ifname, point_names[k],
              err == -EINVAL ? " (an ingress qdisc that is not clsact?)"
              : err == -EEXIST ? " (a filter of that handle and priority is there)" : "");
          g_autoptr(GError) local = NULL;

          wf_tc_bpf_set_error (error, spec->what, -err, doing);
          if (!wf_tc_bpf_detach (link, &local))
            g_warning ("%s", local->message);
          return FALSE;
        }
      link->attached[k] = TRUE;
    }
  return TRUE;
}

/* The spec's filter at point k of ifindex, if it holds its program. */
static gboolean
ours (const WfTcBpfSpec *spec, int ifindex, int k)
{
  LIBBPF_OPTS (bpf_tc_hook, h, .ifindex = ifindex, .attach_point = points[k]);
  LIBBPF_OPTS (bpf_tc_opts, o, .handle = spec->handle, .priority = spec->prio);
  struct bpf_prog_info info = { 0 };
  __u32 len = sizeof info;
  int fd;
  gboolean mine;

  if (bpf_tc_query (&h, &o) < 0)
    return FALSE;
  if ((fd = bpf_prog_get_fd_by_id (o.prog_id)) < 0)
    return TRUE;  /* cannot tell: same handle and priority, take it as ours */
  mine = bpf_obj_get_info_by_fd (fd, &info, &len) == 0 && g_str_equal (info.name, spec->prog_name);
  close (fd);
  return mine;
}

gboolean
wf_tc_bpf_detach (WfTcBpfLink *link, GError **error)
{
  gboolean ok;

  if (!link->ifindex)
    return TRUE;
  ok = detach_index (link->spec, link->ifindex, link->ifname, link->attached,
                     link->created_clsact, error);
  link->ifindex = 0;
  link->attached[0] = link->attached[1] = FALSE;
  return ok;
}

gboolean
wf_tc_bpf_detach_ifname (const WfTcBpfSpec *spec, const char *ifname, gboolean remove_clsact,
                         GError **error)
{
  int ifindex = (int) if_nametoindex (ifname);
  gboolean which[2];

  if (!ifindex)
    return TRUE;
  for (int k = 0; k < 2; k++)
    which[k] = wants (spec, k) && ours (spec, ifindex, k);
  return detach_index (spec, ifindex, ifname, which, remove_clsact, error);
}

gboolean
wf_tc_bpf_attached (const WfTcBpfSpec *spec, const char *ifname)
{
  int ifindex = (int) if_nametoindex (ifname);

  return ifindex && ((wants (spec, 0) && ours (spec, ifindex, 0)) ||
                     (wants (spec, 1) && ours (spec, ifindex, 1)));
}

int
wf_tc_bpf_percpu_sums (int map_fd, guint32 n, guint64 *sums)
{
  int ncpu = libbpf_num_possible_cpus ();
  g_autofree guint64 *per_cpu = NULL;

  if (ncpu <= 0)
    return -ncpu;
  per_cpu = g_new0 (guint64, ncpu);
  for (guint32 k = 0; k < n; k++)
    {
      sums[k] = 0;
      if (bpf_map_lookup_elem (map_fd, &k, per_cpu) < 0)
        return errno;
      for (int c = 0; c < ncpu; c++)
        sums[k] += per_cpu[c];
    }
  return 0;
}
