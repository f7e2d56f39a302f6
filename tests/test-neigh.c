/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The neighbour table: which RTM_NEWNEIGH messages are kept (built with
 * nla_put as neigh_fill_info lays them out), the lookups, and, as root,
 * a real dump in a private network namespace with a veth pair. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-neigh.h"

static const guint8 mac5[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x05 };

/* A neighbour message; dst/lladdr NULL: the attribute is left out. */
static struct nl_msg *
neigh_msg (int type, int family, int ifindex, guint16 state,
           const char *dst, int dst_len, const guint8 *lladdr, int ll_len)
{
  struct nl_msg *msg = nlmsg_alloc_simple (type, 0);
  struct ndmsg ndm = { .ndm_family = (guint8) family, .ndm_ifindex = ifindex,
                       .ndm_state = state, .ndm_type = RTN_UNICAST };
  guint8 addr[16] = { 0 };

  g_assert_cmpint (nlmsg_append (msg, &ndm, sizeof ndm, NLMSG_ALIGNTO), ==, 0);
  if (dst)
    {
      g_assert_cmpint (inet_pton (strchr (dst, ':') ? AF_INET6 : AF_INET, dst, addr), ==, 1);
      g_assert_cmpint (nla_put (msg, NDA_DST, dst_len, addr), ==, 0);
    }
  if (lladdr)
    g_assert_cmpint (nla_put (msg, NDA_LLADDR, ll_len, lladdr), ==, 0);
  return msg;
}

static gboolean
parse_one (struct nl_msg *msg, WfNeigh *n)
{
  gboolean kept = wf_neigh_parse (nlmsg_hdr (msg), n);

  nlmsg_free (msg);
  return kept;
}

static void
test_parse_kept (void)
{
  WfNeigh n;
  guint8 want6[16];

  g_assert_true (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_REACHABLE,
                                       "10.9.0.5", 4, mac5, 6), &n));
  g_assert_cmpint (n.ifindex, ==, 4);
  g_assert_cmpint (n.family, ==, AF_INET);
  g_assert_cmpmem (n.addr, 4, ((guint8[]) { 10, 9, 0, 5 }), 4);
  g_assert_cmpmem (n.mac, 6, mac5, 6);
  g_assert_cmpuint (n.state, ==, NUD_REACHABLE);

  g_assert_true (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET6, 4, NUD_PERMANENT,
                                       "fd00:9::5", 16, mac5, 6), &n));
  g_assert_cmpint (n.family, ==, AF_INET6);
  inet_pton (AF_INET6, "fd00:9::5", want6);
  g_assert_cmpmem (n.addr, 16, want6, 16);
  g_assert_cmpuint (n.state, ==, NUD_PERMANENT);

  /* Stale, delay, probe: the MAC is still the host's last known one. A
   * static noarp entry with a unicast MAC is a host too. */
  g_assert_true (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_STALE,
                                       "10.9.0.6", 4, mac5, 6), &n));
  g_assert_true (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_DELAY,
                                       "10.9.0.6", 4, mac5, 6), &n));
  g_assert_true (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_PROBE,
                                       "10.9.0.6", 4, mac5, 6), &n));
  g_assert_true (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_NOARP,
                                       "10.9.0.6", 4, mac5, 6), &n));
}

