/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ap-status fuzz target links wlanfairctl-ap.c and -util.c alone:
 * `ap watch` (a terminal loop) stands in here; the target never calls it. */
#include <stdlib.h>

#include "wlanfairctl-ap.h"

int
wf_cli_ap_watch (int argc, char **argv)
{
  (void) argc, (void) argv;
  abort ();
}
