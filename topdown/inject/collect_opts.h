/* The collector's options: every TOPDOWN_* variable the launcher
 * (topdown/profile.c) sets for the app, read once, at injection, into one
 * typed struct (docs/COLLECTION.md, "Expert variables" and the protocol
 * below it). Pure C, no CUPTI: the reader takes the environment as a
 * function, so tests/unit/test_collect_opts.c feeds it a fake one. */
#ifndef TD_COLLECT_OPTS_H
#define TD_COLLECT_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/kernel_base.h"

/* --overhead's default, in % of native time: profiling within 40% leaves
 * room for what the launcher does after the app (reading the spool, the
 * report), so that a run stays near 1.5x native (docs/COLLECTION.md). */
#define TD_OVERHEAD_DEFAULT 40

/* --replay-mode (docs/COLLECTION.md): auto = the full set by kernel replay
 * on a kernel's first profiled launch, counter groups without replay on the
 * others; none = groups only; kernel = the full set on every launch. */
typedef enum td_replay_mode { TD_REPLAY_AUTO, TD_REPLAY_NONE, TD_REPLAY_KERNEL } td_replay_mode;

/* Strings are the reader's own copies, NULL where the variable is unset
 * or empty. Flags are 0 or 1. */
typedef struct td_collect_opts {
    /* where */
    char *spool;            /* TOPDOWN_SPOOL: NULL, the collector stays out */
    char *archs;            /* TOPDOWN_ARCHS: the arch tables' folder, NULL: the default */
    char *arch;             /* TOPDOWN_ARCH: --arch, NULL: by the chip */
    /* which launches get counters */
    char *kernel_regex;     /* TOPDOWN_KERNEL_REGEX: -k as given (kernels.c compiles it) */
    td_name_base name_base; /* TOPDOWN_KERNEL_NAME_BASE, default function */
    long launch_skip;       /* TOPDOWN_LAUNCH_SKIP, default 0 */
    long launch_count;      /* TOPDOWN_LAUNCH_COUNT, default -1: no limit */
    long per_kernel;        /* TOPDOWN_PER_KERNEL, default -1: no limit */
    char *sample_every;     /* TOPDOWN_SAMPLE_EVERY (td_sample_every_parse reads it) */
    char *nvtx_include;     /* TOPDOWN_NVTX_INCLUDE: one spec a line (nvtx.c) */
    char *nvtx_exclude;     /* TOPDOWN_NVTX_EXCLUDE */
    /* how */
    td_replay_mode replay_mode; /* TOPDOWN_REPLAY_MODE: auto, none, kernel; else auto */
    double overhead_pct;    /* TOPDOWN_OVERHEAD in %, default TD_OVERHEAD_DEFAULT;
                               0 or less: no budget */
    long batch;             /* TOPDOWN_BATCH as given, 0 when unset (inject.c bounds it) */
    int graph_view;         /* TOPDOWN_GRAPH_PROFILING=graph */
    int flush_caches;       /* TOPDOWN_CACHE_CONTROL=all */
    int no_rotation;        /* TOPDOWN_ROTATION=0 */
    uint64_t pm_interval_ns; /* TOPDOWN_PM_INTERVAL_NS, 0: no PM sampling */
    /* --source */
    int source;             /* TOPDOWN_SOURCE=1 or only */
    int source_only;        /* TOPDOWN_SOURCE=only */
    long pc_period;         /* TOPDOWN_PC_PERIOD as given, 0 when unset (pcsampling.c
                               bounds it) */
    char *cubin_dir;        /* TOPDOWN_CUBIN_DIR, NULL: next to the result */
    /* set at all, even empty */
    int no_timing;          /* TOPDOWN_NO_TIMING */
    int no_copies;          /* TOPDOWN_NO_COPIES */
    int debug;              /* TOPDOWN_DEBUG */
} td_collect_opts;

/* The value of an environment variable, NULL when unset. */
typedef const char *(*td_collect_getenv_fn)(const char *name);

/* getenv: the process's environment. */
const char *td_collect_getenv(const char *name);

/* Fills o from get (defaults where unset). -1 with msg on the first bad
 * value, the rest still read. Only the kernel filter's values are refused
 * here (a count, the name base), and a bad one ends the filter's reading,
 * as the collector always read them: the counts after it stay 0 and no
 * regex is kept. Text that another module parses (the regex,
 * --sample-every, the NVTX lists) is kept as given: that module refuses
 * it. -1 also when out of memory. Free o with td_collect_opts_free either
 * way. */
int td_collect_opts_read(td_collect_opts *o, td_collect_getenv_fn get, char *msg, size_t size);

/* Frees the strings of o, which is then empty. */
void td_collect_opts_free(td_collect_opts *o);

/* "auto", "none" or "kernel". */
const char *td_replay_mode_word(td_replay_mode mode);

#endif