static void
test_parse_skipped (void)
{
  static const guint8 mcast6[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x16 };
  static const guint8 bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  guint8 ipoib[20] = { 0 };
  guint8 four[4] = { 0 };
  WfNeigh n;
  struct nl_msg *msg;

  /* No answer: failed or still asking, even with an old MAC attached. */
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_FAILED,
                                        "10.9.0.7", 4, mac5, 6), &n));
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET6, 4, NUD_INCOMPLETE,
                                        "fd00:9::7", 16, mac5, 6), &n));
  /* No link-layer address, or one that is not 6 bytes (IPoIB: 20). */
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_REACHABLE,
                                        "10.9.0.8", 4, NULL, 0), &n));
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_REACHABLE,
                                        "10.9.0.8", 4, ipoib, sizeof ipoib), &n));
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_REACHABLE,
                                        "10.9.0.8", 4, mac5, 5), &n));
  /* Multicast mappings and broadcast: no host. */
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET6, 4, NUD_NOARP,
                                        "ff02::16", 16, mcast6, 6), &n));
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_PERMANENT,
                                        "10.9.0.255", 4, bcast, 6), &n));
  /* No destination, or one of the other family's size. */
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_REACHABLE,
                                        NULL, 0, mac5, 6), &n));
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET, 4, NUD_REACHABLE,
                                        "fd00:9::5", 16, mac5, 6), &n));
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_INET6, 4, NUD_REACHABLE,
                                        "10.9.0.5", 4, mac5, 6), &n));
  /* The bridge FDB (AF_BRIDGE) has MACs but no IP addresses. */
  g_assert_false (parse_one (neigh_msg (RTM_NEWNEIGH, AF_BRIDGE, 4, NUD_PERMANENT,
                                        NULL, 0, mac5, 6), &n));
  /* A removal is not an entry. */
  g_assert_false (parse_one (neigh_msg (RTM_DELNEIGH, AF_INET, 4, NUD_REACHABLE,
                                        "10.9.0.5", 4, mac5, 6), &n));
  /* A message too short for its ndmsg. */
  msg = nlmsg_alloc_simple (RTM_NEWNEIGH, 0);
  g_assert_cmpint (nlmsg_append (msg, four, sizeof four, NLMSG_ALIGNTO), ==, 0);
  g_assert_false (parse_one (msg, &n));
}

/* An FDB message as br_fdb_fill_info lays it out; master 0: no NDA_MASTER. */
static gboolean
fdb_one (int family, int port, guint16 state, guint8 flags, int master,
         const guint8 *lladdr, int bridge, WfFdbEntry *e)
{
  struct nl_msg *msg = nlmsg_alloc_simple (RTM_NEWNEIGH, 0);
  struct ndmsg ndm = { .ndm_family = (guint8) family, .ndm_ifindex = port,
                       .ndm_state = state, .ndm_flags = flags };
  gboolean kept;

  g_assert_cmpint (nlmsg_append (msg, &ndm, sizeof ndm, NLMSG_ALIGNTO), ==, 0);
  if (lladdr)
    g_assert_cmpint (nla_put (msg, NDA_LLADDR, 6, lladdr), ==, 0);
  if (master)
    g_assert_cmpint (nla_put_u32 (msg, NDA_MASTER, (guint32) master), ==, 0);
  kept = wf_neigh_fdb_parse (nlmsg_hdr (msg), bridge, e);
  nlmsg_free (msg);
  return kept;
}

static void
test_fdb_parse (void)
{
  static const guint8 mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
  WfFdbEntry e;

  /* Learned and static hosts behind port 5 of bridge 3. */
  g_assert_true (fdb_one (AF_BRIDGE, 5, NUD_REACHABLE, NTF_MASTER, 3, mac5, 3, &e));
  g_assert_cmpint (e.port, ==, 5);
  g_assert_cmpmem (e.mac, 6, mac5, 6);
  g_assert_true (fdb_one (AF_BRIDGE, 5, NUD_NOARP, NTF_MASTER, 3, mac5, 3, &e));
  g_assert_cmpuint (e.state, ==, NUD_NOARP);
  /* Another bridge's, the port's own address, a device's own table,
   * multicast, no master, no or a short MAC, another family: not hosts. */
  g_assert_false (fdb_one (AF_BRIDGE, 5, NUD_REACHABLE, NTF_MASTER, 4, mac5, 3, &e));
  g_assert_false (fdb_one (AF_BRIDGE, 5, NUD_PERMANENT, NTF_MASTER, 3, mac5, 3, &e));
  g_assert_false (fdb_one (AF_BRIDGE, 5, NUD_NOARP, NTF_SELF, 3, mac5, 3, &e));
  g_assert_false (fdb_one (AF_BRIDGE, 5, NUD_NOARP, NTF_MASTER, 3, mcast, 3, &e));
  g_assert_false (fdb_one (AF_BRIDGE, 5, NUD_REACHABLE, NTF_MASTER, 0, mac5, 3, &e));
  g_assert_false (fdb_one (AF_BRIDGE, 5, NUD_REACHABLE, NTF_MASTER, 3, NULL, 3, &e));
  g_assert_false (fdb_one (AF_INET, 5, NUD_REACHABLE, NTF_MASTER, 3, mac5, 3, &e));
}

