/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Line charts as SVG text: enough for a figure of a run, no plotting
 * library (they bring cairo, fonts or Python into a CLI). */
#include "wlanfair-chart.h"

#include <math.h>
#include <string.h>

typedef struct {
  char              *name;
  WfChartSeriesFlags flags;
  GArray            *points; /* double pairs: x, y */
} Series;

struct _WfChart {
  char        *title;
  char        *x_label;
  char        *y_label;
  WfChartScale x_scale;
  gboolean     x_fixed;
  double       x_min, x_max;
  gboolean     y_fixed;
  double       y_min, y_max;
  gboolean     y_include_zero;
  GPtrArray   *series; /* Series */
};

/* Document geometry, in SVG user units (px). */
#define DOC_WIDTH      860.0
#define DOC_TITLE_H     44.0
#define CHART_HEIGHT   340.0
#define MARGIN_LEFT     76.0
#define MARGIN_RIGHT   200.0 /* the legend */
#define MARGIN_TOP      34.0
#define MARGIN_BOTTOM   52.0
#define LEGEND_ROW      18.0
#define MAX_TICKS        8

/* Tableau 10: distinguishable, and readable on white and in grey print. */
static const char * const palette[] = {
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

static void
series_free (gpointer p)
{
  Series *s = p;

  g_free (s->name);
  g_array_unref (s->points);
  g_free (s);
}

WfChart *
wf_chart_new (const char *title)
{
  WfChart *c = g_new0 (WfChart, 1);

  c->title = g_strdup (title ? title : "");
  c->x_label = g_strdup ("");
  c->y_label = g_strdup ("");
  c->series = g_ptr_array_new_with_free_func (series_free);
  return c;
}

void
wf_chart_free (WfChart *chart)
{
  if (chart == NULL)
    return;
  g_free (chart->title);
  g_free (chart->x_label);
  g_free (chart->y_label);
  g_ptr_array_unref (chart->series);
  g_free (chart);
}

void
wf_chart_set_x_axis (WfChart *chart, const char *label, WfChartScale scale)
{
  g_free (chart->x_label);
  chart->x_label = g_strdup (label ? label : "");
  chart->x_scale = scale;
}

void
wf_chart_set_y_axis (WfChart *chart, const char *label)
{
  g_free (chart->y_label);
  chart->y_label = g_strdup (label ? label : "");
}

void
wf_chart_set_x_range (WfChart *chart, double min, double max)
{
  g_return_if_fail (isfinite (min) && isfinite (max) && max > min);
  chart->x_fixed = TRUE;
  chart->x_min = min;
  chart->x_max = max;
}

void
wf_chart_set_y_range (WfChart *chart, double min, double max)
{
  g_return_if_fail (isfinite (min) && isfinite (max) && max > min);
  chart->y_fixed = TRUE;
  chart->y_min = min;
  chart->y_max = max;
}

void
wf_chart_set_y_include_zero (WfChart *chart, gboolean include)
{
  chart->y_include_zero = include;
}

guint
wf_chart_add_series (WfChart *chart, const char *name, WfChartSeriesFlags flags)
{
  Series *s = g_new0 (Series, 1);

  s->name = g_strdup (name ? name : "");
  s->flags = flags;
  s->points = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (chart->series, s);
  return chart->series->len - 1;
}

void
wf_chart_add_point (WfChart *chart, guint series, double x, double y)
{
  Series *s;

  g_return_if_fail (series < chart->series->len);
  s = g_ptr_array_index (chart->series, series);
  g_array_append_val (s->points, x);
  g_array_append_val (s->points, y);
}

/* ---- ticks ------------------------------------------------------------ */

double
wf_chart_nice_step (double span, guint max_ticks)
{
  double raw, mag, norm;

  if (!(span > 0) || !isfinite (span) || max_ticks == 0)
    return 1;
  raw = span / max_ticks;
  mag = pow (10, floor (log10 (raw)));
  norm = raw / mag;
  /* The 1e-9 keeps a step that is exactly 2 x 10^k from becoming 5. */
  if (norm <= 1 + 1e-9)
    return mag;
  if (norm <= 2 + 1e-9)
    return 2 * mag;
  if (norm <= 5 + 1e-9)
    return 5 * mag;
  return 10 * mag;
}

double
wf_chart_nice_range (double *min, double *max, guint max_ticks)
{
  double lo = *min, hi = *max, step;

  if (!isfinite (lo) || !isfinite (hi) || lo > hi)
    lo = 0, hi = 1;
  if (hi - lo <= 1e-12 * MAX (fabs (lo), fabs (hi)))
    {
      /* All values equal: a band around them, so the line sits mid-axis. */
      double pad = lo == 0 ? 1 : fabs (lo) * 0.1;

      lo -= pad;
      hi += pad;
    }
  step = wf_chart_nice_step (hi - lo, max_ticks);
  /* From the tick index, not by adding steps: no drift, no -0. */
  *min = floor (lo / step + 1e-9) * step + 0.0;
  *max = ceil (hi / step - 1e-9) * step + 0.0;
  /* Padding or rounding out past DBL_MAX gives infinities. */
  *min = CLAMP (*min, -G_MAXDOUBLE, G_MAXDOUBLE);
  *max = CLAMP (*max, -G_MAXDOUBLE, G_MAXDOUBLE);
  return step;
}

typedef struct {
  WfChartScale scale;
  double       min, max;   /* data range shown */
  double       pos0, pos1; /* where min and max are drawn */
  GArray      *ticks;      /* double */
  int          decimals;   /* linear labels; -1: %g */
} Axis;

static double
axis_map (const Axis *a, double v)
{
  double f = a->scale == WF_CHART_SCALE_LOG
    ? (log10 (v) - log10 (a->min)) / (log10 (a->max) - log10 (a->min))
    : (v * 0.5 - a->min * 0.5) / (a->max * 0.5 - a->min * 0.5); /* halves: no overflow */

  /* Far outside (a fixed range): clipped anyway, and kept short. */
  return CLAMP (a->pos0 + f * (a->pos1 - a->pos0), -1e6, 1e6);
}

static void
linear_ticks (Axis *a, double step)
{
  double first = ceil (a->min / step - 1e-9), last = floor (a->max / step + 1e-9);

  /* A span that overflowed (values near DBL_MAX): the two ends alone. */
  if (!(last - first <= 100))
    {
      g_array_append_val (a->ticks, a->min);
      g_array_append_val (a->ticks, a->max);
      a->decimals = -1;
      return;
    }
  for (double k = first; k <= last; k++)
    {
      double v = k * step + 0.0;

      g_array_append_val (a->ticks, v);
    }
  a->decimals = step >= 1 ? 0 : (int) ceil (-log10 (step) - 1e-9);
}

/* Decades, with 2 and 5 between them while they are few. */
static void
log_ticks (Axis *a)
{
  static const double all[] = { 1, 2, 5 }, one[] = { 1 };
  double decades = log10 (a->max / a->min);
  const double *mult = decades <= 2.5 ? all : one;
  guint n_mult = decades <= 2.5 ? 3 : 1;
  int k0 = (int) floor (log10 (a->min)), k1 = (int) ceil (log10 (a->max));

  for (int k = k0; k <= k1; k++)
    for (guint m = 0; m < n_mult; m++)
      {
        double v = mult[m] * pow (10, k);

        if (v >= a->min * (1 - 1e-9) && v <= a->max * (1 + 1e-9))
          g_array_append_val (a->ticks, v);
      }
  a->decimals = -1;
  if (a->ticks->len < 2)
    {
      /* Less than a decade between two round numbers: linear steps. */
      g_array_set_size (a->ticks, 0);
      linear_ticks (a, wf_chart_nice_step (a->max - a->min, 4));
      a->decimals = -1;
    }
}

/* ---- text ------------------------------------------------------------- */

void
wf_chart_escape (GString *out, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (c)
        {
        case '&': g_string_append (out, "&amp;"); break;
        case '<': g_string_append (out, "&lt;"); break;
        case '>': g_string_append (out, "&gt;"); break;
        case '"': g_string_append (out, "&quot;"); break;
        case '\'': g_string_append (out, "&apos;"); break;
        default:
          /* XML 1.0 allows no other C0 control, not even as &#x1;. */
          if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
              c == 0xfffe || c == 0xffff)
            g_string_append_unichar (out, 0xfffd);
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
        }
    }
}

