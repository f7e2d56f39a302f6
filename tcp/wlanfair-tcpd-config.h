/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-tcpd's settings: /etc/wlanfair/tcp.conf and the options that
 * override its keys, each value checked the same way in both. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum { WF_TCPD_SCOPE_WIFI, WF_TCPD_SCOPE_SYSTEM, WF_TCPD_SCOPE_OPT_IN } WfTcpdScope;

/* What a confirmed ACK-loss round does to cwnd (wf_ackloss_reduce): the
 * values of enum wf_ackloss_reduction. */
typedef enum {
  WF_TCPD_REDUCTION_HALVE,
  WF_TCPD_REDUCTION_DRAIN,
  WF_TCPD_REDUCTION_AUTO,
} WfTcpdReduction;

typedef struct {
  WfTcpdScope scope;
  guint    cc;       /* WF_CC_* */
  guint    thresh;
  double   beta;
  guint    confirm;
  double   confirm_rate; /* percent; 0: off */
  double   min_queue_delay; /* ms; 0: off */
  WfTcpdReduction reduction;
  char   **interfaces;
  char    *cgroup;
  char    *state_dir;
  char    *pin_dir;
} WfTcpdConfig;

/* Indexed by WfTcpdScope. */
extern const char * const wf_tcpd_scope_names[3];
/* Indexed by WfTcpdReduction. */
extern const char * const wf_tcpd_reduction_names[3];

/* The defaults (scope wifi, ackloss_cubic, the detector's defaults). */
void     wf_tcpd_config_init  (WfTcpdConfig *c);
void     wf_tcpd_config_clear (WfTcpdConfig *c);

/* One key of section [tcp] (the option of the same name): an unknown key
 * or a bad value is an error naming both. */
gboolean wf_tcpd_config_set   (WfTcpdConfig *c,
                               const char   *key,
                               const char   *value,
                               GError      **error);

/* The file's keys over what c holds; a missing file is an error only with
 * must_exist. Errors are prefixed with the path. */
gboolean wf_tcpd_config_load  (WfTcpdConfig *c,
                               const char   *path,
                               gboolean      must_exist,
                               GError      **error);

G_END_DECLS
