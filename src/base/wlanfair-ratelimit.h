/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A repeating condition said once per interval, or once until it works again. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Logs a repeating condition (same key) at most once per interval, with
 * the count of what it held back; a NULL key always logs. With the
 * interval WF_RATELIMIT_ONCE a key is said once, and again only after
 * wf_ratelimit_clear(): "failing" said once until it works again. Lines
 * go to `log_domain` (the caller's G_LOG_DOMAIN). */
#define WF_RATELIMIT_ONCE G_MAXINT64

typedef struct _WfRatelimit WfRatelimit;

WfRatelimit *wf_ratelimit_new   (const char    *log_domain,
                                 gint64         interval_us);
void         wf_ratelimit_free  (WfRatelimit   *rl);
void         wf_ratelimit_log   (WfRatelimit   *rl,
                                 GLogLevelFlags level,
                                 const char    *key,
                                 const char    *message);
/* For callers that word their own line: TRUE when `key` is to be said
 * now, counted as said; *held (may be NULL) is how many times it was
 * held back since it was said last. */
gboolean     wf_ratelimit_check (WfRatelimit   *rl,
                                 const char    *key,
                                 guint64       *held);
/* The condition cleared: TRUE if it had been said, and then `message`
 * (unless NULL) is logged as a message. */
gboolean     wf_ratelimit_clear (WfRatelimit   *rl,
                                 const char    *key,
                                 const char    *message);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfRatelimit, wf_ratelimit_free)

G_END_DECLS
