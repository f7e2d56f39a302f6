/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actuator wrappers and registry, through the fake actuator: order of
 * calls, the record written before each change, restore without an
 * instance. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-restore.h"
#include "wlanfair-error.h"

typedef struct {
  char       *dir;
  char       *log;     /* the fake's JSON lines */
  char       *path;    /* the state file */
  WfApdState *state;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("wf-actuator-XXXXXX", &error);
  g_assert_no_error (error);
  f->log = g_build_filename (f->dir, "calls.jsonl", NULL);
  f->path = g_build_filename (f->dir, "run", "state", NULL);
  /* Only the default record's directory is ever made (wlanfair-file.h). */
  {
    g_autofree char *parent = g_path_get_dirname (f->path);

    g_assert_cmpint (g_mkdir (parent, 0700), ==, 0);
  }
  f->state = wf_apd_state_open (f->path, &error);
  g_assert_no_error (error);
  g_setenv ("WLANFAIR_APD_FAKE_ACTUATOR", f->log, TRUE);
  g_unsetenv ("WLANFAIR_APD_FAKE_FAIL");
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_autofree char *run = g_path_get_dirname (f->path);

  wf_apd_state_free (f->state);
  g_unlink (f->path);
  g_rmdir (run);
  g_unlink (f->log);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->log);
  g_free (f->dir);
  g_unsetenv ("WLANFAIR_APD_FAKE_ACTUATOR");
  g_unsetenv ("WLANFAIR_APD_FAKE_FAIL");
}

/* The calls logged so far, "op[ mac]" each, and the log emptied. */
static GPtrArray *
take_calls (Fixture *f)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *calls = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (f->log, &text, NULL, NULL))
    return calls;
  lines = g_strsplit (text, "\n", -1);
  for (guint k = 0; lines[k]; k++)
    {
      g_autoptr(JsonParser) p = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonObject *o;

      if (!*lines[k])
        continue;
      g_assert_true (json_parser_load_from_data (p, lines[k], -1, &error));
      o = json_node_get_object (json_parser_get_root (p));
      g_assert_cmpstr (json_object_get_string_member (o, "ifname"), ==, "wlan0");
      g_ptr_array_add (calls, json_object_has_member (o, "mac")
                       ? g_strdup_printf ("%s %s", json_object_get_string_member (o, "op"),
                                          json_object_get_string_member (o, "mac"))
                       : g_strdup (json_object_get_string_member (o, "op")));
    }
  g_unlink (f->log);
  return calls;
}

static void
assert_calls (Fixture *f, const char *const *want)
{
  g_autoptr(GPtrArray) calls = take_calls (f);

  g_ptr_array_add (calls, NULL);
  g_assert_cmpstrv ((const char *const *) calls->pdata, want);
}

/* What the file on disk says (not the memory of f->state). */
static char *
on_disk (Fixture *f, const char *group, const char *key)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdState) st = wf_apd_state_open (f->path, &error);

  g_assert_no_error (error);
  return wf_apd_state_get (st, group, key);
}

static void
station (WfApdStation *sta, guint8 last)
{
  memset (sta, 0, sizeof *sta);
  sta->mac[0] = 0x02;
  sta->mac[5] = last;
  wf_mac_format (sta->mac, sta->mac_str);
}

static void
test_registry (Fixture *f, gconstpointer data)
{
  const WfActuatorOps *const *all = wf_actuator_list ();
  g_autoptr(GError) error = NULL;
  WfActuator *a;
  guint n = 0;

  for (; all[n]; n++)
    {
      g_assert_nonnull (all[n]->probe);
      g_assert_nonnull (all[n]->restore);
      g_assert_true (wf_actuator_find (all[n]->name) == all[n]);
    }
  /* rwnd is built with the BPF toolchain only. */
  g_assert_cmpuint (n, ==, wf_actuator_find ("rwnd") ? 5 : 4);
  if (wf_actuator_find ("rwnd"))
    g_assert_cmpint (wf_actuator_find ("rwnd")->knob, ==, WF_ACTUATOR_KNOB_RATE);
  g_assert_cmpstr (all[0]->name, ==, "rate");
  g_assert_cmpint (wf_actuator_find ("rate")->directions, ==, WF_APD_DIR_BOTH);
  g_assert_cmpint (wf_actuator_find ("delay")->knob, ==, WF_ACTUATOR_KNOB_DELAY);
  g_assert_cmpint (wf_actuator_find ("airtime")->directions, ==, WF_APD_DIR_DOWN);
  g_assert_null (wf_actuator_find ("netem"));
  g_assert_null (wf_actuator_find (NULL));

  a = wf_actuator_new ("netem", "wlan0", f->state, &error);
  g_assert_null (a);
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   wf_actuator_find ("rwnd")
                   ? "unknown actuator 'netem' (known: rate, delay, airtime, rwnd, fake)"
                   : "unknown actuator 'netem' (known: rate, delay, airtime, fake)");
  g_clear_error (&error);
  a = wf_actuator_new ("fake", "an-interface-name-too-long", f->state, &error);
  g_assert_null (a);
  g_assert_error (error, WF_ERROR, WF_ERROR_INVALID);
}

