/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl80211 scan events from the "scan" and "mlme" multicast groups, fed to
 * a GLib main context, and NL80211_CMD_ABORT_SCAN. */
#include "config.h"

#include <errno.h>
#include <glib-unix.h>
#include <linux/nl80211.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-nl80211-scan.h"
#include "wlanfair-nl80211-socket.h"

static const char * const kind_names[] = {
  [WF_SCAN_KIND_SINGLE_SSID] = "single-ssid",
  [WF_SCAN_KIND_WILDCARD] = "wildcard",
  [WF_SCAN_KIND_PASSIVE] = "passive",
  [WF_SCAN_KIND_MULTI_SSID] = "multi-ssid",
  [WF_SCAN_KIND_UNKNOWN] = "unknown",
};

const char *
wf_scan_kind_name (WfScanKind kind)
{
  return (guint) kind < G_N_ELEMENTS (kind_names) ? kind_names[kind] : "?";
}

WfScanKind
wf_nl80211_scan_classify (const guint *ssid_lens, guint n_ssids)
{
  gboolean wildcard = FALSE;

  if (n_ssids == 0)
    return WF_SCAN_KIND_PASSIVE;
  for (guint i = 0; i < n_ssids; i++)
    if (ssid_lens[i] == 0)
      wildcard = TRUE;
  /* NetworkManager adds hidden SSIDs to its wildcard scans: still an
   * explicit, all-networks scan. */
  if (wildcard)
    return WF_SCAN_KIND_WILDCARD;
  return n_ssids == 1 ? WF_SCAN_KIND_SINGLE_SSID : WF_SCAN_KIND_MULTI_SSID;
}

static guint
count_nested (struct nlattr *nest, guint *lens, guint max)
{
  struct nlattr *a;
  int rem;
  guint n = 0;

  nla_for_each_nested (a, nest, rem)
    {
      if (lens && n < max)
        lens[n] = (guint) nla_len (a);
      n++;
    }
  return n;
}

gboolean
wf_nl80211_scan_parse (struct nlmsghdr *nlh, gint64 monotonic_us, WfScanEvent *out)
{
  struct genlmsghdr *gnlh;
  struct nlattr *tb[NL80211_ATTR_MAX + 1];
  guint lens[32];
  guint n;

  if (!genlmsg_valid_hdr (nlh, 0))
    return FALSE;
  gnlh = nlmsg_data (nlh);
  if (nla_parse (tb, NL80211_ATTR_MAX, genlmsg_attrdata (gnlh, 0),
                 genlmsg_attrlen (gnlh, 0), NULL) < 0)
    return FALSE;

  memset (out, 0, sizeof *out);
  out->monotonic_us = monotonic_us;
  out->kind = WF_SCAN_KIND_UNKNOWN;
  if (tb[NL80211_ATTR_IFINDEX] && nla_len (tb[NL80211_ATTR_IFINDEX]) >= 4)
    out->ifindex = (int) nla_get_u32 (tb[NL80211_ATTR_IFINDEX]);

  switch (gnlh->cmd)
    {
    case NL80211_CMD_TRIGGER_SCAN:
      out->type = WF_SCAN_EVENT_START;
      break;
    case NL80211_CMD_NEW_SCAN_RESULTS:
      out->type = WF_SCAN_EVENT_DONE;
      break;
    case NL80211_CMD_SCAN_ABORTED:
      out->type = WF_SCAN_EVENT_ABORTED;
      break;
    case NL80211_CMD_NOTIFY_CQM:
      {
        struct nlattr *cqm[NL80211_ATTR_CQM_MAX + 1];

        if (!tb[NL80211_ATTR_CQM]
            || nla_parse_nested (cqm, NL80211_ATTR_CQM_MAX, tb[NL80211_ATTR_CQM], NULL) < 0
            || !cqm[NL80211_ATTR_CQM_BEACON_LOSS_EVENT])
          return FALSE;
        out->type = WF_SCAN_EVENT_BEACON_LOSS;
        return TRUE;
      }
    default:
      return FALSE;
    }

  /* Scan events: the request's SSID list and frequencies. */
  n = tb[NL80211_ATTR_SCAN_SSIDS] ? count_nested (tb[NL80211_ATTR_SCAN_SSIDS], lens, G_N_ELEMENTS (lens)) : 0;
  out->n_ssids = n;
  out->kind = wf_nl80211_scan_classify (lens, MIN (n, G_N_ELEMENTS (lens)));
  if (tb[NL80211_ATTR_SCAN_FREQUENCIES])
    out->n_freqs = count_nested (tb[NL80211_ATTR_SCAN_FREQUENCIES], NULL, 0);
  if (tb[NL80211_ATTR_SCAN_FLAGS] && nla_len (tb[NL80211_ATTR_SCAN_FLAGS]) >= 4)
    out->flags = nla_get_u32 (tb[NL80211_ATTR_SCAN_FLAGS]);
  return TRUE;
}

