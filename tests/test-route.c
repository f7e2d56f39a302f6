/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Endpoint parsing and route lookups on the real kernel (RTM_GETROUTE
 * needs no privilege). */
#include <arpa/inet.h>
#include <net/if.h>
#include <string.h>

#include "wlanfair-route.h"

static void
test_parse (void)
{
  guint8 a[16];
  int fam;
  guint16 port;

  g_assert_true (wf_route_parse_endpoint ("192.0.2.1:5201", &fam, a, &port));
  g_assert_cmpint (fam, ==, AF_INET);
  g_assert_cmpuint (port, ==, 5201);
  g_assert_cmpuint (a[0], ==, 192);
  g_assert_true (wf_route_parse_endpoint ("[2001:db8::1]:443", &fam, a, &port));
  g_assert_cmpint (fam, ==, AF_INET6);
  g_assert_cmpuint (port, ==, 443);
  g_assert_cmpuint (a[0], ==, 0x20);
  g_assert_true (wf_route_parse_endpoint ("2001:db8::1", &fam, a, &port));
  g_assert_cmpint (fam, ==, AF_INET6);
  g_assert_cmpuint (port, ==, 0);
  /* An IPv6 socket speaking IPv4 is routed as IPv4. */
  g_assert_true (wf_route_parse_endpoint ("[::ffff:198.51.100.7]:80", &fam, a, &port));
  g_assert_cmpint (fam, ==, AF_INET);
  g_assert_cmpuint (a[0], ==, 198);
  g_assert_cmpuint (a[3], ==, 7);
  g_assert_false (wf_route_parse_endpoint ("[2001:db8::1", &fam, a, &port));
  g_assert_false (wf_route_parse_endpoint ("example.org:80", &fam, a, &port));
  g_assert_false (wf_route_parse_endpoint (":80", &fam, a, &port));
}

static void
test_lookup (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfRoute) r = wf_route_new (&error);
  char gw[64];

  g_assert_no_error (error);
  g_assert_cmpint (wf_route_egress (r, "127.0.0.1:80"), ==, (int) if_nametoindex ("lo"));
  /* Cached: same answer. */
  g_assert_cmpint (wf_route_egress (r, "127.0.0.1:81"), ==, (int) if_nametoindex ("lo"));
  wf_route_flush (r);
  g_assert_cmpint (wf_route_egress (r, "[::1]:80"), ==, (int) if_nametoindex ("lo"));
  g_assert_cmpint (wf_route_egress (r, "not-an-address"), ==, 0);
  /* No interface has index 999999: no gateway through it. */
  g_assert_false (wf_route_default_gateway (r, 999999, AF_INET, gw, sizeof gw, &error));
  g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/route/parse", test_parse);
  g_test_add_func ("/reporter/route/lookup", test_lookup);
  return g_test_run ();
}
