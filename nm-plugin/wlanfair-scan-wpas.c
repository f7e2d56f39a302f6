/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wpa_supplicant's D-Bus API, as much as the scan guard needs: the list of
 * interfaces, each interface's State/CurrentNetwork/CurrentBSS/Scanning,
 * NetworkAdded/Removed, and the bgscan of a network (read, write). */
#include "config.h"

#include <string.h>

#include "wlanfair-scan-wpas.h"

#define WPAS_PATH "/fi/w1/wpa_supplicant1"
#define WPAS_IFACE "fi.w1.wpa_supplicant1"
#define WPAS_IFACE_INTERFACE "fi.w1.wpa_supplicant1.Interface"
#define WPAS_IFACE_NETWORK "fi.w1.wpa_supplicant1.Network"
#define WPAS_IFACE_BSS "fi.w1.wpa_supplicant1.BSS"
#define CALL_TIMEOUT_MS 2000

struct _WfWpasIface {
  WfWpas     *wpas;
  char       *path;
  GDBusProxy *proxy;
  char       *ifname;
  char       *state;
  char       *network;   /* NULL = "/" */
  char       *bss;
  gboolean    scanning;
  gpointer    data;
};

struct _WfWpas {
  GDBusConnection *bus;
  WfWpasCallbacks  cb;
  gpointer         user_data;
  guint            watch;
  guint            sub_added, sub_removed;
  char            *owner;
  GHashTable      *ifaces;   /* path -> WfWpasIface */
  guint            filter;
  gint             generation;  /* atomic: bumped from the GDBus worker thread */
};

guint
wf_wpas_network_generation (WfWpas *w)
{
  return (guint) g_atomic_int_get (&w->generation);
}

/* Runs in GDBus's worker thread for every incoming message, in order. */
static GDBusMessage *
count_network_signals (GDBusConnection *bus, GDBusMessage *msg, gboolean incoming,
                       gpointer user_data)
{
  WfWpas *w = user_data;
  const char *member;

  if (incoming && g_dbus_message_get_message_type (msg) == G_DBUS_MESSAGE_TYPE_SIGNAL
      && g_strcmp0 (g_dbus_message_get_interface (msg), WPAS_IFACE_INTERFACE) == 0
      && (member = g_dbus_message_get_member (msg))
      && (g_str_equal (member, "NetworkAdded") || g_str_equal (member, "NetworkRemoved")))
    g_atomic_int_inc (&w->generation);
  return msg;
}

const char *wf_wpas_owner (WfWpas *w) { return w->owner; }
GDBusConnection *wf_wpas_bus (WfWpas *w) { return w->bus; }
const char *wf_wpas_iface_path (WfWpasIface *i) { return i->path; }
const char *wf_wpas_iface_ifname (WfWpasIface *i) { return i->ifname ? i->ifname : ""; }
const char *wf_wpas_iface_state (WfWpasIface *i) { return i->state ? i->state : ""; }
const char *wf_wpas_iface_current_network (WfWpasIface *i) { return i->network; }
const char *wf_wpas_iface_current_bss (WfWpasIface *i) { return i->bss; }
gboolean wf_wpas_iface_scanning (WfWpasIface *i) { return i->scanning; }
void wf_wpas_iface_set_data (WfWpasIface *i, gpointer data) { i->data = data; }
gpointer wf_wpas_iface_get_data (WfWpasIface *i) { return i->data; }

/* Replaces *slot with the string or path in v; TRUE when it changed. */
static gboolean
take_string (char **slot, GVariant *v, gboolean path)
{
  const char *s = NULL;

  if (v && (g_variant_is_of_type (v, G_VARIANT_TYPE_STRING)
            || g_variant_is_of_type (v, G_VARIANT_TYPE_OBJECT_PATH)))
    s = g_variant_get_string (v, NULL);
  if (path && s && g_str_equal (s, "/"))
    s = NULL;
  if (g_strcmp0 (*slot, s) == 0)
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (s);
  return TRUE;
}

