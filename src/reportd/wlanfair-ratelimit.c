/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A destination that stays unreachable must not fill the journal at 10
 * samples per second: first occurrence, then one line per interval. */
#include "wlanfair-ratelimit.h"

typedef struct {
  gint64 last_us;
  guint  held;
} Entry;

struct _WfRatelimit {
  gint64      interval_us;
  GHashTable *keys;
};

WfRatelimit *
wf_ratelimit_new (gint64 interval_us)
{
  WfRatelimit *rl = g_new0 (WfRatelimit, 1);

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
  g_free (rl);
}

void
wf_ratelimit_log (WfRatelimit *rl, GLogLevelFlags level, const char *key, const char *message)
{
  gint64 now = g_get_monotonic_time ();
  Entry *e;

  if (key == NULL)
    {
      g_log (G_LOG_DOMAIN, level, "%s", message);
      return;
    }
  e = g_hash_table_lookup (rl->keys, key);
  if (e == NULL)
    {
      e = g_new0 (Entry, 1);
      g_hash_table_insert (rl->keys, g_strdup (key), e);
    }
  else if (now - e->last_us < rl->interval_us)
    {
      e->held++;
      return;
    }
  if (e->held)
    g_log (G_LOG_DOMAIN, level, "%s (%u more like it since the last message)", message, e->held);
  else
    g_log (G_LOG_DOMAIN, level, "%s", message);
  e->last_us = now;
  e->held = 0;
}

void
wf_ratelimit_clear (WfRatelimit *rl, const char *key, const char *message)
{
  if (g_hash_table_remove (rl->keys, key) && message)
    g_message ("%s", message);
}
