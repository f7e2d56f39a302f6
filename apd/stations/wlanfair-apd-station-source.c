/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-station-source.h"

#include <linux/nl80211.h>
#include <net/if.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-linkstats.h"
#include "wlanfair-neigh.h"
#include "wlanfair-nl80211-ap.h"

struct _WfApdStationSource {
  const WfApdConfig        *config;
  int                       ifindex;
  WfNl80211                *nl;       /* nl80211 only */
  WfNl80211ApEvents        *events;
  WfApdStationSourceChanged changed;
  gpointer                  user_data;
  GHashTable               *multi_logged; /* bridge ports with several hosts, logged */
};

static void
on_station_event (int ifindex, const guint8 *mac, gboolean added, gpointer user_data)
{
  WfApdStationSource *src = user_data;
  char m[WF_MAC_STR_LEN];

  if (ifindex != src->ifindex)
    return;
  wf_mac_format (mac, m);
  g_debug ("nl80211: station %s %s", m, added ? "added" : "removed");
  if (src->changed)
    src->changed (src->user_data);
}

WfApdStationSource *
wf_apd_station_source_new (const WfApdConfig *config, WfApdStationSourceChanged changed,
                           gpointer user_data, GError **error)
{
  g_autoptr(WfApdStationSource) src = g_new0 (WfApdStationSource, 1);

  src->config = config;
  src->changed = changed;
  src->user_data = user_data;
  src->multi_logged = g_hash_table_new (g_direct_hash, g_direct_equal);
  src->ifindex = (int) if_nametoindex (config->interface);
  if (src->ifindex == 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "interface %s: %s",
                   config->interface, g_strerror (errno));
      return NULL;
    }
  if (config->source == WF_APD_SOURCE_NL80211)
    {
      WfWifiLink link;
      g_autoptr(GError) local = NULL;

      src->nl = wf_nl80211_new (error);
      if (!src->nl)
        return NULL;
      if (!wf_nl80211_get_link (src->nl, src->ifindex, &link, &local))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                       "%s: %s (stations-from=nl80211 needs the AP's Wi-Fi interface; "
                       "an emulation uses stations-from=bridge-ports)",
                       config->interface, local->message);
          return NULL;
        }
      if (link.iftype != NL80211_IFTYPE_AP && link.iftype != NL80211_IFTYPE_P2P_GO)
        g_warning ("%s is in %s mode, not AP mode: its station table holds no stations "
                   "until hostapd runs it as an access point", config->interface,
                   wf_nl80211_iftype_name (link.iftype));
      /* Events only make a round come sooner: without them the dump still
       * finds every station within one period. */
      src->events = wf_nl80211_ap_events_new (NULL, on_station_event, src, &local);
      if (!src->events)
        g_message ("nl80211 station events unavailable (%s): stations are seen at "
                   "the next round", local->message);
    }
  return g_steal_pointer (&src);
}

void
wf_apd_station_source_free (WfApdStationSource *src)
{
  if (!src)
    return;
  g_clear_pointer (&src->events, wf_nl80211_ap_events_free);
  g_clear_pointer (&src->nl, wf_nl80211_free);
  g_hash_table_unref (src->multi_logged);
  g_free (src);
}

int
wf_apd_station_source_ifindex (WfApdStationSource *src)
{
  return src->ifindex;
}

char *
wf_apd_station_source_describe (WfApdStationSource *src)
{
  if (src->config->source == WF_APD_SOURCE_NL80211)
    return g_strdup_printf ("nl80211 station table of %s", src->config->interface);
  return g_strdup_printf ("ports of bridge %s", src->config->interface);
}

static void
from_ap_station (const WfApStation *a, WfApdApEntry *e)
{
  memset (e, 0, sizeof *e);
  memcpy (e->mac, a->mac, 6);
  e->ifindex = a->ifindex;
  e->has_signal = a->sta.has_signal_avg || a->sta.has_signal;
  e->signal_dbm = a->sta.has_signal_avg ? a->sta.signal_avg_dbm : a->sta.signal_dbm;
  e->has_tx_bitrate = a->sta.has_tx_rate && a->sta.tx_rate.has_bitrate;
  e->tx_bitrate_kbps = a->sta.tx_rate.bitrate_kbps;
  e->has_rx_bitrate = a->sta.has_rx_rate && a->sta.rx_rate.has_bitrate;
  e->rx_bitrate_kbps = a->sta.rx_rate.bitrate_kbps;
  e->tx_mcs = a->sta.has_tx_rate ? a->sta.tx_rate.mcs : -1;
  e->tx_bytes = a->tx_bytes;
  e->rx_bytes = a->rx_bytes;
  e->has_tx_packets = a->has_tx_packets;
  e->tx_packets_32bit = TRUE;
  e->tx_packets = a->tx_packets;
  e->has_tx_duration = a->has_tx_duration;
  e->tx_duration_us = a->tx_duration_us;
  e->has_rx_duration = a->has_rx_duration;
  e->rx_duration_us = a->rx_duration_us;
}

