/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the report parser, validator, MAC check and replay
 * state on arbitrary datagrams. Built by tests/fuzz/run-fuzz with clang
 * -fsanitize=fuzzer,address,undefined; fuzz-main.c replays a corpus
 * with any compiler (meson test 'report-corpus').
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - a datagram the unkeyed parser accepts, signed with a key, is
 *    accepted by the keyed parser as authenticated with the same fields;
 *  - its body sealed again by the sender API parses again (what we
 *    accept, we can also produce);
 *  - text the grammar prescan accepts, json-glib parses without error:
 *    its error paths (which leak in 1.6) are out of a sender's reach. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wlanfair-report.h"
#include "wlanfair-report-text.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static GBytes *
fuzz_key (void)
{
  static const char k[] = "fuzz-key-0123456789abcdef";

  return g_bytes_new_static (k, sizeof k - 1);
}

static void
check_signed (const uint8_t *data, size_t size, const WfReportView *plain)
{
  g_autoptr(GBytes) key = fuzz_key ();
  g_autofree char *mac = wf_report_hmac_hex (key, data, size);
  GString *s = g_string_new_len ((const char *) data, (gssize) size - 1);
  WfReportReject reason;
  WfReportView *v;

  g_string_append_printf (s, ",\"mac\":\"%s\"}", mac);
  v = wf_report_parse ((const guint8 *) s->str, s->len, key, &reason, NULL);
  if (s->len <= WF_REPORT_MAX_SIZE)
    {
      if (v == NULL || !v->authenticated || v->seq != plain->seq ||
          strcmp (v->host, plain->host) != 0 || v->ifaces->len != plain->ifaces->len)
        abort ();
    }
  wf_report_view_free (v);
  g_string_free (s, TRUE);
}

static void
check_reseal (const WfReportView *plain)
{
  WfReportSender *sender = wf_report_sender_new (plain->host, NULL);
  g_autoptr(GBytes) d = NULL;
  g_autoptr(GError) error = NULL;
  WfReportReject reason;
  WfReportView *v;

  wf_report_sender_set_target_size (sender, WF_REPORT_MAX_SIZE);
  d = wf_report_sender_seal_at (sender, plain->body, plain->interval_s, plain->time_us, &error);
  if (d)
    {
      v = wf_report_parse (g_bytes_get_data (d, NULL), g_bytes_get_size (d), NULL, &reason, &error);
      if (v == NULL)
        {
          fprintf (stderr, "resealed report rejected: %s\n%.*s\n", error->message,
                   (int) g_bytes_get_size (d), (const char *) g_bytes_get_data (d, NULL));
          abort ();
        }
      wf_report_view_free (v);
    }
  wf_report_sender_free (sender);
}

static void
check_prescan (const uint8_t *data, size_t size)
{
  const char *why = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;

  if (size > WF_REPORT_MAX_SIZE || !g_utf8_validate ((const char *) data, (gssize) size, NULL) ||
      wf_report_prescan ((const char *) data, size, &why) != WF_REPORT_OK)
    return;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, (const char *) data, (gssize) size, &error))
    {
      fprintf (stderr, "prescan accepted what json-glib rejects: %s\n%.*s\n",
               error->message, (int) size, (const char *) data);
      abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  WfReportReject reason = WF_REPORT_OK;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) key = fuzz_key ();
  WfReportView *v;

  check_prescan (data, size);
  /* Keyed receiver on the raw input: the mac path with a forged mac. */
  v = wf_report_parse (data, size, key, &reason, NULL);
  wf_report_view_free (v);

  v = wf_report_parse (data, size, NULL, &reason, &error);
  if ((v == NULL) != (reason != WF_REPORT_OK) || (v == NULL) != (error != NULL))
    abort ();
  if (wf_report_reject_to_string (reason) == NULL)
    abort ();
  if (v)
    {
      WfReportReplay *r = wf_report_replay_new (0, 2);
      double rx, tx;

      wf_report_view_goodput (v, &rx, &tx);
      if (wf_report_replay_check (r, v, v->time_us, NULL) != WF_REPORT_OK ||
          wf_report_replay_check (r, v, v->time_us, NULL) != WF_REPORT_REJECT_REPLAY)
        abort ();
      wf_report_replay_expire (r, v->time_us + G_GINT64_CONSTANT (3600000000));
      if (wf_report_replay_n_hosts (r) != 0)
        abort ();
      wf_report_replay_free (r);

      /* Unsigned text ends with '}': sign it the way a sender would. */
      if (size >= WF_REPORT_MAC_SUFFIX_LEN && data[size - 1] == '}' &&
          memcmp (data + size - WF_REPORT_MAC_SUFFIX_LEN, ",\"mac\":\"", 8) != 0)
        check_signed (data, size, v);
      check_reseal (v);
      wf_report_view_free (v);
    }
  return 0;
}
