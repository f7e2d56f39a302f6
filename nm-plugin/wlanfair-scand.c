/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-scand: no Wi-Fi scans while traffic flows. Sets the live bgscan
 * of the current wpa_supplicant network to "" during traffic (or holds)
 * and restores the exact previous value when idle, on SIGTERM, and at the
 * next start after a crash. See nm-plugin/README.md and wlanfair-scand(8). */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include "wlanfair-daemon.h"
#include "wlanfair-file.h"
#include "wlanfair-output.h"
#include "wlanfair-scan-config.h"
#include "wlanfair-scan-guard.h"
#include "wlanfair-scan-metrics.h"
#include "wlanfair-scan-service.h"
#include "wlanfair-scan-state.h"
#include "wlanfair-textfile.h"

#define EXIT_USAGE 2
#define DEFAULT_CONFIG SYSCONFDIR "/wlanfair/scan.conf"
#define DEFAULT_STATE_DIR "/run/wlanfair-scand"

typedef struct {
  GMainLoop   *loop;
  WfDaemon    *life;       /* SIGTERM/SIGINT, READY, STOPPING */
  WfScanGuard *guard;
  int          exit_code;
  gboolean     have_name;
} Daemon;

static void
on_name_acquired (GDBusConnection *bus, const char *name, gpointer user_data)
{
  Daemon *d = user_data;

  d->have_name = TRUE;
  g_message ("%s on the bus: ready", name);
  wf_daemon_ready (d->life, "watching wpa_supplicant");
}

static void
on_name_lost (GDBusConnection *bus, const char *name, gpointer user_data)
{
  Daemon *d = user_data;

  g_warning ("%s: %s", name, d->have_name ? "name lost" :
             "cannot own the name (another instance, or the D-Bus policy refuses it)");
  d->exit_code = 1;
  g_main_loop_quit (d->loop);
}

static void
on_bus_closed (GDBusConnection *bus, gboolean remote, GError *error, gpointer user_data)
{
  Daemon *d = user_data;

  /* Nothing works without the bus; exit 1 so that systemd restarts us
   * (the state file keeps what must be restored). */
  g_warning ("the D-Bus connection closed%s%s", error ? ": " : "", error ? error->message : "");
  d->exit_code = 1;
  g_main_loop_quit (d->loop);
}

/* The state directory and the textfile as the run takes them
 * (wlanfair-file.h): the default directory is ours, made at start
 * (`make`); one the user named must exist, and so must a named textfile
 * directory. --check runs it with make FALSE, writing nothing. */
static gboolean
check_paths (const char *state_dir, const WfScanConfig *c, gboolean make, GError **error)
{
  gboolean own = g_str_equal (state_dir, DEFAULT_STATE_DIR);

  if (own && make && !wf_file_make_own_dir (state_dir, 0755, error))
    return FALSE;
  if (!(own && !make && !g_file_test (state_dir, G_FILE_TEST_EXISTS)) &&
      !wf_scan_state_check (state_dir, error))
    return FALSE;
  /* The default textfile directory is used while it exists. */
  if (c->textfile_dir && c->textfile_dir[0] &&
      !wf_textfile_check (c->textfile_dir, WF_SCAN_METRICS_FILE, error))
    return FALSE;
  return TRUE;
}

static GDBusConnection *
connect_bus (const char *address, GError **error)
{
  if (!address)
    return g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, error);
  return g_dbus_connection_new_for_address_sync (address,
                                                 G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                 | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                 NULL, NULL, error);
}