/* A coordinate: two decimals, always a dot. */
static void
append_num (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.2f", v);
  g_string_append (out, strcmp (buf, "-0.00") == 0 ? "0.00" : buf);
}

/* A value that reads back exactly (the data-* ranges). */
static void
append_exact (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_dtostr (buf, sizeof buf, v));
}

static char *
format_tick (const Axis *a, double v)
{
  char fmt[16], buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (a->decimals < 0)
    g_strlcpy (fmt, "%.6g", sizeof fmt);
  else
    g_snprintf (fmt, sizeof fmt, "%%.%df", a->decimals);
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    return g_strdup (buf + 1);
  return g_strdup (buf);
}

static void
text_element (GString *out, double x, double y, const char *anchor,
              const char *extra, const char *text)
{
  g_string_append (out, "<text x=\"");
  append_num (out, x);
  g_string_append (out, "\" y=\"");
  append_num (out, y);
  g_string_append_printf (out, "\" text-anchor=\"%s\"%s%s>", anchor,
                          extra ? " " : "", extra ? extra : "");
  wf_chart_escape (out, text);
  g_string_append (out, "</text>\n");
}

static void
line_element (GString *out, double x1, double y1, double x2, double y2, const char *style)
{
  g_string_append (out, "<line x1=\"");
  append_num (out, x1);
  g_string_append (out, "\" y1=\"");
  append_num (out, y1);
  g_string_append (out, "\" x2=\"");
  append_num (out, x2);
  g_string_append (out, "\" y2=\"");
  append_num (out, y2);
  g_string_append_printf (out, "\" %s/>\n", style);
}

