/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-ratelimit.h"
#include "wlanfair-report.h"
#include "wlanfair-sampler.h"

G_BEGIN_DECLS

/* Seals reports (wlanfair-report.h) and sends them over UDP to the
 * configured destination or, by default, to the default gateway of the
 * reported (Wi-Fi first) interfaces, IPv4 preferred, else IPv6. */
typedef struct _WfReportdSend WfReportdSend;

/* destination NULL: the gateway, on `port`. dscp 1..63: the datagrams
 * carry it and SO_PRIORITY WF_REPORTD_SO_PRIORITY; 0: unmarked. Takes
 * neither sender nor rl. */
WfReportdSend *wf_reportd_send_new (WfReportSender *sender,
                                    const char     *destination,
                                    guint16         port,
                                    guint           dscp,
                                    WfRatelimit    *rl);
void           wf_reportd_send_free (WfReportdSend *s);

/* Links or routes changed: find the gateway (or resolve the name) again. */
void           wf_reportd_send_network_changed (WfReportdSend *s);

/* Never fatal: failures are logged (rate-limited) and counted. */
void           wf_reportd_send_report (WfReportdSend *s,
                                       WfSampler     *sampler,
                                       JsonObject    *body,
                                       double         interval_s);

/* --check: DESTINATION ("HOST:PORT", "[V6]:PORT", "HOST"; port PORT when
 * it names none) parsed as the run parses it, and the host looked up now
 * as the run looks it up (a literal address as is, else the resolver's
 * first answer): "192.0.2.1:7455", "[::1]:7480". NULL and ERROR when it
 * is bad or does not resolve. */
char          *wf_reportd_send_resolve (const char *destination,
                                        guint16     port,
                                        GError    **error);

/* For the local report: destination, sent, errors, last error. */
JsonObject    *wf_reportd_send_status (WfReportdSend *s);

G_END_DECLS
