/* Replay-free launches measure one counter group each. A kernel's groups
 * are combined the way perf scales multiplexed events: each counter's rate
 * per active cycle is taken from the launches that measured it (its own
 * passes' cycles), and all rates are brought to the kernel's mean cycles
 * per launch. Raw counts of different groups are never mixed. Launches that
 * measured the full set (kernel replay) count in every group. */
#ifndef TD_COMBINE_H
#define TD_COMBINE_H

#include "levels/model.h"

typedef struct td_combine {
    double num[TD_COUNTER_COUNT + TD_MAX_STALLS]; /* sum of the counter */
    double den[TD_COUNTER_COUNT + TD_MAX_STALLS]; /* sum of cycles where measured */
    double cycles;    /* sum over every combined launch */
    size_t launches;
} td_combine;

/* Adds one profiled launch (any group) of a device section. */
void td_combine_add(td_combine *acc, const td_model *m, const td_binding *b,
                    const td_device *dev, const td_launch *launch);

/* The model of the combined counters. *missing counts the stall reasons no
 * launch measured (they count as 0 in the split). Fails when the launches
 * never measured the issue counters (no level 1 possible): *missing is then
 * the table's stall count + 1. */
int td_combine_model(const td_combine *acc, const td_model *m, const td_binding *b,
                     const td_device *dev, td_breakdown *out, size_t *missing,
                     td_error *err);

#endif
