/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report wire format, version 1 (docs/report-protocol.md): sealing a
 * JSON body into one UDP datagram on the sender, parsing, validating and
 * replay-checking it on the receiver. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define WF_REPORT_VERSION 1
/* Default UDP port of the receiver (`wlanfairctl listen`, a controller). */
#define WF_REPORT_PORT 7455

/* Hard limit: no sender emits, no receiver accepts a larger datagram. */
#define WF_REPORT_MAX_SIZE 8192
/* Default sender target: one unfragmented packet on a 1500-byte MTU path
 * over IPv6 (1500 - 40 - 8). Flows are dropped (lowest goodput first) to
 * stay below it; the rest of the report may exceed it up to the hard limit. */
#define WF_REPORT_TARGET_SIZE 1452

/* Pre-shared keys: at least 16 bytes (128 bits), at most 1 KiB. */
#define WF_REPORT_KEY_MIN 16
#define WF_REPORT_KEY_MAX 1024

/* `,"mac":"<64 hex>"}`: the signed datagram's last bytes. */
#define WF_REPORT_MAC_SUFFIX_LEN 74

/* ------------------------------------------------------------------ */
/* Sender                                                              */

typedef struct _WfReportSender WfReportSender;

/* The stable, non-revealing host id: systemd's app-specific machine id
 * (HMAC-SHA256 keyed with the machine id over the wlanfair application id,
 * as `systemd-id128 machine-id --app-specific=WF_REPORT_APP_ID`), 32
 * lowercase hex. machine_id_path NULL = /etc/machine-id. */
#define WF_REPORT_APP_ID "45c89c10533343d39b8a714861b07f54"
char *wf_report_host_id (const char *machine_id_path,
                         GError    **error);

/* key: NULL = unsigned reports. Both are copied/referenced. */
WfReportSender *wf_report_sender_new (const char *host_id,
                                      GBytes     *key);
void wf_report_sender_free (WfReportSender *sender);

/* Optional "hostname" member (NULL: none). FALSE (and none set) unless it
 * is 1..253 bytes of valid UTF-8 without control characters. */
gboolean wf_report_sender_set_hostname (WfReportSender *sender,
                                        const char     *hostname);
/* Target size in bytes (512 .. WF_REPORT_MAX_SIZE; default
 * WF_REPORT_TARGET_SIZE). Raise it to carry more flows at the price of IP
 * fragmentation. Out-of-range values are clamped. */
void wf_report_sender_set_target_size (WfReportSender *sender,
                                       gsize           target);
/* The 16 hex random id of this sender instance ("boot"). */
const char *wf_report_sender_get_boot (WfReportSender *sender);
/* Sequence number the next successful seal uses (starts at 1). */
guint64 wf_report_sender_get_next_seq (WfReportSender *sender);

/* interval_s must be 0.1..60 (WF_ERROR_INVALID otherwise).
 * Adds version, host, hostname, seq, time_us, boot, interval_s and (with a
 * key) the mac to a copy of `body` (members of those names in `body` are
 * replaced), serialises it compactly and, if the datagram exceeds the
 * target size, drops the lowest-goodput entries of "flows" (goodput_tx_bps
 * + goodput_rx_bps) one by one and records "flows_dropped": N. Returns
 * WF_ERROR_OVER_CAPACITY if it is still above WF_REPORT_MAX_SIZE with no
 * flows left. `body` is not modified. seq advances only on success. */
GBytes *wf_report_sender_seal (WfReportSender *sender,
                               JsonObject     *body,
                               double          interval_s,
                               GError        **error);

/* Same, with an explicit time (unix µs): for tests and replays of recordings. */
GBytes *wf_report_sender_seal_at (WfReportSender *sender,
                                  JsonObject     *body,
                                  double          interval_s,
                                  gint64          time_us,
                                  GError        **error);

/* Reads a pre-shared key file: a regular file owned by the caller or root,
 * with no group/other permission bits (mode 0600 or 0400), else an error
 * naming the mode and the fix. One trailing newline is not part of the key.
 * WF_REPORT_KEY_MIN .. WF_REPORT_KEY_MAX bytes. */
GBytes *wf_report_load_key (const char *path,
                            GError    **error);
/* The same for a systemd credential ($CREDENTIALS_DIRECTORY, LoadCredential=)
 * when `credential`: group read is allowed there (systemd 257 writes
 * credentials 0440, 252 wrote 0400; the directory is the service's
 * alone), group write and anything for others still are not. */
GBytes *wf_report_load_key_full (const char *path,
                                 gboolean    credential,
                                 GError    **error);

/* Compact JSON text of `node`, like json_to_string (node, FALSE) but valid:
 * json-glib 1.6 writes doubles such as 5e20 as "5e+20.0" (found by
 * fuzzing); the stray ".0" after an exponent is removed. */
char *wf_report_json_to_data (JsonNode *node,
                              gsize    *length);

/* HMAC-SHA256 of data as 64 lowercase hex. */
char *wf_report_hmac_hex (GBytes       *key,
                          const guint8 *data,
                          gsize         len);

/* ------------------------------------------------------------------ */
/* Receiver                                                            */

/* Why a datagram was dropped. Names (wf_report_reject_to_string) are
 * stable: they appear in `listen` counters and its JSON. */
