/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfairctl.h"

#include <stdio.h>

static void
print_line (const char *suffix, const char *fmt, va_list ap)
{
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);

  /* g_get_prgname() is "wlanfairctl SUBCOMMAND" once dispatched. */
  g_printerr ("%s: %s%s\n", g_get_prgname (), msg, suffix);
}

void
wf_cli_enter_command (const char *name)
{
  g_autofree char *full = g_strdup_printf ("%s %s", g_get_prgname (), name);

  /* GOption's usage line and our messages then name the whole command.
   * Safe only while nothing keeps a g_get_prgname() pointer: GLib 2.72
   * frees the old name; we run before any work is done. */
  g_set_prgname (full);
}

int
wf_cli_usage_error (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  print_line (" (see --help)", fmt, ap);
  va_end (ap);
  return WF_EXIT_USAGE;
}

int
wf_cli_fail (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  print_line ("", fmt, ap);
  va_end (ap);
  return WF_EXIT_FAILURE;
}

int
wf_cli_parse_number (const char *option, const char *text, WfNumberFlags flags, double *out)
{
  g_autoptr(GError) error = NULL;

  if (wf_number_parse (text, flags, out, &error))
    return WF_EXIT_OK;
  return wf_cli_usage_error ("%s: %s", option, error->message);
}

gboolean
wf_cli_parse_options (GOptionContext *context,
                      int            *argc,
                      char         ***argv,
                      int            *exit_code)
{
  g_autoptr(GError) error = NULL;

  if (g_option_context_parse (context, argc, argv, &error))
    return TRUE;
  *exit_code = wf_cli_usage_error ("%s", error->message);
  return FALSE;
}

void
wf_cli_print_json_node (JsonNode *node)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  g_print ("%s\n", text);
}

void
wf_cli_print_json (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  wf_cli_print_json_node (root);
}

char *
wf_cli_format_bps (double bps)
{
  if (bps >= 1e9)
    return g_strdup_printf ("%.2f Gbit/s", bps / 1e9);
  if (bps >= 1e6)
    return g_strdup_printf ("%.2f Mbit/s", bps / 1e6);
  if (bps >= 1e3)
    return g_strdup_printf ("%.1f kbit/s", bps / 1e3);
  return g_strdup_printf ("%.0f bit/s", bps);
}
