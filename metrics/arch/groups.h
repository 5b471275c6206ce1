/* Counter groups of replay-free collection: the metrics an arch table
 * needs, split into groups that CUPTI collects in one pass each, so that a
 * kernel launch can be measured without replay. Every group holds the
 * table's cycles counter, so each stall reason is divided by the cycles
 * of the pass that measured it. The groups are data (an arch table's
 * "groups"); where a table has none, or CUPTI refuses one on a chip, they
 * are derived first-fit at run time (docs/COLLECTION.md). */
#ifndef TD_GROUPS_H
#define TD_GROUPS_H

#include <stddef.h>

#include "metrics/arch/arch.h"
#include "metrics/error.h"

#define TD_MAX_GROUPS 32
#define TD_MAX_GROUP_METRICS 24

typedef struct td_groups {
    const char *metric[TD_MAX_GROUPS][TD_MAX_GROUP_METRICS]; /* borrowed from the table */
    size_t size[TD_MAX_GROUPS];
    size_t n;
} td_groups;

/* Counts the replay passes a metric set needs (the catalog on a machine
 * without a GPU, the profiler's host object with the device's counter
 * availability inside the app). */
typedef int (*td_pass_counter)(void *ctx, const char *const *metrics, size_t n,
                               size_t *passes, td_error *err);

/* The table's own groups; n = 0 when it lists none. */
void td_groups_from_table(const td_arch *arch, td_groups *out);

/* Whether metric is one of the table's per-pass counters (active cycles,
 * warps active, duration, elapsed cycles), which may sit in several groups;
 * every other metric sits in exactly one. */
int td_groups_per_pass(const td_arch *arch, const char *metric);
/* 0 when: every group is one pass, holds the cycles counter, and the groups
 * together hold every metric of td_arch_metrics, each metric other than the
 * per-pass counters in exactly one group. Otherwise the first problem,
 * named. With count NULL only the coverage is checked (no CUPTI call). */
int td_groups_check(const td_arch *arch, const td_groups *groups, td_pass_counter count,
                    void *ctx, td_error *err);

/* First fit: group 0 holds the table's counters, later ones the cycles
 * counter; each stall metric (in `order`, or table order when NULL) goes
 * into the first group that stays one pass. */
int td_groups_derive(const td_arch *arch, const char *const *order, td_pass_counter count,
                     void *ctx, td_groups *out, td_error *err);

/* Tries `tries` seeded orders of the stall metrics and keeps the layout
 * with the fewest groups (for writing a table's "groups"). */
int td_groups_search(const td_arch *arch, unsigned tries, td_pass_counter count, void *ctx,
                     td_groups *out, td_error *err);

/* Index of the group holding metric (first one for cycles), or -1. */
int td_groups_find(const td_groups *groups, const char *metric);

#endif
