/* MODEL.md section 6: duration-weighted means per kernel and for the app. */
#ifndef TD_AGGREGATE_H
#define TD_AGGREGATE_H

#include "levels/launch_stats.h"
#include "levels/memory.h"
#include "levels/model.h"

/* No NVIDIA GPU's SM clock reaches it (GH100 boosts to 1980 MHz). The
 * clock is the elapsed cycles over the range's own measured duration; a
 * launch without that duration is divided by its activity duration, which
 * a range outlasts (NCCL's all-reduce in a 2-rank DDP loop: 29,115 MHz by
 * that count, two H200s, 2026-11-26): over this, it is left out. */
#define TD_SM_CLOCK_MAX_MHZ 4000.0

typedef struct td_kernel_summary {
    const char *name;      /* borrowed from the result */
    size_t launches;       /* all launches, profiled or not */
    size_t profiled;       /* launches with counters */
    double total_ns;       /* all launches */
    td_breakdown mean;     /* duration-weighted over profiled launches */
    td_breakdown spread;   /* each node's spread: the half-width of its 95%
                              interval (levels/estimate.h), TD_EST_FLOOR for a
                              kernel measured whole, its graph's where it
                              inherits a CUDA graph's tree */
    td_breakdown conditions; /* of the spread: kernel replay against the counter
                                groups, where both measured it (levels/estimate.h) */
    double level1_elsewhere; /* share of its time whose level 1 is another launch
                                size's (levels/estimate.h) */
    double level1_other_kind; /* ... another kind of work's, parted by a gap in
                                 its durations (levels/estimate.h) */
    td_verdict verdict;    /* its bottleneck and nodes over threshold */
    int has_data;          /* some profiled launch had active cycles */
    int model;             /* index into td_summary.models of its first device */
    int mixed_arch;        /* launches under different arch tables: the mean
                              has no level 4, and no level 3 if one is legacy */
    int multiplexed;       /* the mean combines counter groups (levels/combine.h) */
    size_t group_launches; /* profiled launches that measured one group */
    size_t stalls_missing; /* stall reasons no launch measured (incomplete
                              rotation): the stall split is then not made;
                              the table's reasons + 1 when not even level 1 */
    int sampled;           /* not every launch measured the full set: the
                              tree is the estimator's (levels/estimate.h) */
    uint64_t graph;        /* its launches came from this CUDA graph (0: none,
                              or several) */
    int graph_whole;       /* a pseudo-kernel: whole launches of that graph */
    int graph_level;       /* its tree is its graph's (no range per node) */
    /* The SM clock of its profiled launches that measured it (elapsed SM
     * cycles of the busiest SM over the launch's duration), in MHz;
     * clocks = 0: none did (the table names no cycles_elapsed_max). */
    size_t clocks;
    double clock_min_mhz, clock_median_mhz, clock_max_mhz;
    size_t clocks_unreal; /* launches whose cycles over duration exceed TD_SM_CLOCK_MAX_MHZ */
    td_launch_stats launch; /* its durations, commonest configuration, occupancy */
    td_mem_totals mem;      /* where its loads were served, its units' throughput
                               (levels/memory.h; its model's table's "memory") */
} td_kernel_summary;

typedef struct td_summary {
    td_kernel_summary *kernels; /* heaviest (total time) first */
    size_t n_kernels;
    td_breakdown app;      /* weighted by each kernel's total time */
    td_breakdown app_spread; /* the kernels' spreads weighted by time shares */
    td_verdict app_verdict;
    int app_has_data;
    double total_ns;       /* all launches */
    double covered_ns;     /* time of kernels with data (the app's weights) */
    size_t launches, profiled;
    size_t group_launches; /* profiled launches that measured one counter group */
    size_t incomplete;     /* kernels with stall reasons never measured */
    size_t graph_launches; /* kernel launches that came from CUDA graphs */
    td_model *models;      /* one per device section of the result */
    td_binding *bindings;
    size_t n_models;
    int mixed_arch;        /* device sections use different tables: no level 4 */
    /* Each unit of the model's table's "memory" section: its throughput in
     * % of peak, the kernels' weighted by their time (NAN: none measured). */
    double app_throughput[TD_MEM_MAX_UNITS];
} td_summary;

/* Whether the table named arch (--arch) can model every device section
 * of res that has profiled launches: its counters are there. 0, or -1
 * naming the device and the counter missing. */
int td_arch_fits(const td_result *res, const td_arch_set *archs, const char *arch,
                 td_error *err);

/* Resolves each device section's arch table (arch_override, if not NULL,
 * replaces the name recorded in the result) and computes every mean. */
int td_summarize(const td_result *res, const td_arch_set *archs,
                 const char *arch_override, td_summary *out, td_error *err);
/* The same with another node list than the built-in one. */
int td_summarize_nodes(const td_result *res, const td_arch_set *archs,
                       const char *arch_override, const td_node_set *nodes,
                       td_summary *out, td_error *err);
/* The model of one profiled launch of device section dev. */
int td_summary_launch(const td_summary *s, const td_result *res, size_t dev,
                      size_t launch, td_breakdown *out, td_error *err);
/* The model used for level 4 and thresholds of the app tree. */
const td_model *td_summary_model(const td_summary *s);
void td_summary_free(td_summary *s);

#endif
