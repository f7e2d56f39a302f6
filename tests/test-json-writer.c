/* SPDX-License-Identifier: GPL-2.0-or-later */
/* WfJsonWriter: exact output for a small document, and everything it can
 * write read back by json-glib (the parser every reader of the status
 * file uses) with the same values. */
#include <float.h>
#include <math.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "wlanfair-json-writer.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr(JsonParser) p = json_parser_new ();
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_data (p, text, -1, &error))
    g_error ("not JSON (%s):\n%s", error->message, text);
  return json_node_copy (json_parser_get_root (p));
}

static void
test_layout (void)
{
  WfJsonWriter *w = wf_json_writer_new ();
  g_autofree char *text = NULL;

  wf_json_writer_begin_object (w);
  wf_json_writer_member (w, "pid");
  wf_json_writer_int (w, 42);
  wf_json_writer_member (w, "interfaces");
  wf_json_writer_begin_array (w);
  wf_json_writer_string (w, "wlan0");
  wf_json_writer_string (w, "wlp2s0");
  wf_json_writer_end_array (w);
  wf_json_writer_member (w, "empty");
  wf_json_writer_begin_object (w);
  wf_json_writer_end_object (w);
  wf_json_writer_member (w, "none");
  wf_json_writer_begin_array (w);
  wf_json_writer_end_array (w);
  wf_json_writer_end_object (w);
  text = wf_json_writer_free_to_string (w);
  g_assert_cmpstr (text, ==,
                   "{\n"
                   "  \"pid\" : 42,\n"
                   "  \"interfaces\" : [\n"
                   "    \"wlan0\",\n"
                   "    \"wlp2s0\"\n"
                   "  ],\n"
                   "  \"empty\" : {},\n"
                   "  \"none\" : []\n"
                   "}\n");
}

static void
test_strings (void)
{
  g_autoptr(GString) controls = g_string_new (NULL);
  const char *cases[] = { "", "plain", "quote \" backslash \\ slash /", "tab\tnl\ncr\r",
                          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xb6", NULL };
  WfJsonWriter *w = wf_json_writer_new ();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *a;

  for (int c = 1; c < 0x20; c++)
    g_string_append_c (controls, (char) c);
  wf_json_writer_begin_array (w);
  for (const char **s = cases; *s; s++)
    wf_json_writer_string (w, *s);
  wf_json_writer_string (w, controls->str);
  wf_json_writer_string (w, "bad \xff\xfe utf-8");
  wf_json_writer_string (w, NULL);
  wf_json_writer_end_array (w);
  text = wf_json_writer_free_to_string (w);
  g_assert_true (g_utf8_validate (text, -1, NULL));

  root = parse (text);
  a = json_node_get_array (root);
  for (guint i = 0; cases[i]; i++)
    g_assert_cmpstr (json_array_get_string_element (a, i), ==, cases[i]);
  g_assert_cmpstr (json_array_get_string_element (a, 5), ==, controls->str);
  g_assert_cmpstr (json_array_get_string_element (a, 6), ==, "bad \xef\xbf\xbd\xef\xbf\xbd utf-8");
  g_assert_true (json_array_get_null_element (a, 7));
}

static void
test_numbers (void)
{
  const gint64 ints[] = { 0, 1, -1, G_MAXINT64, G_MININT64, 4294967295 };
  const double doubles[] = { 0.125, 2.0, 0.1, 1e300, -2.5e-300, DBL_MIN, DBL_MAX, 1.0 / 3, 100 };
  WfJsonWriter *w = wf_json_writer_new ();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *a;
  guint n = 0;

  wf_json_writer_begin_array (w);
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    wf_json_writer_int (w, ints[i]);
  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    wf_json_writer_double (w, doubles[i]);
  wf_json_writer_double (w, NAN);
  wf_json_writer_double (w, INFINITY);
  wf_json_writer_boolean (w, TRUE);
  wf_json_writer_boolean (w, FALSE);
  wf_json_writer_end_array (w);
  text = wf_json_writer_free_to_string (w);
  /* Doubles stay doubles: "2.0", not "2". */
  g_assert_nonnull (strstr (text, "2.0,"));
  g_assert_null (strstr (text, "e+300.0"));

  root = parse (text);
  a = json_node_get_array (root);
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++, n++)
    g_assert_cmpint (json_array_get_int_element (a, n), ==, ints[i]);
  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++, n++)
    {
      JsonNode *e = json_array_get_element (a, n);

      g_assert_cmpint (json_node_get_value_type (e), ==, G_TYPE_DOUBLE);
      g_assert_cmpfloat (json_node_get_double (e), ==, doubles[i]);
    }
  g_assert_true (json_array_get_null_element (a, n++));
  g_assert_true (json_array_get_null_element (a, n++));
  g_assert_true (json_array_get_boolean_element (a, n++));
  g_assert_false (json_array_get_boolean_element (a, n++));
  g_assert_cmpuint (json_array_get_length (a), ==, n);
}

/* Deep nesting, members of every kind, read back as the same tree. */
static void
test_nested (void)
{
  WfJsonWriter *w = wf_json_writer_new ();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonNode *node;

  wf_json_writer_begin_object (w);
  for (int i = 0; i < 10; i++)
    {
      g_autofree char *name = g_strdup_printf ("level%d", i);

      wf_json_writer_member (w, name);
      wf_json_writer_begin_object (w);
      wf_json_writer_member (w, "n");
      wf_json_writer_int (w, i);
    }
  for (int i = 0; i < 10; i++)
    wf_json_writer_end_object (w);
  wf_json_writer_end_object (w);
  text = wf_json_writer_free_to_string (w);

  root = parse (text);
  node = root;
  for (int i = 0; i < 10; i++)
    {
      g_autofree char *name = g_strdup_printf ("level%d", i);
      JsonObject *o = json_node_get_object (node);

      node = json_object_get_member (o, name);
      g_assert_nonnull (node);
      g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "n"), ==, i);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-writer/layout", test_layout);
  g_test_add_func ("/json-writer/strings", test_strings);
  g_test_add_func ("/json-writer/numbers", test_numbers);
  g_test_add_func ("/json-writer/nested", test_nested);

  return g_test_run ();
}
