/* Distinct kernels seen in the process: demangled once, counted per
 * kernel, and the profile-or-only-time decision of each launch. */
#ifndef TD_KERNELS_H
#define TD_KERNELS_H

#include <stddef.h>

#include "metrics/kmatch.h"
#include "topdown/inject/collect_opts.h"
#include "topdown/inject/sample_policy.h"

typedef struct td_kernel {
    char *mangled;
    char *name;        /* demangled (the mangled name when it does not demangle) */
    int matches;       /* the kernel-name filter accepts it */
    long launches;
    size_t ordinal;    /* order of first sight: its entry in each context's
                          td_progress (what it measured on that device) */
    int no_replay;     /* a replay of it failed: never replay it again */
    td_sample_kernel sample; /* --sample-every: its periodic points */
    double duration_sum;     /* measured durations of its profiled launches */
    long durations;
    double thread_sum;       /* and the threads they launched */
    const struct td_ktime *times; /* its activity records' sums (kernel_times.h); NULL: none yet */
    size_t times_looked;     /* td_ktimes_kernels() when times was last looked up */
    double gpu_est_s;        /* the GPU time of its launches queued, priced per
                                thread: its share of the budget (measure_policy.c) */
    double gpu_wave_s;       /* the same in waves of the device: the app's time */
    struct td_kqueued *queued; /* its launches queued per size class
                                  (TD_KTIME_CLASSES; NULL: none yet) */
    double budget_spent_s;   /* what its budgeted samples cost */
    long spooled_pid;  /* the process whose spool has its kernel record */
} td_kernel;

/* Which launches get counters; the rest are only timed. From the
 * TOPDOWN_* variables that the launcher sets (collect_opts.h). */
typedef struct td_filter {
    td_kmatch *name_match; /* -k (kernel_regex) under name_base; NULL: all */
    long launch_skip;   /* matching launches to leave out first */
    long launch_count;  /* at most this many profiled, -1: no limit */
    long per_kernel;    /* at most this many of each kernel, -1: no limit */
    long matched;       /* matching launches seen so far */
    long profiled;      /* launches profiled so far */
} td_filter;

/* Distinct kernels seen so far. */
size_t td_kernel_count(void);

/* The filter of the options: their counts, and their regex compiled; -1
 * (with msg) on a bad regex, the counts then set and no name filter. */
int td_filter_from_opts(td_filter *f, const td_collect_opts *o, char *msg, size_t size);
/* Frees what td_filter_from_opts allocated. */
void td_filter_release(td_filter *f);

/* Forgets every kernel seen (tests: a fresh table). */
void td_kernels_reset(void);

/* The kernel of this mangled name, added on first sight. NULL: no memory. */
td_kernel *td_kernel_get(const char *mangled, const td_filter *f);
/* td_kernel_get for a launch of the function `handle` (a CUfunction or
 * CUkernel; NULL: none): the kernel its last launch found, when the names
 * agree, without hashing the name (PyTorch's run to a thousand
 * characters). PyTorch's 2.7-4.2 us "kernel" step of a traced launch did
 * not fall with it: most likely first-launch module loading (H200,
 * benchmarks/results/trace_diet_NVIDIA_H200_2026-11-29/). */
td_kernel *td_kernel_of_launch(const void *handle, const char *mangled, const td_filter *f);

/* Counts the launch and says whether the filters let it be profiled;
 * profiled_here: the kernel's launches profiled so far on this device
 * (--per-kernel counts per device). */
int td_filter_allows(td_filter *f, td_kernel *k, long profiled_here);
/* Counts a launch the filters allowed as profiled. */
void td_filter_count_profiled(td_filter *f);

/* Demangled copy of a name (malloc'd), the name itself if it is not a
 * mangled C++ name or no demangler is present. */
char *td_demangle(const char *mangled);

#endif
