/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UDP reports. An unreachable destination, a missing gateway or a name
 * that does not resolve costs this sample's datagram and one log line a
 * minute; the measurements, textfile and local channel carry on. */
#include "wlanfair-reportd-send.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gio/gio.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-reportd-config.h"
#include "wlanfair-route.h"

/* A name that did not resolve is tried again after this long. */
#define RESOLVE_RETRY_US (30 * G_USEC_PER_SEC)

struct _WfReportdSend {
  WfReportSender         *sender;
  WfRatelimit            *rl;
  char                   *host;       /* configured; NULL: gateway */
  guint16                 port;
  guint                   dscp;
  gboolean                have_addr;
  struct sockaddr_storage addr;
  socklen_t               addr_len;
  char                   *addr_text;  /* for logs and status */
  gboolean                stale;      /* look the destination up again */
  gint64                  next_resolve_us;
  GCancellable           *resolving;
  int                     fd4, fd6;
  guint64                 sent, errors;
  char                   *last_error;
};

WfReportdSend *
wf_reportd_send_new (WfReportSender *sender, const char *destination, guint16 port,
                     guint dscp, WfRatelimit *rl)
{
  WfReportdSend *s = g_new0 (WfReportdSend, 1);

  s->sender = sender;
  s->rl = rl;
  s->port = port;
  s->dscp = dscp;
  if (destination)
    {
      g_autofree char *host = NULL;

      /* Validated with the configuration already. */
      if (wf_reportd_parse_hostport (destination, port, &host, &s->port, NULL))
        s->host = g_steal_pointer (&host);
    }
  s->stale = TRUE;
  s->fd4 = s->fd6 = -1;
  return s;
}

void
wf_reportd_send_free (WfReportdSend *s)
{
  if (s == NULL)
    return;
  if (s->resolving)
    {
      g_cancellable_cancel (s->resolving);
      g_object_unref (s->resolving);
    }
  if (s->fd4 >= 0)
    close (s->fd4);
  if (s->fd6 >= 0)
    close (s->fd6);
  g_free (s->host);
  g_free (s->addr_text);
  g_free (s->last_error);
  g_free (s);
}

void
wf_reportd_send_network_changed (WfReportdSend *s)
{
  s->stale = TRUE;
  s->next_resolve_us = 0;
}

static void
set_addr (WfReportdSend *s, int family, const void *ip, int scope)
{
  char text[INET6_ADDRSTRLEN];
  char ifname[IF_NAMESIZE] = "";
  g_autofree char *shown = NULL;

  memset (&s->addr, 0, sizeof s->addr);
  inet_ntop (family, ip, text, sizeof text);
  if (family == AF_INET)
    {
      struct sockaddr_in *a = (struct sockaddr_in *) &s->addr;

      a->sin_family = AF_INET;
      a->sin_port = htons (s->port);
      memcpy (&a->sin_addr, ip, 4);
      s->addr_len = sizeof *a;
      shown = g_strdup_printf ("%s:%u", text, s->port);
    }
  else
    {
      struct sockaddr_in6 *a = (struct sockaddr_in6 *) &s->addr;

      a->sin6_family = AF_INET6;
      a->sin6_port = htons (s->port);
      memcpy (&a->sin6_addr, ip, 16);
      /* Link-local gateways (fe80::1) only mean something on their link. */
      if (IN6_IS_ADDR_LINKLOCAL (&a->sin6_addr))
        {
          a->sin6_scope_id = scope;
          if_indextoname (scope, ifname);
        }
      s->addr_len = sizeof *a;
      shown = g_strdup_printf ("[%s%s%s]:%u", text, ifname[0] ? "%" : "", ifname, s->port);
    }
  if (!s->have_addr || g_strcmp0 (shown, s->addr_text) != 0)
    g_message ("sending reports to %s%s", shown, s->host ? "" : " (default gateway)");
  g_free (s->addr_text);
  s->addr_text = g_steal_pointer (&shown);
  s->have_addr = TRUE;
}

