/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-number.h"

G_BEGIN_DECLS

enum {
  WF_EXIT_OK = 0,
  WF_EXIT_FAILURE = 1, /* bad input data, I/O, the system */
  WF_EXIT_USAGE = 2,   /* bad command line */
};

typedef struct {
  const char *name;
  const char *summary;
  int       (*run) (int argc, char **argv);
} WfCliCommand;

/* One subcommand per file: wlanfairctl-<name>.c */
int wf_cli_ap (int argc, char **argv);
int wf_cli_fairness (int argc, char **argv);
int wf_cli_listen (int argc, char **argv);
int wf_cli_scan (int argc, char **argv);
int wf_cli_status (int argc, char **argv);
int wf_cli_tcp (int argc, char **argv);
int wf_cli_top (int argc, char **argv);

/* A command with subcommands ("scan", "ap"): runs the one argv[1] names;
 * bare, or with an option first, the first of `subs` (its status). */
int wf_cli_run_subcommand (int argc, char **argv, const WfCliCommand *subs, gsize n_subs,
                           void (*usage) (void));

/* Appends NAME to the program name ("wlanfairctl scan" -> "wlanfairctl
 * scan hold") for a command's own subcommand. */
void wf_cli_enter_command (const char *name);

/* Print "wlanfairctl CMD: message (see --help)" as one line; returns 2. */
int wf_cli_usage_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
/* Print "wlanfairctl CMD: message"; returns 1. */
int wf_cli_fail (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

/* TEXT as a number (wf_number_parse); on error prints "OPTION: why" as a
 * usage error and returns its exit status, else WF_EXIT_OK. */
int wf_cli_parse_number (const char    *option,
                         const char    *text,
                         WfNumberFlags  flags,
                         double        *out);

/* Every name given with -i/--interface against the one rule
 * (wf_ifname_validate()); a usage error (2) on the first bad one. */
int wf_cli_check_interfaces (char **names);

gboolean wf_cli_parse_options (GOptionContext *context,
                               int            *argc,
                               char         ***argv,
                               int            *exit_code);

/* JSON text of NODE by the project's one writer (WfJsonWriter): valid
 * for every double (json-glib's generator writes "2e+17.0" and "nan");
 * non-finite numbers become null. Pretty, or one line (COMPACT). */
char *wf_cli_json_to_text (JsonNode *node, gboolean compact);
/* The pretty text of BUILDER's or NODE's root on standard output. */
void wf_cli_print_json (JsonBuilder *builder);
void wf_cli_print_json_node (JsonNode *node);

/* Bit/s with an SI prefix: "5.15 Mbit/s", "110.0 kbit/s", "1.20 Gbit/s". */
char *wf_cli_format_bps (double bps);

G_END_DECLS