static WfNeigh
entry (int ifindex, const char *addr, guint8 mac_last)
{
  WfNeigh n = { .ifindex = ifindex, .state = NUD_REACHABLE };

  n.family = strchr (addr, ':') ? AF_INET6 : AF_INET;
  g_assert_cmpint (inet_pton (n.family, addr, n.addr), ==, 1);
  memcpy (n.mac, mac5, 6);
  n.mac[5] = mac_last;
  return n;
}

static void
add (GArray *a, WfNeigh n)
{
  g_array_append_val (a, n);
}

static void
test_lookups (void)
{
  g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (WfNeigh));
  const WfNeigh *found[3];
  const WfNeigh *n;
  guint8 addr[16];

  add (a, entry (4, "fe80::5", 5));
  add (a, entry (4, "2001:db8::5", 5));
  add (a, entry (4, "10.9.0.6", 6));
  add (a, entry (4, "10.9.0.5", 5));
  add (a, entry (4, "fd00:9::5", 5));
  add (a, entry (7, "10.9.1.5", 5));   /* the same host seen on another link */
  add (a, entry (7, "fe80::5", 9));    /* a link-local address is per link */

  /* Address -> MAC, on one interface or any. */
  inet_pton (AF_INET, "10.9.0.6", addr);
  n = wf_neigh_lookup_mac (a, 4, AF_INET, addr);
  g_assert_nonnull (n);
  g_assert_cmpuint (n->mac[5], ==, 6);
  g_assert_null (wf_neigh_lookup_mac (a, 7, AF_INET, addr));
  g_assert_nonnull (wf_neigh_lookup_mac (a, 0, AF_INET, addr));
  inet_pton (AF_INET6, "fe80::5", addr);
  g_assert_cmpuint (wf_neigh_lookup_mac (a, 7, AF_INET6, addr)->mac[5], ==, 9);
  g_assert_cmpuint (wf_neigh_lookup_mac (a, 4, AF_INET6, addr)->mac[5], ==, 5);
  /* The IPv4 address's first bytes are no IPv6 address. */
  inet_pton (AF_INET, "10.9.0.6", addr);
  g_assert_null (wf_neigh_lookup_mac (a, 0, AF_INET6, addr));

  /* MAC -> addresses: IPv4, then IPv6 in table order, link-local last. */
  g_assert_cmpuint (wf_neigh_addrs_for_mac (a, 4, mac5, found, 3), ==, 4);
  g_assert_cmpint (found[0]->family, ==, AF_INET);
  g_assert_cmpuint (found[0]->addr[3], ==, 5);
  g_assert_cmpuint (found[1]->addr[0], ==, 0x20);
  g_assert_cmpuint (found[2]->addr[0], ==, 0xfd);
  g_assert_cmpuint (wf_neigh_addrs_for_mac (a, 0, mac5, found, 3), ==, 5);
  g_assert_cmpuint (found[0]->addr[3], ==, 5);
  g_assert_cmpuint (found[1]->ifindex, ==, 7);
  g_assert_cmpuint (wf_neigh_addrs_for_mac (a, 4, mac5, NULL, 0), ==, 4);
  memset (addr, 0x02, 6);
  g_assert_cmpuint (wf_neigh_addrs_for_mac (a, 0, addr, found, 3), ==, 0);
}

/* The caller's own table, unprivileged: whatever is in it obeys the rules. */
static void
test_dump_host (void)
{
  g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (WfNeigh));
  g_autoptr(GError) error = NULL;

  g_assert_true (wf_neigh_dump (0, a, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < a->len; i++)
    {
      const WfNeigh *n = &g_array_index (a, WfNeigh, i);

      g_assert_true (n->family == AF_INET || n->family == AF_INET6);
      g_assert_cmpint (n->ifindex, >, 0);
      g_assert_false (n->state & (NUD_FAILED | NUD_INCOMPLETE));
      g_assert_false (n->mac[0] & 1);
    }
  g_array_set_size (a, 0);
  g_assert_true (wf_neigh_dump (999999, a, &error));
  g_assert_cmpuint (a->len, ==, 0);
}

