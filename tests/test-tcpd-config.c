/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-tcpd's settings: defaults, each key's checks, the file. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-ackloss-core.h"
#include "wlanfair-error.h"
#include "wlanfair-tcp-shared.h"
#include "wlanfair-tcp-sysctl.h"
#include "wlanfair-tcpd-config.h"

static void
test_defaults (void)
{
  WfTcpdConfig c;

  wf_tcpd_config_init (&c);
  g_assert_cmpint (c.scope, ==, WF_TCPD_SCOPE_WIFI);
  g_assert_cmpuint (c.cc, ==, WF_CC_CUBIC);
  g_assert_cmpuint (c.thresh, ==, WF_ACKLOSS_THRESH_DEFAULT);
  g_assert_cmpfloat (c.beta, ==, 0.125);
  g_assert_cmpfloat (c.confirm_rate, ==, 0.5);
  g_assert_cmpfloat (c.min_queue_delay, ==, 1);
  /* drain, not the published halve: docs/ackloss.md has the sweeps. */
  g_assert_cmpint (c.reduction, ==, WF_TCPD_REDUCTION_DRAIN);
  g_assert_null (c.interfaces);
  wf_tcpd_config_clear (&c);
}

typedef struct {
  const char *key;
  const char *value;
  const char *error; /* NULL: accepted */
} Case;

