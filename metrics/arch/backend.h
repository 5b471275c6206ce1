/* Counter backends as records: where a table's counters come from (the
 * arch table's "source" key), which abstract counters the table must name
 * and the result must hold, how deep the model tree goes on them, and how
 * they become issue rates. A new backend is a new record here. */
#ifndef TD_BACKEND_H
#define TD_BACKEND_H

#include <stddef.h>

/* Where a table's counters come from. */
typedef enum td_backend {
    TD_BACKEND_RANGE_PROFILER, /* CUPTI Range Profiler, CC >= 7.5 */
    TD_BACKEND_NVPROF,         /* nvprof --metrics CSV, CC < 7.5 */
    TD_BACKEND_COUNT
} td_backend;

/* The old name, which topdown/inject/contexts.c still uses: the collector
 * changes only with a run on a GPU. */
#define TD_SOURCE_RANGE_PROFILER TD_BACKEND_RANGE_PROFILER

/* Abstract counters of MODEL.md section 2 (range profiler) and section 5
 * (nvprof). A table names the metric behind each one its backend needs. */
typedef enum td_counter {
    TD_C_INST_EXECUTED,
    TD_C_INST_ISSUED,
    TD_C_THREAD_INST_EXECUTED,
    TD_C_CYCLES_ACTIVE,
    TD_C_DURATION_NS,
    TD_C_IPC,        /* nvprof: ipc */
    TD_C_ISSUED_IPC, /* nvprof: issued_ipc */
    TD_C_WARP_EFF,   /* nvprof: warp_execution_efficiency, in % */
    /* Optional, in every counter group of a table that names them: each
     * pass's own denominators (levels/estimate.h) and the SM clock. */
    TD_C_WARPS_ACTIVE,      /* warp-cycles resident (sm__warps_active.sum) */
    TD_C_CYCLES_ELAPSED_MAX, /* SM cycles elapsed, the busiest SM (clock = this / duration) */
    TD_COUNTER_COUNT
} td_counter;

/* What the model's level 1 is computed from (MODEL.md section 3). */
typedef struct td_issue_rates {
    double ipc;        /* executed warp instructions per active SM cycle */
    double ipc_issued;
    double warp_eff;   /* 0..1 */
    int has_slots;     /* the launch had active cycles */
} td_issue_rates;

/* One counter a backend needs: the table must name it; in_result: a
 * profiled launch must also hold it (duration comes from elsewhere for
 * nvprof, and is not a model input for the range profiler). */
typedef struct td_backend_need {
    td_counter counter;
    int in_result;
} td_backend_need;

#define TD_BACKEND_MAX_NEEDS 8

typedef struct td_backend_info {
    td_backend id;
    const char *key;    /* "range_profiler": the table's "source" */
    const char *label;  /* "cupti": list-archs' column */
    int depth;          /* deepest fixed tree level its stall reasons fill */
    td_backend_need needs[TD_BACKEND_MAX_NEEDS];
    size_t n_needs;
    /* counters: a launch's values; index[c]: where counter c sits in them. */
    td_issue_rates (*rates)(const double *counters, const int *index);
} td_backend_info;

const td_backend_info *td_backend_get(td_backend id);
/* By the table's "source" key; NULL if none. */
const td_backend_info *td_backend_find(const char *key);
/* "range_profiler" or "nvprof", for messages. */
const char *td_backend_keys(void);
/* The deepest fixed level any backend fills. */
int td_backend_max_depth(void);

/* JSON key of each abstract counter ("inst_executed", ...). */
const char *td_counter_key(td_counter c);
/* By JSON key; -1 if none. */
int td_counter_find(const char *key);

#endif
