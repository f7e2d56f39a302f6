/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl scan set/get/unset: the scan guard's per-connection keys in
 * a NetworkManager profile's user.data. nmcli cannot write user.data, so
 * this goes through libnm: change the setting on the remote connection
 * and send the whole profile back with Update2 (as nmcli modify does). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <NetworkManager.h>

#include "wlanfair-scan-config.h"
#include "wlanfair-text.h"
#include "wlanfairctl-scan.h"
#include "wlanfairctl.h"

#define PREFIX WF_SCAN_PROFILE_PREFIX

static NMClient *
nm_client (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NMClient) client = nm_client_new (NULL, &error);

  if (!client)
    {
      wf_cli_fail ("cannot talk to NetworkManager: %s", error->message);
      return NULL;
    }
  if (!nm_client_get_nm_running (client))
    {
      wf_cli_fail ("NetworkManager is not running");
      return NULL;
    }
  return g_steal_pointer (&client);
}

/* CONNECTION is a D-Bus path, a UUID or an id (which must be unique). */
static NMRemoteConnection *
find_connection (NMClient *client, const char *spec)
{
  const GPtrArray *all;
  NMRemoteConnection *found = NULL;
  guint n = 0;

  if (spec[0] == '/')
    found = nm_client_get_connection_by_path (client, spec);
  else
    found = nm_client_get_connection_by_uuid (client, spec);
  if (found)
    return found;
  all = nm_client_get_connections (client);
  for (guint i = 0; i < all->len; i++)
    if (g_strcmp0 (nm_connection_get_id (all->pdata[i]), spec) == 0)
      {
        found = all->pdata[i];
        n++;
      }
  if (n == 0)
    wf_cli_fail ("no connection profile '%s' (give its name, UUID or D-Bus path)", spec);
  else if (n > 1)
    {
      wf_cli_fail ("%u connection profiles are named '%s': give the UUID", n, spec);
      found = NULL;
    }
  return found;
}

/* The profile CONNECTION names, through a new client (kept in *client,
 * which owns the result); NULL after saying why. */
static NMRemoteConnection *
open_profile (const char *spec, NMClient **client)
{
  *client = nm_client ();
  return *client ? find_connection (*client, spec) : NULL;
}

/* "mode, policy, ..." */
static char *
key_list (void)
{
  const char *const *all = wf_scan_config_profile_keys ();
  GString *s = g_string_new (NULL);

  for (gsize i = 0; all[i]; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", all[i] + strlen (PREFIX));
  return g_string_free (s, FALSE);
}

/* The full key for KEY (short or full), or NULL after a usage error. */
static const char *
parse_key (const char *text, int *rc)
{
  const char *full = wf_scan_config_profile_key (text);

  if (!full)
    {
      g_autofree char *list = key_list ();

      *rc = wf_cli_usage_error ("unknown key '%s': expected one of %s "
                                "(or the same with the prefix " PREFIX ")",
                                text, list);
    }
  return full;
}

typedef struct {
  GMainLoop *loop;
  GError *error;
} Wait;

static void
update_done (GObject *source, GAsyncResult *res, gpointer data)
{
  Wait *w = data;
  g_autoptr(GVariant) out = nm_remote_connection_update2_finish (NM_REMOTE_CONNECTION (source),
                                                                 res, &w->error);

  g_main_loop_quit (w->loop);
}

/* Set (VALUE non-NULL) or remove FULL_KEY and save the profile to disk. */
static int
write_key (NMRemoteConnection *remote, const char *full_key, const char *value)
{
  NMConnection *conn = NM_CONNECTION (remote);
  NMSettingUser *user = NM_SETTING_USER (nm_connection_get_setting (conn, NM_TYPE_SETTING_USER));
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait w = { loop, NULL };

  if (!user)
    {
      user = NM_SETTING_USER (nm_setting_user_new ());
      nm_connection_add_setting (conn, NM_SETTING (user));
    }
  if (!nm_setting_user_set_data (user, full_key, value, &error))
    return wf_cli_fail ("%s", error->message);
  nm_remote_connection_update2 (remote,
                                nm_connection_to_dbus (conn, NM_CONNECTION_SERIALIZE_ALL),
                                NM_SETTINGS_UPDATE2_FLAG_TO_DISK, NULL, NULL,
                                update_done, &w);
  g_main_loop_run (loop);
  if (w.error)
    {
      g_autoptr(GError) e = w.error;

      g_dbus_error_strip_remote_error (e);
      return wf_cli_fail ("cannot update connection '%s': %s",
                          nm_connection_get_id (conn), e->message);
    }
  return WF_EXIT_OK;
}

/* "--" before CONNECTION (a name starting with '-') is not an argument. */
static void
drop_dashdash (int *argc, char ***argv)
{
  if (*argc > 1 && g_str_equal ((*argv)[1], "--"))
    {
      (*argv)[1] = (*argv)[0];
      (*argv)++;
      (*argc)--;
    }
}

static gboolean
parse_plain (const char *args, const char *summary, int *argc, char ***argv, int *rc)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new (args);

  g_option_context_set_summary (ctx, summary);
  /* Options end at CONNECTION: a VALUE like -75 is not an option. */
  g_option_context_set_strict_posix (ctx, TRUE);
  if (!wf_cli_parse_options (ctx, argc, argv, rc))
    return FALSE;
  drop_dashdash (argc, argv);
  return TRUE;
}

