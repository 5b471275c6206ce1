/* One line per kernel (ncu's --print-summary per-kernel, toplev's
 * --metric-only): its name, share of GPU time, level-1 shares and
 * bottleneck, then the application's line. Aligned columns, or fields
 * separated by sep (toplev's -x SEP). */
#ifndef TD_REPORT_SUMMARY_H
#define TD_REPORT_SUMMARY_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "metrics/result/result.h"

/* sep NULL: aligned columns; else each field separated by sep, names
 * kept whole (quoted when they hold sep). nodes (--nodes, NULL: level 1):
 * the node columns. The bottleneck is searched down
 * to level (3 at least: -l 4 adds the stall reason). name_base: how
 * kernels are named in the aligned columns (report/kname.h). */
int td_report_per_kernel(FILE *out, const td_result *res, const td_summary *s, const char *sep,
                         const char *nodes, int level, int name_base, td_error *err);

#endif
