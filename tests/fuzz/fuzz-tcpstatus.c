/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: wlanfair-tcpd's status file as `wlanfairctl tcp
 * status` and the reporter read it (wf_tcpstatus_read) on arbitrary
 * bytes. Built by run-fuzz tcpstatus; fuzz-main.c replays the corpus
 * (meson test tcpstatus-corpus). The corpus names pid 1, which is always
 * alive, so that the checks after the pid are reached.
 *
 * Oracles beyond "no crash, no leak, no UB":
 *  - an error comes with NULL, and has a non-empty message that starts
 *    with the path; NULL without an error only for a pid that is not a
 *    running process;
 *  - a status returned is an object with every field the daemon always
 *    writes, of its type (integers where counters are), each registered
 *    CC an object of integer counters or empty;
 *  - the same file read twice gives equal statuses. */
#include "fuzz-file.h"

#include <stdint.h>

#include "wlanfair-tcpstatus.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
is_int (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64;
}

static void
check_status (JsonNode *root)
{
  static const char * const ints[] = { "pid", "version", "updated", "thresh", "confirm" };
  static const char * const strings[] = { "scope", "cc", "registration" };
  JsonObject *o, *reg;
  g_autoptr(GList) names = NULL;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  o = json_node_get_object (root);
  for (gsize i = 0; i < G_N_ELEMENTS (ints); i++)
    g_assert_true (is_int (o, ints[i]));
  g_assert_cmpint (json_object_get_int_member (o, "pid"), >, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (strings); i++)
    g_assert_nonnull (json_object_get_string_member_with_default (o, strings[i], NULL));
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "registered")));
  reg = json_object_get_object_member (o, "registered");
  names = json_object_get_members (reg);
  for (GList *l = names; l; l = l->next)
    {
      JsonNode *cc = json_object_get_member (reg, l->data);

      g_assert_true (JSON_NODE_HOLDS_OBJECT (cc));
      if (json_object_get_size (json_node_get_object (cc)) > 0)
        g_assert_true (is_int (json_node_get_object (cc), "acks") &&
                       is_int (json_node_get_object (cc), "ack_losses"));
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_file (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) again_error = NULL;
  g_autoptr(JsonNode) status = NULL;
  g_autoptr(JsonNode) again = NULL;

  status = wf_tcpstatus_read (path, &error);
  if (error)
    {
      fuzz_check_error (FALSE, error);
      g_assert_null (status);
      g_assert_true (g_str_has_prefix (error->message, path));
    }
  else if (status)
    check_status (status);
  again = wf_tcpstatus_read (path, &again_error);
  g_assert_true ((error == NULL) == (again_error == NULL));
  g_assert_true ((status == NULL) == (again == NULL));
  if (status)
    g_assert_true (json_node_equal (status, again));
  return 0;
}
