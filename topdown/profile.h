/* Collection: run an app under the injection library and write a result
 * file. Implemented in profile.c (launcher side) and inject/ (in-process). */
#ifndef TD_PROFILE_H
#define TD_PROFILE_H

#include "metrics/error.h"
#include "metrics/result/result.h"
#include "topdown/inject/collect_opts.h"

/* --time-sampled's PM-sampling interval where --pm-interval gives none:
 * 100 us kept the PyTorch loop within 1.10x on an H200 (issue 38). */
#define TD_TIME_SAMPLED_INTERVAL_NS 100000ull
/* --time-sampled's PC-sampling period (2^N cycles) where
 * --pc-sampling-period gives none: CUPTI's own, 2^11 on an H200, kept
 * samples of 3 of td_few's 9 kernels and lost the rest without a word;
 * 2^17 kept all 9 (2026-11-29). */
#define TD_TIME_SAMPLED_PC_PERIOD 17

typedef struct td_profile_options {
    char **app_argv;            /* NULL-terminated; app_argv[0] is the app */
    const char *output;         /* -o FILE; NULL: default name from the app */
    int force;                  /* -f: overwrite an existing result */
    const char *kernel_filter;  /* -k/--kernel-name: regex:RE or RE (metrics/kmatch.h), NULL: all */
    int name_base;              /* --kernel-name-base: what -k matches (td_name_base) */
    long launch_skip;           /* --launch-skip N: launches to skip first */
    long launch_count;          /* --launch-count N: profile at most N, -1 all */
    long per_kernel;            /* --per-kernel N: profile first N of each kernel, -1 all */
    const char *arch;           /* --arch NAME: force an arch table, NULL: detect */
    const char *replay_mode;    /* --replay-mode: "auto" (default), "none", "kernel",
                                   "application" (the app run once per counter group) */
    double overhead_pct;        /* --overhead: budget in % of native time, 0: unlimited */
    const char *graph_profiling; /* --graph-profiling: "node" (default) or "graph" */
    const char *nvtx_include[32]; /* --nvtx-include SPEC, each (topdown/inject/nvtx_filter.h) */
    size_t n_nvtx_include;
    const char *nvtx_exclude[32]; /* --nvtx-exclude SPEC, each */
    size_t n_nvtx_exclude;
    int no_nvtx;                /* --no-nvtx: NVTX_INJECTION64_PATH left as it is */
    const char *sample_every;   /* --sample-every N|T (topdown/inject/sample_policy.h), NULL: off */
    const char *cache_control;  /* --cache-control: "none" (default) or "all" */
    const char *clock_control;  /* --clock-control: "none" (default) or "base" */
    int progress;               /* 1: progress line on stderr when it is a tty */
    int source;                 /* --source: PC sampling of the selected kernels (1), also
                                   without counters (2: --source-only) */
    long pc_period;             /* --pc-sampling-period N: 2^N cycles; 0: CUPTI's default */
    long pm_interval_us;        /* --pm-interval: PM-sampling timeline, 0: off */
    int time_sampled;           /* --time-sampled: the tree from PM samples (this run)
                                   and PC samples (a second run), no range, no replay */
    const char *const *outputs; /* files the caller writes after the run (CSVs),
                                   checked before the app starts: the -f rule,
                                   never the result or the app */
    size_t n_outputs;
} td_profile_options;

/* The defaults (profile_opts.c). */
void td_profile_options_init(td_profile_options *opts);

/* What the collector of a run gets (profile_opts.c): opts' options, the
 * arch tables' folder archs, the NVTX specs one per line (NULL or "":
 * none), and the expert variables of the environment env reads, which the
 * user set (TOPDOWN_BATCH, TOPDOWN_ROTATION, TOPDOWN_COVER_LAUNCHES,
 * TOPDOWN_BUDGET_RANGES, TOPDOWN_BUDGET_PER_THREAD, TOPDOWN_NATURAL_MIN,
 * TOPDOWN_NATURAL, TOPDOWN_NATURAL_IDLE, TOPDOWN_ROTATION_RANGES,
 * TOPDOWN_CUBIN_DIR, TOPDOWN_NO_TIMING,
 * TOPDOWN_NO_COPIES, TOPDOWN_DEBUG: docs/COLLECTION.md).
 * The spool stays NULL: it is named later, in the app's process. -1 when
 * out of memory; free out with td_collect_opts_free either way. */
int td_profile_collect_opts(const td_profile_options *opts, const char *archs,
                            const char *nvtx_include, const char *nvtx_exclude,
                            td_collect_getenv_fn env, td_collect_opts *out);

