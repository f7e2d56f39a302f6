/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One UDP socket for reports, both families (listen, wlanfair-apd). */
#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "wlanfair-error.h"
#include "wlanfair-report-socket.h"

GSocket *
wf_report_socket_open (const char *bind_addr, guint16 port, char *bound,
                       gsize bound_size, GError **error)
{
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GInetAddress) addr = NULL;
  g_autoptr(GSocketAddress) sa = NULL;
  g_autoptr(GError) v6_error = NULL;
  gboolean dual = FALSE;

  if (bind_addr)
    {
      addr = g_inet_address_new_from_string (bind_addr);
      if (addr == NULL)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "'%s' is not an IPv4 or IPv6 address", bind_addr);
          return NULL;
        }
      dual = g_inet_address_get_family (addr) == G_SOCKET_FAMILY_IPV6 &&
             g_inet_address_get_is_any (addr);
    }
  else
    {
      addr = g_inet_address_new_any (G_SOCKET_FAMILY_IPV6);
      dual = TRUE;
    }

  sock = g_socket_new (g_inet_address_get_family (addr), G_SOCKET_TYPE_DATAGRAM,
                          G_SOCKET_PROTOCOL_UDP, &v6_error);
  if (sock == NULL && bind_addr == NULL)
    {
      /* IPv6 disabled on this host: IPv4 only. */
      g_clear_object (&addr);
      addr = g_inet_address_new_any (G_SOCKET_FAMILY_IPV4);
      dual = FALSE;
      sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
                              G_SOCKET_PROTOCOL_UDP, error);
    }
  else if (sock == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&v6_error));
      return NULL;
    }
  if (sock == NULL)
    return NULL;

  /* One socket for both families: v4-mapped addresses on [::]. */
  if (dual && !g_socket_set_option (sock, IPPROTO_IPV6, IPV6_V6ONLY, 0, error))
    return NULL;
  /* Room for a burst of reports from many hosts; best effort. */
  g_socket_set_option (sock, SOL_SOCKET, SO_RCVBUF, 1 << 20, NULL);
  g_socket_set_blocking (sock, FALSE);

  sa = g_inet_socket_address_new (addr, port);
  if (!g_socket_bind (sock, sa, FALSE, error))
    return NULL;
  {
    g_autofree char *a = g_inet_address_to_string (addr);

    g_snprintf (bound, bound_size, "%s%s%s:%d%s",
                g_inet_address_get_family (addr) == G_SOCKET_FAMILY_IPV6 ? "[" : "", a,
                g_inet_address_get_family (addr) == G_SOCKET_FAMILY_IPV6 ? "]" : "",
                port, dual ? " (IPv4+IPv6)" : "");
  }
  return g_steal_pointer (&sock);
}

/* "10.0.0.2:5000" or "[2001:db8::2]:5000"; v4-mapped shown as IPv4. */
void
wf_report_format_from (GSocketAddress *sa, char *out, gsize size)
{
  GInetSocketAddress *isa;
  GInetAddress *a;
  g_autofree char *text = NULL;

  if (sa == NULL || !G_IS_INET_SOCKET_ADDRESS (sa))
    {
      g_strlcpy (out, "?", size);
      return;
    }
  isa = G_INET_SOCKET_ADDRESS (sa);
  a = g_inet_socket_address_get_address (isa);
  if (g_inet_address_get_family (a) == G_SOCKET_FAMILY_IPV6)
    {
      const guint8 *b = g_inet_address_to_bytes (a);
      static const guint8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

      if (memcmp (b, mapped, 12) == 0)
        {
          g_snprintf (out, size, "%u.%u.%u.%u:%u", b[12], b[13], b[14], b[15],
                      g_inet_socket_address_get_port (isa));
          return;
        }
      text = g_inet_address_to_string (a);
      g_snprintf (out, size, "[%s]:%u", text, g_inet_socket_address_get_port (isa));
      return;
    }
  text = g_inet_address_to_string (a);
  g_snprintf (out, size, "%s:%u", text, g_inet_socket_address_get_port (isa));
}

gboolean
wf_report_from_addr (GSocketAddress *sa, int *family, guint8 addr[16])
{
  static const guint8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  GInetAddress *a;
  const guint8 *b;

  if (sa == NULL || !G_IS_INET_SOCKET_ADDRESS (sa))
    return FALSE;
  a = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (sa));
  b = g_inet_address_to_bytes (a);
  memset (addr, 0, 16);
  if (g_inet_address_get_family (a) == G_SOCKET_FAMILY_IPV4)
    {
      *family = AF_INET;
      memcpy (addr, b, 4);
    }
  else if (memcmp (b, mapped, 12) == 0)
    {
      *family = AF_INET;
      memcpy (addr, b + 12, 4);
    }
  else
    {
      *family = AF_INET6;
      memcpy (addr, b, 16);
    }
  return TRUE;
}
