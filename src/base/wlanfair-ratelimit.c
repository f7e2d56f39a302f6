/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A destination that stays unreachable must not fill the journal at 10
 * samples per second, nor a file that cannot be written once per round:
 * first occurrence, then one line per interval, or none until it clears. */
#include "wlanfair-ratelimit.h"

typedef struct {
  gint64  last_us;
  guint64 held;
} Entry;

struct _WfRatelimit {
  char       *domain;
  gint64      interval_us;
  GHashTable *keys;
};

WfRatelimit *
wf_ratelimit_new (const char *log_domain, gint64 interval_us)
{
  WfRatelimit *rl = g_new0 (WfRatelimit, 1);

  rl->domain = g_strdup (log_domain);
  rl->interval_us = interval_us;
  rl->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return rl;
}

void
wf_ratelimit_free (WfRatelimit *rl)
{
  if (rl == NULL)
    return;
  g_hash_table_unref (rl->keys);
  g_free (rl->domain);
  g_free (rl);
}

gboolean
wf_ratelimit_check (WfRatelimit *rl, const char *key, guint64 *held)
{
  gint64 now = g_get_monotonic_time ();
  Entry *e;

  if (held)
    *held = 0;
  if (key == NULL)
    return TRUE;
  e = g_hash_table_lookup (rl->keys, key);
  if (e == NULL)
    {
      e = g_new0 (Entry, 1);
      g_hash_table_insert (rl->keys, g_strdup (key), e);
    }
  /* WF_RATELIMIT_ONCE: no difference of monotonic times reaches it. */
  else if (rl->interval_us == WF_RATELIMIT_ONCE || now - e->last_us < rl->interval_us)
    {
      e->held++;
      return FALSE;
    }
  if (held)
    *held = e->held;
  e->last_us = now;
  e->held = 0;
  return TRUE;
}

void
wf_ratelimit_log (WfRatelimit *rl, GLogLevelFlags level, const char *key, const char *message)
{
  guint64 held;

  if (!wf_ratelimit_check (rl, key, &held))
    return;
  if (held)
    g_log (rl->domain, level, "%s (%" G_GUINT64_FORMAT " more like it since the last message)",
           message, held);
  else
    g_log (rl->domain, level, "%s", message);
}

gboolean
wf_ratelimit_clear (WfRatelimit *rl, const char *key, const char *message)
{
  if (!g_hash_table_remove (rl->keys, key))
    return FALSE;
  if (message)
    g_log (rl->domain, G_LOG_LEVEL_MESSAGE, "%s", message);
  return TRUE;
}
