/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The BPF filesystem that legacy struct_ops registrations are pinned in. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where systemd (and bpftool, ip, tc) expect the BPF filesystem. */
#define WF_TCP_BPFFS_ROOT "/sys/fs/bpf"
#define WF_TCP_PIN_DIR_DEFAULT WF_TCP_BPFFS_ROOT "/wlanfair"

/* Makes sure pin_dir can be on a BPF filesystem: it, or the directory it
 * would be made in, already is one; or, where that directory is
 * WF_TCP_BPFFS_ROOT and holds no BPF filesystem (no systemd as PID 1:
 * containers, chroots, minimal VMs), mounts one there as systemd does
 * (mode 0700) and sets *mounted. The mount is left in place when the
 * daemon stops, as bpftool does: tools expect it there, and others may
 * have pinned in it since. An error says what is missing and the command
 * that fixes it. */
gboolean wf_tcp_bpffs_prepare (const char *pin_dir,
                               gboolean   *mounted,
                               GError    **error);

G_END_DECLS
