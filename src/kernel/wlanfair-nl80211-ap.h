/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

#include "wlanfair-nl80211.h"

G_BEGIN_DECLS

/* The access point's side of nl80211: its station table (GET_STATION
 * dump on an AP interface) and the stations coming and going (NEW_STATION
 * and DEL_STATION on the "mlme" multicast group). Neither needs a
 * capability. */

/* One associated station as the AP sees it. Members a driver does not
 * give keep has_* FALSE (never a made-up 0). "tx" is AP -> station. */
typedef struct {
  guint8     mac[6];
  int        ifindex;
  /* What a station entry has in managed mode too (signal as the AP
   * hears it, tx/rx rates, retries, failures): wf_nl80211_parse_station. */
  WfWifiStation sta;
  gboolean   has_rx_bytes, has_tx_bytes;
  guint64    rx_bytes, tx_bytes;
  /* Only the 32-bit counter was there: it wraps at 4 GiB. */
  gboolean   rx_bytes_32bit, tx_bytes_32bit;
  gboolean   has_rx_packets, has_tx_packets;
  guint32    rx_packets, tx_packets;
  gboolean   has_inactive, has_connected;
  guint32    inactive_ms, connected_s;
  /* Airtime used, summed over PPDUs (mac80211 drivers with airtime
   * accounting: ath9k, ath10k, mt76; not mac80211_hwsim). */
  gboolean   has_tx_duration, has_rx_duration;
  guint64    tx_duration_us, rx_duration_us;
  gboolean   has_airtime_weight;
  guint16    airtime_weight;                   /* 256 unless set */
  /* From NL80211_STA_INFO_STA_FLAGS, when its mask names the flag. */
  gboolean   has_authorized, has_associated;
  gboolean   authorized, associated;
} WfApStation;

/* Appends one WfApStation per station of the AP interface `ifindex`
 * (NL80211_CMD_GET_STATION, NLM_F_DUMP); `out` is left as it was on
 * errors. On a station-mode interface the one entry is its AP. */
gboolean wf_nl80211_ap_dump (WfNl80211 *nl,
                             int        ifindex,
                             GArray    *out,
                             GError   **error);

/* A GET_STATION reply or NEW_STATION event (tb[NL80211_ATTR_MAX + 1] as
 * genlmsg_parse fills it): FALSE without a 6-byte MAC or a STA_INFO
 * nest. ifindex is 0 when the message names none. Pure, for the tests. */
struct nlattr;
gboolean wf_nl80211_parse_ap_station (struct nlattr **tb,
                                      WfApStation    *out);

/* A station joined (added, NL80211_CMD_NEW_STATION) or left (DEL_STATION)
 * an AP interface. */
typedef void (*WfNl80211ApEventFunc) (int           ifindex,
                                      const guint8 *mac,
                                      gboolean      added,
                                      gpointer      user_data);

typedef struct _WfNl80211ApEvents WfNl80211ApEvents;

/* Subscribes to the "mlme" group and calls `func` from `ctx` (NULL: the
 * global default context) for every interface of the caller's network
 * namespace. Events are lost when the socket overruns (ENOBUFS): the
 * station table is the dump; events only make it sooner.
 * WF_ERROR_FAILED "nl80211 not available" without cfg80211. */
WfNl80211ApEvents *wf_nl80211_ap_events_new (GMainContext          *ctx,
                                             WfNl80211ApEventFunc   func,
                                             gpointer               user_data,
                                             GError               **error);
void               wf_nl80211_ap_events_free (WfNl80211ApEvents *events);

/* NEW_STATION / DEL_STATION with an ifindex and a 6-byte MAC; FALSE for
 * anything else. Pure: the tests feed it messages built with nla_put. */
struct nlmsghdr;
gboolean wf_nl80211_ap_event_parse (struct nlmsghdr *nlh,
                                    int             *ifindex,
                                    guint8           mac[6],
                                    gboolean        *added);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfNl80211ApEvents, wf_nl80211_ap_events_free)

G_END_DECLS
