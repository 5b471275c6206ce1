/* A kernel's launch statistics, ncu's Launch Statistics and Occupancy
 * sections and nsys's kernel summary: its launches' durations, its
 * commonest launch configuration (grid, block, registers, shared memory),
 * that configuration's theoretical occupancy on the device's SM
 * (levels/occupancy.h, the arch table's "occupancy") and the occupancy its
 * profiled launches achieved (warps_active over cycles_active). */
#ifndef TD_LAUNCH_STATS_H
#define TD_LAUNCH_STATS_H

#include "levels/durations.h"
#include "levels/model.h"
#include "levels/occupancy.h"

typedef struct td_launch_config {
    unsigned grid[3], block[3];
    td_launch_resources resources; /* recorded = 0: the result does not hold them */
    size_t launches;               /* the kernel's launches of this configuration */
    size_t dev;                    /* the device section of the first of them */
} td_launch_config;

typedef struct td_launch_stats {
    td_duration_stats durations; /* every launch of the kernel */
    td_launch_config config;     /* its commonest configuration (the first seen of a tie) */
    size_t configs;              /* distinct configurations among its launches */
    unsigned max_warps;          /* resident warps an SM of config's device holds; 0:
                                    its arch table has no occupancy row for its CC */
    int has_theoretical;         /* max_warps known and config's resources recorded */
    td_occupancy theoretical;    /* of config, when has_theoretical */
    double waves;                /* config's blocks over what the device's SMs hold at
                                    once (ncu's Waves Per SM); NAN: not known */
    double achieved_pct;         /* warps resident per active cycle over max_warps, its
                                    profiled launches together; NAN: none measured it */
    size_t achieved_launches;    /* the profiled launches behind achieved_pct */
    double measured_max_ns;      /* its longest profiled launch; 0: none profiled */
    double beyond_measured_ns;   /* the time of its launches longer than
                                    TD_BEYOND_MEASURED times that: its tree stands
                                    for none of them */
} td_launch_stats;

/* A launch this many times longer than every profiled launch of its kernel
 * is of another regime than any measured: td_sort's radix_scan launches one
 * block every time, for 1 us to 1.6 ms of work, and its 16 launches of
 * 1.55 ms (44% of the app's GPU time) were never measured (H200,
 * 2026-11-29). A kernel replay takes about twice a launch's own time, far
 * below it. */
#define TD_BEYOND_MEASURED 8.0
/* The report notes a kernel with this share of its time or more beyond
 * its measured launches. */
#define TD_BEYOND_NOTE 0.10

/* The share of the kernel's time in launches beyond its measured ones
 * (beyond_measured_ns over its total; 0 where it took no time); the report
 * notes it from TD_BEYOND_NOTE. */
double td_launch_beyond_share(const td_launch_stats *ls);

/* stats[k] of the kernel named names[k] (n distinct names), from every
 * launch of res of that name; models and bindings: one per device section
 * (levels/aggregate.h). A launch of another name is not counted. */
int td_launch_stats_of(const td_result *res, const td_model *models,
                       const td_binding *bindings, const char *const *names, size_t n,
                       td_launch_stats *stats, td_error *err);

#endif
