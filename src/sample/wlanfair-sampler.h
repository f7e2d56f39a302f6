/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-flows.h"
#include "wlanfair-route.h"
#include "wlanfair-scancount.h"

G_BEGIN_DECLS

typedef struct {
  char       **interfaces;     /* NULL or empty: every Wi-Fi interface */
  gboolean     all_if_no_wifi; /* no Wi-Fi interface: every one but lo */
  guint        top_n;          /* flows per report */
  const char  *tcp_status;     /* NULL: WF_TCPSTATUS_FILE */
} WfSamplerConfig;

/* What happened and why, once per change; `key` identifies a repeating
 * condition so that the caller can rate-limit it. */
typedef void (*WfSamplerLogFunc) (GLogLevelFlags level,
                                  const char    *key,
                                  const char    *message,
                                  gpointer       data);

/* One measurement round over rtnetlink, nl80211 and sock_diag: the body
 * of a report (docs/report-protocol.md) without the envelope. Each source
 * fails on its own: its keys are then absent, the others are reported. */
typedef struct _WfSampler WfSampler;

WfSampler  *wf_sampler_new (const WfSamplerConfig *config,
                            WfSamplerLogFunc       log,
                            gpointer               log_data);
void        wf_sampler_free (WfSampler *sampler);

/* The body: "interfaces", "flows_total", "flows", "ackloss". Rates and
 * goodput appear from the second call on. */
JsonObject *wf_sampler_sample (WfSampler *sampler);

/* Removes what only Prometheus and the local channel use ("scans_total",
 * "tcp_totals" of each interface) before the body is sealed into a
 * datagram. */
void        wf_sampler_strip_local (JsonObject *body);

/* One entry of "flows": what tcp_info gives (absent members where the
 * kernel gave nothing), goodput once the flow has it; iface NULL: no
 * "iface" member. */
JsonObject *wf_sampler_flow_json (const WfFlow *flow,
                                  const char   *iface);

/* Links or routes changed: look routes up again, retry nl80211. */
void        wf_sampler_network_changed (WfSampler *sampler);

/* Scan counters to report per Wi-Fi interface (borrowed; NULL: none, the
 * "scans" key is then absent). */
void        wf_sampler_set_scans (WfSampler   *sampler,
                                  WfScanCount *scans);

/* Names of the interfaces a sample would report that are up (IFF_UP
 * and a carrier), from one rtnetlink link dump and, when none is
 * configured, nl80211's wireless interfaces; no sample is taken (no rate
 * interval ends). NULL when the links or nl80211 cannot be read: the
 * state is unknown. For the reporter, on link changes. */
GPtrArray  *wf_sampler_up_interfaces (WfSampler *sampler);

/* Interfaces of the last sample (Wi-Fi ones first), for the default
 * destination; and the shared route socket. */
GArray     *wf_sampler_get_ifindexes (WfSampler *sampler);
WfRoute    *wf_sampler_get_route (WfSampler *sampler);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfSampler, wf_sampler_free)

G_END_DECLS