#define KEYS_HELP \
  "Keys (short, or with the prefix wlanfair.scan.): mode (auto|off|always),\n" \
  "policy (observe|strict), start-pps, start-window, idle-pps, idle-holdoff,\n" \
  "roam-floor (auto|dBm), roam-floor-margin, roam-hysteresis,\n" \
  "beacon-loss-holdoff; see wlanfairctl-scan(1).\n" \
  "CONNECTION is the profile's name, UUID or D-Bus path."

int
wf_cli_scan_set (int argc, char **argv)
{
  g_autoptr(NMClient) client = NULL;
  g_autoptr(GError) error = NULL;
  const char *full;
  NMRemoteConnection *remote;
  int rc;

  if (!parse_plain ("CONNECTION KEY VALUE",
                    "Set a scan guard key in a NetworkManager profile's user.data.\n"
                    KEYS_HELP, &argc, &argv, &rc))
    return rc;
  if (argc != 4)
    return wf_cli_usage_error ("expected CONNECTION KEY VALUE");
  /* Validate before asking NetworkManager anything: exit 2 on bad input. */
  full = parse_key (argv[2], &rc);
  if (!full)
    return rc;
  if (!wf_scan_config_check_profile_value (full, argv[3], &error))
    return wf_cli_usage_error ("%s", error->message);
  remote = open_profile (argv[1], &client);
  if (!remote)
    return WF_EXIT_FAILURE;
  return write_key (remote, full, argv[3]);
}

int
wf_cli_scan_unset (int argc, char **argv)
{
  g_autoptr(NMClient) client = NULL;
  const char *full;
  NMRemoteConnection *remote;
  NMSettingUser *user;
  int rc;

  if (!parse_plain ("CONNECTION KEY",
                    "Remove a scan guard key from a NetworkManager profile: the\n"
                    "global value of /etc/wlanfair/scan.conf applies again.\n"
                    KEYS_HELP, &argc, &argv, &rc))
    return rc;
  if (argc != 3)
    return wf_cli_usage_error ("expected CONNECTION KEY");
  full = parse_key (argv[2], &rc);
  if (!full)
    return rc;
  remote = open_profile (argv[1], &client);
  if (!remote)
    return WF_EXIT_FAILURE;
  user = NM_SETTING_USER (nm_connection_get_setting (NM_CONNECTION (remote),
                                                     NM_TYPE_SETTING_USER));
  /* Already absent: nothing to write, and not an error (idempotent). */
  if (!user || !nm_setting_user_get_data (user, full))
    return WF_EXIT_OK;
  return write_key (remote, full, NULL);
}

