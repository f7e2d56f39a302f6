/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: wlanfair-reportd's configuration file
 * (/etc/wlanfair/reportd.conf, wf_reportd_config_load) on arbitrary text.
 * Built by run-fuzz reportd-config; fuzz-main.c replays the corpus
 * (meson test reportd-config-corpus).
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - it returns TRUE exactly when it sets no error, and every error has a
 *    non-empty message that starts with the path;
 *  - what loads has every value in its documented range (interval 0.1 to
 *    60 s, top-flows to 100, max-datagram 512 to WF_REPORT_MAX_SIZE,
 *    dscp 0 to 63, port not 0, interface names under 16 bytes, no '/');
 *  - a file that loads, loaded again (fresh, and on top of itself), gives
 *    the same configuration: no key depends on what an earlier load left. */
#include "fuzz-file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wlanfair-report.h"
#include "wlanfair-reportd-config.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
same (const WfReportdConfig *a, const WfReportdConfig *b)
{
  return g_strv_equal ((const char * const *) (a->interfaces ? a->interfaces : (char *[]) { NULL }),
                       (const char * const *) (b->interfaces ? b->interfaces : (char *[]) { NULL })) &&
         (a->interfaces == NULL) == (b->interfaces == NULL) &&
         a->interval_s == b->interval_s && g_strcmp0 (a->destination, b->destination) == 0 &&
         a->port == b->port && g_strcmp0 (a->key_file, b->key_file) == 0 &&
         g_strcmp0 (a->textfile_dir, b->textfile_dir) == 0 &&
         a->textfile_dir_explicit == b->textfile_dir_explicit && a->top_flows == b->top_flows &&
         a->max_datagram == b->max_datagram && a->dscp == b->dscp && a->hostname == b->hostname &&
         a->send == b->send && g_strcmp0 (a->socket_path, b->socket_path) == 0;
}

static void
check_ranges (const WfReportdConfig *c)
{
  g_assert_true (c->interval_s >= WF_REPORTD_INTERVAL_MIN - 1e-9 &&
                 c->interval_s <= WF_REPORTD_INTERVAL_MAX && isfinite (c->interval_s));
  g_assert_cmpuint (c->top_flows, <=, WF_REPORTD_TOP_FLOWS_MAX);
  g_assert_cmpuint (c->max_datagram, >=, WF_REPORTD_MAX_DATAGRAM_MIN);
  g_assert_cmpuint (c->max_datagram, <=, WF_REPORT_MAX_SIZE);
  g_assert_cmpuint (c->dscp, <=, 63);
  g_assert_cmpuint (c->port, >, 0);
  for (char **i = c->interfaces; i && *i; i++)
    g_assert_true (**i && strlen (*i) < 16 && !strchr (*i, '/'));
  g_assert_nonnull (c->socket_path);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file (data, size);
  WfReportdConfig c, again;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  wf_reportd_config_init (&c);
  ok = wf_reportd_config_load (&c, path, TRUE, &error);
  fuzz_check_error (ok, error);
  if (!ok)
    g_assert_true (g_str_has_prefix (error->message, path));
  else
    {
      check_ranges (&c);
      wf_reportd_config_init (&again);
      g_assert_true (wf_reportd_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      g_assert_true (wf_reportd_config_load (&again, path, TRUE, NULL));
      g_assert_true (same (&c, &again));
      wf_reportd_config_clear (&again);
    }
  wf_reportd_config_clear (&c);
  return 0;
}