static gboolean
dump_nl80211 (WfApdStationSource *src, GArray *entries, GError **error)
{
  g_autoptr(GArray) sta = g_array_new (FALSE, FALSE, sizeof (WfApStation));

  if (!wf_nl80211_ap_dump (src->nl, src->ifindex, sta, error))
    return FALSE;
  for (guint i = 0; i < sta->len; i++)
    {
      const WfApStation *a = &g_array_index (sta, WfApStation, i);
      WfApdApEntry e;

      /* Not yet through the 4-way handshake: no traffic of its own. */
      if (a->has_authorized && !a->authorized)
        continue;
      from_ap_station (a, &e);
      g_array_append_val (entries, e);
    }
  return TRUE;
}

/* One station per port: the port's counters (its transmit is the AP's
 * send to the station), the host the FDB knows behind it. */
static gboolean
dump_bridge (WfApdStationSource *src, GArray *entries, GError **error)
{
  g_autoptr(GArray) links = g_array_new (FALSE, FALSE, sizeof (WfLinkStats));
  g_autoptr(GArray) fdb = g_array_new (FALSE, FALSE, sizeof (WfFdbEntry));

  if (!wf_linkstats_dump (links, error) || !wf_neigh_fdb_dump (src->ifindex, fdb, error))
    return FALSE;
  for (guint i = 0; i < links->len; i++)
    {
      const WfLinkStats *l = &g_array_index (links, WfLinkStats, i);
      const WfFdbEntry *host = NULL;
      guint hosts = 0;
      WfApdApEntry e;
      double rate;

      if (l->master != src->ifindex)
        continue;
      for (guint j = 0; j < fdb->len; j++)
        {
          const WfFdbEntry *f = &g_array_index (fdb, WfFdbEntry, j);
          if (f->port != l->ifindex)
            continue;
          /* The lowest MAC: the same one every round. */
          if (!host || memcmp (f->mac, host->mac, 6) < 0)
            host = f;
          hosts++;
        }
      if (!host)
        continue;   /* nobody behind this port (yet) */
      if (hosts > 1 && !g_hash_table_contains (src->multi_logged, GINT_TO_POINTER (l->ifindex)))
        {
          char m[WF_MAC_STR_LEN];
          wf_mac_format (host->mac, m);
          g_message ("bridge port %s has %u hosts behind it: counted as one station, %s",
                     l->name, hosts, m);
          g_hash_table_add (src->multi_logged, GINT_TO_POINTER (l->ifindex));
        }
      memset (&e, 0, sizeof e);
      memcpy (e.mac, host->mac, 6);
      e.ifindex = l->ifindex;
      e.tx_mcs = -1;
      /* What nl80211 would give a real AP: the station's PHY rate. */
      rate = wf_apd_config_port_rate (src->config, l->name);
      if (rate > 0)
        {
          e.has_tx_bitrate = e.has_rx_bitrate = TRUE;
          e.tx_bitrate_kbps = e.rx_bitrate_kbps = (guint32) MIN (rate / 1e3, G_MAXUINT32);
        }
      e.tx_bytes = l->tx_bytes;
      e.rx_bytes = l->rx_bytes;
      e.has_tx_packets = TRUE;
      e.tx_packets = l->tx_packets;
      g_array_append_val (entries, e);
    }
  return TRUE;
}

gboolean
wf_apd_station_source_dump (WfApdStationSource *src, GArray *entries, GArray *neighs,
                            GError **error)
{
  guint first = entries->len;

  if (!(src->config->source == WF_APD_SOURCE_NL80211
        ? dump_nl80211 (src, entries, error)
        : dump_bridge (src, entries, error)))
    return FALSE;
  /* Addresses: on a bridged AP they sit on the bridge, not on the Wi-Fi
   * port, so every interface's. */
  if (!wf_neigh_dump (0, neighs, error))
    {
      g_array_set_size (entries, first);
      return FALSE;
    }
  return TRUE;
}
