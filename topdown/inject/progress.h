/* What each kernel has measured on one context (device): whether a replay
 * gave the full set, its choice of launches and groups (group_sampler.h), and how
 * many launches were profiled. One table per context, so a process driving
 * two GPUs samples and covers each GPU on its own: a kernel measured on
 * device 0 still gets its full tree on device 1. Pure logic (no CUDA):
 * tested by tests/unit/test_progress.c. */
#ifndef TD_PROGRESS_H
#define TD_PROGRESS_H

#include <stddef.h>

#include "topdown/inject/group_sampler.h"

typedef struct td_kernel_progress {
    int seen;           /* launched on this context */
    int matches;        /* the kernel-name filter selects it */
    int full_measured;  /* a replayed launch gave the full set here */
    long profiled;      /* launches profiled here (--per-kernel) */
    td_choose_kernel choose; /* which of its launches are measured (group_sampler.h) */
} td_kernel_progress;

typedef struct td_progress {
    td_kernel_progress *items; /* by kernel ordinal (td_kernel.ordinal) */
    size_t cap;
} td_progress;

/* The entry of kernel `ordinal`, marked seen (with the filter's verdict);
 * NULL when out of memory. */
td_kernel_progress *td_progress_of(td_progress *p, size_t ordinal, int matches);
/* A profiled launch of k measured `group` (-1: the full set by replay). */
void td_progress_measured(td_kernel_progress *k, int group);
void td_progress_free(td_progress *p);

#endif
