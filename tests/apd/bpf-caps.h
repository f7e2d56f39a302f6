/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the tc BPF programs' tests: whether a program loads with what
 * wlanfair-apd.service grants (CAP_BPF and CAP_NET_ADMIN, no
 * CAP_PERFMON: Linux 6.1's verifier then asks more of a program). */
#pragma once

#include <glib.h>

/* Runs load() in a child that keeps only those two capabilities; the
 * test fails unless it returns TRUE there. */
void wf_test_loads_with_cap_bpf_only (gboolean (*load) (GError **error));
