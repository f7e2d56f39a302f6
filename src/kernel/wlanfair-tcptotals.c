/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TCP counters per interface that never go down: tcp_info's byte and
 * retransmission counters live and die with their socket, so a sum over
 * the current flows drops whenever one closes. Adding each flow's growth
 * per sample instead gives counters rate() can use at any scrape interval. */
#include "wlanfair-tcptotals.h"

const guint32 wf_tcptotals_rtt_bounds_us[WF_TCPTOTALS_RTT_BUCKETS] = {
  1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000,
};

struct _WfTcpTotals {
  GHashTable *ifaces;  /* ifindex → WfTcpTotalsIface */
};

WfTcpTotals *
wf_tcptotals_new (void)
{
  WfTcpTotals *t = g_new0 (WfTcpTotals, 1);

  t->ifaces = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return t;
}

void
wf_tcptotals_free (WfTcpTotals *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->ifaces);
  g_free (t);
}

void
wf_tcptotals_begin (WfTcpTotals *t)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, t->ifaces);
  while (g_hash_table_iter_next (&it, NULL, &value))
    ((WfTcpTotalsIface *) value)->flows = 0;
}

static WfTcpTotalsIface *
add (WfTcpTotals *t, int ifindex, guint64 received_bytes, guint64 acked_bytes,
     guint64 retrans_segments)
{
  WfTcpTotalsIface *i = g_hash_table_lookup (t->ifaces, GINT_TO_POINTER (ifindex));

  if (i == NULL)
    {
      i = g_new0 (WfTcpTotalsIface, 1);
      g_hash_table_insert (t->ifaces, GINT_TO_POINTER (ifindex), i);
    }
  i->received_bytes += received_bytes;
  i->acked_bytes += acked_bytes;
  i->retrans_segments += retrans_segments;
  return i;
}

void
wf_tcptotals_add (WfTcpTotals *t, int ifindex, guint64 received_bytes,
                  guint64 acked_bytes, guint64 retrans_segments)
{
  g_return_if_fail (ifindex > 0);
  add (t, ifindex, received_bytes, acked_bytes, retrans_segments);
}

void
wf_tcptotals_observe (WfTcpTotals *t, int ifindex, guint64 received_bytes,
                      guint64 acked_bytes, guint64 retrans_segments, guint32 rtt_us)
{
  WfTcpTotalsIface *i;

  g_return_if_fail (ifindex > 0);
  i = add (t, ifindex, received_bytes, acked_bytes, retrans_segments);
  i->flows++;
  /* 0: the kernel has no RTT sample yet (SYN sent); not a 0 s RTT. */
  if (rtt_us == 0)
    return;
  i->rtt_count++;
  i->rtt_sum_us += rtt_us;
  for (guint b = 0; b < WF_TCPTOTALS_RTT_BUCKETS; b++)
    if (rtt_us <= wf_tcptotals_rtt_bounds_us[b])
      i->rtt_le[b]++;
}

const WfTcpTotalsIface *
wf_tcptotals_get (WfTcpTotals *t, int ifindex)
{
  return g_hash_table_lookup (t->ifaces, GINT_TO_POINTER (ifindex));
}

static gboolean
absent (gpointer key, gpointer value, gpointer data)
{
  GArray *present = data;

  for (guint k = 0; k < present->len; k++)
    if (g_array_index (present, int, k) == GPOINTER_TO_INT (key))
      return FALSE;
  return TRUE;
}

void
wf_tcptotals_retain (WfTcpTotals *t, GArray *ifindexes)
{
  g_hash_table_foreach_remove (t->ifaces, absent, ifindexes);
}
