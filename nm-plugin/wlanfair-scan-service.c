/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The D-Bus service of the scan guard: org.wlanfair.ScanGuard1 (holds,
 * device list) and org.wlanfair.ScanGuard1.Device objects whose property
 * values are stored here. The interfaces come from the introspection XML
 * in the tree (compiled in as a GResource), the single source. */
#include "config.h"

#include <string.h>

#include "wlanfair-scan-service.h"

#define IFACE_MAIN "org.wlanfair.ScanGuard1"
#define IFACE_DEVICE "org.wlanfair.ScanGuard1.Device"
#define ERROR_UNKNOWN_COOKIE "org.wlanfair.ScanGuard1.Error.UnknownCookie"
#define ERROR_LIMIT "org.wlanfair.ScanGuard1.Error.LimitExceeded"
#define ERROR_INVALID "org.wlanfair.ScanGuard1.Error.InvalidArgs"
#define MAX_HOLDS_PER_OWNER 64
#define MAX_REASON 256

typedef struct {
  guint   cookie;
  char   *owner;
  char   *reason;
  gint64  since_us;
} Hold;

typedef struct {
  guint watch;
  guint n;
} Owner;

typedef struct {
  char       *path;
  guint       reg;
  GHashTable *props;    /* name -> GVariant */
  GHashTable *pending;  /* name -> GVariant, not yet announced */
} Device;

struct _WfScanService {
  GDBusConnection    *bus;
  GDBusNodeInfo      *node;
  GDBusInterfaceInfo *main_info, *device_info;
  guint               main_reg;
  gboolean            nl80211;
  WfScanHoldsChanged  holds_changed;
  gpointer            user_data;
  GPtrArray          *holds;    /* Hold *, by cookie */
  GHashTable         *owners;   /* unique name -> Owner */
  guint               next_cookie;
  GHashTable         *devices;  /* path -> Device */
  guint               flush_idle;
  gboolean            main_dirty_holds, main_dirty_devices;
};

static void
hold_free (gpointer p)
{
  Hold *h = p;

  g_free (h->owner);
  g_free (h->reason);
  g_free (h);
}

static void
device_free (gpointer p)
{
  Device *d = p;

  g_free (d->path);
  g_hash_table_destroy (d->props);
  g_hash_table_destroy (d->pending);
  g_free (d);
}

char *
wf_scan_service_device_path (int ifindex)
{
  return g_strdup_printf (WF_SCAN_SERVICE_PATH "/Device/%d", ifindex);
}

guint
wf_scan_service_n_holds (WfScanService *s)
{
  return s->holds->len;
}

static GVariant *
holds_variant (WfScanService *s)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ussx)"));
  for (guint k = 0; k < s->holds->len; k++)
    {
      Hold *h = s->holds->pdata[k];

      g_variant_builder_add (&b, "(ussx)", h->cookie, h->owner, h->reason, h->since_us);
    }
  return g_variant_builder_end (&b);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static GVariant *
devices_variant (WfScanService *s)
{
  GVariantBuilder b;
  g_autofree gpointer *paths = g_hash_table_get_keys_as_array (s->devices, NULL);
  guint n = g_hash_table_size (s->devices);

  qsort (paths, n, sizeof (gpointer), compare_paths);
  g_variant_builder_init (&b, G_VARIANT_TYPE ("ao"));
  for (guint k = 0; k < n; k++)
    g_variant_builder_add (&b, "o", paths[k]);
  return g_variant_builder_end (&b);
}

static void
emit_changed (WfScanService *s, const char *path, const char *iface, GVariant *dict)
{
  g_autoptr(GError) error = NULL;

  if (!g_dbus_connection_emit_signal (s->bus, NULL, path, "org.freedesktop.DBus.Properties",
                                      "PropertiesChanged",
                                      g_variant_new ("(s@a{sv}as)", iface, dict, NULL),
                                      &error))
    g_debug ("PropertiesChanged on %s: %s", path, error->message);
}

