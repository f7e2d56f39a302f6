/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where wlanfair-apd's view of the stations comes from: the AP
 * interface's nl80211 station table (a real access point), or the ports
 * of a bridge, one station per port (an emulated one: testbed/).
 * Either gives one WfApdApEntry per station per dump, plus the
 * neighbour table for addresses. No privilege needed. */
#pragma once

#include <glib.h>

#include "wlanfair-apd-config.h"
#include "wlanfair-apd-station-table.h"

G_BEGIN_DECLS

typedef struct _WfApdStationSource WfApdStationSource;

/* Called from the main context when a station joined or left (nl80211
 * events), so that the daemon can run a round early. */
typedef void (*WfApdStationSourceChanged) (gpointer user_data);

/* The interface must exist; for nl80211 it must be a wireless one and
 * cfg80211 must be there: an error that says which is missing. */
WfApdStationSource *wf_apd_station_source_new (const WfApdConfig       *config,
                                               WfApdStationSourceChanged changed,
                                               gpointer                  user_data,
                                               GError                  **error);
void                wf_apd_station_source_free (WfApdStationSource *src);
int                 wf_apd_station_source_ifindex (WfApdStationSource *src);
/* "nl80211 on wlan0 (AP mode)", "bridge br0 (3 ports)" */
char               *wf_apd_station_source_describe (WfApdStationSource *src);

/* One dump of every station (WfApdApEntry) and of the neighbours
 * (WfNeigh) that give their addresses. */
gboolean            wf_apd_station_source_dump (WfApdStationSource *src,
                                                GArray             *entries,
                                                GArray             *neighs,
                                                GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfApdStationSource, wf_apd_station_source_free)

G_END_DECLS
