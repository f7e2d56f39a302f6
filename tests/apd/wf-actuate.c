/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drives one actuator of libapd for the integration tests:
 *
 *   wf-actuate --iface IF --state FILE --actuator NAME [--stdin]
 *              [--rwnd-policy P --rwnd-capacity BPS] COMMAND...
 *
 * COMMANDs run in order: probe; start (probe, then start); set MAC DOWN UP
 * (bit/s, 0: no cap); delay MAC US; weight MAC W; unset MAC (no limit);
 * forget MAC; addr MAC IP (an address of the station, for rwnd); refresh;
 * status (the actuator's status object, one JSON line, "{}" for none); stop; restore (everything FILE records, no instance);
 * crash (exits at once, nothing undone). With --stdin, then one command
 * per line, each answered "ok" or "error: ..." on stdout; end of input
 * exits without stopping (what was set stays, as after a crash). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-restore.h"
#include "wlanfair-error.h"

typedef struct {
  const char *ifname;
  const char *name;
  WfApdState *state;
  WfActuator *a;
  GHashTable *addrs;  /* mac_str -> WfApdStation with its addresses */
  WfActuatorOptions options;
} Ctx;

static gboolean
parse_mac (const char *text, WfApdStation *sta, GError **error)
{
  memset (sta, 0, sizeof *sta);
  if (!text || !wf_mac_parse (text, sta->mac))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "'%s' is not a MAC address",
                   text ? text : "");
      return FALSE;
    }
  wf_mac_format (sta->mac, sta->mac_str);
  sta->tx_mcs = -1;
  sta->weight = 1;
  return TRUE;
}

static gboolean
number (const char *text, double *out, GError **error)
{
  char *end = NULL;

  if (!text || !*text || (*out = g_ascii_strtod (text, &end), *end) || !(*out >= 0))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "'%s' is not a number >= 0",
                   text ? text : "");
      return FALSE;
    }
  return TRUE;
}

static gboolean
need_instance (Ctx *c, GError **error)
{
  if (c->a)
    return TRUE;
  if (!c->ifname || !c->name)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "--iface and --actuator are needed");
      return FALSE;
    }
  c->a = wf_actuator_new (c->name, c->ifname, c->state, error);
  if (c->a)
    c->a->options = c->options;
  return c->a != NULL;
}

/* Runs argv[0] with its arguments; *used: how many words it took. */
static gboolean
run (Ctx *c, char **argv, int argc, int *used, GError **error)
{
  const char *cmd = argv[0];
  WfActuatorSetting s = { 0 };
  WfApdStation sta;
  double v[2];

  *used = 1;
  if (g_str_equal (cmd, "crash"))
    _exit (3);
  if (g_str_equal (cmd, "restore"))
    return wf_apd_restore_all (c->state, error);
  if (!need_instance (c, error))
    return FALSE;
  if (g_str_equal (cmd, "probe"))
    return wf_actuator_probe (c->a, error);
  if (g_str_equal (cmd, "start"))
    return wf_actuator_probe (c->a, error) && wf_actuator_start (c->a, error);
  if (g_str_equal (cmd, "stop"))
    return wf_actuator_stop (c->a, error);
  if (g_str_equal (cmd, "refresh"))
    return wf_actuator_refresh (c->a, error);
  if (g_str_equal (cmd, "status"))
    {
      g_autoptr(JsonNode) n = wf_actuator_status (c->a);
      g_autofree char *text = n ? json_to_string (n, FALSE) : g_strdup ("{}");

      printf ("%s\n", text);
      return TRUE;
    }
  if (g_str_equal (cmd, "addr"))
    {
      WfApdStation *known;
      WfApdAddr *ad;

      *used = 3;
      if (argc < 3 || !parse_mac (argv[1], &sta, error))
        {
          if (error && !*error)
            g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "addr: MAC IP expected");
          return FALSE;
        }
      if (!(known = g_hash_table_lookup (c->addrs, sta.mac_str)))
        {
          known = g_memdup2 (&sta, sizeof sta);
          g_hash_table_insert (c->addrs, g_strdup (sta.mac_str), known);
        }
      if (known->n_addrs >= WF_APD_MAX_ADDRS)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "addr: at most %d", WF_APD_MAX_ADDRS);
          return FALSE;
        }
      ad = &known->addrs[known->n_addrs];
      ad->family = strchr (argv[2], ':') ? AF_INET6 : AF_INET;
      if (inet_pton (ad->family, argv[2], ad->addr) != 1)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "'%s' is not an address", argv[2]);
          return FALSE;
        }
      known->n_addrs++;
      return TRUE;
    }

  if (g_str_equal (cmd, "set") || g_str_equal (cmd, "delay") || g_str_equal (cmd, "weight") ||
      g_str_equal (cmd, "unset") || g_str_equal (cmd, "forget"))
    {
      int want = g_str_equal (cmd, "set") ? 4 : g_str_equal (cmd, "delay") ||
                 g_str_equal (cmd, "weight") ? 3 : 2;

      if (argc < want)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s: %d arguments expected", cmd,
                       want - 1);
          return FALSE;
        }
      *used = want;
      if (!parse_mac (argv[1], &sta, error))
        return FALSE;
      if (g_hash_table_contains (c->addrs, sta.mac_str))
        sta = *(WfApdStation *) g_hash_table_lookup (c->addrs, sta.mac_str);
      if (g_str_equal (cmd, "forget"))
        return wf_actuator_forget (c->a, sta.mac, error);
      s.limited = !g_str_equal (cmd, "unset");
      s.weight = WF_ACTUATOR_WEIGHT_DEFAULT;
      if (g_str_equal (cmd, "set"))
        {
          if (!number (argv[2], &v[0], error) || !number (argv[3], &v[1], error))
            return FALSE;
          s.rate_down_bps = v[0];
          s.rate_up_bps = v[1];
        }
      else if (want == 3)
        {
          if (!number (argv[2], &v[0], error) || v[0] > G_MAXUINT32)
            return FALSE;
          if (g_str_equal (cmd, "delay"))
            s.delay_us = (guint32) v[0];
          else
            s.weight = (guint16) MIN (v[0], 65535);
        }
      return wf_actuator_set (c->a, &sta, &s, error);
    }
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "unknown command '%s'", cmd);
  return FALSE;
}

