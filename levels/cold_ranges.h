/* Which counter-group ranges ran cold, as the stored H200 runs showed
 * against application replay (issue 39): the IPC of a range measuring
 * level 1, over the same launch's in the truth, for 2,109 ranges of 73
 * runs of 11 apps (benchmarks/cold_ranges.py,
 * benchmarks/results/heavy_NVIDIA_H200_2026-11-29/cold_ranges.txt):
 *  - the context's first group range after a replay (the collector then
 *    leaves the replay's profiler object for a fresh rotation object):
 *    median 0.71-0.82, 56 of 77 below 0.9;
 *  - a kernel's first group range within TD_COLD_AFTER_REPLAY ranges of a
 *    replay: 38 of 126 below 0.9;
 *  - any other range, a session's first after another group included:
 *    median 0.97-1.03, 2-13% below 0.9.
 * Pure: a context's launches in, one flag per launch out. */
#ifndef TD_COLD_RANGES_H
#define TD_COLD_RANGES_H

#include <stddef.h>

#include "metrics/error.h"
#include "metrics/result/result.h"

/* Group ranges after a replay within which a kernel's first one runs cold. */
#define TD_COLD_AFTER_REPLAY 8

/* cold[i]: 1 where launch i of one context's launches (in launch order)
 * is a group range that ran cold as above, else 0. */
int td_cold_ranges(const td_launch *launches, size_t n, unsigned char *cold, td_error *err);

#endif
