/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one nl80211 opener: a family id, or the plain "not available". */
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "wlanfair-error.h"
#include "wlanfair-nl80211-socket.h"

static void
test_open (void)
{
  g_autoptr(GError) error = NULL;
  WfNl80211Socket s = { NULL, 0 };

  /* Either the kernel has cfg80211 (the lab) or it says so plainly. */
  if (wf_nl80211_socket_open (&s, &error))
    {
      g_assert_no_error (error);
      g_assert_nonnull (s.sk);
      g_assert_cmpint (s.family, >, 0);
      g_assert_cmpint (nl_socket_get_fd (s.sk), >=, 0);
    }
  else
    {
      g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
      g_assert_true (g_str_has_prefix (error->message, "nl80211 not available") ||
                     g_str_has_prefix (error->message, "nl80211: "));
      g_test_message ("no nl80211 here: %s", error->message);
      g_assert_null (s.sk);
    }
  wf_nl80211_socket_close (&s);
  g_assert_null (s.sk);
  g_assert_cmpint (s.family, ==, -1);
  /* Closing what is closed does nothing. */
  wf_nl80211_socket_close (&s);
  g_assert_null (s.sk);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/nl80211/socket/open", test_open);

  return g_test_run ();
}
