/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bgscan itself: read the current network's value, record it in the state
 * file, write "" (wf_wpas_write_bgscan: the write and the read that tells
 * what became of it), and put the saved value back only where our "" is
 * still there. */
#include "config.h"

#include <string.h>

#include "wlanfair-scan-device.h"

void
wf_scan_device_clear_suppression (WfScanDevice *d)
{
  g_autoptr(GError) error = NULL;

  if (d->suppressed_network && !wf_scan_state_remove (d->guard->state, d->suppressed_network, &error))
    g_warning ("%s: state file: %s", d->ifname, error->message);
  d->suppressing = FALSE;
  d->unconfirmed = FALSE;
  g_clear_pointer (&d->suppressed_network, g_free);
  g_clear_pointer (&d->saved, g_free);
}

/* Puts the saved value back if the network still has our "". Returns
 * FALSE while that is not known to be done (the entry stays, and the next
 * try reads first: a write whose answer never came shows there). */
gboolean
wf_scan_device_restore_network (GDBusConnection *bus, WfWpas *wpas, const char *wpas_owner,
                                const char *ifname, const char *network,
                                const char *saved, const char *why)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_autofree char *now = NULL;
  guint gen = wpas ? wf_wpas_network_generation (wpas) : 0;

  if (!wf_wpas_get_bgscan (bus, wpas_owner, network, &value, &error))
    {
      if (wf_wpas_error_is_gone (error))
        {
          g_message ("%s: network %s is gone (%s): nothing to restore", ifname, network, error->message);
          return TRUE;
        }
      g_warning ("%s: cannot read bgscan of %s to restore it: %s", ifname, network, error->message);
      return FALSE;
    }
  /* An earlier write whose answer never came may have landed after all. */
  if (g_strcmp0 (value, saved) == 0)
    {
      g_message ("%s: bgscan of %s already reads \"%s\": restored (%s)", ifname, network, saved, why);
      return TRUE;
    }
  if (g_strcmp0 (value, "") != 0)
    {
      g_message ("%s: bgscan of %s is now \"%s\", not our \"\": someone else changed it, left alone",
                 ifname, network, value ? value : "(none)");
      return TRUE;
    }
  /* A network removed or added since the read: the path may now be a
   * new network (ids are reused); look again later. */
  if (wpas && wf_wpas_network_generation (wpas) != gen)
    {
      g_message ("%s: networks changed while checking %s: restore postponed", ifname, network);
      return FALSE;
    }
  switch (wf_wpas_write_bgscan (bus, wpas_owner, network, saved, &now, &error))
    {
    case WF_WPAS_WRITE_DONE:
      break;
    case WF_WPAS_WRITE_GONE:
      g_message ("%s: network %s is gone (%s): nothing to restore", ifname, network, error->message);
      return TRUE;
    case WF_WPAS_WRITE_NOT_APPLIED:
      if (g_strcmp0 (now, "") != 0)
        {
          g_message ("%s: bgscan of %s is now \"%s\", not our \"\": someone else changed it, left alone",
                     ifname, network, now ? now : "(none)");
          return TRUE;
        }
      g_warning ("%s: cannot restore bgscan \"%s\" on %s: %s", ifname, saved, network, error->message);
      return FALSE;
    case WF_WPAS_WRITE_UNKNOWN:
    default:
      g_warning ("%s: restore of bgscan \"%s\" on %s not confirmed (%s): the entry stays until a read "
                 "shows it", ifname, saved, network, error->message);
      return FALSE;
    }
  if (wpas && wf_wpas_network_generation (wpas) != gen)
    g_warning ("%s: a network was removed or added while bgscan \"%s\" was written to %s: if "
               "NetworkManager re-created it at that path, the new network has this value "
               "instead of its own", ifname, saved, network);
  g_message ("%s: bgscan restored on %s: \"\" -> \"%s\" (%s)", ifname, network, saved, why);
  return TRUE;
}

void
wf_scan_device_restore (WfScanDevice *d, const char *why)
{
  if (!d->suppressing)
    return;
  if (!wf_scan_device_restore_network (d->guard->bus, d->guard->wpas, wf_scan_device_owner (d), d->ifname,
                                       d->suppressed_network, d->saved, why))
    {
      /* wpa_supplicant did not answer: keep the entry, try again later. */
      d->retry_after_us = g_get_monotonic_time () + RETRY_US;
      return;
    }
  if (d->network && g_str_equal (d->network, d->suppressed_network))
    {
      g_free (d->bgscan);
      d->bgscan = g_strdup (d->saved);
    }
  wf_scan_device_clear_suppression (d);
}

