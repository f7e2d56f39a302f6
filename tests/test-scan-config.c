/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scan.conf with its drop-ins, the per-profile key table and the value
 * validator shared with `wlanfairctl scan set`. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "wlanfair-error.h"
#include "wlanfair-scan-config.h"

typedef struct {
  char *dir;
  char *conf;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("wfs-config-XXXXXX", &error);
  g_assert_no_error (error);
  f->conf = g_build_filename (f->dir, "scan.conf", NULL);
}

static void
rm_rf (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        rm_rf (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->conf);
}

static void
write_file (const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

static void
write_dropin (Fixture *f, const char *name, const char *text)
{
  g_autofree char *d = g_strconcat (f->conf, ".d", NULL);
  g_autofree char *p = g_build_filename (d, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (d, 0755), ==, 0);
  write_file (p, text);
}

static void
test_defaults (void)
{
  WfScanConfig c;

  wf_scan_config_init_defaults (&c);
  g_assert_cmpint (c.mode, ==, WF_SCAN_MODE_AUTO);
  g_assert_cmpint (c.policy, ==, WF_SCAN_POLICY_OBSERVE);
  g_assert_cmpfloat (c.start_pps, ==, 20);
  g_assert_cmpfloat (c.start_window_s, ==, 0.5);
  g_assert_cmpfloat (c.idle_pps, ==, 10);
  g_assert_cmpfloat (c.idle_holdoff_s, ==, 10);
  g_assert_true (c.roam_floor_auto);
  g_assert_cmpint (c.roam_floor_margin_db, ==, 3);
  g_assert_cmpuint (c.sample_interval_ms, ==, 250);
  g_assert_null (c.textfile_dir);
}

static void
test_missing_file (Fixture *f, gconstpointer data)
{
  WfScanConfig c;
  g_autoptr(GError) error = NULL;

  wf_scan_config_init_defaults (&c);
  /* The packaged default path may be absent: defaults. */
  g_assert_true (wf_scan_config_load (&c, f->conf, FALSE, &error));
  g_assert_no_error (error);
  /* An explicit --config must exist. */
  g_assert_false (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_nonnull (strstr (error->message, "scan.conf"));
}

static void
test_file_and_dropins (Fixture *f, gconstpointer data)
{
  WfScanConfig c;
  g_autoptr(GError) error = NULL;

  write_file (f->conf, "# comment\n[scan]\nmode=always\nstart-pps=30\nidle-holdoff=5\n");
  /* Lexical order: 10- before 20-; later wins key by key. */
  write_dropin (f, "20-late.conf", "[scan]\nidle-holdoff=7.5\n");
  write_dropin (f, "10-early.conf", "[scan]\nidle-holdoff=99\npolicy=strict\nroam-floor=-75\n");
  write_dropin (f, "ignored.txt", "[scan]\nmode=bogus\n");
  wf_scan_config_init_defaults (&c);
  g_assert_true (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (c.mode, ==, WF_SCAN_MODE_ALWAYS);
  g_assert_cmpint (c.policy, ==, WF_SCAN_POLICY_STRICT);
  g_assert_cmpfloat (c.start_pps, ==, 30);
  g_assert_cmpfloat (c.idle_holdoff_s, ==, 7.5);
  g_assert_false (c.roam_floor_auto);
  g_assert_cmpint (c.roam_floor_dbm, ==, -75);
  g_assert_cmpfloat (c.idle_pps, ==, 10);
  g_assert_null (c.textfile_dir);
}

/* The number of drop-ins is bounded too: 256 load, 257 are an error
 * naming the directory. */
static void
test_dropin_count (Fixture *f, gconstpointer data)
{
  g_autofree char *d = g_strconcat (f->conf, ".d", NULL);
  WfScanConfig c;
  g_autoptr(GError) error = NULL;

  write_file (f->conf, "[scan]\n");
  for (guint i = 0; i < WF_SCAN_CONFIG_DROPINS_MAX; i++)
    {
      g_autofree char *name = g_strdup_printf ("%03u.conf", i);

      write_dropin (f, name, "[scan]\nidle-holdoff=5\n");
    }
  wf_scan_config_init_defaults (&c);
  g_assert_true (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_no_error (error);
  write_dropin (f, "999.conf", "[scan]\n");
  g_assert_false (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_nonnull (strstr (error->message, d));
  g_assert_nonnull (strstr (error->message, "more than 256 drop-ins"));
}

/* Global only; "none" turns the textfile off; a later drop-in wins. */
static void
test_textfile_dir (Fixture *f, gconstpointer data)
{
  WfScanConfig c, p;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) user = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  write_file (f->conf, "[scan]\ntextfile-dir=/srv/metrics\n");
  wf_scan_config_init_defaults (&c);
  g_assert_true (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (c.textfile_dir, ==, "/srv/metrics");
  write_dropin (f, "10-off.conf", "[scan]\ntextfile-dir=none\n");
  wf_scan_config_init_defaults (&c);
  g_assert_true (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_cmpstr (c.textfile_dir, ==, "");
  /* A profile cannot move it. */
  g_hash_table_insert (user, "wlanfair.scan.textfile-dir", "/tmp");
  wf_scan_config_apply_profile (&c, user, &p, warnings);
  g_assert_cmpstr (p.textfile_dir, ==, "");
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_false (wf_scan_config_check_profile_value ("textfile-dir", "/tmp", &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
}

static void
expect_bad (Fixture *f, const char *text, const char *must_mention)
{
  WfScanConfig c;
  g_autoptr(GError) error = NULL;

  write_file (f->conf, text);
  wf_scan_config_init_defaults (&c);
  g_assert_false (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  if (!strstr (error->message, must_mention))
    g_error ("'%s' does not mention '%s'", error->message, must_mention);
}

static void
test_bad_values (Fixture *f, gconstpointer data)
{
  expect_bad (f, "[scan]\nmode=sometimes\n", "mode");
  expect_bad (f, "[scan]\nmode=sometimes\n", "expected auto, off or always");
  expect_bad (f, "[scan]\npolicy=lenient\n", "policy");
  expect_bad (f, "[scan]\nstart-pps=0\n", "start-pps");
  expect_bad (f, "[scan]\nstart-pps=abc\n", "start-pps");
  expect_bad (f, "[scan]\nidle-holdoff=-1\n", "idle-holdoff");
  expect_bad (f, "[scan]\nroam-floor=-10\n", "roam-floor");
  expect_bad (f, "[scan]\nroam-floor=-70.5\n", "roam-floor");
  expect_bad (f, "[scan]\nsample-interval=10\n", "sample-interval");
  expect_bad (f, "[scan]\nbogus-key=1\n", "bogus-key");
  expect_bad (f, "[other]\nmode=auto\n", "[other]");
  expect_bad (f, "[scan]\nstart-pps=5\nidle-pps=8\n", "idle-pps");
  /* The file is named too. */
  expect_bad (f, "[scan]\nmode=x\n", "scan.conf");
}

/* What GKeyFile took silently, in scan.conf and in a drop-in alike; and
 * a drop-in without end. */
static void
test_raw_text (Fixture *f, gconstpointer data)
{
  static const struct {
    const char *text, *message; /* after "PATH" */
  } cases[] = {
    { "[scan]\nmode=au\xfeto\n", ":2: [scan] mode: the value is not valid UTF-8" },
    { "[scan]\nmode=off\nmode=auto\n", ":3: [scan] mode: duplicate key (set it once)" },
    { "[scan]\nmode[fr]=off\n", ":2: [scan] mode[fr]: localized keys are not supported" },
    { "[scan]\n[tcp]\nmode=off\n", ":3: key 'mode' in unknown section [tcp] (only [scan] is read)" },
  };
  g_autofree char *d = g_strconcat (f->conf, ".d", NULL);
  g_autofree char *dropin = g_build_filename (d, "10-x.conf", NULL);
  WfScanConfig c;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int in_dropin = 0; in_dropin < 2; in_dropin++)
      {
        const char *path = in_dropin ? dropin : f->conf;
        g_autofree char *want = g_strconcat (path, cases[i].message, NULL);
        g_autoptr(GError) error = NULL;

        write_file (f->conf, in_dropin ? "[scan]\n" : cases[i].text);
        if (in_dropin)
          write_dropin (f, "10-x.conf", cases[i].text);
        wf_scan_config_init_defaults (&c);
        g_assert_false (wf_scan_config_load (&c, f->conf, TRUE, &error));
        g_assert_cmpstr (error->message, ==, want);
        g_unlink (dropin);
      }

  /* A 1 GB (sparse) drop-in. */
  {
    g_autoptr(GError) error = NULL;

    write_file (f->conf, "[scan]\n");
    write_dropin (f, "10-x.conf", "");
    g_assert_cmpint (truncate (dropin, (off_t) 1 << 30), ==, 0);
    wf_scan_config_init_defaults (&c);
    g_assert_false (wf_scan_config_load (&c, f->conf, TRUE, &error));
    g_assert_true (g_str_has_prefix (error->message, dropin));
    g_assert_nonnull (strstr (error->message, "(the limit for a configuration file)"));
  }
}

static void
test_bad_dropin (Fixture *f, gconstpointer data)
{
  WfScanConfig c;
  g_autoptr(GError) error = NULL;

  write_file (f->conf, "[scan]\n");
  write_dropin (f, "50-bad.conf", "[scan]\npolicy=never\n");
  wf_scan_config_init_defaults (&c);
  g_assert_false (wf_scan_config_load (&c, f->conf, TRUE, &error));
  g_assert_nonnull (strstr (error->message, "50-bad.conf"));
  g_assert_nonnull (strstr (error->message, "policy"));
}

static void
test_profile_keys (void)
{
  const char * const *keys = wf_scan_config_profile_keys ();

  g_assert_cmpstr (wf_scan_config_profile_key ("mode"), ==, "wlanfair.scan.mode");
  g_assert_cmpstr (wf_scan_config_profile_key ("wlanfair.scan.idle-holdoff"), ==,
                   "wlanfair.scan.idle-holdoff");
  g_assert_null (wf_scan_config_profile_key ("sample-interval"));   /* global only */
  g_assert_null (wf_scan_config_profile_key ("textfile-dir"));
  g_assert_null (wf_scan_config_profile_key ("wlanfair.scan.nope"));
  g_assert_null (wf_scan_config_profile_key ("nope"));
  g_assert_cmpuint (g_strv_length ((char **) keys), ==, 10);
  for (guint i = 0; keys[i]; i++)
    {
      g_assert_true (g_str_has_prefix (keys[i], WF_SCAN_PROFILE_PREFIX));
      g_assert_cmpstr (wf_scan_config_profile_key (keys[i]), ==, keys[i]);
    }
}

static void
test_check_profile_value (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (wf_scan_config_check_profile_value ("mode", "off", NULL));
  g_assert_true (wf_scan_config_check_profile_value ("wlanfair.scan.policy", "strict", NULL));
  g_assert_true (wf_scan_config_check_profile_value ("roam-floor", "auto", NULL));
  g_assert_true (wf_scan_config_check_profile_value ("roam-floor", "-72", NULL));
  g_assert_true (wf_scan_config_check_profile_value ("start-pps", "12.5", NULL));
  g_assert_false (wf_scan_config_check_profile_value ("mode", "bogus", &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "expected auto, off or always"));
  g_clear_error (&error);
  g_assert_false (wf_scan_config_check_profile_value ("idle-holdoff", "soon", &error));
  g_assert_nonnull (strstr (error->message, "idle-holdoff"));
  g_clear_error (&error);
  g_assert_false (wf_scan_config_check_profile_value ("sample-interval", "100", &error));
  g_assert_nonnull (strstr (error->message, "unknown key"));
  g_clear_error (&error);
  g_assert_false (wf_scan_config_check_profile_value ("wlanfair.scan.nope", "1", &error));
  g_assert_nonnull (strstr (error->message, "wlanfair.scan.mode"));   /* lists the known keys */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan/config/defaults", test_defaults);
  g_test_add ("/scan/config/missing-file", Fixture, NULL, fixture_set_up, test_missing_file, fixture_tear_down);
  g_test_add ("/scan/config/file-and-dropins", Fixture, NULL, fixture_set_up, test_file_and_dropins, fixture_tear_down);
  g_test_add ("/scan/config/textfile-dir", Fixture, NULL, fixture_set_up, test_textfile_dir, fixture_tear_down);
  g_test_add ("/scan/config/bad-values", Fixture, NULL, fixture_set_up, test_bad_values, fixture_tear_down);
  g_test_add ("/scan/config/raw-text", Fixture, NULL, fixture_set_up, test_raw_text, fixture_tear_down);
  g_test_add ("/scan/config/bad-dropin", Fixture, NULL, fixture_set_up, test_bad_dropin, fixture_tear_down);
  g_test_add ("/scan/config/dropin-count", Fixture, NULL, fixture_set_up, test_dropin_count, fixture_tear_down);
  g_test_add_func ("/scan/config/profile-keys", test_profile_keys);
  g_test_add_func ("/scan/config/check-profile-value", test_check_profile_value);
  return g_test_run ();
}
