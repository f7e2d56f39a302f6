/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A JSON text written front to back, pretty-printed. For wlanfair-tcpd's
 * status file: json-glib would bring GIO, GObject, libmount, libblkid and
 * libselinux into a daemon whose resident-memory target is 5 MiB.
 * Everything that parses JSON keeps using json-glib. */
typedef struct _WfJsonWriter WfJsonWriter;

WfJsonWriter *wf_json_writer_new (void);
void  wf_json_writer_begin_object (WfJsonWriter *w);
void  wf_json_writer_end_object (WfJsonWriter *w);
void  wf_json_writer_begin_array (WfJsonWriter *w);
void  wf_json_writer_end_array (WfJsonWriter *w);
/* The next value is the member NAME of the enclosing object. */
void  wf_json_writer_member (WfJsonWriter *w, const char *name);
/* NULL writes null; invalid UTF-8 is replaced (U+FFFD). */
void  wf_json_writer_string (WfJsonWriter *w, const char *value);
void  wf_json_writer_int (WfJsonWriter *w, gint64 value);
/* Shortest text that reads back as VALUE; NaN and infinities write null. */
void  wf_json_writer_double (WfJsonWriter *w, double value);
void  wf_json_writer_boolean (WfJsonWriter *w, gboolean value);
/* The text (newline-terminated); frees the writer. Every container must
 * be closed. */
char *wf_json_writer_free_to_string (WfJsonWriter *w);

G_END_DECLS