static WfWpasChange
refresh (WfWpasIface *i)
{
  WfWpasChange what = 0;
  g_autoptr(GVariant) ifname = g_dbus_proxy_get_cached_property (i->proxy, "Ifname");
  g_autoptr(GVariant) state = g_dbus_proxy_get_cached_property (i->proxy, "State");
  g_autoptr(GVariant) net = g_dbus_proxy_get_cached_property (i->proxy, "CurrentNetwork");
  g_autoptr(GVariant) bss = g_dbus_proxy_get_cached_property (i->proxy, "CurrentBSS");
  g_autoptr(GVariant) scanning = g_dbus_proxy_get_cached_property (i->proxy, "Scanning");
  gboolean sc;

  take_string (&i->ifname, ifname, FALSE);
  if (take_string (&i->state, state, FALSE))
    what |= WF_WPAS_CHANGED_STATE;
  if (take_string (&i->network, net, TRUE))
    what |= WF_WPAS_CHANGED_NETWORK;
  if (take_string (&i->bss, bss, TRUE))
    what |= WF_WPAS_CHANGED_BSS;
  sc = scanning && g_variant_is_of_type (scanning, G_VARIANT_TYPE_BOOLEAN)
       && g_variant_get_boolean (scanning);
  if (sc != i->scanning)
    {
      i->scanning = sc;
      what |= WF_WPAS_CHANGED_SCANNING;
    }
  return what;
}

WfWpasChange
wf_wpas_iface_reload (WfWpasIface *i)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) props = NULL;
  GVariantIter it;
  const char *name;
  GVariant *value;

  reply = g_dbus_connection_call_sync (i->wpas->bus, WF_WPAS_NAME, i->path,
                                       "org.freedesktop.DBus.Properties", "GetAll",
                                       g_variant_new ("(s)", WPAS_IFACE_INTERFACE),
                                       G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE,
                                       2000, NULL, &error);
  if (reply == NULL)
    {
      g_warning ("wpa_supplicant interface %s: re-reading its properties: %s",
                 i->path, error->message);
      return 0;
    }
  props = g_variant_get_child_value (reply, 0);
  g_variant_iter_init (&it, props);
  while (g_variant_iter_next (&it, "{&sv}", &name, &value))
    {
      g_dbus_proxy_set_cached_property (i->proxy, name, value);
      g_variant_unref (value);
    }
  return refresh (i);
}

static void
on_props_changed (GDBusProxy *proxy, GVariant *changed, GStrv invalidated, gpointer user_data)
{
  WfWpasIface *i = user_data;
  WfWpasChange what = refresh (i);

  if (what && i->wpas->cb.iface_changed)
    i->wpas->cb.iface_changed (i, what, i->wpas->user_data);
}

static void
on_iface_signal (GDBusProxy *proxy, const char *sender, const char *signal,
                 GVariant *params, gpointer user_data)
{
  WfWpasIface *i = user_data;
  const char *path;

  if (g_str_equal (signal, "NetworkAdded") && g_variant_is_of_type (params, G_VARIANT_TYPE ("(oa{sv})")))
    {
      g_variant_get (params, "(&o@a{sv})", &path, NULL);
      if (i->wpas->cb.network_added)
        i->wpas->cb.network_added (i, path, i->wpas->user_data);
    }
  else if (g_str_equal (signal, "NetworkRemoved") && g_variant_is_of_type (params, G_VARIANT_TYPE ("(o)")))
    {
      g_variant_get (params, "(&o)", &path);
      if (i->wpas->cb.network_removed)
        i->wpas->cb.network_removed (i, path, i->wpas->user_data);
    }
}

static void
iface_free (WfWpasIface *i)
{
  if (i->proxy)
    g_signal_handlers_disconnect_by_data (i->proxy, i);
  g_clear_object (&i->proxy);
  g_free (i->path);
  g_free (i->ifname);
  g_free (i->state);
  g_free (i->network);
  g_free (i->bss);
  g_free (i);
}

