/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan guard proper: per wpa_supplicant interface a device with a
 * traffic detector and a policy; events from wpa_supplicant, NetworkManager,
 * nl80211 and the sampling tick (wlanfair-scan-tick.c) re-evaluate it,
 * and the result is applied
 * to the live bgscan of the current network (saved to the state file
 * first) and published on D-Bus. */
#include "config.h"

#include <net/if.h>
#include <string.h>

#include "wlanfair-scan-device.h"

static void publish_rates (WfScanDevice *d, gint64 now);

/* Publishing. */

static GVariant *
counts_variant (const guint *counts)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a{su}"));
  for (guint k = 0; k < WF_SCAN_KIND_COUNT; k++)
    g_variant_builder_add (&b, "{su}", wf_scan_kind_name (k), counts[k]);
  return g_variant_builder_end (&b);
}

static GVariant *
recent_variant (WfScanDevice *d)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(xssu)"));
  for (guint k = 0; k < d->n_recent; k++)
    g_variant_builder_add (&b, "(xssu)", d->recent[k].real_us, wf_scan_kind_name (d->recent[k].kind),
                           d->recent[k].outcome, d->recent[k].duration_ms);
  return g_variant_builder_end (&b);
}

static const char *
reason_now (WfScanDevice *d)
{
  if (d->error && d->policy.suppress && !d->suppressing)
    return "error";
  return wf_scan_reason_name (d->policy.reason);
}

static void
publish_rates (WfScanDevice *d, gint64 now)
{
  WfScanService *s = d->guard->service;

  d->rates_published_us = now;
  wf_scan_service_device_set (s, d->path, "TxPps", g_variant_new_double (d->traffic.tx_pps));
  wf_scan_service_device_set (s, d->path, "RxPps", g_variant_new_double (d->traffic.rx_pps));
  wf_scan_service_device_set (s, d->path, "TxBps", g_variant_new_double (d->traffic.tx_bps));
  wf_scan_service_device_set (s, d->path, "RxBps", g_variant_new_double (d->traffic.rx_bps));
  wf_scan_service_device_set (s, d->path, "SignalDbm", g_variant_new_int32 (d->signal_dbm));
}

static void
publish (WfScanDevice *d, gboolean rates)
{
  WfScanService *s = d->guard->service;
  const char *reason = reason_now (d);
  gint64 now = g_get_monotonic_time ();
  int floor = d->network ? wf_scan_roam_floor (&d->cfg, d->original) : 0;

#define SET(name, v) wf_scan_service_device_set (s, d->path, name, v)
  if (d->pub_suppressing != d->suppressing || g_strcmp0 (d->pub_reason, reason) != 0)
    {
      d->pub_suppressing = d->suppressing;
      d->pub_reason = reason;
      d->since_real_us = g_get_real_time ();
    }
  SET ("Interface", g_variant_new_string (d->ifname));
  SET ("Connection", g_variant_new_string (d->connection ? d->connection : ""));
  SET ("Mode", g_variant_new_string (wf_scan_mode_names[d->cfg.mode]));
  SET ("Policy", g_variant_new_string (wf_scan_policy_names[d->cfg.policy]));
  SET ("Suppressing", g_variant_new_boolean (d->suppressing));
  SET ("Reason", g_variant_new_string (reason));
  SET ("Since", g_variant_new_int64 (d->since_real_us));
  SET ("CurrentBgscan", g_variant_new_string (d->bgscan ? d->bgscan : ""));
  SET ("SavedBgscan", g_variant_new_string (d->suppressing && d->saved ? d->saved : ""));
  SET ("Network", g_variant_new_object_path (d->network ? d->network : "/"));
  SET ("SupplicantState", g_variant_new_string (d->iface ? wf_wpas_iface_state (d->iface) : ""));
  SET ("Traffic", g_variant_new_boolean (d->traffic.active));
  SET ("RoamFloorDbm", g_variant_new_int32 (floor));
  SET ("ScansSeen", counts_variant (d->seen));
  SET ("ScansAborted", counts_variant (d->aborted));
  SET ("ScansDuringTraffic", counts_variant (d->during));
  SET ("RecentScans", recent_variant (d));
#undef SET
  /* Rates and signal change every sample: at most once a second. */
  if (rates || now - d->rates_published_us >= PUBLISH_RATES_US)
    publish_rates (d, now);
}

/* bgscan. */

/* Decisions. */

