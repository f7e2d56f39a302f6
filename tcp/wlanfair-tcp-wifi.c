/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-tcp-wifi.h"

#include <arpa/inet.h>
#include <glib-unix.h>
#include <ifaddrs.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/msg.h>
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
  GArray          *keys;       /* struct wf_addr_key: the last set */
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
  g_clear_pointer (&wifi->keys, g_array_unref);
  wifi->keys = g_array_ref (keys);
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

static void
schedule_resync (WfTcpWifi *wifi)
{
  /* Events come in bursts (link up, then each address): one resync. */
  if (wifi->resync == 0)
    wifi->resync = g_timeout_add (100, resync_cb, wifi);
}

static gboolean
known_addr (WfTcpWifi *wifi, int family, const void *addr, int len)
{
  for (guint i = 0; wifi->keys && i < wifi->keys->len; i++)
    {
      const struct wf_addr_key *k = &g_array_index (wifi->keys, struct wf_addr_key, i);

      if ((int) k->family == family && len <= (int) sizeof k->addr && memcmp (k->addr, addr, len) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Whether an rtnetlink event may change the set. What a laptop gets
 * while idle does not: wireless-extension events (scans) riding on
 * RTM_NEWLINK, IPv6 lifetime refreshes (RTM_NEWADDR of a known address),
 * other interfaces' addresses. */
static gboolean
event_matters (WfTcpWifi *wifi, struct nl_msg *msg)
{
  struct nlmsghdr *h = nlmsg_hdr (msg);

  if (h->nlmsg_type == RTM_NEWLINK)
    {
      struct nlattr *tb[IFLA_MAX + 1];

      return nlmsg_parse (h, sizeof (struct ifinfomsg), tb, IFLA_MAX, NULL) < 0 ||
             tb[IFLA_WIRELESS] == NULL;
    }
  if (h->nlmsg_type == RTM_NEWADDR || h->nlmsg_type == RTM_DELADDR)
    {
      struct ifaddrmsg *ifa;
      struct nlattr *tb[IFA_MAX + 1], *a;
      char name[IF_NAMESIZE];

      if (nlmsg_parse (h, sizeof *ifa, tb, IFA_MAX, NULL) < 0)
        return TRUE;
      ifa = nlmsg_data (h);
      /* A gone interface has no name: resync. */
      if (if_indextoname (ifa->ifa_index, name) && !wanted (wifi, name))
        return FALSE;
      /* The address getifaddrs() reports: IFA_LOCAL where there is one. */
      a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
      if (a == NULL)
        return TRUE;
      return known_addr (wifi, ifa->ifa_family, nla_data (a), nla_len (a)) !=
             (h->nlmsg_type == RTM_NEWADDR);
    }
  return TRUE;
}

static int
event_cb (struct nl_msg *msg, void *data)
{
  WfTcpWifi *wifi = data;

  if (event_matters (wifi, msg))
    schedule_resync (wifi);
  return NL_OK;
}

static gboolean
readable_cb (int fd, GIOCondition cond, gpointer data)
{
  WfTcpWifi *wifi = data;
  int err = nl_recvmsgs_default (wifi->sock);

  /* A full buffer drops events, so resync from scratch. */
  if (err < 0 && err != -NLE_AGAIN)
    schedule_resync (wifi);
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
  g_clear_pointer (&wifi->keys, g_array_unref);
  g_free (wifi->last);
  g_free (wifi);
}
