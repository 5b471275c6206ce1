/* Speed of light in the outputs (docs/OUTPUTS.md "Speed of light"): each
 * unit of the arch table's "memory" section as % of its peak, the line of
 * --page details, its JSON, and the Fix line of a level-5 source node,
 * which reads its unit's throughput: near the peak the loads are
 * bandwidth-bound, far below it they wait on latency. */
#ifndef TD_REPORT_THROUGHPUT_H
#define TD_REPORT_THROUGHPUT_H

#include <stdio.h>

#include "levels/aggregate.h"

struct cJSON;

/* At or over this % of its peak, a unit is taken as the limit (ncu's
 * Speed of Light rule of thumb: 60% and above is high utilisation). */
#define TD_SOL_BOUND_PCT 60.0

/* Kernel ks's units, % of peak (NAN: not measured), in table order. */
void td_kernel_throughput(const td_model *m, const td_kernel_summary *ks,
                          double pct[TD_MEM_MAX_UNITS]);
/* "  Speed of light: SM_Issue 12.3%, L1 45.6%, L2 30.1%, DRAM 91.2% of
 * peak"; nothing where the table has no units. */
void td_print_throughput(FILE *out, const td_model *m, const double *pct);
/* {"DRAM": 91.2, ...} (null where not measured) as "throughput_pct_of_peak"
 * of obj; nothing where the table has no units. -1: out of memory. */
int td_throughput_add_json(struct cJSON *obj, const td_model *m, const double *pct);
/* The Fix line of source node `node` by its unit's throughput; NULL where
 * it is no source, has no unit, or the unit was not measured. */
const char *td_source_fix(const td_model *m, int node, const double *pct, char *buf,
                          size_t size);

#endif