static void
log_decision (WfScanDevice *d)
{
  const char *r = wf_scan_reason_name (d->policy.reason);
  int floor = d->network ? wf_scan_roam_floor (&d->cfg, d->original) : 0;

  switch (d->policy.reason)
    {
    case WF_SCAN_REASON_TRAFFIC:
      g_message ("%s: traffic %.1f packets/s (tx %.1f, rx %.1f) >= %g: scans should pause",
                 d->ifname, d->traffic.tx_pps + d->traffic.rx_pps, d->traffic.tx_pps,
                 d->traffic.rx_pps, d->cfg.start_pps);
      break;
    case WF_SCAN_REASON_HOLD:
      g_message ("%s: %u hold(s) on the bus: scans should pause", d->ifname,
                 wf_scan_service_n_holds (d->guard->service));
      break;
    case WF_SCAN_REASON_ROAM_FLOOR:
      g_message ("%s: signal %d dBm under the roam floor %d dBm: scans allowed for roaming%s",
                 d->ifname, d->signal_dbm, floor, d->traffic.active ? " despite traffic" : "");
      break;
    case WF_SCAN_REASON_BEACON_LOSS:
      g_message ("%s: beacon loss: scans allowed for %g s%s", d->ifname, d->cfg.beacon_loss_holdoff_s,
                 d->traffic.active ? " despite traffic" : "");
      break;
    case WF_SCAN_REASON_LINK_DOWN:
    case WF_SCAN_REASON_NO_NETWORK:
      if (d->policy.suppress)
        g_message ("%s: %s (wpa_supplicant %s, carrier %s): suppression lifted in %.1f s "
                   "unless the link comes back", d->ifname, r,
                   d->iface ? wf_wpas_iface_state (d->iface) : "gone", d->carrier ? "on" : "off",
                   WF_SCAN_LINK_DOWN_GRACE_US / (double) G_USEC_PER_SEC);
      else
        g_message ("%s: %s (wpa_supplicant %s, carrier %s): no suppression", d->ifname, r,
                   d->iface ? wf_wpas_iface_state (d->iface) : "gone", d->carrier ? "on" : "off");
      break;
    case WF_SCAN_REASON_IDLE:
      g_message ("%s: idle (%.1f packets/s, no holds): bgscan as configured",
                 d->ifname, d->traffic.tx_pps + d->traffic.rx_pps);
      break;
    default:
      g_message ("%s: %s (suppress: %s)", d->ifname, r, d->policy.suppress ? "yes" : "no");
      break;
    }
}

static WfScanInputs
inputs (WfScanDevice *d)
{
  WfScanInputs in = { 0 };

  in.connected = wf_scan_device_connected (d);
  in.carrier = d->carrier;
  in.has_network = d->network != NULL;
  in.has_bgscan = d->original && *d->original;
  in.signal_dbm = d->signal_dbm;
  in.roam_floor_dbm = d->network ? wf_scan_roam_floor (&d->cfg, d->original) : 0;
  in.traffic = d->traffic.active;
  in.n_holds = wf_scan_service_n_holds (d->guard->service);
  in.now_us = g_get_monotonic_time ();
  return in;
}

/* Decides and acts. `event`: called for an event (anything may have
 * changed: publish everything); from the sampling tick only a decision,
 * an action or the once-a-second rates are published, which keeps the
 * idle cost of the 4 Hz tick low. */
void
wf_scan_device_decide (WfScanDevice *d, gboolean event)
{
  WfScanInputs in = inputs (d);
  gboolean changed = wf_scan_policy_decide (&d->policy, &d->cfg, &in);
  gboolean was = d->suppressing;
  gint64 now = in.now_us;

  if (changed)
    log_decision (d);
  if (!d->policy.suppress && !d->suppressing)
    g_clear_pointer (&d->error, g_free);   /* nothing left to retry */
  if (now >= d->retry_after_us)
    {
      if (d->unconfirmed && d->policy.suppress)
        wf_scan_device_confirm (d);
      if (d->policy.suppress && !d->suppressing && d->network)
        wf_scan_device_suppress (d, wf_scan_reason_name (d->policy.reason));
      else if (!d->policy.suppress && d->suppressing)
        wf_scan_device_restore (d, wf_scan_reason_name (d->policy.reason));
    }
  /* A decision is published with the rates that caused it. */
  if (event || changed || was != d->suppressing || d->error)
    publish (d, changed);
  else if (now - d->rates_published_us >= PUBLISH_RATES_US)
    publish_rates (d, now);
  if (wf_scan_hold_update (&d->hold, d->suppressing, now, g_get_real_time ()))
    d->guard->textfile_dirty = TRUE;
  /* From the tick, on_tick itself reschedules. */
  if (event)
    wf_scan_guard_reschedule (d->guard);
}

