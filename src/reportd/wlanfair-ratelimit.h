/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Logs a repeating condition (same key) at most once per interval, with
 * the count of what it held back; a NULL key always logs. */
typedef struct _WfRatelimit WfRatelimit;

WfRatelimit *wf_ratelimit_new (gint64 interval_us);
void         wf_ratelimit_free (WfRatelimit *rl);
void         wf_ratelimit_log (WfRatelimit   *rl,
                               GLogLevelFlags level,
                               const char    *key,
                               const char    *message);
/* The condition cleared: log `message` if it had been logged. */
void         wf_ratelimit_clear (WfRatelimit *rl,
                                 const char  *key,
                                 const char  *message);

G_END_DECLS