typedef struct td_profile_outcome {
    char result_path[4096];
    int result_written;   /* 1 if a result file (maybe partial) was written */
    int app_exit_code;    /* what topdown exits with: the app's code, 128+sig if killed */
    int app_signal;       /* signal that ended the app, 0 if none */
    long launches;        /* kernel launches seen */
    long profiled;        /* of which with counters */
    int passes;           /* replay passes the counter set needed (most over devices) */
    char message[1024];   /* one line for main to print when the result is partial,
                             empty or came with errors (no driver, no permission,
                             crash...); "" when there is nothing to say */
    int nothing_measured; /* no launch was profiled: no result file when no
                             launch was seen, else one whose note says why */
    int collector_failed; /* the collection failed (the Range Profiler did not
                             start...): counters are missing through no fault
                             of the app, whose exit code then passes through */
    char warning[1024];   /* -k matched no kernel name: the filter and real names */
    char nvtx_note[1024]; /* NVTX_INJECTION64_PATH left as the user set it, or no
                             libcupti found, while NVTX filters were asked for */
    char clock_notice[1024]; /* --clock-control base: GPUs found locked by someone
                               else, or clocks that could not be unlocked */
} td_profile_outcome;

/* Whether APP can be run as execvp would find it (a path, or a name on
 * $PATH): 0, or -1 with why not. */
int td_profile_check_app(const char *app, td_error *err);

/* Fails only where no result can be written (app not found, output exists
 * without -f, injection library missing, unknown --arch), all checked
 * before the app starts, or when saving the result failed (the spool is
 * then kept and the message says how to turn it into a result). An app that fails or launches no
 * kernel still gives an outcome; main decides what to say. When a result
 * file was written, *res holds that result (the report is made from it,
 * not from reading the file back); td_result_free it either way. */
int td_profile_run(const td_profile_options *opts, td_profile_outcome *out,
                   td_result *res, td_error *err);

/* ---- the launcher's parts that a whole run (topdown/profile_run.c) and
 * --replay-mode application and --time-sampled reuse for their later runs
 * of the app (topdown/app_replay.c, time_sampled.c): one run's plan,
 * running it quietly, the spool next to the result. Launcher-internal. */

typedef struct launch_plan {
    const td_profile_options *opts;
    const char *app_path;
    const char *lib;
    const char *spool;
    const td_collect_opts *collect; /* the collector's options, but the spool */
    const char *nvtx_path;          /* NVTX_INJECTION64_PATH ("": leave it) */
    int quiet;                      /* stdin, stdout and stderr on /dev/null (a
                                       later run of application replay) */
} launch_plan;

/* Runs the app once as plan says, its spool plan->spool already created,
 * the clocks locked around it as the options ask, and waits for it:
 * *status is waitpid's. */
int td_profile_run_once(const launch_plan *plan, int *status, td_error *err);

/* Before anything starts (profile.c): the options, the app (its path into
 * app), the injection library (lib), the arch tables' folder (archs, each
 * PATH_MAX) and that -o is a good pattern. */
int td_profile_prepare(const td_profile_options *opts, char *app, char *lib, char *archs,
                       td_error *err);

/* The first run of the app as plan says (profile.c): the result named
 * (*reserved: its name was reserved), the spool created in spool, the
 * clocks locked around the run, the result built from the spool into *res
 * and out, the spool then removed unless TOPDOWN_KEEP_SPOOL is set. */
int td_profile_run_first(const launch_plan *plan, char *spool, size_t spool_size,
                         td_profile_outcome *out, td_result *res, int *reserved,
                         td_error *err);

/* <result>.XXXXXX.spool, created with O_EXCL. */
int td_profile_create_spool(const char *result, char *spool, size_t size, td_error *err);

/* A signal asked topdown to stop while the app ran (SIGINT, SIGTERM...). */
int td_profile_interrupted(void);

/* One later run of the app for a launcher's mode (application replay,
 * --time-sampled): plan's collector options with plan.quiet set, into a
 * spool of its own next to out's result, read into *pass (its errors and
 * warnings as pass's note); *code gets its exit code (128+N: signal N).
 * The spool is removed unless TOPDOWN_KEEP_SPOOL is set. */
int td_profile_run_pass(const launch_plan *plan, const td_profile_outcome *out,
                        td_result *pass, int *code, td_error *err);

/* --time-sampled: after the first run (PM sampling, launches timed), runs
 * the app once more with PC sampling alone, moves its PC samples into res
 * and gives every launch its counters from the samples (levels/attribute.h);
 * saves res. A second run that exits otherwise than the first leaves the
 * stalled slots unsplit, and the note says why. */
int td_time_sampled_pass(const launch_plan *plan, td_collect_opts *collect,
                         td_profile_outcome *out, td_result *res, td_error *err);
/* --replay-mode application: runs the app again once for each counter
 * group past the first (the run before measured every launch with group
 * 0) and joins each run's launches into res, then saves res again at
 * out->result_path. A later run that fails or is interrupted stops the
 * passes: res keeps what was joined, and its note says so. */
int td_app_replay_passes(const launch_plan *plan, td_collect_opts *collect,
                         td_profile_outcome *out, td_result *res, td_error *err);

#endif
