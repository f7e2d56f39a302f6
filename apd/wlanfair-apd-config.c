/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apd.conf: a GKeyFile with one [apd] group. Unknown keys and bad values
 * are errors (exit status 2), never silently ignored. */
#include "config.h"

#include "wlanfair-apd-config.h"

#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"
#include "wlanfair-ifname.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-mac.h"
#include "wlanfair-number.h"
#include "wlanfair-report.h"

static const char * const keys[] = {
  "interface", "stations-from", "controller", "actuator", "objective",
  "directions", "key", "insecure-unsigned", "bind", "port", "weights",
  "target-jain", "floor", "max-delay", "idle", "tolerance", "report-stale",
  "feed-timeout", "status", "state", "textfile-dir", "port-rates",
  "carried-reports", "rwnd-policy", "rwnd-capacity", "ack-priority",
  "download-demand", NULL
};

gboolean
wf_apd_config_may_act (const WfApdConfig *c, gboolean have_key)
{
  return (have_key || c->insecure_unsigned) && !g_str_equal (c->actuator, "none");
}

gboolean
wf_apd_config_demand_probe (const WfApdConfig *c, gboolean may_act)
{
  return c->download_demand == WF_APD_DEMAND_YES ||
         (c->download_demand == WF_APD_DEMAND_AUTO && may_act);
}

void
wf_apd_config_init (WfApdConfig *c)
{
  memset (c, 0, sizeof *c);
  c->source = WF_APD_SOURCE_NL80211;
  c->controller = g_strdup ("share");
  c->actuator = g_strdup ("rate");
  wf_apd_control_params_init (&c->control);
  c->port = WF_REPORT_PORT;
  c->weights = g_array_new (FALSE, TRUE, sizeof (WfApdWeight));
  c->port_rates = g_array_new (FALSE, TRUE, sizeof (WfApdPortRate));
  c->tolerance = 0.25;
  c->report_stale_s = 3.0;
  c->feed_timeout_s = 10.0;
  c->status_path = g_strdup (WF_APD_DEFAULT_STATUS);
  c->state_path = g_strdup (WF_APD_STATE_DEFAULT);
}

void
wf_apd_config_clear (WfApdConfig *c)
{
  g_free (c->interface);
  g_free (c->controller);
  g_free (c->actuator);
  g_free (c->key_file);
  g_free (c->bind);
  g_clear_pointer (&c->weights, g_array_unref);
  g_clear_pointer (&c->port_rates, g_array_unref);
  g_free (c->status_path);
  g_free (c->state_path);
  g_free (c->textfile_dir);
  memset (c, 0, sizeof *c);
}

static gboolean
invalid (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError **error, const char *fmt, ...)
{
  va_list ap;

  if (!error)
    return FALSE;
  va_start (ap, fmt);
  *error = g_error_new_valist (WF_ERROR, WF_ERROR_INVALID, fmt, ap);
  va_end (ap);
  return FALSE;
}

/* auto, or a boolean: 0 auto, 1 yes, 2 no (the order of WfApdCarriedMode
 * and WfApdDemandProbe). */
G_STATIC_ASSERT ((int) WF_APD_CARRIED_NO == 2 && (int) WF_APD_DEMAND_NO == 2);
static gboolean
parse_auto (const char *key, const char *v, int *out, GError **error)
{
  gboolean on;

  if (g_str_equal (v, "auto"))
    *out = 0;
  else if (wf_keyfile_parse_bool (key, v, &on, NULL))
    *out = on ? 1 : 2;
  else
    return invalid (error, "%s '%s' must be auto, yes or no", key, v);
  return TRUE;
}

/* A number in [min, max] (flags: SI suffix, sign). */
static gboolean
parse_range (const char *v, WfNumberFlags flags, double min, double max, double *out)
{
  double d;

  if (!wf_number_parse (v, flags, &d, NULL) || !isfinite (d) || d < min || d > max)
    return FALSE;
  *out = d;
  return TRUE;
}

