/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard's decision logic: traffic detector with hysteresis, roam
 * floor, beacon loss, link state, holds and modes. No I/O: every input is
 * an argument, time included, so the unit tests drive it synthetically. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "wlanfair-scan-policy.h"

static const char * const reason_names[] = {
  [WF_SCAN_REASON_IDLE] = "idle",
  [WF_SCAN_REASON_TRAFFIC] = "traffic",
  [WF_SCAN_REASON_HOLD] = "hold",
  [WF_SCAN_REASON_MODE_ALWAYS] = "mode-always",
  [WF_SCAN_REASON_MODE_OFF] = "mode-off",
  [WF_SCAN_REASON_ROAM_FLOOR] = "roam-floor",
  [WF_SCAN_REASON_BEACON_LOSS] = "beacon-loss",
  [WF_SCAN_REASON_LINK_DOWN] = "link-down",
  [WF_SCAN_REASON_NO_NETWORK] = "no-network",
  [WF_SCAN_REASON_NO_BGSCAN] = "no-bgscan",
  [WF_SCAN_REASON_ERROR] = "error",
};


const char *
wf_scan_reason_name (WfScanReason reason)
{
  return reason < G_N_ELEMENTS (reason_names) ? reason_names[reason] : "?";
}


void
wf_traffic_detector_init (WfTrafficDetector *d)
{
  memset (d, 0, sizeof *d);
  d->idle_since_us = -1;
}

#define SLOT(d, back) ((d)->ring[((d)->head + WF_TRAFFIC_RING - (back)) % WF_TRAFFIC_RING])

gboolean
wf_traffic_detector_feed (WfTrafficDetector *d, const WfScanConfig *c,
                          gint64 now_us, guint64 tx_packets, guint64 rx_packets,
                          guint64 tx_bytes, guint64 rx_bytes)
{
  gboolean was = d->active;
  gint64 window_us = (gint64) (c->start_window_s * G_USEC_PER_SEC);
  guint from = 0;
  gboolean full = FALSE;
  double seconds, pps;

  if (d->len > 0)
    {
      WfTrafficSample *last = &SLOT (d, 0);

      /* A re-created interface or a wrapped counter: start over, keep the
       * verdict (the hold-off still applies). */
      if (tx_packets < last->tx_packets || rx_packets < last->rx_packets
          || tx_bytes < last->tx_bytes || rx_bytes < last->rx_bytes
          || now_us <= last->t_us)
        d->len = 0;
    }
  d->head = (d->head + 1) % WF_TRAFFIC_RING;
  SLOT (d, 0).t_us = now_us;
  SLOT (d, 0).tx_packets = tx_packets;
  SLOT (d, 0).rx_packets = rx_packets;
  SLOT (d, 0).tx_bytes = tx_bytes;
  SLOT (d, 0).rx_bytes = rx_bytes;
  if (d->len < WF_TRAFFIC_RING)
    d->len++;
  d->rising = FALSE;
  if (d->len < 2)
    {
      d->have_rates = FALSE;
      return FALSE;
    }

  /* The newest sample at least (nearly) a window old: 5 % slack for timer
   * jitter. Without one, rates span what history there is. */
  for (guint back = 1; back < d->len; back++)
    {
      from = back;
      if (now_us - SLOT (d, back).t_us >= window_us - window_us / 20)
        {
          full = TRUE;
          break;
        }
    }
  seconds = (now_us - SLOT (d, from).t_us) / (double) G_USEC_PER_SEC;
  d->tx_pps = (tx_packets - SLOT (d, from).tx_packets) / seconds;
  d->rx_pps = (rx_packets - SLOT (d, from).rx_packets) / seconds;
  d->tx_bps = (tx_bytes - SLOT (d, from).tx_bytes) / seconds;
  d->rx_bps = (rx_bytes - SLOT (d, from).rx_bytes) / seconds;
  d->have_rates = TRUE;
  pps = d->tx_pps + d->rx_pps;

  if (!d->active)
    {
      /* Start only when every sample interval of a whole window is above
       * the threshold: sustained traffic, not one burst (a DNS lookup and
       * a TLS handshake are 10-20 packets in a few ms). */
      gint64 interval_us = MAX ((gint64) c->sample_interval_ms * 1000, 1);
      guint needed = MAX (1, (guint) ((window_us - window_us / 20 + interval_us - 1) / interval_us));
      gboolean sustained = full;

      for (guint back = 0; back < from; back++)
        {
          const WfTrafficSample *newer = &SLOT (d, back);
          const WfTrafficSample *older = &SLOT (d, back + 1);
          double dt = (newer->t_us - older->t_us) / (double) G_USEC_PER_SEC;
          double n = (double) (newer->tx_packets - older->tx_packets)
                     + (double) (newer->rx_packets - older->rx_packets);

          if (n < c->start_pps * dt)
            {
              sustained = FALSE;
              break;
            }
          if (back == 0)
            d->rising = TRUE;
        }
      if (sustained && from < needed)
        sustained = FALSE;
      if (sustained)
        {
          d->active = TRUE;
          d->rising = FALSE;
          d->idle_since_us = -1;
        }
    }
  else if (pps < c->idle_pps)
    {
      if (d->idle_since_us < 0)
        d->idle_since_us = now_us;
      if (now_us - d->idle_since_us >= (gint64) (c->idle_holdoff_s * G_USEC_PER_SEC))
        {
          d->active = FALSE;
          d->idle_since_us = -1;
        }
    }
  else
    d->idle_since_us = -1;
  return d->active != was;
}

