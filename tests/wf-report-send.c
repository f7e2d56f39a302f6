/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test helper: seal a JSON body with the report sender API and send it
 * over UDP, as wlanfair-reportd would, without measuring anything.
 *
 *   wf-report-send [OPTIONS] ADDRESS PORT < body.json
 *
 * Each datagram sent is also printed on stdout with --print (one per
 * line), so a test can replay it byte for byte. Exit 0 / 1 / 2. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gio/gio.h>

#include "wlanfair-report.h"

static char *opt_key, *opt_machine_id, *opt_host, *opt_hostname, *opt_body;
static double opt_interval = 1.0, opt_period = -1, opt_time_offset = 0;
static int opt_count = 1, opt_target = 0;
static gboolean opt_print;

static const GOptionEntry entries[] = {
  { "key", 'k', 0, G_OPTION_ARG_FILENAME, &opt_key, "Pre-shared key file", "FILE" },
  { "machine-id", 0, 0, G_OPTION_ARG_FILENAME, &opt_machine_id, "Machine id file", "FILE" },
  { "host", 0, 0, G_OPTION_ARG_STRING, &opt_host, "Host id to use as is (32 hex)", "HEX" },
  { "hostname", 0, 0, G_OPTION_ARG_STRING, &opt_hostname, "Host name member", "NAME" },
  { "body", 'b', 0, G_OPTION_ARG_STRING, &opt_body, "JSON body (default: stdin)", "JSON" },
  { "interval", 'i', 0, G_OPTION_ARG_DOUBLE, &opt_interval, "interval_s (default 1)", "S" },
  { "count", 'n', 0, G_OPTION_ARG_INT, &opt_count, "Reports to send (default 1)", "N" },
  { "period", 'p', 0, G_OPTION_ARG_DOUBLE, &opt_period, "Seconds between reports (default: interval)", "S" },
  { "time-offset", 0, 0, G_OPTION_ARG_DOUBLE, &opt_time_offset, "Add S seconds to time_us", "S" },
  { "target", 0, 0, G_OPTION_ARG_INT, &opt_target, "Target datagram size", "BYTES" },
  { "print", 0, 0, G_OPTION_ARG_NONE, &opt_print, "Print each datagram on stdout", NULL },
  { NULL },
};

static int
fail (const char *what, GError *error)
{
  g_printerr ("wf-report-send: %s: %s\n", what, error->message);
  return 1;
}

int
main (int argc, char **argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new ("ADDRESS PORT");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) key = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GInetAddress) addr = NULL;
  g_autoptr(GSocketAddress) dest = NULL;
  g_autofree char *host = NULL, *text = NULL;
  WfReportSender *sender;
  guint64 port;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 3)
    {
      g_printerr ("wf-report-send: %s\n", error ? error->message : "need ADDRESS PORT");
      return 2;
    }
  addr = g_inet_address_new_from_string (argv[1]);
  if (addr == NULL || !g_ascii_string_to_unsigned (argv[2], 10, 1, 65535, &port, NULL))
    {
      g_printerr ("wf-report-send: bad address or port\n");
      return 2;
    }

  if (opt_body)
    text = g_strdup (opt_body);
  else
    {
      g_autoptr(GIOChannel) in = g_io_channel_unix_new (STDIN_FILENO);
      gsize len;

      if (g_io_channel_read_to_end (in, &text, &len, &error) != G_IO_STATUS_NORMAL)
        return fail ("stdin", error);
    }
  root = json_from_string (text, &error);
  if (root == NULL)
    return fail ("body", error);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_printerr ("wf-report-send: body: not a JSON object\n");
      return 1;
    }

  if (opt_key && (key = wf_report_load_key (opt_key, &error)) == NULL)
    return fail ("key", error);
  host = opt_host ? g_strdup (opt_host) : wf_report_host_id (opt_machine_id, &error);
  if (host == NULL)
    return fail ("host id", error);

  sock = g_socket_new (g_inet_address_get_family (addr), G_SOCKET_TYPE_DATAGRAM,
                       G_SOCKET_PROTOCOL_UDP, &error);
  if (sock == NULL)
    return fail ("socket", error);
  dest = g_inet_socket_address_new (addr, (guint16) port);

  sender = wf_report_sender_new (host, key);
  if (opt_hostname && !wf_report_sender_set_hostname (sender, opt_hostname))
    {
      g_printerr ("wf-report-send: --hostname: not a valid host name\n");
      wf_report_sender_free (sender);
      return 2;
    }
  if (opt_target > 0)
    wf_report_sender_set_target_size (sender, opt_target);
  if (opt_period < 0)
    opt_period = opt_interval;

  for (int i = 0; i < opt_count; i++)
    {
      gint64 t = g_get_real_time () + (gint64) (opt_time_offset * G_USEC_PER_SEC);
      g_autoptr(GBytes) d = wf_report_sender_seal_at (sender, json_node_get_object (root),
                                                      opt_interval, t, &error);

      if (d == NULL)
        return fail ("seal", error);
      if (g_socket_send_to (sock, dest, g_bytes_get_data (d, NULL), g_bytes_get_size (d),
                            NULL, &error) < 0)
        return fail ("send", error);
      if (opt_print)
        {
          fwrite (g_bytes_get_data (d, NULL), 1, g_bytes_get_size (d), stdout);
          putchar ('\n');
          fflush (stdout);
        }
      if (i + 1 < opt_count)
        g_usleep ((gulong) (opt_period * G_USEC_PER_SEC));
    }
  wf_report_sender_free (sender);
  return 0;
}
