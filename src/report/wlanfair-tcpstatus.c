/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss daemon's status as `wlanfairctl tcp status` and the
 * reporter read it: its counters are in the file it rewrites every second. */
#include "wlanfair-tcpstatus.h"

#include <errno.h>
#include <signal.h>

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