typedef enum {
  WF_REPORT_OK = 0,
  WF_REPORT_REJECT_OVERSIZED,   /* > WF_REPORT_MAX_SIZE */
  WF_REPORT_REJECT_EMPTY,       /* zero bytes */
  WF_REPORT_REJECT_UTF8,        /* not valid UTF-8 or contains NUL */
  WF_REPORT_REJECT_JSON,        /* not parseable JSON (truncated, garbage) */
  WF_REPORT_REJECT_NOT_OBJECT,  /* valid JSON, not an object */
  WF_REPORT_REJECT_VERSION,     /* no/unsupported "wlanfair_report" */
  WF_REPORT_REJECT_FIELD,       /* required member missing or wrong type/format */
  WF_REPORT_REJECT_RANGE,       /* a number outside its plausible range */
  WF_REPORT_REJECT_UNSIGNED,    /* receiver has a key, datagram has no mac */
  WF_REPORT_REJECT_BAD_MAC,     /* mac does not verify / misplaced */
  WF_REPORT_REJECT_REPLAY,      /* seq not above the last of the same boot */
  WF_REPORT_REJECT_STALE,       /* time_us too far in the past */
  WF_REPORT_REJECT_FUTURE,      /* time_us too far in the future */
  WF_REPORT_REJECT_HOST_LIMIT,  /* new host while the host table is full */
  WF_REPORT_REJECT_N
} WfReportReject;

const char *wf_report_reject_to_string (WfReportReject reason);

typedef struct {
  gboolean has_bitrate; guint32 bitrate_kbps;
  gboolean has_mcs;     int     mcs;
  gboolean has_nss;     int     nss;
  gboolean has_width;   int     width_mhz;
  char    *gi;          /* NULL: absent */
  char    *mode;        /* NULL: absent */
} WfReportRate;

typedef struct {
  char    *name;
  gboolean wifi;
  gboolean has_up;          gboolean up;
  gboolean has_rx_bps;      double   rx_bps;
  gboolean has_tx_bps;      double   tx_bps;
  gboolean has_goodput_rx;  double   goodput_rx_bps;
  gboolean has_goodput_tx;  double   goodput_tx_bps;

  gboolean has_station;
  char    *bssid;           /* NULL: absent */
  char    *ssid;            /* NULL: absent */
  gboolean has_freq;        int      freq_mhz;
  gboolean has_signal;      int      signal_dbm;
  gboolean has_signal_avg;  int      signal_avg_dbm;
  gboolean has_tx_rate;     WfReportRate tx_rate;
  gboolean has_rx_rate;     WfReportRate rx_rate;

  gboolean has_scans;
  gboolean has_scan_count;  guint64  scan_count;
  gboolean has_scan_duration; guint64 scan_duration_ms;
  gboolean scan_in_progress;
} WfReportIface;

typedef struct {
  int       version;
  char      host[33];
  char     *hostname;       /* NULL: absent */
  guint64   seq;
  gint64    time_us;
  char      boot[17];
  double    interval_s;
  gboolean  has_sampled;    gint64 sampled_us;  /* the rates' end, sender's clock */
  gboolean  has_sampled_end; gint64 sampled_end_us; /* the flow dump's end, >= sampled_us */
  gboolean  has_span;       double span_s;      /* the seconds they cover */
  gboolean  authenticated;  /* a mac was present and verified */
  GArray   *ifaces;         /* WfReportIface */
  gboolean  has_flows_total; guint64 flows_total;
  guint     n_flows;
  guint64   flows_dropped;  /* 0 when absent */
  JsonObject *body;         /* the parsed (verified) object, mac removed */
  gsize     size;           /* datagram bytes */
} WfReportView;

/* Parses and validates one datagram. key: NULL = accept unsigned and
 * signed datagrams without checking the mac (authenticated = FALSE);
 * non-NULL = require a valid mac. On rejection returns NULL, sets *reason
 * and a GError (WF_ERROR_PARSE / WF_ERROR_INVALID) with the detail.
 * Never aborts on any input. */
WfReportView *wf_report_parse (const guint8   *data,
                               gsize           len,
                               GBytes         *key,
                               WfReportReject *reason,
                               GError        **error);
void wf_report_view_free (WfReportView *view);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfReportView, wf_report_view_free)

/* Host goodput as `listen` defines it (docs/report-protocol.md): the sum
 * over the Wi-Fi interfaces that carry goodput, or over all interfaces
 * when no Wi-Fi interface does. FALSE when no interface has goodput. */
gboolean wf_report_view_goodput (const WfReportView *view,
                                 double             *rx_bps,
                                 double             *tx_bps);

/* Replay and freshness state, keyed by host id; bounded. */
typedef struct _WfReportReplay WfReportReplay;

#define WF_REPORT_REPLAY_WINDOW_US (30 * G_USEC_PER_SEC)
#define WF_REPORT_REPLAY_MAX_HOSTS 1024

/* window_us: allowed |time_us - now| beyond one interval (<= 0: default).
 * max_hosts: 0 = default. */
WfReportReplay *wf_report_replay_new (gint64 window_us,
                                      guint  max_hosts);
void wf_report_replay_free (WfReportReplay *replay);
/* Checks view against the state at receiver time now_us (unix µs) and,
 * when it passes, records it. Expires idle hosts first. */
WfReportReject wf_report_replay_check (WfReportReplay     *replay,
                                       const WfReportView *view,
                                       gint64              now_us,
                                       GError            **error);
/* Forgets hosts idle longer than 2 * (window + their interval) + 1 s:
 * after that any replay of their reports is stale anyway. */
void wf_report_replay_expire (WfReportReplay *replay,
                              gint64          now_us);
guint wf_report_replay_n_hosts (WfReportReplay *replay);

G_END_DECLS
