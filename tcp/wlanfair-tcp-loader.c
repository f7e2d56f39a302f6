/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading, registering and unregistering the congestion controls. */
#include "wlanfair-tcp-loader.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-bpf-log.h"
#include "wlanfair-error.h"
#include "wlanfair-tcp.skel.h"

#ifndef BPF_F_LINK
#define BPF_F_LINK (1U << 13) /* uapi 6.4; absent from older headers */
#endif

const char * const wf_tcp_cc_names[WF_CC_COUNT + 1] = {
  [WF_CC_RENO] = "ackloss_reno",
  [WF_CC_CUBIC] = "ackloss_cubic",
};

struct _WfTcpLoader {
  struct wlanfair_tcp *skel;
  struct bpf_link     *cc_link[WF_CC_COUNT];
  struct bpf_link     *sockops_link;
  char                *pin_dir;
  char                *pinned[WF_CC_COUNT];
  int                  n_cpus;
};

static gboolean
btf_has (struct btf *btf, const char *name, int kind)
{
  return btf != NULL && btf__find_by_name_kind (btf, name, kind) > 0;
}

/* Whether struct_ops maps can be created as links (Linux 6.4+): the map
 * flag BPF_F_LINK came with them. Not BPF_LINK_TYPE_STRUCT_OPS: that link
 * type is older (6.0, the maps' own trampolines), and a 6.1 kernel given
 * BPF_F_LINK refuses to create the map (EINVAL). The flag's enum is
 * anonymous, so every enum is searched; a kernel whose BTF lacks it takes
 * the legacy path, which works everywhere. */
static gboolean
btf_has_struct_ops_link (struct btf *btf)
{
  guint n = btf ? btf__type_cnt (btf) : 0;

  for (guint id = 1; id < n; id++)
    {
      const struct btf_type *t = btf__type_by_id (btf, id);
      const struct btf_enum *e;

      if (!btf_is_enum (t))
        continue;
      e = btf_enum (t);
      for (int i = 0; i < btf_vlen (t); i++, e++)
        if (g_str_equal (btf__name_by_offset (btf, e->name_off), "BPF_F_LINK"))
          return TRUE;
    }
  return FALSE;
}

gboolean
wf_tcp_features_probe (WfTcpFeatures *f, GError **error)
{
  struct btf *btf;

  *f = (WfTcpFeatures) {
    .libbpf_major = libbpf_major_version (),
    .libbpf_minor = libbpf_minor_version (),
  };

  btf = btf__load_vmlinux_btf ();
  if (btf == NULL)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s): "
                   "BPF struct_ops needs CONFIG_DEBUG_INFO_BTF",
                   g_strerror (errno));
      return FALSE;
    }
  f->btf = TRUE;
  f->reno_kfuncs = btf_has (btf, "tcp_reno_cong_avoid", BTF_KIND_FUNC) &&
                   btf_has (btf, "bpf_struct_ops_tcp_congestion_ops", BTF_KIND_STRUCT);
  f->cubic_kfuncs = btf_has (btf, "cubictcp_cong_avoid", BTF_KIND_FUNC) &&
                    btf_has (btf, "cubictcp_recalc_ssthresh", BTF_KIND_FUNC);
  f->link = btf_has_struct_ops_link (btf) &&
            (f->libbpf_major > 1 || (f->libbpf_major == 1 && f->libbpf_minor >= 2));
  btf__free (btf);

  if (!f->reno_kfuncs)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED,
                           "the kernel cannot run TCP congestion controls in BPF "
                           "(no tcp_congestion_ops struct_ops or tcp_reno kfuncs: "
                           "needs Linux 5.13 or later with CONFIG_BPF_JIT)");
      return FALSE;
    }
  return TRUE;
}

/* A legacy struct_ops registration outlives its loader; the pinned map is
 * the handle that lets the next instance unregister it. */