void
wf_scan_device_evaluate (WfScanDevice *d)
{
  wf_scan_device_decide (d, TRUE);
}

/* Profile overrides. */

/* Field by field: padding bytes of a copied struct are unspecified. */
static gboolean
config_equal (const WfScanConfig *a, const WfScanConfig *b)
{
  return a->mode == b->mode && a->policy == b->policy && a->start_pps == b->start_pps
    && a->start_window_s == b->start_window_s && a->idle_pps == b->idle_pps
    && a->idle_holdoff_s == b->idle_holdoff_s && a->roam_floor_auto == b->roam_floor_auto
    && a->roam_floor_dbm == b->roam_floor_dbm && a->roam_floor_margin_db == b->roam_floor_margin_db
    && a->roam_hysteresis_db == b->roam_hysteresis_db
    && a->beacon_loss_holdoff_s == b->beacon_loss_holdoff_s
    && a->sample_interval_ms == b->sample_interval_ms && a->signal_interval_ms == b->signal_interval_ms;
}

static void
update_profile (WfScanDevice *d)
{
  g_autofree char *id = NULL;
  g_autoptr(GHashTable) data = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  WfScanConfig cfg;

  if (d->guard->nm)
    wf_scan_nm_lookup (d->guard->nm, d->ifname, &id, &data);
  wf_scan_config_apply_profile (&d->guard->global, data, &cfg, warnings);
  for (guint k = 0; k < warnings->len; k++)
    g_warning ("%s: profile \"%s\": %s", d->ifname, id ? id : "?", (char *) warnings->pdata[k]);
  if (g_strcmp0 (id, d->connection) != 0 || !config_equal (&cfg, &d->cfg))
    g_message ("%s: profile \"%s\": mode %s, policy %s, start %g packets/s, idle %g packets/s for %g s",
               d->ifname, id ? id : "(none)", wf_scan_mode_names[cfg.mode],
               wf_scan_policy_names[cfg.policy], cfg.start_pps, cfg.idle_pps, cfg.idle_holdoff_s);
  if (cfg.mode != d->cfg.mode || cfg.policy != d->cfg.policy)
    d->guard->textfile_dirty = TRUE;   /* wlanfair_scan_guard_info */
  g_free (d->connection);
  d->connection = g_steal_pointer (&id);
  d->cfg = cfg;
}

/* Scans. */

static void
scan_started (WfScanDevice *d, WfScanKind kind, gint64 mono_us)
{
  WfScanInputs in = inputs (d);

  d->in_scan = TRUE;
  d->scan_kind = kind;
  d->scan_start_us = mono_us;
  d->scan_start_real_us = g_get_real_time ();
  d->scan_aborted_by_us = FALSE;
  d->seen[kind]++;
  if (!(in.traffic || in.n_holds > 0))
    {
      g_debug ("%s: %s scan started", d->ifname, wf_scan_kind_name (kind));
      return;
    }
  d->during[kind]++;
  if (wf_scan_policy_should_abort (&d->policy, &d->cfg, &in, kind))
    {
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;

      if (wf_wpas_abort_scan (d->iface, &e1))
        g_message ("%s: %s scan during %s aborted (policy strict) with wpa_supplicant AbortScan",
                   d->ifname, wf_scan_kind_name (kind), in.traffic ? "traffic" : "a hold");
      else if (d->ifindex > 0 && wf_nl80211_scan_abort (d->ifindex, &e2))
        g_message ("%s: %s scan during %s aborted (policy strict) with NL80211_CMD_ABORT_SCAN "
                   "(wpa_supplicant: %s)", d->ifname, wf_scan_kind_name (kind),
                   in.traffic ? "traffic" : "a hold", e1->message);
      else
        {
          g_warning ("%s: cannot abort a %s scan (policy strict): wpa_supplicant: %s; nl80211: %s",
                     d->ifname, wf_scan_kind_name (kind), e1->message,
                     e2 ? e2->message : "no ifindex");
          return;
        }
      d->aborted[kind]++;
      d->scan_aborted_by_us = TRUE;
      return;
    }
  g_message ("%s: %s scan during %s (policy %s: counted, not aborted%s)", d->ifname,
             wf_scan_kind_name (kind), in.traffic ? "traffic" : "a hold",
             wf_scan_policy_names[d->cfg.policy],
             kind == WF_SCAN_KIND_SINGLE_SSID ? "; one SSID: bgscan or roaming" : "");
}

