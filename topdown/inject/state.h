/* The collector's state, at the bottom of its files (state.c): a launch
 * waiting for its counters, a context's state, the process's state (td_g,
 * guarded by td_g.lock), this thread's launch between its callbacks, and
 * the few questions every file asks of them. The files above include it
 * and each other's headers downward only (docs/COLLECTION.md, "The
 * injection library"). Internal to libtopdown_inject.so: nothing here is
 * exported (hidden visibility). */
#ifndef TD_INJECT_STATE_H
#define TD_INJECT_STATE_H

#include <cjson/cJSON.h>
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "metrics/arch/arch.h"
#include "metrics/arch/groups.h"
#include "metrics/result/result.h" /* TD_GROUP_ALL */
#include "topdown/inject/budget.h"
#include "topdown/inject/cache_flush.h"
#include "topdown/inject/clock.h"
#include "topdown/inject/collect_opts.h"
#include "topdown/inject/kernels.h"
#include "topdown/inject/progress.h"
#include "topdown/inject/range_profiler.h"
#include "topdown/inject/sample_policy.h"
#include "topdown/inject/stream_ids.h"

enum { MAX_METRICS = 128 };
/* Ranges of the rotation's image: its samples and one pad a pass at most,
 * decoded when the last pass ends or the image is full
 * (TOPDOWN_ROTATION_RANGES sets it, within these bounds). */
enum { ROTATION_RANGES = 128, ROTATION_RANGES_MIN = 8, ROTATION_RANGES_MAX = 1024 };

/* One launch waiting in a context's open batch for its counters. */
typedef struct launch_rec {
    uint64_t id;
    uint32_t corr;
    td_kernel *kernel;
    unsigned grid[3], block[3];
    uint32_t stream;
    int group;  /* counter group it is measured with, TD_GROUP_ALL: replay */
    uint32_t graph; /* a whole CUDA graph launch: the graph's CUPTI id */
    int failed; /* the launch call returned an error: it made no range */
    const char *region; /* NVTX region (nvtx.h), NULL: none */
} launch_rec;

typedef struct ctx_state {
    CUcontext ctx;
    uint32_t uid;         /* CUPTI's context id, also in activity records */
    char chip[64];
    int profiling;        /* the Range Profiler is set up on it */
    CUdevice dev;         /* its device, and whether CUPTI was asked if the */
    int support_checked;  /* Range Profiler supports it (profiling_supported) */
    char gpu[128];        /* the device's name, for what is said about it */
    int start_failures;   /* its Starts that failed in a row */
    td_rp rp;
    const char *metrics[MAX_METRICS]; /* the device's metrics */
    size_t n_metrics;
    size_t n_full;        /* the full set (kernel replay): the first n_full metrics,
                             the model's; all under --replay-mode kernel */
    const char *duration_metric; /* metric giving duration_ns, NULL if none */
    td_rp_config full;    /* the full set, kernel replay */
    int has_full;
    size_t full_passes;   /* replay passes of the full set */
    td_groups groups;     /* replay-free groups, one pass each */
    size_t group_metric[TD_MAX_GROUPS][TD_MAX_GROUP_METRICS]; /* into metrics */
    td_rp_config group_cfg[TD_MAX_GROUPS];
    size_t n_group_cfg;   /* 0: no replay-free collection here */
    td_rp_config rotation; /* the groups as passes of one configuration */
    int has_rotation;     /* group samples go through it (else group_cfg) */
    uint64_t natural_served_at; /* the launch (td_g.launches) at which the
                                   configured group last served an owed
                                   natural sample, or the rotation moved */
    const char *rotation_metrics[MAX_METRICS]; /* the groups' union */
    size_t rotation_index[TD_MAX_GROUPS][TD_MAX_GROUP_METRICS]; /* into it */
    size_t session_ranges; /* ranges of the rotation's open session */
    int rotation_warm;    /* its first session was started (set-up paid) */
    launch_rec *window;   /* launches of the open batch, in launch order */
    size_t rotation_ranges; /* the rotation's image holds this many ranges */
    size_t n_window;
    int window_group;     /* configuration of the open batch */
    int failures;         /* failed decodes of replay-free launches */
    td_progress progress; /* what each kernel measured on this context */
    int warned_mismatch;
    td_flush flush;       /* --cache-control all: ready when it can flush */
    int flush_failed_said;
    td_stream_ids stream_ids; /* CUPTI's ids of its recent streams */
    struct ctx_state *next;
} ctx_state;

