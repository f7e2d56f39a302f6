/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The window check the BPF congestion controls run at every ACK
 * (tcp/wlanfair-ca-repair.h): every window the kernel's own rules produce
 * passes, and the windows a skipped callback left (values read off kernel
 * 6.18 in the testbed, docs/ackloss.md) are caught and put back as Reno's
 * callbacks would have left them. */
#include <glib.h>

#include "wlanfair-ca-repair.h"

#define INF WF_CA_INFINITE_SSTHRESH
/* What a skipped value-returning callback returned, every time. */
#define GARBAGE 0x81102d10u

enum { OPEN, DISORDER, CWR, RECOVERY, LOSS };

static struct wf_ca_window
win (__u8 state, __u32 cwnd, __u32 ssthresh, __u32 prior_cwnd, __u32 prior_ssthresh)
{
  struct wf_ca_window w = { .cwnd = cwnd, .ssthresh = ssthresh, .prior_cwnd = prior_cwnd,
                            .prior_ssthresh = prior_ssthresh, .ca_state = state };
  return w;
}

static __u32
reno_ssthresh (__u32 cwnd)
{
  return MAX (cwnd / 2, 2);
}

/* CUBIC's recalc_ssthresh with its default beta (717/1024). */
static __u32
cubic_ssthresh (__u32 cwnd)
{
  return MAX (cwnd * 717 / 1024, 2);
}

/* tcp_current_ssthresh(): what the kernel saves in prior_ssthresh. */
static __u32
current_ssthresh (__u8 state, __u32 cwnd, __u32 ssthresh)
{
  if (state == CWR || state == RECOVERY)
    return ssthresh;
  return MAX (ssthresh, (cwnd >> 1) + (cwnd >> 2));
}

/* Every window the kernel's paths produce, from a grid of cwnds and
 * previous ssthresh values: entering a reduction (ssthresh() of Reno and
 * CUBIC on prior_cwnd), PRR and slow start inside it, undo (ssthresh back
 * to prior_ssthresh, cwnd to max(cwnd, prior_cwnd)) inside and after it,
 * the end of recovery (cwnd = ssthresh), our own halving in Open. */
static void
test_kernel_windows_pass (void)
{
  static const __u32 cwnds[] = { 1, 2, 3, 4, 7, 10, 33, 100, 1000, 65535, 1u << 20 };
  guint checked = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cwnds); i++)
    for (guint j = 0; j < G_N_ELEMENTS (cwnds) + 1; j++)
      {
        __u32 cwnd = cwnds[i];
        __u32 old_ss = j < G_N_ELEMENTS (cwnds) ? cwnds[j] : INF;
        __u32 (*fn[]) (__u32) = { reno_ssthresh, cubic_ssthresh };

        for (guint f = 0; f < G_N_ELEMENTS (fn); f++)
          for (__u8 from = OPEN; from <= DISORDER; from++)
            {
              __u32 prior_ss = current_ssthresh (from, cwnd, old_ss);
              __u32 ss = fn[f] (cwnd);

              for (__u8 to = CWR; to <= LOSS; to++)
                {
                  /* Entered; then PRR / slow start moved cwnd around. */
                  for (__u32 now = 1; now <= 2 * cwnd + 2; now = now * 2 + 1)
                    {
                      struct wf_ca_window w = win (to, now, ss, cwnd, prior_ss);

                      g_assert_cmpuint (wf_ca_repair_check (&w), ==, 0);
                      checked++;
                    }
                  /* Partial or DSACK undo inside the reduction. */
                  struct wf_ca_window u = win (to, MAX (ss, cwnd), MAX (prior_ss, ss), cwnd,
                                               prior_ss);
                  g_assert_cmpuint (wf_ca_repair_check (&u), ==, 0);
                  /* Undone or ended: back in Open. */
                  struct wf_ca_window o = win (OPEN, cwnd, MAX (prior_ss, ss), cwnd, prior_ss);
                  struct wf_ca_window e = win (OPEN, ss, ss, cwnd, prior_ss);
                  g_assert_cmpuint (wf_ca_repair_check (&o), ==, 0);
                  g_assert_cmpuint (wf_ca_repair_check (&e), ==, 0);
                  checked += 3;
                }
            }
        /* Our halving in Open: cwnd = ssthresh = cwnd / 2. */
        struct wf_ca_window h = win (OPEN, MAX (cwnd / 2, 1), MAX (cwnd / 2, 1), 7, INF);
        g_assert_cmpuint (wf_ca_repair_check (&h), ==, 0);
        /* Slow start from the initial window. */
        struct wf_ca_window s = win (OPEN, cwnd, INF, 0, 0);
        g_assert_cmpuint (wf_ca_repair_check (&s), ==, 0);
        checked += 2;
      }
  g_assert_cmpuint (checked, >, 1000);
}

/* Recovery entered while ssthresh() was skipped: kernel 6.18, port 5210,
 * Open with cwnd 12 -> Recovery with ssthresh 0x81102d10, prior_cwnd 12,
 * prior_ssthresh 9 and PRR's cwnd 1984882255. */
