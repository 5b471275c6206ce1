/* The collector's options: one typed struct that the launcher
 * (topdown/profile.c) writes once, as the text of one environment
 * variable, TOPDOWN_COLLECT, and that the collector reads once, at
 * injection (docs/COLLECTION.md, "The one variable"). One table of the
 * fields serves both: each field's name in the text is its name here, and
 * its text is encoded by topdown/inject/opts_text.h. Pure C, no CUPTI:
 * the reader takes the environment as a function, so
 * tests/unit/test_collect_opts.c feeds it a fake one. */
#ifndef TD_COLLECT_OPTS_H
#define TD_COLLECT_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/kernel_base.h"

/* The one variable the collector reads its options from. */
#define TD_COLLECT_VAR "TOPDOWN_COLLECT"

/* --overhead's default, in % of native time: profiling within 40% leaves
 * room for what the launcher does after the app (reading the spool, the
 * report), so that a run stays near 1.5x native (docs/COLLECTION.md). */
#define TD_OVERHEAD_DEFAULT 40

/* --replay-mode (docs/COLLECTION.md): auto = the full set by kernel replay
 * on a kernel's first profiled launch, counter groups without replay on the
 * others; none = groups only; kernel = the full set on every launch. */
typedef enum td_replay_mode { TD_REPLAY_AUTO, TD_REPLAY_NONE, TD_REPLAY_KERNEL } td_replay_mode;

/* Strings are the struct's own (malloc'd), NULL where unset: never "".
 * Flags are 0 or 1. Each field is given with its default, which a line
 * left out of the text keeps. */
/* Natural coverage (group_sampler.h): kernels of at least
 * TD_BUDGET_SLACK_SHARE of the GPU time, outside the budget (share); every
 * kernel (all); or the budget's own samples, which take the groups owed
 * first (budget). */
typedef enum { TD_NATURAL_SHARE, TD_NATURAL_ALL, TD_NATURAL_BUDGET } td_natural_rule;

