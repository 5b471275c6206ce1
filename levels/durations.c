#include "levels/durations.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sum of squared deviations from the mean, added in sorted order
 * (two passes: no cancellation of a one-pass sum of squares). */
static double squared_deviations(const double *ns, size_t n, double mean)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (ns[i] - mean) * (ns[i] - mean);
    return sum;
}

void td_duration_stats_of(double *ns, size_t n, td_duration_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    qsort(ns, n, sizeof *ns, by_value);
    for (size_t i = 0; i < n; i++)
        out->total_ns += ns[i];
    out->count = n;
    out->mean_ns = out->total_ns / (double)n;
    out->min_ns = ns[0];
    out->max_ns = ns[n - 1];
    out->median_ns = n % 2 ? ns[n / 2] : 0.5 * (ns[n / 2 - 1] + ns[n / 2]);
    out->std_ns = n > 1 ? sqrt(squared_deviations(ns, n, out->mean_ns) / (double)(n - 1)) : 0;
}
