/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Airtime weights of an AP's stations: read, set, and whether the driver has them. */
#pragma once

#include <glib.h>

#include "wlanfair-nl80211-socket.h"

G_BEGIN_DECLS

/* mac80211 shares the AP's own transmit time among its stations by these
 * weights (nl80211 SET_STATION with NL80211_ATTR_AIRTIME_WEIGHT; `iw dev
 * AP station set MAC airtime_weight W`), where the driver sets
 * NL80211_EXT_FEATURE_AIRTIME_FAIRNESS. Writing needs CAP_NET_ADMIN.
 * What to set, and putting it back, is the caller's policy. Each call
 * returns 0 or an errno (the kernel's, or ENOMEM, EIO). */

/* The weight of a station nobody set one for (mac80211's). */
#define WF_NL80211_AIRTIME_WEIGHT_DEFAULT 256u

/* The radio of interface `ifindex` (*wiphy, -1 when GET_INTERFACE fails
 * or names none: not a Wi-Fi interface nl80211 knows) and, read from the
 * split wiphy dump, whether its driver has airtime fairness. */
int wf_nl80211_airtime_supported  (WfNl80211Socket *s,
                                   int              ifindex,
                                   gint64          *wiphy,
                                   gboolean        *supported);

/* A station's weight now (the default when the driver does not say);
 * ENOENT, ENODEV or ENOLINK when it or the interface is gone. */
int wf_nl80211_airtime_get_weight (WfNl80211Socket *s,
                                   int              ifindex,
                                   const guint8     mac[6],
                                   guint           *weight);
int wf_nl80211_airtime_set_weight (WfNl80211Socket *s,
                                   int              ifindex,
                                   const guint8     mac[6],
                                   guint16          weight);

/* Pure parsers over tb[NL80211_ATTR_MAX + 1] as genlmsg_parse fills it,
 * for the tests. A GET_STATION reply's weight: FALSE without one. */
struct nlattr;
gboolean wf_nl80211_airtime_parse_weight   (struct nlattr **tb,
                                            guint          *weight);
/* ORs a wiphy reply's extended features into `bits` (a split dump
 * spreads them over messages); TRUE when airtime fairness is among
 * them now. */
#define WF_NL80211_EXT_FEATURE_BYTES 64
gboolean wf_nl80211_airtime_parse_features (struct nlattr **tb,
                                            guint8          bits[WF_NL80211_EXT_FEATURE_BYTES]);

G_END_DECLS
