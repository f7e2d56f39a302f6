/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stations' reports: a UDP socket on the report port, every datagram
 * parsed (wf_report_parse: grammar, fields, HMAC) and replay-checked
 * like `wlanfairctl listen` does; forged, replayed and malformed ones
 * are counted per reason and dropped, with a rate-limited log line. */
#pragma once

#include <gio/gio.h>

#include "wlanfair-apd-station.h"
#include "wlanfair-report.h"

G_BEGIN_DECLS

typedef struct _WfApdReceiver WfApdReceiver;

/* Where a datagram came from: its source address, and for one carried in
 * transit the frame's source MAC (the station that sent it). */
typedef struct {
  int       family;      /* AF_INET or AF_INET6 */
  guint8    addr[16];
  guint16   port;
  gboolean  has_mac;
  guint8    mac[6];
  WfApdPath path;
} WfApdReportFrom;

/* A report that passed every check; `view` is the receiver's to keep
 * (the callback takes ownership). */
typedef void (*WfApdReportFunc) (WfReportView *view, const WfApdReportFrom *from,
                                 gpointer user_data);

/* key NULL: unsigned reports are accepted (authenticated FALSE). */
WfApdReceiver *wf_apd_receiver_new (const char *bind_addr, guint16 port,
                                    GBytes *key, WfApdReportFunc func,
                                    gpointer user_data, GError **error);
void           wf_apd_receiver_free (WfApdReceiver *r);
const char    *wf_apd_receiver_bound (WfApdReceiver *r);
/* Handles one datagram as if received on the UDP socket (tests, fuzzing). */
void           wf_apd_receiver_handle (WfApdReceiver *r, const guint8 *data,
                                       gsize size, GSocketAddress *from);
/* Handles one datagram of any path: the one validation every report
 * passes (grammar, HMAC, size, freshness, replay), whichever way it came;
 * the replay window is shared, so a report seen on both paths counts once. */
void           wf_apd_receiver_handle_from (WfApdReceiver *r, const guint8 *data,
                                            gsize size, const WfApdReportFrom *from);
/* Accepted reports, all paths. */
guint64        wf_apd_receiver_accepted (WfApdReceiver *r);
guint64        wf_apd_receiver_accepted_by (WfApdReceiver *r, WfApdPath path);
guint64        wf_apd_receiver_rejected (WfApdReceiver *r, WfReportReject reason);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdReceiver, wf_apd_receiver_free)

G_END_DECLS