static void
scan_ended (WfScanDevice *d, gboolean aborted, gint64 mono_us)
{
  WfScanRecent *r;

  if (!d->in_scan)
    return;
  d->in_scan = FALSE;
  if (d->n_recent == N_RECENT)
    {
      memmove (d->recent, d->recent + 1, sizeof d->recent[0] * (N_RECENT - 1));
      d->n_recent--;
    }
  r = &d->recent[d->n_recent++];
  r->real_us = d->scan_start_real_us;
  r->kind = d->scan_kind;
  r->outcome = d->scan_aborted_by_us ? "aborted-by-us" : aborted ? "aborted" : "done";
  r->duration_ms = (guint) MAX (0, (mono_us - d->scan_start_us) / 1000);
  g_debug ("%s: %s scan %s after %u ms", d->ifname, wf_scan_kind_name (r->kind), r->outcome,
           r->duration_ms);
}

static WfScanDevice *
device_by_ifindex (WfScanGuard *g, int ifindex)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (((WfScanDevice *) v)->ifindex == ifindex)
      return v;
  return NULL;
}

static void
on_nl80211 (const WfScanEvent *ev, gpointer user_data)
{
  WfScanDevice *d = device_by_ifindex (user_data, ev->ifindex);

  if (!d || ev->ifindex <= 0)
    return;
  switch (ev->type)
    {
    case WF_SCAN_EVENT_START:
      scan_started (d, ev->kind, ev->monotonic_us);
      break;
    case WF_SCAN_EVENT_DONE:
      scan_ended (d, FALSE, ev->monotonic_us);
      break;
    case WF_SCAN_EVENT_ABORTED:
      scan_ended (d, TRUE, ev->monotonic_us);
      break;
    case WF_SCAN_EVENT_BEACON_LOSS:
      g_message ("%s: beacon loss reported by the driver", d->ifname);
      wf_scan_policy_beacon_loss (&d->policy, ev->monotonic_us);
      break;
    }
  wf_scan_device_evaluate (d);
}

/* wpa_supplicant events. */

static void
device_free (WfScanDevice *d)
{
  g_free (d->ifname);
  g_free (d->path);
  g_free (d->connection);
  g_free (d->network);
  g_free (d->bgscan);
  g_free (d->original);
  g_free (d->suppressed_network);
  g_free (d->saved);
  g_free (d->error);
  g_free (d);
}

static void
on_iface_added (WfWpasIface *iface, gpointer user_data)
{
  WfScanGuard *g = user_data;
  WfScanDevice *d;
  g_autoptr(GError) error = NULL;
  const char *slash;

  /* wpa_supplicant's P2P management interface (NetworkManager's Wi-Fi P2P
   * device) is no netdev and never carries station traffic. */
  if (g_str_has_prefix (wf_wpas_iface_ifname (iface), "p2p-dev-"))
    {
      g_debug ("%s: P2P device interface, not guarded", wf_wpas_iface_ifname (iface));
      return;
    }
  d = g_new0 (WfScanDevice, 1);
  d->guard = g;
  d->iface = iface;
  d->ifname = g_strdup (wf_wpas_iface_ifname (iface));
  d->ifindex = (int) if_nametoindex (d->ifname);
  if (d->ifindex > 0)
    d->path = wf_scan_service_device_path (d->ifindex);
  else
    {
      /* No such kernel interface here: a name-based path, link down. */
      slash = strrchr (wf_wpas_iface_path (iface), '/');
      d->path = g_strdup_printf ("/org/wlanfair/ScanGuard1/Device/none_%s", slash ? slash + 1 : "0");
      g_warning ("%s: no such interface in this network namespace: link counters unavailable",
                 d->ifname);
    }
  wf_traffic_detector_init (&d->traffic);
  wf_scan_policy_init (&d->policy);
  d->cfg = g->global;
  g->textfile_dirty = TRUE;
  wf_wpas_iface_set_data (iface, d);
  g_hash_table_insert (g->devices, iface, d);
  if (!wf_scan_service_device_add (g->service, d->path, &error))
    g_warning ("%s: cannot export %s: %s", d->ifname, d->path, error->message);
  update_profile (d);
  wf_scan_device_follow_network (d);
  wf_scan_device_sample (d, g_get_monotonic_time ());   /* carrier and signal before deciding */
  wf_scan_device_evaluate (d);
}

