/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-apd: the access point's fairness controller. The stations'
 * reports and the AP's own view of each station in, one actuator's
 * settings out (apd/wlanfair-apd-daemon.c). */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-capabilities.h"
#include "wlanfair-apd-config.h"
#include "wlanfair-apd-daemon.h"
#include "wlanfair-apd-station-source.h"
#include "wlanfair-error.h"
#include "wlanfair-ifname.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-mac.h"
#include "wlanfair-output.h"
#include "wlanfair-report.h"
#include "wlanfair-textfile.h"
#include "wlanfair-apd-output.h"
#include "wlanfair-apd-restore.h"
#include "wlanfair-cell-program.h"
#ifdef WF_HAVE_BPF
#include "wlanfair-rwnd.h"
#endif

#define EXIT_USAGE 2


static void
check_line (const char *what, gboolean ok, const char *detail)
{
  printf ("%-12s %s%s%s\n", what, ok ? "ok" : "FAILED", detail ? ": " : "", detail ? detail : "");
}

static const char *
auto_name (int mode)
{
  /* WF_APD_CARRIED_* and WF_APD_DEMAND_* share the order auto, yes, no. */
  return mode == WF_APD_CARRIED_AUTO ? "auto" : mode == WF_APD_CARRIED_YES ? "yes" : "no";
}

/* --check: every key of apd.conf as the daemon will use it (the file's,
 * then -i, -a and -o over it), as KEY=VALUE. */
static void
print_settings (const WfApdConfig *c)
{
  const WfApdControlParams *p = &c->control;
  g_autoptr(GString) weights = g_string_new (NULL), rates = g_string_new (NULL);
  g_autofree char *floor_text = p->floor_auto ? g_strdup ("auto") : g_strdup_printf ("%g", p->floor_bps);
  g_autofree char *capacity = c->rwnd_capacity_bps > 0 ? g_strdup_printf ("%g", c->rwnd_capacity_bps)
                              : g_strdup ("unset");

  for (guint i = 0; c->weights && i < c->weights->len; i++)
    {
      const WfApdWeight *w = &g_array_index (c->weights, WfApdWeight, i);
      char mac[WF_MAC_STR_LEN];

      g_string_append_printf (weights, "%s%s=%g", i ? "," : "", wf_mac_format (w->mac, mac),
                              w->weight);
    }
  for (guint i = 0; c->port_rates && i < c->port_rates->len; i++)
    {
      const WfApdPortRate *r = &g_array_index (c->port_rates, WfApdPortRate, i);

      g_string_append_printf (rates, "%s%s=%g", i ? "," : "", r->port, r->bps);
    }
  printf ("settings     interface=%s stations-from=%s controller=%s actuator=%s objective=%s "
          "directions=%s key=%s insecure-unsigned=%s bind=%s port=%u weights=%s "
          "target-jain=%g floor=%s max-delay=%g idle=%g tolerance=%g report-stale=%g "
          "feed-timeout=%g status=%s state=%s textfile-dir=%s port-rates=%s "
          "carried-reports=%s rwnd-policy=%s rwnd-capacity=%s ack-priority=%s "
          "download-demand=%s\n",
          c->interface ? c->interface : "",
          c->source == WF_APD_SOURCE_NL80211 ? "nl80211" : "bridge-ports",
          c->controller, c->actuator,
          p->objective == WF_APD_OBJECTIVE_AIRTIME ? "airtime" : "throughput",
          p->directions == WF_APD_DIR_DOWN ? "down" : p->directions == WF_APD_DIR_UP ? "up" : "both",
          c->key_file ? c->key_file : "none", c->insecure_unsigned ? "yes" : "no",
          c->bind ? c->bind : "any", c->port, weights->len ? weights->str : "none",
          p->target_jain, floor_text, p->max_delay_us / 1000.0, p->idle_bps, c->tolerance,
          c->report_stale_s, c->feed_timeout_s,
          c->status_path && c->status_path[0] ? c->status_path : "none",
          c->state_path ? c->state_path : "",
          !c->textfile_dir_explicit ? WF_TEXTFILE_DEFAULT_DIR " (when it exists)"
          : c->textfile_dir && c->textfile_dir[0] ? c->textfile_dir : "none",
          rates->len ? rates->str : "none", auto_name ((int) c->carried),
          wf_rwnd_policy_name (c->rwnd_policy),
          capacity,
          c->ack_priority ? "yes" : "no", auto_name ((int) c->download_demand));
}

