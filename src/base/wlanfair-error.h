/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WF_ERROR (wf_error_quark ())

typedef enum {
  WF_ERROR_FAILED,        /* anything without a better code */
  WF_ERROR_INVALID,       /* a value that is out of range or not a number */
  WF_ERROR_PARSE,         /* malformed input text (file, line) */
  WF_ERROR_OVER_CAPACITY, /* sum of throughputs above the capacity */
} WfError;

GQuark wf_error_quark (void);

G_END_DECLS
