/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The test seam (power-profiles-daemon's fake driver): changes nothing in
 * the system, appends one JSON line per call to the file named by
 * $WLANFAIR_APD_FAKE_ACTUATOR, and keeps the record of changes exactly as
 * a real actuator does, so that the order of calls and restore after a
 * crash can be tested without root. $WLANFAIR_APD_FAKE_FAIL, a
 * comma-separated list of operations (start, set, forget, stop, restore),
 * makes those fail after they recorded (and logged) what they would
 * change. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-actuator.h"
#include "wlanfair-error.h"

#define ENV_LOG  "WLANFAIR_APD_FAKE_ACTUATOR"
#define ENV_FAIL "WLANFAIR_APD_FAKE_FAIL"
#define STA_KEY  "sta-"

static gboolean
should_fail (const char *op, const char *ifname, GError **error)
{
  const char *fail = g_getenv (ENV_FAIL);
  g_auto(GStrv) ops = fail ? g_strsplit (fail, ",", -1) : NULL;

  if (!ops || !g_strv_contains ((const char * const *) ops, op))
    return FALSE;
  g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "fake on %s: %s fails (%s)", ifname, op, ENV_FAIL);
  return TRUE;
}

/* One line: {"op": ..., "ifname": ..., "mac": ..., "setting": {...}},
 * written with one write() so that lines never interleave. */
static gboolean
log_call (const char *op, const char *ifname, const char *mac,
          const WfActuatorSetting *s, GError **error)
{
  const char *path = g_getenv (ENV_LOG);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;
  gsize len;
  int fd;
  gssize n;

  if (!path || !*path)
    return TRUE;   /* restore without the test's environment: nothing to log */
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "op");
  json_builder_add_string_value (b, op);
  json_builder_set_member_name (b, "ifname");
  json_builder_add_string_value (b, ifname);
  if (mac)
    {
      json_builder_set_member_name (b, "mac");
      json_builder_add_string_value (b, mac);
    }
  if (s)
    {
      json_builder_set_member_name (b, "setting");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "limited");
      json_builder_add_boolean_value (b, s->limited);
      json_builder_set_member_name (b, "rate_down_bps");
      json_builder_add_double_value (b, s->rate_down_bps);
      json_builder_set_member_name (b, "rate_up_bps");
      json_builder_add_double_value (b, s->rate_up_bps);
      json_builder_set_member_name (b, "delay_us");
      json_builder_add_int_value (b, s->delay_us);
      json_builder_set_member_name (b, "weight");
      json_builder_add_int_value (b, s->weight);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = json_to_string (root, FALSE);
  line = g_strconcat (text, "\n", NULL);
  len = strlen (line);

  fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int err = errno;

      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "fake: %s: %s", path, g_strerror (err));
      return FALSE;
    }
  n = write (fd, line, len);
  if (n != (gssize) len)
    {
      int err = n < 0 ? errno : EIO;

      close (fd);
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "fake: %s: %s", path, g_strerror (err));
      return FALSE;
    }
  close (fd);
  return TRUE;
}

static char *
setting_str (const WfActuatorSetting *s)
{
  return g_strdup_printf ("limited=%d down=%.0f up=%.0f delay=%u weight=%u",
                          s->limited ? 1 : 0, s->rate_down_bps, s->rate_up_bps,
                          s->delay_us, s->weight);
}

static gboolean
fake_probe (WfActuator *a, GError **error)
{
  const char *path = g_getenv (ENV_LOG);

  if (!path || !*path)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                   "fake: $%s is not set (the fake actuator is a test seam)", ENV_LOG);
      return FALSE;
    }
  return log_call ("probe", a->ifname, NULL, NULL, error);
}

static gboolean
fake_start (WfActuator *a, GError **error)
{
  /* What a real one would install on the interface, recorded first. */
  if (!wf_actuator_record (a, "base", "installed", error) ||
      !log_call ("start", a->ifname, NULL, NULL, error))
    return FALSE;
  return !should_fail ("start", a->ifname, error);
}

static gboolean
fake_set (WfActuator *a, const WfApdStation *sta, const WfActuatorSetting *s, GError **error)
{
  g_autofree char *key = g_strconcat (STA_KEY, sta->mac_str, NULL);
  g_autofree char *value = setting_str (s);

  /* "No limit" is what the station had: nothing to keep recorded once
   * applied; the record still comes first. */
  if (!wf_actuator_record (a, key, value, error) ||
      !log_call ("set", a->ifname, sta->mac_str, s, error))
    return FALSE;
  if (should_fail ("set", a->ifname, error))
    return FALSE;
  return s->limited || wf_actuator_record (a, key, NULL, error);
}

static gboolean
fake_forget (WfActuator *a, const guint8 mac[6], GError **error)
{
  char buf[WF_MAC_STR_LEN];
  const char *mac_str = wf_mac_format (mac, buf);
  g_autofree char *key = g_strconcat (STA_KEY, mac_str, NULL);

  if (!log_call ("forget", a->ifname, mac_str, NULL, error) ||
      should_fail ("forget", a->ifname, error))
    return FALSE;
  return wf_actuator_record (a, key, NULL, error);
}

/* Undoes, from the record alone, what start and set did: one line per
 * station, then one for the base. */
static gboolean
undo (const char *op, const char *ifname, WfApdState *state, GError **error)
{
  g_autofree char *group = wf_actuator_group ("fake", ifname);
  g_auto(GStrv) keys = wf_apd_state_keys (state, group);

  for (guint k = 0; keys[k]; k++)
    if (g_str_has_prefix (keys[k], STA_KEY) &&
        !log_call (op, ifname, keys[k] + strlen (STA_KEY), NULL, error))
      return FALSE;
  if (!log_call (op, ifname, NULL, NULL, error))
    return FALSE;
  return !should_fail (op, ifname, error);
}

static gboolean
fake_stop (WfActuator *a, GError **error)
{
  return undo ("stop", a->ifname, a->state, error);
}

static gboolean
fake_restore (const char *ifname, WfApdState *state, GError **error)
{
  return undo ("restore", ifname, state, error);
}

const WfActuatorOps wf_actuator_fake = {
  .name = "fake",
  .summary = "records its calls in $" ENV_LOG " (tests only)",
  .knob = WF_ACTUATOR_KNOB_RATE,
  .directions = WF_APD_DIR_BOTH,
  .probe = fake_probe,
  .start = fake_start,
  .set = fake_set,
  .forget = fake_forget,
  .stop = fake_stop,
  .restore = fake_restore,
};
