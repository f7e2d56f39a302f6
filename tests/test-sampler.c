/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One entry of a report's "flows" as the sampler writes it, and the same
 * entry through the sender and the receiver (docs/report-protocol.md);
 * an interface's local TCP totals from a real loopback connection. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wlanfair-report.h"
#include "wlanfair-sampler.h"

#define TIME_US G_GINT64_CONSTANT (1795322659803400)

static WfFlow
flow (gboolean have_info, gboolean have_rates, gboolean app_limited)
{
  WfFlow f;

  memset (&f, 0, sizeof f);
  f.sock.family = 2;
  f.sock.state = 1;
  g_strlcpy (f.sock.src, "192.0.2.10:41234", sizeof f.sock.src);
  g_strlcpy (f.sock.dst, "198.51.100.1:5201", sizeof f.sock.dst);
  g_strlcpy (f.sock.cong, "cubic", sizeof f.sock.cong);
  f.sock.have_info = have_info;
  f.sock.info.snd_cwnd = 42;
  f.sock.info.snd_ssthresh = 0x7fffffff;
  f.sock.info.have_rates = have_rates;
  f.sock.info.delivery_rate = 2500000;
  f.sock.info.pacing_rate = G_MAXUINT64;
  f.sock.info.app_limited = app_limited;
  f.has_goodput = TRUE;
  f.goodput_tx_bps = 19e6;
  return f;
}

/* Present (true or false) exactly when the kernel gave the delivery rate. */
static void
test_flow_app_limited (void)
{
  WfFlow f = flow (TRUE, TRUE, TRUE);
  g_autoptr(JsonObject) o = wf_sampler_flow_json (&f, "wlan0");

  g_assert_true (json_object_has_member (o, "app_limited"));
  g_assert_true (json_object_get_boolean_member (o, "app_limited"));
  g_assert_cmpstr (json_object_get_string_member (o, "iface"), ==, "wlan0");
  g_assert_cmpint (json_object_get_int_member (o, "delivery_rate_bps"), ==, 20000000);
  /* Unlimited pacing and no ssthresh yet: absent, never a number. */
  g_assert_false (json_object_has_member (o, "pacing_rate_bps"));
  g_assert_false (json_object_has_member (o, "ssthresh"));
  g_clear_pointer (&o, json_object_unref);

  f = flow (TRUE, TRUE, FALSE);
  o = wf_sampler_flow_json (&f, NULL);
  g_assert_true (json_object_has_member (o, "app_limited"));
  g_assert_false (json_object_get_boolean_member (o, "app_limited"));
  g_assert_false (json_object_has_member (o, "iface"));
  g_clear_pointer (&o, json_object_unref);

  /* A kernel before 4.9 (no rates) or no tcp_info at all: absent. */
  f = flow (TRUE, FALSE, TRUE);
  o = wf_sampler_flow_json (&f, "wlan0");
  g_assert_false (json_object_has_member (o, "app_limited"));
  g_assert_false (json_object_has_member (o, "delivery_rate_bps"));
  g_assert_true (json_object_has_member (o, "cwnd"));
  g_clear_pointer (&o, json_object_unref);

  f = flow (FALSE, TRUE, TRUE);
  o = wf_sampler_flow_json (&f, "wlan0");
  g_assert_false (json_object_has_member (o, "app_limited"));
  g_assert_false (json_object_has_member (o, "cwnd"));
}

/* Sealed and parsed: the receiver accepts the member and keeps it in the
 * view's body. */
static void
test_flow_round_trip (void)
{
  WfFlow f[2] = { flow (TRUE, TRUE, TRUE), flow (TRUE, TRUE, FALSE) };
  g_autoptr(JsonObject) body = json_object_new ();
  JsonArray *flows = json_array_new ();
  WfReportSender *s = wf_report_sender_new ("d5e96fe908e34b889a67d8e4df1972ba", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) datagram = NULL;
  g_autoptr(WfReportView) view = NULL;
  WfReportReject reason = WF_REPORT_REJECT_N;
  JsonArray *got;
  const guint8 *data;
  gsize len;

  for (guint i = 0; i < G_N_ELEMENTS (f); i++)
    json_array_add_object_element (flows, wf_sampler_flow_json (&f[i], "wlan0"));
  json_object_set_array_member (body, "interfaces", json_array_new ());
  json_object_set_array_member (body, "flows", flows);
  datagram = wf_report_sender_seal_at (s, body, 1.0, TIME_US, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (datagram, &len);
  g_assert_nonnull (g_strstr_len ((const char *) data, len, "\"app_limited\":true"));
  view = wf_report_parse (data, len, NULL, &reason, &error);
  g_assert_no_error (error);
  g_assert_cmpint (reason, ==, WF_REPORT_OK);
  g_assert_cmpuint (view->n_flows, ==, 2);
  got = json_object_get_array_member (view->body, "flows");
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (got, 0),
                                                 "app_limited"));
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (got, 1),
                                                  "app_limited"));
  wf_report_sender_free (s);
}

static JsonObject *
iface (JsonObject *body, const char *name)
{
  JsonArray *a = json_object_get_array_member (body, "interfaces");

  for (guint i = 0; i < json_array_get_length (a); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (a, i), "name"),
                     name))
      return json_array_get_object_element (a, i);
  return NULL;
}

