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
  /* Bare "scan" and "scan --json" mean "scan status". */
  return wf_cli_run_subcommand (argc, argv, subcommands, G_N_ELEMENTS (subcommands), usage);
}
