/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ACK-loss daemon's status as `wlanfairctl tcp status` and the
 * reporter read it. The daemon rewrites the file when its counters change
 * (it compares them every refresh_s seconds), and at once when sent
 * SIGUSR1. */
#include "wlanfair-tcpstatus.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "wlanfair-error.h"
#include "wlanfair-readfile.h"
#include "wlanfair-report-text.h"

/* Members the daemon has always written, and their JSON types; "n" a
 * number, integer or not. refresh_s and reduction are absent from an
 * older daemon's file and the reader says what that means. */
static const struct {
  const char *name;
  char        type; /* i integer, n number, s string, o object */
  gboolean    optional;
} fields[] = {
  { "version", 'i', FALSE },        { "updated", 'i', FALSE },
  { "refresh_s", 'i', TRUE },       { "scope", 's', FALSE },
  { "cc", 's', FALSE },             { "thresh", 'i', FALSE },
  { "beta", 'n', FALSE },           { "confirm", 'i', FALSE },
  { "confirm_rate", 'n', FALSE },   { "min_queue_delay_ms", 'n', FALSE },
  { "reduction", 's', TRUE },       { "registration", 's', FALSE },
  { "registered", 'o', FALSE },
};

/* Counters of a registered CC: all or none (none: not read yet). The
 * later ones are absent from an older daemon's file. */
static const char * const counters[] = {
  "acks", "ack_losses", "halvings", "suppressed_data_loss", "suppressed_reorder",
  "suppressed_unconfirmed", "suppressed_fallback", "suppressed_no_queue",
};
static const char * const later_counters[] = {
  "drained", "repaired_ssthresh", "repaired_cwnd",
};

static gboolean
has_type (JsonObject *o, const char *name, char type)
{
  JsonNode *n = json_object_get_member (o, name);
  GType t;

  if (type == 'o')
    return JSON_NODE_HOLDS_OBJECT (n);
  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  t = json_node_get_value_type (n);
  switch (type)
    {
    case 'i': return t == G_TYPE_INT64;
    case 'n': return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
    default:  return t == G_TYPE_STRING;
    }
}

static gboolean
check_field (const char *path, const char *where, JsonObject *o, const char *name, char type,
             gboolean optional, GError **error)
{
  static const char * const what[] = { "an integer", "a number", "a string", "an object" };

  if (!json_object_has_member (o, name))
    {
      if (optional)
        return TRUE;
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: field '%s%s' is missing", path,
                   where, name);
      return FALSE;
    }
  if (!has_type (o, name, type))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: field '%s%s' is not %s", path,
                   where, name, what[strchr ("inso", type) - "inso"]);
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate (const char *path, JsonObject *o, GError **error)
{
  JsonObject *reg;
  g_autoptr(GList) names = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    if (!check_field (path, "", o, fields[i].name, fields[i].type, fields[i].optional, error))
      return FALSE;
  reg = json_object_get_object_member (o, "registered");
  names = json_object_get_members (reg);
  for (GList *l = names; l; l = l->next)
    {
      g_autofree char *prefix = g_strdup_printf ("registered.%s.", (const char *) l->data);
      JsonObject *c;

      if (!check_field (path, "registered.", reg, l->data, 'o', FALSE, error))
        return FALSE;
      c = json_object_get_object_member (reg, l->data);
      if (json_object_get_size (c) == 0)
        continue;
      for (gsize i = 0; i < G_N_ELEMENTS (counters); i++)
        if (!check_field (path, prefix, c, counters[i], 'i', FALSE, error))
          return FALSE;
      for (gsize i = 0; i < G_N_ELEMENTS (later_counters); i++)
        if (!check_field (path, prefix, c, later_counters[i], 'i', TRUE, error))
          return FALSE;
    }
  return TRUE;
}

static JsonNode *
read_status (const char *path, gboolean validate_all, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  JsonNode *root;
  JsonObject *o;
  gint64 pid;
  const char *why = NULL;

  path = path ? path : WF_TCPSTATUS_FILE;
  if (!wf_readfile_bounded (path, WF_READFILE_STATE_MAX, "a status file", &text, &len,
                            &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return NULL;
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  /* json-glib 1.6 leaks on malformed text (two roots, for one: found by
   * fuzzing, tests/fuzz/README.md) and the reporter reads this file every
   * period: only well-formed JSON reaches it. */
  switch (wf_report_prescan (text, len, &why))
    {
    case WF_REPORT_OK:
      break;
    case WF_REPORT_REJECT_NOT_OBJECT:
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: not a JSON object", path);
      return NULL;
    default:
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: not valid JSON (%s)", path, why);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: not valid JSON (%s)", path,
                   local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: not a JSON object", path);
      return NULL;
    }
  o = json_node_get_object (root);
  if (!check_field (path, "", o, "pid", 'i', FALSE, error))
    return NULL;
  pid = json_object_get_int_member (o, "pid");
  /* EPERM (another user's live process, e.g. from a DynamicUser service)
   * still means it runs. A dead pid: a killed daemon's leftover, whatever
   * else the file holds. */
  if (pid <= 0 || pid > G_MAXINT || (kill ((pid_t) pid, 0) < 0 && errno == ESRCH))
    return NULL;
  if (validate_all && !validate (path, o, error))
    return NULL;
  return json_node_copy (root);
}

JsonNode *
wf_tcpstatus_read (const char *path, GError **error)
{
  return read_status (path, TRUE, error);
}

JsonNode *
wf_tcpstatus_load (const char *path)
{
  return read_status (path, FALSE, NULL);
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
wf_tcpstatus_load_fresh (const char *path, guint timeout_ms, WfTcpstatusRefresh *how,
                         GError **error)
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
      if (stat (path, &before) < 0 || (status = wf_tcpstatus_read (path, error)) == NULL)
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
          JsonNode *fresh = wf_tcpstatus_read (path, error);

          if (fresh)
            {
              json_node_unref (status);
              status = fresh;
              *how = WF_TCPSTATUS_REFRESHED;
            }
          else if (error && *error)
            return NULL;
          break;
        }
    }
  return g_steal_pointer (&status);
}