static gboolean
unregister_pinned (const char *path, GError **error)
{
  int fd = bpf_obj_get (path);
  __u32 zero = 0;

  if (fd < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  if (bpf_map_delete_elem (fd, &zero) < 0 && errno != ENOENT)
    {
      int e = errno;
      close (fd);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "unregistering %s: %s",
                   path, g_strerror (e));
      return FALSE;
    }
  close (fd);
  if (g_unlink (path) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_tcp_loader_cleanup_stale (const char *pin_dir, GError **error)
{
  for (guint i = 0; i < WF_CC_COUNT; i++)
    {
      g_autofree char *path = g_build_filename (pin_dir, wf_tcp_cc_names[i], NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      if (!unregister_pinned (path, error))
        return FALSE;
      g_message ("unregistered %s left by an earlier instance", wf_tcp_cc_names[i]);
    }
  return TRUE;
}

static struct bpf_map *
cc_map (struct wlanfair_tcp *skel, guint cc)
{
  return cc == WF_CC_RENO ? skel->maps.ackloss_reno : skel->maps.ackloss_cubic;
}

WfTcpLoader *
wf_tcp_loader_load (const WfTcpLoaderConfig *config,
                    const WfTcpFeatures     *features,
                    GError                 **error)
{
  g_autoptr(WfTcpLoader) bpf = g_new0 (WfTcpLoader, 1);
  struct bpf_program *prog;
  int err;

  wf_bpf_log_route (TRUE);
  bpf->pin_dir = g_strdup (config->pin_dir);
  bpf->n_cpus = libbpf_num_possible_cpus ();

  bpf->skel = wlanfair_tcp__open ();
  if (bpf->skel == NULL)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "opening the BPF object: %s",
                   g_strerror (errno));
      return NULL;
    }
  bpf->skel->rodata->wf_thresh = config->thresh;
  bpf->skel->rodata->wf_beta = config->beta;
  bpf->skel->rodata->wf_confirm = config->confirm;
  bpf->skel->rodata->wf_rate = config->confirm_rate;
  bpf->skel->rodata->wf_min_qdelay_us = config->min_qdelay_us;
  bpf->skel->rodata->wf_reduction = config->reduction;
  if (config->scope_cc)
    g_strlcpy ((char *) bpf->skel->rodata->wf_scope_cc, config->scope_cc, WF_CC_NAME_MAX);
  else
    bpf_program__set_autoload (bpf->skel->progs.wf_scope_sockops, false);

  if (!features->cubic_kfuncs)
    {
      bpf_map__set_autocreate (bpf->skel->maps.ackloss_cubic, false);
      bpf_object__for_each_program (prog, bpf->skel->obj)
        if (g_str_has_prefix (bpf_program__name (prog), "ackloss_cubic_"))
          bpf_program__set_autoload (prog, false);
    }
  if (features->link)
    for (guint cc = 0; cc < WF_CC_COUNT; cc++)
      bpf_map__set_map_flags (cc_map (bpf->skel, cc),
                              bpf_map__map_flags (cc_map (bpf->skel, cc)) | BPF_F_LINK);

  err = wlanfair_tcp__load (bpf->skel);
  if (err)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "loading the BPF programs: %s%s", g_strerror (-err),
                   -err == EPERM ? " (needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON, "
                                   "and no kernel lockdown against BPF)" : "");
      return NULL;
    }

  for (guint cc = 0; cc < WF_CC_COUNT; cc++)
    {
      struct bpf_map *map = cc_map (bpf->skel, cc);

      if (cc == WF_CC_CUBIC && !features->cubic_kfuncs)
        continue;
      bpf->cc_link[cc] = bpf_map__attach_struct_ops (map);
      if (bpf->cc_link[cc] == NULL)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "registering %s: %s%s",
                       wf_tcp_cc_names[cc], g_strerror (errno),
                       errno == EEXIST ? " (a congestion control of that name "
                                         "is registered already)" : "");
          return NULL;
        }
      if (!features->link)
        {
          g_autofree char *path = g_build_filename (bpf->pin_dir, wf_tcp_cc_names[cc], NULL);

          if (g_mkdir_with_parents (bpf->pin_dir, 0700) < 0 || bpf_map__pin (map, path) < 0)
            {
              g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                           "pinning %s at %s (needed to clean up after a crash): %s",
                           wf_tcp_cc_names[cc], path, g_strerror (errno));
              return NULL;
            }
          bpf->pinned[cc] = g_steal_pointer (&path);
        }
    }
  return g_steal_pointer (&bpf);
}

