/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-interface TCP totals: sums, the flow gauge, the RTT histogram's
 * bucket edges, interfaces that go. */
#include "wlanfair-tcptotals.h"

static void
test_sums_and_gauge (void)
{
  g_autoptr(WfTcpTotals) t = wf_tcptotals_new ();
  const WfTcpTotalsIface *i;

  g_assert_null (wf_tcptotals_get (t, 3));
  wf_tcptotals_begin (t);
  wf_tcptotals_observe (t, 3, 100, 10, 1, 20000);
  wf_tcptotals_observe (t, 3, 50, 5, 0, 30000);
  wf_tcptotals_observe (t, 4, 7, 0, 0, 0);
  i = wf_tcptotals_get (t, 3);
  g_assert_nonnull (i);
  g_assert_cmpuint (i->flows, ==, 2);
  g_assert_cmpuint (i->received_bytes, ==, 150);
  g_assert_cmpuint (i->acked_bytes, ==, 15);
  g_assert_cmpuint (i->retrans_segments, ==, 1);
  g_assert_cmpuint (i->rtt_count, ==, 2);
  g_assert_cmpuint (i->rtt_sum_us, ==, 50000);
  /* No RTT sample yet (0): a flow, not an observation. */
  i = wf_tcptotals_get (t, 4);
  g_assert_cmpuint (i->flows, ==, 1);
  g_assert_cmpuint (i->rtt_count, ==, 0);

  /* Next sample without flows: the gauge drops, the counters stay. */
  wf_tcptotals_begin (t);
  i = wf_tcptotals_get (t, 3);
  g_assert_cmpuint (i->flows, ==, 0);
  g_assert_cmpuint (i->received_bytes, ==, 150);
  g_assert_cmpuint (i->rtt_count, ==, 2);
  wf_tcptotals_observe (t, 3, 1, 1, 2, 20000);
  g_assert_cmpuint (i->flows, ==, 1);
  g_assert_cmpuint (i->received_bytes, ==, 151);
  g_assert_cmpuint (i->retrans_segments, ==, 3);
  g_assert_cmpuint (i->rtt_count, ==, 3);
}

/* A flow that is gone: its last bytes count, it is no flow and no RTT. */
static void
test_add (void)
{
  g_autoptr(WfTcpTotals) t = wf_tcptotals_new ();
  const WfTcpTotalsIface *i;

  wf_tcptotals_begin (t);
  wf_tcptotals_observe (t, 3, 10, 20, 1, 20000);
  wf_tcptotals_add (t, 3, 1, 700, 2);
  wf_tcptotals_add (t, 5, 0, 9, 0);
  i = wf_tcptotals_get (t, 3);
  g_assert_cmpuint (i->flows, ==, 1);
  g_assert_cmpuint (i->received_bytes, ==, 11);
  g_assert_cmpuint (i->acked_bytes, ==, 720);
  g_assert_cmpuint (i->retrans_segments, ==, 3);
  g_assert_cmpuint (i->rtt_count, ==, 1);
  i = wf_tcptotals_get (t, 5);
  g_assert_nonnull (i);
  g_assert_cmpuint (i->flows, ==, 0);
  g_assert_cmpuint (i->acked_bytes, ==, 9);
  g_assert_cmpuint (i->rtt_count, ==, 0);
}

static void
test_rtt_buckets (void)
{
  g_autoptr(WfTcpTotals) t = wf_tcptotals_new ();
  /* A bound itself belongs to its bucket (le: less or equal). */
  const guint32 rtts[] = { 1, 1000, 1001, 2500, 99999, 100000, 2500000, 2500001, 9000000 };
  const guint64 want[WF_TCPTOTALS_RTT_BUCKETS] = {
    /* 1ms 2.5ms 5ms 10ms 25ms 50ms 100ms 250ms 500ms 1s 2.5s */
    2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7,
  };
  const WfTcpTotalsIface *i;

  for (guint k = 0; k < G_N_ELEMENTS (rtts); k++)
    wf_tcptotals_observe (t, 2, 0, 0, 0, rtts[k]);
  i = wf_tcptotals_get (t, 2);
  g_assert_cmpuint (i->rtt_count, ==, G_N_ELEMENTS (rtts));
  for (guint b = 0; b < WF_TCPTOTALS_RTT_BUCKETS; b++)
    {
      g_assert_cmpuint (i->rtt_le[b], ==, want[b]);
      if (b > 0)
        g_assert_cmpuint (wf_tcptotals_rtt_bounds_us[b], >, wf_tcptotals_rtt_bounds_us[b - 1]);
    }
  g_assert_cmpuint (wf_tcptotals_rtt_bounds_us[0], ==, 1000);
  g_assert_cmpuint (wf_tcptotals_rtt_bounds_us[WF_TCPTOTALS_RTT_BUCKETS - 1], ==, 2500000);
}

static void
test_retain (void)
{
  g_autoptr(WfTcpTotals) t = wf_tcptotals_new ();
  g_autoptr(GArray) present = g_array_new (FALSE, FALSE, sizeof (int));
  int two = 2;

  wf_tcptotals_observe (t, 2, 1, 0, 0, 0);
  wf_tcptotals_observe (t, 5, 1, 0, 0, 0);
  g_array_append_val (present, two);
  wf_tcptotals_retain (t, present);
  g_assert_nonnull (wf_tcptotals_get (t, 2));
  g_assert_null (wf_tcptotals_get (t, 5));
  /* A number that comes back is a new interface: from zero. */
  wf_tcptotals_observe (t, 5, 3, 0, 0, 0);
  g_assert_cmpuint (wf_tcptotals_get (t, 5)->received_bytes, ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/tcptotals/sums-and-gauge", test_sums_and_gauge);
  g_test_add_func ("/reporter/tcptotals/add", test_add);
  g_test_add_func ("/reporter/tcptotals/rtt-buckets", test_rtt_buckets);
  g_test_add_func ("/reporter/tcptotals/retain", test_retain);
  return g_test_run ();
}
