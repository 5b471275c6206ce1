/* The result file: versioned JSON ("schema": "topdown-result/2", compact;
 * "topdown-result/1" still read) holding everything needed to recompute
 * the model offline. Documented in docs/RESULT_FORMAT.md. */
#ifndef TD_RESULT_H
#define TD_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "intern.h"

#define TD_RESULT_SCHEMA "topdown-result/2"    /* written */
#define TD_RESULT_SCHEMA_V1 "topdown-result/1" /* still read */

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
} td_launch;

#define TD_GROUP_ALL (-1)

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
    char *arch;           /* arch table name used for collection */
    int passes;           /* replay passes the counter set needs; 0 unknown */
    char **metrics;       /* counter names, order of td_launch.counters */
    size_t n_metrics;
    td_counter_group *groups; /* replay-free groups; NULL/0 when every
                                 profiled launch measured every metric */
    size_t n_groups;
    td_launch *launches;
    size_t n_launches;
    size_t cap_launches;
    td_names names;       /* kernel names the launches point into */
    char *source;         /* optional: the process (rank) the section came from,
                             set by `topdown merge`; NULL: this file's own */
    struct td_pm_samples *pm; /* optional PM-sampling timeline (--pm-interval,
                                 metrics/pm_samples.h); NULL: none */
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

/* Building results (collection, importers, tests). Strings are copied. */
td_device *td_result_add_device(td_result *res, td_error *err);
int td_device_set_metrics(td_device *dev, const char *const *names, size_t n,
                          td_error *err);
/* Appends a launch; counters (dev->n_metrics values) copied when not NULL.
 * The name is interned in the device's table; NULL or "" become "?". */
td_launch *td_device_add_launch(td_device *dev, const char *kernel,
                                const double *counters, td_error *err);
/* Room for n more launches without reallocating (readers that know the
 * count). */
int td_device_reserve_launches(td_device *dev, size_t n, td_error *err);
/* Copies the device's replay-free groups (indices into dev->metrics,
 * checked against n_metrics). */
int td_device_set_groups(td_device *dev, const td_counter_group *groups, size_t n,
                         td_error *err);
/* The device's copy of a name (kernel, mangled), for launch fields; NULL
 * when out of memory. */
const char *td_device_intern(td_device *dev, const char *name);
/* Index of a metric in dev->metrics, or -1. */
int td_device_metric_index(const td_device *dev, const char *name);

char *td_strdup(const char *s); /* NULL-safe */

#endif
