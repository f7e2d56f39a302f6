/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reportd.conf: a GKeyFile with one [reportd] group. Unknown keys and bad
 * values are errors (exit status 2), never silently ignored. */
#include "config.h"

#include "wlanfair-reportd-config.h"

#include <math.h>
#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-ifname.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-number.h"
#include "wlanfair-report.h"

static const char * const keys[] = {
  "interfaces", "interval", "destination", "port", "key", "textfile-dir",
  "top-flows", "max-datagram", "dscp", "hostname", "send", "socket", NULL
};

void
wf_reportd_config_init (WfReportdConfig *c)
{
  memset (c, 0, sizeof *c);
  c->interval_s = 1.0;
  c->port = WF_REPORT_PORT;
  c->top_flows = 10;
  c->max_datagram = WF_REPORTD_MAX_DATAGRAM_DEFAULT;
  c->dscp = WF_REPORTD_DSCP_DEFAULT;
  c->hostname = TRUE;
  c->send = TRUE;
  c->socket_path = g_strdup (WF_REPORTD_DEFAULT_SOCKET);
}

void
wf_reportd_config_clear (WfReportdConfig *c)
{
  g_strfreev (c->interfaces);
  g_free (c->destination);
  g_free (c->key_file);
  g_free (c->textfile_dir);
  g_free (c->socket_path);
  memset (c, 0, sizeof *c);
}

static gboolean
parse_whole (const char *key, const char *v, guint min, guint max, guint *out, GError **error)
{
  double d;

  if (!wf_number_parse (v, WF_NUMBER_NONNEG, &d, NULL) || d != floor (d) || d < min || d > max)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "%s '%s' must be a whole number from %u to %u", key, v, min, max);
      return FALSE;
    }
  *out = (guint) d;
  return TRUE;
}

/* RFC 4594 and RFC 8622 names of the code points. */
static const struct {
  const char *name;
  guint       dscp;
} dscp_names[] = {
  { "cs0", 0 }, { "le", 1 }, { "cs1", 8 }, { "af11", 10 }, { "af12", 12 }, { "af13", 14 },
  { "cs2", 16 }, { "af21", 18 }, { "af22", 20 }, { "af23", 22 }, { "cs3", 24 },
  { "af31", 26 }, { "af32", 28 }, { "af33", 30 }, { "cs4", 32 }, { "af41", 34 },
  { "af42", 36 }, { "af43", 38 }, { "cs5", 40 }, { "va", 44 }, { "ef", 46 },
  { "cs6", 48 }, { "cs7", 56 },
};

gboolean
wf_reportd_parse_dscp (const char *text, guint *dscp)
{
  for (gsize i = 0; i < G_N_ELEMENTS (dscp_names); i++)
    if (g_ascii_strcasecmp (text, dscp_names[i].name) == 0)
      {
        *dscp = dscp_names[i].dscp;
        return TRUE;
      }
  return parse_whole ("dscp", text, 0, 63, dscp, NULL);
}

const char *
wf_reportd_dscp_name (guint dscp)
{
  for (gsize i = 0; i < G_N_ELEMENTS (dscp_names); i++)
    if (dscp_names[i].dscp == dscp)
      return dscp_names[i].name;
  return NULL;
}

gboolean
wf_reportd_parse_hostport (const char *text, guint16 default_port, char **host,
                           guint16 *port, GError **error)
{
  const char *colon;
  g_autofree char *h = NULL;
  guint p = default_port;

  if (text[0] == '[')
    {
      const char *end = strchr (text, ']');

      if (end == NULL || end == text + 1 || (end[1] != '\0' && end[1] != ':'))
        goto bad;
      h = g_strndup (text + 1, end - text - 1);
      colon = end[1] == ':' ? end + 1 : NULL;
    }
  else
    {
      colon = strrchr (text, ':');
      /* More than one colon without brackets: a bare IPv6 address. */
      if (colon && strchr (text, ':') != colon)
        {
          g_autofree char *before = g_strndup (text, colon - text);
          guint maybe_port;

          /* "::1:7480" is the address ::0.1.116.128, yet it reads as ::1
           * port 7480: when the text before the last colon is an IPv6
           * address and what follows could be a port, refuse to guess. */
          if (strchr (before, ':') && g_hostname_is_ip_address (before) &&
              parse_whole ("port", colon + 1, 1, 65535, &maybe_port, NULL))
            {
              g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                           "destination '%s': an IPv6 address needs brackets: [%s]:%s for "
                           "port %s, or [%s] for that address", text, before, colon + 1,
                           colon + 1, text);
              return FALSE;
            }
          colon = NULL;
        }
      h = colon ? g_strndup (text, colon - text) : g_strdup (text);
    }
  if (h[0] == '\0' || strchr (h, ' ') || strchr (h, '/'))
    goto bad;
  if (colon && !parse_whole ("port", colon + 1, 1, 65535, &p, NULL))
    goto bad;
  *host = g_steal_pointer (&h);
  *port = (guint16) p;
  return TRUE;

bad:
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
               "destination '%s' is not HOST:PORT, [IPV6]:PORT or HOST", text);
  return FALSE;
}

