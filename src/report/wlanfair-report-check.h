/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to the report receiver: typed, bounded reads of JSON members.
 * A failed read records its rejection (reason, detail, member path) in
 * the WfReportCheck unless one is recorded already: the first one wins. */
#pragma once

#include <json-glib/json-glib.h>

#include "wlanfair-report.h"

G_BEGIN_DECLS

typedef struct {
  WfReportReject reason;
  char          *detail;
  char           path[64]; /* e.g. "interfaces[2].station" */
} WfReportCheck;

gboolean wf_report_check_fail (WfReportCheck *c, WfReportReject reason, const char *fmt,
                               ...) G_GNUC_PRINTF (3, 4);
JsonNode *wf_report_check_member (WfReportCheck *c, JsonObject *o, const char *name,
                                  gboolean required);
gboolean wf_report_check_int (WfReportCheck *c, JsonObject *o, const char *name,
                              gboolean required, gint64 min, gint64 max, gboolean *has,
                              gint64 *out);
gboolean wf_report_check_number (WfReportCheck *c, JsonObject *o, const char *name,
                                 gboolean required, double min, double max,
                                 gboolean *has, double *out);
gboolean wf_report_check_bool (WfReportCheck *c, JsonObject *o, const char *name,
                               gboolean *has, gboolean *out);
gboolean wf_report_check_has_control (const char *s);
gboolean wf_report_check_string (WfReportCheck *c, JsonObject *o, const char *name,
                                 gboolean required, gsize min_len, gsize max_len,
                                 gboolean printable, const char **out);
gboolean wf_report_check_is_hex (const char *s, gsize len);
gboolean wf_report_check_is_mac (const char *s);
JsonNode *wf_report_check_container (WfReportCheck *c, JsonObject *o, const char *name,
                                     JsonNodeType type);
gboolean wf_report_check_counters (WfReportCheck *c, JsonObject *o,
                                   const char *const *names);

G_END_DECLS