static gboolean
parse_weights (WfApdConfig *c, const char *v, GError **error)
{
  g_auto(GStrv) parts = g_strsplit_set (v, ", ", -1);
  g_autoptr(GArray) w = g_array_new (FALSE, TRUE, sizeof (WfApdWeight));

  for (char **p = parts; *p; p++)
    {
      WfApdWeight e;
      const char *eq = strchr (*p, '=');
      g_autofree char *mac = NULL;

      if (**p == '\0')
        continue;
      if (!eq)
        return invalid (error, "weights: '%s' is not MAC=WEIGHT", *p);
      mac = g_strndup (*p, eq - *p);
      if (!wf_mac_parse (mac, e.mac))
        return invalid (error, "weights: '%s' is not a MAC address (aa:bb:cc:dd:ee:ff)", mac);
      if (!parse_range (eq + 1, WF_NUMBER_POSITIVE, 0.01, 100, &e.weight))
        return invalid (error, "weights: weight '%s' of %s must be a number from 0.01 to 100",
                        eq + 1, mac);
      for (guint i = 0; i < w->len; i++)
        if (memcmp (g_array_index (w, WfApdWeight, i).mac, e.mac, 6) == 0)
          return invalid (error, "weights: %s is given twice", mac);
      if (w->len >= WF_APD_MAX_WEIGHTS)
        return invalid (error, "weights: more than %d stations", WF_APD_MAX_WEIGHTS);
      g_array_append_val (w, e);
    }
  g_array_unref (c->weights);
  c->weights = g_steal_pointer (&w);
  return TRUE;
}

static gboolean
parse_port_rates (WfApdConfig *c, const char *v, GError **error)
{
  g_auto(GStrv) parts = g_strsplit_set (v, ", ", -1);
  g_autoptr(GArray) r = g_array_new (FALSE, TRUE, sizeof (WfApdPortRate));

  for (char **p = parts; *p; p++)
    {
      WfApdPortRate e = { 0 };
      const char *eq = strchr (*p, '=');
      gsize len = eq ? (gsize) (eq - *p) : 0;

      if (**p == '\0')
        continue;
      if (!eq || len == 0 || len >= sizeof e.port)
        return invalid (error, "port-rates: '%s' is not PORT=RATE", *p);
      memcpy (e.port, *p, len);
      /* A bridge port is an interface: the one rule for its name. */
      if (!wf_ifname_validate ("port-rates", e.port, error))
        return FALSE;
      if (!parse_range (eq + 1, WF_NUMBER_SI | WF_NUMBER_POSITIVE, 1e3, 100e9, &e.bps))
        return invalid (error, "port-rates: rate '%s' of %s must be bit/s from 1k to 100G",
                        eq + 1, e.port);
      for (guint i = 0; i < r->len; i++)
        if (g_str_equal (g_array_index (r, WfApdPortRate, i).port, e.port))
          return invalid (error, "port-rates: %s is given twice", e.port);
      if (r->len >= WF_APD_MAX_WEIGHTS)
        return invalid (error, "port-rates: more than %d ports", WF_APD_MAX_WEIGHTS);
      g_array_append_val (r, e);
    }
  g_array_unref (c->port_rates);
  c->port_rates = g_steal_pointer (&r);
  return TRUE;
}

