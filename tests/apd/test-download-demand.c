/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The download-demand BPF program on crafted frames (BPF_PROG_TEST_RUN):
 * frames and bytes per destination station, group addresses left out,
 * nothing changed; and that it loads with the unit's capabilities. Needs
 * root and BPF: exits 77 (skipped) otherwise. */
#include "config.h"

#include <bpf/bpf.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpf-caps.h"
#include "wlanfair-download-demand.h"

static const guint8 sta_a[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x01 };
static const guint8 sta_b[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x02 };
static const guint8 bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const guint8 mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };   /* mDNS */

/* Hands the program one packet of len bytes to dst, a GSO packet of
 * gso_segs segments where that is above 0; the packet must leave
 * unchanged, and the verdict must let later filters run. */
static void
hand_gso (WfDownloadDemand *o, const guint8 dst[6], guint len, guint gso_segs)
{
  g_autofree guint8 *frame = g_malloc0 (len), *out = g_malloc0 (len);
  struct __sk_buff ctx;
  LIBBPF_OPTS (bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
               .data_out = out, .data_size_out = len, .repeat = 1,
               .ctx_in = &ctx, .ctx_size_in = sizeof ctx);

  /* The kernel refuses a context with any byte it does not take set,
   * padding included. */
  memset (&ctx, 0, sizeof ctx);
  ctx.gso_segs = gso_segs;
  ctx.gso_size = gso_segs ? 1448 : 0;

  memcpy (frame, dst, 6);
  memcpy (frame + 6, sta_b, 6);
  frame[12] = 0x08;   /* IPv4: the program does not look */
  for (guint i = 14; i < len; i++)
    frame[i] = (guint8) i;
  g_assert_cmpint (bpf_prog_test_run_opts (wf_download_demand_prog_fd (o), &opts), ==, 0);
  g_assert_cmpint ((int) opts.retval, ==, TC_ACT_UNSPEC);
  g_assert_cmpuint (opts.data_size_out, ==, len);
  g_assert_cmpmem (out, len, frame, len);
}

static void
hand (WfDownloadDemand *o, const guint8 dst[6], guint len)
{
  hand_gso (o, dst, len, 0);
}

static WfApdDownloadDemand
find (GArray *counts, const guint8 mac[6])
{
  for (guint i = 0; i < counts->len; i++)
    if (memcmp (g_array_index (counts, WfApdDownloadDemand, i).mac, mac, 6) == 0)
      return g_array_index (counts, WfApdDownloadDemand, i);
  g_error ("no count for %02x:..:%02x", mac[0], mac[5]);
}

static void
test_counts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfDownloadDemand) o = wf_download_demand_load (&error);
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (WfApdDownloadDemand));
  WfApdDownloadDemand a, b;

  g_assert_no_error (error);
  g_assert_true (wf_download_demand_read (o, counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (counts->len, ==, 0);

  for (int i = 0; i < 3; i++)
    hand (o, sta_a, 1514);
  hand (o, sta_a, 66);   /* an ACK */
  hand (o, sta_b, 100);
  hand (o, bcast, 60);
  hand (o, mcast, 200);
  g_assert_true (wf_download_demand_read (o, counts, &error));
  g_assert_no_error (error);
  /* Two stations; neither group address. */
  g_assert_cmpuint (counts->len, ==, 2);
  a = find (counts, sta_a);
  b = find (counts, sta_b);
  g_assert_cmpuint (a.packets, ==, 4);
  g_assert_cmpuint (a.bytes, ==, 3 * 1514 + 66);
  g_assert_cmpuint (b.packets, ==, 1);
  g_assert_cmpuint (b.bytes, ==, 100);

  /* Cumulative. */
  hand (o, sta_b, 100);
  g_assert_true (wf_download_demand_read (o, counts, &error));
  g_assert_cmpuint (find (counts, sta_b).packets, ==, 2);
  g_assert_cmpuint (find (counts, sta_a).packets, ==, 4);

  /* A GSO packet counts as the frames it leaves the port as (the
   * port's tx_packets counts frames): one counted as one made a
   * dropping AP's download look delivered. */
  /* (Two segments: a test run's packet is linear, within a page.) */
  hand_gso (o, sta_b, 14 + 20 + 20 + 2 * 1448, 2);
  g_assert_true (wf_download_demand_read (o, counts, &error));
  g_assert_cmpuint (find (counts, sta_b).packets, ==, 4);
  g_assert_cmpuint (find (counts, sta_b).bytes, ==, 200 + 14 + 20 + 20 + 2 * 1448);
}

/* It loads with what the unit grants (bpf-caps.h). */
static gboolean
load_download_demand (GError **error)
{
  WfDownloadDemand *o = wf_download_demand_load (error);

  if (!o)
    return FALSE;
  wf_download_demand_free (o);
  return TRUE;
}

static void
test_loads_with_cap_bpf_only (void)
{
  wf_test_loads_with_cap_bpf_only (load_download_demand);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfDownloadDemand) o = NULL;

  /* Skipped without root or without BPF in the kernel; any other
   * failure to load (the verifier) fails. */
  if (geteuid () != 0)
    {
      printf ("SKIP: needs root\n");
      return 77;
    }
  if (!(o = wf_download_demand_load (&error)))
    {
      printf ("%s: %s\n", strstr (error->message, "lacks BPF") ? "SKIP" : "FAIL",
              error->message);
      return strstr (error->message, "lacks BPF") ? 77 : 1;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/download-demand/counts", test_counts);
  g_test_add_func ("/download-demand/loads-with-cap-bpf-only", test_loads_with_cap_bpf_only);
  return g_test_run ();
}