static void
test_keys (void)
{
  static const Case cases[] = {
    { "scope", "system", NULL },
    { "scope", "opt-in", NULL },
    { "scope", "all", "scope 'all' is not one of wifi, system, opt-in" },
    { "cc", "ackloss_reno", NULL },
    { "cc", "cubic", "cc 'cubic' is not one of ackloss_cubic, ackloss_reno" },
    { "thresh", "1000", NULL },
    { "thresh", "0", "thresh '0' must be a whole number from 1 to 1000" },
    { "thresh", "1.5", "thresh '1.5' must be a whole number from 1 to 1000" },
    { "thresh", "x", "thresh: " },
    { "confirm", "0", NULL },
    { "confirm", "101", "confirm '101' must be a whole number from 0 to 100" },
    { "beta", "1", NULL },
    { "beta", "0.001", "beta '0.001' must be in [2/1024, 1]" },
    { "beta", "0", "beta: " },
    { "confirm-rate", "100", NULL },
    { "confirm-rate", "100.5", "confirm-rate '100.5' must be a percentage from 0 to 100" },
    { "min-queue-delay", "0", NULL },
    { "min-queue-delay", "1001", "min-queue-delay '1001' must be from 0 to 1000 ms" },
    { "min-queue-delay", "-1", "min-queue-delay: " },
    { "reduction", "drain", NULL },
    { "reduction", "halve", NULL },
    { "reduction", "auto", NULL },
    { "reduction", "half", "reduction 'half' is not one of halve, drain, auto" },
    { "interfaces", "wlan0, wlan1", NULL },
    { "colour", "red", "unknown key 'colour'" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *k = &cases[i];
      g_autoptr(GError) error = NULL;
      WfTcpdConfig c;
      gboolean ok;

      wf_tcpd_config_init (&c);
      ok = wf_tcpd_config_set (&c, k->key, k->value, &error);
      g_test_message ("%s=%s: %s", k->key, k->value, error ? error->message : "ok");
      if (k->error == NULL)
        g_assert_no_error (error);
      else
        {
          g_assert_false (ok);
          g_assert_error (error, WF_ERROR, error->code);
          g_assert_true (g_str_has_prefix (error->message, k->error));
        }
      wf_tcpd_config_clear (&c);
    }
}

static void
test_values_stored (void)
{
  WfTcpdConfig c;

  wf_tcpd_config_init (&c);
  g_assert_true (wf_tcpd_config_set (&c, "scope", "opt-in", NULL));
  g_assert_true (wf_tcpd_config_set (&c, "cc", "ackloss_reno", NULL));
  g_assert_true (wf_tcpd_config_set (&c, "thresh", "3", NULL));
  g_assert_true (wf_tcpd_config_set (&c, "beta", "0.25", NULL));
  g_assert_true (wf_tcpd_config_set (&c, "interfaces", "wlan0;wlan1", NULL));
  g_assert_true (wf_tcpd_config_set (&c, "reduction", "halve", NULL));
  g_assert_cmpint (c.scope, ==, WF_TCPD_SCOPE_OPT_IN);
  g_assert_cmpuint (c.cc, ==, WF_CC_RENO);
  g_assert_cmpuint (c.thresh, ==, 3);
  g_assert_cmpfloat (c.beta, ==, 0.25);
  g_assert_cmpstr (c.interfaces[1], ==, "wlan1");
  g_assert_cmpint (c.reduction, ==, WF_TCPD_REDUCTION_HALVE);
  /* A bad value leaves the old one. */
  g_assert_false (wf_tcpd_config_set (&c, "thresh", "0", NULL));
  g_assert_cmpuint (c.thresh, ==, 3);
  wf_tcpd_config_clear (&c);
}

static char *
write_conf (const char *text)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("wf-tcp-XXXXXX.conf", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_file (void)
{
  g_autofree char *good = write_conf ("[tcp]\nscope = system\ncc = ackloss_reno\nthresh = 2\n");
  g_autofree char *bad = write_conf ("[tcp]\nthresh = 2\nbeta = 7\n");
  g_autofree char *unknown = write_conf ("[tcp]\nthreshold = 2\n");
  g_autoptr(GError) error = NULL;
  WfTcpdConfig c;

  wf_tcpd_config_init (&c);
  g_assert_true (wf_tcpd_config_load (&c, good, TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (c.scope, ==, WF_TCPD_SCOPE_SYSTEM);
  g_assert_cmpuint (c.cc, ==, WF_CC_RENO);
  g_assert_cmpuint (c.thresh, ==, 2);
  /* No reduction key: the default, drain. */
  g_assert_cmpint (c.reduction, ==, WF_TCPD_REDUCTION_DRAIN);
  /* An option then overrides the file's key. */
  g_assert_true (wf_tcpd_config_set (&c, "thresh", "4", NULL));
  g_assert_cmpuint (c.thresh, ==, 4);
  wf_tcpd_config_clear (&c);

  wf_tcpd_config_init (&c);
  g_assert_false (wf_tcpd_config_load (&c, bad, TRUE, &error));
  g_assert_true (g_str_has_prefix (error->message, bad));
  g_assert_nonnull (strstr (error->message, "beta '7'"));
  g_clear_error (&error);
  g_assert_false (wf_tcpd_config_load (&c, unknown, TRUE, &error));
  g_assert_nonnull (strstr (error->message, "threshold"));
  g_clear_error (&error);
  /* The default file may be absent; a named one may not. */
  g_assert_true (wf_tcpd_config_load (&c, "/nonexistent/tcp.conf", FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (wf_tcpd_config_load (&c, "/nonexistent/tcp.conf", TRUE, &error));
  g_assert_nonnull (error);
  wf_tcpd_config_clear (&c);
  g_unlink (good);
  g_unlink (bad);
  g_unlink (unknown);
}

/* What GKeyFile took silently (a non-UTF-8 value: dropped with three
 * GLib-CRITICALs), interface names, and a file without end. */
static void
test_file_refused (void)
{
  static const struct {
    const char *text, *message; /* after "PATH" */
  } cases[] = {
    { "[tcp]\ninterfaces=wl\xff" "an0\n", ":2: [tcp] interfaces: the value is not valid UTF-8" },
    { "[tcp]\nthresh=2\nthresh=3\n", ":3: [tcp] thresh: duplicate key (set it once)" },
    { "[tcp]\nthresh[de]=2\n", ":2: [tcp] thresh[de]: localized keys are not supported" },
    { "[tcp]\n[apd]\nthresh=2\n", ":3: key 'thresh' in unknown section [apd] (only [tcp] is read)" },
    { "[tcp]\ninterfaces=wlan0,bad/name\n",
      ": interfaces: interface name 'bad/name' holds a character Linux or wlanfair does not "
      "allow (/, :, whitespace, control or non-ASCII)" },
    { "[tcp]\ninterfaces=wlan0 abcdefghijklmnop\n",
      ": interfaces: interface name 'abcdefghijklmnop' is longer than 15 bytes" },
  };
  WfTcpdConfig c;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_conf (cases[i].text);
      g_autofree char *want = g_strconcat (path, cases[i].message, NULL);
      g_autoptr(GError) error = NULL;

      wf_tcpd_config_init (&c);
      g_assert_false (wf_tcpd_config_load (&c, path, TRUE, &error));
      g_assert_cmpstr (error->message, ==, want);
      wf_tcpd_config_clear (&c);
      g_unlink (path);
    }

  /* A 1 GB (sparse) file and /dev/zero: the limit, at once. */
  {
    g_autofree char *path = write_conf ("");
    g_autoptr(GError) error = NULL;

    g_assert_cmpint (truncate (path, (off_t) 1 << 30), ==, 0);
    wf_tcpd_config_init (&c);
    g_assert_false (wf_tcpd_config_load (&c, path, FALSE, &error));
    g_assert_true (g_str_has_prefix (error->message, path));
    g_assert_nonnull (strstr (error->message, "(the limit for a configuration file)"));
    g_clear_error (&error);
    g_assert_false (wf_tcpd_config_load (&c, "/dev/zero", FALSE, &error));
    g_assert_true (g_str_has_prefix (error->message, "/dev/zero: larger than"));
    wf_tcpd_config_clear (&c);
    g_unlink (path);
  }

  /* The sysctl state file of a crashed daemon: the same bound. */
  {
    g_autoptr(GError) error = NULL;
    static const char * const ours[] = { "ackloss_cubic", NULL };

    g_assert_false (wf_tcp_sysctl_recover ("/dev/zero", ours, &error));
    g_assert_nonnull (error);
    g_assert_cmpstr (error->message, ==, "/dev/zero: larger than 4194304 bytes "
                                         "(the limit for a state file)");
  }

  /* Accepted: the list, its separators and empty parts. */
  {
    g_autofree char *path = write_conf ("[tcp]\ninterfaces = wlan0, wlp2s0;;\n");
    g_autoptr(GError) error = NULL;

    wf_tcpd_config_init (&c);
    g_assert_true (wf_tcpd_config_load (&c, path, TRUE, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (g_strv_length (c.interfaces), ==, 2);
    g_assert_cmpstr (c.interfaces[1], ==, "wlp2s0");
    wf_tcpd_config_clear (&c);
    g_unlink (path);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tcpd-config/file-refused", test_file_refused);
  g_test_add_func ("/tcpd-config/defaults", test_defaults);
  g_test_add_func ("/tcpd-config/keys", test_keys);
  g_test_add_func ("/tcpd-config/values-stored", test_values_stored);
  g_test_add_func ("/tcpd-config/file", test_file);
  return g_test_run ();
}
