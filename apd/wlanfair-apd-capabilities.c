/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Capabilities: raw capget/capset (no GLib API; libcap would be a
 * dependency for two system calls). */
#include "config.h"

#include "wlanfair-apd-capabilities.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wlanfair-error.h"

#ifndef CAP_BPF
#define CAP_BPF WF_APD_CAP_BPF
#endif
G_STATIC_ASSERT (CAP_BPF == WF_APD_CAP_BPF);

WfApdCapabilities
wf_apd_capabilities_unneeded (const char *actuator, gboolean programs)
{
  return g_strcmp0 (actuator, "rwnd") == 0 || programs ? 0 : (WfApdCapabilities) 1 << CAP_BPF;
}

static gboolean
get (struct __user_cap_data_struct data[2])
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };

  return syscall (SYS_capget, &hdr, data) == 0;
}

gboolean
wf_apd_capabilities_permitted (int cap)
{
  struct __user_cap_data_struct data[2] = { { 0 } };

  if (cap < 0 || cap >= 64 || !get (data))
    return FALSE;
  return (data[cap / 32].permitted >> (cap % 32)) & 1;
}

gboolean
wf_apd_capabilities_drop (WfApdCapabilities caps, WfApdCapabilities *dropped, GError **error)
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
  struct __user_cap_data_struct data[2] = { { 0 } };
  WfApdCapabilities had = 0;

  if (dropped)
    *dropped = 0;
  if (!get (data))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "capget: %s", g_strerror (errno));
      return FALSE;
    }
  for (int cap = 0; cap < 64; cap++)
    {
      guint32 bit = 1u << (cap % 32);

      if (!((caps >> cap) & 1))
        continue;
      if (data[cap / 32].permitted & bit)
        had |= (WfApdCapabilities) 1 << cap;
      /* Ambient first (it must stay within permitted and inheritable);
       * EINVAL: a kernel that does not know the capability. */
      prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0);
      data[cap / 32].effective &= ~bit;
      data[cap / 32].permitted &= ~bit;
      data[cap / 32].inheritable &= ~bit;
    }
  if (!had)
    return TRUE;
  if (syscall (SYS_capset, &hdr, data) != 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "capset: %s", g_strerror (errno));
      return FALSE;
    }
  if (dropped)
    *dropped = had;
  return TRUE;
}

char *
wf_apd_capabilities_name (int cap)
{
  switch (cap)
    {
    case CAP_BPF: return g_strdup ("CAP_BPF");
    case CAP_NET_ADMIN: return g_strdup ("CAP_NET_ADMIN");
    case CAP_NET_RAW: return g_strdup ("CAP_NET_RAW");
    default: return g_strdup_printf ("capability %d", cap);
    }
}
