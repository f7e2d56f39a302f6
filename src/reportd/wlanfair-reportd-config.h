/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WF_REPORTD_DEFAULT_CONFIG SYSCONFDIR "/wlanfair/reportd.conf"
#define WF_REPORTD_DEFAULT_SOCKET "/run/wlanfair-reportd/report.sock"
#define WF_REPORTD_INTERVAL_MIN 0.1
#define WF_REPORTD_INTERVAL_MAX 60.0
#define WF_REPORTD_TOP_FLOWS_MAX 100
/* Datagram size target (max-datagram): 4096 bytes carries one Wi-Fi
 * interface with station, scans and ACK-loss counters (~1.4 kB) and
 * about ten flows; it is three IPv4 fragments on a 1500-byte MTU
 * (wlanfair-reportd(8), docs/reporter.md). */
#define WF_REPORTD_MAX_DATAGRAM_DEFAULT 4096
#define WF_REPORTD_MAX_DATAGRAM_MIN 512
/* Reports are control traffic (dscp=): CS6, the one standard code point
 * that mac80211 sends in the voice access category both before Linux
 * 6.8 (UP = DSCP >> 3) and after its RFC 8325 mapping (CS6 -> UP 7);
 * EF is AC_VI on the older kernels (docs/reporter.md). */
#define WF_REPORTD_DSCP_DEFAULT 48
/* With a DSCP, SO_PRIORITY 6 (TC_PRIO_INTERACTIVE), the highest an
 * unprivileged socket may set: band 0 of pfifo_fast and prio. */
#define WF_REPORTD_SO_PRIORITY 6

/* /etc/wlanfair/reportd.conf [reportd] and the options that mirror it. */
typedef struct {
  char   **interfaces;     /* NULL: the Wi-Fi interfaces */
  double   interval_s;
  char    *destination;    /* "HOST:PORT", NULL: default gateway */
  guint16  port;           /* with the default gateway */
  char    *key_file;       /* NULL: unsigned reports */
  char    *textfile_dir;   /* NULL: the default, if it exists; "": none */
  gboolean textfile_dir_explicit;
  guint    top_flows;
  guint    max_datagram;   /* bytes, WF_REPORTD_MAX_DATAGRAM_MIN..WF_REPORT_MAX_SIZE */
  guint    dscp;           /* 0..63, 0: reports are not marked */
  gboolean hostname;
  gboolean send;
  char    *socket_path;    /* "": no local channel */
} WfReportdConfig;

void     wf_reportd_config_init (WfReportdConfig *config);
void     wf_reportd_config_clear (WfReportdConfig *config);

/* Every key known, every value valid, or an error naming them. A missing
 * file is fine unless must_exist. */
gboolean wf_reportd_config_load (WfReportdConfig *config,
                                 const char      *path,
                                 gboolean         must_exist,
                                 GError         **error);

/* One setting by its key name, from a file or an option. */
gboolean wf_reportd_config_set (WfReportdConfig *config,
                                const char      *key,
                                const char      *value,
                                GError         **error);

/* dscp= value: a name ("cs6", "ef", "af41", "va", "le"; any case) or a
 * number from 0 to 63. */
gboolean wf_reportd_parse_dscp (const char *text,
                                guint      *dscp);
/* "cs6", "ef", ... for a named code point, else NULL. */
const char *wf_reportd_dscp_name (guint dscp);

/* "HOST:PORT" / "[V6]:PORT" / "HOST" → host and port (default_port when
 * none is given). */
gboolean wf_reportd_parse_hostport (const char *text,
                                    guint16     default_port,
                                    char      **host,
                                    guint16    *port,
                                    GError    **error);

G_END_DECLS
