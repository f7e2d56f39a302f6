/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-tcpinfo.h"

#include <linux/tcp.h>
#include <stddef.h>
#include <string.h>

#define HAS(len, field) \
  ((len) >= offsetof (struct tcp_info, field) + sizeof (((struct tcp_info *) 0)->field))

gboolean
wf_tcpinfo_decode (const void *data, gsize len, WfTcpInfo *out)
{
  struct tcp_info ti = { 0 };

  memset (out, 0, sizeof *out);
  if (data == NULL || !HAS (len, tcpi_total_retrans))
    return FALSE;
  /* Copy: the netlink attribute need not be aligned for a struct. */
  memcpy (&ti, data, MIN (len, sizeof ti));

  out->ca_state = ti.tcpi_ca_state;
  out->snd_mss = ti.tcpi_snd_mss;
  out->snd_cwnd = ti.tcpi_snd_cwnd;
  out->snd_ssthresh = ti.tcpi_snd_ssthresh;
  out->rtt_us = ti.tcpi_rtt;
  out->rttvar_us = ti.tcpi_rttvar;
  out->total_retrans = ti.tcpi_total_retrans;
  out->retrans = ti.tcpi_retrans;
  if (HAS (len, tcpi_delivery_rate))
    {
      out->have_rates = TRUE;
      out->pacing_rate = ti.tcpi_pacing_rate;
      out->bytes_acked = ti.tcpi_bytes_acked;
      out->bytes_received = ti.tcpi_bytes_received;
      out->delivery_rate = ti.tcpi_delivery_rate;
      /* A bit field, so no offsetof: it sits in the fixed head of the
       * struct (byte 7), which 4.9 defined together with delivery_rate;
       * before that the bit was padding. */
      out->app_limited = ti.tcpi_delivery_rate_app_limited != 0;
    }
  return TRUE;
}
