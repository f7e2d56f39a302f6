/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How often and how long each interface scanned, and what kind of scan:
 * a host that scans while it should be sending loses airtime the AP
 * cannot explain from its own side. */
#include "wlanfair-scancount.h"

struct _WfScanCount {
  WfNl80211Scan *sub;
  GHashTable    *ifaces;  /* ifindex → WfScanCounts */
};

static void
on_event (const WfScanEvent *event, gpointer data)
{
  wf_scancount_event (data, event);
}

WfScanCount *
wf_scancount_new_detached (void)
{
  WfScanCount *sc = g_new0 (WfScanCount, 1);

  sc->ifaces = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return sc;
}

WfScanCount *
wf_scancount_new (GError **error)
{
  WfScanCount *sc = wf_scancount_new_detached ();

  sc->sub = wf_nl80211_scan_new (on_event, sc, error);
  if (sc->sub == NULL)
    {
      wf_scancount_free (sc);
      return NULL;
    }
  return sc;
}

void
wf_scancount_free (WfScanCount *sc)
{
  if (sc == NULL)
    return;
  g_clear_pointer (&sc->sub, wf_nl80211_scan_free);
  g_hash_table_unref (sc->ifaces);
  g_free (sc);
}

static void
count_kind (WfScanCounts *c, WfScanKind kind)
{
  c->count++;
  switch (kind)
    {
    case WF_SCAN_KIND_SINGLE_SSID: c->single_ssid++; break;
    case WF_SCAN_KIND_WILDCARD: c->wildcard++; break;
    case WF_SCAN_KIND_PASSIVE: c->passive++; break;
    case WF_SCAN_KIND_MULTI_SSID: c->multi_ssid++; break;
    default: break;
    }
}

void
wf_scancount_event (WfScanCount *sc, const WfScanEvent *e)
{
  WfScanCounts *c;

  if (e->ifindex <= 0 || e->type == WF_SCAN_EVENT_BEACON_LOSS)
    return;
  c = g_hash_table_lookup (sc->ifaces, GINT_TO_POINTER (e->ifindex));
  if (c == NULL)
    {
      c = g_new0 (WfScanCounts, 1);
      g_hash_table_insert (sc->ifaces, GINT_TO_POINTER (e->ifindex), c);
    }
  switch (e->type)
    {
    case WF_SCAN_EVENT_START:
      /* A start while one runs: the first end was lost; count the new one. */
      count_kind (c, e->kind);
      c->in_progress = TRUE;
      c->started_us = e->monotonic_us;
      break;
    case WF_SCAN_EVENT_DONE:
    case WF_SCAN_EVENT_ABORTED:
      if (c->in_progress && e->monotonic_us >= c->started_us)
        c->duration_ms += (guint64) (e->monotonic_us - c->started_us) / 1000;
      else if (!c->in_progress)
        count_kind (c, e->kind); /* started before we listened */
      if (e->type == WF_SCAN_EVENT_ABORTED)
        c->aborted++;
      c->in_progress = FALSE;
      break;
    default:
      break;
    }
}

const WfScanCounts *
wf_scancount_get (WfScanCount *sc, int ifindex)
{
  return g_hash_table_lookup (sc->ifaces, GINT_TO_POINTER (ifindex));
}