typedef struct td_collect_opts {
    /* where */
    char *spool;            /* the spool to append to; NULL: the collector stays out */
    char *archs;            /* the arch tables' folder; NULL: the default */
    char *arch;             /* --arch; NULL: by the chip */
    /* which launches get counters: the kernel filter */
    char *kernel_regex;     /* -k as given (kernels.c compiles it); NULL: all */
    td_name_base name_base; /* --kernel-name-base; function */
    long launch_skip;       /* --launch-skip; 0 */
    long launch_count;      /* --launch-count; -1: no limit */
    long per_kernel;        /* --per-kernel; -1: no limit */
    /* which launches, by time and region */
    char *sample_every;     /* --sample-every as given (td_sample_every_parse reads it) */
    char *nvtx_include;     /* --nvtx-include, one spec a line (nvtx.c) */
    char *nvtx_exclude;     /* --nvtx-exclude, the same */
    /* how */
    td_replay_mode replay_mode; /* --replay-mode; auto */
    long app_pass;          /* --replay-mode application: this run is the
                               pass that measures every launch with this
                               counter group, without replay; -1: not one */
    double overhead_pct;    /* --overhead in %; TD_OVERHEAD_DEFAULT; 0 or less: no budget */
    long batch;             /* TOPDOWN_BATCH; 0: the default (inject.c bounds it) */
    int graph_view;         /* --graph-profiling graph; 0 */
    int flush_caches;       /* --cache-control all; 0 */
    int no_rotation;        /* TOPDOWN_ROTATION=0; 0 */
    long cover_launches;    /* TOPDOWN_COVER_LAUNCHES: a kernel's launches
                               replayed as coverage (measure_policy.c); -1:
                               the default */
    int budget_ranges;      /* TOPDOWN_BUDGET_RANGES set: the budget counts
                               GPU time from the profiled ranges' durations,
                               not the activity records'; 0 */
    int budget_per_thread;  /* TOPDOWN_BUDGET_PER_THREAD set: each launch's
                               GPU time from its kernel's records' time per
                               thread, summed as queued, as before; 0 */
    int budget_all;         /* TOPDOWN_BUDGET_ALL set: set-up, coverage and
                               tracing spend the budget too (budget.h); 0 */
    long natural_min;       /* TOPDOWN_NATURAL_MIN: counter-group samples of
                               each group a kernel covered by replay still
                               takes (group_sampler.h); -1: the default */
    long natural_rule;      /* TOPDOWN_NATURAL: which kernels owe them and
                               how (td_natural_rule); TD_NATURAL_SHARE */
    long natural_idle;      /* TOPDOWN_NATURAL_IDLE: launches the configured
                               group serves no owed natural sample before one
                               may move the rotation (0: at once, as before);
                               -1: the default */
    long natural_defer;     /* TOPDOWN_NATURAL_DEFER: a kernel's own launches
                               a natural sample waits for the rotation at
                               most (an arm, group_sampler.h); -1 (the
                               default) and 0: the idle window alone */
    long renew_launches;    /* TOPDOWN_RENEW: a kernel's launches at which
                               its natural samples are first owed again
                               (group_sampler.h; 0: never, as before); -1:
                               the default */
    long heavy_pct;         /* TOPDOWN_HEAVY_PCT: the percent of a kernel's
                               threads that makes a size class owe each
                               group a natural sample (0: none, as before);
                               -1: the default */
    long activity_kb;       /* TOPDOWN_ACTIVITY_KB: KiB of each CUPTI activity
                               buffer (activity.c bounds it); -1: the default */
    long activity_device_kb; /* TOPDOWN_ACTIVITY_DEVICE_KB: KiB of CUPTI's device
                               buffers of kernel timestamps; -1: CUPTI's */
    long activity_per_thread; /* TOPDOWN_ACTIVITY_PER_THREAD: 0 asks CUPTI for
                               global activity buffers; -1: CUPTI's (per thread) */
    long rotation_ranges;   /* TOPDOWN_ROTATION_RANGES: ranges the rotation's
                               counter-data image holds (contexts.c bounds
                               it); -1: the default */
    uint64_t pm_interval_ns; /* --pm-interval in ns; 0: no PM sampling */
    /* --source */
    int source;             /* --source or --source-only; 0 */
    int source_only;        /* --source-only (the reader sets source with it); 0 */
    long pc_period;         /* --pc-sampling-period; 0: CUPTI's (pcsampling.c bounds it) */
    char *cubin_dir;        /* TOPDOWN_CUBIN_DIR; NULL: next to the result */
    /* the user's expert variables (the launcher reads them) */
    int no_timing;          /* TOPDOWN_NO_TIMING set; 0 */
    int no_copies;          /* TOPDOWN_NO_COPIES set; 0 */
    int debug;              /* TOPDOWN_DEBUG set; 0 */
} td_collect_opts;

/* The defaults: what the collector does without TOPDOWN_COLLECT. */
void td_collect_opts_init(td_collect_opts *o);

/* Every field of o as the text of TOPDOWN_COLLECT, in the table's order,
 * each line there even at its default (a NULL string: an empty value):
 * malloc'd, NULL when out of memory. */
char *td_collect_opts_format(const td_collect_opts *o);

/* Fills o from text (NULL: no line), the defaults where a field has no
 * line. -1 with msg ("TOPDOWN_COLLECT, line 6: launch_count=5x is not a
 * count") on the first refused line (malformed, an unknown name, a name
 * given twice, a value not of its field's type) or when out of memory;
 * the other lines are still read, and the kernel filter (kernel_regex,
 * name_base and the three counts) is then left at its defaults, which
 * profile every launch: a line that could not be read may have been one
 * of its. Free o with td_collect_opts_free either way. */
int td_collect_opts_parse(td_collect_opts *o, const char *text, char *msg, size_t size);

/* The value of an environment variable, NULL when unset. */
typedef const char *(*td_collect_getenv_fn)(const char *name);

/* getenv: the process's environment. */
const char *td_collect_getenv(const char *name);

/* td_collect_opts_parse of get(TD_COLLECT_VAR): the collector's one
 * reading of its environment. */
int td_collect_opts_read(td_collect_opts *o, td_collect_getenv_fn get, char *msg, size_t size);

/* Frees the strings of o, which is then empty (all zero). */
void td_collect_opts_free(td_collect_opts *o);

/* "auto", "none" or "kernel". */
const char *td_replay_mode_word(td_replay_mode mode);

/* The mode of word (auto, none, kernel); -1 for another. */
int td_replay_mode_parse(const char *word, td_replay_mode *out);

#endif
