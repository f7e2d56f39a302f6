/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cell programs' registry: which apd.conf values start which program
 * and how a failure counts (no kernel: what start does is tested as
 * root by tests/integration, test-download-demand and the ack-priority
 * cases). */
#include "config.h"

#include <string.h>

#include "wlanfair-apd-config.h"
#include "wlanfair-cell-program.h"

static void
test_registry (void)
{
  const WfCellProgramOps *const *list = wf_cell_program_list ();
  guint n = 0;

  for (; list[n]; n++)
    {
      /* Every op the daemon and --restore call is there; names unique. */
      g_assert_nonnull (list[n]->name);
      g_assert_nonnull (list[n]->without);
      g_assert_nonnull (list[n]->wanted);
      g_assert_nonnull (list[n]->probe);
      g_assert_nonnull (list[n]->start);
      g_assert_nonnull (list[n]->stop);
      g_assert_nonnull (list[n]->restore);
      g_assert_true (wf_cell_program_find (list[n]->name) == list[n]);
    }
#ifdef WF_HAVE_BPF
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (wf_cell_program_find ("ack-priority") == &wf_cell_ack_priority);
  g_assert_true (wf_cell_program_find ("download-demand") == &wf_cell_download_demand);
#else
  g_assert_cmpuint (n, ==, 0);
#endif
  g_assert_null (wf_cell_program_find ("rate"));
  g_assert_null (wf_cell_program_find (NULL));
}

static WfCellProgramWant
want (const char *name, const char *key, const char *value, gboolean may_act)
{
  const WfCellProgramOps *ops = wf_cell_program_find (name);
  WfApdConfig c;
  g_autoptr(GError) error = NULL;
  WfCellProgramWant w;

  wf_apd_config_init (&c);
  g_assert_true (wf_apd_config_set (&c, key, value, &error));
  g_assert_no_error (error);
  w = ops->wanted (&c, may_act);
  /* any_wanted agrees with the programs one by one. */
  if (w != WF_CELL_PROGRAM_OFF)
    g_assert_true (wf_cell_program_any_wanted (&c, may_act));
  wf_apd_config_clear (&c);
  return w;
}

static void
test_wanted (void)
{
  WfApdConfig c;

  if (!wf_cell_program_list ()[0])
    {
      g_test_skip ("no cell program built (-Dbpf=disabled)");
      return;
    }
  /* ack-priority: yes is required in every mode, no is off. */
  g_assert_cmpint (want ("ack-priority", "ack-priority", "yes", FALSE), ==, WF_CELL_PROGRAM_REQUIRED);
  g_assert_cmpint (want ("ack-priority", "ack-priority", "yes", TRUE), ==, WF_CELL_PROGRAM_REQUIRED);
  g_assert_cmpint (want ("ack-priority", "ack-priority", "no", TRUE), ==, WF_CELL_PROGRAM_OFF);
  /* download-demand: yes required, auto only where the daemon may act
   * (and then a failure is a warning), no off. */
  g_assert_cmpint (want ("download-demand", "download-demand", "yes", FALSE), ==,
                   WF_CELL_PROGRAM_REQUIRED);
  g_assert_cmpint (want ("download-demand", "download-demand", "auto", TRUE), ==,
                   WF_CELL_PROGRAM_WANTED);
  g_assert_cmpint (want ("download-demand", "download-demand", "auto", FALSE), ==,
                   WF_CELL_PROGRAM_OFF);
  g_assert_cmpint (want ("download-demand", "download-demand", "no", TRUE), ==,
                   WF_CELL_PROGRAM_OFF);
  /* The defaults while observing: nothing to load (CAP_BPF dropped). */
  wf_apd_config_init (&c);
  g_assert_false (wf_cell_program_any_wanted (&c, FALSE));
  g_assert_true (wf_cell_program_any_wanted (&c, TRUE));
  wf_apd_config_clear (&c);
}

/* A key that requires a program this build lacks is refused, never
 * dropped; auto and no never need one. */
static void
test_check_config (void)
{
  static const char *const cases[][2] = {
    { "ack-priority", "yes" }, { "ack-priority", "no" },
    { "download-demand", "yes" }, { "download-demand", "auto" }, { "download-demand", "no" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      WfApdConfig c;
      g_autoptr(GError) error = NULL;
      gboolean needs = g_str_equal (cases[k][1], "yes");
      gboolean built = wf_cell_program_find (cases[k][0]) != NULL;

      wf_apd_config_init (&c);
      g_assert_true (wf_apd_config_set (&c, cases[k][0], cases[k][1], &error));
      if (needs && !built)
        {
          g_assert_false (wf_cell_program_check_config (&c, &error));
          g_assert_nonnull (strstr (error->message, "this build lacks"));
          g_assert_true (g_str_has_prefix (error->message, cases[k][0]));
        }
      else
        {
          g_assert_true (wf_cell_program_check_config (&c, &error));
          g_assert_no_error (error);
        }
      wf_apd_config_clear (&c);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apd/cell-program/registry", test_registry);
  g_test_add_func ("/apd/cell-program/wanted", test_wanted);
  g_test_add_func ("/apd/cell-program/check-config", test_check_config);
  return g_test_run ();
}
