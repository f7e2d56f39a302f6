/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-reportd: what this host gets from its Wi-Fi link, every period,
 * to the fairness controller (UDP), Prometheus and wlanfairctl. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-file.h"
#include "wlanfair-flows.h"
#include "wlanfair-ifname.h"
#include "wlanfair-linkstats.h"
#include "wlanfair-nl80211.h"
#include "wlanfair-output.h"
#include "wlanfair-prometheus.h"
#include "wlanfair-report.h"
#include "wlanfair-reportd-config.h"
#include "wlanfair-reportd-daemon.h"
#include "wlanfair-reportd-send.h"

#define EXIT_USAGE 2

static void
check_line (const char *what, gboolean ok, const char *detail)
{
  printf ("%-14s %s%s%s\n", what, ok ? "ok" : "FAILED", detail ? ": " : "", detail ? detail : "");
}

/* --check: the configuration and what each source gives without privilege. */
static int
check (const WfReportdConfig *c)
{
  g_autoptr(GArray) links = g_array_new (FALSE, FALSE, sizeof (WfLinkStats));
  g_autoptr(GError) error = NULL;
  g_autoptr(WfNl80211) nl = NULL;
  g_autoptr(WfFlows) flows = wf_flows_new (0, NULL, NULL);
  g_autofree char *detail = NULL;
  gboolean dir_default;
  const char *dir = wf_textfile_dir (c->textfile_dir_explicit ? c->textfile_dir : NULL,
                                     &dir_default);
  gboolean ok = TRUE, r;
  g_autofree char *dscp = c->dscp == 0 ? g_strdup ("0 (reports not marked)")
                          : wf_reportd_dscp_name (c->dscp)
                          ? g_strdup_printf ("%s (%u)", wf_reportd_dscp_name (c->dscp), c->dscp)
                          : g_strdup_printf ("%u", c->dscp);

  g_autofree char *ifs = c->interfaces && c->interfaces[0] ? g_strjoinv (",", c->interfaces)
                                                            : NULL;

  /* Every effective setting (the file's, then the options over it). */
  printf ("config         interfaces %s, interval %g s, destination %s, port %u, key %s, "
          "textfile-dir %s, top-flows %u, max-datagram %u, dscp %s, hostname %s, send %s, "
          "socket %s\n",
          ifs ? ifs : "the Wi-Fi ones", c->interval_s,
          c->destination ? c->destination : "default gateway", c->port,
          c->key_file ? c->key_file : "none (unsigned reports)",
          !c->textfile_dir_explicit ? WF_PROMETHEUS_DEFAULT_DIR " (when it exists)"
          : c->textfile_dir && c->textfile_dir[0] ? c->textfile_dir : "none",
          c->top_flows, c->max_datagram, dscp, c->hostname ? "yes" : "no",
          c->send ? "yes" : "no",
          c->socket_path && c->socket_path[0] ? c->socket_path : "none");
  /* The destination parsed and looked up as the run does. */
  if (!c->send)
    printf ("destination    not used (send=no)\n");
  else if (c->destination)
    {
      g_autofree char *to = wf_reportd_send_resolve (c->destination, c->port, &error);

      check_line ("destination", to != NULL, to ? to : error->message);
      ok &= to != NULL;
      g_clear_error (&error);
    }
  else
    printf ("destination    the default gateway of the reported interfaces, port %u "
            "(looked up at run time)\n", c->port);
  r = wf_linkstats_dump (links, &error);
  detail = r ? g_strdup_printf ("%u interfaces", links->len) : g_strdup (error->message);
  check_line ("rtnetlink", r, detail);
  ok &= r;
  g_clear_error (&error);
  g_clear_pointer (&detail, g_free);

  r = wf_flows_sample (flows, g_get_monotonic_time (), &error);
  detail = r ? g_strdup_printf ("%u TCP sockets", wf_flows_total (flows)) : g_strdup (error->message);
  check_line ("sock_diag", r, detail);
  ok &= r;
  g_clear_error (&error);
  g_clear_pointer (&detail, g_free);

  nl = wf_nl80211_new (&error);
  if (nl)
    {
      g_autoptr(GArray) wifi = g_array_new (FALSE, FALSE, sizeof (WfWifiLink));

      r = wf_nl80211_dump (nl, wifi, &error);
      detail = r ? g_strdup_printf ("%u wireless interfaces", wifi->len) : g_strdup (error->message);
      check_line ("nl80211", r, detail);
    }
  else
    printf ("nl80211        absent: %s\n", error->message);
  g_clear_error (&error);

  if (c->key_file)
    {
      g_autoptr(GBytes) key = wf_report_load_key (c->key_file, &error);

      check_line ("key", key != NULL, key ? c->key_file : error->message);
      ok &= key != NULL;
      g_clear_error (&error);
    }
  /* The same tests as the run (wlanfair-file.h), without writing. */
  if (dir && dir_default)
    printf ("textfile-dir   %s: %s\n", dir,
            g_file_test (dir, G_FILE_TEST_IS_DIR)
            ? (access (dir, W_OK) == 0 ? "writable" : "not writable by this user")
            : "does not exist (not used)");
  else if (dir)
    {
      r = wf_textfile_check (dir, WF_PROMETHEUS_FILE, &error);
      check_line ("textfile-dir", r, r ? dir : error->message);
      ok &= r;
      g_clear_error (&error);
    }
  if (c->socket_path[0])
    {
      gboolean own = g_str_equal (c->socket_path, WF_REPORTD_DEFAULT_SOCKET);
      g_autofree char *sdir = g_path_get_dirname (c->socket_path);

      /* The default one's directory is ours, made at start
       * (RuntimeDirectory=); its failures only warn there. */
      r = wf_file_check_socket (c->socket_path, &error);
      if (own && !g_file_test (sdir, G_FILE_TEST_IS_DIR))
        printf ("socket         %s (its directory is made at start)\n", c->socket_path);
      else if (!r && own)
        printf ("socket         warning: %s\n", error->message);
      else
        {
          check_line ("socket", r, r ? c->socket_path : error->message);
          ok &= r;
        }
      g_clear_error (&error);
    }
  printf ("uid            %u (no capability is needed)\n", (guint) getuid ());
  return ok ? 0 : 1;
}