/* --check: the configuration, the station source and the actuator's
 * probe, each one line; changes nothing. */
static int
check (WfApdConfig *c, GBytes *key)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdStationSource) src = NULL;
  g_autoptr(WfApdState) state = NULL;
  gboolean ok = TRUE;
  gboolean may_act = wf_apd_config_may_act (c, key != NULL);

  printf ("config       interface %s, stations from %s, controller %s, actuator %s, "
          "objective %s\n", c->interface,
          c->source == WF_APD_SOURCE_NL80211 ? "nl80211" : "bridge-ports", c->controller,
          c->actuator, c->control.objective == WF_APD_OBJECTIVE_AIRTIME ? "airtime" : "throughput");
  print_settings (c);
  if (g_str_equal (c->actuator, "rwnd"))
    printf ("rwnd-policy  %s%s\n", wf_rwnd_policy_name (c->rwnd_policy),
            c->rwnd_policy == WF_RWND_POLICY_STATION ? ": the controller's rate per station"
            : ": every TCP flow, C less the non-TCP load");
  if (key)
    check_line ("key", TRUE, c->key_file);
  else
    printf ("key          none: %s\n", c->insecure_unsigned
            ? "insecure-unsigned=yes, unsigned reports steer control"
            : "the daemon observes only");

  src = wf_apd_station_source_new (c, NULL, NULL, &error);
  if (src)
    {
      g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (WfApdApEntry));
      g_autoptr(GArray) neighs = g_array_new (FALSE, FALSE, sizeof (WfNeigh));
      g_autofree char *what = wf_apd_station_source_describe (src);

      if (wf_apd_station_source_dump (src, entries, neighs, &error))
        {
          g_autofree char *detail = g_strdup_printf ("%s: %u stations", what, entries->len);
          check_line ("stations", TRUE, detail);
        }
    }
  if (error)
    {
      check_line ("stations", FALSE, error->message);
      ok = FALSE;
      g_clear_error (&error);
    }

  /* The output paths as the run takes them, nothing written. */
  if (!wf_apd_outputs_check (c, FALSE, &error))
    {
      check_line ("outputs", FALSE, error->message);
      ok = FALSE;
      g_clear_error (&error);
    }
  else
    check_line ("outputs", TRUE, c->status_path[0] ? c->status_path : "no status file");

  state = wf_apd_state_open (c->state_path, &error);
  if (!state)
    {
      check_line ("state", FALSE, error->message);
      g_clear_error (&error);
      ok = FALSE;
    }
  else
    check_line ("state", TRUE, wf_apd_state_is_empty (state)
                ? c->state_path : "holds changes of an earlier run (restored at start)");
  if (state && !g_str_equal (c->actuator, "none"))
    {
      g_autoptr(WfActuator) a = wf_actuator_new (c->actuator, c->interface, state, &error);

      if (a)
        a->options = wf_apd_config_actuator_options (c);
      if (a && wf_actuator_probe (a, &error))
        check_line ("actuator", TRUE, c->actuator);
      else
        {
          check_line ("actuator", FALSE, error->message);
          ok = FALSE;
        }
    }
  /* Whether rwnd could run here, whatever the actuator (the actuator
   * line above already says it for actuator=rwnd). */
  if (!g_str_equal (c->actuator, "rwnd"))
    {
#ifdef WF_HAVE_BPF
      g_autoptr(GError) rerr = NULL;

      if (wf_rwnd_probe (&rerr))
        printf ("rwnd         ok: the BPF program loads here (not used: actuator %s)\n",
                c->actuator);
      else
        printf ("rwnd         cannot load here: %s (needed by actuator=rwnd only)\n",
                rerr->message);
#else
      printf ("rwnd         not built (no BPF toolchain at build time)\n");
#endif
    }
  /* The cell programs: one the configuration requires must load here;
   * one it wants (auto) says why it would stay off. */
  for (const WfCellProgramOps *const *p = wf_cell_program_list (); *p; p++)
    {
      WfCellProgramWant want = (*p)->wanted (c, may_act);
      g_autoptr(GError) perr = NULL;

      if (want == WF_CELL_PROGRAM_OFF)
        printf ("%-12s off (%s)\n", (*p)->name,
                may_act ? "as configured" : "as configured, or auto: the daemon only observes");
      else if ((*p)->probe (&perr))
        check_line ((*p)->name, TRUE, "the BPF program loads here");
      else if (want == WF_CELL_PROGRAM_REQUIRED)
        {
          check_line ((*p)->name, FALSE, perr->message);
          ok = FALSE;
        }
      else
        printf ("%-12s off: %s (%s=auto: %s)\n", (*p)->name, perr->message, (*p)->name,
                (*p)->without);
    }
  if (!wf_cell_program_list ()[0])
    printf ("cell         no cell program built (no BPF toolchain at build time): "
            "ack-priority=yes and download-demand=yes are refused\n");
  if (wf_apd_capabilities_unneeded (c->actuator, wf_cell_program_any_wanted (c, may_act)) &&
      wf_apd_capabilities_permitted (WF_APD_CAP_BPF))
    printf ("privileges   CAP_BPF is dropped at start (actuator %s does not need it)\n",
            c->actuator);
  return ok ? 0 : 1;
}

