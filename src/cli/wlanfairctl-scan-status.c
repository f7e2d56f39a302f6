/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl scan status: the guard's object and its devices, read with
 * Properties.GetAll over the system bus and printed as text or JSON. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "wlanfair-text.h"
#include "wlanfairctl-scan-bus.h"
#include "wlanfairctl-scan.h"
#include "wlanfairctl.h"

/* Device properties in print order with their JSON names. A member the
 * daemon does not publish (or publishes with another type) is left out;
 * members this table does not know are still passed through in JSON. */
typedef struct {
  const char *prop;
  const char *type;
  const char *json;
} PropMap;

static const PropMap device_props[] = {
  { "Interface", "s", "interface" },
  { "Connection", "s", "connection" },
  { "Mode", "s", "mode" },
  { "Policy", "s", "policy" },
  { "Suppressing", "b", "suppressing" },
  { "Reason", "s", "reason" },
  { "Since", "x", "since_us" },
  { "CurrentBgscan", "s", "current_bgscan" },
  { "SavedBgscan", "s", "saved_bgscan" },
  { "TxPps", "d", "tx_pps" },
  { "RxPps", "d", "rx_pps" },
  { "TxBps", "d", "tx_bps" },
  { "RxBps", "d", "rx_bps" },
  { "SignalDbm", "i", "signal_dbm" },
  { "RoamFloorDbm", "i", "roam_floor_dbm" },
  { "ScansSeen", "a{su}", "scans_seen" },
  { "ScansAborted", "a{su}", "scans_aborted" },
  { "RecentScans", "a(xssu)", "recent_scans" },
};

static GVariant *
get_all (GDBusConnection *bus, const char *path, const char *iface, GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  GVariant *props;

  reply = g_dbus_connection_call_sync (bus, WF_SCAN_BUS_NAME, path,
                                       "org.freedesktop.DBus.Properties", "GetAll",
                                       g_variant_new ("(s)", iface),
                                       G_VARIANT_TYPE ("(a{sv})"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                       WF_SCAN_CALL_TIMEOUT_MS, NULL, error);
  if (!reply)
    return NULL;
  g_variant_get (reply, "(@a{sv})", &props);
  return props;
}

/* "ScansSeen" -> "scans_seen", for members the table does not know. */
static char *
snake_case (const char *name)
{
  GString *s = g_string_new (NULL);

  for (const char *p = name; *p; p++)
    {
      if (g_ascii_isupper (*p) && p != name)
        g_string_append_c (s, '_');
      g_string_append_c (s, g_ascii_tolower (*p));
    }
  return g_string_free (s, FALSE);
}

static void
add_json_value (JsonBuilder *b, const char *type, GVariant *v)
{
  if (g_str_equal (type, "s"))
    json_builder_add_string_value (b, g_variant_get_string (v, NULL));
  else if (g_str_equal (type, "b"))
    json_builder_add_boolean_value (b, g_variant_get_boolean (v));
  else if (g_str_equal (type, "x"))
    json_builder_add_int_value (b, g_variant_get_int64 (v));
  else if (g_str_equal (type, "i"))
    json_builder_add_int_value (b, g_variant_get_int32 (v));
  else if (g_str_equal (type, "d"))
    json_builder_add_double_value (b, g_variant_get_double (v));
  else if (g_str_equal (type, "a{su}"))
    {
      GVariantIter it;
      const char *k;
      guint32 n;

      json_builder_begin_object (b);
      g_variant_iter_init (&it, v);
      while (g_variant_iter_next (&it, "{&su}", &k, &n))
        {
          json_builder_set_member_name (b, k);
          json_builder_add_int_value (b, n);
        }
      json_builder_end_object (b);
    }
  else if (g_str_equal (type, "a(xssu)"))
    {
      GVariantIter it;
      gint64 t;
      const char *kind, *outcome;
      guint32 ms;

      json_builder_begin_array (b);
      g_variant_iter_init (&it, v);
      while (g_variant_iter_next (&it, "(x&s&su)", &t, &kind, &outcome, &ms))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "time_us");
          json_builder_add_int_value (b, t);
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, kind);
          json_builder_set_member_name (b, "outcome");
          json_builder_add_string_value (b, outcome);
          json_builder_set_member_name (b, "duration_ms");
          json_builder_add_int_value (b, ms);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  else
    g_assert_not_reached ();
}