static void
on_iface_removed (WfWpasIface *iface, gpointer user_data)
{
  WfScanGuard *g = user_data;
  WfScanDevice *d = wf_wpas_iface_get_data (iface);

  if (!d)
    return;
  if (d->suppressing)
    {
      g_message ("%s: wpa_supplicant interface removed: its networks are gone, nothing to restore",
                 d->ifname);
      wf_scan_device_clear_suppression (d);
    }
  wf_scan_service_device_remove (g->service, d->path);
  g_hash_table_remove (g->devices, iface);
  device_free (d);
  g->textfile_dirty = TRUE;
  wf_scan_guard_reschedule (g);
}

static void
on_iface_changed (WfWpasIface *iface, WfWpasChange what, gpointer user_data)
{
  WfScanGuard *g = user_data;
  WfScanDevice *d = wf_wpas_iface_get_data (iface);

  if (!d)
    return;
  if (what & WF_WPAS_CHANGED_STATE)
    {
      g_info ("%s: wpa_supplicant state %s", d->ifname, wf_wpas_iface_state (iface));
      /* Carrier and counters are not sampled while nothing is connected. */
      wf_scan_device_sample (d, g_get_monotonic_time ());
    }
  if (what & WF_WPAS_CHANGED_NETWORK)
    wf_scan_device_follow_network (d);
  else if ((what & WF_WPAS_CHANGED_STATE) && wf_scan_device_connected (d) && d->network && !d->suppressing)
    wf_scan_device_read_network (d);  /* (re)association: NM may have re-created it */
  if ((what & WF_WPAS_CHANGED_BSS) && wf_scan_device_connected (d))
    d->next_signal_us = 0;  /* roamed: poll the new AP's signal now */
  /* Without nl80211, wpa_supplicant's Scanning is all we see. */
  if ((what & WF_WPAS_CHANGED_SCANNING) && !g->nl80211)
    {
      if (wf_wpas_iface_scanning (iface))
        scan_started (d, WF_SCAN_KIND_UNKNOWN, g_get_monotonic_time ());
      else
        scan_ended (d, FALSE, g_get_monotonic_time ());
    }
  wf_scan_device_evaluate (d);
}

static void
on_network_added (WfWpasIface *iface, const char *path, gpointer user_data)
{
  WfScanDevice *d = wf_wpas_iface_get_data (iface);

  /* wpa_supplicant reuses network ids: the current path may now be a new
   * network with its own bgscan. */
  if (d && d->network && g_str_equal (path, d->network))
    {
      g_info ("%s: network %s re-added", d->ifname, path);
      wf_scan_device_read_network (d);
      wf_scan_device_evaluate (d);
    }
}

static void
on_network_removed (WfWpasIface *iface, const char *path, gpointer user_data)
{
  WfScanDevice *d = wf_wpas_iface_get_data (iface);

  if (!d)
    return;
  if (d->suppressing && g_str_equal (path, d->suppressed_network))
    {
      g_message ("%s: network %s removed (by NetworkManager): our bgscan change went with it",
                 d->ifname, path);
      wf_scan_device_clear_suppression (d);
    }
  if (d->network && g_str_equal (path, d->network))
    {
      g_clear_pointer (&d->bgscan, g_free);
      g_clear_pointer (&d->original, g_free);
    }
  wf_scan_device_evaluate (d);
}

static void
on_wpas_appeared (WfWpas *wpas, const char *wpas_owner, gpointer user_data)
{
  WfScanGuard *g = user_data;

  if (wf_scan_state_entries (g->state)->len > 0)
    wf_scan_device_restore_entries (g->bus, g->state, wpas_owner);
}

static void
on_wpas_vanished (WfWpas *wpas, gpointer user_data)
{
  g_message ("wpa_supplicant stopped: waiting for it to come back");
}

static void
on_holds_changed (guint n_holds, gpointer user_data)
{
  WfScanGuard *g = user_data;
  GHashTableIter it;
  gpointer v;

  g->textfile_dirty = TRUE;   /* wlanfair_scan_guard_dbus_holds */
  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    wf_scan_device_evaluate (v);
  wf_scan_guard_reschedule (g);   /* with no device, nothing else writes it */
}

static void
on_nm_changed (gpointer user_data)
{
  WfScanGuard *g = user_data;
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      update_profile (v);
      wf_scan_device_evaluate (v);
    }
}