static void
test_probe_needs_env (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfActuator) a = wf_actuator_new ("fake", "wlan0", f->state, &error);

  g_assert_no_error (error);
  g_unsetenv ("WLANFAIR_APD_FAKE_ACTUATOR");
  g_assert_false (wf_actuator_probe (a, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "WLANFAIR_APD_FAKE_ACTUATOR"));
  g_clear_error (&error);
  /* And so no start. */
  g_assert_false (wf_actuator_start (a, &error));
  g_assert_nonnull (strstr (error->message, "before a successful probe"));
  g_assert_false (g_file_test (f->log, G_FILE_TEST_EXISTS));
  g_assert_true (wf_apd_state_is_empty (f->state));
}

static void
test_order (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfActuator) a = wf_actuator_new ("fake", "wlan0", f->state, &error);
  WfActuatorSetting s = { .limited = TRUE, .rate_down_bps = 2e6, .rate_up_bps = 1e6,
                          .weight = 256 };
  WfApdStation s1, s2;
  g_autofree char *rec = NULL;

  station (&s1, 1);
  station (&s2, 2);
  /* Nothing before a successful start. */
  g_assert_false (wf_actuator_set (a, &s1, &s, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "set before a successful start"));
  g_clear_error (&error);
  g_assert_false (wf_actuator_forget (a, s1.mac, &error));
  g_clear_error (&error);
  g_assert_true (wf_actuator_stop (a, &error));   /* not started: nothing to stop */
  g_assert_false (g_file_test (f->log, G_FILE_TEST_EXISTS));

  g_assert_true (wf_actuator_probe (a, &error));
  g_assert_true (wf_actuator_start (a, &error));
  g_assert_no_error (error);
  g_assert_false (wf_actuator_start (a, &error));   /* once */
  g_clear_error (&error);
  rec = on_disk (f, "fake:wlan0", "base");
  g_assert_cmpstr (rec, ==, "installed");

  g_assert_true (wf_actuator_set (a, &s1, &s, &error));
  g_assert_true (wf_actuator_set (a, &s2, &s, &error));
  s.rate_down_bps = 3e6;
  g_assert_true (wf_actuator_set (a, &s1, &s, &error));
  g_assert_no_error (error);
  g_assert_true (wf_actuator_forget (a, s2.mac, &error));
  assert_calls (f, (const char *[]) { "probe", "start", "set 02:00:00:00:00:01",
                                      "set 02:00:00:00:00:02", "set 02:00:00:00:00:01",
                                      "forget 02:00:00:00:00:02", NULL });

  g_assert_true (wf_actuator_stop (a, &error));
  g_assert_no_error (error);
  assert_calls (f, (const char *[]) { "stop 02:00:00:00:00:01", "stop", NULL });
  g_assert_false (a->started);
  /* Everything undone: nothing recorded, no file. */
  g_assert_true (wf_apd_state_is_empty (f->state));
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
  g_assert_false (wf_actuator_set (a, &s1, &s, &error));
}