/* The process's collection state, one for the process. */
typedef struct td_inject_state {
    pthread_mutex_t lock;     /* recursive; held from launch enter to exit */
    int initialized;
    pid_t pid;
    td_collect_opts opts;     /* TOPDOWN_COLLECT, read once at injection and kept
                                 for the life of the process */
    CUpti_SubscriberHandle subscriber;
    td_arch_set archs;
    int archs_tried;
    td_filter filter;
    size_t batch;
    ctx_state *contexts;
    atomic_uint_fast64_t next_id;
    long launches;
    long profiled;
    uint64_t t0;
    td_replay_mode mode;      /* --replay-mode (collect_opts.h) */
    double full_threads;      /* threads the largest device seen holds at once (its
                                 SMs times an SM's): the budget prices launches in
                                 waves of it (kernel_times.h); 0: none seen yet */
    td_budget budget;         /* --overhead (budget.c): what sampling spent (spent_s:
                                 launches, decoding; one-time set-up is setup_s),
                                 against the app's own time since start_s */
    int budgeted;             /* the budget decides (no explicit counts asked) */
    double launch_t0;         /* when the profiled launch in flight entered */
    td_kernel *launch_kernel; /* and its kernel, which its cost is charged to */
    int in_profiled_launch;
    double waited_s;          /* of the launch in flight: waiting for the app's
                                 own GPU work, which is not profiling cost */
    double excluded_in_launch_s; /* and what it paid once (in setup_s or coverage_s) */
    int launch_covers;        /* it is a kernel's coverage (its first full
                                 measurement): paid once per kernel, in coverage_s */
    double coverage_s;        /* what coverage cost, outside the budget */
    long budget_skipped;      /* launches left timed-only by the budget */
    long new_kernel_launch;   /* td_g.launches when a kernel was last seen first */
    double setup_s, switch_s, decode_s; /* where profiling time goes */
    long switches;
    int device_heap;          /* a loaded module uses the device heap */
    int heap_said;
    long modules_scanned;  /* modules loaded, their cubins' bytes and the time */
    double module_bytes;   /* their device-heap check took (TOPDOWN_DEBUG) */
    double module_scan_s;
    int graph_view;           /* --graph-profiling graph */
    int flush_caches;         /* --cache-control all */
    long replay_failures;
    uint64_t pm_interval_ns;  /* --pm-interval: PM sampling instead of the Range Profiler */
    int pm_said;
    td_sample_every sample;   /* --sample-every (topdown/inject/sample_policy.h) */
    int no_rotation;          /* TOPDOWN_ROTATION=0: a profiler object per group */
    char sample_error[sizeof ((td_error *)0)->msg]; /* a bad --sample-every, said
                                                      after the start record */
} td_inject_state;

/* The process's collection state (state.c). */
extern td_inject_state td_g;

/* Set while this thread runs our code or holds td_g.lock through a launch:
 * a signal arriving then must not flush (the state is mid-change). */
extern _Thread_local int in_our_code;
extern _Thread_local int holding_launch;
/* This thread's launch between its enter and exit callbacks (launches of
 * several threads are traced at once: launch_gate.h). */
extern _Thread_local launch_rec td_current;
extern _Thread_local ctx_state *td_current_ctx;
extern _Thread_local int td_current_profiled;

uint64_t next_launch_id(void);
/* A kernel's measurements on this context; a blank entry when out of memory. */
td_kernel_progress *progress_of(ctx_state *c, const td_kernel *k);
/* The context's profiler holds the rotation's configuration (rotation.c). */
int rotating(const ctx_state *c);

#endif