static void
add_iface (WfWpas *w, const char *path)
{
  g_autoptr(GError) error = NULL;
  WfWpasIface *i;

  if (g_hash_table_contains (w->ifaces, path))
    return;
  i = g_new0 (WfWpasIface, 1);
  i->wpas = w;
  i->path = g_strdup (path);
  i->proxy = g_dbus_proxy_new_sync (w->bus, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                    NULL, WF_WPAS_NAME, path, WPAS_IFACE_INTERFACE,
                                    NULL, &error);
  if (!i->proxy)
    {
      g_warning ("wpa_supplicant interface %s: %s", path, error->message);
      iface_free (i);
      return;
    }
  refresh (i);
  if (!i->ifname)
    {
      g_warning ("wpa_supplicant interface %s has no Ifname; ignored", path);
      iface_free (i);
      return;
    }
  g_signal_connect (i->proxy, "g-properties-changed", G_CALLBACK (on_props_changed), i);
  g_signal_connect (i->proxy, "g-signal", G_CALLBACK (on_iface_signal), i);
  g_hash_table_insert (w->ifaces, i->path, i);
  g_message ("wpa_supplicant interface %s (%s): state %s, network %s", i->ifname, path,
          wf_wpas_iface_state (i), i->network ? i->network : "none");
  if (w->cb.iface_added)
    w->cb.iface_added (i, w->user_data);
}

static void
remove_iface (WfWpas *w, const char *path)
{
  WfWpasIface *i = g_hash_table_lookup (w->ifaces, path);

  if (!i)
    return;
  g_hash_table_steal (w->ifaces, path);
  g_message ("wpa_supplicant interface %s (%s) removed", wf_wpas_iface_ifname (i), path);
  if (w->cb.iface_removed)
    w->cb.iface_removed (i, w->user_data);
  iface_free (i);
}

static void
remove_all (WfWpas *w)
{
  g_autofree gpointer *paths = g_hash_table_get_keys_as_array (w->ifaces, NULL);
  g_auto(GStrv) copy = g_strdupv ((char **) paths);

  for (guint k = 0; copy && copy[k]; k++)
    remove_iface (w, copy[k]);
}

static void
on_manager_signal (GDBusConnection *bus, const char *sender, const char *path,
                   const char *iface, const char *signal, GVariant *params, gpointer user_data)
{
  WfWpas *w = user_data;
  const char *obj;

  /* Only the current owner speaks for the name. */
  if (!w->owner || g_strcmp0 (sender, w->owner) != 0)
    return;
  if (g_str_equal (signal, "InterfaceAdded") && g_variant_is_of_type (params, G_VARIANT_TYPE ("(oa{sv})")))
    {
      g_variant_get (params, "(&o@a{sv})", &obj, NULL);
      add_iface (w, obj);
    }
  else if (g_str_equal (signal, "InterfaceRemoved") && g_variant_is_of_type (params, G_VARIANT_TYPE ("(o)")))
    {
      g_variant_get (params, "(&o)", &obj);
      remove_iface (w, obj);
    }
}

static void
on_appeared (GDBusConnection *bus, const char *name, const char *owner, gpointer user_data)
{
  WfWpas *w = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) list = NULL;
  g_autoptr(GError) error = NULL;
  GVariantIter it;
  const char *path;

  if (w->owner)
    {
      /* A new owner without a vanish in between: a restart. */
      remove_all (w);
      if (w->cb.vanished)
        w->cb.vanished (w, w->user_data);
    }
  g_free (w->owner);
  w->owner = g_strdup (owner);
  g_message ("wpa_supplicant is on the bus as %s", owner);
  if (w->cb.appeared)
    w->cb.appeared (w, owner, w->user_data);
  reply = g_dbus_connection_call_sync (bus, owner, WPAS_PATH, "org.freedesktop.DBus.Properties",
                                       "Get", g_variant_new ("(ss)", WPAS_IFACE, "Interfaces"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       CALL_TIMEOUT_MS, NULL, &error);
  if (!reply)
    {
      g_warning ("wpa_supplicant: cannot read Interfaces: %s", error->message);
      return;
    }
  g_variant_get (reply, "(v)", &list);
  if (!g_variant_is_of_type (list, G_VARIANT_TYPE ("ao")))
    {
      g_warning ("wpa_supplicant: Interfaces is not an array of object paths");
      return;
    }
  g_variant_iter_init (&it, list);
  while (g_variant_iter_next (&it, "&o", &path))
    add_iface (w, path);
}

static void
on_vanished (GDBusConnection *bus, const char *name, gpointer user_data)
{
  WfWpas *w = user_data;

  if (!w->owner)
    {
      g_info ("wpa_supplicant is not running (yet)");
      return;
    }
  g_message ("wpa_supplicant left the bus: its networks are gone");
  remove_all (w);
  g_clear_pointer (&w->owner, g_free);
  if (w->cb.vanished)
    w->cb.vanished (w, w->user_data);
}

