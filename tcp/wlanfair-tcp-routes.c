/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routes naming our CCs. libnl's route object reads every RTA_METRICS
 * entry as a u32 and cannot carry RTAX_CC_ALGO (a string), so the dump is
 * parsed here and each affected route is sent back as it came, minus the
 * congctl metric, with NLM_F_REPLACE. */
#include "wlanfair-tcp-routes.h"

#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <string.h>

#include "wlanfair-error.h"

typedef struct {
  const char * const *ccs;
  GPtrArray          *msgs; /* struct nl_msg *: the routes to rewrite */
} Dump;

/* The CC named by a route's RTA_METRICS, or NULL. */
static const char *
metrics_cc (struct nlattr *metrics)
{
  struct nlattr *a;
  int rem;

  nla_for_each_nested (a, metrics, rem)
    if (nla_type (a) == RTAX_CC_ALGO && nla_len (a) > 0)
      {
        const char *name = nla_data (a);

        /* Not NUL-terminated by contract: bound it. */
        if (memchr (name, '\0', nla_len (a)) != NULL)
          return name;
      }
  return NULL;
}

static int
dump_cb (struct nl_msg *msg, void *arg)
{
  Dump *dump = arg;
  struct nlmsghdr *hdr = nlmsg_hdr (msg);
  struct rtmsg *rtm = nlmsg_data (hdr);
  struct nlattr *a;
  int rem;

  if (hdr->nlmsg_type != RTM_NEWROUTE || (rtm->rtm_flags & RTM_F_CLONED))
    return NL_OK;
  nlmsg_for_each_attr (a, hdr, sizeof (*rtm), rem)
    if (nla_type (a) == RTA_METRICS)
      {
        const char *cc = metrics_cc (a);

        if (cc && g_strv_contains (dump->ccs, cc))
          {
            struct nl_msg *copy = nlmsg_alloc_size (hdr->nlmsg_len + NLMSG_HDRLEN);

            memcpy (nlmsg_hdr (copy), hdr, hdr->nlmsg_len);
            g_ptr_array_add (dump->msgs, copy);
          }
      }
  return NL_OK;
}

/* The replacement: header and attributes of the dumped route, metrics
 * without RTAX_CC_ALGO, no RTA_CACHEINFO (kernel output only). */
static struct nl_msg *
rewrite (struct nl_msg *old)
{
  struct nlmsghdr *hdr = nlmsg_hdr (old);
  struct rtmsg *rtm = nlmsg_data (hdr);
  struct nl_msg *msg = nlmsg_alloc_simple (RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_REPLACE | NLM_F_ACK);
  struct nlattr *a;
  int rem;

  struct rtmsg head = *rtm;

  /* State the kernel reports but refuses in a request (linkdown, dead,
   * offload): only what a user may set goes back. */
  head.rtm_flags &= RTNH_F_ONLINK | RTNH_F_PERVASIVE;
  if (msg == NULL || nlmsg_append (msg, &head, sizeof head, NLMSG_ALIGNTO) < 0)
    goto fail;
  nlmsg_for_each_attr (a, hdr, sizeof (*rtm), rem)
    {
      if (nla_type (a) == RTA_CACHEINFO)
        continue;
      if (nla_type (a) == RTA_METRICS)
        {
          struct nlattr *m, *nest = NULL;
          int mrem;

          nla_for_each_nested (m, a, mrem)
            {
              guint32 lock;

              if (nla_type (m) == RTAX_CC_ALGO)
                continue;
              /* "congctl lock NAME" also set NAME's bit in the lock mask. */
              if (nla_type (m) == RTAX_LOCK && nla_len (m) == sizeof lock)
                {
                  lock = nla_get_u32 (m) & ~(1u << RTAX_CC_ALGO);
                  if (lock == 0)
                    continue;
                  if (nest == NULL && (nest = nla_nest_start (msg, RTA_METRICS)) == NULL)
                    goto fail;
                  if (nla_put_u32 (msg, RTAX_LOCK, lock) < 0)
                    goto fail;
                  continue;
                }
              if (nest == NULL && (nest = nla_nest_start (msg, RTA_METRICS)) == NULL)
                goto fail;
              if (nla_put (msg, nla_type (m), nla_len (m), nla_data (m)) < 0)
                goto fail;
            }
          if (nest)
            nla_nest_end (msg, nest);
          continue;
        }
      if (nla_type (a) == RTA_MULTIPATH)
        {
          /* The same per next hop. */
          g_autofree guint8 *hops = g_memdup2 (nla_data (a), nla_len (a));
          int left = nla_len (a);

          for (struct rtnexthop *nh = (struct rtnexthop *) hops;
               RTNH_OK (nh, left); left -= RTNH_ALIGN (nh->rtnh_len), nh = RTNH_NEXT (nh))
            nh->rtnh_flags &= RTNH_F_ONLINK | RTNH_F_PERVASIVE;
          if (nla_put (msg, RTA_MULTIPATH, nla_len (a), hops) < 0)
            goto fail;
          continue;
        }
      if (nla_put (msg, nla_type (a), nla_len (a), nla_data (a)) < 0)
        goto fail;
    }
  return msg;

fail:
  nlmsg_free (msg);
  return NULL;
}