gboolean
wf_reportd_config_set (WfReportdConfig *c, const char *key, const char *value, GError **error)
{
  g_autofree char *v = g_strstrip (g_strdup (value));
  guint n;

  if (g_str_equal (key, "interfaces"))
    {
      g_auto(GStrv) parts = g_strsplit_set (v, ",; ", -1);
      /* Frees the names kept so far when a later one is refused. */
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

      for (char **p = parts; *p; p++)
        if (**p)
          {
            if (!wf_ifname_validate ("interfaces", *p, error))
              {
                g_ptr_array_free (names, TRUE);
                return FALSE;
              }
            /* Twice is a typo, not two interfaces: it would be reported
             * (and summed) twice. */
            if (g_ptr_array_find_with_equal_func (names, *p, g_str_equal, NULL))
              {
                g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                             "interfaces: '%s' is given twice", *p);
                g_ptr_array_free (names, TRUE);
                return FALSE;
              }
            g_ptr_array_add (names, g_strdup (*p));
          }
      g_ptr_array_add (names, NULL);
      g_strfreev (c->interfaces);
      c->interfaces = (char **) g_ptr_array_free (names, FALSE);
      return TRUE;
    }
  if (g_str_equal (key, "interval"))
    {
      double d;

      if (!wf_number_parse (v, WF_NUMBER_POSITIVE, &d, NULL) ||
          d < WF_REPORTD_INTERVAL_MIN - 1e-9 || d > WF_REPORTD_INTERVAL_MAX)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "interval '%s' must be a number of seconds from 0.1 to 60", v);
          return FALSE;
        }
      c->interval_s = d;
      return TRUE;
    }
  if (g_str_equal (key, "destination"))
    {
      g_autofree char *host = NULL;
      guint16 port;

      if (v[0] == '\0' || g_str_equal (v, "gateway"))
        {
          g_clear_pointer (&c->destination, g_free);
          return TRUE;
        }
      if (!wf_reportd_parse_hostport (v, c->port, &host, &port, error))
        return FALSE;
      g_free (c->destination);
      c->destination = g_strdup (v);
      return TRUE;
    }
  if (g_str_equal (key, "port"))
    {
      if (!parse_whole ("port", v, 1, 65535, &n, error))
        return FALSE;
      c->port = (guint16) n;
      return TRUE;
    }
  if (g_str_equal (key, "key"))
    {
      g_free (c->key_file);
      c->key_file = v[0] ? g_strdup (v) : NULL;
      return TRUE;
    }
  if (g_str_equal (key, "textfile-dir"))
    {
      g_free (c->textfile_dir);
      c->textfile_dir = g_str_equal (v, "none") ? g_strdup ("") : g_strdup (v);
      c->textfile_dir_explicit = TRUE;
      return TRUE;
    }
  if (g_str_equal (key, "top-flows"))
    {
      if (!parse_whole ("top-flows", v, 0, WF_REPORTD_TOP_FLOWS_MAX, &n, error))
        return FALSE;
      c->top_flows = n;
      return TRUE;
    }
  if (g_str_equal (key, "max-datagram"))
    {
      if (!parse_whole ("max-datagram", v, WF_REPORTD_MAX_DATAGRAM_MIN, WF_REPORT_MAX_SIZE, &n, error))
        return FALSE;
      c->max_datagram = n;
      return TRUE;
    }
  if (g_str_equal (key, "dscp"))
    {
      if (!wf_reportd_parse_dscp (v, &n))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                       "dscp '%s' must be a DSCP name (cs6, ef, af41, ...) or a number "
                       "from 0 to 63 (0: reports not marked)", v);
          return FALSE;
        }
      c->dscp = n;
      return TRUE;
    }
  if (g_str_equal (key, "hostname"))
    return wf_keyfile_parse_bool (key, v, &c->hostname, error);
  if (g_str_equal (key, "send"))
    return wf_keyfile_parse_bool (key, v, &c->send, error);
  if (g_str_equal (key, "socket"))
    {
      g_free (c->socket_path);
      c->socket_path = g_str_equal (v, "none") ? g_strdup ("") : g_strdup (v);
      return TRUE;
    }
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "unknown key '%s'", key);
  return FALSE;
}

gboolean
wf_reportd_config_load (WfReportdConfig *c, const char *path, gboolean must_exist, GError **error)
{
  g_autoptr(GKeyFile) kf = NULL;
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) names = NULL;

  if (!wf_keyfile_load_section (path, "reportd", keys, must_exist, &kf, error))
    return FALSE;
  if (kf == NULL)
    return TRUE;
  names = g_key_file_get_keys (kf, "reportd", NULL, NULL);
  if (names == NULL)
    return TRUE;
  /* port before destination: a destination without a port uses it. */
  for (int pass = 0; pass < 2; pass++)
    for (char **k = names; *k; k++)
      {
        g_autofree char *v = NULL;

        if (g_str_equal (*k, "port") != (pass == 0))
          continue;
        v = g_key_file_get_value (kf, "reportd", *k, NULL);
        if (!wf_reportd_config_set (c, *k, v, &local))
          {
            g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
            return FALSE;
          }
      }
  return TRUE;
}
