/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl top: placeholder until its issue lands. */
#include "config.h"

#include "wlanfairctl.h"

int
wf_cli_top (int argc, char **argv)
{
  return wf_cli_fail ("'top' is not available in this build yet");
}
