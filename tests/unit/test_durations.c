/* levels/durations.h: the per-launch duration figures on lists whose
 * answers are known by hand. */
#include <stdlib.h>

#include "../check.h"

#include "levels/durations.h"

static void even_count(void)
{
    double ns[] = {4, 1, 3, 2};
    td_duration_stats s;
    td_duration_stats_of(ns, 4, &s);
    CHECK(s.count == 4);
    CHECK_NEAR(s.total_ns, 10, 1e-12);
    CHECK_NEAR(s.mean_ns, 2.5, 1e-12);
    CHECK_NEAR(s.min_ns, 1, 0);
    CHECK_NEAR(s.max_ns, 4, 0);
    CHECK_NEAR(s.median_ns, 2.5, 1e-12); /* the mean of the two middle values */
    CHECK_NEAR(s.std_ns, sqrt(5.0 / 3.0), 1e-12); /* n - 1: 5 / 3, not 5 / 4 */
}

static void odd_count(void)
{
    double ns[] = {9, 1, 5};
    td_duration_stats s;
    td_duration_stats_of(ns, 3, &s);
    CHECK_NEAR(s.median_ns, 5, 0);
    CHECK_NEAR(s.mean_ns, 5, 1e-12);
    CHECK_NEAR(s.std_ns, 4, 1e-12); /* sqrt((16 + 0 + 16) / 2) */
}

static void skewed(void)
{
    /* a cold first launch: the median stays with the many, the mean not */
    double ns[] = {1000, 10, 10, 10, 10};
    td_duration_stats s;
    td_duration_stats_of(ns, 5, &s);
    CHECK_NEAR(s.median_ns, 10, 0);
    CHECK_NEAR(s.mean_ns, 208, 1e-9);
    CHECK_NEAR(s.std_ns, sqrt((792.0 * 792 + 4 * 198.0 * 198) / 4), 1e-9);
}

static void one_and_none(void)
{
    double one[] = {7};
    td_duration_stats s;
    td_duration_stats_of(one, 1, &s);
    CHECK(s.count == 1);
    CHECK_NEAR(s.median_ns, 7, 0);
    CHECK_NEAR(s.std_ns, 0, 0);
    td_duration_stats_of(NULL, 0, &s);
    CHECK(s.count == 0 && s.total_ns == 0 && s.std_ns == 0);
}

/* A large common offset: the two-pass deviation keeps the spread. */
static void large_offset(void)
{
    double ns[] = {1e12 + 1, 1e12 + 2, 1e12 + 3};
    td_duration_stats s;
    td_duration_stats_of(ns, 3, &s);
    CHECK_NEAR(s.std_ns, 1, 1e-3);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median found without sorting is the sorted list's, on lists of every
 * length up to 200 with many equal values (a kernel's launches often take
 * the same time to the nanosecond). */
static void median_as_sorted(void)
{
    unsigned seed = 12345;
    double ns[200], sorted[200];
    int wrong = 0;
    for (size_t n = 1; n <= 200; n++)
        for (int round = 0; round < 20; round++) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                sorted[i] = ns[i] = (double)((seed >> 16) % (round % 2 ? 5 : 1000));
            }
            qsort(sorted, n, sizeof *sorted, by_value);
            double want = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
            td_duration_stats s;
            td_duration_stats_of(ns, n, &s);
            wrong += s.median_ns != want || s.min_ns != sorted[0] || s.max_ns != sorted[n - 1];
        }
    CHECK(wrong == 0);
}

int main(void)
{
    median_as_sorted();
    even_count();
    odd_count();
    skewed();
    one_and_none();
    large_offset();
    return td_check_summary();
}