static void
test_recorded_before_return (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfActuator) a = wf_actuator_new ("fake", "wlan0", f->state, &error);
  WfActuatorSetting s = { .limited = TRUE, .rate_down_bps = 2e6, .weight = 256 };
  WfApdStation s1;
  g_autofree char *rec = NULL;
  g_autofree char *none = NULL;

  station (&s1, 7);
  g_assert_true (wf_actuator_probe (a, &error) && wf_actuator_start (a, &error));
  g_assert_true (wf_actuator_set (a, &s1, &s, &error));
  rec = on_disk (f, "fake:wlan0", "sta-02:00:00:00:00:07");
  g_assert_cmpstr (rec, ==, "limited=1 down=2000000 up=0 delay=0 weight=256");

  /* A set that fails after recording: the record stays (restore will
   * undo whatever it did). */
  g_clear_pointer (&rec, g_free);
  s.rate_down_bps = 1e6;
  g_setenv ("WLANFAIR_APD_FAKE_FAIL", "set", TRUE);
  g_assert_false (wf_actuator_set (a, &s1, &s, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_clear_error (&error);
  rec = on_disk (f, "fake:wlan0", "sta-02:00:00:00:00:07");
  g_assert_cmpstr (rec, ==, "limited=1 down=1000000 up=0 delay=0 weight=256");
  g_unsetenv ("WLANFAIR_APD_FAKE_FAIL");

  /* "No limit": what the station had; nothing left to record. */
  s.limited = FALSE;
  g_assert_true (wf_actuator_set (a, &s1, &s, &error));
  none = on_disk (f, "fake:wlan0", "sta-02:00:00:00:00:07");
  g_assert_null (none);
  g_assert_true (wf_actuator_stop (a, &error));
}

static void
test_failed_start_undone (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfActuator) a = wf_actuator_new ("fake", "wlan0", f->state, &error);

  g_setenv ("WLANFAIR_APD_FAKE_FAIL", "start", TRUE);
  g_assert_true (wf_actuator_probe (a, &error));
  g_assert_false (wf_actuator_start (a, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_FAILED);
  g_assert_false (a->started);
  /* What start recorded was undone through restore at once. */
  assert_calls (f, (const char *[]) { "probe", "start", "restore", NULL });
  g_assert_true (wf_apd_state_is_empty (f->state));
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
}

static void
test_restore_all (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WfApdState) st = NULL;
  g_autoptr(WfActuator) a = wf_actuator_new ("fake", "wlan0", f->state, &error);
  WfActuatorSetting s = { .limited = TRUE, .rate_up_bps = 5e5, .weight = 256 };
  WfApdStation s1, s2;
  g_auto(GStrv) groups = NULL;

  /* An instance sets two stations, then dies without stopping. */
  station (&s1, 1);
  station (&s2, 2);
  g_assert_true (wf_actuator_probe (a, &error) && wf_actuator_start (a, &error));
  g_assert_true (wf_actuator_set (a, &s1, &s, &error) && wf_actuator_set (a, &s2, &s, &error));
  g_clear_pointer (&a, wf_actuator_free);
  g_clear_pointer (&f->state, wf_apd_state_free);
  g_assert_true (g_file_test (f->path, G_FILE_TEST_EXISTS));
  g_unlink (f->log);

  /* The next start has the file alone, and one group it cannot place.
   * An actuator cannot start over what is recorded. */
  st = wf_apd_state_open (f->path, &error);
  g_assert_no_error (error);
  a = wf_actuator_new ("fake", "wlan0", st, &error);
  g_assert_true (wf_actuator_probe (a, &error));
  g_assert_false (wf_actuator_start (a, &error));
  g_assert_nonnull (strstr (error->message, "restore them first"));
  g_clear_error (&error);
  g_clear_pointer (&a, wf_actuator_free);
  g_unlink (f->log);
  wf_apd_state_set (st, "gone:wlan0", "x", "1");
  g_assert_true (wf_apd_state_save (st, &error));
  g_assert_false (wf_apd_restore_all (st, &error));
  g_assert_error (error, WF_ERROR, WF_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "[gone:wlan0]"));
  g_clear_error (&error);
  /* ... which did not stop the fake's restore. */
  assert_calls (f, (const char *[]) { "restore 02:00:00:00:00:01",
                                      "restore 02:00:00:00:00:02", "restore", NULL });
  groups = wf_apd_state_groups (st);
  g_assert_cmpuint (g_strv_length (groups), ==, 1);
  g_assert_cmpstr (groups[0], ==, "gone:wlan0");

  /* A failing restore keeps its group for the next try. */
  g_clear_pointer (&groups, g_strfreev);
  wf_apd_state_remove_group (st, "gone:wlan0");
  wf_apd_state_set (st, "fake:wlan0", "base", "installed");
  g_setenv ("WLANFAIR_APD_FAKE_FAIL", "restore", TRUE);
  g_assert_false (wf_apd_restore_all (st, &error));
  g_clear_error (&error);
  groups = wf_apd_state_groups (st);
  g_assert_cmpstrv ((const char *const *) groups, ((const char *[]) { "fake:wlan0", NULL }));
  g_unsetenv ("WLANFAIR_APD_FAKE_FAIL");
  g_assert_true (wf_apd_restore_all (st, &error));
  g_assert_no_error (error);
  g_assert_true (wf_apd_state_is_empty (st));
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/actuator/registry", Fixture, NULL, setup, test_registry, teardown);
  g_test_add ("/actuator/probe-needs-env", Fixture, NULL, setup, test_probe_needs_env, teardown);
  g_test_add ("/actuator/order", Fixture, NULL, setup, test_order, teardown);
  g_test_add ("/actuator/recorded-before-return", Fixture, NULL, setup,
              test_recorded_before_return, teardown);
  g_test_add ("/actuator/failed-start-undone", Fixture, NULL, setup, test_failed_start_undone,
              teardown);
  g_test_add ("/actuator/restore-all", Fixture, NULL, setup, test_restore_all, teardown);
  return g_test_run ();
}
