#include "metrics/result/pm_samples.h"

#include <stdlib.h>
#include <string.h>

#include "metrics/strcopy.h"
#include "metrics/result/result.h"
#include "metrics/result/section.h"

int td_pm_create(td_pm_samples **out, const char *const *metrics, size_t n_metrics,
                 uint64_t interval_ns, size_t max_rows, td_error *err)
{
    *out = NULL;
    if (n_metrics == 0 || n_metrics > TD_PM_MAX_METRICS)
        return td_fail(err, "PM samples need 1 to %d metrics, not %zu", TD_PM_MAX_METRICS,
                       n_metrics);
    td_pm_samples *pm = calloc(1, sizeof *pm);
    if (!pm || !(pm->metrics = calloc(n_metrics, sizeof *pm->metrics))) {
        free(pm);
        return td_fail(err, "out of memory");
    }
    pm->n_metrics = n_metrics;
    for (size_t i = 0; i < n_metrics; i++)
        if (!(pm->metrics[i] = td_strdup(metrics[i]))) {
            td_pm_free(pm);
            return td_fail(err, "out of memory");
        }
    pm->interval_ns = interval_ns;
    pm->max_rows = max_rows ? (max_rows < 2 ? 2 : max_rows) : TD_PM_MAX_ROWS_DEFAULT;
    *out = pm;
    return 0;
}

void td_pm_free(td_pm_samples *pm)
{
    if (!pm)
        return;
    for (size_t i = 0; i < pm->n_metrics; i++)
        free(pm->metrics[i]);
    free(pm->metrics);
    free(pm->start_ns);
    free(pm->end_ns);
    free(pm->values);
    free(pm);
}

int td_pm_metric_index(const td_pm_samples *pm, const char *metric)
{
    for (size_t i = 0; metric && i < pm->n_metrics; i++)
        if (strcmp(pm->metrics[i], metric) == 0)
            return (int)i;
    return -1;
}

static int grow(td_pm_samples *pm, td_error *err)
{
    if (pm->n < pm->cap)
        return 0;
    size_t cap = pm->cap ? pm->cap * 2 : 256;
    if (cap > pm->max_rows)
        cap = pm->max_rows;
    uint64_t *start = realloc(pm->start_ns, cap * sizeof *start);
    if (start)
        pm->start_ns = start;
    uint64_t *end = start ? realloc(pm->end_ns, cap * sizeof *end) : NULL;
    if (end)
        pm->end_ns = end;
    double *values = end ? realloc(pm->values, cap * pm->n_metrics * sizeof *values) : NULL;
    if (!values)
        return td_fail(err, "out of memory");
    pm->values = values;
    pm->cap = cap;
    return 0;
}

static int push_row(td_pm_samples *pm, uint64_t start, uint64_t end, const double *values,
                    td_error *err)
{
    if (grow(pm, err))
        return -1;
    pm->start_ns[pm->n] = start;
    pm->end_ns[pm->n] = end;
    memcpy(pm->values + pm->n * pm->n_metrics, values, pm->n_metrics * sizeof *values);
    pm->n++;
    return 0;
}

/* Halves the rows: row i becomes rows 2i and 2i+1 together. */
static void merge_pairs(td_pm_samples *pm)
{
    size_t k = pm->n_metrics, full = (size_t)1 << pm->merges, kept = 0;
    for (size_t i = 0; i < pm->n; i += 2, kept++) {
        pm->start_ns[kept] = pm->start_ns[i];
        double *dst = pm->values + kept * k;
        memmove(dst, pm->values + i * k, k * sizeof *dst);
        pm->end_ns[kept] = pm->end_ns[i];
        if (i + 1 < pm->n) {
            pm->end_ns[kept] = pm->end_ns[i + 1];
            for (size_t m = 0; m < k; m++)
                dst[m] += pm->values[(i + 1) * k + m];
        }
    }
    if (pm->n % 2 == 0 && pm->n >= 2)
        pm->last_count += full; /* a full row joined the last one */
    pm->n = kept;
    pm->merges++;
}

int td_pm_add(td_pm_samples *pm, uint64_t start_ns, uint64_t end_ns, const double *values,
              td_error *err)
{
    pm->samples++;
    /* At 2^62 samples a row the shift would run out: the last row takes all. */
    if (pm->n && (pm->merges >= 62 || pm->last_count < ((size_t)1 << pm->merges))) {
        double *last = pm->values + (pm->n - 1) * pm->n_metrics;
        for (size_t m = 0; m < pm->n_metrics; m++)
            last[m] += values[m];
        if (end_ns > pm->end_ns[pm->n - 1])
            pm->end_ns[pm->n - 1] = end_ns;
        pm->last_count++;
        return 0;
    }
    if (pm->n == pm->max_rows) {
        merge_pairs(pm);
        return td_pm_add(pm, start_ns, end_ns, values, err) ? -1 : (pm->samples--, 0);
    }
    pm->last_count = 1;
    return push_row(pm, start_ns, end_ns, values, err);
}

