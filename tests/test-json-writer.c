/* SPDX-License-Identifier: GPL-2.0-or-later */
/* WfJsonWriter: exact output for a small document, and everything it can
 * write read back by json-glib (the parser every reader of the status
 * file uses) with the same values. */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>

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

/* The text of one double, through a one-element array of a compact writer. */
static char *
double_text (double v)
{
  WfJsonWriter *w = wf_json_writer_new_compact ();
  g_autofree char *text = NULL;
  gsize len;

  wf_json_writer_begin_array (w);
  wf_json_writer_double (w, v);
  wf_json_writer_end_array (w);
  text = wf_json_writer_free_to_string (w);
  len = strlen (text);
  g_assert_cmpuint (len, >=, 4);
  g_assert_true (text[0] == '[' && text[len - 2] == ']' && text[len - 1] == '\n');
  return g_strndup (text + 1, len - 3);
}

/* Every double as valid JSON, the fewest digits that read back: no
 * "2e+17.0" (json-glib's), no "nan" or "inf" (printf's). */
static void
test_double_text (void)
{
  const struct { double v; const char *text; } cases[] = {
    { 0, "0.0" },
    { -0.0, "-0.0" },
    { 2, "2.0" },
    { 100, "100.0" },
    { 0.1, "0.1" },
    { 1.0 / 3, "0.3333333333333333" },
    { 2e17, "2e+17" },
    { 1e17, "1e+17" },
    { 123456789012345678.0, "1.2345678901234568e+17" },
    { 1e21, "1e+21" },
    { 1e308, "1e+308" },
    { DBL_MAX, "1.7976931348623157e+308" },
    { DBL_MIN, "2.2250738585072014e-308" },
    { 1e-320, "1e-320" },
    { 2e-320, "2e-320" },
    { 4.9406564584124654e-324, "5e-324" },
    { -2.5e-300, "-2.5e-300" },
    { 3e6, "3000000.0" },
    { NAN, "null" },
    { -NAN, "null" },
    { INFINITY, "null" },
    { -INFINITY, "null" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = double_text (cases[i].v);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* Whatever the locale: "2,5" would be two numbers. */
static void
test_double_locale (void)
{
  g_autofree char *text = NULL;
  char *old = g_strdup (setlocale (LC_NUMERIC, NULL));

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL &&
      setlocale (LC_NUMERIC, "fr_FR.UTF-8") == NULL)
    {
      g_free (old);
      g_test_skip ("no locale with a decimal comma");
      return;
    }
  text = double_text (2.5);
  setlocale (LC_NUMERIC, old);
  g_free (old);
  g_assert_cmpstr (text, ==, "2.5");
}

/* Random bit patterns: each finite one is a JSON number that reads back
 * as the same double (strtod and json-glib), each other one is null. */
static void
test_double_round_trip (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20240601);

  for (int i = 0; i < 20000; i++)
    {
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      double v;
      g_autofree char *text = NULL, *doc = NULL;
      g_autoptr(JsonNode) root = NULL;
      JsonNode *e;

      memcpy (&v, &bits, sizeof v);
      text = double_text (v);
      if (!isfinite (v))
        {
          g_assert_cmpstr (text, ==, "null");
          continue;
        }
      g_assert_true (g_regex_match_simple ("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?$",
                                           text, 0, 0));
      g_assert_true (strpbrk (text, ".e") != NULL);
      g_assert_true (g_ascii_strtod (text, NULL) == v);
      doc = g_strdup_printf ("[%s]", text);
      root = parse (doc);
      e = json_array_get_element (json_node_get_array (root), 0);
      g_assert_cmpint (json_node_get_value_type (e), ==, G_TYPE_DOUBLE);
      g_assert_true (json_node_get_double (e) == v);
    }
}

static void
test_compact (void)
{
  WfJsonWriter *w = wf_json_writer_new_compact ();
  g_autofree char *text = NULL;

  wf_json_writer_begin_object (w);
  wf_json_writer_member (w, "a");
  wf_json_writer_int (w, 1);
  wf_json_writer_member (w, "b");
  wf_json_writer_begin_array (w);
  wf_json_writer_boolean (w, TRUE);
  wf_json_writer_string (w, NULL);
  wf_json_writer_double (w, 2e17);
  wf_json_writer_begin_object (w);
  wf_json_writer_end_object (w);
  wf_json_writer_end_array (w);
  wf_json_writer_member (w, "s");
  wf_json_writer_string (w, "x y\n");
  wf_json_writer_end_object (w);
  text = wf_json_writer_free_to_string (w);
  g_assert_cmpstr (text, ==, "{\"a\":1,\"b\":[true,null,2e+17,{}],\"s\":\"x y\\n\"}\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-writer/layout", test_layout);
  g_test_add_func ("/json-writer/strings", test_strings);
  g_test_add_func ("/json-writer/numbers", test_numbers);
  g_test_add_func ("/json-writer/nested", test_nested);
  g_test_add_func ("/json-writer/double-text", test_double_text);
  g_test_add_func ("/json-writer/double-locale", test_double_locale);
  g_test_add_func ("/json-writer/double-round-trip", test_double_round_trip);
  g_test_add_func ("/json-writer/compact", test_compact);

  return g_test_run ();
}
