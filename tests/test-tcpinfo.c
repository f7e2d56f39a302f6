/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_info as the kernel sends it, in each size: what is decoded and what
 * is left unset because the kernel did not send it. */
#include <linux/tcp.h>
#include <stddef.h>
#include <string.h>

#include "wlanfair-tcpinfo.h"

static struct tcp_info
sample_info (gboolean app_limited)
{
  struct tcp_info ti;

  memset (&ti, 0, sizeof ti);
  ti.tcpi_ca_state = 1;
  ti.tcpi_snd_cwnd = 42;
  ti.tcpi_rtt = 18500;
  ti.tcpi_total_retrans = 4;
  ti.tcpi_delivery_rate_app_limited = app_limited ? 1 : 0;
  ti.tcpi_delivery_rate = 2500000;
  ti.tcpi_pacing_rate = 5000000;
  ti.tcpi_bytes_acked = 123456789;
  return ti;
}

/* app_limited comes with the delivery rate (both Linux 4.9), is FALSE when
 * the bit is clear, and is not read from a struct without the rates,
 * whatever the bit says (before 4.9 it was padding). */
static void
test_app_limited (void)
{
  gsize with_rates = offsetof (struct tcp_info, tcpi_delivery_rate) +
                     sizeof (((struct tcp_info *) 0)->tcpi_delivery_rate);
  gsize without = offsetof (struct tcp_info, tcpi_delivery_rate);
  struct tcp_info ti = sample_info (TRUE);
  WfTcpInfo out;

  g_assert_true (wf_tcpinfo_decode (&ti, sizeof ti, &out));
  g_assert_true (out.have_rates);
  g_assert_true (out.app_limited);
  g_assert_cmpuint (out.delivery_rate, ==, 2500000);
  g_assert_cmpuint (out.snd_cwnd, ==, 42);

  g_assert_true (wf_tcpinfo_decode (&ti, with_rates, &out));
  g_assert_true (out.have_rates);
  g_assert_true (out.app_limited);

  g_assert_true (wf_tcpinfo_decode (&ti, without, &out));
  g_assert_false (out.have_rates);
  g_assert_false (out.app_limited);
  g_assert_cmpuint (out.rtt_us, ==, 18500);

  ti = sample_info (FALSE);
  g_assert_true (wf_tcpinfo_decode (&ti, sizeof ti, &out));
  g_assert_true (out.have_rates);
  g_assert_false (out.app_limited);
  g_assert_cmpuint (out.bytes_acked, ==, 123456789);

  /* Too short for the basic counters: nothing. */
  g_assert_false (wf_tcpinfo_decode (&ti, 8, &out));
  g_assert_false (out.app_limited);
  g_assert_false (wf_tcpinfo_decode (NULL, 0, &out));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/tcpinfo/app-limited", test_app_limited);
  return g_test_run ();
}
