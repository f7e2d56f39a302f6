/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NetworkManager through libnm: the active profile of an interface and its
 * user.data overrides. Any change that may matter (NM start/stop, devices,
 * active connections, a profile updated) calls one "changed" callback,
 * coalesced in an idle; the caller re-reads with wf_scan_nm_lookup(). */
#include "config.h"

#include <NetworkManager.h>

#include "wlanfair-scan-nm.h"

struct _WfScanNm {
  NMClient        *client;
  WfScanNmChanged  changed;
  gpointer         user_data;
  guint            idle;
  GPtrArray       *watched;    /* GObjects we connected to */
};

static gboolean
emit_changed (gpointer user_data)
{
  WfScanNm *nm = user_data;

  nm->idle = 0;
  nm->changed (nm->user_data);
  return G_SOURCE_REMOVE;
}

static void
queue_changed (WfScanNm *nm)
{
  if (!nm->idle)
    nm->idle = g_idle_add (emit_changed, nm);
}

static void
on_anything (GObject *obj, GParamSpec *pspec, gpointer user_data)
{
  queue_changed (user_data);
}

static void
on_connection_changed (NMConnection *connection, gpointer user_data)
{
  queue_changed (user_data);
}

static void
watch_connection (WfScanNm *nm, NMRemoteConnection *rc)
{
  if (g_ptr_array_find (nm->watched, rc, NULL))
    return;
  g_ptr_array_add (nm->watched, g_object_ref (rc));
  g_signal_connect (rc, "changed", G_CALLBACK (on_connection_changed), nm);
}

static void
watch_device (WfScanNm *nm, NMDevice *dev)
{
  if (g_ptr_array_find (nm->watched, dev, NULL))
    return;
  g_ptr_array_add (nm->watched, g_object_ref (dev));
  g_signal_connect (dev, "notify::" NM_DEVICE_ACTIVE_CONNECTION, G_CALLBACK (on_anything), nm);
  g_signal_connect (dev, "notify::" NM_DEVICE_STATE, G_CALLBACK (on_anything), nm);
}

static void
on_device_added (NMClient *client, NMDevice *dev, gpointer user_data)
{
  watch_device (user_data, dev);
  queue_changed (user_data);
}

static void
on_connection_added (NMClient *client, NMRemoteConnection *rc, gpointer user_data)
{
  watch_connection (user_data, rc);
  queue_changed (user_data);
}

static void
on_removed (NMClient *client, GObject *obj, gpointer user_data)
{
  WfScanNm *nm = user_data;
  guint idx;

  if (g_ptr_array_find (nm->watched, obj, &idx))
    {
      g_signal_handlers_disconnect_by_data (obj, nm);
      g_ptr_array_remove_index_fast (nm->watched, idx);
    }
  queue_changed (nm);
}

static void
unwatch (gpointer obj, gpointer nm)
{
  g_signal_handlers_disconnect_by_data (obj, nm);
  g_object_unref (obj);
}

WfScanNm *
wf_scan_nm_new (GDBusConnection *bus, WfScanNmChanged changed, gpointer user_data,
                GError **error)
{
  WfScanNm *nm = g_new0 (WfScanNm, 1);
  const GPtrArray *list;

  /* The client follows NetworkManager on this bus, even when it is not
   * running yet; "dbus-connection" lets tests use a private bus. */
  nm->client = g_initable_new (NM_TYPE_CLIENT, NULL, error,
                               NM_CLIENT_DBUS_CONNECTION, bus, NULL);
  if (!nm->client)
    {
      g_free (nm);
      return NULL;
    }
  nm->changed = changed;
  nm->user_data = user_data;
  nm->watched = g_ptr_array_new ();
  g_signal_connect (nm->client, "notify::" NM_CLIENT_NM_RUNNING, G_CALLBACK (on_anything), nm);
  g_signal_connect (nm->client, NM_CLIENT_DEVICE_ADDED, G_CALLBACK (on_device_added), nm);
  g_signal_connect (nm->client, NM_CLIENT_DEVICE_REMOVED, G_CALLBACK (on_removed), nm);
  g_signal_connect (nm->client, NM_CLIENT_CONNECTION_ADDED, G_CALLBACK (on_connection_added), nm);
  g_signal_connect (nm->client, NM_CLIENT_CONNECTION_REMOVED, G_CALLBACK (on_removed), nm);
  g_signal_connect (nm->client, "notify::" NM_CLIENT_ACTIVE_CONNECTIONS, G_CALLBACK (on_anything), nm);
  list = nm_client_get_devices (nm->client);
  for (guint k = 0; list && k < list->len; k++)
    watch_device (nm, list->pdata[k]);
  list = nm_client_get_connections (nm->client);
  for (guint k = 0; list && k < list->len; k++)
    watch_connection (nm, list->pdata[k]);
  g_message ("NetworkManager %s", nm_client_get_nm_running (nm->client)
          ? nm_client_get_version (nm->client) ? nm_client_get_version (nm->client) : "running"
          : "is not running: global configuration for every device");
  return nm;
}

void
wf_scan_nm_free (WfScanNm *nm)
{
  if (!nm)
    return;
  if (nm->idle)
    g_source_remove (nm->idle);
  g_ptr_array_foreach (nm->watched, unwatch, nm);
  g_ptr_array_free (nm->watched, TRUE);
  g_signal_handlers_disconnect_by_data (nm->client, nm);
  g_object_unref (nm->client);
  g_free (nm);
}

gboolean
wf_scan_nm_lookup (WfScanNm *nm, const char *ifname, char **connection_id,
                   GHashTable **user_data)
{
  NMDevice *dev;
  NMActiveConnection *ac;
  NMRemoteConnection *rc;
  NMSettingUser *s_user;
  GHashTable *data;

  *connection_id = NULL;
  *user_data = NULL;
  if (!nm_client_get_nm_running (nm->client))
    return FALSE;
  dev = nm_client_get_device_by_iface (nm->client, ifname);
  if (!dev || !(ac = nm_device_get_active_connection (dev)))
    return FALSE;
  rc = nm_active_connection_get_connection (ac);
  watch_device (nm, dev);
  data = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (rc)
    {
      watch_connection (nm, rc);
      s_user = NM_SETTING_USER (nm_connection_get_setting (NM_CONNECTION (rc), NM_TYPE_SETTING_USER));
      if (s_user)
        {
          guint n = 0;
          const char * const *keys = nm_setting_user_get_keys (s_user, &n);

          for (guint k = 0; k < n; k++)
            g_hash_table_insert (data, g_strdup (keys[k]),
                                 g_strdup (nm_setting_user_get_data (s_user, keys[k])));
        }
    }
  *connection_id = g_strdup (rc ? nm_connection_get_id (NM_CONNECTION (rc)) : nm_active_connection_get_id (ac));
  *user_data = data;
  return TRUE;
}