WfWpas *
wf_wpas_new (GDBusConnection *bus, const WfWpasCallbacks *cb, gpointer user_data)
{
  WfWpas *w = g_new0 (WfWpas, 1);

  w->bus = g_object_ref (bus);
  w->cb = *cb;
  w->user_data = user_data;
  w->ifaces = g_hash_table_new (g_str_hash, g_str_equal);
  w->filter = g_dbus_connection_add_filter (bus, count_network_signals, w, NULL);
  w->sub_added = g_dbus_connection_signal_subscribe (bus, NULL, WPAS_IFACE, "InterfaceAdded",
                                                     WPAS_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                     on_manager_signal, w, NULL);
  w->sub_removed = g_dbus_connection_signal_subscribe (bus, NULL, WPAS_IFACE, "InterfaceRemoved",
                                                       WPAS_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                       on_manager_signal, w, NULL);
  w->watch = g_bus_watch_name_on_connection (bus, WF_WPAS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                             on_appeared, on_vanished, w, NULL);
  return w;
}

void
wf_wpas_free (WfWpas *w)
{
  if (!w)
    return;
  g_bus_unwatch_name (w->watch);
  g_dbus_connection_remove_filter (w->bus, w->filter);
  g_dbus_connection_signal_unsubscribe (w->bus, w->sub_added);
  g_dbus_connection_signal_unsubscribe (w->bus, w->sub_removed);
  {
    GHashTableIter it;
    gpointer v;

    g_hash_table_iter_init (&it, w->ifaces);
    while (g_hash_table_iter_next (&it, NULL, &v))
      iface_free (v);
  }
  g_hash_table_destroy (w->ifaces);
  g_free (w->owner);
  g_object_unref (w->bus);
  g_free (w);
}

char *
wf_wpas_unquote (const char *raw)
{
  size_t n;
  g_autofree guchar *bytes = NULL;

  if (!raw)
    return NULL;
  n = strlen (raw);
  if (n >= 2 && raw[0] == '"' && raw[n - 1] == '"')
    return g_strndup (raw + 1, n - 2);
  /* Non-printable strings come back as hex (wpa_config_write_string). */
  if (n == 0 || n % 2 != 0)
    return NULL;
  bytes = g_malloc (n / 2 + 1);
  for (size_t k = 0; k < n / 2; k++)
    {
      int hi = g_ascii_xdigit_value (raw[2 * k]);
      int lo = g_ascii_xdigit_value (raw[2 * k + 1]);

      if (hi < 0 || lo < 0)
        return NULL;
      bytes[k] = (guchar) (hi << 4 | lo);
      if (bytes[k] == 0)
        return NULL;
    }
  bytes[n / 2] = 0;
  return (char *) g_steal_pointer (&bytes);
}

gboolean
wf_wpas_get_bgscan (GDBusConnection *bus, const char *owner, const char *network,
                    char **value, GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) props = NULL;
  const char *raw = NULL;

  *value = NULL;
  if (!owner)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN, "wpa_supplicant is not running");
      return FALSE;
    }
  reply = g_dbus_connection_call_sync (bus, owner, network, "org.freedesktop.DBus.Properties",
                                       "Get", g_variant_new ("(ss)", WPAS_IFACE_NETWORK, "Properties"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       CALL_TIMEOUT_MS, NULL, error);
  if (!reply)
    return FALSE;
  g_variant_get (reply, "(v)", &props);
  if (!g_variant_is_of_type (props, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_SIGNATURE,
                   "%s: Properties is %s, not a{sv}", network, g_variant_get_type_string (props));
      return FALSE;
    }
  if (!g_variant_lookup (props, "bgscan", "&s", &raw))
    return TRUE;
  *value = wf_wpas_unquote (raw);
  if (!*value)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   "%s: cannot decode bgscan value '%s'", network, raw);
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_wpas_set_bgscan (GDBusConnection *bus, const char *owner, const char *network,
                    const char *value, GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  GVariantBuilder b;

  if (!owner)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN, "wpa_supplicant is not running");
      return FALSE;
    }
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "bgscan", g_variant_new_string (value));
  reply = g_dbus_connection_call_sync (bus, owner, network, "org.freedesktop.DBus.Properties",
                                       "Set", g_variant_new ("(ssv)", WPAS_IFACE_NETWORK, "Properties",
                                                             g_variant_builder_end (&b)),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, error);
  return reply != NULL;
}

