/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.wlanfair.ScanGuard1 service on a private bus (GTestDBus, no
 * root): holds, their automatic release when the caller leaves, cookies
 * of others refused, device objects and PropertiesChanged. */
#include <gio/gio.h>
#include <string.h>

#include "wlanfair-scan-service.h"

typedef struct {
  GTestDBus       *bus;
  GDBusConnection *owner;    /* the daemon's connection */
  WfScanService   *service;
  guint            n_holds;
  guint            n_calls;  /* holds_changed callbacks */
} Fixture;

static GDBusConnection *
connect_bus (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *c = g_dbus_connection_new_for_address_sync (
      g_test_dbus_get_bus_address (f->bus),
      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
      NULL, NULL, &error);

  g_assert_no_error (error);
  return c;
}

static void
on_holds (guint n, gpointer user_data)
{
  Fixture *f = user_data;

  f->n_holds = n;
  f->n_calls++;
}

static void
set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (f->bus);
  f->owner = connect_bus (f);
  f->service = wf_scan_service_new (f->owner, FALSE, on_holds, f, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->service);
}

static void
tear_down (Fixture *f, gconstpointer data)
{
  wf_scan_service_free (f->service);
  g_dbus_connection_close_sync (f->owner, NULL, NULL);
  g_object_unref (f->owner);
  g_test_dbus_down (f->bus);
  g_object_unref (f->bus);
}

static void
on_reply (GObject *src, GAsyncResult *res, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (res);
}

/* A call from `c` to the service, with the main loop running (the
 * service answers from this thread's main context). */
static GVariant *
call (GDBusConnection *c, Fixture *f, const char *path, const char *iface,
      const char *method, GVariant *args, GError **error)
{
  GAsyncResult *res = NULL;
  GVariant *v;

  g_dbus_connection_call (c, g_dbus_connection_get_unique_name (f->owner), path, iface, method,
                          args, NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, on_reply, &res);
  while (!res)
    g_main_context_iteration (NULL, TRUE);
  v = g_dbus_connection_call_finish (c, res, error);
  g_object_unref (res);
  return v;
}

static GVariant *
get (GDBusConnection *c, Fixture *f, const char *path, const char *iface, const char *prop)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) r = call (c, f, path, "org.freedesktop.DBus.Properties", "Get",
                                g_variant_new ("(ss)", iface, prop), &error);
  GVariant *v;

  g_assert_no_error (error);
  g_variant_get (r, "(v)", &v);
  return v;
}

static void
spin_until (gboolean (*cond) (Fixture *), Fixture *f)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (!cond (f))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static gboolean
no_holds (Fixture *f)
{
  return f->n_holds == 0;
}

static void
test_hold_release (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) a = connect_bus (f);
  g_autoptr(GDBusConnection) b = connect_bus (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) r = NULL;
  g_autoptr(GVariant) holds = NULL;
  guint32 cookie, c2;
  const char *owner, *reason;
  gint64 since;

  r = call (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Hold",
            g_variant_new ("(s)", "video call"), &error);
  g_assert_no_error (error);
  g_variant_get (r, "(u)", &cookie);
  g_assert_cmpuint (cookie, !=, 0);
  g_assert_cmpuint (f->n_holds, ==, 1);
  g_assert_cmpuint (wf_scan_service_n_holds (f->service), ==, 1);

  holds = get (b, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Holds");
  g_assert_cmpstr (g_variant_get_type_string (holds), ==, "a(ussx)");
  g_assert_cmpuint (g_variant_n_children (holds), ==, 1);
  g_variant_get_child (holds, 0, "(u&s&sx)", &c2, &owner, &reason, &since);
  g_assert_cmpuint (c2, ==, cookie);
  g_assert_cmpstr (owner, ==, g_dbus_connection_get_unique_name (a));
  g_assert_cmpstr (reason, ==, "video call");
  g_assert_cmpint (since, >, 0);

  /* Another caller cannot release it. */
  g_clear_pointer (&r, g_variant_unref);
  r = call (b, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Release",
            g_variant_new ("(u)", cookie), &error);
  g_assert_null (r);
  g_assert_true (g_dbus_error_is_remote_error (error));
  {
    g_autofree char *name = g_dbus_error_get_remote_error (error);

    g_assert_cmpstr (name, ==, "org.wlanfair.ScanGuard1.Error.UnknownCookie");
  }
  g_clear_error (&error);
  g_assert_cmpuint (f->n_holds, ==, 1);

  /* Its owner can. */
  r = call (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Release",
            g_variant_new ("(u)", cookie), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f->n_holds, ==, 0);
  g_clear_pointer (&r, g_variant_unref);
  /* Twice: unknown. */
  r = call (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Release",
            g_variant_new ("(u)", cookie), &error);
  g_assert_null (r);
  g_clear_error (&error);
}

