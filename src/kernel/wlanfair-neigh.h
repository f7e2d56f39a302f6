/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The neighbour table (ARP and NDP, rtnetlink RTM_GETNEIGH): which IP
 * addresses sit behind which MAC, as `ip neigh` shows it. An AP finds a
 * station's addresses here; on a bridged AP the entries are on the
 * bridge, not on its Wi-Fi port. */
typedef struct {
  int     ifindex;
  int     family;     /* AF_INET or AF_INET6 */
  guint8  addr[16];   /* 4 bytes used for AF_INET */
  guint8  mac[6];
  guint16 state;      /* NUD_* */
} WfNeigh;

/* Appends the IPv4 and IPv6 neighbours of `ifindex` (0: of every
 * interface) in the caller's network namespace that have a 6-byte unicast
 * link-layer address; not NUD_FAILED or NUD_INCOMPLETE ones. `out` is
 * left as it was on errors. Needs no privilege. */
gboolean wf_neigh_dump (int      ifindex,
                        GArray  *out,
                        GError **error);

/* One RTM_NEWNEIGH message: TRUE with `out` filled when wf_neigh_dump
 * keeps it (the rules above, ifindex aside). Pure, for the tests. */
struct nlmsghdr;
gboolean wf_neigh_parse (struct nlmsghdr *nlh,
                         WfNeigh         *out);

/* The entry of an IP address (`addr`: 4 or 16 bytes by `family`) on
 * `ifindex` (0: any), and so its MAC; NULL when there is none. */
const WfNeigh *wf_neigh_lookup_mac (GArray       *neighs,
                                    int           ifindex,
                                    int           family,
                                    const guint8 *addr);

/* The entries behind `mac` on `ifindex` (0: any): up to `max` pointers
 * into `neighs` in `out`, IPv4 first, then IPv6, link-local ones last
 * (a host has many IPv6 addresses; the useful ones first). Returns how
 * many there are in all, which may be more than `max`. */
guint wf_neigh_addrs_for_mac (GArray         *neighs,
                              int             ifindex,
                              const guint8   *mac,
                              const WfNeigh **out,
                              guint           max);

/* A bridge's forwarding database (RTM_GETNEIGH, AF_BRIDGE): which MAC was
 * learned (or set static) behind which port. Only entries of `bridge`
 * (NDA_MASTER) for hosts beyond a port: not the ports' own (permanent)
 * addresses, not multicast. An access point that bridges its Wi-Fi
 * interface, or an emulated one, finds its stations here. */
typedef struct {
  int     port;       /* ifindex of the bridge port */
  guint8  mac[6];
  guint16 state;      /* NUD_REACHABLE (learned), NUD_NOARP (static) ... */
} WfFdbEntry;

gboolean wf_neigh_fdb_dump (int      bridge,
                            GArray  *out,
                            GError **error);
/* One RTM_NEWNEIGH message of an FDB dump: TRUE with `out` filled when
 * it is an entry of `bridge` kept by the rules above. Pure, for tests. */
gboolean wf_neigh_fdb_parse (struct nlmsghdr *nlh,
                             int              bridge,
                             WfFdbEntry      *out);

G_END_DECLS
