/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which capabilities a configuration gives up
 * (wlanfair-apd-capabilities.h); the drop itself is run for real in
 * tests/apd/test_apd_daemon.py (setpriv). */
#include "config.h"

#include "wlanfair-apd-capabilities.h"

static void
test_unneeded (void)
{
  const WfApdCapabilities bpf = (WfApdCapabilities) 1 << WF_APD_CAP_BPF;

  g_assert_cmphex (wf_apd_capabilities_unneeded ("rwnd", FALSE), ==, 0);
  g_assert_cmphex (wf_apd_capabilities_unneeded ("rate", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_capabilities_unneeded ("delay", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_capabilities_unneeded ("airtime", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_capabilities_unneeded ("fake", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_capabilities_unneeded ("none", FALSE), ==, bpf);
  /* --restore: no actuator to run. */
  g_assert_cmphex (wf_apd_capabilities_unneeded (NULL, FALSE), ==, bpf);
  /* ack-priority loads a program whatever the actuator. */
  g_assert_cmphex (wf_apd_capabilities_unneeded ("rate", TRUE), ==, 0);
  g_assert_cmphex (wf_apd_capabilities_unneeded ("none", TRUE), ==, 0);
}

static void
test_names (void)
{
  g_autofree char *bpf = wf_apd_capabilities_name (WF_APD_CAP_BPF);
  g_autofree char *other = wf_apd_capabilities_name (5);

  g_assert_cmpstr (bpf, ==, "CAP_BPF");
  g_assert_cmpstr (other, ==, "capability 5");
}

/* Dropping nothing changes nothing and says so. */
static void
test_drop_nothing (void)
{
  g_autoptr(GError) error = NULL;
  WfApdCapabilities dropped = 1;
  gboolean had = wf_apd_capabilities_permitted (WF_APD_CAP_BPF);

  g_assert_true (wf_apd_capabilities_drop (0, &dropped, &error));
  g_assert_no_error (error);
  g_assert_cmphex (dropped, ==, 0);
  g_assert_cmpint (wf_apd_capabilities_permitted (WF_APD_CAP_BPF), ==, had);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/capabilities/unneeded", test_unneeded);
  g_test_add_func ("/apd/capabilities/names", test_names);
  g_test_add_func ("/apd/capabilities/drop-nothing", test_drop_nothing);
  return g_test_run ();
}