WfScanGuard *
wf_scan_guard_new (GDBusConnection *bus, const WfScanConfig *config,
                   const char *state_dir, GError **error)
{
  static const WfWpasCallbacks callbacks = {
    .appeared = on_wpas_appeared,
    .vanished = on_wpas_vanished,
    .iface_added = on_iface_added,
    .iface_removed = on_iface_removed,
    .iface_changed = on_iface_changed,
    .network_added = on_network_added,
    .network_removed = on_network_removed,
  };
  WfScanGuard *g = g_new0 (WfScanGuard, 1);
  g_autoptr(GError) local = NULL;

  g->bus = g_object_ref (bus);
  g->global = *config;
  g->devices = g_hash_table_new (NULL, NULL);
  wf_scan_guard_textfile_init (g, config);
  g->link = wf_scan_link_new (error);
  if (!g->link)
    goto fail;
  g->state = wf_scan_state_new (state_dir, error);
  if (!g->state)
    goto fail;
  if (wf_scan_state_entries (g->state)->len > 0)
    g_message ("%s: %u bgscan change(s) left by a previous run: restoring when wpa_supplicant is seen",
               wf_scan_state_path (g->state), wf_scan_state_entries (g->state)->len);
  g->nl80211 = wf_nl80211_scan_new (on_nl80211, g, &local);
  if (!g->nl80211)
    g_message ("%s: scans seen through wpa_supplicant only (kind unknown, never aborted)",
               local->message);
  g->service = wf_scan_service_new (bus, g->nl80211 != NULL, on_holds_changed, g, error);
  if (!g->service)
    goto fail;
  g_clear_error (&local);
  g->nm = wf_scan_nm_new (bus, on_nm_changed, g, &local);
  if (!g->nm)
    g_warning ("libnm: %s: global configuration for every device", local->message);
  g->wpas = wf_wpas_new (bus, &callbacks, g);
  wf_scan_guard_reschedule (g);
  return g;

fail:
  wf_scan_guard_free (g);
  return NULL;
}

void
wf_scan_guard_shutdown (WfScanGuard *g)
{
  GHashTableIter it;
  gpointer v;

  if (g->tick)
    g_source_remove (g->tick);
  g->tick = 0;
  g->tick_ms = 0;
  g_hash_table_iter_init (&it, g->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    wf_scan_device_restore (v, "the daemon is stopping");
  /* A stopped guard holds nothing: its last figures would look current. */
  wf_scan_guard_textfile_remove (g);
}

void
wf_scan_guard_free (WfScanGuard *g)
{
  if (!g)
    return;
  if (g->tick)
    g_source_remove (g->tick);
  /* Devices go with their wpa_supplicant interfaces. */
  if (g->wpas)
    {
      GHashTableIter it;
      gpointer v;

      g_hash_table_iter_init (&it, g->devices);
      while (g_hash_table_iter_next (&it, NULL, &v))
        device_free (v);
      g_hash_table_remove_all (g->devices);
      wf_wpas_free (g->wpas);
    }
  wf_scan_nm_free (g->nm);
  wf_scan_service_free (g->service);
  wf_nl80211_scan_free (g->nl80211);
  wf_scan_state_free (g->state);
  g_hash_table_destroy (g->devices);
  wf_scan_link_free (g->link);
  g_free (g->textfile_dir);
  wf_ratelimit_free (g->textfile_said);
  g_object_unref (g->bus);
  g_free (g);
}

gboolean
wf_scan_guard_restore_state (GDBusConnection *bus, const char *state_dir, GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  const char *wpas_owner = NULL;
  WfScanState *state = wf_scan_state_new (state_dir, error);
  gboolean ok;

  if (!state)
    return FALSE;
  if (wf_scan_state_entries (state)->len == 0)
    {
      g_info ("%s: nothing to restore", wf_scan_state_path (state));
      wf_scan_state_free (state);
      return TRUE;
    }
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetNameOwner",
                                       g_variant_new ("(s)", WF_WPAS_NAME), G_VARIANT_TYPE ("(s)"),
                                       G_DBUS_CALL_FLAGS_NONE, 2000, NULL, NULL);
  if (reply)
    g_variant_get (reply, "(&s)", &wpas_owner);
  ok = wf_scan_device_restore_entries (bus, state, wpas_owner);
  if (!ok)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 "%s: some entries could not be checked; kept for the next start",
                 wf_scan_state_path (state));
  wf_scan_state_free (state);
  return ok;
}
