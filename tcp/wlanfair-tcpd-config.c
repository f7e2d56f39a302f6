/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-tcpd-config.h"

#include <math.h>

#include "wlanfair-ackloss-core.h"
#include "wlanfair-error.h"
#include "wlanfair-ifname.h"
#include "wlanfair-keyfile.h"
#include "wlanfair-number.h"
#include "wlanfair-tcp-loader.h"

const char * const wf_tcpd_scope_names[3] = { "wifi", "system", "opt-in" };
const char * const wf_tcpd_reduction_names[3] = { "halve", "drain", "auto" };
/* The loader hands the value to the BPF programs as it is. */
G_STATIC_ASSERT ((int) WF_TCPD_REDUCTION_HALVE == WF_ACKLOSS_REDUCE_HALVE &&
                 (int) WF_TCPD_REDUCTION_DRAIN == WF_ACKLOSS_REDUCE_DRAIN &&
                 (int) WF_TCPD_REDUCTION_AUTO == WF_ACKLOSS_REDUCE_AUTO);

static const char * const keys[] = {
  "scope", "cc", "thresh", "beta", "confirm", "confirm-rate", "min-queue-delay", "reduction",
  "interfaces", NULL
};

void
wf_tcpd_config_init (WfTcpdConfig *c)
{
  *c = (WfTcpdConfig) {
    .scope = WF_TCPD_SCOPE_WIFI,
    .cc = WF_CC_CUBIC,
    .thresh = WF_ACKLOSS_THRESH_DEFAULT,
    .beta = WF_ACKLOSS_BETA_DEFAULT / (double) WF_ACKLOSS_ONE,
    .confirm = WF_ACKLOSS_CONFIRM_DEFAULT,
    .confirm_rate = WF_ACKLOSS_RATE_DEFAULT_PERMILLE / 10.0,
    .min_queue_delay = WF_ACKLOSS_QDELAY_DEFAULT_US / 1000.0,
    .reduction = (WfTcpdReduction) WF_ACKLOSS_REDUCTION_DEFAULT,
  };
}

void
wf_tcpd_config_clear (WfTcpdConfig *c)
{
  g_clear_pointer (&c->interfaces, g_strfreev);
  g_clear_pointer (&c->cgroup, g_free);
  g_clear_pointer (&c->state_dir, g_free);
  g_clear_pointer (&c->pin_dir, g_free);
}

/* text as one of names (n of them) -> its index, for the option or key
 * `what`; choices lists them for the error. */
static gboolean
parse_name (const char *what, const char * const *names, guint n, const char *choices,
            const char *text, guint *out, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (text, names[i]))
      {
        *out = i;
        return TRUE;
      }
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s '%s' is not one of %s", what, text, choices);
  return FALSE;
}

