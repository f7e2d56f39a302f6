/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Report envelope, version 1: host id, sealing with an optional
 * HMAC-SHA256 over the exact datagram bytes, pre-shared key files.
 * The receiver side is in wlanfair-report-parse.c and
 * wlanfair-report-replay.c. Format:
 * docs/report-protocol.md. */
#include "wlanfair-report.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-readfile.h"

#define MIN_TARGET 512

struct _WfReportSender {
  char    *host;
  char    *hostname;
  GBytes  *key;
  char     boot[17];
  guint64  seq;
  gsize    target;
};

/* Envelope members: the sender owns them, a body's copies are replaced. */
static const char *const reserved[] = {
  "wlanfair_report", "host", "hostname", "seq", "time_us", "boot",
  "interval_s", "mac", "flows_dropped", NULL,
};

static gboolean
parse_hex (const char *text, gsize n_bytes, guint8 *out)
{
  for (gsize i = 0; i < n_bytes; i++)
    {
      int hi = g_ascii_xdigit_value (text[2 * i]);
      int lo = hi < 0 ? -1 : g_ascii_xdigit_value (text[2 * i + 1]);

      if (hi < 0 || lo < 0)
        return FALSE;
      out[i] = (guint8) (hi << 4 | lo);
    }
  return TRUE;
}

static void
hmac_sha256 (const guint8 *key, gsize key_len, const guint8 *data, gsize len,
             guint8 out[32])
{
  g_autoptr(GHmac) h = g_hmac_new (G_CHECKSUM_SHA256, key, key_len);
  gsize n = 32;

  g_hmac_update (h, data, len);
  g_hmac_get_digest (h, out, &n);
}

char *
wf_report_hmac_hex (GBytes *key, const guint8 *data, gsize len)
{
  gsize key_len = 0;
  const guint8 *k = g_bytes_get_data (key, &key_len);
  g_autoptr(GHmac) h = g_hmac_new (G_CHECKSUM_SHA256, k, key_len);

  g_hmac_update (h, data, len);
  return g_strdup (g_hmac_get_string (h));
}

char *
wf_report_host_id (const char *machine_id_path, GError **error)
{
  const char *path = machine_id_path ? machine_id_path : "/etc/machine-id";
  g_autofree char *text = NULL;
  guint8 machine[16], app[16], digest[32];
  GString *out;

  if (!wf_readfile_bounded (path, 4096, "a machine id file", &text, NULL, error))
    return NULL;
  g_strstrip (text);
  if (strlen (text) != 32 || !parse_hex (text, 16, machine))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                   "%s: not a machine id (32 hexadecimal digits)", path);
      return NULL;
    }
  if (!parse_hex (WF_REPORT_APP_ID, 16, app))
    g_assert_not_reached ();

  /* sd_id128_get_machine_app_specific(): keyed with the machine id, so
   * knowing the result and the public app id does not give it back. */
  hmac_sha256 (machine, sizeof machine, app, sizeof app, digest);
  memset (machine, 0, sizeof machine);
  /* Made a v4 UUID like systemd does, so `systemd-id128 machine-id -a`
   * prints the same id. */
  digest[6] = (digest[6] & 0x0F) | 0x40;
  digest[8] = (digest[8] & 0x3F) | 0x80;

  out = g_string_sized_new (33);
  for (int i = 0; i < 16; i++)
    g_string_append_printf (out, "%02x", digest[i]);
  return g_string_free (out, FALSE);
}

static void
random_hex (char *out, gsize n_bytes)
{
  guint8 buf[32];

  g_assert (n_bytes <= sizeof buf);
  /* getrandom() only fails before the pool is initialised with
   * GRND_NONBLOCK; without it, it blocks. GRand is the fallback. */
  if (getrandom (buf, n_bytes, 0) != (ssize_t) n_bytes)
    for (gsize i = 0; i < n_bytes; i++)
      buf[i] = (guint8) g_random_int ();
  for (gsize i = 0; i < n_bytes; i++)
    g_snprintf (out + 2 * i, 3, "%02x", buf[i]);
}

WfReportSender *
wf_report_sender_new (const char *host_id, GBytes *key)
{
  WfReportSender *s;

  g_return_val_if_fail (host_id != NULL, NULL);
  s = g_new0 (WfReportSender, 1);
  s->host = g_strdup (host_id);
  s->key = key ? g_bytes_ref (key) : NULL;
  s->seq = 1;
  s->target = WF_REPORT_TARGET_SIZE;
  random_hex (s->boot, 8);
  return s;
}

void
wf_report_sender_free (WfReportSender *s)
{
  if (s == NULL)
    return;
  g_free (s->host);
  g_free (s->hostname);
  if (s->key)
    g_bytes_unref (s->key);
  g_free (s);
}

