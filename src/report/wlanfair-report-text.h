/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to the report receiver (wlanfair-report-parse.c). */
#pragma once

#include <json-glib/json-glib.h>

#include "wlanfair-report.h"

G_BEGIN_DECLS

/* Our format nests 5 deep (report, interfaces, interface, station, rate);
 * the limit keeps hostile nesting away from the recursive JSON parser. */
#define WF_REPORT_MAX_DEPTH 16

/* The text before json-glib: valid JSON by RFC 8259's grammar, one
 * object and only whitespace after it, nested at most
 * WF_REPORT_MAX_DEPTH, only well-formed \u escapes (no \u0000, no lone
 * surrogates). Text it accepts, json-glib parses without error (the
 * fuzzer checks that). *why: static text. */
WfReportReject wf_report_prescan (const char  *text,
                                  gsize        len,
                                  const char **why);

/* The tree after json-glib: valid UTF-8 names and strings, finite numbers. */
WfReportReject wf_report_tree_check (JsonNode *node);

G_END_DECLS
