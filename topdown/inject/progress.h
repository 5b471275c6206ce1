/* What each kernel has measured on one context (device): the counter
 * groups of the replay-free rotation, whether a replay gave the full set,
 * and how many launches were profiled. One table per context, so a process
 * driving two GPUs rotates and covers each GPU on its own: a kernel measured
 * on device 0 still gets its full tree on device 1. Pure logic (no CUDA):
 * tested by tests/unit/test_progress.c. */
#ifndef TD_PROGRESS_H
#define TD_PROGRESS_H

#include <stddef.h>

#include "topdown/inject/choose.h"

#define TD_PROGRESS_MAX_GROUPS 32 /* TD_MAX_GROUPS of metrics/groups.h */

typedef struct td_kernel_progress {
    int seen;           /* launched on this context */
    int matches;        /* the kernel-name filter selects it */
    int full_measured;  /* a replayed launch gave the full set here */
    unsigned group_measured[TD_PROGRESS_MAX_GROUPS];
    long profiled;      /* launches profiled here (--per-kernel) */
    td_choose_kernel choose; /* which of its launches are measured (choose.h) */
} td_kernel_progress;

typedef struct td_progress {
    td_kernel_progress *items; /* by kernel ordinal (td_kernel.ordinal) */
    size_t cap;
    unsigned long version; /* moves when a kernel is first seen here or
                              measures something: coverage answers are
                              recomputed only when they can have changed */
} td_progress;

/* The entry of kernel `ordinal`, marked seen (with the filter's verdict);
 * NULL when out of memory. */
td_kernel_progress *td_progress_of(td_progress *p, size_t ordinal, int matches);
/* A profiled launch of k (an entry of p) measured `group` (-1: the full
 * set by replay). */
void td_progress_measured(td_progress *p, td_kernel_progress *k, int group);
/* 1 when the kernel lacks group here and has no full tree: coverage first. */
int td_progress_lacks(const td_kernel_progress *k, int group);
/* Selected kernels seen here with no full tree that never measured group. */
size_t td_progress_missing(const td_progress *p, int group);
/* The group a replay-free phase should measure here, of n_groups:
 * `current` while some selected kernel without a full tree lacks it, else
 * the next group one of them lacks, else `current`. */
int td_progress_coverage_group(const td_progress *p, int current, size_t n_groups);
void td_progress_free(td_progress *p);

#endif
