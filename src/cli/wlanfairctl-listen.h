/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfairctl listen: state shared by the receiver (wlanfairctl-listen.c)
 * and its output, table and JSON lines (wlanfairctl-listen-output.c). */
#pragma once

#include <gio/gio.h>

#include "wlanfair-report.h"

G_BEGIN_DECLS

typedef enum { DIR_TOTAL, DIR_RX, DIR_TX } Direction;

typedef struct {
  WfReportView *view;
  char          from[64];
  gint64        seen_mono;
  guint64       reports;
} Row;

typedef struct {
  gint64  period_start;
  guint   in_period;
  guint64 suppressed;
} LogLimit;

typedef struct {
  /* options */
  int       port;
  char     *bind_arg;
  char     *key_path;
  char     *capacity_arg;
  char     *alpha_arg;
  char     *duration_arg;
  char     *window_arg;
  char     *direction_arg;
  int       expire;
  int       max_hosts;
  int       count;
  gboolean  once;
  gboolean  json;

  double    capacity;   /* 0: none */
  double    alpha;
  double    duration;   /* 0: none */
  double    window;
  Direction direction;

  /* state */
  GBytes         *key;
  GSocket        *sock;
  char            bound[80];
  WfReportReplay *replay;
  GHashTable     *rows;   /* host id -> Row */
  GMainLoop      *loop;
  guint8         *buf;
  guint64         received, accepted;
  guint64         rejected[WF_REPORT_REJECT_N];
  LogLimit        limits[WF_REPORT_REJECT_N];
  gboolean        tty;
} Listen;

void wf_listen_print_table (Listen *l, gint64 now_mono);
void wf_listen_print_report (Listen *l, const Row *r);
void wf_listen_print_reject (Listen *l, WfReportReject reason, const char *from,
                             gsize size, const char *detail, guint64 suppressed);

G_END_DECLS