int td_pm_append(td_pm_samples *dst, const td_pm_samples *src, td_error *err)
{
    if (src->n_metrics != dst->n_metrics)
        return td_fail(err, "PM samples with %zu metrics cannot join samples with %zu",
                       src->n_metrics, dst->n_metrics);
    for (size_t m = 0; m < src->n_metrics; m++)
        if (strcmp(src->metrics[m], dst->metrics[m]) != 0)
            return td_fail(err, "PM samples of metric %s cannot join samples of %s",
                           src->metrics[m], dst->metrics[m]);
    for (size_t i = 0; i < src->n; i++)
        if (td_pm_add(dst, src->start_ns[i], src->end_ns[i], td_pm_row(src, i), err))
            return -1;
    dst->overflows += src->overflows;
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static int add(cJSON *obj, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(obj, key, item))
        return 0;
    cJSON_Delete(item);
    return -1;
}

static cJSON *uint_column(const uint64_t *v, size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = (double)v[i];
    cJSON *arr = td_json_exact_numbers(d, n);
    free(d);
    return arr;
}

static cJSON *value_columns(const td_pm_samples *pm)
{
    cJSON *cols = cJSON_CreateArray();
    double *d = malloc((pm->n ? pm->n : 1) * sizeof *d);
    for (size_t m = 0; cols && d && m < pm->n_metrics; m++) {
        for (size_t i = 0; i < pm->n; i++)
            d[i] = td_pm_row(pm, i)[m];
        cJSON *col = td_json_exact_numbers(d, pm->n);
        if (!col || !cJSON_AddItemToArray(cols, col)) {
            cJSON_Delete(col);
            cJSON_Delete(cols);
            cols = NULL;
        }
    }
    free(d);
    if (!d) {
        cJSON_Delete(cols);
        return NULL;
    }
    return cols;
}

cJSON *td_pm_to_json(const td_pm_samples *pm)
{
    cJSON *obj = cJSON_CreateObject();
    if (!obj)
        return NULL;
    int bad = add(obj, "interval_ns", td_json_exact_number((double)pm->interval_ns)) ||
              add(obj, "metrics", cJSON_CreateStringArray((const char *const *)pm->metrics,
                                                          (int)pm->n_metrics)) ||
              add(obj, "samples", td_json_exact_number((double)pm->samples)) ||
              add(obj, "merges", td_json_exact_number(pm->merges)) ||
              add(obj, "overflows", td_json_exact_number((double)pm->overflows)) ||
              add(obj, "start_ns", uint_column(pm->start_ns, pm->n)) ||
              add(obj, "end_ns", uint_column(pm->end_ns, pm->n)) ||
              add(obj, "values", value_columns(pm));
    if (bad) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

static int read_metrics(const cJSON *obj, const char ***names, size_t *n, const td_jctx *c)
{
    const cJSON *arr;
    if (td_json_array(c, obj, "metrics", 1, &arr, n))
        return -1;
    if (*n == 0 || *n > TD_PM_MAX_METRICS)
        return td_fail(c->err, "%s: \"metrics\" must hold 1 to %d names", c->where,
                       TD_PM_MAX_METRICS);
    *names = calloc(*n, sizeof **names);
    if (!*names)
        return td_fail(c->err, "out of memory");
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr) {
        if (!cJSON_IsString(item) || !item->valuestring[0]) {
            free(*names);
            return td_fail(c->err, "%s: \"metrics\"[%zu] is not a metric name", c->where, i);
        }
        (*names)[i++] = item->valuestring;
    }
    return 0;
}

/* An array of exactly n items; *out its first. */
static int column(const cJSON *obj, const char *key, size_t n, const cJSON **first,
                  const td_jctx *c)
{
    const cJSON *arr;
    size_t len;
    if (td_json_array(c, obj, key, 1, &arr, &len))
        return -1;
    if (len != n)
        return td_fail(c->err, "%s: \"%s\" holds %zu values for %zu samples", c->where, key,
                       len, n);
    *first = arr->child;
    return 0;
}

