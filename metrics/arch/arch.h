/* Architecture tables: archs/<name>.json, pure data, loaded at run time.
 * A table says which hardware counters feed the model on one family of
 * chips, and which model node each stall reason belongs to. The format is
 * documented in docs/ARCH_TABLES.md. */
#ifndef TD_ARCH_H
#define TD_ARCH_H

#include <stddef.h>

#include "metrics/error.h"
#include "metrics/arch/backend.h"
#include "metrics/arch/memory.h"
#include "metrics/arch/sm_limits.h"

#define TD_ARCH_SCHEMA "topdown-arch/1"
#define TD_MAX_STALLS 48

typedef struct td_stall_map {
    char *reason; /* "long_scoreboard" */
    char *metric; /* "smsp__warps_issue_stalled_long_scoreboard.sum" */
    char *node;   /* model node path: "Backend.Memory_Bound.L1_Bound" */
} td_stall_map;

typedef struct td_threshold {
    char *node; /* node path or stall reason */
    double value; /* fraction: 0.2 = 20% */
} td_threshold;

/* A PC-sampling stall reason (TD_PCSAMP_PREFIX taken off, as CUPTI's PC
 * sampling API names it) and the model node its samples go to. */
typedef struct td_pc_map {
    char *reason; /* "long_scoreboard", "no_instructions" */
    char *node;   /* "Backend.Memory_Bound.L1_Bound"; NULL: a state that is
                     no loss and no issue ("not_selected") */
} td_pc_map;

/* One replay-free counter group (metrics/arch/groups.h): metric names. */
typedef struct td_arch_group {
    char **metrics;
    size_t n;
} td_arch_group;

typedef struct td_arch {
    char *name;        /* "gh100": file name without .json */
    char *family;      /* "Hopper" */
    char *description;
    char *path;        /* file it was loaded from */
    char **ccs;        /* "9.0" */
    size_t n_ccs;
    char **chips;      /* "GH100": as cuptiDeviceGetChipName says it */
    size_t n_chips;
    double ipc_max;
    int passes;        /* replay passes of the whole metric set in table order
                          (range profiler, checked by test_arch_passes); 0: not stated */
    int model_passes;  /* those of the model's metrics alone (td_arch_model_metrics:
                          what --replay-mode auto replays); "passes" unless stated */
    td_backend source;  /* counter backend, from the table's "source" key (the field
                           keeps the key's name: topdown/inject/contexts.c reads it) */
    char *counter[TD_COUNTER_COUNT]; /* metric name, NULL where not used */
    td_stall_map *stalls;
    size_t n_stalls;
    td_threshold *thresholds; /* optional per-node overrides */
    size_t n_thresholds;
    td_arch_group *groups;    /* optional one-pass groups, "groups" */
    size_t n_groups;
    td_pc_map *pc_reasons;    /* optional "pc_sampling": PC-sampling reasons */
    size_t n_pc_reasons;
    char **pm_metrics;        /* optional "pm_sampling": the metrics CUPTI's PM
                                 sampling reads in one pass (--pm-interval) */
    size_t n_pm_metrics;
    char *pm_thread_inst;     /* optional "pm_sampling" "thread_inst_executed": the
                                 metric of pm_metrics that stands in for the thread
                                 instructions PM sampling cannot read; NULL: none */
    td_sm_limits *sm_limits;  /* optional "occupancy": per compute capability, what
                                 an SM holds (metrics/arch/sm_limits.h) */
    size_t n_sm_limits;
    td_arch_memory memory;    /* optional "memory": where loads were served, and
                                 each unit's throughput against its peak */
} td_arch;

typedef struct td_arch_set {
    td_arch *items;
    size_t count;
    char *dir;
    char *skipped; /* tables of dir that did not load, their messages joined
                      with "; "; NULL when all loaded */
} td_arch_set;

/* Loads and validates one table. On failure *out is left empty. */
int td_arch_load_file(const char *path, td_arch *out, td_error *err);
/* The same from memory; path names it in messages and must end in
 * NAME.json like a file. */
int td_arch_parse(const char *text, size_t len, const char *path, td_arch *out,
                  td_error *err);
/* Loads every *.json of dir, sorted by name. A table that does not load is
 * left out and its message kept in out->skipped, so one bad file does not
 * stop the others; fails when none loads. */
int td_arch_load_dir(const char *dir, td_arch_set *out, td_error *err);
/* The archs folder: $TOPDOWN_ARCHS, else <exe dir>/archs, else
 * <exe dir>/../share/topdown/archs, else the repository's archs/. */
int td_arch_default_dir(char *buf, size_t size, td_error *err);

const td_arch *td_arch_find(const td_arch_set *set, const char *name);
const td_arch *td_arch_for_chip(const td_arch_set *set, const char *chip);
const td_arch *td_arch_for_cc(const td_arch_set *set, int major, int minor);

/* Every metric the table needs collected, counters first, then stalls,
 * then the "memory" section's, in table order and without duplicates.
 * Returns the count written (<= cap). */
size_t td_arch_metrics(const td_arch *arch, const char **names, size_t cap);
/* The model's alone (counters, then stalls): td_arch_metrics' first ones,
 * the full set a kernel replay measures. The memory section's come from
 * the counter groups only: in a replay they doubled its time (PyTorch on
 * an H200, 55 -> 108 ms a replay). */
size_t td_arch_model_metrics(const td_arch *arch, const char **names, size_t cap);
/* The table's entry for a PC-sampling reason, named as CUPTI does
 * ("smsp__pcsamp_warps_issue_stalled_wait") or short ("wait"); NULL when
 * the table does not know it. */
const td_pc_map *td_arch_pc_reason(const td_arch *arch, const char *name);
/* Threshold override for a node path or reason; returns fallback if none. */
double td_arch_threshold(const td_arch *arch, const char *node, double fallback);

void td_arch_free(td_arch *arch);
void td_arch_set_free(td_arch_set *set);

#endif
