/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A unix stream socket: connect, receive the latest report, EOF. Mode
 * 0666: the same numbers are visible to every local user anyway (link
 * counters, sock_diag); the directory is the service's RuntimeDirectory. */
#include "wlanfair-reportd-channel.h"

#include <errno.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "wlanfair-error.h"
#include "wlanfair-file.h"

struct _WfReportdChannel {
  GSocketService *service;
  char           *path;
  GBytes         *latest;
  gboolean        bound;
  dev_t           dev;
  ino_t           ino;
};

static gboolean
on_incoming (GSocketService *service, GSocketConnection *conn, GObject *source, gpointer data)
{
  WfReportdChannel *ch = data;
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  const char *text = ch->latest ? g_bytes_get_data (ch->latest, &len) : "{}\n";

  if (ch->latest == NULL)
    len = 3;
  /* A few kB into a fresh socket buffer: this does not block. */
  g_socket_set_timeout (g_socket_connection_get_socket (conn), 1);
  if (!g_output_stream_write_all (out, text, len, NULL, NULL, &error))
    g_debug ("local client: %s", error->message);
  g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
  return TRUE;
}

WfReportdChannel *
wf_reportd_channel_new (const char *path, GError **error)
{
  WfReportdChannel *ch;
  g_autoptr(GSocketAddress) addr = NULL;
  GError *local = NULL;
  struct stat st;

  /* Only a crashed instance's stale socket is replaced: a file, a link
   * or a live socket at PATH is an error (wlanfair-file.h). */
  if (!wf_file_claim_socket (path, error))
    return NULL;
  ch = g_new0 (WfReportdChannel, 1);
  ch->path = g_strdup (path);
  ch->service = g_socket_service_new ();
  addr = g_unix_socket_address_new (path);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (ch->service), addr,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, &local))
    {
      g_propagate_prefixed_error (error, local, "%s: ", path);
      g_clear_object (&ch->service);
      wf_reportd_channel_free (ch);
      return NULL;
    }
  g_chmod (path, 0666);
  /* At stop, PATH is removed only while it is still this socket. */
  if (g_lstat (path, &st) == 0)
    {
      ch->dev = st.st_dev;
      ch->ino = st.st_ino;
      ch->bound = TRUE;
    }
  g_signal_connect (ch->service, "incoming", G_CALLBACK (on_incoming), ch);
  g_socket_service_start (ch->service);
  return ch;
}

void
wf_reportd_channel_free (WfReportdChannel *ch)
{
  if (ch == NULL)
    return;
  if (ch->service)
    {
      g_socket_service_stop (ch->service);
      g_socket_listener_close (G_SOCKET_LISTENER (ch->service));
      g_object_unref (ch->service);
      if (ch->bound)
        wf_file_remove_socket (ch->path, ch->dev, ch->ino);
    }
  g_clear_pointer (&ch->latest, g_bytes_unref);
  g_free (ch->path);
  g_free (ch);
}

void
wf_reportd_channel_set (WfReportdChannel *ch, char *json)
{
  g_clear_pointer (&ch->latest, g_bytes_unref);
  ch->latest = g_bytes_new_take (json, strlen (json));
}
