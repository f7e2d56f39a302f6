/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The AP controller's receiver: what passes, what is counted and dropped. */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "wlanfair-apd-receiver.h"

typedef struct {
  guint  n;
  char   host[33];
  int    family;
  guint8 addr[16];
} Seen;

static void
on_report (WfReportView *view, const WfApdReportFrom *from, gpointer data)
{
  Seen *s = data;

  s->n++;
  g_strlcpy (s->host, view->host, sizeof s->host);
  s->family = from->family;
  memcpy (s->addr, from->addr, 16);
  wf_report_view_free (view);
}

static GBytes *
seal (WfReportSender *sender)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(GError) error = NULL;

  json_object_set_array_member (body, "interfaces", json_array_new ());
  GBytes *b = wf_report_sender_seal (sender, body, 1.0, &error);
  g_assert_no_error (error);
  return b;
}

static void
handle (WfApdReceiver *r, GBytes *b, const char *ip)
{
  g_autoptr(GInetAddress) a = g_inet_address_new_from_string (ip);
  g_autoptr(GSocketAddress) sa = g_inet_socket_address_new (a, 40000);
  gsize n;
  const guint8 *d = g_bytes_get_data (b, &n);

  wf_apd_receiver_handle (r, d, n, sa);
}

static void
test_keyed (void)
{
  static const char k[] = "0123456789abcdef0123";
  g_autoptr(GBytes) key = g_bytes_new_static (k, sizeof k - 1);
  g_autoptr(GBytes) other = g_bytes_new_static ("fedcba9876543210zzzz", 20);
  Seen seen = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdReceiver) r = wf_apd_receiver_new (NULL, 0, key, on_report, &seen, &error);
  g_assert_no_error (error);

  WfReportSender *good = wf_report_sender_new ("0123456789abcdef0123456789abcdef", key);
  WfReportSender *forger = wf_report_sender_new ("0123456789abcdef0123456789abcdef", other);
  WfReportSender *unsigned_ = wf_report_sender_new ("0123456789abcdef0123456789abcdef", NULL);

  g_autoptr(GBytes) first = seal (good);
  handle (r, first, "10.1.0.7");
  g_assert_cmpuint (seen.n, ==, 1);
  g_assert_cmpint (seen.family, ==, AF_INET);
  g_assert_cmpuint (seen.addr[3], ==, 7);

  /* The same datagram again: a replay. */
  handle (r, first, "10.1.0.7");
  g_assert_cmpuint (wf_apd_receiver_rejected (r, WF_REPORT_REJECT_REPLAY), ==, 1);

  g_autoptr(GBytes) forged = seal (forger);
  handle (r, forged, "10.1.0.8");
  g_assert_cmpuint (wf_apd_receiver_rejected (r, WF_REPORT_REJECT_BAD_MAC), ==, 1);

  g_autoptr(GBytes) plain = seal (unsigned_);
  handle (r, plain, "2001:db8::9");
  g_assert_cmpuint (wf_apd_receiver_rejected (r, WF_REPORT_REJECT_UNSIGNED), ==, 1);

  g_autoptr(GBytes) junk = g_bytes_new_static ("{\"wlanfair_report\":1,", 21);
  handle (r, junk, "10.1.0.9");
  /* With a key the mac is checked first: a truncated datagram has none. */
  g_assert_cmpuint (wf_apd_receiver_rejected (r, WF_REPORT_REJECT_UNSIGNED), ==, 2);

  g_assert_cmpuint (seen.n, ==, 1);
  g_assert_cmpuint (wf_apd_receiver_accepted (r), ==, 1);

  /* The next report of the good host passes, from an IPv6 source. */
  g_autoptr(GBytes) second = seal (good);
  handle (r, second, "2001:db8::7");
  g_assert_cmpuint (seen.n, ==, 2);
  g_assert_cmpint (seen.family, ==, AF_INET6);
  g_assert_cmpuint (seen.addr[15], ==, 7);

  wf_report_sender_free (good);
  wf_report_sender_free (forger);
  wf_report_sender_free (unsigned_);
}

/* Without a key, unsigned and signed reports pass (unauthenticated);
 * the daemon decides whether to act on them. */
static void
test_unkeyed (void)
{
  Seen seen = { 0 };
  g_autoptr(WfApdReceiver) r = wf_apd_receiver_new (NULL, 0, NULL, on_report, &seen, NULL);
  WfReportSender *s = wf_report_sender_new ("00112233445566778899aabbccddeeff", NULL);
  g_autoptr(GBytes) b = seal (s);

  handle (r, b, "::ffff:10.1.0.3");
  g_assert_cmpuint (seen.n, ==, 1);
  /* v4-mapped: reported as IPv4. */
  g_assert_cmpint (seen.family, ==, AF_INET);
  g_assert_cmpuint (seen.addr[3], ==, 3);

  g_autoptr(GBytes) junk = g_bytes_new_static ("{\"wlanfair_report\":1,", 21);
  handle (r, junk, "10.1.0.9");
  g_assert_cmpuint (wf_apd_receiver_rejected (r, WF_REPORT_REJECT_JSON), ==, 1);
  g_assert_cmpuint (seen.n, ==, 1);
  wf_report_sender_free (s);
}

/* A bind address that is not one: an error naming it, no receiver. */
static void
test_socket (void)
{
  Seen seen = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdReceiver) bad = wf_apd_receiver_new ("not-an-address", 7455, NULL, on_report, &seen, &error);

  g_assert_null (bad);
  g_assert_nonnull (strstr (error->message, "not-an-address"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/receiver/keyed", test_keyed);
  g_test_add_func ("/apd/receiver/unkeyed", test_unkeyed);
  g_test_add_func ("/apd/receiver/bad-bind", test_socket);
  return g_test_run ();
}