static void
test_auto_release (Fixture *f, gconstpointer data)
{
  GDBusConnection *a = connect_bus (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) r1 = NULL;
  g_autoptr(GVariant) r2 = NULL;

  r1 = call (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Hold", g_variant_new ("(s)", "one"), &error);
  r2 = call (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Hold", g_variant_new ("(s)", "two"), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f->n_holds, ==, 2);
  /* The caller leaves the bus (exits, crashes): both holds go. */
  g_dbus_connection_close_sync (a, NULL, NULL);
  g_object_unref (a);
  spin_until (no_holds, f);
  g_assert_cmpuint (wf_scan_service_n_holds (f->service), ==, 0);
}

static void
test_bad_reason (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) a = connect_bus (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *longer = g_strnfill (257, 'x');
  g_autoptr(GVariant) r = call (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Hold",
                                g_variant_new ("(s)", longer), &error);

  g_autofree char *name = NULL;

  g_assert_null (r);
  name = g_dbus_error_get_remote_error (error);
  g_assert_cmpstr (name, ==, "org.wlanfair.ScanGuard1.Error.InvalidArgs");
  g_assert_cmpuint (f->n_holds, ==, 0);
}

typedef struct {
  char     *path;
  gboolean  suppressing;
  char     *reason;
  guint     n;
} Seen;

static void
on_changed (GDBusConnection *c, const char *sender, const char *path, const char *iface,
            const char *signal, GVariant *params, gpointer user_data)
{
  Seen *s = user_data;
  g_autoptr(GVariant) changed = NULL;
  const char *which;

  g_variant_get (params, "(&s@a{sv}@as)", &which, &changed, NULL);
  if (!g_str_equal (which, "org.wlanfair.ScanGuard1.Device"))
    return;
  g_free (s->path);
  s->path = g_strdup (path);
  g_variant_lookup (changed, "Suppressing", "b", &s->suppressing);
  if (g_variant_lookup (changed, "Reason", "&s", &which))
    {
      g_free (s->reason);
      s->reason = g_strdup (which);
    }
  s->n++;
}

static Seen *seen_global;

static gboolean
seen_reason (Fixture *f)
{
  return seen_global->reason && g_str_equal (seen_global->reason, "traffic");
}

static void
test_devices (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) a = connect_bus (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = wf_scan_service_device_path (7);
  g_autoptr(GVariant) devs = NULL;
  g_autoptr(GVariant) v = NULL;
  g_autoptr(GVariant) all = NULL;
  Seen seen = { 0 };
  guint sub;

  g_assert_cmpstr (path, ==, "/org/wlanfair/ScanGuard1/Device/7");
  g_assert_true (wf_scan_service_device_add (f->service, path, &error));
  g_assert_no_error (error);
  devs = get (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Devices");
  g_assert_cmpuint (g_variant_n_children (devs), ==, 1);
  /* Defaults of every property of the XML, with their types. */
  all = call (a, f, path, "org.freedesktop.DBus.Properties", "GetAll",
              g_variant_new ("(s)", "org.wlanfair.ScanGuard1.Device"), &error);
  g_assert_no_error (error);
  {
    g_autoptr(GVariant) dict = g_variant_get_child_value (all, 0);

    g_assert_true (g_variant_lookup (dict, "Suppressing", "b", NULL));
    g_assert_true (g_variant_lookup (dict, "ScansSeen", "a{su}", NULL));
    g_assert_true (g_variant_lookup (dict, "RecentScans", "a(xssu)", NULL));
    g_assert_true (g_variant_lookup (dict, "Network", "o", NULL));
  }

  sub = g_dbus_connection_signal_subscribe (a, NULL, "org.freedesktop.DBus.Properties",
                                            "PropertiesChanged", path, NULL,
                                            G_DBUS_SIGNAL_FLAGS_NONE, on_changed, &seen, NULL);
  /* The subscription is in place once a round trip has been made. */
  g_clear_pointer (&v, g_variant_unref);
  v = get (a, f, path, "org.wlanfair.ScanGuard1.Device", "Suppressing");
  wf_scan_service_device_set (f->service, path, "Suppressing", g_variant_new_boolean (TRUE));
  wf_scan_service_device_set (f->service, path, "Reason", g_variant_new_string ("traffic"));
  seen_global = &seen;
  spin_until (seen_reason, f);
  g_assert_true (seen.suppressing);
  g_assert_cmpstr (seen.path, ==, path);
  g_clear_pointer (&v, g_variant_unref);
  v = get (a, f, path, "org.wlanfair.ScanGuard1.Device", "Reason");
  g_assert_cmpstr (g_variant_get_string (v, NULL), ==, "traffic");
  /* Setting the same value again announces nothing. */
  {
    guint n = seen.n;

    wf_scan_service_device_set (f->service, path, "Reason", g_variant_new_string ("traffic"));
    g_clear_pointer (&v, g_variant_unref);
    v = get (a, f, path, "org.wlanfair.ScanGuard1.Device", "Reason");
    g_assert_cmpuint (seen.n, ==, n);
  }
  wf_scan_service_device_remove (f->service, path);
  g_clear_pointer (&devs, g_variant_unref);
  devs = get (a, f, WF_SCAN_SERVICE_PATH, WF_SCAN_SERVICE_NAME, "Devices");
  g_assert_cmpuint (g_variant_n_children (devs), ==, 0);
  g_dbus_connection_signal_unsubscribe (a, sub);
  g_free (seen.path);
  g_free (seen.reason);
}

static void
skip_no_daemon (void)
{
  g_test_skip ("no dbus-daemon for a private bus");
}

int
main (int argc, char **argv)
{
  g_autofree char *daemon = g_find_program_in_path ("dbus-daemon");

  g_test_init (&argc, &argv, NULL);
  if (!daemon)
    {
      /* A build chroot without the dbus-daemon package (nocheck profile). */
      g_test_add_func ("/scan/service/no-dbus-daemon", skip_no_daemon);
      return g_test_run ();
    }
  g_test_add ("/scan/service/hold-release", Fixture, NULL, set_up, test_hold_release, tear_down);
  g_test_add ("/scan/service/auto-release", Fixture, NULL, set_up, test_auto_release, tear_down);
  g_test_add ("/scan/service/bad-reason", Fixture, NULL, set_up, test_bad_reason, tear_down);
  g_test_add ("/scan/service/devices", Fixture, NULL, set_up, test_devices, tear_down);
  return g_test_run ();
}