static gboolean
flush (gpointer user_data)
{
  WfScanService *s = user_data;
  GHashTableIter it, pit;
  gpointer v, name, value;

  s->flush_idle = 0;
  if (s->main_dirty_holds || s->main_dirty_devices)
    {
      GVariantDict d;

      g_variant_dict_init (&d, NULL);
      if (s->main_dirty_holds)
        g_variant_dict_insert_value (&d, "Holds", holds_variant (s));
      if (s->main_dirty_devices)
        g_variant_dict_insert_value (&d, "Devices", devices_variant (s));
      s->main_dirty_holds = s->main_dirty_devices = FALSE;
      emit_changed (s, WF_SCAN_SERVICE_PATH, IFACE_MAIN, g_variant_dict_end (&d));
    }
  g_hash_table_iter_init (&it, s->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Device *d = v;
      GVariantBuilder b;

      if (g_hash_table_size (d->pending) == 0)
        continue;
      g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
      g_hash_table_iter_init (&pit, d->pending);
      while (g_hash_table_iter_next (&pit, &name, &value))
        g_variant_builder_add (&b, "{sv}", name, value);
      g_hash_table_remove_all (d->pending);
      emit_changed (s, d->path, IFACE_DEVICE, g_variant_builder_end (&b));
    }
  return G_SOURCE_REMOVE;
}

static void
queue_flush (WfScanService *s)
{
  if (!s->flush_idle)
    s->flush_idle = g_idle_add (flush, s);
}

/* Holds. */

static void remove_owner_holds (WfScanService *s, const char *owner);

static void
on_owner_vanished (GDBusConnection *bus, const char *name, gpointer user_data)
{
  remove_owner_holds (user_data, name);
}

static void
holds_changed (WfScanService *s)
{
  s->main_dirty_holds = TRUE;
  queue_flush (s);
  if (s->holds_changed)
    s->holds_changed (s->holds->len, s->user_data);
}

static void
owner_unref (WfScanService *s, const char *owner)
{
  Owner *o = g_hash_table_lookup (s->owners, owner);

  if (o && --o->n == 0)
    {
      g_bus_unwatch_name (o->watch);
      g_hash_table_remove (s->owners, owner);
    }
}

static void
remove_owner_holds (WfScanService *s, const char *owner)
{
  guint removed = 0;

  for (guint k = s->holds->len; k-- > 0;)
    {
      Hold *h = s->holds->pdata[k];

      if (g_str_equal (h->owner, owner))
        {
          g_message ("hold %u (\"%s\") released: its owner %s left the bus",
                     h->cookie, h->reason, owner);
          g_ptr_array_remove_index (s->holds, k);
          removed++;
        }
    }
  if (g_hash_table_contains (s->owners, owner))
    {
      Owner *o = g_hash_table_lookup (s->owners, owner);

      g_bus_unwatch_name (o->watch);
      g_hash_table_remove (s->owners, owner);
    }
  if (removed)
    holds_changed (s);
}

static guint32
caller_pid (WfScanService *s, const char *sender)
{
  g_autoptr(GVariant) r = g_dbus_connection_call_sync (s->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                       "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                                       g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(u)"),
                                                       G_DBUS_CALL_FLAGS_NONE, 500, NULL, NULL);
  guint32 pid = 0;

  if (r)
    g_variant_get (r, "(u)", &pid);
  return pid;
}

static void
handle_hold (WfScanService *s, GDBusMethodInvocation *inv, GVariant *params)
{
  const char *sender = g_dbus_method_invocation_get_sender (inv);
  const char *reason;
  Owner *o;
  Hold *h;

  g_variant_get (params, "(&s)", &reason);
  if (!sender)
    sender = "(peer)";
  if (strlen (reason) > MAX_REASON)
    {
      g_dbus_method_invocation_return_dbus_error (inv, ERROR_INVALID, "reason longer than 256 bytes");
      return;
    }
  o = g_hash_table_lookup (s->owners, sender);
  if (o && o->n >= MAX_HOLDS_PER_OWNER)
    {
      g_dbus_method_invocation_return_dbus_error (inv, ERROR_LIMIT, "at most 64 holds per caller");
      return;
    }
  if (!o)
    {
      o = g_new0 (Owner, 1);
      g_hash_table_insert (s->owners, g_strdup (sender), o);
      /* Fires at once if the caller already left: no stale hold. */
      o->watch = g_bus_watch_name_on_connection (s->bus, sender, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                 NULL, on_owner_vanished, s, NULL);
    }
  o->n++;
  h = g_new0 (Hold, 1);
  do
    h->cookie = ++s->next_cookie;
  while (h->cookie == 0);
  h->owner = g_strdup (sender);
  h->reason = g_strdup (reason);
  h->since_us = g_get_real_time ();
  g_ptr_array_add (s->holds, h);
  g_message ("hold %u taken by %s (pid %u): \"%s\"; %u hold(s)", h->cookie, sender,
             caller_pid (s, sender), reason, s->holds->len);
  g_dbus_method_invocation_return_value (inv, g_variant_new ("(u)", h->cookie));
  holds_changed (s);
}

