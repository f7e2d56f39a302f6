/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Client of the reporter's local channel, for `wlanfairctl status/top`. */
#include "wlanfair-localreport.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "wlanfair-error.h"

JsonObject *
wf_localreport_fetch (const char *path, int timeout_ms, GError **error)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  g_autoptr(GString) buf = g_string_new (NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  gint64 deadline;
  JsonNode *root;
  int fd;

  path = path ? path : WF_LOCALREPORT_SOCKET;
  if (strlen (path) >= sizeof sa.sun_path)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s: path too long", path);
      return NULL;
    }
  strcpy (sa.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  for (;;)
    {
      struct pollfd p = { fd, POLLIN, 0 };
      char chunk[16384];
      int left = (int) ((deadline - g_get_monotonic_time ()) / 1000);
      ssize_t n;

      if (left <= 0 || poll (&p, 1, left) <= 0)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: no answer", path);
          close (fd);
          return NULL;
        }
      n = read (fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_string_append_len (buf, chunk, n);
      if (buf->len > WF_LOCALREPORT_MAX)
        break;
    }
  close (fd);
  if (!json_parser_load_from_data (parser, buf->str, (gssize) buf->len, &local) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s: not a report: %s", path,
                   local ? local->message : "not a JSON object");
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}
