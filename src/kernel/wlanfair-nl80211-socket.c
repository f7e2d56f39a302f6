/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The nl80211 socket, opened one way: every user says "not available"
 * alike when the kernel lacks cfg80211, which CI machines do. */
#include "wlanfair-nl80211-socket.h"

#include <linux/nl80211.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "wlanfair-error.h"

gboolean
wf_nl80211_socket_open (WfNl80211Socket *s, GError **error)
{
  int err;

  s->family = -1;
  s->sk = nl_socket_alloc ();
  if (s->sk == NULL)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED, "nl80211: out of memory");
      return FALSE;
    }
  err = genl_connect (s->sk);
  if (err >= 0)
    err = s->family = genl_ctrl_resolve (s->sk, NL80211_GENL_NAME);
  if (err < 0)
    {
      /* cfg80211 registers the family; as a module it is loaded by the
       * first Wi-Fi driver. */
      if (err == -NLE_OBJ_NOTFOUND)
        g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED,
                             "nl80211 not available (no cfg80211 in this kernel, or no Wi-Fi "
                             "driver loaded)");
      else
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "nl80211: %s", nl_geterror (err));
      wf_nl80211_socket_close (s);
      return FALSE;
    }
  return TRUE;
}

void
wf_nl80211_socket_close (WfNl80211Socket *s)
{
  g_clear_pointer (&s->sk, nl_socket_free);
  s->family = -1;
}
