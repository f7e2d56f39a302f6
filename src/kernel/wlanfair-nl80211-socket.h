/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One nl80211 socket: generic netlink connected, the family id looked up. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

struct nl_sock;

/* What every nl80211 reader and writer of ours starts from: the link,
 * the AP's station table and events, scan events, airtime weights. */
typedef struct {
  struct nl_sock *sk;      /* NULL: closed */
  int             family;  /* nl80211's generic netlink id */
} WfNl80211Socket;

/* Connects and looks up "nl80211". WF_ERROR_FAILED "nl80211 not
 * available (...)" when the kernel has no such family (no cfg80211, or
 * no Wi-Fi driver loaded it), "nl80211: <libnl's error>" otherwise; `s`
 * is left closed then. */
gboolean wf_nl80211_socket_open  (WfNl80211Socket *s,
                                  GError         **error);
/* Closes `s`; a closed one is left as it is. */
void     wf_nl80211_socket_close (WfNl80211Socket *s);

G_END_DECLS