gboolean
wf_apd_config_set (WfApdConfig *c, const char *key, const char *value, GError **error)
{
  g_autofree char *v = g_strstrip (g_strdup (value));
  WfApdControlParams *p = &c->control;
  double d;

  if (g_str_equal (key, "interface"))
    {
      if (!wf_ifname_validate ("interface", v, error))
        return FALSE;
      g_free (c->interface);
      c->interface = g_strdup (v);
      return TRUE;
    }
  if (g_str_equal (key, "stations-from"))
    {
      if (g_str_equal (v, "nl80211"))
        c->source = WF_APD_SOURCE_NL80211;
      else if (g_str_equal (v, "bridge-ports"))
        c->source = WF_APD_SOURCE_BRIDGE_PORTS;
      else
        return invalid (error, "stations-from '%s' must be nl80211 or bridge-ports", v);
      return TRUE;
    }
  if (g_str_equal (key, "controller"))
    {
      gboolean found = FALSE;
      for (const WfApdControllerOps *const *o = wf_apd_controller_list (); *o; o++)
        found |= g_str_equal ((*o)->name, v);
      if (!found)
        return invalid (error, "controller '%s' must be share or pi", v);
      g_free (c->controller);
      c->controller = g_strdup (v);
      return TRUE;
    }
  if (g_str_equal (key, "actuator"))
    {
      if (!g_str_equal (v, "none") && !wf_actuator_find (v))
        {
          g_autoptr(GString) names = g_string_new ("none");
          for (const WfActuatorOps *const *o = wf_actuator_list (); *o; o++)
            if (!g_str_equal ((*o)->name, "fake"))
              g_string_append_printf (names, ", %s", (*o)->name);
          if (g_str_equal (v, "rwnd"))
            return invalid (error, "actuator=rwnd needs its BPF program, which this build lacks "
                            "(no BPF toolchain at build time; built: %s)", names->str);
          return invalid (error, "actuator '%s' must be one of %s", v, names->str);
        }
      g_free (c->actuator);
      c->actuator = g_strdup (v);
      return TRUE;
    }
  if (g_str_equal (key, "objective"))
    {
      if (g_str_equal (v, "throughput"))
        p->objective = WF_APD_OBJECTIVE_THROUGHPUT;
      else if (g_str_equal (v, "airtime"))
        p->objective = WF_APD_OBJECTIVE_AIRTIME;
      else
        return invalid (error, "objective '%s' must be throughput or airtime", v);
      return TRUE;
    }
  if (g_str_equal (key, "directions"))
    {
      if (g_str_equal (v, "both"))
        p->directions = WF_APD_DIR_BOTH;
      else if (g_str_equal (v, "down"))
        p->directions = WF_APD_DIR_DOWN;
      else if (g_str_equal (v, "up"))
        p->directions = WF_APD_DIR_UP;
      else
        return invalid (error, "directions '%s' must be both, down or up", v);
      return TRUE;
    }
  if (g_str_equal (key, "key"))
    {
      g_free (c->key_file);
      c->key_file = v[0] ? g_strdup (v) : NULL;
      return TRUE;
    }
  if (g_str_equal (key, "insecure-unsigned"))
    return wf_keyfile_parse_bool (key, v, &c->insecure_unsigned, error);
  if (g_str_equal (key, "ack-priority"))
    return wf_keyfile_parse_bool (key, v, &c->ack_priority, error);
  if (g_str_equal (key, "download-demand"))
    {
      int m;

      if (!parse_auto (key, v, &m, error))
        return FALSE;
      c->download_demand = (WfApdDemandProbe) m;
      return TRUE;
    }
  if (g_str_equal (key, "bind"))
    {
      g_autoptr(GInetAddress) a = v[0] ? g_inet_address_new_from_string (v) : NULL;
      if (v[0] && !a)
        return invalid (error, "bind '%s' is not an IPv4 or IPv6 address", v);
      g_free (c->bind);
      c->bind = v[0] ? g_strdup (v) : NULL;
      return TRUE;
    }
  if (g_str_equal (key, "port"))
    {
      if (!parse_range (v, WF_NUMBER_POSITIVE, 1, 65535, &d) || d != floor (d))
        return invalid (error, "port '%s' must be a whole number from 1 to 65535", v);
      c->port = (guint16) d;
      return TRUE;
    }
  if (g_str_equal (key, "carried-reports"))
    {
      int m;

      if (!parse_auto (key, v, &m, error))
        return FALSE;
      c->carried = (WfApdCarriedMode) m;
      return TRUE;
    }
  if (g_str_equal (key, "rwnd-policy"))
    {
      if (!wf_rwnd_policy_parse (v, &c->rwnd_policy))
        return invalid (error, "rwnd-policy '%s' must be " WF_RWND_POLICY_NAMES, v);
      return TRUE;
    }
  if (g_str_equal (key, "rwnd-capacity"))
    {
      if (!parse_range (v, WF_NUMBER_SI | WF_NUMBER_POSITIVE, 100e3, 100e9, &d))
        return invalid (error, "rwnd-capacity '%s' must be a rate in bit/s from 100k to 100G", v);
      c->rwnd_capacity_bps = d;
      return TRUE;
    }
  if (g_str_equal (key, "weights"))
    return parse_weights (c, v, error);
  if (g_str_equal (key, "port-rates"))
    return parse_port_rates (c, v, error);
  if (g_str_equal (key, "target-jain"))
    {
      if (!parse_range (v, WF_NUMBER_POSITIVE, 0.5, 1.0, &d))
        return invalid (error, "target-jain '%s' must be a number from 0.5 to 1", v);
      p->target_jain = d;
      return TRUE;
    }
  if (g_str_equal (key, "floor"))
    {
      WfApdControlParams defaults;

      if (g_str_equal (v, "auto"))
        {
          wf_apd_control_params_init (&defaults);
          p->floor_bps = defaults.floor_bps;
          p->floor_auto = TRUE;
          return TRUE;
        }
      if (!parse_range (v, WF_NUMBER_SI | WF_NUMBER_POSITIVE, 64e3, 10e9, &d))
        return invalid (error, "floor '%s' must be auto or a rate in bit/s from 64k to 10G", v);
      p->floor_bps = d;
      p->floor_auto = FALSE;
      return TRUE;
    }
  if (g_str_equal (key, "idle"))
    {
      if (!parse_range (v, WF_NUMBER_SI | WF_NUMBER_NONNEG, 0, 100e6, &d))
        return invalid (error, "idle '%s' must be a rate in bit/s from 0 to 100M", v);
      p->idle_bps = d;
      return TRUE;
    }
  if (g_str_equal (key, "max-delay"))
    {
      if (!parse_range (v, WF_NUMBER_POSITIVE, 1, 1000, &d))
        return invalid (error, "max-delay '%s' must be milliseconds from 1 to 1000", v);
      p->max_delay_us = (guint32) lround (d * 1000);
      return TRUE;
    }
  if (g_str_equal (key, "tolerance"))
    {
      if (!parse_range (v, WF_NUMBER_POSITIVE, 0.01, 10, &d))
        return invalid (error, "tolerance '%s' must be a fraction from 0.01 to 10", v);
      c->tolerance = d;
      return TRUE;
    }
  if (g_str_equal (key, "report-stale"))
    {
      if (!parse_range (v, WF_NUMBER_POSITIVE, 0.5, 60, &d))
        return invalid (error, "report-stale '%s' must be seconds from 0.5 to 60", v);
      c->report_stale_s = d;
      return TRUE;
    }
  if (g_str_equal (key, "feed-timeout"))
    {
      if (!parse_range (v, WF_NUMBER_POSITIVE, 2, 600, &d))
        return invalid (error, "feed-timeout '%s' must be seconds from 2 to 600", v);
      c->feed_timeout_s = d;
      return TRUE;
    }
  if (g_str_equal (key, "status") || g_str_equal (key, "state"))
    {
      char **dst = g_str_equal (key, "status") ? &c->status_path : &c->state_path;
      if (g_str_equal (key, "state") && (v[0] != '/'))
        return invalid (error, "state '%s' must be an absolute path", v);
      if (v[0] && v[0] != '/')
        return invalid (error, "status '%s' must be an absolute path or empty", v);
      g_free (*dst);
      *dst = g_strdup (v);
      return TRUE;
    }
  if (g_str_equal (key, "textfile-dir"))
    {
      g_free (c->textfile_dir);
      c->textfile_dir = g_str_equal (v, "none") ? g_strdup ("") : g_strdup (v);
      c->textfile_dir_explicit = TRUE;
      return TRUE;
    }
  return invalid (error, "unknown setting '%s'", key);
}

