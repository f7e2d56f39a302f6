/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reports the AP carries for a gateway it is not (a bridging AP: hostapd
 * bridge=, OpenWrt "dumb AP"): a packet socket with a classic BPF filter
 * for IPv4/IPv6 UDP to the report port wakes only for those datagrams;
 * the IP and UDP headers are checked here and the payload goes through
 * the receiver's one validation (wf_apd_receiver_handle_from). Frames
 * addressed to this host are left to the UDP socket and outgoing ones
 * are not read, so that no report counts twice. Needs CAP_NET_RAW. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-receiver.h"

G_BEGIN_DECLS

typedef enum {
  WF_APD_FRAME_REPORT,     /* UDP to the port: `out` is filled */
  WF_APD_FRAME_OTHER,      /* not IPv4/IPv6 UDP to the port (or IPv6 with
                            * extension headers, which are not followed) */
  WF_APD_FRAME_FRAGMENT,   /* an IPv4 fragment: not reassembled, dropped */
  WF_APD_FRAME_MALFORMED,  /* headers inconsistent or cut short */
} WfApdFrameKind;

typedef struct {
  int           family;      /* AF_INET or AF_INET6 */
  guint8        src[16];     /* IPv4: the first 4 bytes */
  guint8        dst[16];
  guint16       src_port;
  const guint8 *payload;
  gsize         payload_len; /* as the UDP header says */
  gsize         captured;    /* of the payload in the buffer: less when the
                              * frame was longer than the buffer */
} WfApdFrame;

/* One frame from the network header on (a SOCK_DGRAM packet socket):
 * `len` bytes in `pkt` of a frame `wire_len` long (>= len), `ethertype`
 * in host order. Trailing link padding is ignored. */
WfApdFrameKind wf_apd_frame_parse (guint16 ethertype, const guint8 *pkt, gsize len,
                                   gsize wire_len, guint16 port, WfApdFrame *out);
const char    *wf_apd_frame_kind_name (WfApdFrameKind kind);

typedef struct _WfApdCarried WfApdCarried;

/* Reads the reports crossing `interface` (the AP's Wi-Fi interface; when
 * it is a bridge, any of its ports) and hands them to `receiver`.
 * G_IO_ERROR_PERMISSION_DENIED without CAP_NET_RAW. */
WfApdCarried *wf_apd_carried_new (const char *interface, guint16 port,
                                  WfApdReceiver *receiver, GError **error);
void          wf_apd_carried_free (WfApdCarried *c);
/* Frames dropped before validation, by kind; and those addressed to one
 * of this host's own addresses (the UDP socket's). */
guint64       wf_apd_carried_dropped (WfApdCarried *c, WfApdFrameKind kind);
guint64       wf_apd_carried_local (WfApdCarried *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdCarried, wf_apd_carried_free)

G_END_DECLS
