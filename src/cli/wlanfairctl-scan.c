/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl scan: the scan guard (wlanfair-scand). Status and holds go
 * over its system D-Bus API; per-connection settings are written into the
 * NetworkManager profile (user.data) through libnm, so they work whether
 * the daemon runs or not. */
#include "config.h"

#include <stdio.h>

#include "wlanfairctl-scan.h"
#include "wlanfairctl.h"

static const WfCliCommand subcommands[] = {
  { "status", "Per device: suppressing or not and why, bgscan, traffic, scans",
    wf_cli_scan_status },
  { "hold", "Hold scans off while a command runs: hold -- COMMAND [ARGS]",
    wf_cli_scan_hold },
  { "set", "Set a per-connection key: set CONNECTION KEY VALUE",
    wf_cli_scan_set },
  { "get", "Show per-connection keys: get CONNECTION [KEY]",
    wf_cli_scan_get },
  { "unset", "Remove a per-connection key: unset CONNECTION KEY",
    wf_cli_scan_unset },
};

static void
usage (void)
{
  printf ("Usage: wlanfairctl scan [status] [--json]\n"
          "       wlanfairctl scan hold [--reason TEXT] [--require] -- COMMAND [ARGS...]\n"
          "       wlanfairctl scan set CONNECTION KEY VALUE\n"
          "       wlanfairctl scan get CONNECTION [KEY]\n"
          "       wlanfairctl scan unset CONNECTION KEY\n"
          "\n"
          "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (subcommands); i++)
    printf ("  %-7s %s\n", subcommands[i].name, subcommands[i].summary);
  printf ("\nSee wlanfairctl-scan(1).\n");
}

int
wf_cli_scan (int argc, char **argv)
{
  const char *sub;

  /* Bare "scan" and "scan --json" mean "scan status". */
  if (argc < 2 || (argv[1][0] == '-' && !g_str_equal (argv[1], "--help")
                   && !g_str_equal (argv[1], "-h")))
    return wf_cli_scan_status (argc, argv);
  sub = argv[1];
  if (g_str_equal (sub, "--help") || g_str_equal (sub, "-h") || g_str_equal (sub, "help"))
    {
      usage ();
      return WF_EXIT_OK;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (subcommands); i++)
    if (g_str_equal (sub, subcommands[i].name))
      {
        wf_cli_enter_command (sub);
        return subcommands[i].run (argc - 1, argv + 1);
      }
  return wf_cli_usage_error ("unknown command '%s'", sub);
}
