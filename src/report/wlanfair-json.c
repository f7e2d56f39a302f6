/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-json.h"

static JsonNode *
member (JsonObject *o, const char *key)
{
  return o ? json_object_get_member (o, key) : NULL;
}

JsonObject *
wf_json_object (JsonObject *o, const char *key)
{
  JsonNode *n = member (o, key);

  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

JsonArray *
wf_json_array (JsonObject *o, const char *key)
{
  JsonNode *n = member (o, key);

  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

gboolean
wf_json_number (JsonObject *o, const char *key, double *v)
{
  return wf_json_node_number (member (o, key), v);
}

gboolean
wf_json_node_number (JsonNode *n, double *v)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    *v = (double) json_node_get_int (n);
  else if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    *v = json_node_get_double (n);
  else
    return FALSE;
  return TRUE;
}

const char *
wf_json_string (JsonObject *o, const char *key, const char *def)
{
  JsonNode *n = member (o, key);

  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
         ? json_node_get_string (n) : def;
}
