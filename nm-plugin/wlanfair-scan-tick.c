/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's sampling tick: how often it runs (not at all while no
 * device is connected) and one sample of a device: its link counters into
 * the traffic detector, its signal when due, a current network that no
 * notification announced. */
#include "config.h"

#include "wlanfair-scan-device.h"

static void
poll_signal (WfScanDevice *d, gint64 now)
{
  g_autoptr(GError) error = NULL;
  int dbm;

  gint64 interval = (gint64) d->guard->global.signal_interval_ms * 1000;

  if (now < d->next_signal_us)
    return;
  /* The signal only matters (roam floor) while suppression is wanted:
   * otherwise poll ten times less often, for the status only. */
  if (!(d->traffic.active || d->policy.suppress
        || wf_scan_service_n_holds (d->guard->service) > 0))
    interval *= 10;
  d->next_signal_us = now + interval;
  if (!wf_scan_device_connected (d))
    {
      d->signal_dbm = 0;
      return;
    }
  if (wf_wpas_signal (d->iface, &dbm, &error))
    d->signal_dbm = dbm;
  else
    {
      if (d->signal_dbm != 0)
        g_info ("%s: signal unknown: %s", d->ifname, error->message);
      d->signal_dbm = 0;
    }
}

/* wpa_supplicant says connected but no current network is known: a change
 * notification went missing (seen in the lab on an interface that
 * NetworkManager re-created when it restarted). Ask directly, at most
 * every 2 s, rather than wait for a notification that may never come. */
static void
recheck_network (WfScanDevice *d, gint64 now)
{
  WfWpasChange what;

  if (d->network || !g_str_equal (wf_wpas_iface_state (d->iface), "completed")
      || now < d->next_network_check_us)
    return;
  d->next_network_check_us = now + 2 * G_USEC_PER_SEC;
  what = wf_wpas_iface_reload (d->iface);
  if (what & WF_WPAS_CHANGED_NETWORK)
    {
      g_message ("%s: wpa_supplicant is connected and no change of its current network was "
                 "announced: read it directly", d->ifname);
      wf_scan_device_follow_network (d);
      wf_scan_device_evaluate (d);
    }
}

/* One sample of the device's counters (and signal, when due). */
void
wf_scan_device_sample (WfScanDevice *d, gint64 now)
{
  g_autoptr(GError) error = NULL;
  WfLinkStats stats;
  const WfLinkStats *st = NULL;

  if (wf_scan_link_read (d->guard->link, d->ifname, &stats, &error))
    st = &stats;
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_warning ("link counters: %s", error->message);
  if (d->carrier != (st && st->up))
    g_info ("%s: carrier %s", d->ifname, st && st->up ? "on" : st ? "off" : "(no such interface)");
  d->carrier = st && st->up;
  if (st && wf_traffic_detector_feed (&d->traffic, &d->cfg, now, st->tx_packets,
                                      st->rx_packets, st->tx_bytes, st->rx_bytes))
    {
      if (d->traffic.active)
        {
          g_info ("%s: traffic detected: %.1f packets/s over %g s", d->ifname,
                  d->traffic.tx_pps + d->traffic.rx_pps, d->cfg.start_window_s);
          d->next_signal_us = 0;   /* the roam floor needs a fresh signal */
        }
      else
        g_info ("%s: traffic ended: under %g packets/s for %g s", d->ifname,
                d->cfg.idle_pps, d->cfg.idle_holdoff_s);
    }
  poll_signal (d, now);
}

/* How often the tick must run, 0 for not at all. A battery pays for every
 * wakeup: no tick while no device is connected (wpa_supplicant's and
 * NetworkManager's signals say when one is), half the rate while a
 * connected link is idle; the full rate once traffic may be starting,
 * while suppressing or holding, and while a write is to be retried. An
 * idle start is noticed one slow interval late at most, then confirmed
 * over full-rate intervals (the detector wants as many as sample-interval
 * puts in a window), so the reaction stays under a second. */
static guint
tick_wanted_ms (WfScanGuard *g)
{
  GHashTableIter it;
  gpointer v;
  guint fast = g->global.sample_interval_ms, wanted = 0;

  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      WfScanDevice *d = v;
      gboolean busy = d->suppressing || d->error || d->policy.suppress || d->traffic.active
        || d->traffic.rising || wf_scan_service_n_holds (g->service) > 0;

      if (busy)
        return fast;
      if (wf_scan_device_connected (d))
        wanted = 2 * fast;
    }
  return wanted;
}

static gboolean on_tick (gpointer user_data);

void
wf_scan_guard_reschedule (WfScanGuard *g)
{
  guint ms = tick_wanted_ms (g);

  /* A change while the tick did not run (a scan counted, a device gone)
   * is written now. */
  if (!g->tick)
    wf_scan_guard_textfile_update (g, g_get_monotonic_time ());
  if (ms == g->tick_ms)
    return;
  if (g->tick)
    g_source_remove (g->tick);
  if ((ms == 0) != (g->tick_ms == 0))
    g_info (ms ? "sampling every %u ms" : "no device connected: sampling stopped", ms);
  g->tick = ms ? g_timeout_add (ms, on_tick, g) : 0;
  g->tick_ms = ms;
}

static gboolean
on_tick (gpointer user_data)
{
  WfScanGuard *g = user_data;
  GHashTableIter it;
  gpointer v;
  gint64 now = g_get_monotonic_time ();

  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      recheck_network (v, now);
      wf_scan_device_sample (v, now);
      wf_scan_device_decide (v, FALSE);
    }
  wf_scan_guard_textfile_update (g, now);
  if (tick_wanted_ms (g) == g->tick_ms)
    return G_SOURCE_CONTINUE;
  /* This source ends here; reschedule adds the next one. */
  g->tick = 0;
  g->tick_ms = 0;
  wf_scan_guard_reschedule (g);
  return G_SOURCE_REMOVE;
}
