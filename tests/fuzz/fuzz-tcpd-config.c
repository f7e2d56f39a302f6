/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: wlanfair-tcpd's configuration file
 * (/etc/wlanfair/tcp.conf, wf_tcpd_config_load) on arbitrary text. Built
 * by run-fuzz tcpd-config; fuzz-main.c replays the corpus (meson test
 * tcpd-config-corpus).
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - TRUE exactly when no error is set; every error has a non-empty
 *    message that starts with the path;
 *  - what loads is in range: a known scope, cc and reduction, thresh 1 to
 *    1000, confirm 0 to 100, beta in [2/1024, 1], confirm-rate 0 to 100 %,
 *    min-queue-delay 0 to 1000 ms, all finite;
 *  - a file that loads, loaded again (fresh, and on top of itself), gives
 *    the same configuration. */
#include "fuzz-file.h"

#include <math.h>
#include <stdint.h>

#include "wlanfair-tcp-loader.h"
#include "wlanfair-tcpd-config.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
strv_same (char **a, char **b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strv_equal ((const char * const *) a, (const char * const *) b);
}

static gboolean
same (const WfTcpdConfig *a, const WfTcpdConfig *b)
{
  return a->scope == b->scope && a->cc == b->cc && a->thresh == b->thresh &&
         a->beta == b->beta && a->confirm == b->confirm && a->confirm_rate == b->confirm_rate &&
         a->min_queue_delay == b->min_queue_delay && a->reduction == b->reduction &&
         strv_same (a->interfaces, b->interfaces) && g_strcmp0 (a->cgroup, b->cgroup) == 0;
}

static void
check_ranges (const WfTcpdConfig *c)
{
  g_assert_cmpuint (c->scope, <, G_N_ELEMENTS (wf_tcpd_scope_names));
  g_assert_cmpuint (c->cc, <, WF_CC_COUNT);
  g_assert_cmpuint (c->reduction, <, G_N_ELEMENTS (wf_tcpd_reduction_names));
  g_assert_cmpuint (c->thresh, >=, 1);
  g_assert_cmpuint (c->thresh, <=, 1000);
  g_assert_cmpuint (c->confirm, <=, 100);
  g_assert_true (isfinite (c->beta) && c->beta * 1024 >= 2 - 0.5 && c->beta <= 1);
  g_assert_true (isfinite (c->confirm_rate) && c->confirm_rate >= 0 && c->confirm_rate <= 100);
  g_assert_true (isfinite (c->min_queue_delay) && c->min_queue_delay >= 0 &&
                 c->min_queue_delay <= 1000);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file (data, size);
  WfTcpdConfig c, again;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  wf_tcpd_config_init (&c);
  ok = wf_tcpd_config_load (&c, path, TRUE, &error);
  fuzz_check_error (ok, error);
  if (!ok)
    g_assert_true (g_str_has_prefix (error->message, path));
  else
    {
      check_ranges (&c);
      wf_tcpd_config_init (&again);
      g_assert_true (wf_tcpd_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      g_assert_true (wf_tcpd_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      wf_tcpd_config_clear (&again);
    }
  wf_tcpd_config_clear (&c);
  return 0;
}
