/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A BPF program at tc (clsact, cls_bpf direct action: 6.1 has no tcx) on
 * one interface, under a handle and priority of its own at ingress and/or
 * egress. Removes exactly what it added: its filters, and the clsact
 * qdisc only if it created it. After a crash its filters are found again
 * by handle, priority and the program's name. */
#pragma once

#include <glib.h>
#include <net/if.h>

G_BEGIN_DECLS

typedef enum {
  WF_TC_BPF_INGRESS = 1 << 0,
  WF_TC_BPF_EGRESS  = 1 << 1,
} WfTcBpfPoints;

/* What a user of tc BPF is; constant, one per program. */
typedef struct {
  const char   *what;       /* error prefix: "rwnd" */
  const char   *prog_name;  /* the program's name in the kernel: "wf_rwnd" */
  guint32       handle;
  guint32       prio;       /* lower runs first */
  WfTcBpfPoints points;
} WfTcBpfSpec;

typedef struct {
  const WfTcBpfSpec *spec;
  char     ifname[IF_NAMESIZE];
  int      ifindex;          /* 0: not attached */
  gboolean created_clsact;
  gboolean attached[2];      /* ingress, egress */
} WfTcBpfLink;

/* libbpf's messages to the journal at info level (the errors reach the
 * callers as GErrors): wf_bpf_log_route (FALSE); process-wide, as
 * libbpf's printer is. */
void     wf_tc_bpf_route_libbpf_log (void);

/* A GError "<what>: <doing>: <strerror>" with a hint for EPERM and the
 * like. */
void     wf_tc_bpf_set_error (GError **error, const char *what, int err, const char *doing);

/* Attaches prog_fd at the spec's points of ifname, creating clsact only
 * when none is there (*created_clsact says; may be NULL). A second attach
 * of the same link is an error; a failed one leaves nothing behind. An
 * ingress qdisc (not clsact) is refused. */
gboolean wf_tc_bpf_attach (WfTcBpfLink *link, const WfTcBpfSpec *spec, int prog_fd,
                           const char *ifname, gboolean *created_clsact, GError **error);
/* Removes the filters and, if the attach created it, the clsact qdisc. */
gboolean wf_tc_bpf_detach (WfTcBpfLink *link, GError **error);
/* The same without a link (after a crash): the spec's filters on ifname
 * (only if they hold a program of the spec's name) and clsact when asked.
 * An interface that is gone took them with it: not an error. */
gboolean wf_tc_bpf_detach_ifname (const WfTcBpfSpec *spec, const char *ifname,
                                  gboolean remove_clsact, GError **error);
/* Whether ifname has a filter of the spec's at one of the spec's points. */
gboolean wf_tc_bpf_attached (const WfTcBpfSpec *spec, const char *ifname);

/* sums[k]: entry k of a per-CPU array of u64 summed over every CPU, for
 * k < n. 0, or the errno. */
int      wf_tc_bpf_percpu_sums (int map_fd, guint32 n, guint64 *sums);

G_END_DECLS