gboolean
wf_scan_bgscan_threshold (const char *bgscan, int *threshold_dbm)
{
  g_auto(GStrv) parts = NULL;
  char *end;
  long v;

  if (!bgscan || !(g_str_has_prefix (bgscan, "simple:") || g_str_has_prefix (bgscan, "learn:")))
    return FALSE;
  /* Both modules: NAME:SHORT:THRESHOLD:LONG[...]. */
  parts = g_strsplit (bgscan, ":", 5);
  if (g_strv_length (parts) < 3)
    return FALSE;
  v = strtol (parts[2], &end, 10);
  if (end == parts[2] || *end != '\0' || v < -120 || v >= 0)
    return FALSE;
  *threshold_dbm = (int) v;
  return TRUE;
}

int
wf_scan_roam_floor (const WfScanConfig *c, const char *bgscan)
{
  int threshold;

  if (!c->roam_floor_auto)
    return c->roam_floor_dbm;
  if (!wf_scan_bgscan_threshold (bgscan, &threshold))
    threshold = -70;
  /* NetworkManager only ever picks -70 or -65. A higher threshold was set
   * to make bgscan scan often (a test, an administrator): taken as a roam
   * floor it would lift suppression at any usable signal, so the floor
   * stays where NetworkManager's highest choice puts it. */
  threshold = MIN (threshold, WF_SCAN_NM_THRESHOLD_MAX);
  return threshold - c->roam_floor_margin_db;
}

void
wf_scan_policy_init (WfScanPolicy *p)
{
  memset (p, 0, sizeof *p);
  p->reason = WF_SCAN_REASON_NO_NETWORK;
}

void
wf_scan_policy_beacon_loss (WfScanPolicy *p, gint64 now_us)
{
  p->beacon_loss_us = now_us > 0 ? now_us : 1;
}

static void
update_floor (WfScanPolicy *p, const WfScanConfig *c, const WfScanInputs *in)
{
  /* Unknown signal or floor: keep the last verdict rather than guess. */
  if (in->signal_dbm == 0 || in->roam_floor_dbm == 0)
    {
      if (in->roam_floor_dbm == 0)
        p->under_floor = FALSE;
      return;
    }
  if (!p->under_floor && in->signal_dbm < in->roam_floor_dbm)
    p->under_floor = TRUE;
  else if (p->under_floor && in->signal_dbm >= in->roam_floor_dbm + c->roam_hysteresis_db)
    p->under_floor = FALSE;
}

static gboolean
beacon_loss_recent (const WfScanPolicy *p, const WfScanConfig *c, gint64 now_us)
{
  return p->beacon_loss_us != 0
    && now_us - p->beacon_loss_us < (gint64) (c->beacon_loss_holdoff_s * G_USEC_PER_SEC);
}

gboolean
wf_scan_policy_decide (WfScanPolicy *p, const WfScanConfig *c, const WfScanInputs *in)
{
  gboolean suppress = FALSE;
  WfScanReason reason;

  update_floor (p, c, in);
  if (in->has_network && in->connected && in->carrier)
    p->link_down_us = 0;
  else if (p->link_down_us == 0)
    p->link_down_us = in->now_us > 0 ? in->now_us : 1;
  /* Lifting reasons first: roaming and the link beat everything. */
  if (c->mode == WF_SCAN_MODE_OFF)
    reason = WF_SCAN_REASON_MODE_OFF;
  else if (!in->has_network || !in->connected || !in->carrier)
    {
      reason = !in->has_network && in->connected ? WF_SCAN_REASON_NO_NETWORK
                                                 : WF_SCAN_REASON_LINK_DOWN;
      /* Within the grace a running suppression is kept (see the header). */
      suppress = p->suppress && in->now_us - p->link_down_us < WF_SCAN_LINK_DOWN_GRACE_US;
    }
  else if (beacon_loss_recent (p, c, in->now_us))
    reason = WF_SCAN_REASON_BEACON_LOSS;
  else if (p->under_floor)
    reason = WF_SCAN_REASON_ROAM_FLOOR;
  else if (!in->has_bgscan)
    reason = WF_SCAN_REASON_NO_BGSCAN;
  else if (c->mode == WF_SCAN_MODE_ALWAYS)
    suppress = TRUE, reason = WF_SCAN_REASON_MODE_ALWAYS;
  else if (in->traffic)
    suppress = TRUE, reason = WF_SCAN_REASON_TRAFFIC;
  else if (in->n_holds > 0)
    suppress = TRUE, reason = WF_SCAN_REASON_HOLD;
  else
    reason = WF_SCAN_REASON_IDLE;

  if (suppress == p->suppress && reason == p->reason)
    return FALSE;
  p->suppress = suppress;
  p->reason = reason;
  return TRUE;
}

gboolean
wf_scan_policy_should_abort (const WfScanPolicy *p, const WfScanConfig *c,
                             const WfScanInputs *in, WfScanKind kind)
{
  if (c->policy != WF_SCAN_POLICY_STRICT || c->mode == WF_SCAN_MODE_OFF)
    return FALSE;
  /* One SSID is bgscan-simple or wpa_supplicant's own roaming; unknown
   * (no nl80211) could be either. */
  if (kind == WF_SCAN_KIND_SINGLE_SSID || kind == WF_SCAN_KIND_UNKNOWN)
    return FALSE;
  if (!(in->traffic || in->n_holds > 0))
    return FALSE;
  if (!in->connected || !in->carrier || !in->has_network)
    return FALSE;
  if (p->under_floor || beacon_loss_recent (p, c, in->now_us))
    return FALSE;
  return TRUE;
}
