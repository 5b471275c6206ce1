/* The PM-sampling groups of a metric set: PM sampling takes only
 * configurations of one pass, so the model's counters are split into
 * groups that each fit one pass, every group starting with the anchors
 * (counters every group carries where they fit, so that groups measured at
 * other times or in other runs can be put on one scale). Pure: the pass
 * count of a set comes from a callback (CUPTI's host API with or without a
 * device's counter availability image, or a table in a test). */
#ifndef TD_PM_GROUPS_H
#define TD_PM_GROUPS_H

#include <stddef.h>

#include "metrics/error.h"

#define TD_PM_MAX_GROUPS 48
#define TD_PM_MAX_PER_GROUP 24

/* Passes the set metrics[0..n) needs, into *passes; non-zero when the set
 * cannot be configured at all (a name this chip does not sample). */
typedef int (*td_pm_passes_fn)(void *ctx, const char *const *metrics, size_t n, size_t *passes);

typedef struct td_pm_plan {
    size_t n_groups;
    size_t n_metrics[TD_PM_MAX_GROUPS];
    const char *metrics[TD_PM_MAX_GROUPS][TD_PM_MAX_PER_GROUP]; /* borrowed names */
    size_t n_unplaced;                      /* metrics that fit no pass alone */
    const char *unplaced[TD_PM_MAX_GROUPS]; /* borrowed; the first TD_PM_MAX_GROUPS */
} td_pm_plan;

/* First fit in the given order: each metric joins the first group it fits
 * in one pass with, else opens a new group made of the anchors that fit
 * with it and itself. A metric that is one of the anchors is not placed
 * again; one that needs more than one pass alone is unplaced. Fails when
 * a callback fails or the plan would pass TD_PM_MAX_GROUPS groups. */
int td_pm_plan_groups(const char *const *anchors, size_t n_anchors, const char *const *metrics,
                      size_t n, td_pm_passes_fn passes, void *ctx, td_pm_plan *out,
                      td_error *err);

/* The group index of metric name in plan, or -1. */
int td_pm_plan_group_of(const td_pm_plan *plan, const char *metric);

#endif