int
wf_cli_scan_get (int argc, char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("CONNECTION [KEY]");
  g_autoptr(NMClient) client = NULL;
  g_autoptr(JsonBuilder) b = NULL;
  const char *const *all = wf_scan_config_profile_keys ();
  const char *only = NULL;
  NMRemoteConnection *remote;
  NMSettingUser *user;
  int rc, result = WF_EXIT_OK;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Show the scan guard keys set in a NetworkManager profile (all, or KEY:\n"
    "then exit 1 when it is not set). Keys not set take the global value.\n"
    KEYS_HELP);
  g_option_context_set_strict_posix (ctx, TRUE);
  if (!wf_cli_parse_options (ctx, &argc, &argv, &rc))
    return rc;
  drop_dashdash (&argc, &argv);
  if (argc != 2 && argc != 3)
    return wf_cli_usage_error ("expected CONNECTION [KEY]");
  if (argc == 3 && !(only = parse_key (argv[2], &rc)))
    return rc;
  remote = open_profile (argv[1], &client);
  if (!remote)
    return WF_EXIT_FAILURE;
  user = NM_SETTING_USER (nm_connection_get_setting (NM_CONNECTION (remote),
                                                     NM_TYPE_SETTING_USER));
  if (json)
    {
      b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "connection");
      json_builder_add_string_value (b, nm_connection_get_id (NM_CONNECTION (remote)));
      json_builder_set_member_name (b, "uuid");
      json_builder_add_string_value (b, nm_connection_get_uuid (NM_CONNECTION (remote)));
      json_builder_set_member_name (b, "keys");
      json_builder_begin_object (b);
    }
  for (gsize i = 0; all[i]; i++)
    {
      const char *full = all[i];
      g_autoptr(GError) error = NULL;
      const char *value = user ? nm_setting_user_get_data (user, full) : NULL;

      if (only && !g_str_equal (only, full))
        continue;
      if (!value)
        {
          if (only)
            {
              if (!json)
                {
                  g_autofree char *id = wf_text_escape (nm_connection_get_id (NM_CONNECTION (remote)));

                  g_printerr ("%s: %s is not set in '%s' (the global value applies)\n",
                              g_get_prgname (), full, id);
                }
              result = WF_EXIT_FAILURE;
            }
          continue;
        }
      /* A hand-edited keyfile may hold a value the daemon will ignore. */
      if (!wf_scan_config_check_profile_value (full, value, &error))
        {
          g_autofree char *why = wf_text_escape (error->message);

          g_printerr ("%s: warning: %s (wlanfair-scand uses the global value)\n",
                      g_get_prgname (), why);
        }
      if (json)
        {
          json_builder_set_member_name (b, full + strlen (PREFIX));
          json_builder_add_string_value (b, value);
        }
      else
        {
          /* A profile's value is whatever a keyfile or nmcli put there. */
          g_autofree char *shown = wf_text_escape (value);

          if (only)
            printf ("%s\n", shown);
          else
            printf ("%s=%s\n", full, shown);
        }
    }
  /* A wlanfair.scan.* key the daemon does not know (a typo in a keyfile)
   * is shown too: it is in the profile, and it is ignored. */
  if (!only && user)
    {
      guint n = 0;
      const char *const *keys = nm_setting_user_get_keys (user, &n);

      for (guint i = 0; i < n; i++)
        {
          if (!g_str_has_prefix (keys[i], PREFIX) || wf_scan_config_profile_key (keys[i]))
            continue;
          g_printerr ("%s: warning: %s is not a scan guard key (wlanfair-scand ignores it)\n",
                      g_get_prgname (), keys[i]);
          if (json)
            {
              json_builder_set_member_name (b, keys[i] + strlen (PREFIX));
              json_builder_add_string_value (b, nm_setting_user_get_data (user, keys[i]));
            }
          else
            {
              g_autofree char *k = wf_text_escape (keys[i]);
              g_autofree char *v = wf_text_escape (nm_setting_user_get_data (user, keys[i]));

              printf ("%s=%s\n", k, v);
            }
        }
    }
  if (json)
    {
      json_builder_end_object (b);
      json_builder_end_object (b);
      wf_cli_print_json (b);
    }
  return result;
}
