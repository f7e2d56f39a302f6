/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-receiver.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-ratelimit.h"
#include "wlanfair-report-socket.h"

#define RECV_BATCH 64
/* One log line per reason per this period; the rest are counted. */
#define LOG_PERIOD_US (10 * G_USEC_PER_SEC)

struct _WfApdReceiver {
  GSocket        *sock;
  GSource        *source;
  GBytes         *key;
  WfReportReplay *replay;
  WfApdReportFunc func;
  gpointer        user_data;
  char            bound[80];
  guint8         *buf;
  guint64         accepted[WF_APD_PATH_N];
  guint64         rejected[WF_REPORT_REJECT_N];
  WfRatelimit    *said;   /* per reason, keyed by its name */
};

static void
reject (WfApdReceiver *r, WfReportReject reason, const char *from,
        const char *detail)
{
  const char *what = wf_report_reject_to_string (reason);
  guint64 held;

  r->rejected[reason]++;
  if (!wf_ratelimit_check (r->said, what, &held))
    return;
  if (held)
    g_message ("report from %s dropped (%s): %s; %" G_GUINT64_FORMAT
               " more of this kind in the last %d s",
               from, what, detail, held, (int) (LOG_PERIOD_US / G_USEC_PER_SEC));
  else
    g_message ("report from %s dropped (%s): %s", from, what, detail);
}

/* "192.0.2.1:5000" or "[2001:db8::1]:5000 (carried)", for the log lines. */
static void
format_from (const WfApdReportFrom *from, char *out, gsize size)
{
  char a[INET6_ADDRSTRLEN] = "?";
  gboolean v6 = from->family == AF_INET6;

  inet_ntop (from->family, from->addr, a, sizeof a);
  g_snprintf (out, size, "%s%s%s:%u%s", v6 ? "[" : "", a, v6 ? "]" : "", from->port,
              from->path == WF_APD_PATH_CARRIED ? " (carried)" : "");
}

void
wf_apd_receiver_handle_from (WfApdReceiver *r, const guint8 *data, gsize size,
                             const WfApdReportFrom *from)
{
  g_autoptr(GError) error = NULL;
  WfReportReject reason = WF_REPORT_OK;
  WfReportView *v;
  char text[INET6_ADDRSTRLEN + 24];

  v = wf_report_parse (data, size, r->key, &reason, &error);
  if (!v)
    {
      format_from (from, text, sizeof text);
      reject (r, reason, text, error ? error->message : "?");
      return;
    }
  reason = wf_report_replay_check (r->replay, v, g_get_real_time (), &error);
  if (reason != WF_REPORT_OK)
    {
      format_from (from, text, sizeof text);
      reject (r, reason, text, error ? error->message : "?");
      wf_report_view_free (v);
      return;
    }
  r->accepted[from->path < WF_APD_PATH_N ? from->path : WF_APD_PATH_ADDRESSED]++;
  r->func (v, from, r->user_data);
}

void
wf_apd_receiver_handle (WfApdReceiver *r, const guint8 *data, gsize size,
                        GSocketAddress *sa)
{
  WfApdReportFrom from = { .path = WF_APD_PATH_ADDRESSED };

  if (!wf_report_from_addr (sa, &from.family, from.addr))
    return;
  from.port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (sa));
  wf_apd_receiver_handle_from (r, data, size, &from);
}

static gboolean
on_readable (GSocket *sock, GIOCondition cond, gpointer data)
{
  WfApdReceiver *r = data;

  for (int i = 0; i < RECV_BATCH; i++)
    {
      g_autoptr(GSocketAddress) sa = NULL;
      g_autoptr(GError) error = NULL;
      /* One byte more than the limit, so that an oversized datagram is
       * seen as such, not truncated into a valid-looking one. */
      gssize n = g_socket_receive_from (sock, &sa, (char *) r->buf,
                                        WF_REPORT_MAX_SIZE + 1, NULL, &error);
      if (n < 0)
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            g_debug ("receive: %s", error->message);
          break;
        }
      wf_apd_receiver_handle (r, r->buf, (gsize) n, sa);
    }
  return G_SOURCE_CONTINUE;
}

WfApdReceiver *
wf_apd_receiver_new (const char *bind_addr, guint16 port, GBytes *key,
                     WfApdReportFunc func, gpointer user_data, GError **error)
{
  g_autoptr(WfApdReceiver) r = g_new0 (WfApdReceiver, 1);

  r->func = func;
  r->user_data = user_data;
  r->key = key ? g_bytes_ref (key) : NULL;
  r->replay = wf_report_replay_new (0, 0);
  r->said = wf_ratelimit_new (G_LOG_DOMAIN, LOG_PERIOD_US);
  r->buf = g_malloc (WF_REPORT_MAX_SIZE + 1);
  if (port == 0)
    return g_steal_pointer (&r);   /* no socket: datagrams via _handle */
  r->sock = wf_report_socket_open (bind_addr, port, r->bound, sizeof r->bound, error);
  if (!r->sock)
    return NULL;
  r->source = g_socket_create_source (r->sock, G_IO_IN, NULL);
  g_source_set_callback (r->source, G_SOURCE_FUNC (on_readable), r, NULL);
  g_source_attach (r->source, NULL);
  return g_steal_pointer (&r);
}

void
wf_apd_receiver_free (WfApdReceiver *r)
{
  if (!r)
    return;
  if (r->source)
    {
      g_source_destroy (r->source);
      g_source_unref (r->source);
    }
  g_clear_object (&r->sock);
  g_clear_pointer (&r->key, g_bytes_unref);
  g_clear_pointer (&r->replay, wf_report_replay_free);
  wf_ratelimit_free (r->said);
  g_free (r->buf);
  g_free (r);
}

const char *
wf_apd_receiver_bound (WfApdReceiver *r)
{
  return r->bound;
}

guint64
wf_apd_receiver_accepted (WfApdReceiver *r)
{
  return r->accepted[WF_APD_PATH_ADDRESSED] + r->accepted[WF_APD_PATH_CARRIED];
}

guint64
wf_apd_receiver_accepted_by (WfApdReceiver *r, WfApdPath path)
{
  return path < WF_APD_PATH_N ? r->accepted[path] : 0;
}

guint64
wf_apd_receiver_rejected (WfApdReceiver *r, WfReportReject reason)
{
  return reason < WF_REPORT_REJECT_N ? r->rejected[reason] : 0;
}
