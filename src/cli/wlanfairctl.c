/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl: dispatch to one subcommand per file. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-output.h"
#include "wlanfairctl.h"

static const WfCliCommand commands[] = {
  { "ap", "The access-point fairness controller (wlanfair-apd): status, watch",
    wf_cli_ap },
  { "fairness", "Jain's and the trade-off index of throughputs or a series",
    wf_cli_fairness },
  { "listen", "Receive hosts' reports: per-host table, Jain and trade-off",
    wf_cli_listen },
  { "scan", "The scan guard: status, holds, per-connection policy",
    wf_cli_scan },
  { "status", "What this host gets: interfaces, Wi-Fi link, TCP flows",
    wf_cli_status },
  { "tcp", "The ACK-loss congestion controls: status, counters, connections",
    wf_cli_tcp },
  { "top", "Live view of interfaces and flows (q to quit)",
    wf_cli_top },
};

static void
usage (void)
{
  printf ("Usage: wlanfairctl [--help] [--version] COMMAND [ARGS...]\n"
          "\n"
          "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    printf ("  %-10s %s\n", commands[i].name, commands[i].summary);
  printf ("\n"
          "'wlanfairctl COMMAND --help' describes a command; see also "
          "wlanfairctl(1).\n");
}

int
main (int argc, char **argv)
{
  const char *cmd;

  /* Before any output, and before GIO ignores SIGPIPE: a failed write
   * to stdout makes the exit status 1 (wlanfair-output.h). */
  wf_output_close_at_exit ();
  setlocale (LC_ALL, "");
  /* Numbers in and out are C-locale ("2.5", never "2,5"). */
  setlocale (LC_NUMERIC, "C");

  if (argc < 2)
    {
      g_set_prgname ("wlanfairctl");
      return wf_cli_usage_error ("no command given");
    }

  cmd = argv[1];
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (cmd, commands[i].name))
      {
        g_autofree char *prgname = g_strdup_printf ("wlanfairctl %s", cmd);

        /* Before any work (GLib 2.72 frees the old name); GOption's usage
         * line and our messages then name the subcommand. */
        g_set_prgname (prgname);
        /* The subcommand sees itself as argv[0]. */
        return commands[i].run (argc - 1, argv + 1);
      }

  g_set_prgname ("wlanfairctl");
  if (g_str_equal (cmd, "--help") || g_str_equal (cmd, "-h") || g_str_equal (cmd, "help"))
    {
      usage ();
      return WF_EXIT_OK;
    }
  if (g_str_equal (cmd, "--version") || g_str_equal (cmd, "-V"))
    {
      printf ("wlanfairctl %s\n", PACKAGE_VERSION);
      return WF_EXIT_OK;
    }

  if (cmd[0] == '-')
    return wf_cli_usage_error ("unknown option %s", cmd);
  return wf_cli_usage_error ("unknown command '%s'", cmd);
}
