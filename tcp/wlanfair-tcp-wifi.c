/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-tcp-wifi.h"

#include <arpa/inet.h>
#include <glib-unix.h>
#include <ifaddrs.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-tcp-shared.h"

struct _WfTcpWifi {
  char           **interfaces; /* NULL: auto */
  WfTcpWifiChanged changed;
  gpointer         user_data;
  struct nl_sock  *sock;
  guint            watch;
  guint            resync;
  char            *last;       /* description of the last set, for logs */
};

gboolean
wf_tcp_wifi_is_wireless (const char *ifname)
{
  g_autofree char *wireless = g_build_filename ("/sys/class/net", ifname, "wireless", NULL);
  g_autofree char *phy = g_build_filename ("/sys/class/net", ifname, "phy80211", NULL);

  return g_file_test (wireless, G_FILE_TEST_IS_DIR) || g_file_test (phy, G_FILE_TEST_EXISTS);
}

static gboolean
wanted (WfTcpWifi *wifi, const char *ifname)
{
  if (wifi->interfaces)
    return g_strv_contains ((const char * const *) wifi->interfaces, ifname);
  return wf_tcp_wifi_is_wireless (ifname);
}

static void
sync_now (WfTcpWifi *wifi)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, TRUE, sizeof (struct wf_addr_key));
  g_autoptr(GString) desc = g_string_new (NULL);
  struct ifaddrs *list = NULL;

  if (getifaddrs (&list) < 0)
    {
      g_warning ("listing interface addresses: %s", g_strerror (errno));
      return;
    }
  for (struct ifaddrs *a = list; a; a = a->ifa_next)
    {
      struct wf_addr_key key = { 0 };
      char text[INET6_ADDRSTRLEN];

      if (a->ifa_addr == NULL || !wanted (wifi, a->ifa_name))
        continue;
      key.family = a->ifa_addr->sa_family;
      if (key.family == AF_INET)
        memcpy (key.addr, &((struct sockaddr_in *) (void *) a->ifa_addr)->sin_addr, 4);
      else if (key.family == AF_INET6)
        memcpy (key.addr, &((struct sockaddr_in6 *) (void *) a->ifa_addr)->sin6_addr, 16);
      else
        continue;
      g_array_append_val (keys, key);
      inet_ntop (key.family, key.addr, text, sizeof text);
      g_string_append_printf (desc, "%s%s=%s", desc->len ? " " : "", a->ifa_name, text);
    }
  freeifaddrs (list);

  if (g_strcmp0 (wifi->last, desc->str) != 0)
    {
      g_message ("Wi-Fi addresses: %s", desc->len ? desc->str : "(none)");
      g_free (wifi->last);
      wifi->last = g_strdup (desc->str);
    }
  wifi->changed (keys, wifi->user_data);
}

static gboolean
resync_cb (gpointer data)
{
  WfTcpWifi *wifi = data;

  wifi->resync = 0;
  sync_now (wifi);
  return G_SOURCE_REMOVE;
}

static int
event_cb (struct nl_msg *msg, void *data)
{
  WfTcpWifi *wifi = data;

  /* Events come in bursts (link up, then each address): one resync. */
  if (wifi->resync == 0)
    wifi->resync = g_timeout_add (100, resync_cb, wifi);
  return NL_OK;
}

static gboolean
readable_cb (int fd, GIOCondition cond, gpointer data)
{
  WfTcpWifi *wifi = data;
  int err = nl_recvmsgs_default (wifi->sock);

  /* A full buffer drops events, so resync from scratch. */
  if (err < 0 && err != -NLE_AGAIN)
    event_cb (NULL, wifi);
  return G_SOURCE_CONTINUE;
}

WfTcpWifi *
wf_tcp_wifi_new (char            **interfaces,
                 WfTcpWifiChanged  changed,
                 gpointer          user_data,
                 GError          **error)
{
  g_autoptr(WfTcpWifi) wifi = g_new0 (WfTcpWifi, 1);
  int err;

  wifi->interfaces = interfaces && interfaces[0] ? g_strdupv (interfaces) : NULL;
  wifi->changed = changed;
  wifi->user_data = user_data;

  wifi->sock = nl_socket_alloc ();
  if (wifi->sock == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "out of memory");
      return NULL;
    }
  nl_socket_disable_seq_check (wifi->sock);
  nl_socket_modify_cb (wifi->sock, NL_CB_VALID, NL_CB_CUSTOM, event_cb, wifi);
  if ((err = nl_connect (wifi->sock, NETLINK_ROUTE)) < 0 ||
      (err = nl_socket_add_memberships (wifi->sock, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR,
                                        RTNLGRP_IPV6_IFADDR, 0)) < 0 ||
      (err = nl_socket_set_nonblocking (wifi->sock)) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: %s", nl_geterror (err));
      return NULL;
    }
  wifi->watch = g_unix_fd_add (nl_socket_get_fd (wifi->sock), G_IO_IN, readable_cb, wifi);
  sync_now (wifi);
  return g_steal_pointer (&wifi);
}

void
wf_tcp_wifi_free (WfTcpWifi *wifi)
{
  if (wifi == NULL)
    return;
  if (wifi->watch)
    g_source_remove (wifi->watch);
  if (wifi->resync)
    g_source_remove (wifi->resync);
  nl_socket_free (wifi->sock);
  g_strfreev (wifi->interfaces);
  g_free (wifi->last);
  g_free (wifi);
}