static void
handle_release (WfScanService *s, GDBusMethodInvocation *inv, GVariant *params)
{
  const char *sender = g_dbus_method_invocation_get_sender (inv);
  guint32 cookie;

  g_variant_get (params, "(u)", &cookie);
  for (guint k = 0; k < s->holds->len; k++)
    {
      Hold *h = s->holds->pdata[k];

      if (h->cookie == cookie && g_strcmp0 (h->owner, sender ? sender : "(peer)") == 0)
        {
          g_autofree char *owner = g_strdup (h->owner);

          g_message ("hold %u (\"%s\") released by %s", cookie, h->reason, owner);
          g_ptr_array_remove_index (s->holds, k);
          owner_unref (s, owner);
          g_dbus_method_invocation_return_value (inv, NULL);
          holds_changed (s);
          return;
        }
    }
  g_dbus_method_invocation_return_dbus_error (inv, ERROR_UNKNOWN_COOKIE,
                                              "no hold with this cookie belongs to the caller");
}

static void
main_method (GDBusConnection *bus, const char *sender, const char *path, const char *iface,
             const char *method, GVariant *params, GDBusMethodInvocation *inv, gpointer user_data)
{
  if (g_str_equal (method, "Hold"))
    handle_hold (user_data, inv, params);
  else if (g_str_equal (method, "Release"))
    handle_release (user_data, inv, params);
  else
    g_dbus_method_invocation_return_error (inv, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                           "no method %s", method);
}

static GVariant *
main_get (GDBusConnection *bus, const char *sender, const char *path, const char *iface,
          const char *prop, GError **error, gpointer user_data)
{
  WfScanService *s = user_data;

  if (g_str_equal (prop, "Holds"))
    return holds_variant (s);
  if (g_str_equal (prop, "Devices"))
    return devices_variant (s);
  if (g_str_equal (prop, "Version"))
    return g_variant_new_string (PACKAGE_VERSION);
  if (g_str_equal (prop, "Nl80211"))
    return g_variant_new_boolean (s->nl80211);
  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", prop);
  return NULL;
}

static const GDBusInterfaceVTable main_vtable = { main_method, main_get, NULL, { 0 } };

/* Devices. */

static GVariant *
device_get (GDBusConnection *bus, const char *sender, const char *path, const char *iface,
            const char *prop, GError **error, gpointer user_data)
{
  WfScanService *s = user_data;
  Device *d = g_hash_table_lookup (s->devices, path);
  GVariant *v = d ? g_hash_table_lookup (d->props, prop) : NULL;

  if (!v)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", prop);
      return NULL;
    }
  return g_variant_ref (v);
}

static const GDBusInterfaceVTable device_vtable = { NULL, device_get, NULL, { 0 } };

/* The value a property has before the guard sets it. */
static GVariant *
default_value (const char *signature)
{
  const GVariantType *t = G_VARIANT_TYPE (signature);

  if (g_variant_type_is_array (t))
    return g_variant_new_array (g_variant_type_element (t), NULL, 0);
  switch (signature[0])
    {
    case 's': return g_variant_new_string ("");
    case 'o': return g_variant_new_object_path ("/");
    case 'b': return g_variant_new_boolean (FALSE);
    case 'x': return g_variant_new_int64 (0);
    case 'i': return g_variant_new_int32 (0);
    case 'u': return g_variant_new_uint32 (0);
    case 'd': return g_variant_new_double (0);
    default: g_assert_not_reached ();
    }
}