void
wf_scan_device_set_error (WfScanDevice *d, const char *message)
{
  g_free (d->error);
  d->error = g_strdup (message);
  d->retry_after_us = g_get_monotonic_time () + RETRY_US;
}

void
wf_scan_device_suppress (WfScanDevice *d, const char *why)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_autofree char *now = NULL;
  GDBusConnection *bus = d->guard->bus;
  guint gen = wf_wpas_network_generation (d->guard->wpas);
  WfWpasWrite outcome;

  /* Fresh read: the value to save is what is there now. */
  if (!wf_wpas_get_bgscan (bus, wf_scan_device_owner (d), d->network, &value, &error))
    {
      g_warning ("%s: cannot read bgscan of %s: %s", d->ifname, d->network, error->message);
      wf_scan_device_set_error (d, error->message);
      return;
    }
  g_free (d->bgscan);
  d->bgscan = g_strdup (value);
  if (!value || !*value)
    {
      g_free (d->original);
      d->original = g_strdup (value);
      return;   /* nothing to suppress; evaluate() will say no-bgscan */
    }
  if (wf_wpas_network_generation (d->guard->wpas) != gen)
    {
      /* A network came or went since the read: decide again next time. */
      g_message ("%s: networks changed while reading %s: suppression postponed", d->ifname, d->network);
      return;
    }
  if (!wf_scan_state_add (d->guard->state, d->network, wf_scan_device_owner (d), d->ifname,
                          value, &error))
    {
      g_warning ("%s: cannot record bgscan \"%s\" in the state file, not changing it: %s",
                 d->ifname, value, error->message);
      wf_scan_device_set_error (d, error->message);
      return;
    }
  outcome = wf_wpas_write_bgscan (bus, wf_scan_device_owner (d), d->network, "", &now, &error);
  if (outcome == WF_WPAS_WRITE_GONE || outcome == WF_WPAS_WRITE_NOT_APPLIED)
    {
      g_autoptr(GError) e2 = NULL;

      /* A read after the write shows it did not land: nothing to keep. */
      g_warning ("%s: cannot set bgscan of %s to \"\": %s", d->ifname, d->network, error->message);
      wf_scan_device_set_error (d, error->message);
      if (!wf_scan_state_remove (d->guard->state, d->network, &e2))
        g_warning ("%s: state file: %s", d->ifname, e2->message);
      return;
    }
  d->suppressing = TRUE;
  d->suppressed_network = g_strdup (d->network);
  d->saved = g_strdup (value);
  g_clear_pointer (&d->error, g_free);
  g_free (d->bgscan);
  d->bgscan = g_strdup ("");
  if (outcome == WF_WPAS_WRITE_UNKNOWN)
    {
      /* It may still land: held as suppressed, the saved value recorded,
       * until a read says which (wf_scan_device_confirm, or the restore's
       * own first read). */
      d->unconfirmed = TRUE;
      d->retry_after_us = g_get_monotonic_time () + RETRY_US;
      g_warning ("%s: bgscan \"\" on %s not confirmed (%s): \"%s\" stays recorded until a read "
                 "shows what wpa_supplicant did", d->ifname, d->network, error->message, value);
      return;
    }
  if (wf_wpas_network_generation (d->guard->wpas) != gen)
    g_warning ("%s: a network was removed or added while bgscan of %s was set to \"\": if "
               "NetworkManager re-created it at that path, the saved value \"%s\" is the previous "
               "network's", d->ifname, d->network, value);
  g_message ("%s: bgscan suppressed on %s: \"%s\" -> \"\" (%s)", d->ifname, d->network, value, why);
}

/* A suppression whose write was not confirmed: one read tells. */
void
wf_scan_device_confirm (WfScanDevice *d)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  if (!d->suppressing || !d->unconfirmed)
    return;
  if (!wf_wpas_get_bgscan (d->guard->bus, wf_scan_device_owner (d), d->suppressed_network, &value, &error))
    {
      if (wf_wpas_error_is_gone (error))
        {
          g_message ("%s: network %s is gone (%s): nothing to restore", d->ifname,
                     d->suppressed_network, error->message);
          wf_scan_device_clear_suppression (d);
          return;
        }
      g_warning ("%s: bgscan of %s still unknown: %s", d->ifname, d->suppressed_network, error->message);
      d->retry_after_us = g_get_monotonic_time () + RETRY_US;
      return;
    }
  if (g_strcmp0 (value, "") == 0)
    {
      d->unconfirmed = FALSE;
      g_message ("%s: bgscan suppressed on %s: \"%s\" -> \"\" (wpa_supplicant answered late)",
                 d->ifname, d->suppressed_network, d->saved);
      return;
    }
  if (g_strcmp0 (value, d->saved) == 0)
    g_message ("%s: bgscan of %s still reads \"%s\": our \"\" did not land", d->ifname,
               d->suppressed_network, d->saved);
  else
    g_message ("%s: bgscan of %s is \"%s\", not our \"\": someone else changed it, left alone",
               d->ifname, d->suppressed_network, value ? value : "(none)");
  if (d->network && g_str_equal (d->network, d->suppressed_network))
    {
      g_free (d->bgscan);
      d->bgscan = g_strdup (value);
    }
  wf_scan_device_clear_suppression (d);
}

