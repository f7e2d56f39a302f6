/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One file per concern: wlanfairctl-scan-{status,profile,hold}.c */
int wf_cli_scan_status (int argc, char **argv);
int wf_cli_scan_set (int argc, char **argv);
int wf_cli_scan_get (int argc, char **argv);
int wf_cli_scan_unset (int argc, char **argv);
int wf_cli_scan_hold (int argc, char **argv);

G_END_DECLS