/* ---- one chart -------------------------------------------------------- */

static gboolean
point_drawable (const WfChart *c, double x, double y)
{
  return isfinite (x) && isfinite (y) && (c->x_scale != WF_CHART_SCALE_LOG || x > 0);
}

static void
fit_axes (const WfChart *c, Axis *x, Axis *y)
{
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;

  for (guint i = 0; i < c->series->len; i++)
    {
      const Series *s = g_ptr_array_index (c->series, i);
      const double *p = (const double *) (const void *) s->points->data;

      for (guint k = 0; k + 1 < s->points->len; k += 2)
        if (point_drawable (c, p[k], p[k + 1]))
          {
            xmin = MIN (xmin, p[k]);
            xmax = MAX (xmax, p[k]);
            ymin = MIN (ymin, p[k + 1]);
            ymax = MAX (ymax, p[k + 1]);
          }
    }

  x->scale = c->x_scale;
  if (c->x_fixed && (c->x_scale != WF_CHART_SCALE_LOG || c->x_min > 0))
    {
      x->min = c->x_min, x->max = c->x_max;
      if (c->x_scale == WF_CHART_SCALE_LOG)
        log_ticks (x);
      else
        linear_ticks (x, wf_chart_nice_step (x->max - x->min, MAX_TICKS));
    }
  else if (c->x_scale == WF_CHART_SCALE_LOG)
    {
      if (!isfinite (xmin))
        xmin = 1, xmax = 10;
      if (xmax <= xmin * (1 + 1e-12))
        xmin /= 2, xmax *= 2;
      else
        {
          /* A little room, so the end points are not on the frame. */
          double pad = pow (xmax / xmin, 0.03);

          xmin /= pad, xmax *= pad;
        }
      x->min = xmin, x->max = xmax;
      log_ticks (x);
    }
  else
    {
      double step;

      x->min = xmin, x->max = xmax;
      step = wf_chart_nice_range (&x->min, &x->max, MAX_TICKS);
      linear_ticks (x, step);
    }

  y->scale = WF_CHART_SCALE_LINEAR;
  if (c->y_fixed)
    {
      y->min = c->y_min, y->max = c->y_max;
      linear_ticks (y, wf_chart_nice_step (y->max - y->min, 5));
    }
  else
    {
      double step;

      if (c->y_include_zero && isfinite (ymin))
        {
          ymin = MIN (ymin, 0);
          ymax = MAX (ymax, 0);
          if (ymax == 0 && ymin == 0)
            ymax = 1; /* all zero: 0 at the bottom, not mid-axis */
        }
      y->min = ymin, y->max = ymax;
      step = wf_chart_nice_range (&y->min, &y->max, 6);
      linear_ticks (y, step);
    }
}

