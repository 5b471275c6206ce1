/* The result file: versioned JSON ("schema": "topdown-result/2", compact;
 * "topdown-result/1" still read) holding everything needed to recompute
 * the model offline. Documented in docs/RESULT_FORMAT.md. */
#ifndef TD_RESULT_H
#define TD_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/result/conditions.h"
#include "metrics/result/cost.h"
#include "metrics/error.h"
#include "metrics/intern.h"
#include "metrics/strcopy.h"

#define TD_RESULT_SCHEMA "topdown-result/2"    /* written */
#define TD_RESULT_SCHEMA_V1 "topdown-result/1" /* still read */

/* What a launch held on the SM, from CUPTI's kernel activity record
 * (docs/RESULT_FORMAT.md, "config_resources"); recorded = 0 in results
 * written before it was recorded, and where the record never came. */
typedef struct td_launch_resources {
    uint32_t registers;      /* per thread (registersPerThread) */
    uint32_t static_shared;  /* bytes per block (staticSharedMemory) */
    uint32_t dynamic_shared; /* bytes per block (dynamicSharedMemory) */
    uint32_t shared_config;  /* bytes of shared memory per SM the driver set
                                (sharedMemoryExecuted); 0: unknown */
    uint32_t recorded;       /* 1: the fields above hold the record's values */
} td_launch_resources;

typedef struct td_launch {
    uint64_t id;          /* launch order within the process, from 0 */
    const char *kernel;   /* demangled name, never empty; borrowed from the
                             device's name table (td_device_intern) */
    const char *mangled;  /* may be NULL; borrowed like kernel */
    unsigned grid[3];
    unsigned block[3];
    uint64_t stream;
    uint64_t start_ns;    /* 0 when unknown */
    double duration_ns;   /* measured for every launch */
    int profiled;         /* counters valid */
    int group;            /* counter group measured (index into the device's
                             groups), TD_GROUP_ALL: every metric (replay) */
    double *counters;     /* n = device metrics, NULL when !profiled; for a
                             group launch only the group's metrics hold
                             values, the others are 0 */
    uint64_t graph_id;    /* CUDA graph the kernel ran in; 0: not a graph */
    uint64_t graph_node;  /* its node in that graph; 0: unknown/none */
    const char *region;   /* NVTX ranges it was launched in (topdown/inject/nvtx_filter.h);
                             NULL: none; borrowed like kernel */
    td_launch_resources resources; /* registers and shared memory; optional */
} td_launch;

#define TD_GROUP_ALL (-1)

/* A memory copy or memset seen by CUPTI's activity API (docs/RESULT_FORMAT.md
 * "copies"). Kept apart from launches: no counters, no kernel. */
typedef enum td_copy_kind { TD_COPY_MEMCPY, TD_COPY_MEMSET, TD_COPY_PEER, TD_COPY_KINDS } td_copy_kind;

/* Direction codes, the same numbers as CUPTI's CUpti_ActivityMemcpyKind. */
enum { TD_COPY_DIR_UNKNOWN = 0, TD_COPY_DIR_PTOP = 10, TD_COPY_DIRECTIONS = 11 };

typedef struct td_copy {
    uint64_t start_ns;    /* 0 when unknown */
    uint64_t bytes;
    uint64_t stream;
    double duration_ns;
    uint32_t corr;        /* CUPTI correlation id of the API call; 0: none */
    uint8_t kind;         /* td_copy_kind */
    uint8_t direction;    /* TD_COPY_DIR_*: HtoD, DtoH, DtoD, PtoP... */
    int32_t src_device;   /* device ordinals of a peer copy; -1: not a device */
    int32_t dst_device;
} td_copy;

/* A one-pass counter group of replay-free collection: indices into the
 * device's metrics. */
typedef struct td_counter_group {
    size_t *metrics;
    size_t n;
} td_counter_group;

typedef struct td_device {
    int index;            /* CUDA device ordinal */
    uint32_t context;     /* context id; several per device possible */
    char *name;           /* "NVIDIA H100 80GB HBM3" */
    char *chip;           /* "GH100" */
    int cc_major, cc_minor;
    int sm_count;
    int clock_mhz;        /* the GPU's typical SM clock (CUDA's CLOCK_RATE
                             attribute: 1980 on an H100 or H200); 0: unknown */
    char *arch;           /* arch table name used for collection */
    int passes;           /* replay passes the counter set needs; 0 unknown */
    char **metrics;       /* counter names, order of td_launch.counters */
    size_t n_metrics;
    size_t n_full;        /* the leading metrics a full-set launch (kernel replay)
                             measured ("full_set"); 0: all of them. The arch table's
                             memory counters come only from the counter groups:
                             in a replay they doubled its time (H200, PyTorch) */
    td_counter_group *groups; /* replay-free groups; NULL/0 when every
                                 profiled launch measured every metric */
    size_t n_groups;
    td_launch *launches;
    size_t n_launches;
    size_t cap_launches;
    td_names names;       /* kernel names the launches point into */
    char *origin;         /* optional: the process (rank) the section came from,
                             set by `topdown merge` (the key "source"); NULL: this
                             file's own */
    td_copy *copies;      /* memcpy/memset/peer copies on this context, by start */
    size_t n_copies, cap_copies;
    struct td_pcsamp *pcsamp; /* optional PC samples (--source, metrics/result/pcsamp.h) */
    struct td_pm_samples *pm; /* optional PM-sampling timeline (--pm-interval,
                                 metrics/result/pm_samples.h); NULL: none */
} td_device;

