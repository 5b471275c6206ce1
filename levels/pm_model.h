/* The model of MODEL.md over PM samples (--pm-interval): each sample's
 * GPU-wide counters go through the same formulas as a launch's
 * (td_model_counters). PM sampling reads only the counters that fit one
 * pass (the arch table's "pm_sampling"), so some nodes cannot be split:
 *   no thread_inst_executed: Retire includes Divergence.Branch;
 *   no inst_issued: Divergence.Replay is counted as stalled slots;
 *   not every stall reason: Frontend and Backend stay one "Stalled" share.
 * td_pm_model_unsplit says which, in words. */
#ifndef TD_PM_MODEL_H
#define TD_PM_MODEL_H

#include <stddef.h>

#include "levels/model.h"
#include "metrics/result/pm_samples.h"

/* Level-1 columns of a PM timeline, in this order. */
enum { TD_PM_RETIRE, TD_PM_DIVERGENCE, TD_PM_FRONTEND, TD_PM_BACKEND, TD_PM_STALLED,
       TD_PM_COLUMNS };
extern const char *const td_pm_column_names[TD_PM_COLUMNS];

typedef struct td_pm_model {
    td_model model;
    td_binding bind;                /* into the vector td_pm_model_point builds */
    int col[TD_COUNTER_COUNT];      /* column of each counter in the samples, -1: none */
    int stall_col[TD_MAX_STALLS];
    int split_branch;               /* Retire and Divergence.Branch apart */
    int thread_stand_in;            /* ... by the arch table's stand-in (predicate on) */
    int split_replay;               /* Divergence.Replay measured */
    int split_stalls;               /* Frontend and Backend apart */
    /* the memory section's units whose every measure the samples carry
     * (speed of light over time): each measure's work, peak and cycles */
    int unit_ok[TD_MEM_MAX_UNITS];
    int work_col[TD_MEM_MAX_UNITS][TD_MEM_MAX_COUNTS];
    int peak_col[TD_MEM_MAX_UNITS], cycles_col[TD_MEM_MAX_UNITS];
} td_pm_model;

/* Binds the samples' metrics to the table. Fails when the samples lack
 * cycles_active or inst_executed (no level 1 at all) or the table is not a
 * Range Profiler (CUPTI) table. */
int td_pm_model_init(td_pm_model *pm, const td_arch *arch, const td_pm_samples *s,
                     td_error *err);

typedef struct td_pm_point {
    int busy;                       /* the sample had active SM cycles */
    double share[TD_PM_COLUMNS];    /* % of issue slots; sums to 100 when busy */
    double ipc;
    double unit_pct[TD_MEM_MAX_UNITS]; /* each unit's throughput, % of its peak
                                          (its busiest measure); NAN: not sampled */
} td_pm_point;

/* The level-1 split and the units' throughput of `rows` sample rows
 * summed into row (a peak per cycle sums to rows x itself). */
void td_pm_model_point(const td_pm_model *pm, const double *row, size_t rows,
                       td_pm_point *out);
/* Whether unit u is shown: it is its name's first entry and every entry
 * of its name was sampled (a unit read from some of its measures reads
 * low where the busiest is the one missing). */
int td_pm_model_shows_unit(const td_pm_model *pm, size_t u);

/* What the samples cannot split, one sentence per node, into buf (empty
 * when everything splits). Returns the number of sentences. */
int td_pm_model_unsplit(const td_pm_model *pm, char *buf, size_t size);

#endif
