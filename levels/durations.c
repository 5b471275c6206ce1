#include "levels/durations.h"

#include <math.h>
#include <string.h>

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Puts the k-th smallest of v[0..n) at v[k], the smaller before it and
 * the larger after (Hoare's selection, median-of-three pivots): linear
 * on average, where sorting a million launches took a tenth of a second. */
static void select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap(&v[hi], &v[mid]);
        double pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (pivot < v[j])
                j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

static double median_of(double *ns, size_t n)
{
    select_kth(ns, n, n / 2);
    if (n % 2)
        return ns[n / 2];
    double below = ns[0]; /* the largest of the lower half */
    for (size_t i = 1; i < n / 2; i++)
        if (ns[i] > below)
            below = ns[i];
    return 0.5 * (below + ns[n / 2]);
}

/* The sum of squared deviations from the mean (two passes: no
 * cancellation of a one-pass sum of squares). */
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
    out->min_ns = out->max_ns = ns[0];
    for (size_t i = 0; i < n; i++) {
        out->total_ns += ns[i];
        out->min_ns = ns[i] < out->min_ns ? ns[i] : out->min_ns;
        out->max_ns = ns[i] > out->max_ns ? ns[i] : out->max_ns;
    }
    out->count = n;
    out->mean_ns = out->total_ns / (double)n;
    out->median_ns = median_of(ns, n);
    out->std_ns = n > 1 ? sqrt(squared_deviations(ns, n, out->mean_ns) / (double)(n - 1)) : 0;
}
