/* The copies of a result (memcpy, memset, peer copies): totals for the
 * report's header and each device's line, a copy's bandwidth. */
#ifndef TD_REPORT_COPIES_H
#define TD_REPORT_COPIES_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "metrics/arch/arch.h"
#include "metrics/result/result.h"

typedef struct td_copy_totals {
    size_t n;
    double bytes, time_ns;
    size_t n_by[TD_COPY_KINDS + TD_COPY_DIRECTIONS]; /* memcpy directions, then kinds */
    double bytes_by[TD_COPY_KINDS + TD_COPY_DIRECTIONS];
} td_copy_totals;

/* Adds a device section's copies to t (zero it first). */
void td_copy_totals_add(td_copy_totals *t, const td_device *dev);
/* "3 copies, 24.0 MB (HtoD 1: 8.0 MB, peer 2: 16.0 MB), copy time 1.234 ms":
 * no newline. */
void td_copy_totals_print(FILE *out, const td_copy_totals *t);
/* Bytes per nanosecond, which is GB/s; 0 when the duration is unknown. */
double td_copy_gbps(const td_copy *c);

/* The per-device summaries of a result of several device sections (one
 * td_summary per section, as if it were a result of its own); *n = 0 and
 * nothing allocated for a result of one section. */
int td_device_summaries(const td_result *res, const td_arch_set *archs,
                        const char *arch_override, td_summary **out, size_t *n,
                        td_error *err);
void td_device_summaries_free(td_summary *sums, size_t n);

#endif