int
main (int argc, char **argv)
{
  WfReportdConfig config;
  WfReportdRunOptions run = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autofree char *config_path = NULL, *interval = NULL, *destination = NULL, *key = NULL;
  g_autofree char *textfile_dir = NULL, *top_flows = NULL, *socket_path = NULL;
  g_autofree char *tcp_status = NULL, *machine_id = NULL, *port = NULL, *max_datagram = NULL;
  g_auto(GStrv) interfaces = NULL;
  gboolean version = FALSE, do_check = FALSE, no_send = FALSE, once = FALSE;
  int rc = 0;
  const GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config_path,
      "Configuration file (default " WF_REPORTD_DEFAULT_CONFIG ")", "FILE" },
    { "interface", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &interfaces,
      "Report this interface (repeatable; default: every Wi-Fi interface)", "IFACE" },
    { "interval", 0, 0, G_OPTION_ARG_STRING, &interval,
      "Seconds between samples, 0.1 to 60 (default 1)", "SECONDS" },
    { "destination", 'd', 0, G_OPTION_ARG_STRING, &destination,
      "Send reports there (default: the default gateway of the Wi-Fi interface)", "HOST:PORT" },
    { "port", 'p', 0, G_OPTION_ARG_STRING, &port,
      "UDP port with the default gateway or a HOST without one (default 7455)", "PORT" },
    { "key", 'k', 0, G_OPTION_ARG_FILENAME, &key,
      "Sign reports with the pre-shared key in FILE (mode 0600)", "FILE" },
    { "textfile-dir", 0, 0, G_OPTION_ARG_FILENAME, &textfile_dir,
      "Write wlanfair.prom there ('none': do not; default "
      WF_PROMETHEUS_DEFAULT_DIR " when it exists)", "DIR" },
    { "top-flows", 0, 0, G_OPTION_ARG_STRING, &top_flows,
      "TCP flows per report, highest goodput first (default 10)", "N" },
    { "max-datagram", 0, 0, G_OPTION_ARG_STRING, &max_datagram,
      "Datagram size target in bytes, 512 to 8192: the lowest-goodput flows are "
      "left out above it (default 4096)", "BYTES" },
    { "no-send", 0, 0, G_OPTION_ARG_NONE, &no_send, "Do not send UDP reports", NULL },
    { "socket", 0, 0, G_OPTION_ARG_FILENAME, &socket_path,
      "Local channel for wlanfairctl ('none': none; default "
      WF_REPORTD_DEFAULT_SOCKET ")", "PATH" },
    { "once", 0, 0, G_OPTION_ARG_NONE, &once,
      "Take two samples one interval apart, send and print the report, exit", NULL },
    { "check", 0, 0, G_OPTION_ARG_NONE, &do_check,
      "Check the configuration and every source, then exit", NULL },
    { "tcp-status", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &tcp_status,
      "wlanfair-tcpd's status file (tests)", "FILE" },
    { "machine-id", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &machine_id,
      "machine-id file (tests)", "FILE" },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version", NULL },
    { NULL },
  };

  /* --help, --version, --check: their output checked at exit. */
  wf_output_close_at_exit ();
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("wlanfair-reportd");
  wf_reportd_config_init (&config);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Measures what this host gets from its Wi-Fi link (interface rates, signal,\n"
    "MCS, TCP goodput per flow, scans) every period and reports it over UDP to\n"
    "the fairness controller, to Prometheus (textfile) and to wlanfairctl.");
  g_option_context_set_description (ctx, "See wlanfair-reportd(8).");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("wlanfair-reportd: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  if (argc > 1)
    {
      g_printerr ("wlanfair-reportd: unexpected argument '%s' (see --help)\n", argv[1]);
      rc = EXIT_USAGE;
      goto out;
    }
  if (version)
    {
      printf ("wlanfair-reportd %s\n", PACKAGE_VERSION);
      goto out;
    }

  /* The file first, then the options over it. */
  if (!wf_reportd_config_load (&config, config_path ? config_path : WF_REPORTD_DEFAULT_CONFIG,
                               config_path != NULL, &error) ||
      (port && !wf_reportd_config_set (&config, "port", port, &error)) ||
      (interval && !wf_reportd_config_set (&config, "interval", interval, &error)) ||
      (destination && !wf_reportd_config_set (&config, "destination", destination, &error)) ||
      (key && !wf_reportd_config_set (&config, "key", key, &error)) ||
      (textfile_dir && !wf_reportd_config_set (&config, "textfile-dir", textfile_dir, &error)) ||
      (top_flows && !wf_reportd_config_set (&config, "top-flows", top_flows, &error)) ||
      (max_datagram && !wf_reportd_config_set (&config, "max-datagram", max_datagram, &error)) ||
      (socket_path && !wf_reportd_config_set (&config, "socket", socket_path, &error)))
    {
      g_printerr ("wlanfair-reportd: %s (see --help)\n", error->message);
      rc = EXIT_USAGE;
      goto out;
    }
  if (interfaces)
    {
      g_autofree char *joined = g_strjoinv (",", interfaces);

      /* The one rule for interface names (wlanfair-ifname.h). */
      for (char **i = interfaces; *i && !error; i++)
        wf_ifname_validate ("-i", *i, &error);
      if (error || !wf_reportd_config_set (&config, "interfaces", joined, &error))
        {
          g_printerr ("wlanfair-reportd: %s (see --help)\n", error->message);
          rc = EXIT_USAGE;
          goto out;
        }
    }
  if (no_send)
    config.send = FALSE;

  if (do_check)
    {
      rc = check (&config);
      goto out;
    }
  run.once = once;
  run.tcp_status = tcp_status;
  run.machine_id = machine_id;
  rc = wf_reportd_run (&config, &run);

out:
  wf_reportd_config_clear (&config);
  return rc;
}
