/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfairctl.h"

#include <stdio.h>

#include "wlanfair-ifname.h"
#include "wlanfair-json-writer.h"
#include "wlanfair-output.h"
#include "wlanfair-text.h"

static void
print_line (const char *suffix, const char *fmt, va_list ap)
{
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  /* Messages quote names and files (a profile, a status file): no
   * control reaches the terminal; what is escaped already stays so. */
  g_autofree char *shown = wf_text_fit (msg, G_MAXSIZE, WF_TEXT_CUT | WF_TEXT_ESCAPED);

  /* g_get_prgname() is "wlanfairctl SUBCOMMAND" once dispatched. */
  g_printerr ("%s: %s%s\n", g_get_prgname (), shown, suffix);
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

int
wf_cli_check_interfaces (char **names)
{
  for (char **n = names; n && *n; n++)
    {
      g_autoptr(GError) error = NULL;

      if (!wf_ifname_validate ("-i", *n, &error))
        return wf_cli_usage_error ("%s", error->message);
    }
  return WF_EXIT_OK;
}

static void
write_node (WfJsonWriter *w, JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        wf_json_writer_begin_object (w);
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            wf_json_writer_member (w, name);
            write_node (w, member);
          }
        wf_json_writer_end_object (w);
        break;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (node);

        wf_json_writer_begin_array (w);
        for (guint i = 0; i < json_array_get_length (a); i++)
          write_node (w, json_array_get_element (a, i));
        wf_json_writer_end_array (w);
        break;
      }
    case JSON_NODE_NULL:
      wf_json_writer_string (w, NULL);
      break;
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          wf_json_writer_int (w, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          wf_json_writer_double (w, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          wf_json_writer_boolean (w, json_node_get_boolean (node));
          break;
        case G_TYPE_STRING:
          wf_json_writer_string (w, json_node_get_string (node));
          break;
        default:
          g_assert_not_reached ();
        }
      break;
    default:
      g_assert_not_reached ();
    }
}

char *
wf_cli_json_to_text (JsonNode *node, gboolean compact)
{
  WfJsonWriter *w = compact ? wf_json_writer_new_compact () : wf_json_writer_new ();

  write_node (w, node);
  return wf_json_writer_free_to_string (w);
}

void
wf_cli_print_json_node (JsonNode *node)
{
  g_autofree char *text = wf_cli_json_to_text (node, FALSE);

  fputs (text, stdout);
  wf_output_flush ();
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

int
wf_cli_run_subcommand (int argc, char **argv, const WfCliCommand *subs, gsize n_subs,
                       void (*usage) (void))
{
  const char *sub;

  if (argc < 2 || (argv[1][0] == '-' && !g_str_equal (argv[1], "--help")
                   && !g_str_equal (argv[1], "-h")))
    return subs[0].run (argc, argv);
  sub = argv[1];
  if (g_str_equal (sub, "--help") || g_str_equal (sub, "-h") || g_str_equal (sub, "help"))
    {
      usage ();
      return WF_EXIT_OK;
    }
  for (gsize i = 0; i < n_subs; i++)
    if (g_str_equal (sub, subs[i].name))
      {
        wf_cli_enter_command (sub);
        return subs[i].run (argc - 1, argv + 1);
      }
  return wf_cli_usage_error ("unknown command '%s'", sub);
}
