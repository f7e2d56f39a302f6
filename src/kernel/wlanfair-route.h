/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <netinet/in.h>

G_BEGIN_DECLS

/* Route lookups over one rtnetlink socket (RTM_GETROUTE needs no
 * capability): the egress interface of a destination, cached per
 * destination until wf_route_flush(), and an interface's default gateway. */
typedef struct _WfRoute WfRoute;

WfRoute *wf_route_new (GError **error);
void     wf_route_free (WfRoute *route);

/* Forget cached lookups (call when routes or links changed). */
void     wf_route_flush (WfRoute *route);

/* The interface a packet to `endpoint` ("addr:port", "[addr]:port" or a
 * bare address) leaves through; 0 when there is no route. */
int      wf_route_egress (WfRoute    *route,
                          const char *endpoint);

/* The gateway of the main table's default route through `ifindex`, as
 * text (IPv6 link-local gateways need the ifindex as scope). */
gboolean wf_route_default_gateway (WfRoute *route,
                                   int      ifindex,
                                   int      family,
                                   char    *out,
                                   gsize    out_size,
                                   GError **error);

/* "192.0.2.1:80" / "[2001:db8::1]:80" / "2001:db8::1" → the address
 * part; FALSE when it is not an IP address. */
gboolean wf_route_parse_endpoint (const char *endpoint,
                                  int        *family,
                                  void       *addr /* 16 bytes */,
                                  guint16    *port);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfRoute, wf_route_free)

G_END_DECLS