gboolean
wf_report_sender_set_hostname (WfReportSender *s, const char *hostname)
{
  g_free (s->hostname);
  s->hostname = NULL;
  if (hostname == NULL)
    return TRUE;
  /* What receivers accept (docs/report-protocol.md), nothing else. */
  if (*hostname == '\0' || strlen (hostname) > 253 || !g_utf8_validate (hostname, -1, NULL))
    return FALSE;
  for (const char *p = hostname; *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  s->hostname = g_strdup (hostname);
  return TRUE;
}

void
wf_report_sender_set_target_size (WfReportSender *s, gsize target)
{
  s->target = CLAMP (target, MIN_TARGET, WF_REPORT_MAX_SIZE);
}

const char *
wf_report_sender_get_boot (WfReportSender *s)
{
  return s->boot;
}

guint64
wf_report_sender_get_next_seq (WfReportSender *s)
{
  return s->seq;
}

char *
wf_report_json_to_data (JsonNode *node, gsize *length)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  gboolean in_string = FALSE;
  gsize len = 0, w = 0;
  char *text;

  json_generator_set_pretty (gen, FALSE);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, &len);

  for (gsize r = 0; r < len; )
    {
      char ch = text[r];

      if (in_string)
        {
          text[w++] = text[r++];
          if (ch == '\\' && r < len)
            text[w++] = text[r++];
          else if (ch == '"')
            in_string = FALSE;
          continue;
        }
      if (ch == '"')
        in_string = TRUE;
      /* An exponent in a number: copy it, then drop a following ".0". */
      if ((ch == 'e' || ch == 'E') && w > 0 && g_ascii_isdigit (text[w - 1]))
        {
          text[w++] = text[r++];
          if (r < len && (text[r] == '+' || text[r] == '-'))
            text[w++] = text[r++];
          while (r < len && g_ascii_isdigit (text[r]))
            text[w++] = text[r++];
          if (r + 1 < len && text[r] == '.' && text[r + 1] == '0' &&
              (r + 2 >= len || !g_ascii_isdigit (text[r + 2])))
            r += 2;
          continue;
        }
      text[w++] = text[r++];
    }
  text[w] = '\0';
  if (length)
    *length = w;
  return text;
}

static double
member_double (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return 0;
  switch (json_node_get_value_type (n))
    {
    case G_TYPE_INT64:
      return (double) json_node_get_int (n);
    case G_TYPE_DOUBLE:
      return json_node_get_double (n);
    default:
      return 0;
    }
}

static double
flow_goodput (JsonNode *flow)
{
  JsonObject *o;

  if (!JSON_NODE_HOLDS_OBJECT (flow))
    return -1; /* not a flow: dropped first */
  o = json_node_get_object (flow);
  return member_double (o, "goodput_tx_bps") + member_double (o, "goodput_rx_bps");
}

/* Serialises the report with `n_flows` of `flows` (NULL: the body had
 * none), then appends the mac. */
static GBytes *
build (WfReportSender *s, JsonObject *body, GPtrArray *flows,
       guint64 dropped, double interval_s, gint64 time_us)
{
  g_autoptr(JsonObject) o = json_object_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GList) members = json_object_get_members (body);
  GString *text;
  gsize len = 0;
  char *data;

  json_object_set_int_member (o, "wlanfair_report", WF_REPORT_VERSION);
  json_object_set_string_member (o, "host", s->host);
  if (s->hostname)
    json_object_set_string_member (o, "hostname", s->hostname);
  json_object_set_int_member (o, "seq", (gint64) s->seq);
  json_object_set_int_member (o, "time_us", time_us);
  json_object_set_string_member (o, "boot", s->boot);
  json_object_set_double_member (o, "interval_s", interval_s);

  for (GList *l = members; l; l = l->next)
    {
      const char *name = l->data;

      if (g_strv_contains (reserved, name))
        continue;
      if (flows && g_str_equal (name, "flows"))
        {
          JsonArray *a = json_array_sized_new (flows->len);

          for (guint i = 0; i < flows->len; i++)
            json_array_add_element (a, json_node_ref (g_ptr_array_index (flows, i)));
          json_object_set_array_member (o, "flows", a);
          continue;
        }
      json_object_set_member (o, name, json_node_ref (json_object_get_member (body, name)));
    }
  if (dropped > 0)
    json_object_set_int_member (o, "flows_dropped", (gint64) dropped);

  json_node_set_object (root, o);
  data = wf_report_json_to_data (root, &len);
  if (s->key == NULL)
    return g_bytes_new_take (data, len);

  /* `{…}` becomes `{…,"mac":"<hex>"}`: the mac covers exactly the
   * bytes of the unsigned object, so no JSON canonicalisation is needed. */
  g_assert (len >= 2 && data[len - 1] == '}');
  {
    g_autofree char *mac = wf_report_hmac_hex (s->key, (const guint8 *) data, len);

    text = g_string_new_len (data, len - 1);
    g_free (data);
    g_string_append_printf (text, ",\"mac\":\"%s\"}", mac);
  }
  return g_string_free_to_bytes (text);
}

