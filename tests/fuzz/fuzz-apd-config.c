/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: wlanfair-apd's configuration (/etc/wlanfair/apd.conf,
 * wf_apd_config_load, then wf_apd_config_check as the daemon calls it)
 * on arbitrary text; this is also where the rwnd and ack-priority policy
 * inputs parse (rwnd-policy=, rwnd-capacity=, ack-priority=,
 * download-demand=). Built by run-fuzz apd-config, with the actuator
 * registry stubbed (fuzz-stubs-apd.c: same names and knobs); fuzz-main.c
 * replays the corpus against the real libapd (meson test
 * apd-config-corpus).
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - TRUE exactly when no error is set (load and check); every error has
 *    a non-empty message; a load error starts with the path;
 *  - what loads is in range: port not 0, target-jain 0.5 to 1, tolerance
 *    0.01 to 10, report-stale 0.5 to 60 s, feed-timeout 2 to 600 s,
 *    max-delay 1 to 1000 ms, rwnd-capacity 0 or 100k to 100G, weights
 *    0.01 to 100 with distinct MACs, port rates 1k to 100G with distinct
 *    ports, at most WF_APD_MAX_WEIGHTS of each, a known controller and
 *    actuator, state an absolute path, status absolute or empty;
 *  - each weight and port rate reads back through its lookup;
 *  - a file that loads, loaded again (fresh, and on top of itself), gives
 *    the same configuration. */
#include "fuzz-file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-config.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
arrays_same (GArray *a, GArray *b)
{
  return a->len == b->len &&
         (a->len == 0 || memcmp (a->data, b->data, (gsize) a->len * g_array_get_element_size (a)) == 0);
}

static gboolean
same (const WfApdConfig *a, const WfApdConfig *b)
{
  return g_strcmp0 (a->interface, b->interface) == 0 && a->source == b->source &&
         g_strcmp0 (a->controller, b->controller) == 0 &&
         g_strcmp0 (a->actuator, b->actuator) == 0 &&
         memcmp (&a->control, &b->control, sizeof a->control) == 0 &&
         g_strcmp0 (a->key_file, b->key_file) == 0 &&
         a->insecure_unsigned == b->insecure_unsigned && g_strcmp0 (a->bind, b->bind) == 0 &&
         a->port == b->port && a->carried == b->carried &&
         arrays_same (a->weights, b->weights) && arrays_same (a->port_rates, b->port_rates) &&
         a->tolerance == b->tolerance && a->report_stale_s == b->report_stale_s &&
         a->feed_timeout_s == b->feed_timeout_s &&
         g_strcmp0 (a->status_path, b->status_path) == 0 &&
         g_strcmp0 (a->state_path, b->state_path) == 0 &&
         g_strcmp0 (a->textfile_dir, b->textfile_dir) == 0 &&
         a->rwnd_policy == b->rwnd_policy && a->rwnd_capacity_bps == b->rwnd_capacity_bps &&
         a->ack_priority == b->ack_priority && a->download_demand == b->download_demand;
}

static void
check_ranges (const WfApdConfig *c)
{
  const WfApdControlParams *p = &c->control;

  g_assert_cmpuint (c->port, >, 0);
  g_assert_true (p->target_jain >= 0.5 && p->target_jain <= 1);
  g_assert_true (isfinite (p->floor_bps) && p->floor_bps > 0 && p->floor_bps <= 10e9);
  g_assert_true (isfinite (p->idle_bps) && p->idle_bps >= 0 && p->idle_bps <= 100e6);
  g_assert_cmpuint (p->max_delay_us, >=, 1000);
  g_assert_cmpuint (p->max_delay_us, <=, 1000000);
  g_assert_true (c->tolerance >= 0.01 && c->tolerance <= 10);
  g_assert_true (c->report_stale_s >= 0.5 && c->report_stale_s <= 60);
  g_assert_true (c->feed_timeout_s >= 2 && c->feed_timeout_s <= 600);
  g_assert_true (c->rwnd_capacity_bps == 0 ||
                 (c->rwnd_capacity_bps >= 100e3 && c->rwnd_capacity_bps <= 100e9));
  g_assert_cmpuint (c->rwnd_policy, <=, WF_RWND_POLICY_RTT_FAIR);
  g_assert_cmpuint (c->carried, <=, WF_APD_CARRIED_NO);
  g_assert_cmpuint (c->download_demand, <=, WF_APD_DEMAND_NO);
  g_assert_true (g_str_equal (c->actuator, "none") || wf_actuator_find (c->actuator));
  g_assert_true (g_str_equal (c->controller, "share") || g_str_equal (c->controller, "pi"));
  g_assert_true (c->state_path[0] == '/');
  g_assert_true (c->status_path[0] == '\0' || c->status_path[0] == '/');
  g_assert_true (c->interface == NULL ||
                 (c->interface[0] && strlen (c->interface) < 16 && !strchr (c->interface, '/')));
  g_assert_cmpuint (c->weights->len, <=, WF_APD_MAX_WEIGHTS);
  g_assert_cmpuint (c->port_rates->len, <=, WF_APD_MAX_WEIGHTS);
  for (guint i = 0; i < c->weights->len; i++)
    {
      const WfApdWeight *w = &g_array_index (c->weights, WfApdWeight, i);

      g_assert_true (w->weight >= 0.01 && w->weight <= 100);
      g_assert_true (wf_apd_config_weight (c, w->mac) == w->weight);
    }
  for (guint i = 0; i < c->port_rates->len; i++)
    {
      const WfApdPortRate *r = &g_array_index (c->port_rates, WfApdPortRate, i);

      g_assert_true (memchr (r->port, '\0', sizeof r->port) && r->port[0]);
      g_assert_true (r->bps >= 1e3 && r->bps <= 100e9);
      g_assert_true (wf_apd_config_port_rate (c, r->port) == r->bps);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file (data, size);
  WfApdConfig c, again;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  wf_apd_config_init (&c);
  ok = wf_apd_config_load (&c, path, TRUE, &error);
  fuzz_check_error (ok, error);
  if (!ok)
    g_assert_true (g_str_has_prefix (error->message, path));
  else
    {
      check_ranges (&c);
      wf_apd_config_init (&again);
      g_assert_true (wf_apd_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      g_assert_true (wf_apd_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      wf_apd_config_clear (&again);

      ok = wf_apd_config_check (&c, &error);
      fuzz_check_error (ok, error);
      if (ok)
        {
          /* What check accepts, the daemon acts on: rwnd's keys only
           * with actuator=rwnd, a capacity exactly with a SAP-LAW policy. */
          g_assert_true (c.interface != NULL);
          if (c.rwnd_policy != WF_RWND_POLICY_STATION)
            g_assert_true (g_str_equal (c.actuator, "rwnd") && c.rwnd_capacity_bps > 0);
          else
            g_assert_true (c.rwnd_capacity_bps == 0);
          (void) wf_apd_config_may_act (&c, FALSE);
          (void) wf_apd_config_demand_probe (&c, TRUE);
        }
    }
  wf_apd_config_clear (&c);
  return 0;
}