static void
test_skipped_ssthresh_in_recovery (void)
{
  struct wf_ca_window w = win (RECOVERY, 1984882255u, GARBAGE, 12, 9);
  __u32 bad = wf_ca_repair_check (&w);

  g_assert_cmpuint (bad, ==, WF_CA_REPAIR_SSTHRESH); /* cwnd has no sign bit */
  w.ssthresh = wf_ca_repair_reno_ssthresh (&w);
  g_assert_cmpuint (w.ssthresh, ==, 6);
  g_assert_cmpuint (wf_ca_repair_check (&w), ==, 0);
  /* PRR sets cwnd from the repaired ssthresh for this very ACK. */
}

/* Left unrepaired, each later recovery halved the garbage (992441128,
 * 496220564, ...): below the infinite value, still no ssthresh() of this
 * connection's cwnd. */
static void
test_garbage_below_infinite (void)
{
  static const __u32 seen[] = { 992441128u, 496220564u, 7753446u, 1938361u, 14160u };

  for (guint i = 0; i < G_N_ELEMENTS (seen); i++)
    {
      struct wf_ca_window w = win (RECOVERY, 40, seen[i], 42, GARBAGE / 2);

      g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_SSTHRESH);
      g_assert_cmpuint (wf_ca_repair_reno_ssthresh (&w), ==, 21);
    }
}

/* CWR entered and left within one ACK (tail loss probe): the garbage is
 * left in Open, where cwnd < ssthresh would mean slow start for ever. */
static void
test_skipped_ssthresh_left_in_open (void)
{
  struct wf_ca_window w = win (OPEN, 8, GARBAGE, 8, INF);

  g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_SSTHRESH);
  g_assert_cmpuint (wf_ca_repair_reno_ssthresh (&w), ==, 4);
  /* prior_ssthresh inherited the garbage (tcp_current_ssthresh takes the
   * max): an undo that restores it is caught too. */
  w = win (OPEN, 8, GARBAGE, 8, GARBAGE);
  g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_SSTHRESH);
  w = win (RECOVERY, 8, GARBAGE, 8, GARBAGE);
  g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_SSTHRESH);
}

/* undo_cwnd() skipped: cwnd takes the garbage; the undo's target is
 * prior_cwnd outside a reduction, ssthresh inside one. */
static void
test_skipped_undo (void)
{
  struct wf_ca_window w = win (OPEN, GARBAGE, 30, 20, 30);

  g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_CWND);
  g_assert_cmpuint (wf_ca_repair_cwnd (&w), ==, 20);
  w = win (RECOVERY, GARBAGE, 10, 20, 30);
  g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_CWND);
  g_assert_cmpuint (wf_ca_repair_cwnd (&w), ==, 10);
  /* Both at once, repaired in the glue's order: ssthresh, then cwnd. */
  w = win (RECOVERY, GARBAGE, GARBAGE, 20, 15);
  g_assert_cmpuint (wf_ca_repair_check (&w), ==, WF_CA_REPAIR_SSTHRESH | WF_CA_REPAIR_CWND);
  w.ssthresh = wf_ca_repair_reno_ssthresh (&w);
  g_assert_cmpuint (wf_ca_repair_cwnd (&w), ==, 10);
}

/* Nothing sane to go back to: prior_cwnd unset (0) or itself garbage,
 * ssthresh infinite. */
static void
test_fallbacks (void)
{
  struct wf_ca_window w = win (OPEN, GARBAGE, INF, 0, INF);

  g_assert_cmpuint (wf_ca_repair_cwnd (&w), ==, WF_CA_FALLBACK_CWND);
  w = win (LOSS, GARBAGE, INF, GARBAGE, INF);
  g_assert_cmpuint (wf_ca_repair_base_cwnd (&w), ==, WF_CA_FALLBACK_CWND);
  g_assert_cmpuint (wf_ca_repair_cwnd (&w), ==, WF_CA_FALLBACK_CWND);
  /* Inside a reduction with ssthresh infinite (undone): prior_cwnd. */
  w = win (RECOVERY, GARBAGE, INF, 25, INF);
  g_assert_cmpuint (wf_ca_repair_cwnd (&w), ==, 25);
  /* Reno's minimum. */
  w = win (RECOVERY, 3, GARBAGE, 3, INF);
  g_assert_cmpuint (wf_ca_repair_reno_ssthresh (&w), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ca-repair/kernel-windows-pass", test_kernel_windows_pass);
  g_test_add_func ("/ca-repair/skipped-ssthresh/recovery", test_skipped_ssthresh_in_recovery);
  g_test_add_func ("/ca-repair/skipped-ssthresh/below-infinite", test_garbage_below_infinite);
  g_test_add_func ("/ca-repair/skipped-ssthresh/open", test_skipped_ssthresh_left_in_open);
  g_test_add_func ("/ca-repair/skipped-undo", test_skipped_undo);
  g_test_add_func ("/ca-repair/fallbacks", test_fallbacks);

  return g_test_run ();
}