/* The kernel's sock_diag and rtnetlink, no privilege: 100 kB over a
 * loopback connection between two samples show in lo's totals (other
 * programs' loopback traffic may add to them), which the datagram does
 * not carry. */
static void
test_tcp_totals_loopback (void)
{
  char *ifs[] = { "lo", NULL };
  /* Every flow in the report: other tests' loopback flows may run beside. */
  WfSamplerConfig config = { .interfaces = ifs, .top_n = 256, .tcp_status = "/nonexistent" };
  g_autoptr(WfSampler) s = wf_sampler_new (&config, NULL, NULL);
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  JsonObject *lo, *t, *rtt;
  char buf[16384];
  gsize sent = 0, got = 0;
  gint64 before;
  double span, acked;
  int l, c, a;

  l = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (bind (l, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (l, 1), ==, 0);
  g_assert_cmpint (getsockname (l, (struct sockaddr *) &addr, &len), ==, 0);
  c = socket (AF_INET, SOCK_STREAM, 0);
  g_assert_cmpint (connect (c, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  a = accept (l, NULL, NULL);
  g_assert_cmpint (a, >=, 0);

  before = g_get_real_time ();
  first = wf_sampler_sample (s);
  /* The flows' dump instant, on the realtime clock; no span yet. */
  g_assert_cmpint (json_object_get_int_member (first, "sampled_us"), >=, before);
  g_assert_cmpint (json_object_get_int_member (first, "sampled_end_us"), >=,
                   json_object_get_int_member (first, "sampled_us"));
  g_assert_cmpint (json_object_get_int_member (first, "sampled_end_us"), <=, g_get_real_time ());
  g_assert_false (json_object_has_member (first, "span_s"));
  lo = iface (first, "lo");
  g_assert_nonnull (lo);
  t = json_object_get_object_member (lo, "tcp_totals");
  g_assert_nonnull (t);
  /* The first sample counts nothing that happened before it. */
  g_assert_cmpint (json_object_get_int_member (t, "received_bytes"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (t, "flows"), >=, 2);

  memset (buf, 'x', sizeof buf);
  while (sent < 100000)
    {
      ssize_t w = write (c, buf, sizeof buf);
      ssize_t r;

      g_assert_cmpint (w, >, 0);
      sent += (gsize) w;
      while (got < sent && (r = read (a, buf, sizeof buf)) > 0)
        got += (gsize) r;
    }
  g_usleep (100000);
  second = wf_sampler_sample (s);
  /* span_s is what the rates cover: the two dumps' distance, and rate x
   * span gives back the bytes acked in between (all of `sent`, loopback
   * acknowledges on receipt), whatever the tick's lateness. */
  span = json_object_get_double_member (second, "span_s");
  g_assert_cmpfloat_with_epsilon (span, (json_object_get_int_member (second, "sampled_us")
                                         - json_object_get_int_member (first, "sampled_us")) / 1e6,
                                  0.01);
  g_assert_cmpfloat (span, >=, 0.1);
  acked = -1;
  {
    struct sockaddr_in mine;
    socklen_t mlen = sizeof mine;
    g_autofree char *src = NULL;
    JsonArray *flows = json_object_get_array_member (second, "flows");

    g_assert_cmpint (getsockname (c, (struct sockaddr *) &mine, &mlen), ==, 0);
    src = g_strdup_printf ("127.0.0.1:%u", ntohs (mine.sin_port));
    for (guint i = 0; i < json_array_get_length (flows); i++)
      {
        JsonObject *f = json_array_get_object_element (flows, i);

        if (g_str_equal (json_object_get_string_member (f, "src"), src))
          acked = json_object_get_double_member (f, "goodput_tx_bps") * span / 8;
      }
  }
  g_assert_cmpfloat (acked, >=, sent - 1);
  g_assert_cmpfloat (acked, <=, sent + 1);
  t = json_object_get_object_member (iface (second, "lo"), "tcp_totals");
  g_assert_cmpint (json_object_get_int_member (t, "received_bytes"), >=, 100000);
  g_assert_cmpint (json_object_get_int_member (t, "acked_bytes"), >=, 100000);
  g_assert_cmpint (json_object_get_int_member (t, "retrans_segments"), >=, 0);
  rtt = json_object_get_object_member (t, "rtt");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (rtt, "le_us")), ==, 11);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (rtt, "counts")), ==, 11);
  g_assert_cmpint (json_object_get_int_member (rtt, "count"), >=, 2);
  /* Loopback RTTs are far below the last bound (2.5 s). */
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (rtt, "counts"), 10),
                   ==, json_object_get_int_member (rtt, "count"));

  /* Local only: not in what is sealed into a datagram. */
  wf_sampler_strip_local (second);
  g_assert_false (json_object_has_member (iface (second, "lo"), "tcp_totals"));
  g_assert_false (json_object_has_member (iface (second, "lo"), "scans_total"));
  g_assert_true (json_object_has_member (iface (second, "lo"), "rx_bytes"));
  close (a);
  close (c);
  close (l);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reporter/sampler/flow-app-limited", test_flow_app_limited);
  g_test_add_func ("/reporter/sampler/flow-round-trip", test_flow_round_trip);
  g_test_add_func ("/reporter/sampler/tcp-totals-loopback", test_tcp_totals_loopback);
  return g_test_run ();
}
