/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: wlanfair-apd's status file as `wlanfairctl ap status`
 * and `ap watch` read and show it (wf_ap_status_load, then
 * wf_ap_status_render at several widths) on arbitrary bytes. The file is
 * the daemon's, but the CLI puts what it holds (station names, reports'
 * host names) on a terminal. Built by run-fuzz ap-status; fuzz-main.c
 * replays the corpus (meson test ap-status-corpus). The corpus names pid
 * 1, always alive, so that a fresh status is shown.
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - OK exactly when a status is returned; otherwise no status and a
 *    one-line message naming the file;
 *  - what is shown is valid UTF-8 without a control character but the
 *    line ends (no terminal escape from the file reaches the terminal);
 *  - with a width, no line is wider than it;
 *  - the same file loads the same way twice. */
#include "fuzz-file.h"

#include <stdint.h>
#include <string.h>

#include "wlanfair-text.h"
#include "wlanfairctl-ap.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* 2025-11-29: near the corpus' time_us, so that some are fresh. */
#define NOW_US G_GINT64_CONSTANT (1764400000000000)

static void
check_render (WfApStatus *st, guint width)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) lines = NULL;

  wf_ap_status_render (st, NOW_US, width, out);
  g_assert_true (g_utf8_validate (out->str, (gssize) out->len, NULL));
  for (gsize i = 0; i < out->len; i++)
    {
      guchar c = (guchar) out->str[i];

      g_assert_true (c == '\n' || (c >= 0x20 && c != 0x7f));
    }
  if (width == 0)
    return;
  lines = g_strsplit (out->str, "\n", -1);
  for (char **l = lines; *l; l++)
    g_assert_cmpuint (wf_text_width (*l, WF_TEXT_ESCAPED), <=, width);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file (data, size);
  g_autoptr(WfApStatus) st = NULL;
  g_autoptr(WfApStatus) again = NULL;
  g_autofree char *message = NULL;
  g_autofree char *again_message = NULL;
  WfApLoad r;

  r = wf_ap_status_load (path, NOW_US, &st, &message);
  g_assert_true ((r == WF_AP_LOAD_OK) == (st != NULL));
  if (st)
    {
      static const guint widths[] = { 0, 20, 80, 200 };

      g_assert_null (message);
      for (gsize i = 0; i < G_N_ELEMENTS (widths); i++)
        check_render (st, widths[i]);
    }
  else
    {
      g_assert_true (message && message[0] && !strchr (message, '\n'));
      g_assert_nonnull (strstr (message, path));
    }
  g_assert_cmpint (wf_ap_status_load (path, NOW_US, &again, &again_message), ==, r);
  return 0;
}
