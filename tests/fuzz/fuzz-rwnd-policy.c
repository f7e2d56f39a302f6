/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the rwnd actuator's policy inputs (rwnd-policy=, and
 * the arithmetic wf_rwnd_policy_apply does on RTTs and rates that come
 * from a BPF map, reports and the configuration) on arbitrary values,
 * NaN and infinities among them. Input: the policy name up to a newline,
 * then capacity and other load (two doubles), then flows of 4 doubles
 * (rtt, base rtt, standing rtt, station rate), an active byte, a station
 * byte and a 32-bit MSS each. Built by run-fuzz rwnd-policy; fuzz-main.c
 * replays the corpus (meson test rwnd-policy-corpus). The ack-priority
 * and rwnd frame parsers run in the kernel (BPF, checked by the
 * verifier); ack-priority= and rwnd-capacity= parse in apd-config.
 *
 * Oracles beyond "no crash, no UB":
 *  - the name parses exactly when it is station, equal or rtt-fair, and
 *    the parsed policy's name is the text;
 *  - every window is 0 (station policy, station without a rate) or
 *    between the floor (4 segments, capped at the maximum) and
 *    WF_RWND_WINDOW_MAX, whatever the inputs;
 *  - no rate is NaN or negative. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wlanfair-rwnd-policy.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FLOW_BYTES (4 * sizeof (double) + 2 + sizeof (guint32))

static double
take_double (const uint8_t **p)
{
  double d;

  memcpy (&d, *p, sizeof d);
  *p += sizeof d;
  return d;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const uint8_t *nl = memchr (data, '\n', size);
  gsize name_len = nl ? (gsize) (nl - data) : size;
  g_autofree char *name = g_strndup ((const char *) data, name_len);
  WfRwndPolicyParams params = { .policy = WF_RWND_POLICY_STATION };
  g_autofree WfRwndPolicyFlow *flows = NULL;
  const uint8_t *p, *end = data + size;
  guint n;
  gboolean ok;

  ok = wf_rwnd_policy_parse (name, &params.policy);
  /* The name as the key file hands it over: up to a NUL. */
  g_assert_true (ok == (g_str_equal (name, "station") || g_str_equal (name, "equal") ||
                        g_str_equal (name, "rtt-fair")));
  if (ok)
    g_assert_cmpstr (wf_rwnd_policy_name (params.policy), ==, name);
  if (!nl)
    return 0;

  p = nl + 1;
  if ((gsize) (end - p) < 2 * sizeof (double))
    return 0;
  params.capacity_bps = take_double (&p);
  params.other_bps = take_double (&p);
  n = (guint) ((gsize) (end - p) / FLOW_BYTES);
  flows = g_new0 (WfRwndPolicyFlow, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      WfRwndPolicyFlow *f = &flows[i];

      f->rtt_s = take_double (&p);
      f->base_rtt_s = take_double (&p);
      f->standing_rtt_s = take_double (&p);
      f->station_bps = take_double (&p);
      f->active = *p++ & 1;
      f->station = *p++;
      memcpy (&f->mss, p, sizeof (guint32));
      p += sizeof (guint32);
    }

  wf_rwnd_policy_apply (&params, flows, n);
  for (guint i = 0; i < n; i++)
    {
      const WfRwndPolicyFlow *f = &flows[i];
      double floor_b = (double) WF_RWND_FLOOR_SEGS * (f->mss ? f->mss : WF_RWND_MSS_DEFAULT);
      guint32 lowest = (guint32) MIN (floor_b, (double) WF_RWND_WINDOW_MAX);

      if (params.policy == WF_RWND_POLICY_STATION && !(f->station_bps > 0))
        g_assert_cmpuint (f->window, ==, 0);
      else
        {
          g_assert_cmpuint (f->window, >=, lowest);
          g_assert_cmpuint (f->window, <=, WF_RWND_WINDOW_MAX);
        }
      g_assert_false (isnan (f->rate_bps));
      g_assert_true (f->rate_bps >= 0);
    }
  return 0;
}