static void
fail (WfReportdSend *s, const char *key, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
fail (WfReportdSend *s, const char *key, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_free (s->last_error);
  s->last_error = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  s->errors++;
  wf_ratelimit_log (s->rl, G_LOG_LEVEL_WARNING, key, s->last_error);
}

static void
resolved (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr(GError) error = NULL;
  GList *addrs = g_resolver_lookup_by_name_finish (G_RESOLVER (source), res, &error);
  WfReportdSend *s;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  s = data;
  g_clear_object (&s->resolving);
  if (addrs == NULL)
    {
      s->have_addr = FALSE;
      s->next_resolve_us = g_get_monotonic_time () + RESOLVE_RETRY_US;
      fail (s, "resolve", "destination %s does not resolve (%s); trying again in %d s",
            s->host, error->message, (int) (RESOLVE_RETRY_US / G_USEC_PER_SEC));
      return;
    }
  {
    GInetAddress *a = addrs->data;
    GSocketFamily fam = g_inet_address_get_family (a);

    set_addr (s, fam == G_SOCKET_FAMILY_IPV6 ? AF_INET6 : AF_INET,
              g_inet_address_to_bytes (a), 0);
    wf_ratelimit_clear (s->rl, "resolve", NULL);
  }
  g_resolver_free_addresses (addrs);
}

/* HOST as a literal address: its family and bytes, else 0. */
static int
literal_addr (const char *host, guint8 ip[16])
{
  if (inet_pton (AF_INET, host, ip) == 1)
    return AF_INET;
  if (inet_pton (AF_INET6, host, ip) == 1)
    return AF_INET6;
  return 0;
}

char *
wf_reportd_send_resolve (const char *destination, guint16 port, GError **error)
{
  g_autofree char *host = NULL;
  g_autoptr(GInetAddress) addr = NULL;
  g_autofree char *text = NULL;
  guint16 p;
  guint8 ip[16];
  int family;

  if (!wf_reportd_parse_hostport (destination, port, &host, &p, error))
    return NULL;
  family = literal_addr (host, ip);
  if (family)
    addr = g_inet_address_new_from_bytes (ip, family == AF_INET6 ? G_SOCKET_FAMILY_IPV6
                                                                : G_SOCKET_FAMILY_IPV4);
  else
    {
      g_autoptr(GResolver) resolver = g_resolver_get_default ();
      g_autoptr(GError) lookup_error = NULL;
      GList *addrs = g_resolver_lookup_by_name (resolver, host, NULL, &lookup_error);

      if (!addrs)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "destination %s does not resolve (%s)",
                       host, lookup_error->message);
          return NULL;
        }
      /* The run takes the first answer too (resolved()). */
      addr = g_object_ref (addrs->data);
      g_resolver_free_addresses (addrs);
    }
  text = g_inet_address_to_string (addr);
  return g_inet_address_get_family (addr) == G_SOCKET_FAMILY_IPV6
         ? g_strdup_printf ("[%s]:%u", text, p) : g_strdup_printf ("%s:%u", text, p);
}

static void
find_destination (WfReportdSend *s, WfSampler *sampler)
{
  gint64 now = g_get_monotonic_time ();

  if (!s->stale && s->have_addr)
    return;
  if (s->host)
    {
      guint8 ip[16];
      int family = literal_addr (s->host, ip);

      if (family)
        set_addr (s, family, ip, 0);
      else if (s->resolving == NULL && now >= s->next_resolve_us)
        {
          g_autoptr(GResolver) resolver = g_resolver_get_default ();

          /* Asynchronous: a slow DNS server must not stall sampling. The
           * previous address stays in use meanwhile. */
          s->resolving = g_cancellable_new ();
          g_resolver_lookup_by_name_async (resolver, s->host, s->resolving, resolved, s);
        }
      s->stale = FALSE;
      return;
    }

  /* The default gateway of the first reported interface that has one. */
  {
    GArray *ifs = wf_sampler_get_ifindexes (sampler);
    WfRoute *route = wf_sampler_get_route (sampler);

    s->have_addr = FALSE;
    for (int family = AF_INET; route && family; family = family == AF_INET ? AF_INET6 : 0)
      for (guint i = 0; i < ifs->len && !s->have_addr; i++)
        {
          int ifindex = g_array_index (ifs, int, i);
          char gw[INET6_ADDRSTRLEN];
          guint8 ip[16];

          if (wf_route_default_gateway (route, ifindex, family, gw, sizeof gw, NULL) &&
              inet_pton (family, gw, ip) == 1)
            set_addr (s, family, ip, ifindex);
        }
    if (s->have_addr)
      {
        wf_ratelimit_clear (s->rl, "gateway", NULL);
        s->stale = FALSE;
      }
    else
      /* Stays stale: looked up again every sample until a route appears. */
      fail (s, "gateway", "no default gateway through the reported interfaces (%u); "
            "reports are not sent until one appears (or set destination=)", ifs->len);
  }
}

