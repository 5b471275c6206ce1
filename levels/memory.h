/* Level 5 and speed of light (docs/MODEL.md "Level 5: where the data came
 * from" and "Speed of light"), from the arch table's "memory" section.
 * Pure: sums over a kernel's profiled launches, no CUPTI.
 *
 * Split: a load waited on by long_scoreboard was served by L1, L2 or
 * DRAM; the stall's warp-cycles are shared among them in proportion to
 * sectors served there times that level's load-to-use latency (the wait a
 * sector served there costs). The MIO's stalls (mio_throttle,
 * short_scoreboard) are shared the same way among what the MIO served:
 * shared-memory wavefronts, the ADU's busy cycles, XU instructions, each
 * times its service cycles. The counts are the kernel's own, summed over
 * the launches that measured them with the stall (the same pass).
 *
 * Speed of light: each unit's work over the most it could have done while
 * the kernel ran (peak per cycle x the range's elapsed cycles x the share
 * of the range the kernel's own duration is), summed over the launches
 * that measured them: the duration-weighted mean of ncu's
 * pct_of_peak_sustained_elapsed for that one counter. */
#ifndef TD_MEMORY_H
#define TD_MEMORY_H

#include "levels/model.h"

typedef struct td_mem_totals {
    double weighted[TD_MEM_MAX_SOURCES]; /* units served there x their cycles */
    size_t split_launches;               /* launches that measured a stall's sources */
    double work[TD_MEM_MAX_UNITS];       /* each unit's work */
    double capacity[TD_MEM_MAX_UNITS];   /* peak per cycle x elapsed cycles */
    size_t unit_launches[TD_MEM_MAX_UNITS];
} td_mem_totals;

/* Adds a profiled launch of device section dev (modelled by m, bound by b). */
void td_mem_add_launch(td_mem_totals *t, const td_model *m, const td_binding *b,
                       const td_device *dev, const td_launch *l);
/* Each source's share of the stall it splits (summing to 1 over the
 * stall's sources); returns the sources whose stall has shares (bit s for
 * source s): none where no launch measured a unit (nothing to split). */
unsigned td_mem_shares(const td_model *m, const td_mem_totals *t, double *share);
/* Measure u's throughput, % of its peak; NAN where no launch measured it. */
double td_mem_pct(const td_mem_totals *t, size_t u);
/* The throughput of measure u's unit: the highest of the measures of its
 * name; NAN where none was measured. */
double td_mem_unit_pct(const td_arch_memory *mem, const td_mem_totals *t, size_t u);
/* Whether entry u is its unit's first (the one the outputs name). */
int td_mem_unit_first(const td_arch_memory *mem, size_t u);
/* Sets the sources of mean (and spread, when not NULL) from their
 * stall's value and the shares: a source's spread is its share of the
 * stall's (the shares are the kernel's measured totals). Leaves them
 * absent (their bit of `sources` clear) where the shares are not known. */
void td_mem_split(const td_model *m, const td_mem_totals *t, td_breakdown *mean,
                  td_breakdown *spread);

#endif