gboolean
wf_wpas_error_is_gone (const GError *error)
{
  return g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT)
    || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD)
    || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_INTERFACE)
    || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN)
    || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER)
    || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS);
}

WfWpasWrite
wf_wpas_write_bgscan (GDBusConnection *bus, const char *owner, const char *network,
                      const char *value, char **now, GError **error)
{
  g_autoptr(GError) set_error = NULL;
  g_autoptr(GError) get_error = NULL;

  *now = NULL;
  if (!wf_wpas_set_bgscan (bus, owner, network, value, &set_error)
      && wf_wpas_error_is_gone (set_error))
    {
      g_propagate_error (error, g_steal_pointer (&set_error));
      return WF_WPAS_WRITE_GONE;
    }
  /* Read back whatever the write's answer was: an answered write is
   * checked, and a refused or unanswered one is found out, since this read
   * is handled after it. */
  if (!wf_wpas_get_bgscan (bus, owner, network, now, &get_error))
    {
      if (wf_wpas_error_is_gone (get_error))
        {
          g_propagate_error (error, g_steal_pointer (&get_error));
          return WF_WPAS_WRITE_GONE;
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s%s; reading it back: %s",
                   set_error ? "writing it: " : "written",
                   set_error ? set_error->message : "", get_error->message);
      return WF_WPAS_WRITE_UNKNOWN;
    }
  if (g_strcmp0 (*now, value) == 0)
    {
      if (set_error)
        g_message ("bgscan \"%s\" on %s: the write was not answered (%s), a read after it shows "
                   "it landed", value, network, set_error->message);
      return WF_WPAS_WRITE_DONE;
    }
  if (set_error)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s (it reads \"%s\")",
                 set_error->message, *now ? *now : "(none)");
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 "written, but it reads \"%s\": changed by someone else", *now ? *now : "(none)");
  return WF_WPAS_WRITE_NOT_APPLIED;
}

gboolean
wf_wpas_signal (WfWpasIface *i, int *dbm, GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) dict = NULL;
  g_autoptr(GError) poll_error = NULL;
  gint32 rssi;
  gint16 sig;

  reply = g_dbus_proxy_call_sync (i->proxy, "SignalPoll", NULL, G_DBUS_CALL_FLAGS_NONE,
                                  CALL_TIMEOUT_MS, NULL, &poll_error);
  if (reply && g_variant_is_of_type (reply, G_VARIANT_TYPE ("(a{sv})")))
    {
      g_variant_get (reply, "(@a{sv})", &dict);
      if (g_variant_lookup (dict, "rssi", "i", &rssi) && rssi != 0)
        {
          *dbm = rssi;
          return TRUE;
        }
    }
  g_clear_pointer (&reply, g_variant_unref);
  /* Fallback: the Signal of the current BSS (from the last scan or beacon). */
  if (!i->bss)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "no signal: SignalPoll %s, no CurrentBSS",
                   poll_error ? poll_error->message : "gave no rssi");
      return FALSE;
    }
  reply = g_dbus_connection_call_sync (i->wpas->bus, i->wpas->owner, i->bss,
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", WPAS_IFACE_BSS, "Signal"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       CALL_TIMEOUT_MS, NULL, error);
  if (!reply)
    return FALSE;
  {
    g_autoptr(GVariant) v = NULL;

    g_variant_get (reply, "(v)", &v);
    if (!g_variant_is_of_type (v, G_VARIANT_TYPE_INT16))
      {
        g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_SIGNATURE, "BSS Signal is not n");
        return FALSE;
      }
    sig = g_variant_get_int16 (v);
  }
  if (sig == 0)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "no signal: SignalPoll %s, BSS Signal 0",
                   poll_error ? poll_error->message : "gave no rssi");
      return FALSE;
    }
  *dbm = sig;
  return TRUE;
}

gboolean
wf_wpas_abort_scan (WfWpasIface *i, GError **error)
{
  g_autoptr(GVariant) reply = g_dbus_proxy_call_sync (i->proxy, "AbortScan", NULL,
                                                      G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
                                                      NULL, error);
  return reply != NULL;
}