static int read_rows(const cJSON *obj, td_pm_samples *pm, size_t n, const td_jctx *c)
{
    const cJSON *start = NULL, *end = NULL, *cols = NULL, *col_first;
    size_t n_cols = 0;
    if (column(obj, "start_ns", n, &start, c) || column(obj, "end_ns", n, &end, c) ||
        td_json_array(c, obj, "values", 1, &cols, &n_cols))
        return -1;
    if (n_cols != pm->n_metrics)
        return td_fail(c->err, "%s: \"values\" holds %zu columns for %zu metrics", c->where,
                       n_cols, pm->n_metrics);
    const cJSON **col = calloc(pm->n_metrics, sizeof *col);
    double *row = malloc(pm->n_metrics * sizeof *row);
    int rc = col && row ? 0 : td_fail(c->err, "out of memory");
    size_t m = 0;
    cJSON_ArrayForEach(col_first, cols) {
        if (rc == 0 && (!cJSON_IsArray(col_first) || (size_t)cJSON_GetArraySize(col_first) != n))
            rc = td_fail(c->err, "%s: \"values\"[%zu] must hold %zu numbers, one per sample",
                         c->where, m, n);
        if (rc == 0)
            col[m] = col_first->child;
        m++;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint64_t s = 0, e = 0;
        rc = td_json_uint_value(c, start, "start_ns", (long)i, TD_JSON_MAX_UINT64, &s) ||
             td_json_uint_value(c, end, "end_ns", (long)i, TD_JSON_MAX_UINT64, &e);
        if (rc == 0 && e < s)
            rc = td_fail(c->err, "%s: sample %zu ends before it starts", c->where, i);
        for (size_t k = 0; rc == 0 && k < pm->n_metrics; k++) {
            rc = td_json_amount_value(c, col[k], "values", (long)i, TD_JSON_MAX_COUNT, &row[k]);
            col[k] = col[k]->next;
        }
        if (rc == 0)
            rc = push_row(pm, s, e, row, c->err);
        start = start->next;
        end = end->next;
    }
    free(col);
    free(row);
    return rc ? -1 : 0;
}

int td_pm_from_json(const cJSON *obj, td_pm_samples **out, const td_jctx *c)
{
    *out = NULL;
    if (!cJSON_IsObject(obj))
        return td_fail(c->err, "%s: \"pm_samples\" must be an object", c->where);
    const char **names = NULL;
    size_t n_names = 0, n = 0;
    uint64_t interval = 0, samples = 0, overflows = 0;
    long merges = 0;
    const cJSON *start;
    if (td_json_uint(c, obj, "interval_ns", 1, TD_JSON_MAX_UINT64, &interval) ||
        td_json_uint(c, obj, "samples", 0, TD_JSON_MAX_UINT64, &samples) ||
        td_json_uint(c, obj, "overflows", 0, TD_JSON_MAX_UINT64, &overflows) ||
        td_json_int(c, obj, "merges", 0, 0, 62, &merges) ||
        td_json_array(c, obj, "start_ns", 1, &start, &n) || read_metrics(obj, &names, &n_names, c))
        return -1;
    td_pm_samples *pm = NULL;
    int rc = td_pm_create(&pm, names, n_names, interval, n + 2, c->err);
    free(names);
    if (rc == 0 && (rc = read_rows(obj, pm, n, c)) == 0) {
        pm->merges = (unsigned)merges;
        pm->samples = samples > n ? samples : n;
        pm->overflows = overflows;
        pm->last_count = (size_t)1 << pm->merges;
        pm->max_rows = n > TD_PM_MAX_ROWS_DEFAULT ? n : TD_PM_MAX_ROWS_DEFAULT;
        *out = pm;
        return 0;
    }
    td_pm_free(pm);
    return -1;
}

/* ---- its section of the result (section.h) ---------------------------------- */

static int read_section(const cJSON *dev_obj, td_device *dev, const td_jctx *c)
{
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(dev_obj, "pm_samples");
    if (!pm || cJSON_IsNull(pm)) /* optional: files before --pm-interval lack it */
        return 0;
    return td_pm_from_json(pm, &dev->pm, c);
}

static int write_section(cJSON *dev_obj, const td_device *dev)
{
    return dev->pm ? add(dev_obj, "pm_samples", td_pm_to_json(dev->pm)) : 0;
}

static void free_section(td_device *dev)
{
    td_pm_free(dev->pm);
}

const td_section td_pm_section = {
    .key = "pm_samples",
    .read_device = read_section,
    .write_device = write_section,
    .free_device = free_section,
};