/* Reports are control traffic: a station whose uplink is saturated must
 * still deliver them on time. The DSCP picks the WMM access category
 * mac80211 sends them in (cfg80211_classify8021d) and how an AP or a
 * router queues them; the priority picks pfifo_fast's first band on the
 * host. IP_TOS before SO_PRIORITY: setting the TOS also sets sk_priority
 * (rt_tos2priority), the explicit priority must come last. A refusal
 * costs the marking, never the report. */
static void
mark_socket (WfReportdSend *s, int fd, int family)
{
  int tos = (int) (s->dscp << 2);
  int prio = WF_REPORTD_SO_PRIORITY;
  const char *what = family == AF_INET ? "IP_TOS" : "IPV6_TCLASS";
  int r;

  if (s->dscp == 0)
    return;
  r = family == AF_INET ? setsockopt (fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos)
                        : setsockopt (fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof tos);
  if (r == 0)
    {
      what = "SO_PRIORITY";
      r = setsockopt (fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof prio);
    }
  if (r < 0)
    {
      g_autofree char *msg = g_strdup_printf ("reports are not fully marked (%s: %s)", what,
                                              g_strerror (errno));

      wf_ratelimit_log (s->rl, G_LOG_LEVEL_WARNING, "mark", msg);
    }
}

void
wf_reportd_send_report (WfReportdSend *s, WfSampler *sampler, JsonObject *body,
                        double interval_s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) datagram = NULL;
  const struct sockaddr *sa = (const struct sockaddr *) &s->addr;
  int *fd;
  gsize len;
  const guint8 *data;

  find_destination (s, sampler);
  if (!s->have_addr)
    return;
  datagram = wf_report_sender_seal (s->sender, body, interval_s, &error);
  if (datagram == NULL)
    {
      fail (s, "seal", "report not sent: %s", error->message);
      return;
    }
  fd = sa->sa_family == AF_INET ? &s->fd4 : &s->fd6;
  if (*fd < 0 && (*fd = socket (sa->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) >= 0)
    mark_socket (s, *fd, sa->sa_family);
  if (*fd < 0)
    {
      fail (s, "socket", "report not sent: UDP socket: %s", g_strerror (errno));
      return;
    }
  data = g_bytes_get_data (datagram, &len);
  if (sendto (*fd, data, len, 0, sa, s->addr_len) < 0)
    {
      int e = errno;

      fail (s, "send", "report to %s not sent: %s", s->addr_text, g_strerror (e));
      /* The route may have gone: look the gateway up again next time. */
      if (e == ENETUNREACH || e == EHOSTUNREACH || e == EADDRNOTAVAIL || e == EINVAL)
        s->stale = TRUE;
      return;
    }
  s->sent++;
  if (s->last_error)
    {
      g_autofree char *msg = g_strdup_printf ("reports reach %s again", s->addr_text);

      wf_ratelimit_clear (s->rl, "send", msg);
    }
}

JsonObject *
wf_reportd_send_status (WfReportdSend *s)
{
  JsonObject *o = json_object_new ();

  if (s->have_addr)
    json_object_set_string_member (o, "destination", s->addr_text);
  json_object_set_string_member (o, "mode", s->host ? "configured" : "gateway");
  json_object_set_int_member (o, "sent", (gint64) s->sent);
  json_object_set_int_member (o, "errors", (gint64) s->errors);
  if (s->last_error)
    json_object_set_string_member (o, "last_error", s->last_error);
  return o;
}