typedef struct td_result {
    char *tool_version;
    char *created;        /* ISO 8601 UTC */
    int synthetic;        /* 1: made up, not measured; said in the report */
    char *note;           /* free text, may be NULL */
    char **argv;          /* profiled command line */
    size_t argc;
    int exit_code;        /* app exit code; -1 when it died by a signal */
    int term_signal;      /* signal that ended the app, 0 if none */
    char *status;         /* "complete", "partial", "crashed", "interrupted" */
    char *replay_mode;    /* "kernel", "none", "auto"; NULL: unknown (old files) */
    double overhead_pct;  /* cost budget asked for, % of native; 0: none/unknown */
    td_conditions conditions; /* caches and clocks while measuring; optional */
    td_cost cost;         /* what profiling cost, as measured; optional */
    td_device *devices;
    size_t n_devices;
} td_result;

int td_result_load(const char *path, td_result *out, td_error *err);
/* Parses from memory; name is used in messages only. */
int td_result_parse(const char *text, size_t len, const char *name,
                    td_result *out, td_error *err);
/* Writes atomically (temp file + rename). */
int td_result_save(const char *path, const td_result *res, td_error *err);
void td_result_free(td_result *res);
/* The most counter groups of res's device sections (0: none replay-free). */
size_t td_result_most_groups(const td_result *res);
/* Appends text to the result's note ("; " between); -1 out of memory. */
int td_result_append_note(td_result *res, const char *text);
/* The collection a launcher's later runs made of the result: its replay
 * mode becomes mode and text joins the note; -1 out of memory (res as it
 * was, but perhaps the note). */
int td_result_set_collection(td_result *res, const char *mode, const char *text);
/* 1 when the run's cost passed the budget it was given (td_cost_over_budget,
 * why in words into why); 0 for modes no budget governs (application
 * replay and --time-sampled run the app more than once by design). */
int td_result_budget_exceeded(const td_result *res, char *why, size_t size);

/* Building results (collection, importers, tests). Strings are copied. */
td_device *td_result_add_device(td_result *res, td_error *err);
/* Sets the metric names; refused once a launch has counters (their order
 * is this list's). */
int td_device_set_metrics(td_device *dev, const char *const *names, size_t n,
                          td_error *err);
/* Appends a launch; counters (dev->n_metrics values) copied when not NULL.
 * The name is interned in the device's table; NULL or "" become "?". */
td_launch *td_device_add_launch(td_device *dev, const char *kernel,
                                const double *counters, td_error *err);
/* Room for n more launches without reallocating (readers that know the
 * count). */
int td_device_reserve_launches(td_device *dev, size_t n, td_error *err);
/* Appends a launch whose kernel name is already the device's interned
 * copy (td_device_intern); counters copied when not NULL (the readers of
 * the result file and of the spool). */
td_launch *td_device_append_launch(td_device *dev, const char *interned_kernel,
                                   const double *counters, td_error *err);
/* Copies the device's replay-free groups (indices into dev->metrics,
 * checked against n_metrics). */
int td_device_set_groups(td_device *dev, const td_counter_group *groups, size_t n,
                         td_error *err);
/* Frees n groups and the array that holds them. */
void td_counter_groups_free(td_counter_group *groups, size_t n);
/* The device's copy of a name (kernel, mangled), for launch fields; NULL
 * when out of memory. */
const char *td_device_intern(td_device *dev, const char *name);
/* Appends a copy (copied). */
int td_device_add_copy(td_device *dev, const td_copy *copy, td_error *err);
/* Room for n more copies without reallocating. */
int td_device_reserve_copies(td_device *dev, size_t n, td_error *err);
/* "memcpy", "memset", "peer"; "HtoD", "DtoH", "PtoP"...; "?" out of range. */
const char *td_copy_kind_name(unsigned kind);
const char *td_copy_direction_name(unsigned direction);

/* Counter-group launches that set a replay's quantity aside (the
 * estimator, levels/estimate.h says why 2), and that the collector takes
 * of each group of a replayed kernel (natural coverage). */
#define TD_EST_NATURAL_MIN 2

/* The threads of a launch of this grid and block (a 0 dimension counts as 1). */
double td_launch_threads(const unsigned grid[3], const unsigned block[3]);
/* Its size class: floor(log2(threads)), at most 63. The collector samples
 * each kernel's size classes (topdown/inject/group_sampler.h); the
 * estimator sets a replay against launches of its size class
 * (levels/estimate.c), the same in a replay and in the app's own run,
 * where its duration is not. */
unsigned td_launch_size_class(const unsigned grid[3], const unsigned block[3]);
/* The size class of this many threads (the activity records give threads,
 * not a grid and a block). */
unsigned td_threads_size_class(double threads);

/* The metrics a full-set launch of dev measured: the first this many. */
size_t td_device_full_set(const td_device *dev);
/* Whether launch l of section dev measured metric index `metric` (its
 * counter group holds it, or it measured the full set, which holds it). */
int td_launch_measured(const td_device *dev, const td_launch *l, int metric);
/* Index of a metric in dev->metrics, or -1. */
int td_device_metric_index(const td_device *dev, const char *name);

/* td_strdup: metrics/strcopy.h, included above for the modules that use it with the result */

#endif
