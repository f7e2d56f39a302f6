/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "bpf-caps.h"

#include <linux/capability.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void
wf_test_loads_with_cap_bpf_only (gboolean (*load) (GError **error))
{
  pid_t pid = fork ();
  int status = 0;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
      struct __user_cap_data_struct data[2] = { { 0 } };
      g_autoptr(GError) error = NULL;
      gboolean ok;

      data[CAP_NET_ADMIN / 32].permitted = data[CAP_NET_ADMIN / 32].effective =
          1u << (CAP_NET_ADMIN % 32);
      data[CAP_BPF / 32].permitted = data[CAP_BPF / 32].effective = 1u << (CAP_BPF % 32);
      if (syscall (SYS_capset, &hdr, data) != 0)
        _exit (3);
      ok = load (&error);
      if (!ok)
        fprintf (stderr, "%s\n", error ? error->message : "(no error)");
      _exit (ok ? 0 : 1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}