static const PropMap *
find_prop (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (device_props); i++)
    if (g_str_equal (device_props[i].prop, name))
      return &device_props[i];
  return NULL;
}

static void
device_json (JsonBuilder *b, const char *path, GVariant *props)
{
  GVariantIter it;
  const char *name;
  GVariant *v;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, path);
  for (gsize i = 0; i < G_N_ELEMENTS (device_props); i++)
    {
      const PropMap *m = &device_props[i];
      g_autoptr(GVariant) value = g_variant_lookup_value (props, m->prop,
                                                           G_VARIANT_TYPE (m->type));

      /* SignalDbm 0 means unknown: absent, never a fake number. */
      if (!value || (g_str_equal (m->prop, "SignalDbm") && g_variant_get_int32 (value) == 0))
        continue;
      json_builder_set_member_name (b, m->json);
      add_json_value (b, m->type, value);
    }
  g_variant_iter_init (&it, props);
  while (g_variant_iter_next (&it, "{&sv}", &name, &v))
    {
      if (!find_prop (name))
        {
          g_autofree char *key = snake_case (name);

          json_builder_set_member_name (b, key);
          json_builder_add_value (b, json_gvariant_serialize (v));
        }
      g_variant_unref (v);
    }
  json_builder_end_object (b);
}

static const char *
lookup_s (GVariant *props, const char *name)
{
  const char *s = NULL;

  if (!g_variant_lookup (props, name, "&s", &s))
    return NULL;
  return s;
}

/* "04:12:33 (2 min ago)" in local time. */
static char *
format_since (gint64 us)
{
  g_autoptr(GDateTime) t = g_date_time_new_from_unix_local (us / G_USEC_PER_SEC);
  g_autofree char *hms = NULL;
  gint64 ago = (g_get_real_time () - us) / G_USEC_PER_SEC;

  if (!t || us <= 0)
    return g_strdup ("-");
  hms = g_date_time_format (t, "%Y-%m-%d %H:%M:%S");
  if (ago < 0)
    ago = 0;
  if (ago < 120)
    return g_strdup_printf ("%s (%" G_GINT64_FORMAT " s ago)", hms, ago);
  if (ago < 7200)
    return g_strdup_printf ("%s (%" G_GINT64_FORMAT " min ago)", hms, ago / 60);
  return g_strdup_printf ("%s (%" G_GINT64_FORMAT " h ago)", hms, ago / 3600);
}

/* S escaped for the terminal (the daemon relays NetworkManager's and
 * wpa_supplicant's strings, and a hold's reason is anyone's), kept in
 * KEEP until the caller prints it. NULL stays NULL. */
static const char *
esc (GPtrArray *keep, const char *s)
{
  if (!s)
    return NULL;
  g_ptr_array_add (keep, wf_text_escape (s));
  return g_ptr_array_index (keep, keep->len - 1);
}

static void
print_counts (const char *label, GVariant *props, const char *name)
{
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GVariant) v = g_variant_lookup_value (props, name, G_VARIANT_TYPE ("a{su}"));
  GVariantIter it;
  const char *k;
  guint32 n;
  gboolean first = TRUE;

  if (!v)
    return;
  printf ("  %-11s", label);
  g_variant_iter_init (&it, v);
  while (g_variant_iter_next (&it, "{&su}", &k, &n))
    {
      printf ("%s%s %u", first ? "" : ", ", esc (keep, k), n);
      first = FALSE;
    }
  printf ("%s\n", first ? "none" : "");
}

static void
print_quoted (const char *label, const char *value)
{
  g_autofree char *shown = NULL;

  if (!value)
    return;
  shown = wf_text_escape (value);
  printf ("  %-11s\"%s\"\n", label, shown);
}