struct _WfNl80211Scan {
  WfNl80211Socket    nl;
  guint              watch;
  WfNl80211ScanFunc  func;
  gpointer           user_data;
};

static int
on_valid (struct nl_msg *msg, void *arg)
{
  WfNl80211Scan *scan = arg;
  WfScanEvent ev;

  if (wf_nl80211_scan_parse (nlmsg_hdr (msg), g_get_monotonic_time (), &ev))
    scan->func (&ev, scan->user_data);
  return NL_OK;
}

static gboolean
on_readable (int fd, GIOCondition cond, gpointer user_data)
{
  WfNl80211Scan *scan = user_data;
  int err;

  /* Non-blocking: drain what is there. ENOBUFS (overrun) only loses
   * events; the counts are best effort then, say so once per overrun. */
  err = nl_recvmsgs_default (scan->nl.sk);
  if (err < 0 && err != -NLE_AGAIN)
    g_debug ("nl80211 scan events: %s", nl_geterror (err));
  return G_SOURCE_CONTINUE;
}

WfNl80211Scan *
wf_nl80211_scan_new (WfNl80211ScanFunc func, gpointer user_data, GError **error)
{
  g_autofree WfNl80211Scan *scan = g_new0 (WfNl80211Scan, 1);
  static const char * const groups[] = { NL80211_MULTICAST_GROUP_SCAN, NL80211_MULTICAST_GROUP_MLME };
  int grp[G_N_ELEMENTS (groups)];
  int err;

  if (!wf_nl80211_socket_open (&scan->nl, error))
    return NULL;
  /* Every group id first, then the memberships: once the socket is in
   * the scan group, a scan event can arrive before the controller's reply
   * to the next lookup, which then fails on the sequence check (seen in
   * the lab: the guard started during bgscan's scans and ran without
   * nl80211, so policy strict could not abort). */
  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    if ((grp[i] = genl_ctrl_resolve_grp (scan->nl.sk, NL80211_GENL_NAME, groups[i])) < 0)
      {
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211: no %s group: %s",
                     groups[i], nl_geterror (grp[i]));
        wf_nl80211_socket_close (&scan->nl);
        return NULL;
      }
  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    if ((err = nl_socket_add_membership (scan->nl.sk, grp[i])) < 0)
      {
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211: cannot join the %s group: %s",
                     groups[i], nl_geterror (err));
        wf_nl80211_socket_close (&scan->nl);
        return NULL;
      }
  scan->func = func;
  scan->user_data = user_data;
  /* Events carry no sequence numbers. */
  nl_socket_disable_seq_check (scan->nl.sk);
  nl_socket_modify_cb (scan->nl.sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, scan);
  nl_socket_set_nonblocking (scan->nl.sk);
  nl_socket_set_buffer_size (scan->nl.sk, 256 * 1024, 0);
  scan->watch = g_unix_fd_add (nl_socket_get_fd (scan->nl.sk), G_IO_IN, on_readable, scan);
  return g_steal_pointer (&scan);
}

void
wf_nl80211_scan_free (WfNl80211Scan *scan)
{
  if (!scan)
    return;
  if (scan->watch)
    g_source_remove (scan->watch);
  wf_nl80211_socket_close (&scan->nl);
  g_free (scan);
}

gboolean
wf_nl80211_scan_abort (int ifindex, GError **error)
{
  WfNl80211Socket nl;
  struct nl_msg *msg;
  int err;

  if (!wf_nl80211_socket_open (&nl, error))
    return FALSE;
  msg = nlmsg_alloc ();
  if (!msg || !genlmsg_put (msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl.family, 0, 0,
                            NL80211_CMD_ABORT_SCAN, 0)
      || nla_put_u32 (msg, NL80211_ATTR_IFINDEX, (guint32) ifindex) < 0)
    {
      nlmsg_free (msg);
      wf_nl80211_socket_close (&nl);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211: cannot build ABORT_SCAN");
      return FALSE;
    }
  err = nl_send_sync (nl.sk, msg);   /* frees msg, waits for the ACK */
  wf_nl80211_socket_close (&nl);
  if (err < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "NL80211_CMD_ABORT_SCAN on ifindex %d: %s",
                   ifindex, nl_geterror (err));
      return FALSE;
    }
  return TRUE;
}
