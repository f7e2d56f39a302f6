/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl listen: placeholder until its issue lands. */
#include "config.h"

#include "wlanfairctl.h"

int
wf_cli_listen (int argc, char **argv)
{
  return wf_cli_fail ("'listen' is not available in this build yet");
}