static void
device_text (const char *path, GVariant *props)
{
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  const char *iface = esc (keep, lookup_s (props, "Interface"));
  const char *conn = esc (keep, lookup_s (props, "Connection"));
  const char *mode = esc (keep, lookup_s (props, "Mode"));
  const char *policy = esc (keep, lookup_s (props, "Policy"));
  const char *reason = esc (keep, lookup_s (props, "Reason"));
  gboolean suppressing = FALSE, have_supp;
  gint64 since = 0;
  gint32 signal = 0, floor = 0;
  double txp = 0, rxp = 0, txb = 0, rxb = 0;
  g_autoptr(GVariant) recent = g_variant_lookup_value (props, "RecentScans",
                                                       G_VARIANT_TYPE ("a(xssu)"));

  const char *supplicant = esc (keep, lookup_s (props, "SupplicantState"));

  printf ("%s", iface ? iface : esc (keep, path));
  if (conn && *conn)
    printf (" (connection \"%s\")", conn);
  if (supplicant && *supplicant)
    printf (", wpa_supplicant %s", supplicant);
  printf ("\n");
  have_supp = g_variant_lookup (props, "Suppressing", "b", &suppressing);
  g_variant_lookup (props, "Since", "x", &since);
  if (have_supp)
    {
      g_autofree char *when = format_since (since);

      printf ("  %-11s%s%s%s%s, since %s\n", "state",
              suppressing ? "suppressing scans" : "scanning allowed",
              reason && *reason ? " (" : "", reason ? reason : "",
              reason && *reason ? ")" : "", when);
    }
  if (mode || policy)
    printf ("  %-11smode %s, policy %s\n", "config", mode ? mode : "?",
            policy ? policy : "?");
  print_quoted ("bgscan", lookup_s (props, "CurrentBgscan"));
  print_quoted ("saved", lookup_s (props, "SavedBgscan"));
  if (g_variant_lookup (props, "TxPps", "d", &txp)
      && g_variant_lookup (props, "RxPps", "d", &rxp))
    {
      g_autofree char *tr = NULL, *rr = NULL;

      g_variant_lookup (props, "TxBps", "d", &txb);
      g_variant_lookup (props, "RxBps", "d", &rxb);
      tr = wf_cli_format_bps (txb);
      rr = wf_cli_format_bps (rxb);
      printf ("  %-11stx %.1f pkt/s %s, rx %.1f pkt/s %s\n", "traffic",
              txp, tr, rxp, rr);
    }
  g_variant_lookup (props, "SignalDbm", "i", &signal);
  if (g_variant_lookup (props, "RoamFloorDbm", "i", &floor) || signal)
    {
      if (signal)
        printf ("  %-11s%d dBm", "signal", signal);
      else
        printf ("  %-11sunknown", "signal");
      printf (", roam floor %d dBm\n", floor);
    }
  print_counts ("seen", props, "ScansSeen");
  print_counts ("in traffic", props, "ScansDuringTraffic");
  print_counts ("aborted", props, "ScansAborted");
  if (recent && g_variant_n_children (recent) > 0)
    {
      GVariantIter it;
      gint64 t;
      const char *kind, *outcome;
      guint32 ms;

      printf ("  recent scans:\n");
      g_variant_iter_init (&it, recent);
      while (g_variant_iter_next (&it, "(x&s&su)", &t, &kind, &outcome, &ms))
        {
          g_autofree char *when = format_since (t);

          g_autofree char *k = wf_text_fit (kind, 11, WF_TEXT_KEEP);
          g_autofree char *o = wf_text_fit (outcome, 8, WF_TEXT_KEEP);

          printf ("    %s  %s %s %u ms\n", when, k, o, ms);
        }
    }
}

static void
holds_json (JsonBuilder *b, GVariant *holds)
{
  GVariantIter it;
  guint32 cookie;
  const char *owner, *reason;
  gint64 since;

  json_builder_set_member_name (b, "holds");
  json_builder_begin_array (b);
  if (holds)
    {
      g_variant_iter_init (&it, holds);
      while (g_variant_iter_next (&it, "(u&s&sx)", &cookie, &owner, &reason, &since))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "cookie");
          json_builder_add_int_value (b, cookie);
          json_builder_set_member_name (b, "owner");
          json_builder_add_string_value (b, owner);
          json_builder_set_member_name (b, "reason");
          json_builder_add_string_value (b, reason);
          json_builder_set_member_name (b, "since_us");
          json_builder_add_int_value (b, since);
          json_builder_end_object (b);
        }
    }
  json_builder_end_array (b);
}