int
main (int argc, char **argv)
{
  g_autofree char *config_path = NULL;
  g_autofree char *state_dir = NULL;
  g_autofree char *bus_address = NULL;
  g_autofree char *sample = NULL;
  g_autofree char *textfile_dir = NULL;
  gboolean restore_only = FALSE, check_config = FALSE, verbose = FALSE, version = FALSE;
  GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config_path, "Configuration file (drop-ins in FILE.d/)", "FILE" },
    { "state-dir", 's', 0, G_OPTION_ARG_FILENAME, &state_dir, "State directory", "DIR" },
    { "bus", 'b', 0, G_OPTION_ARG_STRING, &bus_address, "D-Bus address instead of the system bus", "ADDRESS" },
    /* No -i: in every other program it names an interface. */
    { "sample-interval", 0, 0, G_OPTION_ARG_STRING, &sample, "Link counter sampling interval", "MS" },
    { "textfile-dir", 0, 0, G_OPTION_ARG_FILENAME, &textfile_dir,
      "node_exporter textfile directory for wlanfair-scan.prom ('none': no textfile)", "DIR" },
    { "restore", 0, 0, G_OPTION_ARG_NONE, &restore_only, "Restore the bgscan values in the state file, then exit", NULL },
    { "check", 0, 0, G_OPTION_ARG_NONE, &check_config,
      "Validate the configuration, print every effective setting, then exit", NULL },
    /* The older name, kept for scripts and units. */
    { "check-config", 0, 0, G_OPTION_ARG_NONE, &check_config, "Same as --check", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Debug messages", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- no Wi-Fi scans while traffic flows");
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  WfScanConfig config;
  Daemon d = { 0 };
  guint owner_id;

  /* --help, --version, --check: their output checked at exit. */
  wf_output_close_at_exit ();
  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "wlanfair-scand: %s (see --help)\n", error->message);
      return EXIT_USAGE;
    }
  if (argc > 1)
    {
      fprintf (stderr, "wlanfair-scand: unexpected argument '%s' (see --help)\n", argv[1]);
      return EXIT_USAGE;
    }
  if (version)
    {
      printf ("wlanfair-scand %s\n", PACKAGE_VERSION);
      return 0;
    }
  /* Default: messages (every decision and bgscan write, with its
   * reason) and warnings; --verbose adds traffic, carrier, state and
   * per-scan details. */
  if (verbose)
    g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  if (!state_dir)
    state_dir = g_strdup (g_getenv ("RUNTIME_DIRECTORY") ? g_getenv ("RUNTIME_DIRECTORY") : DEFAULT_STATE_DIR);

  wf_scan_config_init_defaults (&config);
  if (!wf_scan_config_load (&config, config_path ? config_path : DEFAULT_CONFIG,
                            config_path != NULL, &error))
    {
      fprintf (stderr, "wlanfair-scand: %s (see --help)\n", error->message);
      return EXIT_USAGE;
    }
  if ((sample && !wf_scan_config_set (&config, "sample-interval", sample, &error))
      || (textfile_dir && !wf_scan_config_set (&config, "textfile-dir", textfile_dir, &error)))
    {
      fprintf (stderr, "wlanfair-scand: --%s (see --help)\n", error->message);
      return EXIT_USAGE;
    }
  if (check_config)
    {
      g_autofree char *floor = config.roam_floor_auto ? g_strdup ("auto")
                               : g_strdup_printf ("%d", config.roam_floor_dbm);

      /* Every key of scan.conf, as the daemon will use it. */
      printf ("mode=%s policy=%s start-pps=%g start-window=%g idle-pps=%g idle-holdoff=%g "
              "roam-floor=%s roam-floor-margin=%d roam-hysteresis=%d beacon-loss-holdoff=%g "
              "sample-interval=%u signal-interval=%u textfile-dir=%s\n",
              wf_scan_mode_names[config.mode],
              wf_scan_policy_names[config.policy], config.start_pps, config.start_window_s,
              config.idle_pps, config.idle_holdoff_s, floor, config.roam_floor_margin_db,
              config.roam_hysteresis_db, config.beacon_loss_holdoff_s,
              config.sample_interval_ms, config.signal_interval_ms,
              !config.textfile_dir ? WF_TEXTFILE_DEFAULT_DIR " (while it exists)"
              : config.textfile_dir[0] ? config.textfile_dir : "none");
      if (!check_paths (state_dir, &config, FALSE, &error))
        {
          fprintf (stderr, "wlanfair-scand: %s\n", error->message);
          return 1;
        }
      return 0;
    }

  /* After a crash the textfile would go on saying "holding". */
  if (restore_only)
    wf_scan_guard_remove_textfile (&config);
  bus = connect_bus (bus_address, &error);
  if (!bus)
    {
      g_warning ("D-Bus %s: %s", bus_address ? bus_address : "system bus", error->message);
      return 1;
    }
  g_dbus_connection_set_exit_on_close (bus, FALSE);
  if (restore_only)
    {
      /* No directory, no state: nothing to restore (none is created). */
      if (!g_file_test (state_dir, G_FILE_TEST_IS_DIR))
        return 0;
      if (!wf_scan_guard_restore_state (bus, state_dir, &error))
        {
          g_warning ("%s", error->message);
          return 1;
        }
      return 0;
    }

  if (!check_paths (state_dir, &config, TRUE, &error))
    {
      g_warning ("%s", error->message);
      return 1;
    }
  d.loop = g_main_loop_new (NULL, FALSE);
  d.guard = wf_scan_guard_new (bus, &config, state_dir, &error);
  if (!d.guard)
    {
      g_warning ("%s", error->message);
      g_main_loop_unref (d.loop);
      return 1;
    }
  g_message ("wlanfair-scand %s: mode %s, policy %s, traffic from %g packets/s over %g s, "
             "idle under %g packets/s for %g s, samples every %u ms", PACKAGE_VERSION,
             wf_scan_mode_names[config.mode], wf_scan_policy_names[config.policy],
             config.start_pps, config.start_window_s, config.idle_pps, config.idle_holdoff_s,
             config.sample_interval_ms);
  owner_id = g_bus_own_name_on_connection (bus, WF_SCAN_SERVICE_NAME,
                                           G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                                           on_name_acquired, on_name_lost, &d, NULL);
  g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), &d);
  d.life = wf_daemon_new (G_LOG_DOMAIN, d.loop, "stopping: restoring every bgscan changed");
  g_main_loop_run (d.loop);

  wf_scan_guard_shutdown (d.guard);
  g_bus_unown_name (owner_id);
  wf_scan_guard_free (d.guard);
  g_dbus_connection_flush_sync (bus, NULL, NULL);
  wf_daemon_free (d.life);
  g_main_loop_unref (d.loop);
  g_message ("stopped");
  return d.exit_code;
}