static void
render_chart (GString *out, const WfChart *c, guint index, double top)
{
  double ax = MARGIN_LEFT, ay = top + MARGIN_TOP;
  double aw = DOC_WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
  double ah = CHART_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
  Axis x = { .pos0 = ax, .pos1 = ax + aw, .ticks = g_array_new (FALSE, FALSE, sizeof (double)) };
  Axis y = { .pos0 = ay + ah, .pos1 = ay, .ticks = g_array_new (FALSE, FALSE, sizeof (double)) };
  guint n_drawn = 0, legend_rows;

  fit_axes (c, &x, &y);

  g_string_append_printf (out, "<g class=\"chart\" id=\"chart%u\" data-x-scale=\"%s\" data-x-min=\"",
                          index, c->x_scale == WF_CHART_SCALE_LOG ? "log" : "linear");
  append_exact (out, x.min);
  g_string_append (out, "\" data-x-max=\"");
  append_exact (out, x.max);
  g_string_append (out, "\" data-y-min=\"");
  append_exact (out, y.min);
  g_string_append (out, "\" data-y-max=\"");
  append_exact (out, y.max);
  g_string_append (out, "\" data-area=\"");
  append_exact (out, ax);
  g_string_append_c (out, ' ');
  append_exact (out, ay);
  g_string_append_c (out, ' ');
  append_exact (out, aw);
  g_string_append_c (out, ' ');
  append_exact (out, ah);
  g_string_append (out, "\">\n");

  text_element (out, ax + aw / 2, top + 22, "middle", "font-size=\"14\" font-weight=\"bold\"", c->title);

  /* Clip the lines to the area (plus a dot's radius): a fixed y range
   * may not hold every value. */
  g_string_append_printf (out, "<clipPath id=\"chart%u-clip\"><rect x=\"", index);
  append_num (out, ax - 4);
  g_string_append (out, "\" y=\"");
  append_num (out, ay - 4);
  g_string_append (out, "\" width=\"");
  append_num (out, aw + 8);
  g_string_append (out, "\" height=\"");
  append_num (out, ah + 8);
  g_string_append (out, "\"/></clipPath>\n");

  /* Grid and ticks. */
  g_string_append (out, "<g class=\"x-axis\">\n");
  for (guint i = 0; i < x.ticks->len; i++)
    {
      double v = g_array_index (x.ticks, double, i), px = axis_map (&x, v);
      g_autofree char *label = format_tick (&x, v);

      line_element (out, px, ay, px, ay + ah, "stroke=\"#e0e0e0\" stroke-width=\"1\"");
      line_element (out, px, ay + ah, px, ay + ah + 5, "stroke=\"#000\" stroke-width=\"1\"");
      text_element (out, px, ay + ah + 19, "middle", "class=\"tick\"", label);
    }
  text_element (out, ax + aw / 2, ay + ah + 40, "middle", "class=\"label\"", c->x_label);
  g_string_append (out, "</g>\n<g class=\"y-axis\">\n");
  for (guint i = 0; i < y.ticks->len; i++)
    {
      double v = g_array_index (y.ticks, double, i), py = axis_map (&y, v);
      g_autofree char *label = format_tick (&y, v);

      line_element (out, ax, py, ax + aw, py, "stroke=\"#e0e0e0\" stroke-width=\"1\"");
      line_element (out, ax - 5, py, ax, py, "stroke=\"#000\" stroke-width=\"1\"");
      text_element (out, ax - 8, py + 4, "end", "class=\"tick\"", label);
    }
  {
    g_autoptr(GString) rot = g_string_new ("class=\"label\" transform=\"rotate(-90 ");

    append_num (rot, ax - 56);
    g_string_append_c (rot, ' ');
    append_num (rot, ay + ah / 2);
    g_string_append (rot, ")\"");
    text_element (out, ax - 56, ay + ah / 2, "middle", rot->str, c->y_label);
  }
  g_string_append (out, "</g>\n");

  /* The frame: axes on the left and at the bottom. */
  g_string_append (out, "<polyline class=\"frame\" fill=\"none\" stroke=\"#000\" stroke-width=\"1\" points=\"");
  append_num (out, ax);
  g_string_append_c (out, ',');
  append_num (out, ay);
  g_string_append_c (out, ' ');
  append_num (out, ax);
  g_string_append_c (out, ',');
  append_num (out, ay + ah);
  g_string_append_c (out, ' ');
  append_num (out, ax + aw);
  g_string_append_c (out, ',');
  append_num (out, ay + ah);
  g_string_append (out, "\"/>\n");

  /* The series. */
  g_string_append_printf (out, "<g clip-path=\"url(#chart%u-clip)\">\n", index);
  for (guint i = 0; i < c->series->len; i++)
    {
      const Series *s = g_ptr_array_index (c->series, i);
      const double *p = (const double *) (const void *) s->points->data;
      const char *color = palette[i % G_N_ELEMENTS (palette)];
      g_autoptr(GString) pts = g_string_new (NULL);
      guint n = 0;

      for (guint k = 0; k + 1 < s->points->len; k += 2)
        {
          if (!point_drawable (c, p[k], p[k + 1]))
            continue;
          if (n++ > 0)
            g_string_append_c (pts, ' ');
          append_num (pts, axis_map (&x, p[k]));
          g_string_append_c (pts, ',');
          append_num (pts, axis_map (&y, p[k + 1]));
        }
      n_drawn += n;

      g_string_append_printf (out, "<polyline class=\"series\" id=\"chart%u-series%u\" data-name=\"",
                              index, i);
      wf_chart_escape (out, s->name);
      g_string_append_printf (out, "\" data-points=\"%u\" fill=\"none\" stroke=\"%s\" "
                              "stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"%s\"><title>",
                              n, color, pts->str);
      wf_chart_escape (out, s->name);
      g_string_append (out, "</title></polyline>\n");

      /* A lone point draws no line: it gets its dot anyway. */
      if ((s->flags & WF_CHART_SERIES_MARKERS) || n == 1)
        {
          g_string_append_printf (out, "<g class=\"markers\" fill=\"%s\">\n", color);
          for (guint k = 0; k + 1 < s->points->len; k += 2)
            {
              if (!point_drawable (c, p[k], p[k + 1]))
                continue;
              g_string_append (out, "<circle cx=\"");
              append_num (out, axis_map (&x, p[k]));
              g_string_append (out, "\" cy=\"");
              append_num (out, axis_map (&y, p[k + 1]));
              g_string_append (out, "\" r=\"3\"/>\n");
            }
          g_string_append (out, "</g>\n");
        }
    }
  g_string_append (out, "</g>\n");

  if (n_drawn == 0)
    text_element (out, ax + aw / 2, ay + ah / 2, "middle", "class=\"no-data\" fill=\"#808080\"",
                  "no data");

  /* The legend, right of the area; the rows that do not fit are counted. */
  legend_rows = (guint) (ah / LEGEND_ROW);
  g_string_append (out, "<g class=\"legend\">\n");
  for (guint i = 0; i < c->series->len; i++)
    {
      const Series *s = g_ptr_array_index (c->series, i);
      double lx = ax + aw + 16, ly = ay + 8 + i * LEGEND_ROW;
      g_autofree char *style = NULL;

      if (i + 1 == legend_rows && c->series->len > legend_rows)
        {
          g_autofree char *more = g_strdup_printf ("and %u more", c->series->len - i);

          text_element (out, lx, ly + 4, "start", "fill=\"#606060\"", more);
          break;
        }
      style = g_strdup_printf ("stroke=\"%s\" stroke-width=\"2.5\"",
                               palette[i % G_N_ELEMENTS (palette)]);
      line_element (out, lx, ly, lx + 22, ly, style);
      text_element (out, lx + 28, ly + 4, "start", NULL, s->name);
    }
  g_string_append (out, "</g>\n</g>\n");

  g_array_unref (x.ticks);
  g_array_unref (y.ticks);
}

char *
wf_chart_render_svg (WfChart * const *charts, guint n_charts, const char *title)
{
  GString *out = g_string_new (NULL);
  double height = DOC_TITLE_H + n_charts * CHART_HEIGHT;

  g_string_append (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
  append_num (out, DOC_WIDTH);
  g_string_append (out, "\" height=\"");
  append_num (out, height);
  g_string_append (out, "\" viewBox=\"0 0 ");
  append_num (out, DOC_WIDTH);
  g_string_append_c (out, ' ');
  append_num (out, height);
  /* Generic family: every viewer has one; nothing to fetch. */
  g_string_append (out, "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>");
  wf_chart_escape (out, title ? title : "");
  g_string_append (out, "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
  text_element (out, DOC_WIDTH / 2, 28, "middle", "font-size=\"16\" font-weight=\"bold\"",
                title ? title : "");
  for (guint i = 0; i < n_charts; i++)
    render_chart (out, charts[i], i, DOC_TITLE_H + i * CHART_HEIGHT);
  g_string_append (out, "</svg>\n");
  return g_string_free (out, FALSE);
}