static void
holds_text (GVariant *holds)
{
  GVariantIter it;
  guint32 cookie;
  const char *owner, *reason;
  gint64 since;

  if (!holds || g_variant_n_children (holds) == 0)
    {
      printf ("holds: none\n");
      return;
    }
  printf ("holds:\n");
  g_variant_iter_init (&it, holds);
  while (g_variant_iter_next (&it, "(u&s&sx)", &cookie, &owner, &reason, &since))
    {
      g_autofree char *when = format_since (since);
      g_autofree char *o = wf_text_escape (owner), *r = wf_text_escape (reason);

      printf ("  %u by %s since %s: %s\n", cookie, o, when, r);
    }
}

int
wf_cli_scan_status (int argc, char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) main_props = NULL;
  g_autoptr(GVariant) holds = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GPtrArray) dev_props = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autoptr(GPtrArray) dev_paths = g_ptr_array_new_with_free_func (g_free);
  const char *version = NULL;
  gboolean nl80211 = TRUE;
  GVariantIter it;
  const char *path;
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Per Wi-Fi device: whether scans are suppressed and why, since when, the\n"
    "current and the saved bgscan, traffic, signal and roam floor, scans seen\n"
    "and aborted by kind; and the holds. Read from wlanfair-scand over the\n"
    "system D-Bus.");
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  if (argc > 1)
    return wf_cli_usage_error ("unexpected argument '%s'", argv[1]);

  bus = wf_cli_scan_system_bus (&error);
  if (!bus)
    return wf_cli_fail ("the scan guard is not reachable: no system D-Bus (%s)",
                        error->message);
  main_props = get_all (bus, WF_SCAN_PATH, WF_SCAN_IFACE, &error);
  if (!main_props)
    {
      if (wf_cli_scan_is_absent (error))
        return wf_cli_fail ("the scan guard is not running (nobody owns %s on the "
                            "system bus; start wlanfair-scand.service)", WF_SCAN_BUS_NAME);
      g_dbus_error_strip_remote_error (error);
      return wf_cli_fail ("cannot read the scan guard's state: %s", error->message);
    }
  g_variant_lookup (main_props, "Version", "&s", &version);
  holds = g_variant_lookup_value (main_props, "Holds", G_VARIANT_TYPE ("a(ussx)"));
  devices = g_variant_lookup_value (main_props, "Devices", G_VARIANT_TYPE ("ao"));
  if (devices)
    {
      g_variant_iter_init (&it, devices);
      while (g_variant_iter_next (&it, "&o", &path))
        {
          g_autoptr(GError) derr = NULL;
          GVariant *props = get_all (bus, path, WF_SCAN_DEVICE_IFACE, &derr);

          /* A device that went away between the two calls is skipped. */
          if (!props)
            {
              if (g_error_matches (derr, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT)
                  || g_error_matches (derr, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
                continue;
              g_dbus_error_strip_remote_error (derr);
              return wf_cli_fail ("cannot read %s: %s", path, derr->message);
            }
          g_ptr_array_add (dev_paths, g_strdup (path));
          g_ptr_array_add (dev_props, props);
        }
    }

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "running");
      json_builder_add_boolean_value (b, TRUE);
      if (version)
        {
          json_builder_set_member_name (b, "version");
          json_builder_add_string_value (b, version);
        }
      if (g_variant_lookup (main_props, "Nl80211", "b", &nl80211))
        {
          json_builder_set_member_name (b, "nl80211");
          json_builder_add_boolean_value (b, nl80211);
        }
      holds_json (b, holds);
      json_builder_set_member_name (b, "devices");
      json_builder_begin_array (b);
      for (guint i = 0; i < dev_props->len; i++)
        device_json (b, dev_paths->pdata[i], dev_props->pdata[i]);
      json_builder_end_array (b);
      json_builder_end_object (b);
      wf_cli_print_json (b);
      return WF_EXIT_OK;
    }

  printf ("wlanfair-scand %s", version ? version : "(version unknown)");
  if (g_variant_lookup (main_props, "Nl80211", "b", &nl80211) && !nl80211)
    printf (" (nl80211 not available: scans seen through wpa_supplicant, kind unknown)");
  printf ("\n");
  if (dev_props->len == 0)
    printf ("no Wi-Fi devices\n");
  for (guint i = 0; i < dev_props->len; i++)
    {
      printf ("\n");
      device_text (dev_paths->pdata[i], dev_props->pdata[i]);
    }
  printf ("\n");
  holds_text (holds);
  return WF_EXIT_OK;
}
