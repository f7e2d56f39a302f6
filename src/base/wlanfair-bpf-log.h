/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libbpf's messages into GLib's log, the one printer of every program that loads BPF. */
#pragma once

#include <bpf/libbpf.h>
#include <glib.h>
#include <stdarg.h>

G_BEGIN_DECLS

/* A header alone, and the one of base that needs more than GLib: only
 * programs that link libbpf include it (base does not link it), and its
 * lines carry the includer's G_LOG_DOMAIN. libbpf's debug lines are
 * dropped, the rest go without their newline, prefixed "libbpf: ". */

static inline int
wf_bpf_log_print (gboolean warnings, enum libbpf_print_level level, const char *fmt, va_list ap)
{
  g_autofree char *msg = NULL;

  if (level == LIBBPF_DEBUG)
    return 0;
  msg = g_strdup_vprintf (fmt, ap);
  g_strchomp (msg);
  if (warnings && level == LIBBPF_WARN)
    g_warning ("libbpf: %s", msg);
  else
    g_info ("libbpf: %s", msg);
  return 0;
}

/* libbpf's warnings as warnings (wlanfair-tcpd: a warning there is news). */
static inline int
wf_bpf_log_warnings (enum libbpf_print_level level, const char *fmt, va_list ap)
{
  return wf_bpf_log_print (TRUE, level, fmt, ap);
}

/* Everything at info: for callers whose failures reach them as GErrors
 * anyway, where the rest is noise (the kernel's extack lines of a tc
 * query that finds nothing). */
static inline int
wf_bpf_log_info (enum libbpf_print_level level, const char *fmt, va_list ap)
{
  return wf_bpf_log_print (FALSE, level, fmt, ap);
}

/* Routes libbpf's printer here; process-wide, as libbpf's printer is. */
static inline void
wf_bpf_log_route (gboolean warnings)
{
  libbpf_set_print (warnings ? wf_bpf_log_warnings : wf_bpf_log_info);
}

G_END_DECLS
