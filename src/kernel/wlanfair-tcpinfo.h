/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The tcp_info fields wlanfair uses, decoded from the kernel's struct of
 * whatever size it sent (older kernels send shorter ones). A separate
 * struct because libnl's headers pull in glibc's <netinet/tcp.h>, whose
 * struct tcp_info lacks the newer fields and clashes with <linux/tcp.h>. */
typedef struct {
  guint8  ca_state;
  guint32 snd_mss;
  guint32 snd_cwnd;
  guint32 snd_ssthresh;
  guint32 rtt_us;
  guint32 rttvar_us;
  guint32 total_retrans;
  guint32 retrans;         /* segments retransmitted and not yet acked */
  gboolean have_rates;     /* kernel 4.x+: the fields below are valid */
  guint64 pacing_rate;     /* bytes/s */
  guint64 bytes_acked;
  guint64 bytes_received;
  guint64 delivery_rate;   /* bytes/s */
  /* The last delivery-rate sample was application-limited: the sender
   * had too little to send to fill the window (an uploader that wants
   * no more). Same kernel release (4.9) and so same validity as
   * delivery_rate. */
  gboolean app_limited;
} WfTcpInfo;

gboolean wf_tcpinfo_decode (const void *data,
                            gsize       len,
                            WfTcpInfo  *out);

G_END_DECLS
