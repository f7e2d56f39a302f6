/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-series.h"

#include <string.h>

#include "wlanfair-error.h"
#include "wlanfair-number.h"
#include "wlanfair-readfile.h"

typedef struct {
  double start;
  double end;
  double rate;
  guint  line;
} Sample;

typedef struct {
  char   *name;
  GArray *samples; /* Sample, sorted by start once loaded */
  double *cum;     /* cum[i]: bits delivered before samples[i].start */
} Flow;

struct _WfSeries {
  GPtrArray *flows; /* Flow */
  guint      n_samples;
  double     start;
  double     end;
  double     median_interval;
};

static void
flow_free (gpointer p)
{
  Flow *f = p;

  g_free (f->name);
  g_array_unref (f->samples);
  g_free (f->cum);
  g_free (f);
}

void
wf_series_free (WfSeries *series)
{
  if (series == NULL)
    return;
  g_ptr_array_unref (series->flows);
  g_free (series);
}

static int
sample_cmp (gconstpointer a, gconstpointer b)
{
  const Sample *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

static int
double_cmp (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static char **
split_fields (const char *line, guint *n)
{
  char **fields = g_strsplit (line, ",", -1);

  for (char **f = fields; *f; f++)
    g_strstrip (*f);
  *n = g_strv_length (fields);
  return fields;
}

/* One data row into flows; errors carry NAME:LINE. */
static gboolean
parse_row (WfSeries    *series,
           GHashTable  *by_name,
           char       **fields,
           guint        n_fields,
           const char  *name,
           guint        lineno,
           GError     **error)
{
  g_autoptr(GError) local = NULL;
  Sample s = { .line = lineno };
  const char *flow_name;
  Flow *flow;

  if (n_fields != 4)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                   "%s:%u: expected 4 fields (" WF_SERIES_HEADER "), got %u",
                   name, lineno, n_fields);
      return FALSE;
    }
  if (!wf_number_parse (fields[0], WF_NUMBER_PLAIN, &s.start, &local) ||
      !wf_number_parse (fields[1], WF_NUMBER_PLAIN, &s.end, &local) ||
      !wf_number_parse (fields[3], WF_NUMBER_SI | WF_NUMBER_NONNEG, &s.rate, &local))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE, "%s:%u: %s",
                   name, lineno, local->message);
      return FALSE;
    }
  if (!(s.end > s.start))
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                   "%s:%u: end_s %s is not after start_s %s",
                   name, lineno, fields[1], fields[0]);
      return FALSE;
    }

  flow_name = fields[2];
  if (*flow_name == '\0' || strlen (flow_name) > WF_SERIES_MAX_FLOW_NAME)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                   "%s:%u: flow name must be 1 to %d bytes long",
                   name, lineno, WF_SERIES_MAX_FLOW_NAME);
      return FALSE;
    }

  flow = g_hash_table_lookup (by_name, flow_name);
  if (flow == NULL)
    {
      if (series->flows->len >= WF_SERIES_MAX_FLOWS)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                       "%s:%u: more than %d flows", name, lineno,
                       WF_SERIES_MAX_FLOWS);
          return FALSE;
        }
      flow = g_new0 (Flow, 1);
      flow->name = g_strdup (flow_name);
      flow->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
      g_ptr_array_add (series->flows, flow);
      g_hash_table_insert (by_name, flow->name, flow);
    }
  g_array_append_val (flow->samples, s);
  series->n_samples++;
  return TRUE;
}

/* Sort each flow, refuse overlaps, build the cumulative integrals. */
static gboolean
finish (WfSeries *series, const char *name, GError **error)
{
  g_autoptr(GArray) durations = g_array_new (FALSE, FALSE, sizeof (double));

  if (series->n_samples == 0)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                   "%s: no samples", name);
      return FALSE;
    }

  series->start = G_MAXDOUBLE;
  series->end = -G_MAXDOUBLE;
  for (guint i = 0; i < series->flows->len; i++)
    {
      Flow *f = g_ptr_array_index (series->flows, i);
      Sample *v;
      double acc = 0;

      g_array_sort (f->samples, sample_cmp);
      v = (Sample *) (void *) f->samples->data;
      f->cum = g_new (double, f->samples->len);
      for (guint k = 0; k < f->samples->len; k++)
        {
          double duration = v[k].end - v[k].start;

          if (k > 0 && v[k].start < v[k - 1].end)
            {
              /* Name the later line, as a reader of the file meets it. */
              const Sample *later = v[k].line > v[k - 1].line ? &v[k] : &v[k - 1];
              const Sample *earlier = later == &v[k] ? &v[k - 1] : &v[k];

              g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                           "%s:%u: flow '%s' interval [%g, %g) overlaps "
                           "line %u [%g, %g)", name, later->line, f->name,
                           later->start, later->end, earlier->line,
                           earlier->start, earlier->end);
              return FALSE;
            }
          f->cum[k] = acc;
          acc += v[k].rate * duration;
          g_array_append_val (durations, duration);
        }
      series->start = MIN (series->start, v[0].start);
      series->end = MAX (series->end, v[f->samples->len - 1].end);
    }

  g_array_sort (durations, double_cmp);
  series->median_interval = g_array_index (durations, double, durations->len / 2);
  return TRUE;
}