/* ---- root: a private network namespace ------------------------------- */

static void
ip (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
ip (const char *format, ...)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *args = NULL;
  g_autofree char *command = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) argv = NULL;
  int status;
  va_list ap;

  va_start (ap, format);
  args = g_strdup_vprintf (format, ap);
  va_end (ap);
  command = g_strconcat ("ip ", args, NULL);
  g_assert_true (g_shell_parse_argv (command, NULL, &argv, &error));
  g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, &err, &status, &error));
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s", command, err);
}

static const WfNeigh *
find (GArray *a, const char *addr)
{
  int family = strchr (addr, ':') ? AF_INET6 : AF_INET;
  guint8 bin[16];

  g_assert_cmpint (inet_pton (family, addr, bin), ==, 1);
  return wf_neigh_lookup_mac (a, 0, family, bin);
}

/* Runs in a subprocess that made its own network namespace: whatever
 * happens, the veth pair and the entries go with it when it exits. */
static void
netns_body (void)
{
  g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (WfNeigh));
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (WfNeigh));
  g_autoptr(GError) error = NULL;
  g_autofree char *va = g_strdup_printf ("wfa%d", (int) getpid ());
  g_autofree char *vb = g_strdup_printf ("wfb%d", (int) getpid ());
  static const char * const absent[] = {
    "10.9.0.7", "10.9.0.9", "10.9.0.11", "10.9.0.12", "ff02::1:2", "10.9.1.10",
  };
  const WfNeigh *n, *found[4];
  int ifa;

  g_assert_cmpint (unshare (CLONE_NEWNET), ==, 0);
  ip ("link add %s type veth peer name %s", va, vb);
  ip ("link set %s up", va);
  ip ("link set %s up", vb);
  ip ("addr add 10.9.0.1/24 dev %s", va);
  ip ("-6 addr add fd00:9::1/64 dev %s nodad", va);
  ip ("neigh add 10.9.0.5 lladdr 02:00:00:00:00:05 dev %s nud permanent", va);
  ip ("neigh add 10.9.0.6 lladdr 02:00:00:00:00:06 dev %s nud reachable", va);
  ip ("neigh add 10.9.0.8 lladdr 02:00:00:00:00:08 dev %s nud stale", va);
  ip ("-6 neigh add fd00:9::5 lladdr 02:00:00:00:00:05 dev %s nud permanent", va);
  ip ("-6 neigh add fe80::5 lladdr 02:00:00:00:00:05 dev %s nud stale", va);
  /* No answer: the kernel keeps these without a MAC (even one given). */
  ip ("neigh add 10.9.0.7 dev %s nud failed", va);
  ip ("neigh add 10.9.0.9 dev %s nud incomplete", va);
  ip ("neigh add 10.9.0.11 lladdr 02:00:00:00:00:0b dev %s nud failed", va);
  ip ("neigh add 10.9.0.12 lladdr 02:00:00:00:00:0c dev %s nud incomplete", va);
  /* A multicast mapping, as the kernel makes for MLD on its own. */
  ip ("-6 neigh add ff02::1:2 lladdr 33:33:00:01:00:02 dev %s nud noarp", va);
  /* The other end of the pair. */
  ip ("neigh add 10.9.1.10 lladdr 02:00:00:00:00:0a dev %s nud permanent", vb);

  ifa = (int) if_nametoindex (va);
  g_assert_cmpint (ifa, >, 0);
  g_assert_true (wf_neigh_dump (ifa, a, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < a->len; i++)
    {
      char text[INET6_ADDRSTRLEN];

      n = &g_array_index (a, WfNeigh, i);
      inet_ntop (n->family, n->addr, text, sizeof text);
      g_test_message ("%s state 0x%x", text, n->state);
    }
  g_assert_cmpuint (a->len, ==, 5);
  n = find (a, "10.9.0.5");
  g_assert_nonnull (n);
  g_assert_cmpint (n->ifindex, ==, ifa);
  g_assert_cmpmem (n->mac, 6, mac5, 6);
  g_assert_cmpuint (n->state, ==, NUD_PERMANENT);
  n = find (a, "10.9.0.6");
  g_assert_nonnull (n);
  g_assert_cmpuint (n->mac[5], ==, 6);
  /* Reachable until its timer runs out, then stale. */
  g_assert_true (n->state & (NUD_REACHABLE | NUD_STALE));
  g_assert_cmpuint (find (a, "10.9.0.8")->state, ==, NUD_STALE);
  g_assert_cmpuint (find (a, "fd00:9::5")->state, ==, NUD_PERMANENT);
  g_assert_cmpuint (find (a, "fe80::5")->state, ==, NUD_STALE);
  for (guint i = 0; i < G_N_ELEMENTS (absent); i++)
    g_assert_null (find (a, absent[i]));

  g_assert_cmpuint (wf_neigh_addrs_for_mac (a, ifa, mac5, found, 4), ==, 3);
  g_assert_cmpint (found[0]->family, ==, AF_INET);
  g_assert_cmpuint (found[1]->addr[0], ==, 0xfd);
  g_assert_cmpuint (found[2]->addr[0], ==, 0xfe);

  /* Every interface: the other end's entry too. */
  g_assert_true (wf_neigh_dump (0, all, &error));
  g_assert_cmpuint (all->len, ==, 6);
  n = find (all, "10.9.1.10");
  g_assert_nonnull (n);
  g_assert_cmpint (n->ifindex, ==, (int) if_nametoindex (vb));

  /* A bridge with the pair's other end as a port: the static host
   * behind it is the one FDB entry (not the port's own address). */
  {
    g_autoptr(GArray) fdb = g_array_new (FALSE, FALSE, sizeof (WfFdbEntry));
    g_autofree char *br = g_strdup_printf ("wfr%d", (int) getpid ());
    g_autofree char *cmd = NULL;
    const WfFdbEntry *f;
    int brx;

    ip ("link add %s type bridge", br);
    ip ("link set %s master %s", vb, br);
    /* va's own packets (MLD, router solicitations) would otherwise
     * teach the bridge a second, dynamic entry at a moment of their
     * choosing. */
    ip ("link set dev %s type bridge_slave learning off", vb);
    ip ("link set %s up", br);
    ip ("link set %s up", vb);
    cmd = g_strdup_printf ("bridge fdb replace 02:00:00:00:00:05 dev %s master static", vb);
    g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, NULL, &error));
    g_assert_no_error (error);
    brx = (int) if_nametoindex (br);
    g_assert_true (wf_neigh_fdb_dump (brx, fdb, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (fdb->len, ==, 1);
    f = &g_array_index (fdb, WfFdbEntry, 0);
    g_assert_cmpint (f->port, ==, (int) if_nametoindex (vb));
    g_assert_cmpmem (f->mac, 6, mac5, 6);
    /* Another bridge has none. */
    g_array_set_size (fdb, 0);
    g_assert_true (wf_neigh_fdb_dump (ifa, fdb, &error));
    g_assert_cmpuint (fdb->len, ==, 0);
  }
}

static void
test_dump_netns (void)
{
  g_autofree char *ip_path = NULL;
  int status;
  pid_t pid;

  if (g_test_subprocess ())
    {
      netns_body ();
      return;
    }
  if (geteuid () != 0)
    {
      g_test_skip ("needs root (a network namespace with a veth pair)");
      return;
    }
  ip_path = g_find_program_in_path ("ip");
  if (ip_path == NULL)
    {
      g_test_skip ("no ip(8)");
      return;
    }
  /* Root in a container may still be refused a network namespace. */
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (unshare (CLONE_NEWNET) == 0 ? 0 : 1);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_test_skip ("cannot make a network namespace here");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel/neigh/parse-kept", test_parse_kept);
  g_test_add_func ("/kernel/neigh/parse-skipped", test_parse_skipped);
  g_test_add_func ("/kernel/neigh/fdb-parse", test_fdb_parse);
  g_test_add_func ("/kernel/neigh/lookups", test_lookups);
  g_test_add_func ("/kernel/neigh/dump-host", test_dump_host);
  g_test_add_func ("/kernel/neigh/dump-netns", test_dump_netns);
  return g_test_run ();
}