gboolean
wf_scan_service_device_add (WfScanService *s, const char *path, GError **error)
{
  Device *d;

  if (g_hash_table_contains (s->devices, path))
    return TRUE;
  d = g_new0 (Device, 1);
  d->path = g_strdup (path);
  d->props = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_variant_unref);
  d->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_variant_unref);
  for (guint k = 0; s->device_info->properties[k]; k++)
    {
      GDBusPropertyInfo *p = s->device_info->properties[k];

      g_hash_table_insert (d->props, p->name, g_variant_ref_sink (default_value (p->signature)));
    }
  d->reg = g_dbus_connection_register_object (s->bus, path, s->device_info, &device_vtable,
                                              s, NULL, error);
  if (!d->reg)
    {
      device_free (d);
      return FALSE;
    }
  g_hash_table_insert (s->devices, d->path, d);
  s->main_dirty_devices = TRUE;
  queue_flush (s);
  return TRUE;
}

void
wf_scan_service_device_remove (WfScanService *s, const char *path)
{
  Device *d = g_hash_table_lookup (s->devices, path);

  if (!d)
    return;
  g_dbus_connection_unregister_object (s->bus, d->reg);
  g_hash_table_remove (s->devices, path);
  s->main_dirty_devices = TRUE;
  queue_flush (s);
}

void
wf_scan_service_device_set (WfScanService *s, const char *path, const char *prop, GVariant *value)
{
  Device *d = g_hash_table_lookup (s->devices, path);
  GDBusPropertyInfo *info = g_dbus_interface_info_lookup_property (s->device_info, prop);
  GVariant *old;

  g_variant_ref_sink (value);
  g_return_if_fail (info != NULL);
  g_return_if_fail (g_variant_is_of_type (value, G_VARIANT_TYPE (info->signature)));
  if (!d)
    {
      g_variant_unref (value);
      return;
    }
  old = g_hash_table_lookup (d->props, prop);
  if (old && g_variant_equal (old, value))
    {
      g_variant_unref (value);
      return;
    }
  /* Keys are the interned names of the introspection data. */
  g_hash_table_insert (d->props, info->name, g_variant_ref (value));
  g_hash_table_insert (d->pending, info->name, value);
  queue_flush (s);
}

WfScanService *
wf_scan_service_new (GDBusConnection *bus, gboolean nl80211, WfScanHoldsChanged cb,
                     gpointer user_data, GError **error)
{
  g_autoptr(GBytes) xml = NULL;
  WfScanService *s;

  xml = g_resources_lookup_data ("/org/wlanfair/scand/org.wlanfair.ScanGuard1.xml",
                                 G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (!xml)
    return NULL;
  s = g_new0 (WfScanService, 1);
  s->node = g_dbus_node_info_new_for_xml (g_bytes_get_data (xml, NULL), error);
  if (!s->node)
    {
      g_free (s);
      return NULL;
    }
  s->bus = g_object_ref (bus);
  s->main_info = g_dbus_node_info_lookup_interface (s->node, IFACE_MAIN);
  s->device_info = g_dbus_node_info_lookup_interface (s->node, IFACE_DEVICE);
  g_assert (s->main_info && s->device_info);
  g_dbus_interface_info_cache_build (s->device_info);
  s->nl80211 = nl80211;
  s->holds_changed = cb;
  s->user_data = user_data;
  s->holds = g_ptr_array_new_with_free_func (hold_free);
  s->owners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->devices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, device_free);
  s->main_reg = g_dbus_connection_register_object (bus, WF_SCAN_SERVICE_PATH, s->main_info,
                                                   &main_vtable, s, NULL, error);
  if (!s->main_reg)
    {
      wf_scan_service_free (s);
      return NULL;
    }
  return s;
}

void
wf_scan_service_free (WfScanService *s)
{
  GHashTableIter it;
  gpointer v;

  if (!s)
    return;
  if (s->flush_idle)
    g_source_remove (s->flush_idle);
  g_hash_table_iter_init (&it, s->devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_dbus_connection_unregister_object (s->bus, ((Device *) v)->reg);
  g_hash_table_destroy (s->devices);
  g_hash_table_iter_init (&it, s->owners);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_bus_unwatch_name (((Owner *) v)->watch);
  g_hash_table_destroy (s->owners);
  g_ptr_array_free (s->holds, TRUE);
  if (s->main_reg)
    g_dbus_connection_unregister_object (s->bus, s->main_reg);
  g_dbus_interface_info_cache_release (s->device_info);
  g_dbus_node_info_unref (s->node);
  g_object_unref (s->bus);
  g_free (s);
}
