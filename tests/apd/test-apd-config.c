/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apd.conf: defaults, every key, bad values named, combinations. */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>
#include <string.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-config.h"
#include "wlanfair-error.h"

static char *
write_conf (const char *text)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("apd-XXXXXX.conf", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_defaults (void)
{
  WfApdConfig c;
  g_autoptr(GError) error = NULL;

  wf_apd_config_init (&c);
  g_assert_cmpstr (c.controller, ==, "share");
  g_assert_cmpstr (c.actuator, ==, "rate");
  g_assert_cmpint (c.port, ==, 7455);
  g_assert_null (c.key_file);
  g_assert_false (c.insecure_unsigned);
  g_assert_false (c.ack_priority);
  g_assert_cmpint (c.download_demand, ==, WF_APD_DEMAND_AUTO);
  g_assert_cmpfloat (c.control.target_jain, ==, 0.97);
  g_assert_true (c.control.floor_auto);
  g_assert_cmpfloat (c.control.floor_bps, ==, 1e6);
  /* No interface: refused with the fix. */
  g_assert_false (wf_apd_config_check (&c, &error));
  g_assert_nonnull (strstr (error->message, "interface="));
  wf_apd_config_clear (&c);
}

static void
test_file (void)
{
  g_autofree char *path = write_conf (
      "[apd]\n"
      "interface=wlan0\n"
      "controller=pi\n"
      "actuator=delay\n"
      "objective=airtime\n"
      "directions=up\n"
      "key=/etc/wlanfair/apd.key\n"
      "weights=02:00:00:00:00:01=2, 02:00:00:00:00:02=0.5\n"
      "floor=2M\n"
      "max-delay=150\n"
      "port=7456\n"
      "bind=::\n"
      "ack-priority=yes\n"
      "download-demand=no\n"
      "textfile-dir=none\n");
  WfApdConfig c;
  g_autoptr(GError) error = NULL;
  guint8 mac[6] = { 2, 0, 0, 0, 0, 2 }, other[6] = { 2, 0, 0, 0, 0, 3 };

  wf_apd_config_init (&c);
  g_assert_true (wf_apd_config_load (&c, path, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (wf_apd_config_check (&c, &error));
  g_assert_cmpstr (c.interface, ==, "wlan0");
  g_assert_cmpstr (c.controller, ==, "pi");
  g_assert_cmpint (c.control.knob, ==, WF_ACTUATOR_KNOB_DELAY);
  g_assert_cmpint (c.control.objective, ==, WF_APD_OBJECTIVE_AIRTIME);
  g_assert_cmpint (c.control.directions, ==, WF_APD_DIR_UP);
  g_assert_cmpfloat (c.control.floor_bps, ==, 2e6);
  g_assert_false (c.control.floor_auto);
  g_assert_cmpuint (c.control.max_delay_us, ==, 150000);
  g_assert_cmpint (c.port, ==, 7456);
  g_assert_cmpstr (c.textfile_dir, ==, "");
  g_assert_true (c.ack_priority);
  g_assert_cmpint (c.download_demand, ==, WF_APD_DEMAND_NO);
  g_assert_false (wf_apd_config_demand_probe (&c, TRUE));
  g_assert_true (wf_apd_config_set (&c, "download-demand", "yes", &error));
  g_assert_cmpint (c.download_demand, ==, WF_APD_DEMAND_YES);
  g_assert_true (wf_apd_config_demand_probe (&c, FALSE));
  g_assert_true (wf_apd_config_set (&c, "download-demand", "auto", &error));
  g_assert_cmpint (c.download_demand, ==, WF_APD_DEMAND_AUTO);
  /* auto: only where the daemon may act (observe mode changes nothing). */
  g_assert_true (wf_apd_config_demand_probe (&c, TRUE));
  g_assert_false (wf_apd_config_demand_probe (&c, FALSE));
  g_assert_true (wf_apd_config_may_act (&c, TRUE));
  g_assert_false (wf_apd_config_may_act (&c, FALSE));
  g_assert_true (wf_apd_config_set (&c, "actuator", "none", &error));
  g_assert_false (wf_apd_config_may_act (&c, TRUE));
  g_assert_cmpfloat (wf_apd_config_weight (&c, mac), ==, 0.5);
  g_assert_cmpfloat (wf_apd_config_weight (&c, other), ==, 1.0);
  wf_apd_config_clear (&c);
  g_unlink (path);
}

/* floor=auto (the default) and a fixed floor switch back and forth. */
static void
test_floor (void)
{
  WfApdConfig c;
  g_autoptr(GError) error = NULL;

  wf_apd_config_init (&c);
  g_assert_true (wf_apd_config_set (&c, "floor", "300k", &error));
  g_assert_no_error (error);
  g_assert_false (c.control.floor_auto);
  g_assert_cmpfloat (c.control.floor_bps, ==, 300e3);
  g_assert_true (wf_apd_config_set (&c, "floor", "auto", &error));
  g_assert_no_error (error);
  g_assert_true (c.control.floor_auto);
  g_assert_cmpfloat (c.control.floor_bps, ==, 1e6);
  g_assert_false (wf_apd_config_set (&c, "floor", "automatic", &error));
  g_assert_nonnull (strstr (error->message, "auto or a rate"));
  wf_apd_config_clear (&c);
}

static void
test_bad_values (void)
{
  static const struct { const char *key, *value, *says; } bad[] = {
    { "interface", "", "interface" },
    { "interface", "a-very-long-interface-name", "interface" },
    { "stations-from", "hostapd", "nl80211 or bridge-ports" },
    { "controller", "pid", "share or pi" },
    { "actuator", "netem", "none, rate" },
    { "objective", "fair", "throughput or airtime" },
    { "directions", "sideways", "both, down or up" },
    { "insecure-unsigned", "maybe", "yes or no" },
    { "carried-reports", "sometimes", "auto, yes or no" },
    { "ack-priority", "voice", "yes or no" },
    { "download-demand", "sometimes", "download-demand 'sometimes' must be auto, yes or no" },
    { "bind", "wlan0", "IPv4 or IPv6" },
    { "port", "0", "1 to 65535" },
    { "port", "70000", "1 to 65535" },
    { "weights", "02:00:00:00:00:01", "MAC=WEIGHT" },
    { "weights", "02:00:00:00:0:01=2", "MAC address" },
    { "weights", "02:00:00:00:00:01=0", "0.01 to 100" },
    { "weights", "02:00:00:00:00:01=1,02:00:00:00:00:01=2", "twice" },
    { "port-rates", "p1", "PORT=RATE" },
    { "port-rates", "=30M", "PORT=RATE" },
    { "port-rates", "a-very-long-port-name=30M", "PORT=RATE" },
    { "port-rates", "p1=fast", "1k to 100G" },
    { "port-rates", "p1=30M,p1=6M", "twice" },
    { "target-jain", "1.5", "0.5 to 1" },
    { "floor", "1k", "64k to 10G" },
    { "max-delay", "-3", "1 to 1000" },
    { "feed-timeout", "1", "2 to 600" },
    { "state", "relative", "absolute" },
    { "rwnd-policy", "fair", "rwnd-policy 'fair' must be station, equal or rtt-fair" },
    { "rwnd-policy", "", "station, equal or rtt-fair" },
    { "rwnd-capacity", "fast", "rwnd-capacity 'fast' must be a rate in bit/s from 100k to 100G" },
    { "rwnd-capacity", "10k", "100k to 100G" },
    { "colour", "blue", "unknown setting" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      WfApdConfig c;
      g_autoptr(GError) error = NULL;

      wf_apd_config_init (&c);
      g_assert_false (wf_apd_config_set (&c, bad[i].key, bad[i].value, &error));
      g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
      if (!strstr (error->message, bad[i].says))
        g_error ("%s=%s: '%s' does not say '%s'", bad[i].key, bad[i].value,
                 error->message, bad[i].says);
      wf_apd_config_clear (&c);
    }
}

/* An emulation's PHY rates per bridge port; nowhere else. */
static void
test_port_rates (void)
{
  WfApdConfig c;
  g_autoptr(GError) error = NULL;

  wf_apd_config_init (&c);
  g_assert_true (wf_apd_config_set (&c, "interface", "br0", NULL));
  g_assert_true (wf_apd_config_set (&c, "port-rates", "p1=30M, p2=7.5M", &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (wf_apd_config_port_rate (&c, "p2"), ==, 7.5e6);
  g_assert_cmpfloat (wf_apd_config_port_rate (&c, "p3"), ==, 0);
  /* A real AP's rates come from nl80211. */
  g_assert_false (wf_apd_config_check (&c, &error));
  g_assert_nonnull (strstr (error->message, "bridge-ports"));
  g_clear_error (&error);
  g_assert_true (wf_apd_config_set (&c, "stations-from", "bridge-ports", NULL));
  g_assert_true (wf_apd_config_check (&c, &error));
  wf_apd_config_clear (&c);
}

/* The file's errors name the file; unknown keys are not ignored. */
static void
test_file_errors (void)
{
  g_autofree char *path = write_conf ("[apd]\ninterface=wlan0\nfloor=fast\n");
  g_autofree char *path2 = write_conf ("[apd]\ninterface=wlan0\nkye=/x\n");
  WfApdConfig c;
  g_autoptr(GError) error = NULL;

  wf_apd_config_init (&c);
  g_assert_false (wf_apd_config_load (&c, path, TRUE, &error));
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "floor 'fast'"));
  g_clear_error (&error);
  g_assert_false (wf_apd_config_load (&c, path2, TRUE, &error));
  g_assert_nonnull (strstr (error->message, "kye"));
  wf_apd_config_clear (&c);
  g_unlink (path);
  g_unlink (path2);
}

/* What GKeyFile took silently, interface names (interface, port-rates),
 * and a file without end: each names the file. */
static void
test_file_refused (void)
{
  static const struct {
    const char *text, *message; /* after "PATH" */
  } cases[] = {
    { "[apd]\ninterface=wl\xff" "an0\n", ":2: [apd] interface: the value is not valid UTF-8" },
    { "[apd]\ninterface=wlan0\ninterface=wlan1\n",
      ":3: [apd] interface: duplicate key (set it once)" },
    { "[apd]\ninterface[de]=wlan0\n", ":2: [apd] interface[de]: localized keys are not supported" },
    { "[apd]\n[tcp]\ninterface=wlan0\n",
      ":3: key 'interface' in unknown section [tcp] (only [apd] is read)" },
    { "[apd]\ninterface=wlan:0\n",
      ": interface: interface name 'wlan:0' holds a character Linux or wlanfair does not "
      "allow (/, :, whitespace, control or non-ASCII)" },
    { "[apd]\ninterface=..\n", ": interface: interface name '..' is not a name" },
    { "[apd]\ninterface=br0\nport-rates=a/b=10M\n",
      ": port-rates: interface name 'a/b' holds a character Linux or wlanfair does not "
      "allow (/, :, whitespace, control or non-ASCII)" },
  };
  WfApdConfig c;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_conf (cases[i].text);
      g_autofree char *want = g_strconcat (path, cases[i].message, NULL);
      g_autoptr(GError) error = NULL;

      wf_apd_config_init (&c);
      g_assert_false (wf_apd_config_load (&c, path, TRUE, &error));
      g_assert_cmpstr (error->message, ==, want);
      wf_apd_config_clear (&c);
      g_unlink (path);
    }
  {
    g_autofree char *path = write_conf ("");
    g_autoptr(GError) error = NULL;

    g_assert_cmpint (truncate (path, (off_t) 1 << 30), ==, 0);
    wf_apd_config_init (&c);
    g_assert_false (wf_apd_config_load (&c, path, FALSE, &error));
    g_assert_true (g_str_has_prefix (error->message, path));
    g_assert_nonnull (strstr (error->message, "(the limit for a configuration file)"));
    wf_apd_config_clear (&c);
    g_unlink (path);
  }
}

/* pi drives delay only: with the rate actuator the check says so. */
static void
test_combination (void)
{
  WfApdConfig c;
  g_autoptr(GError) error = NULL;

  wf_apd_config_init (&c);
  g_assert_true (wf_apd_config_set (&c, "interface", "wlan0", NULL));
  g_assert_true (wf_apd_config_set (&c, "controller", "pi", NULL));
  g_assert_false (wf_apd_config_check (&c, &error));
  g_assert_nonnull (strstr (error->message, "delay"));
  g_assert_nonnull (strstr (error->message, "actuator rate"));
  wf_apd_config_clear (&c);
}

/* rwnd-policy= and rwnd-capacity=: equal and rtt-fair need C; neither
 * key is ignored where it does not apply. */
static void
test_rwnd_keys (void)
{
  WfApdConfig c;
  g_autoptr(GError) error = NULL;

  wf_apd_config_init (&c);
  g_assert_cmpint (c.rwnd_policy, ==, WF_RWND_POLICY_STATION);
  g_assert_true (wf_apd_config_set (&c, "interface", "wlan0", NULL));
  g_assert_true (wf_apd_config_set (&c, "rwnd-policy", "rtt-fair", &error));
  g_assert_no_error (error);
  g_assert_cmpint (c.rwnd_policy, ==, WF_RWND_POLICY_RTT_FAIR);
  /* actuator=rate: refused, not ignored. */
  g_assert_false (wf_apd_config_check (&c, &error));
  g_assert_nonnull (strstr (error->message, "actuator=rwnd only"));
  g_clear_error (&error);
  if (!wf_actuator_find ("rwnd"))
    {
      wf_apd_config_clear (&c);
      g_test_skip ("built without rwnd");
      return;
    }
  g_assert_true (wf_apd_config_set (&c, "actuator", "rwnd", NULL));
  g_assert_false (wf_apd_config_check (&c, &error));
  g_assert_nonnull (strstr (error->message, "rwnd-policy=rtt-fair needs rwnd-capacity="));
  g_clear_error (&error);
  g_assert_true (wf_apd_config_set (&c, "rwnd-capacity", "19M", &error));
  g_assert_cmpfloat (c.rwnd_capacity_bps, ==, 19e6);
  g_assert_true (wf_apd_config_check (&c, &error));
  g_assert_no_error (error);
  g_assert_true (wf_apd_config_set (&c, "rwnd-policy", "equal", NULL));
  g_assert_true (wf_apd_config_check (&c, &error));
  /* station follows the controller: a capacity there is a mistake. */
  g_assert_true (wf_apd_config_set (&c, "rwnd-policy", "station", NULL));
  g_assert_false (wf_apd_config_check (&c, &error));
  g_assert_nonnull (strstr (error->message, "rwnd-capacity applies to"));
  wf_apd_config_clear (&c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/config/defaults", test_defaults);
  g_test_add_func ("/apd/config/file-refused", test_file_refused);
  g_test_add_func ("/apd/config/file", test_file);
  g_test_add_func ("/apd/config/port-rates", test_port_rates);
  g_test_add_func ("/apd/config/bad-values", test_bad_values);
  g_test_add_func ("/apd/config/floor", test_floor);
  g_test_add_func ("/apd/config/file-errors", test_file_errors);
  g_test_add_func ("/apd/config/combination", test_combination);
  g_test_add_func ("/apd/config/rwnd-keys", test_rwnd_keys);
  return g_test_run ();
}
