/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which capabilities a configuration gives up (wlanfair-apd-caps.h); the
 * drop itself is run for real in tests/test_apd_daemon.py (setpriv). */
#include "config.h"

#include "wlanfair-apd-caps.h"

static void
test_unneeded (void)
{
  const WfApdCaps bpf = (WfApdCaps) 1 << WF_APD_CAP_BPF;

  g_assert_cmphex (wf_apd_caps_unneeded ("rwnd", FALSE), ==, 0);
  g_assert_cmphex (wf_apd_caps_unneeded ("rate", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_caps_unneeded ("delay", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_caps_unneeded ("airtime", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_caps_unneeded ("fake", FALSE), ==, bpf);
  g_assert_cmphex (wf_apd_caps_unneeded ("none", FALSE), ==, bpf);
  /* --restore: no actuator to run. */
  g_assert_cmphex (wf_apd_caps_unneeded (NULL, FALSE), ==, bpf);
  /* ack-priority loads a program whatever the actuator. */
  g_assert_cmphex (wf_apd_caps_unneeded ("rate", TRUE), ==, 0);
  g_assert_cmphex (wf_apd_caps_unneeded ("none", TRUE), ==, 0);
}

static void
test_names (void)
{
  g_autofree char *bpf = wf_apd_caps_name (WF_APD_CAP_BPF);
  g_autofree char *other = wf_apd_caps_name (5);

  g_assert_cmpstr (bpf, ==, "CAP_BPF");
  g_assert_cmpstr (other, ==, "capability 5");
}

/* Dropping nothing changes nothing and says so. */
static void
test_drop_nothing (void)
{
  g_autoptr(GError) error = NULL;
  WfApdCaps dropped = 1;
  gboolean had = wf_apd_caps_permitted (WF_APD_CAP_BPF);

  g_assert_true (wf_apd_caps_drop (0, &dropped, &error));
  g_assert_no_error (error);
  g_assert_cmphex (dropped, ==, 0);
  g_assert_cmpint (wf_apd_caps_permitted (WF_APD_CAP_BPF), ==, had);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/caps/unneeded", test_unneeded);
  g_test_add_func ("/apd/caps/names", test_names);
  g_test_add_func ("/apd/caps/drop-nothing", test_drop_nothing);
  return g_test_run ();
}