WfSeries *
wf_series_new_from_data (const char  *data,
                         gsize        length,
                         const char  *name,
                         GError     **error)
{
  g_autoptr(WfSeries) series = g_new0 (WfSeries, 1);
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean first = TRUE;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  series->flows = g_ptr_array_new_with_free_func (flow_free);

  if (memchr (data, '\0', length) != NULL)
    {
      g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                   "%s: contains a NUL byte: not a CSV text file", name);
      return NULL;
    }

  /* Line by line: g_strsplit() on a whole file is quadratic under ASan's
   * strstr interceptor, and needs a second copy of the file. */
  for (gsize pos = 0, lineno = 1; pos < length; lineno++)
    {
      const char *nl = memchr (data + pos, '\n', length - pos);
      gsize len = nl ? (gsize) (nl - (data + pos)) : length - pos;
      g_autofree char *buf = g_strndup (data + pos, len);
      char *line = g_strstrip (buf);
      g_auto(GStrv) fields = NULL;
      guint n_fields;
      double unused;

      pos += len + 1;
      if (*line == '\0' || *line == '#')
        continue;
      if (!g_utf8_validate (line, -1, NULL))
        {
          g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                       "%s:%" G_GSIZE_FORMAT ": not valid UTF-8 text", name, lineno);
          return NULL;
        }

      fields = split_fields (line, &n_fields);
      if (first && !wf_number_parse (fields[0], WF_NUMBER_PLAIN, &unused, NULL))
        {
          first = FALSE;
          if (n_fields == 4 && g_str_equal (fields[0], "start_s") &&
              g_str_equal (fields[1], "end_s") && g_str_equal (fields[2], "flow") &&
              g_str_equal (fields[3], "bits_per_s"))
            continue;
          g_set_error (error, WF_ERROR, WF_ERROR_PARSE,
                       "%s:%" G_GSIZE_FORMAT ": expected the header '" WF_SERIES_HEADER
                       "' or a sample", name, lineno);
          return NULL;
        }
      first = FALSE;

      if (!parse_row (series, by_name, fields, n_fields, name, (guint) lineno, error))
        return NULL;
    }

  if (!finish (series, name, error))
    return NULL;
  return g_steal_pointer (&series);
}

WfSeries *
wf_series_new_from_file (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;

  if (!wf_readfile_bounded (path, WF_READFILE_SERIES_MAX, "a series", &data, &length, error))
    return NULL;
  return wf_series_new_from_data (data, length, path, error);
}

guint
wf_series_get_n_flows (const WfSeries *series)
{
  return series->flows->len;
}

guint
wf_series_get_n_samples (const WfSeries *series)
{
  return series->n_samples;
}

const char *
wf_series_get_flow_name (const WfSeries *series, guint flow)
{
  g_return_val_if_fail (flow < series->flows->len, NULL);
  return ((Flow *) g_ptr_array_index (series->flows, flow))->name;
}

double
wf_series_get_start (const WfSeries *series)
{
  return series->start;
}

double
wf_series_get_end (const WfSeries *series)
{
  return series->end;
}

double
wf_series_get_median_interval (const WfSeries *series)
{
  return series->median_interval;
}

guint
wf_series_get_flow_n_samples (const WfSeries *series, guint flow)
{
  g_return_val_if_fail (flow < series->flows->len, 0);
  return ((Flow *) g_ptr_array_index (series->flows, flow))->samples->len;
}

void
wf_series_get_flow_sample (const WfSeries *series,
                           guint           flow,
                           guint           index,
                           double         *start,
                           double         *end,
                           double         *rate)
{
  const Flow *f;
  const Sample *s;

  g_return_if_fail (flow < series->flows->len);
  f = g_ptr_array_index (series->flows, flow);
  g_return_if_fail (index < f->samples->len);
  s = &g_array_index (f->samples, Sample, index);
  *start = s->start;
  *end = s->end;
  *rate = s->rate;
}

/* Bits the flow delivered before time t. */
static double
flow_integral (const Flow *f, double t)
{
  const Sample *v = (const Sample *) (const void *) f->samples->data;
  guint lo = 0, hi = f->samples->len;

  /* First sample whose start is after t. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (v[mid].start <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return 0;
  lo--;
  return f->cum[lo] + v[lo].rate * (MIN (t, v[lo].end) - v[lo].start);
}

gboolean
wf_series_flow_average (const WfSeries *series,
                        guint           flow,
                        double          a,
                        double          b,
                        double         *out)
{
  const Flow *f;
  const Sample *v;
  double lo, hi;

  g_return_val_if_fail (flow < series->flows->len, FALSE);
  f = g_ptr_array_index (series->flows, flow);
  v = (const Sample *) (const void *) f->samples->data;

  lo = MAX (a, v[0].start);
  hi = MIN (b, v[f->samples->len - 1].end);
  if (!(hi > lo))
    return FALSE;
  *out = (flow_integral (f, hi) - flow_integral (f, lo)) / (hi - lo);
  return TRUE;
}
