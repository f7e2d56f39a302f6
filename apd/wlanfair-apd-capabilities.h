/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Least privilege at run time: the shipped unit grants CAP_BPF (and lets
 * the bpf() system call through) because actuator=rwnd needs it; every
 * other configuration gives it up right after reading apd.conf, from its
 * effective, permitted, inheritable and ambient sets, for the rest of the
 * process's life. (The bounding set would need CAP_SETPCAP: dropping it
 * from permitted is enough, nothing of ours execs.) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WF_APD_CAP_BPF 39   /* CAP_BPF (Linux 5.8; older headers lack it) */

/* Bit n: capability n (linux/capability.h numbering). */
typedef guint64 WfApdCapabilities;

/* The capabilities that a run with `actuator` (apd.conf's value, "none"
 * included) and `programs` (ack-priority= or download-demand= on: BPF
 * programs of the daemon's own) does not need among those the unit may
 * grant beyond the usual two: CAP_BPF unless the actuator is rwnd or
 * programs is TRUE. */
WfApdCapabilities wf_apd_capabilities_unneeded (const char *actuator, gboolean programs);
/* Whether the process has capability `cap` in its permitted set. */
gboolean          wf_apd_capabilities_permitted (int cap);
/* Removes `caps` from every set of the process (ambient too); *dropped
 * gets those that were permitted (may be NULL). Fails only when capset
 * does. */
gboolean          wf_apd_capabilities_drop (WfApdCapabilities caps, WfApdCapabilities *dropped,
                                            GError **error);
/* "CAP_BPF" for the capabilities this file knows, else "capability N". */
char             *wf_apd_capabilities_name (int cap);

G_END_DECLS