gboolean
wf_tcp_loader_has_cc (WfTcpLoader *bpf, guint cc)
{
  return cc < WF_CC_COUNT && bpf->cc_link[cc] != NULL;
}

gboolean
wf_tcp_loader_attach_cgroup (WfTcpLoader *bpf, const char *cgroup_path, GError **error)
{
  int fd = open (cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", cgroup_path, g_strerror (errno));
      return FALSE;
    }
  /* A link, not a plain attach: it goes away with this process. */
  bpf->sockops_link = bpf_program__attach_cgroup (bpf->skel->progs.wf_scope_sockops, fd);
  close (fd);
  if (bpf->sockops_link == NULL)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "attaching the sock_ops program to %s: %s", cgroup_path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_tcp_loader_set_wifi_addrs (WfTcpLoader *bpf, GArray *keys, GError **error)
{
  int fd = bpf_map__fd (bpf->skel->maps.wifi_addrs);
  struct wf_addr_key key, next;
  gboolean have = bpf_map_get_next_key (fd, NULL, &key) == 0;

  /* Drop what is no longer there, then add; a lookup in between only ever
   * misses an address that is going away anyway. */
  while (have)
    {
      gboolean keep = FALSE;

      have = bpf_map_get_next_key (fd, &key, &next) == 0;
      for (guint i = 0; i < keys->len && !keep; i++)
        keep = memcmp (&g_array_index (keys, struct wf_addr_key, i), &key, sizeof key) == 0;
      if (!keep)
        bpf_map_delete_elem (fd, &key);
      key = next;
    }
  for (guint i = 0; i < keys->len; i++)
    {
      __u32 one = 1;

      if (bpf_map_update_elem (fd, &g_array_index (keys, struct wf_addr_key, i), &one, BPF_ANY) < 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "updating the Wi-Fi address map: %s",
                       g_strerror (errno));
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
wf_tcp_loader_read_counters (WfTcpLoader *bpf, struct wf_ackloss_counters *out, GError **error)
{
  int fd = bpf_map__fd (bpf->skel->maps.ackloss_stats);
  g_autofree struct wf_ackloss_counters *per_cpu =
    g_new0 (struct wf_ackloss_counters, bpf->n_cpus);

  for (__u32 cc = 0; cc < WF_CC_COUNT; cc++)
    {
      memset (&out[cc], 0, sizeof out[cc]);
      if (bpf_map_lookup_elem (fd, &cc, per_cpu) < 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "reading counters: %s",
                       g_strerror (errno));
          return FALSE;
        }
      for (int c = 0; c < bpf->n_cpus; c++)
        {
          out[cc].acks += per_cpu[c].acks;
          out[cc].ack_losses += per_cpu[c].ack_losses;
          out[cc].halvings += per_cpu[c].halvings;
          out[cc].suppressed_data_loss += per_cpu[c].suppressed_data_loss;
          out[cc].suppressed_reorder += per_cpu[c].suppressed_reorder;
          out[cc].suppressed_unconfirmed += per_cpu[c].suppressed_unconfirmed;
          out[cc].suppressed_fallback += per_cpu[c].suppressed_fallback;
          out[cc].suppressed_no_queue += per_cpu[c].suppressed_no_queue;
          out[cc].drained += per_cpu[c].drained;
          out[cc].repaired_ssthresh += per_cpu[c].repaired_ssthresh;
          out[cc].repaired_cwnd += per_cpu[c].repaired_cwnd;
        }
    }
  return TRUE;
}

void
wf_tcp_loader_free (WfTcpLoader *bpf)
{
  if (bpf == NULL)
    return;
  bpf_link__destroy (bpf->sockops_link);
  for (guint cc = 0; cc < WF_CC_COUNT; cc++)
    {
      /* Destroying the link unregisters the CC (legacy: deletes the map
       * element); then the pin has nothing left to guard. */
      bpf_link__destroy (bpf->cc_link[cc]);
      if (bpf->pinned[cc])
        g_unlink (bpf->pinned[cc]);
      g_free (bpf->pinned[cc]);
    }
  wlanfair_tcp__destroy (bpf->skel);
  g_rmdir (bpf->pin_dir); /* only if empty: nothing of ours is left in it */
  g_free (bpf->pin_dir);
  g_free (bpf);
}
