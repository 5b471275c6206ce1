/* PM-sampling samples of one device (--pm-interval): GPU-wide counter
 * values over fixed intervals of wall time, read by CUPTI's PM sampling
 * without replay. Kept as rows (start, end, one value per metric); memory
 * is bounded: when the rows reach their cap, neighbouring rows are merged
 * (counters are sums, so a merged row is exact over its longer interval).
 * Stored in the result's optional "pm_samples" section and in the spool's
 * "pm_samples" records (docs/RESULT_FORMAT.md, docs/COLLECTION.md). */
#ifndef TD_PM_SAMPLES_H
#define TD_PM_SAMPLES_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"
#include "metrics/json_field.h"

/* Rows kept before neighbours are merged: 64 Ki rows of a few counters
 * are a few MB, at 100 us per sample 6.5 s of run before any merging. */
#define TD_PM_MAX_ROWS_DEFAULT 65536
#define TD_PM_MAX_METRICS 64

typedef struct td_pm_samples {
    uint64_t interval_ns;  /* the sampling interval asked for */
    char **metrics;        /* metric names, order of the values */
    size_t n_metrics;
    uint64_t *start_ns;    /* per row; the launches' clock (ns from the run's t0) */
    uint64_t *end_ns;
    double *values;        /* n rows x n_metrics, row after row */
    size_t n, cap;
    size_t max_rows;       /* bound on n (at least 2) */
    unsigned merges;       /* each row holds up to 2^merges hardware samples */
    size_t last_count;     /* hardware samples in the last row */
    uint64_t samples;      /* hardware samples added in all */
    uint64_t overflows;    /* times the hardware buffer overflowed (samples lost) */
} td_pm_samples;

/* An empty set for these metrics (names copied); max_rows 0: the default. */
int td_pm_create(td_pm_samples **out, const char *const *metrics, size_t n_metrics,
                 uint64_t interval_ns, size_t max_rows, td_error *err);
void td_pm_free(td_pm_samples *pm);

/* Adds one hardware sample (n_metrics values). Rows merge pairwise when
 * max_rows is reached; from then on 2^merges samples fill a row. */
int td_pm_add(td_pm_samples *pm, uint64_t start_ns, uint64_t end_ns, const double *values,
              td_error *err);
/* Adds every row of src (same metrics, in the same order); overflows add. */
int td_pm_append(td_pm_samples *dst, const td_pm_samples *src, td_error *err);

/* Row i's values. */
static inline const double *td_pm_row(const td_pm_samples *pm, size_t i)
{
    return pm->values + i * pm->n_metrics;
}
/* Column of a metric, or -1. */
int td_pm_metric_index(const td_pm_samples *pm, const char *metric);

/* The JSON object of docs/RESULT_FORMAT.md ("pm_samples"); NULL when out of
 * memory. */
cJSON *td_pm_to_json(const td_pm_samples *pm);
/* Reads such an object; checks every column's length and value range. */
int td_pm_from_json(const cJSON *obj, td_pm_samples **out, const td_jctx *c);

#endif
