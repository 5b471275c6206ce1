/* Per-launch duration statistics of a kernel, as nsys's kernel summary
 * gives them: count, total, mean, min, median, max and standard
 * deviation. Pure: a list of durations in, the figures out. */
#ifndef TD_DURATIONS_H
#define TD_DURATIONS_H

#include <stddef.h>

typedef struct td_duration_stats {
    size_t count;     /* launches; 0: no figure below holds a value */
    double total_ns;
    double mean_ns;
    double min_ns;
    double median_ns; /* the middle value, or the mean of the two middle
                         ones for an even count */
    double max_ns;
    double std_ns;    /* sample standard deviation (n - 1, as nsys's
                         StdDev); 0 for one launch */
} td_duration_stats;

/* The figures of the n durations in ns, which are reordered in place. */
void td_duration_stats_of(double *ns, size_t n, td_duration_stats *out);

#endif
