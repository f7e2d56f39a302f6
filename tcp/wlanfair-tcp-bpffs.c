/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-tcp-bpffs.h"

#include <errno.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include "wlanfair-error.h"

static gboolean
is_bpffs (const char *path)
{
  struct statfs st;

  return statfs (path, &st) == 0 && (unsigned long) st.f_type == (unsigned long) BPF_FS_MAGIC;
}

gboolean
wf_tcp_bpffs_prepare (const char *pin_dir, gboolean *mounted, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (pin_dir);

  *mounted = FALSE;
  if (is_bpffs (pin_dir) || is_bpffs (parent))
    return TRUE;
  if (!g_str_equal (parent, WF_TCP_BPFFS_ROOT))
    {
      /* Not the standard place: mounting over a directory the admin
       * chose could hide what is in it. */
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "%s is not on a BPF filesystem (needed to pin registrations for "
                   "clean-up after a crash); mount one first: mount -t bpf bpf %s",
                   pin_dir, parent);
      return FALSE;
    }
  if (mount ("bpf", parent, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0)
    {
      int e = errno;

      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "no BPF filesystem is mounted at %s, and mounting one failed (%s); "
                   "it is needed to pin registrations for clean-up after a crash. "
                   "Mount it as root: mount -t bpf bpf %s",
                   parent, g_strerror (e), parent);
      return FALSE;
    }
  *mounted = TRUE;
  return TRUE;
}
