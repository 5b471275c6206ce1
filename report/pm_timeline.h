/* The PM-sampling timeline (topdown --pm-interval): a device's level-1
 * split over wall time, from its "pm_samples", with the kernels that ran
 * in each stretch laid over it (report --pm-timeline, plot --pm-timeline).
 * Consecutive samples are binned so that a long run prints and draws at a
 * bounded size; counters add, so a bin's split is exact over its span. */
#ifndef TD_REPORT_PM_TIMELINE_H
#define TD_REPORT_PM_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "levels/aggregate.h"
#include "levels/pm_model.h"
#include "report/plot.h"

#define TD_PM_TEXT_BINS 40    /* rows of the text timeline */
#define TD_PM_PLOT_BINS 2000  /* points of the plot */
#define TD_PM_BIN_KERNELS 3   /* kernels named per bin, longest overlap first */

typedef struct td_pm_bin {
    uint64_t start_ns, end_ns;
    size_t rows;              /* result rows summed into the bin */
    td_pm_point p;
    const char *kernel[TD_PM_BIN_KERNELS]; /* borrowed from the result */
    double kernel_ns[TD_PM_BIN_KERNELS];   /* overlap with the bin */
    size_t other_kernels;     /* further kernels that ran in the bin */
} td_pm_bin;

typedef struct td_pm_timeline {
    const td_device *dev;
    size_t dev_index;
    td_pm_model model;
    td_pm_bin *bins;
    size_t n_bins;
    size_t rows_per_bin;      /* result rows summed into a bin */
} td_pm_timeline;

/* Index of the first device section with PM samples at or after `from`;
 * -1 if none. */
long td_pm_next_device(const td_result *res, size_t from);

/* The timeline of device section dev in at most max_bins bins. */
int td_pm_timeline_build(const td_result *res, const td_summary *s, size_t dev,
                         size_t max_bins, td_pm_timeline *out, td_error *err);
void td_pm_timeline_free(td_pm_timeline *t);

/* report --pm-timeline: every device section with PM samples. Fails
 * naming --pm-interval when the result has none. */
int td_pm_timeline_report(FILE *out, const td_result *res, const td_summary *s,
                          td_error *err);
int td_pm_timeline_text(FILE *out, const td_pm_timeline *t, td_error *err);

/* plot --pm-timeline: stacked level-1 areas over time (the first device
 * section with PM samples), kernel names where the longest-running kernel
 * changes; OUT.gp and OUT.dat as every plot. */
int td_pm_timeline_plot(const td_result *res, const td_summary *s, const td_plot_options *o,
                        td_error *err);

#endif
