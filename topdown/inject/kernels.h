/* Distinct kernels seen in the process: demangled once, counted per
 * kernel, and the profile-or-only-time decision of each launch. */
#ifndef TD_KERNELS_H
#define TD_KERNELS_H

#include <regex.h>
#include <stddef.h>

#include "sample_policy.h"

#define TD_KERNEL_MAX_GROUPS 32 /* TD_MAX_GROUPS of metrics/groups.h */

typedef struct td_kernel {
    char *mangled;
    char *name;        /* demangled (the mangled name when it does not demangle) */
    int matches;       /* the kernel-name filter accepts it */
    long launches;
    long profiled;
    /* replay-free rotation: launches measured in each counter group, and
     * whether a replayed launch gave the full set */
    unsigned group_measured[TD_KERNEL_MAX_GROUPS];
    int full_measured;
    int no_replay;     /* a replay of it failed: never replay it again */
    td_sample_kernel sample; /* --sample-every: its periodic points */
    double duration_sum;     /* measured durations of its profiled launches */
    long durations;
} td_kernel;

/* Which launches get counters; the rest are only timed. From the
 * TOPDOWN_* variables that the launcher sets (docs/COLLECTION.md). */
typedef struct td_filter {
    regex_t name_re;
    int has_name_re;
    long launch_skip;   /* matching launches to leave out first */
    long launch_count;  /* at most this many profiled, -1: no limit */
    long per_kernel;    /* at most this many of each kernel, -1: no limit */
    long matched;       /* matching launches seen so far */
    long profiled;      /* launches profiled so far */
} td_filter;

/* Distinct kernels seen so far. */
size_t td_kernel_count(void);
/* Kernels the filter selects that have no full tree yet and never
 * measured counter group `group`. */
size_t td_kernels_missing(int group);
/* Kernels the filter selects that have no full tree and lack one of the
 * first n_groups counter groups. */
size_t td_kernels_uncovered(size_t n_groups);

/* Reads the filter from the environment; -1 (with msg) on a bad value. */
int td_filter_from_env(td_filter *f, char *msg, size_t size);

/* The kernel of this mangled name, added on first sight. NULL: no memory. */
td_kernel *td_kernel_get(const char *mangled, const td_filter *f);

/* Counts the launch and says whether the filters let it be profiled. */
int td_filter_allows(td_filter *f, td_kernel *k);
/* Counts a launch the filters allowed as profiled. */
void td_filter_count_profiled(td_filter *f, td_kernel *k);

/* Demangled copy of a name (malloc'd), the name itself if it is not a
 * mangled C++ name or no demangler is present. */
char *td_demangle(const char *mangled);

#endif
