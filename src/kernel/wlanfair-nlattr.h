/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to the kernel library: netlink attribute readers that take a
 * value only when the attribute is wide enough, so that a short
 * attribute leaves the member absent rather than read past it. */
#pragma once

#include <glib.h>
#include <netlink/attr.h>

static inline gboolean
wf_nla_u8 (struct nlattr *a, guint8 *out)
{
  if (a == NULL || nla_len (a) < 1)
    return FALSE;
  *out = nla_get_u8 (a);
  return TRUE;
}

static inline gboolean
wf_nla_u16 (struct nlattr *a, guint16 *out)
{
  if (a == NULL || nla_len (a) < 2)
    return FALSE;
  *out = nla_get_u16 (a);
  return TRUE;
}

static inline gboolean
wf_nla_u32 (struct nlattr *a, guint32 *out)
{
  if (a == NULL || nla_len (a) < 4)
    return FALSE;
  *out = nla_get_u32 (a);
  return TRUE;
}

static inline gboolean
wf_nla_u64 (struct nlattr *a, guint64 *out)
{
  if (a == NULL || nla_len (a) < 8)
    return FALSE;
  *out = nla_get_u64 (a);
  return TRUE;
}
