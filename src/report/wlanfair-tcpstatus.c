/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss daemon's status as `wlanfairctl tcp status` and the
 * reporter read it. The daemon rewrites the file when its counters change
 * (it compares them every refresh_s seconds), and at once when sent
 * SIGUSR1. */
#include "wlanfair-tcpstatus.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

JsonNode *
wf_tcpstatus_load (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  gint64 pid;

  if (!json_parser_load_from_file (parser, path ? path : WF_TCPSTATUS_FILE, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  pid = json_object_get_int_member_with_default (json_node_get_object (root), "pid", 0);
  /* EPERM (another user's live process, e.g. from a DynamicUser service)
   * still means it runs. */
  if (pid <= 0 || (kill ((pid_t) pid, 0) < 0 && errno == ESRCH))
    return NULL;
  return json_node_copy (root);
}

/* The daemon writes a new file and renames it over the old one: a new
 * inode each time. */
static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The pid is the file's word only: a reused pid must not get a signal
 * whose default action kills. */
static gboolean
is_tcpd (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/comm", pid);
  g_autofree char *comm = NULL;

  return g_file_get_contents (path, &comm, NULL, NULL) &&
         g_str_equal (g_strchomp (comm), "wlanfair-tcpd");
}

JsonNode *
wf_tcpstatus_load_fresh (const char *path, guint timeout_ms, WfTcpstatusRefresh *how)
{
  g_autoptr(JsonNode) status = NULL;
  struct stat before, after;
  JsonObject *o;
  gint64 pid, deadline;
  gulong pause_us = 2000;

  path = path ? path : WF_TCPSTATUS_FILE;
  *how = WF_TCPSTATUS_NOT_ASKED;
  /* The file whose status was read: a change after the request is then
   * the daemon's answer, not a write that was under way. */
  for (int tries = 0; tries < 3; tries++)
    {
      g_clear_pointer (&status, json_node_unref);
      if (stat (path, &before) < 0 || (status = wf_tcpstatus_load (path)) == NULL)
        return NULL;
      if (stat (path, &after) == 0 && same_file (&before, &after))
        break;
    }
  o = json_node_get_object (status);
  pid = json_object_get_int_member_with_default (o, "pid", 0);
  /* No refresh_s: a daemon that rewrote the file every second, and that
   * SIGUSR1 would have stopped without restoring anything. */
  if (!json_object_has_member (o, "refresh_s") || !is_tcpd (pid))
    return g_steal_pointer (&status);
  if (kill ((pid_t) pid, SIGUSR1) < 0)
    {
      if (errno == EPERM)
        *how = WF_TCPSTATUS_DENIED;
      return g_steal_pointer (&status);
    }
  *how = WF_TCPSTATUS_TIMEOUT;
  deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  while (g_get_monotonic_time () < deadline)
    {
      g_usleep (pause_us);
      pause_us = MIN (pause_us * 2, 50000);
      if (stat (path, &after) < 0)
        break; /* the daemon stopped: what it last wrote */
      if (!same_file (&before, &after))
        {
          JsonNode *fresh = wf_tcpstatus_load (path);

          if (fresh)
            {
              json_node_unref (status);
              status = fresh;
              *how = WF_TCPSTATUS_REFRESHED;
            }
          break;
        }
    }
  return g_steal_pointer (&status);
}