GBytes *
wf_report_sender_seal_at (WfReportSender *s, JsonObject *body, double interval_s,
                          gint64 time_us, GError **error)
{
  g_autoptr(GPtrArray) flows = NULL;
  g_autoptr(GBytes) out = NULL;
  JsonNode *fnode;
  guint64 dropped = 0;

  g_return_val_if_fail (s != NULL && body != NULL, NULL);

  /* Receivers reject anything else: fail here, where it can be fixed. */
  if (!(interval_s >= 0.1 && interval_s <= 60))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "interval %g s is outside 0.1..60 s", interval_s);
      return NULL;
    }

  fnode = json_object_get_member (body, "flows");
  if (fnode && JSON_NODE_HOLDS_ARRAY (fnode))
    {
      JsonArray *a = json_node_get_array (fnode);

      flows = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      for (guint i = 0; i < json_array_get_length (a); i++)
        g_ptr_array_add (flows, json_node_ref (json_array_get_element (a, i)));
    }

  for (;;)
    {
      guint lowest = 0;

      out = build (s, body, flows, dropped, interval_s, time_us);
      if (g_bytes_get_size (out) <= s->target || flows == NULL || flows->len == 0)
        break;
      /* Lowest goodput first; the first of equals keeps the reporter's
       * own order for the rest. */
      for (guint i = 1; i < flows->len; i++)
        if (flow_goodput (g_ptr_array_index (flows, i)) <
            flow_goodput (g_ptr_array_index (flows, lowest)))
          lowest = i;
      g_ptr_array_remove_index (flows, lowest);
      dropped++;
      g_clear_pointer (&out, g_bytes_unref);
    }

  if (g_bytes_get_size (out) > WF_REPORT_MAX_SIZE)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_OVER_CAPACITY,
                   "report of %" G_GSIZE_FORMAT " bytes does not fit the %d-byte limit "
                   "even without flows (%" G_GUINT64_FORMAT " dropped)",
                   g_bytes_get_size (out), WF_REPORT_MAX_SIZE, dropped);
      return NULL;
    }
  s->seq++;
  return g_steal_pointer (&out);
}

GBytes *
wf_report_sender_seal (WfReportSender *s, JsonObject *body, double interval_s,
                       GError **error)
{
  return wf_report_sender_seal_at (s, body, interval_s, g_get_real_time (), error);
}

GBytes *
wf_report_load_key (const char *path, GError **error)
{
  return wf_report_load_key_full (path, FALSE, error);
}

GBytes *
wf_report_load_key_full (const char *path, gboolean credential, GError **error)
{
  g_autofree guint8 *buf = NULL;
  GBytes *key;
  struct stat st;
  gssize n;
  gsize len = 0;
  int fd;

  /* O_NONBLOCK: a FIFO without a writer would block the open. */
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                   "key file %s: %s", path, g_strerror (e));
      return NULL;
    }
  /* fstat on the open file: no window between the check and the read. */
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "key file %s: not a regular file", path);
      close (fd);
      return NULL;
    }
  if (st.st_mode & (S_IRWXO | (credential ? S_IWGRP | S_IXGRP : S_IRWXG)))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "key file %s has mode %04o: it must not be accessible by group "
                   "or others (chmod 600 %s)", path,
                   (unsigned) (st.st_mode & 07777), path);
      close (fd);
      return NULL;
    }
  if (st.st_uid != 0 && st.st_uid != geteuid ())
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "key file %s is owned by uid %u: it must belong to root or "
                   "to the user reading it", path, (unsigned) st.st_uid);
      close (fd);
      return NULL;
    }

  buf = g_malloc (WF_REPORT_KEY_MAX + 2);
  while (len < WF_REPORT_KEY_MAX + 2)
    {
      n = read (fd, buf + len, WF_REPORT_KEY_MAX + 2 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int e = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                       "key file %s: %s", path, g_strerror (e));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      len += n;
    }
  close (fd);

  if (len > 0 && buf[len - 1] == '\n')
    len--;
  if (len < WF_REPORT_KEY_MIN || len > WF_REPORT_KEY_MAX)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "key file %s: the key must have %d to %d bytes "
                   "(e.g. openssl rand -hex 32 > %s)",
                   path, WF_REPORT_KEY_MIN, WF_REPORT_KEY_MAX, path);
      explicit_bzero (buf, WF_REPORT_KEY_MAX + 2);
      return NULL;
    }
  key = g_bytes_new (buf, len);
  /* No stray copy of the key in freed heap memory. */
  explicit_bzero (buf, WF_REPORT_KEY_MAX + 2);
  return key;
}