/* Reads the bgscan of the (new) current network. */
void
wf_scan_device_read_network (WfScanDevice *d)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  g_clear_pointer (&d->bgscan, g_free);
  g_clear_pointer (&d->original, g_free);
  if (!d->network)
    return;
  if (!wf_wpas_get_bgscan (d->guard->bus, wf_scan_device_owner (d), d->network, &value, &error))
    {
      g_warning ("%s: cannot read bgscan of %s: %s", d->ifname, d->network, error->message);
      return;
    }
  d->bgscan = g_strdup (value);
  if (d->suppressing && g_str_equal (d->suppressed_network, d->network))
    {
      if (g_strcmp0 (value, "") == 0)
        {
          d->unconfirmed = FALSE;   /* a read shows it landed */
          d->original = g_strdup (d->saved);
          return;
        }
      /* Our "" was replaced: the network was re-created at the same
       * path, or someone else wrote bgscan. Not ours any more. */
      if (d->unconfirmed && g_strcmp0 (value, d->saved) == 0)
        g_message ("%s: bgscan of %s still reads \"%s\": our \"\" did not land", d->ifname,
                   d->network, d->saved);
      else
        g_message ("%s: bgscan of %s is \"%s\" again (re-created or changed by someone else): "
                   "nothing to restore", d->ifname, d->network, value ? value : "(none)");
      wf_scan_device_clear_suppression (d);
    }
  d->original = g_strdup (value);
  g_message ("%s: current network %s, bgscan \"%s\"%s", d->ifname, d->network,
          value ? value : "", value ? "" : " (none of its own)");
}

/* Follows CurrentNetwork; a suppression of the previous network is undone
 * (if it still exists) before the new one is considered. */
void
wf_scan_device_follow_network (WfScanDevice *d)
{
  const char *now = d->iface ? wf_wpas_iface_current_network (d->iface) : NULL;

  if (g_strcmp0 (now, d->network) == 0)
    return;
  g_message ("%s: CurrentNetwork %s -> %s", d->ifname, d->network ? d->network : "none",
             now ? now : "none");
  /* Another network: the previous one is put back now. None: the policy's
   * link-down grace decides (the network may be on its way out, and its
   * path may come back as a new network). */
  if (d->suppressing && now && !g_str_equal (now, d->suppressed_network))
    wf_scan_device_restore (d, "no longer the current network");
  g_free (d->network);
  d->network = g_strdup (now);
  wf_scan_device_read_network (d);
}

/* The state a previous run left: restore what the same wpa_supplicant
 * still has, drop the rest. */
gboolean
wf_scan_device_restore_entries (GDBusConnection *bus, WfScanState *state, const char *wpas_owner)
{
  g_autoptr(GPtrArray) done = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *entries = wf_scan_state_entries (state);
  gboolean ok = TRUE;

  for (guint k = 0; k < entries->len; k++)
    {
      WfScanStateEntry *e = entries->pdata[k];

      if (g_strcmp0 (e->owner, wpas_owner) != 0)
        {
          g_message ("%s: bgscan of %s was changed under wpa_supplicant %s, now %s: "
                     "that process and its networks are gone, nothing to restore",
                     e->ifname, e->network, e->owner, wpas_owner ? wpas_owner : "not running");
          g_ptr_array_add (done, g_strdup (e->network));
        }
      else if (wf_scan_device_restore_network (bus, NULL, wpas_owner, e->ifname, e->network,
                                               e->saved, "left by a previous run"))
        g_ptr_array_add (done, g_strdup (e->network));
      else
        ok = FALSE;
    }
  for (guint k = 0; k < done->len; k++)
    {
      g_autoptr(GError) error = NULL;

      if (!wf_scan_state_remove (state, done->pdata[k], &error))
        g_warning ("state file: %s", error->message);
    }
  return ok;
}