int
main (int argc, char **argv)
{
  g_autofree char *ifname = NULL;
  g_autofree char *name = NULL;
  g_autofree char *state_path = NULL;
  g_autofree char *policy = NULL;
  double capacity = 0;
  gboolean from_stdin = FALSE;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) oc = g_option_context_new ("COMMAND...");
  GOptionEntry entries[] = {
    { "iface", 0, 0, G_OPTION_ARG_STRING, &ifname, "AP interface", "IF" },
    { "state", 0, 0, G_OPTION_ARG_FILENAME, &state_path, "record of changes", "FILE" },
    { "actuator", 0, 0, G_OPTION_ARG_STRING, &name, "rate, delay, airtime, rwnd, fake", "NAME" },
    { "stdin", 0, 0, G_OPTION_ARG_NONE, &from_stdin, "then commands from stdin", NULL },
    { "rwnd-policy", 0, 0, G_OPTION_ARG_STRING, &policy, "station, equal, rtt-fair", "P" },
    { "rwnd-capacity", 0, 0, G_OPTION_ARG_DOUBLE, &capacity, "C of equal, rtt-fair", "BPS" },
    { NULL },
  };
  g_autoptr(WfApdState) state = NULL;
  Ctx c = { 0 };
  char line[512];

  g_option_context_add_main_entries (oc, entries, NULL);
  if (!g_option_context_parse (oc, &argc, &argv, &error) || !state_path)
    {
      fprintf (stderr, "wf-actuate: %s\n", error ? error->message : "--state is needed");
      return 2;
    }
  if (policy && !wf_rwnd_policy_parse (policy, &c.options.rwnd_policy))
    {
      fprintf (stderr, "wf-actuate: --rwnd-policy must be " WF_RWND_POLICY_NAMES "\n");
      return 2;
    }
  c.options.rwnd_capacity_bps = capacity;
  if (!(state = wf_apd_state_open (state_path, &error)))
    {
      fprintf (stderr, "wf-actuate: %s\n", error->message);
      return 1;
    }
  c.ifname = ifname;
  c.name = name;
  c.state = state;
  c.addrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (int k = 1; k < argc;)
    {
      int used;

      if (!run (&c, argv + k, argc - k, &used, &error))
        {
          fprintf (stderr, "wf-actuate: %s\n", error->message);
          wf_actuator_free (c.a);
          g_hash_table_unref (c.addrs);
          return 1;
        }
      k += used;
    }
  if (from_stdin)
    {
      setvbuf (stdout, NULL, _IOLBF, 0);
      while (fgets (line, sizeof line, stdin))
        {
          g_auto(GStrv) words = g_strsplit_set (g_strstrip (line), " \t", -1);
          int n = (int) g_strv_length (words), used;

          if (n == 0 || !*words[0])
            continue;
          if (run (&c, words, n, &used, &error))
            printf ("ok\n");
          else
            {
              printf ("error: %s\n", error->message);
              g_clear_error (&error);
            }
        }
    }
  wf_actuator_free (c.a);
  g_hash_table_unref (c.addrs);
  return 0;
}
