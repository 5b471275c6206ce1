/* The join of `--replay-mode application` passes (issue 22): the app runs
 * once per counter group, each pass measuring every launch with one group,
 * and the later passes' counters are joined into the first pass's result.
 * A launch of a later pass is the first pass's launch of the same device
 * section (same index, same arch), kernel name and per-kernel ordinal (the
 * i-th launch of kernel K in both), with the same grid and block. A first-
 * pass launch measured in every group of its device ends as TD_GROUP_ALL
 * with every metric's value; any other keeps exactly what the first pass
 * left. Pure: no CUDA, no CUPTI. */
#ifndef TD_REPORT_APP_PASSES_H
#define TD_REPORT_APP_PASSES_H

#include <stddef.h>

#include "metrics/error.h"
#include "metrics/result/result.h"

typedef struct td_app_passes td_app_passes; /* the join's state */

typedef struct td_app_passes_stats {
    size_t passes;    /* passes joined, the first included */
    size_t launches;  /* profiled launches of the first pass */
    size_t complete;  /* of them, measured in every group of their device: now TD_GROUP_ALL */
    size_t unmatched; /* over all later passes, the first pass's group launches a pass gave
                         nothing: no launch at that ordinal (or no such section), another
                         grid or block, not profiled, or not measuring the group it names */
} td_app_passes_stats;

/* Starts a join on base, the first pass's result (its launches measured
 * with one group each). base must outlive the join and keep its sections
 * and launches until td_app_passes_finish. Fails only out of memory. */
int td_app_passes_begin(const td_result *base, td_app_passes **out, td_error *err);
/* Joins a later pass: a matched launch of pass profiled with group g gives
 * the values of base's group g's metrics (found by name in pass's section,
 * all of them measured by that launch, else it is refused) and marks g
 * measured for base's launch; one that measured every metric gives every
 * group whose metrics its section has. A metric in several groups keeps
 * the value of the first pass that measured it. Mismatches are counted,
 * never fatal; base is not changed until td_app_passes_finish. Fails out
 * of memory, or when base has other sections or launches than at begin;
 * then free the join with td_app_passes_free. */
int td_app_passes_add(td_app_passes *ap, const td_result *base, const td_result *pass,
                      td_error *err);
/* Ends the join: each base launch measured in every group of its device
 * becomes TD_GROUP_ALL, its counters every metric's value; any other keeps
 * its first-pass group and counters unchanged. Launches base did not
 * profile are left alone. Fills stats (may be NULL) and frees ap. */
void td_app_passes_finish(td_app_passes *ap, td_result *base, td_app_passes_stats *stats);
/* Frees a join without finishing it (error paths); NULL is fine. */
void td_app_passes_free(td_app_passes *ap);

#endif
