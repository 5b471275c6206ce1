/* A kernel's launch statistics (levels/launch_stats.h) in the outputs: the
 * per-launch durations line of the text tree, the Launch and Occupancy
 * lines of --page details, their JSON objects (docs/OUTPUTS.md, "Launch
 * statistics and occupancy"). */
#ifndef TD_REPORT_LAUNCH_REPORT_H
#define TD_REPORT_LAUNCH_REPORT_H

#include <stdio.h>

#include "levels/aggregate.h"

struct cJSON;

/* "  per launch (ms): mean 11.950, median ..., std 0.045": the figures in
 * one unit, ns, us or ms as the longest asks; nothing for one launch,
 * whose time the kernel's line already gives. */
void td_print_durations(FILE *out, const td_duration_stats *d);
/* The kernel's NOTE when TD_BEYOND_NOTE of its time or more is in launches
 * TD_BEYOND_MEASURED times longer than any it measured (nothing else). */
void td_print_beyond_measured(FILE *out, const td_launch_stats *ls);

/* The Launch and Occupancy lines of ks (--page details). */
void td_print_launch_details(FILE *out, const td_result *res, const td_kernel_summary *ks);

/* Adds "durations", "launch" and "occupancy" to a kernel's JSON object; -1
 * when out of memory. */
int td_launch_stats_add_json(struct cJSON *obj, const td_launch_stats *ls);

#endif
