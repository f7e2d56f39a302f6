/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl scan: placeholder until its issue lands. */
#include "config.h"

#include "wlanfairctl.h"

int
wf_cli_scan (int argc, char **argv)
{
  return wf_cli_fail ("'scan' is not available in this build yet");
}
