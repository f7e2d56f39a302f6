/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A JSON text written front to back, pretty-printed or on one line. The
 * one writer of JSON we print: wlanfair-tcpd's status file (json-glib
 * would bring GIO, GObject, libmount, libblkid and libselinux into a
 * daemon whose resident-memory target is 5 MiB) and every --json output
 * of wlanfairctl (json-glib's generator writes 2e17 as "2e+17.0" and NaN
 * as "nan"). Everything that parses JSON keeps using json-glib. */
typedef struct _WfJsonWriter WfJsonWriter;

WfJsonWriter *wf_json_writer_new (void);
/* One line, no blanks: {"a":1,"b":[true,null]} (JSON Lines). */
WfJsonWriter *wf_json_writer_new_compact (void);
void  wf_json_writer_begin_object (WfJsonWriter *w);
void  wf_json_writer_end_object (WfJsonWriter *w);
void  wf_json_writer_begin_array (WfJsonWriter *w);
void  wf_json_writer_end_array (WfJsonWriter *w);
/* The next value is the member NAME of the enclosing object. */
void  wf_json_writer_member (WfJsonWriter *w, const char *name);
/* NULL writes null; invalid UTF-8 is replaced (U+FFFD). */
void  wf_json_writer_string (WfJsonWriter *w, const char *value);
void  wf_json_writer_int (WfJsonWriter *w, gint64 value);
/* Shortest text that reads back as VALUE, always with a '.' or an
 * exponent ("2.0", "2e+17", "1e-320"); NaN and infinities, which JSON
 * cannot express, write null. */
void  wf_json_writer_double (WfJsonWriter *w, double value);
void  wf_json_writer_boolean (WfJsonWriter *w, gboolean value);
/* The text (newline-terminated); frees the writer. Every container must
 * be closed. */
char *wf_json_writer_free_to_string (WfJsonWriter *w);

G_END_DECLS