/* Least privilege: what the unit grants for rwnd goes at once when this
 * run does not need it (wlanfair-apd-capabilities.h). */
static gboolean
drop_capabilities (const char *actuator, gboolean programs, const char *why, gboolean quiet,
                   GError **error)
{
  WfApdCapabilities dropped = 0;

  if (!wf_apd_capabilities_drop (wf_apd_capabilities_unneeded (actuator, programs), &dropped,
                                 error))
    return FALSE;
  for (int cap = 0; cap < 64; cap++)
    if ((dropped >> cap) & 1)
      {
        g_autofree char *name = wf_apd_capabilities_name (cap);

        if (quiet)
          g_debug ("dropped %s (%s does not need it)", name, why);
        else
          g_message ("dropped %s (%s does not need it)", name, why);
      }
  return TRUE;
}

int
main (int argc, char **argv)
{
  WfApdConfig config;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GBytes) key = NULL;
  g_autoptr(WfApdDaemon) daemon = NULL;
  g_autofree char *config_path = NULL, *interface = NULL, *actuator = NULL;
  g_auto(GStrv) sets = NULL;
  gboolean version = FALSE, do_check = FALSE, do_restore = FALSE, from_credential = FALSE;
  int rc = 0;
  const GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config_path,
      "Configuration file (default " WF_APD_DEFAULT_CONFIG ")", "FILE" },
    { "interface", 'i', 0, G_OPTION_ARG_STRING, &interface,
      "The access point's interface (overrides interface=)", "IFACE" },
    { "actuator", 'a', 0, G_OPTION_ARG_STRING, &actuator,
      "How stations are held back: rate, delay, airtime, rwnd or none (overrides actuator=)",
      "NAME" },
    { "set", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Any apd.conf setting, over the file's (repeatable)", "KEY=VALUE" },
    { "check", 0, 0, G_OPTION_ARG_NONE, &do_check,
      "Check the configuration, the station source and the actuator, then exit", NULL },
    { "restore", 0, 0, G_OPTION_ARG_NONE, &do_restore,
      "Undo every change the state file records (after a crash), then exit", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version", NULL },
    { NULL },
  };

  /* --help, --version, --check: their output checked at exit. */
  wf_output_close_at_exit ();
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("wlanfair-apd");
  wf_apd_config_init (&config);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Makes the throughput of an access point's stations fair: the stations'\n"
    "reports (wlanfair-reportd, UDP port 7455) and the AP's own view of each\n"
    "station in; per-station rate, delay or airtime weight, or per-flow TCP\n"
    "window (rwnd), out.");
  g_option_context_set_description (ctx, "See wlanfair-apd(8).");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("wlanfair-apd: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  if (argc > 1)
    {
      g_printerr ("wlanfair-apd: unexpected argument '%s' (see --help)\n", argv[1]);
      rc = EXIT_USAGE;
      goto out;
    }
  if (version)
    {
      printf ("wlanfair-apd %s\n", PACKAGE_VERSION);
      goto out;
    }
  if (do_check && do_restore)
    {
      g_printerr ("wlanfair-apd: --check and --restore exclude each other (see --help)\n");
      rc = EXIT_USAGE;
      goto out;
    }

  /* The file first, then the options over it. */
  if (!wf_apd_config_load (&config, config_path ? config_path : WF_APD_DEFAULT_CONFIG,
                           config_path != NULL, &error))
    {
      g_printerr ("wlanfair-apd: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  /* --interface and --actuator, then --set over them (as the man page
   * says). */
  /* The one rule for interface names (wlanfair-ifname.h). */
  if ((interface && !wf_ifname_validate ("-i", interface, &error)) ||
      (interface && !wf_apd_config_set (&config, "interface", interface, &error)) ||
      (actuator && !wf_apd_config_set (&config, "actuator", actuator, &error)))
    {
      g_printerr ("wlanfair-apd: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  for (char **s = sets; s && *s; s++)
    {
      const char *eq = strchr (*s, '=');
      g_autofree char *k = eq ? g_strndup (*s, (gsize) (eq - *s)) : NULL;

      if (!eq)
        g_set_error (&error, WF_ERROR, WF_ERROR_INVALID, "--set '%s' is not KEY=VALUE", *s);
      else
        wf_apd_config_set (&config, g_strstrip (k), eq + 1, &error);
      if (error)
        {
          g_printerr ("wlanfair-apd: %s (see --help)\n", error->message);
          rc = EXIT_USAGE;
          goto out;
        }
    }

  /* --restore needs nothing but the state file: it runs as ExecStopPost=
   * even when the configuration has gone bad since the start. */
  if (do_restore)
    {
      if (!drop_capabilities (NULL, FALSE, "--restore", TRUE, &error) ||
          !wf_apd_restore (config.state_path, &error))
        {
          g_printerr ("wlanfair-apd: %s\n", error->message);
          rc = 1;
        }
      wf_apd_outputs_remove (&config);
      goto out;
    }
  if (!wf_apd_config_check (&config, &error) || !wf_cell_program_check_config (&config, &error))
    {
      g_printerr ("wlanfair-apd: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  if (!config.key_file)
    {
      config.key_file = wf_keyfile_credential ("apd.key");
      from_credential = config.key_file != NULL;
    }
  if (config.key_file &&
      !(key = wf_report_load_key_full (config.key_file, from_credential, &error)))
    {
      g_printerr ("wlanfair-apd: key: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  if (do_check)
    {
      rc = check (&config, key);
      goto out;
    }

  {
    gboolean may_act = wf_apd_config_may_act (&config, key != NULL);
    gboolean programs = wf_cell_program_any_wanted (&config, may_act);
    g_autoptr(GString) why = g_string_new (NULL);

    g_string_printf (why, "actuator %s", config.actuator);
    for (const WfCellProgramOps *const *p = wf_cell_program_list (); *p; p++)
      if ((*p)->wanted (&config, may_act) != WF_CELL_PROGRAM_OFF)
        g_string_append_printf (why, " with %s", (*p)->name);

    if (!drop_capabilities (config.actuator, programs, why->str, FALSE, &error))
      {
        g_printerr ("wlanfair-apd: %s\n", error->message);
        rc = 1;
        goto out;
      }
  }
  daemon = wf_apd_daemon_new (&config, key, &error);
  if (!daemon)
    {
      g_printerr ("wlanfair-apd: %s\n", error->message);
      rc = 1;
      goto out;
    }
  rc = wf_apd_daemon_run (daemon);

out:
  g_clear_pointer (&daemon, wf_apd_daemon_free);
  wf_apd_config_clear (&config);
  return rc;
}
