/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  WF_NUMBER_PLAIN = 0,
  WF_NUMBER_SI = 1 << 0,       /* accept a k/K, M, G or T multiplier suffix */
  WF_NUMBER_NONNEG = 1 << 1,   /* reject values below zero */
  WF_NUMBER_POSITIVE = 1 << 2, /* reject values that are not above zero */
} WfNumberFlags;

gboolean wf_number_parse (const char    *text,
                          WfNumberFlags  flags,
                          double        *out,
                          GError       **error);

G_END_DECLS
