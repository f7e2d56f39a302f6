/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The loader of wlanfair-tcp.bpf.c: feature probe, load, register, pin, unregister, counters. */
#pragma once

#include <glib.h>

#include "wlanfair-ackloss-core.h"
#include "wlanfair-tcp-shared.h"

G_BEGIN_DECLS

typedef struct {
  gboolean btf;          /* /sys/kernel/btf/vmlinux */
  gboolean reno_kfuncs;  /* tcp_reno_* callable from BPF (5.13+) */
  gboolean cubic_kfuncs; /* cubictcp_* (CUBIC built in) */
  gboolean link;         /* struct_ops links: kernel 6.4+ and libbpf 1.2+ */
  guint    libbpf_major;
  guint    libbpf_minor;
} WfTcpFeatures;

typedef struct {
  guint       thresh;
  guint       beta;        /* 1/1024 */
  guint       confirm;
  guint       confirm_rate; /* Q20 share of lost ACKs */
  guint       min_qdelay_us;
  guint       reduction;   /* enum wf_ackloss_reduction */
  const char *scope_cc;    /* CC the sock_ops program hands out, or NULL */
  const char *pin_dir;     /* bpffs directory for legacy registrations */
} WfTcpLoaderConfig;

typedef struct _WfTcpLoader WfTcpLoader;

/* NULL-terminated, indexed by WF_CC_*. */
extern const char * const wf_tcp_cc_names[WF_CC_COUNT + 1];

gboolean     wf_tcp_features_probe       (WfTcpFeatures *f,
                                          GError       **error);

gboolean     wf_tcp_loader_cleanup_stale (const char *pin_dir,
                                          GError    **error);

WfTcpLoader *wf_tcp_loader_load          (const WfTcpLoaderConfig *config,
                                          const WfTcpFeatures     *features,
                                          GError                 **error);
gboolean     wf_tcp_loader_has_cc        (WfTcpLoader *bpf,
                                          guint        cc);
gboolean     wf_tcp_loader_attach_cgroup (WfTcpLoader *bpf,
                                          const char  *cgroup_path,
                                          GError     **error);
gboolean     wf_tcp_loader_set_wifi_addrs (WfTcpLoader *bpf,
                                           GArray      *keys,
                                           GError     **error);
gboolean     wf_tcp_loader_read_counters (WfTcpLoader                *bpf,
                                          struct wf_ackloss_counters *out,
                                          GError                    **error);
void         wf_tcp_loader_free          (WfTcpLoader *bpf);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfTcpLoader, wf_tcp_loader_free)

G_END_DECLS
