/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl status: placeholder until its issue lands. */
#include "config.h"

#include "wlanfairctl.h"

int
wf_cli_status (int argc, char **argv)
{
  return wf_cli_fail ("'status' is not available in this build yet");
}