static void
describe (struct nl_msg *msg, GString *out)
{
  struct nlmsghdr *hdr = nlmsg_hdr (msg);
  struct rtmsg *rtm = nlmsg_data (hdr);
  struct nlattr *a;
  int rem;

  gboolean dst = FALSE;

  nlmsg_for_each_attr (a, hdr, sizeof (*rtm), rem)
    if (nla_type (a) == RTA_DST)
      {
        dst = TRUE;
        char text[INET6_ADDRSTRLEN] = "?";
        int want = rtm->rtm_family == AF_INET6 ? 16 : 4;

        if (nla_len (a) == want)
          inet_ntop (rtm->rtm_family, nla_data (a), text, sizeof text);
        g_string_append (out, text);
      }
  if (!dst)
    g_string_append (out, "default");
  g_string_append_printf (out, "/%u table %u", rtm->rtm_dst_len,
                          rtm->rtm_table == RT_TABLE_COMPAT ? 0 : rtm->rtm_table);
}

gboolean
wf_tcp_routes_clear_cc (const char * const *our_ccs, guint *n_changed, GError **error)
{
  g_autoptr(GPtrArray) msgs = g_ptr_array_new_with_free_func ((GDestroyNotify) nlmsg_free);
  struct nl_sock *sk = nl_socket_alloc ();
  Dump dump = { our_ccs, msgs };
  gboolean ok = FALSE;
  guint failed = 0;
  int err;

  *n_changed = 0;
  if (sk == NULL || (err = nl_connect (sk, NETLINK_ROUTE)) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "rtnetlink: %s",
                   sk ? nl_geterror (err) : "out of memory");
      goto out;
    }
  nl_socket_modify_cb (sk, NL_CB_VALID, NL_CB_CUSTOM, dump_cb, &dump);
  for (int family = AF_INET; family; family = family == AF_INET ? AF_INET6 : 0)
    {
      struct rtmsg rtm = { .rtm_family = family };

      if ((err = nl_send_simple (sk, RTM_GETROUTE, NLM_F_DUMP, &rtm, sizeof rtm)) < 0 ||
          (err = nl_recvmsgs_default (sk)) < 0)
        {
          /* A kernel without IPv6 has no IPv6 routes to fix. */
          if (family == AF_INET6 && (err == -NLE_OPNOTSUPP || err == -NLE_AF_NOSUPPORT))
            continue;
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "dumping %s routes: %s",
                       family == AF_INET ? "IPv4" : "IPv6", nl_geterror (err));
          goto out;
        }
    }

  nl_socket_modify_cb (sk, NL_CB_VALID, NL_CB_DEFAULT, NULL, NULL);
  for (guint i = 0; i < msgs->len; i++)
    {
      struct nl_msg *msg = rewrite (msgs->pdata[i]);
      g_autoptr(GString) what = g_string_new (NULL);

      describe (msgs->pdata[i], what);
      if (msg == NULL)
        err = -NLE_NOMEM;
      else if ((err = nl_send_auto (sk, msg)) >= 0)
        err = nl_wait_for_ack (sk);
      nlmsg_free (msg);
      if (err < 0)
        {
          /* Keep going: every other route still gets fixed. */
          g_warning ("route %s names an ackloss CC and could not be rewritten: %s",
                     what->str, nl_geterror (err));
          failed++;
          continue;
        }
      g_message ("route %s: removed its congctl (an ackloss CC), so that it names no "
                 "unregistered congestion control", what->str);
      (*n_changed)++;
    }
  ok = failed == 0;
  if (!ok)
    g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                 "%u route(s) still name an ackloss congestion control", failed);

out:
  nl_socket_free (sk);
  return ok;
}
