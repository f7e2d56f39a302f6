/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Typed reads of a report body's members: absent or of another type is
 * NULL / FALSE / def, never a fake value. o may be NULL. */
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

JsonObject *wf_json_object (JsonObject *o, const char *key);
JsonArray  *wf_json_array  (JsonObject *o, const char *key);
/* Integer or double member as a double. */
gboolean    wf_json_number (JsonObject *o, const char *key, double *v);
gboolean    wf_json_node_number (JsonNode *n, double *v);
const char *wf_json_string (JsonObject *o, const char *key, const char *def);

G_END_DECLS
