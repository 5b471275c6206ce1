/* The modelled tree as JSON ("schema": "topdown-tree/1", docs/OUTPUTS.md):
 * the application, then every kernel heaviest first, each with every node
 * of the resolved tree down to a level (path, level, kind, share of issue
 * slots, over its threshold, bottleneck). What the text tree shows, for
 * programs. */
#ifndef TD_REPORT_JSON_H
#define TD_REPORT_JSON_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "metrics/result/conditions.h"
#include "metrics/result/cost.h"

#define TD_TREE_SCHEMA "topdown-tree/1"

/* origin: the result file's name for the "source" key (may be NULL);
 * conditions: the result's measurement conditions, a "conditions" object
 * when recorded (may be NULL); cost: what profiling cost, a "cost" object
 * with the report's estimate when recorded (may be NULL); nodes: --nodes,
 * each tree's nodes only those td_node_selected shows (report/columns.h;
 * NULL: all). */
int td_report_json(FILE *out, const td_summary *s, int level, const char *origin,
                   const td_conditions *conditions, const td_cost *cost, const char *nodes,
                   td_error *err);

struct cJSON;
/* Prints root (numbers in the C locale) and a newline, then deletes it;
 * NULL root: out of memory. Every --json output goes through it. */
int td_json_print(FILE *out, struct cJSON *root, td_error *err);

#endif
