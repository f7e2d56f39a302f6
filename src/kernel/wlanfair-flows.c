/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Goodput per TCP flow: bytes_acked (sent and acknowledged) and
 * bytes_received deltas between two sock_diag dumps. Only what the next
 * delta needs is kept per socket; the flows themselves are streamed
 * through a bounded top-N, so 10 000 connections cost a few hundred kB.
 * Sockets are told apart by their cookie, not their inode: a socket its
 * program closed while data was still queued (an upload's tail) goes on
 * sending with inode 0, and an inode or a 4-tuple can come back on a
 * new socket, a cookie cannot. */
#include "wlanfair-flows.h"

#include <netinet/tcp.h>
#include <string.h>

#include "wlanfair-tcptotals.h"

typedef struct {
  guint64 acked, received;
  guint32 retrans;     /* total_retrans */
  guint32 unacked;     /* written, not yet acked (wqueue); 0 without rates */
  guint32 seen;        /* sample generation that last saw it */
  guint32 route_gen;   /* route generation of `ifindex` */
  int     ifindex;
} Entry;

typedef struct {
  double tx, rx;
} Sum;

struct _WfFlows {
  guint            top_n;
  WfFlowsRouteFunc route;
  gpointer         route_data;
  GHashTable      *entries;   /* cookie (guint64 *) → Entry, inline key */
  GHashTable      *sums;      /* ifindex → Sum */
  WfTcpTotals     *totals;    /* per ifindex, since the first sample */
  WfFlow          *top;       /* top_n, sorted by goodput, highest first */
  guint            n_top;
  guint            total;
  guint32          gen;
  guint32          route_gen;
  gint64           prev_us, now_us;
  double           seconds;   /* since the previous sample, 0 on the first */
};

/* Entries start with the key so one allocation holds both. */
typedef struct {
  guint64 cookie;
  Entry   e;
} Slot;

WfFlows *
wf_flows_new (guint top_n, WfFlowsRouteFunc route, gpointer route_data)
{
  WfFlows *f = g_new0 (WfFlows, 1);

  f->top_n = top_n;
  f->route = route;
  f->route_data = route_data;
  f->entries = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  f->sums = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  f->totals = wf_tcptotals_new ();
  f->top = g_new0 (WfFlow, MAX (top_n, 1));
  f->route_gen = 1;
  return f;
}

void
wf_flows_free (WfFlows *f)
{
  if (f == NULL)
    return;
  g_hash_table_unref (f->entries);
  g_hash_table_unref (f->sums);
  wf_tcptotals_free (f->totals);
  g_free (f->top);
  g_free (f);
}

void
wf_flows_invalidate_routes (WfFlows *f)
{
  f->route_gen++;
}

void
wf_flows_begin (WfFlows *f, gint64 now_us)
{
  f->prev_us = f->now_us;
  f->now_us = now_us;
  f->seconds = f->prev_us > 0 && now_us > f->prev_us ? (now_us - f->prev_us) / 1e6 : 0;
  f->gen++;
  f->total = 0;
  f->n_top = 0;
  g_hash_table_remove_all (f->sums);
  wf_tcptotals_begin (f->totals);
}

static double
score (const WfFlow *flow)
{
  return flow->has_goodput ? flow->goodput_tx_bps + flow->goodput_rx_bps : -1;
}

/* Would a flow of this score enter the top list? Most flows are rejected
 * by one comparison with the last entry, before anything is copied. */
static gboolean
makes_top (WfFlows *f, double s)
{
  return f->top_n > 0 && (f->n_top < f->top_n || s > score (&f->top[f->n_top - 1]));
}

/* Insertion into the sorted, bounded top list. */
static void
offer_top (WfFlows *f, const WfFlow *flow)
{
  double s = score (flow);
  guint i;

  if (!makes_top (f, s))
    return;
  i = f->n_top < f->top_n ? f->n_top++ : f->n_top - 1;
  while (i > 0 && score (&f->top[i - 1]) < s)
    {
      f->top[i] = f->top[i - 1];
      i--;
    }
  f->top[i] = *flow;
}

/* Counters of one cookie never go back; should one (a kernel that reused
 * cookies), it is a new socket: everything it counts happened since. */
static guint64
delta (guint64 prev, guint64 cur)
{
  return cur >= prev ? cur - prev : cur;
}

static void
add_sum (WfFlows *f, int ifindex, double tx_bps, double rx_bps)
{
  Sum *sum = g_hash_table_lookup (f->sums, GINT_TO_POINTER (ifindex));

  if (sum == NULL)
    {
      sum = g_new0 (Sum, 1);
      g_hash_table_insert (f->sums, GINT_TO_POINTER (ifindex), sum);
    }
  sum->tx += tx_bps;
  sum->rx += rx_bps;
}

/* A TIME-WAIT socket under a cookie that had tcp_info: its FIN, sent
 * after every byte written, was acknowledged since the last sample, so
 * all that was unacknowledged then was too (an orphan's last bytes,
 * which no tcp_info will show). Counted once: the entry goes. */
static void
complete (WfFlows *f, const WfSockdiagTcp *sock)
{
  Slot *slot = g_hash_table_lookup (f->entries, &sock->cookie);

  if (slot == NULL)
    return;
  if (f->seconds > 0 && slot->e.ifindex > 0 && slot->e.unacked > 0)
    {
      wf_tcptotals_add (f->totals, slot->e.ifindex, 0, slot->e.unacked, 0);
      add_sum (f, slot->e.ifindex, slot->e.unacked * 8.0 / f->seconds, 0);
    }
  g_hash_table_remove (f->entries, &sock->cookie);
}

void
wf_flows_add (WfFlows *f, const WfSockdiagTcp *sock)
{
  WfFlow flow;
  Slot *slot = NULL;
  gboolean fresh = FALSE;
  guint64 d_acked = 0, d_received = 0, d_retrans = 0;

  f->total++;
  if (sock->state == TCP_TIME_WAIT && !sock->have_info && sock->cookie != 0)
    complete (f, sock);
  /* Only full sockets get an entry: TIME-WAIT and request sockets have
   * no counters to difference. */
  else if (sock->cookie != 0)
    {
      slot = g_hash_table_lookup (f->entries, &sock->cookie);
      if (slot == NULL && sock->have_info)
        {
          slot = g_new0 (Slot, 1);
          slot->cookie = sock->cookie;
          g_hash_table_insert (f->entries, &slot->cookie, slot);
          fresh = TRUE;
        }
    }

  if (slot && sock->ifindex)
    slot->e.ifindex = (int) sock->ifindex; /* bound to a device: no lookup */
  else if (slot && (fresh || slot->e.route_gen != f->route_gen))
    {
      slot->e.ifindex = f->route ? f->route (sock, f->route_data) : 0;
      slot->e.route_gen = f->route_gen;
    }
  flow.has_goodput = FALSE;
  flow.goodput_tx_bps = flow.goodput_rx_bps = 0;
  flow.ifindex = slot ? slot->e.ifindex
                      : (sock->ifindex ? (int) sock->ifindex
                                       : (f->route ? f->route (sock, f->route_data) : 0));

  /* A socket absent from the previous dump was opened since: all its
   * bytes fall within this interval. On the very first sample there
   * is no interval at all: the sockets open then count from now on. */
  if (slot && sock->have_info && sock->info.have_rates)
    {
      if (f->seconds > 0)
        {
          d_acked = delta (fresh ? 0 : slot->e.acked, sock->info.bytes_acked);
          d_received = delta (fresh ? 0 : slot->e.received, sock->info.bytes_received);
          flow.has_goodput = TRUE;
          flow.goodput_tx_bps = d_acked * 8.0 / f->seconds;
          flow.goodput_rx_bps = d_received * 8.0 / f->seconds;
        }
      slot->e.acked = sock->info.bytes_acked;
      slot->e.received = sock->info.bytes_received;
      slot->e.unacked = sock->wqueue;
    }
  if (slot && sock->have_info)
    {
      if (f->seconds > 0)
        d_retrans = delta (fresh ? 0 : slot->e.retrans, sock->info.total_retrans);
      slot->e.retrans = sock->info.total_retrans;
    }
  if (slot)
    slot->e.seen = f->gen;
  /* Full sockets only: TIME-WAIT and request sockets have no tcp_info and
   * are no flow an interface carries. */
  if (sock->have_info && flow.ifindex > 0)
    wf_tcptotals_observe (f->totals, flow.ifindex, d_received, d_acked, d_retrans,
                          sock->info.rtt_us);

  if (flow.has_goodput && flow.ifindex > 0)
    add_sum (f, flow.ifindex, flow.goodput_tx_bps, flow.goodput_rx_bps);
  if (makes_top (f, score (&flow)))
    {
      flow.sock = *sock;
      offer_top (f, &flow);
    }
}

static gboolean
gone (gpointer key, gpointer value, gpointer data)
{
  return ((Slot *) value)->e.seen != *(guint32 *) data;
}

void
wf_flows_end (WfFlows *f)
{
  /* Sockets that closed: their counters are of no further use. */
  g_hash_table_foreach_remove (f->entries, gone, &f->gen);
}

static gboolean
add_cb (const WfSockdiagTcp *sock, gpointer data)
{
  wf_flows_add (data, sock);
  return TRUE;
}

gboolean
wf_flows_sample (WfFlows *f, gint64 now_us, GError **error)
{
  gboolean ok;

  wf_flows_begin (f, now_us);
  ok = wf_sockdiag_dump_tcp (add_cb, f, error);
  /* A dump cut short saw only some sockets: keep the others' counters. */
  if (ok)
    wf_flows_end (f);
  return ok;
}

guint
wf_flows_total (WfFlows *f)
{
  return f->total;
}

const WfFlow *
wf_flows_top (WfFlows *f, guint *n)
{
  *n = f->n_top;
  return f->top;
}

gboolean
wf_flows_iface_goodput (WfFlows *f, int ifindex, double *tx_bps, double *rx_bps)
{
  Sum *sum;

  if (!(f->seconds > 0))
    return FALSE;
  sum = g_hash_table_lookup (f->sums, GINT_TO_POINTER (ifindex));
  *tx_bps = sum ? sum->tx : 0;
  *rx_bps = sum ? sum->rx : 0;
  return TRUE;
}

double
wf_flows_span (WfFlows *f)
{
  return f->seconds;
}

WfTcpTotals *
wf_flows_get_totals (WfFlows *f)
{
  return f->totals;
}
