/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "svg-doc.h"

#include <string.h>

typedef struct {
  SvgNode *root;
  SvgNode *current;
} Parse;

static SvgNode *
node_new (const char *name, SvgNode *parent)
{
  SvgNode *n = g_new0 (SvgNode, 1);

  n->name = g_strdup (name);
  n->attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  n->text = g_string_new (NULL);
  n->parent = parent;
  n->children = g_ptr_array_new_with_free_func ((GDestroyNotify) svg_node_free);
  return n;
}

void
svg_node_free (SvgNode *node)
{
  if (node == NULL)
    return;
  g_free (node->name);
  g_hash_table_unref (node->attrs);
  g_string_free (node->text, TRUE);
  g_ptr_array_unref (node->children);
  g_free (node);
}

static void
start_element (GMarkupParseContext *ctx, const char *name, const char **names,
               const char **values, gpointer data, GError **error)
{
  Parse *p = data;
  SvgNode *n = node_new (name, p->current);

  for (guint i = 0; names[i]; i++)
    g_hash_table_insert (n->attrs, g_strdup (names[i]), g_strdup (values[i]));
  if (p->current)
    g_ptr_array_add (p->current->children, n);
  else if (p->root == NULL)
    p->root = n;
  else
    {
      svg_node_free (n);
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "two root elements");
      return;
    }
  p->current = n;
}

static void
end_element (GMarkupParseContext *ctx, const char *name, gpointer data, GError **error)
{
  Parse *p = data;

  p->current = p->current->parent;
}

static void
text (GMarkupParseContext *ctx, const char *t, gsize len, gpointer data, GError **error)
{
  Parse *p = data;

  if (p->current)
    g_string_append_len (p->current->text, t, len);
}

SvgNode *
svg_doc_parse (const char *svg, GError **error)
{
  static const GMarkupParser parser = { start_element, end_element, text, NULL, NULL };
  Parse p = { 0 };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, &p, NULL);
  gboolean ok = g_markup_parse_context_parse (ctx, svg, -1, error) &&
                g_markup_parse_context_end_parse (ctx, error);

  g_markup_parse_context_free (ctx);
  if (!ok)
    {
      svg_node_free (p.root);
      return NULL;
    }
  return p.root;
}

const char *
svg_node_attr (const SvgNode *node, const char *name)
{
  return g_hash_table_lookup (node->attrs, name);
}

static void
find (SvgNode *node, const char *element, const char *cls, GPtrArray *out)
{
  const char *c = svg_node_attr (node, "class");

  if (g_str_equal (node->name, element) && (cls == NULL || g_strcmp0 (c, cls) == 0))
    g_ptr_array_add (out, node);
  for (guint i = 0; i < node->children->len; i++)
    find (g_ptr_array_index (node->children, i), element, cls, out);
}

GPtrArray *
svg_node_find (SvgNode *node, const char *element, const char *cls)
{
  GPtrArray *out = g_ptr_array_new ();

  find (node, element, cls, out);
  return out;
}

SvgNode *
svg_node_child (const SvgNode *node, const char *element)
{
  for (guint i = 0; i < node->children->len; i++)
    {
      SvgNode *c = g_ptr_array_index (node->children, i);

      if (g_str_equal (c->name, element))
        return c;
    }
  return NULL;
}

static double
parse_whole (const char *text)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0')
    g_error ("'%s' is not a number in the C locale", text);
  return v;
}

GArray *
svg_points_parse (const char *points)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto(GStrv) pairs = g_strsplit_set (points, " ", -1);

  for (char **p = pairs; *p; p++)
    {
      g_auto(GStrv) xy = NULL;
      double v;

      if (**p == '\0')
        continue;
      xy = g_strsplit (*p, ",", -1);
      if (g_strv_length (xy) != 2)
        g_error ("point '%s' is not x,y", *p);
      v = parse_whole (xy[0]);
      g_array_append_val (out, v);
      v = parse_whole (xy[1]);
      g_array_append_val (out, v);
    }
  return out;
}

double
svg_node_number (const SvgNode *node, const char *name)
{
  const char *v = svg_node_attr (node, name);

  if (v == NULL)
    g_error ("<%s> has no %s", node->name, name);
  return parse_whole (v);
}
