/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

/* An SVG text read back into a tree with GMarkup (an XML parser: a
 * document that is not well-formed fails to load), for the tests of the
 * charts and of `wlanfairctl fairness --plot`. */
typedef struct _SvgNode SvgNode;
struct _SvgNode {
  char       *name;
  GHashTable *attrs;    /* char * -> char *, entities decoded */
  GString    *text;     /* character data directly inside */
  SvgNode    *parent;
  GPtrArray  *children; /* SvgNode */
};

/* The root element, or NULL and ERROR. */
SvgNode    *svg_doc_parse (const char *text, GError **error);
void        svg_node_free (SvgNode *node);
const char *svg_node_attr (const SvgNode *node, const char *name);
/* Every element named ELEMENT (and of class CLS, unless NULL) under
 * NODE, depth first, in document order. */
GPtrArray  *svg_node_find (SvgNode *node, const char *element, const char *cls);
/* The first child element named ELEMENT, or NULL. */
SvgNode    *svg_node_child (const SvgNode *node, const char *element);
/* A points="x,y x,y" attribute as doubles x0 y0 x1 y1...; a number that
 * does not parse whole (a comma decimal) fails the test. */
GArray     *svg_points_parse (const char *points);
/* A number attribute that must parse whole. */
double      svg_node_number (const SvgNode *node, const char *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SvgNode, svg_node_free)
