/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interface counters from the real kernel: traffic on the loopback
 * interface (no privilege needed) must show up in the next dump. */
#include <gio/gio.h>
#include <string.h>

#include "wlanfair-linkstats.h"

static GArray *
dump (void)
{
  g_autoptr(GError) error = NULL;
  GArray *a = g_array_new (FALSE, TRUE, sizeof (WfLinkStats));

  g_assert_true (wf_linkstats_dump (a, &error));
  g_assert_no_error (error);
  return a;
}

static void
test_loopback_counts (void)
{
  g_autoptr(GArray) before = dump ();
  g_autoptr(GArray) after = NULL;
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GSocketAddress) dst = NULL;
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GError) error = NULL;
  const WfLinkStats *a, *b;
  char payload[1000];
  WfLinkRates r;

  a = wf_linkstats_find (before, "lo");
  g_assert_nonnull (a);
  g_assert_cmpint (a->ifindex, >, 0);
  g_assert_true (a->up);

  /* 50 datagrams of 1000 bytes to a closed port: each crosses lo once
   * (plus an ICMP error back), so both directions grow by at least that. */
  memset (payload, 'x', sizeof payload);
  sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &error);
  g_assert_no_error (error);
  dst = g_inet_socket_address_new (lo, 9);
  for (int i = 0; i < 50; i++)
    g_socket_send_to (sock, dst, payload, sizeof payload, NULL, NULL);

  after = dump ();
  b = wf_linkstats_find (after, "lo");
  g_assert_nonnull (b);
  g_assert_cmpuint (b->tx_packets - a->tx_packets, >=, 50);
  g_assert_cmpuint (b->rx_packets - a->rx_packets, >=, 50);
  g_assert_cmpuint (b->tx_bytes - a->tx_bytes, >=, 50 * 1000);

  wf_linkstats_rates (a, b, 0.5, &r);
  g_assert_false (r.reset);
  g_assert_cmpfloat (r.tx_packets, >=, 100);
  g_assert_cmpfloat (r.tx_bytes, >=, 100000);
}

static void
test_rates (void)
{
  WfLinkStats p = { .rx_bytes = 1000, .tx_bytes = 500, .rx_packets = 10, .tx_packets = 5 };
  WfLinkStats c = { .rx_bytes = 3000, .tx_bytes = 500, .rx_packets = 30, .tx_packets = 5,
                    .rx_dropped = 2 };
  WfLinkStats reset = { .rx_bytes = 400 };
  WfLinkRates r;

  wf_linkstats_rates (&p, &c, 2.0, &r);
  g_assert_cmpfloat (r.rx_bytes, ==, 1000);
  g_assert_cmpfloat (r.tx_bytes, ==, 0);
  g_assert_cmpfloat (r.rx_packets, ==, 10);
  g_assert_cmpfloat (r.rx_dropped, ==, 1);
  g_assert_false (r.reset);

  /* Counters went back: a reset, counted from zero, flagged. */
  wf_linkstats_rates (&p, &reset, 2.0, &r);
  g_assert_true (r.reset);
  g_assert_cmpfloat (r.rx_bytes, ==, 200);

  /* No time elapsed: no rates rather than a division by zero. */
  wf_linkstats_rates (&p, &c, 0, &r);
  g_assert_cmpfloat (r.rx_bytes, ==, 0);
}

static void
test_find_missing (void)
{
  g_autoptr(GArray) a = dump ();

  g_assert_null (wf_linkstats_find (a, "no-such-if0"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/linkstats/loopback-counts", test_loopback_counts);
  g_test_add_func ("/linkstats/rates", test_rates);
  g_test_add_func ("/linkstats/find-missing", test_find_missing);

  return g_test_run ();
}