/* A whole number in [min, max], for the option or key `name`. */
static gboolean
parse_count (const char *name, const char *text, guint min, guint max,
             guint *out, GError **error)
{
  double v;

  if (!wf_number_parse (text, WF_NUMBER_NONNEG, &v, error))
    {
      g_prefix_error (error, "%s: ", name);
      return FALSE;
    }
  if (v != floor (v) || v < min || v > max)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "%s '%s' must be a whole number from %u to %u", name, text, min, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_thresh (const char *text, guint *out, GError **error)
{
  return parse_count ("thresh", text, 1, 1000, out, error);
}

static gboolean
parse_confirm (const char *text, guint *out, GError **error)
{
  return parse_count ("confirm", text, 0, 100, out, error);
}

/* A non-negative number up to max; `range` completes "must be ...". */
static gboolean
parse_bounded (const char *name, const char *text, double max, const char *range,
               double *out, GError **error)
{
  double v;

  if (!wf_number_parse (text, WF_NUMBER_NONNEG, &v, error))
    {
      g_prefix_error (error, "%s: ", name);
      return FALSE;
    }
  if (v > max)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "%s '%s' must be %s", name, text, range);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_confirm_rate (const char *text, double *out, GError **error)
{
  return parse_bounded ("confirm-rate", text, 100, "a percentage from 0 to 100", out, error);
}

static gboolean
parse_min_queue_delay (const char *text, double *out, GError **error)
{
  return parse_bounded ("min-queue-delay", text, 1000, "from 0 to 1000 ms", out, error);
}

static gboolean
parse_beta (const char *text, double *out, GError **error)
{
  double v;

  if (!wf_number_parse (text, WF_NUMBER_POSITIVE, &v, error))
    {
      g_prefix_error (error, "beta: ");
      return FALSE;
    }
  if (v > 1 || v * WF_ACKLOSS_ONE < WF_ACKLOSS_BETA_MIN - 0.5)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_INVALID,
                   "beta '%s' must be in [2/1024, 1]", text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
wf_tcpd_config_set (WfTcpdConfig *c, const char *key, const char *value, GError **error)
{
  guint i;

  if (g_str_equal (key, "scope"))
    {
      if (!parse_name ("scope", wf_tcpd_scope_names, G_N_ELEMENTS (wf_tcpd_scope_names),
                       "wifi, system, opt-in", value, &i, error))
        return FALSE;
      c->scope = i;
      return TRUE;
    }
  if (g_str_equal (key, "cc"))
    return parse_name ("cc", wf_tcp_cc_names, WF_CC_COUNT, "ackloss_cubic, ackloss_reno",
                       value, &c->cc, error);
  if (g_str_equal (key, "thresh"))
    return parse_thresh (value, &c->thresh, error);
  if (g_str_equal (key, "beta"))
    return parse_beta (value, &c->beta, error);
  if (g_str_equal (key, "confirm"))
    return parse_confirm (value, &c->confirm, error);
  if (g_str_equal (key, "confirm-rate"))
    return parse_confirm_rate (value, &c->confirm_rate, error);
  if (g_str_equal (key, "min-queue-delay"))
    return parse_min_queue_delay (value, &c->min_queue_delay, error);
  if (g_str_equal (key, "reduction"))
    {
      if (!parse_name ("reduction", wf_tcpd_reduction_names,
                       G_N_ELEMENTS (wf_tcpd_reduction_names), "halve, drain, auto", value,
                       &i, error))
        return FALSE;
      c->reduction = i;
      return TRUE;
    }
  if (g_str_equal (key, "interfaces"))
    {
      g_auto(GStrv) parts = g_strsplit_set (value, ",; ", -1);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

      for (char **p = parts; *p; p++)
        if (**p)
          {
            if (!wf_ifname_validate ("interfaces", *p, error))
              return FALSE;
            g_ptr_array_add (names, g_strdup (*p));
          }
      g_ptr_array_add (names, NULL);
      g_strfreev (c->interfaces);
      c->interfaces = (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
      return TRUE;
    }
  g_set_error (error, WF_ERROR, WF_ERROR_INVALID, "unknown key '%s'", key);
  return FALSE;
}

gboolean
wf_tcpd_config_load (WfTcpdConfig *c, const char *path, gboolean must_exist, GError **error)
{
  g_autoptr(GKeyFile) kf = NULL;
  g_auto(GStrv) names = NULL;

  if (!wf_keyfile_load_section (path, "tcp", keys, must_exist, &kf, error))
    return FALSE;
  if (kf == NULL || !(names = g_key_file_get_keys (kf, "tcp", NULL, NULL)))
    return TRUE;
  for (char **k = names; *k; k++)
    {
      g_autoptr(GError) local = NULL;
      g_autofree char *v = g_key_file_get_string (kf, "tcp", *k, &local);

      if (v)
        g_strstrip (v);
      if (!v || !wf_tcpd_config_set (c, *k, v, &local))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
          return FALSE;
        }
    }
  return TRUE;
}