gboolean
wf_apd_config_load (WfApdConfig *c, const char *path, gboolean must_exist, GError **error)
{
  g_autoptr(GKeyFile) kf = NULL;
  g_auto(GStrv) present = NULL;

  if (!wf_keyfile_load_section (path, "apd", keys, must_exist, &kf, error))
    return FALSE;
  if (!kf)
    return TRUE;
  present = g_key_file_get_keys (kf, "apd", NULL, NULL);
  for (char **k = present; k && *k; k++)
    {
      g_autofree char *v = g_key_file_get_value (kf, "apd", *k, NULL);
      g_autoptr(GError) local = NULL;

      if (!wf_apd_config_set (c, *k, v ? v : "", &local))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s: %s", path, local->message);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
wf_apd_config_check (WfApdConfig *c, GError **error)
{
  if (!c->interface)
    return invalid (error, "no interface: set interface= in apd.conf or --interface");
  if (c->port_rates->len > 0 && c->source != WF_APD_SOURCE_BRIDGE_PORTS)
    return invalid (error, "port-rates applies to stations-from=bridge-ports only "
                    "(nl80211 gives a real AP's rates)");
  /* rwnd's keys: never ignored. */
  if ((c->rwnd_policy != WF_RWND_POLICY_STATION || c->rwnd_capacity_bps > 0) &&
      !g_str_equal (c->actuator, "rwnd"))
    return invalid (error, "rwnd-policy and rwnd-capacity apply to actuator=rwnd only "
                    "(actuator is %s)", c->actuator);
  if (c->rwnd_policy != WF_RWND_POLICY_STATION && !(c->rwnd_capacity_bps > 0))
    return invalid (error, "rwnd-policy=%s needs rwnd-capacity= (the capacity C the TCP flows "
                    "share, in bit/s, e.g. 19M)", wf_rwnd_policy_name (c->rwnd_policy));
  if (c->rwnd_policy == WF_RWND_POLICY_STATION && c->rwnd_capacity_bps > 0)
    return invalid (error, "rwnd-capacity applies to rwnd-policy=equal or rtt-fair "
                    "(rwnd-policy=station follows the controller's rates)");
  if (!g_str_equal (c->actuator, "none"))
    {
      const WfActuatorOps *ops = wf_actuator_find (c->actuator);
      g_autoptr(GError) local = NULL;

      c->control.knob = ops->knob;
      WfApdController *ctl = wf_apd_controller_new (c->controller, &c->control, &local);
      if (!ctl)
        return invalid (error, "%s (actuator %s)", local->message, c->actuator);
      wf_apd_controller_free (ctl);
    }
  else if (g_str_equal (c->controller, "pi"))
    c->control.knob = WF_ACTUATOR_KNOB_DELAY;
  return TRUE;
}

double
wf_apd_config_port_rate (const WfApdConfig *c, const char *port)
{
  for (guint i = 0; i < c->port_rates->len; i++)
    if (g_str_equal (g_array_index (c->port_rates, WfApdPortRate, i).port, port))
      return g_array_index (c->port_rates, WfApdPortRate, i).bps;
  return 0;
}

double
wf_apd_config_weight (const WfApdConfig *c, const guint8 mac[6])
{
  for (guint i = 0; i < c->weights->len; i++)
    {
      const WfApdWeight *w = &g_array_index (c->weights, WfApdWeight, i);
      if (memcmp (w->mac, mac, 6) == 0)
        return w->weight;
    }
  return 1.0;
}
