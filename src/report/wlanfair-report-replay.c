/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replay and freshness state of a report receiver, per host id, bounded
 * in hosts and in time (rules: docs/report-protocol.md). */
#include "wlanfair-report.h"

#include <string.h>

#include "wlanfair-error.h"

typedef struct {
  char    boot[17];
  guint64 seq;
  gint64  time_us;     /* of the last accepted report */
  gint64  seen_us;     /* receiver time it was accepted */
  gint64  interval_us;
} HostState;

struct _WfReportReplay {
  GHashTable *hosts; /* host id -> HostState */
  gint64      window_us;
  guint       max_hosts;
};

WfReportReplay *
wf_report_replay_new (gint64 window_us, guint max_hosts)
{
  WfReportReplay *r = g_new0 (WfReportReplay, 1);

  r->hosts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r->window_us = window_us > 0 ? window_us : WF_REPORT_REPLAY_WINDOW_US;
  r->max_hosts = max_hosts > 0 ? max_hosts : WF_REPORT_REPLAY_MAX_HOSTS;
  return r;
}

void
wf_report_replay_free (WfReportReplay *r)
{
  if (r == NULL)
    return;
  g_hash_table_unref (r->hosts);
  g_free (r);
}

guint
wf_report_replay_n_hosts (WfReportReplay *r)
{
  return g_hash_table_size (r->hosts);
}

void
wf_report_replay_expire (WfReportReplay *r, gint64 now_us)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, r->hosts);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      HostState *h = value;

      /* A report accepted at seen_us had time_us <= seen_us + window +
       * interval; a replay of it is fresh until time_us + window +
       * interval. Past twice that, the state protects nothing. */
      if (now_us - h->seen_us > 2 * (r->window_us + h->interval_us) + G_USEC_PER_SEC)
        g_hash_table_iter_remove (&it);
    }
}

WfReportReject
wf_report_replay_check (WfReportReplay     *r,
                        const WfReportView *v,
                        gint64              now_us,
                        GError            **error)
{
  gint64 interval_us = (gint64) (v->interval_s * G_USEC_PER_SEC);
  gint64 window = r->window_us + interval_us;
  HostState *h;

  if (v->time_us < now_us - window)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "stale: report time is %.3f s in the past (window %.3f s)",
                   (double) (now_us - v->time_us) / G_USEC_PER_SEC,
                   (double) window / G_USEC_PER_SEC);
      return WF_REPORT_REJECT_STALE;
    }
  if (v->time_us > now_us + window)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "future: report time is %.3f s ahead (window %.3f s)",
                   (double) (v->time_us - now_us) / G_USEC_PER_SEC,
                   (double) window / G_USEC_PER_SEC);
      return WF_REPORT_REJECT_FUTURE;
    }

  wf_report_replay_expire (r, now_us);
  h = g_hash_table_lookup (r->hosts, v->host);
  if (h && strcmp (h->boot, v->boot) == 0 && v->seq <= h->seq)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "replay: seq %" G_GUINT64_FORMAT " is not above %" G_GUINT64_FORMAT
                   " of boot %s", v->seq, h->seq, h->boot);
      return WF_REPORT_REJECT_REPLAY;
    }
  /* A new boot id is a restarted sender: it starts later than the last
   * report of the old one, else it is an old boot's report replayed. */
  if (h && strcmp (h->boot, v->boot) != 0 && v->time_us <= h->time_us)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "replay: boot %s report is not newer than the last of boot %s",
                   v->boot, h->boot);
      return WF_REPORT_REJECT_REPLAY;
    }
  if (h == NULL)
    {
      if (g_hash_table_size (r->hosts) >= r->max_hosts)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "host-limit: %u hosts known, a new one is not accepted",
                       r->max_hosts);
          return WF_REPORT_REJECT_HOST_LIMIT;
        }
      h = g_new0 (HostState, 1);
      g_hash_table_insert (r->hosts, g_strdup (v->host), h);
    }
  memcpy (h->boot, v->boot, sizeof h->boot);
  h->seq = v->seq;
  h->time_us = v->time_us;
  h->seen_us = now_us;
  h->interval_us = interval_us;
  return WF_REPORT_OK;
}
