/* The node columns shared by the CSV, plot, timeline and diff outputs:
 * which nodes a level shows, in tree order, named by their dotted path,
 * and how to read a node's value from a breakdown. Level-4 columns are the
 * stall reasons of the arch tables involved. */
#ifndef TD_REPORT_COLUMNS_H
#define TD_REPORT_COLUMNS_H

#include <locale.h>
#include <stdio.h>

#include "../levels/aggregate.h"

/* The name the outputs give the whole application's row. */
#define TD_APP_ROW "<application>"

typedef struct td_column {
    char path[160];     /* "Backend.Memory_Bound" or "...L1_Bound.long_scoreboard" */
    int node;           /* td_node; for a stall reason, the node it sits under */
    const char *reason; /* NULL for a tree node; else the stall reason (borrowed) */
    int level;          /* 1..4 */
    int leaf;           /* no other column lies below it: a segment of a stacked bar */
} td_column;

typedef struct td_columns {
    td_column *items;
    size_t count;
} td_columns;

/* Every tree node down to min(level, max_node_level, 3), in tree order
 * (pre-order), then for level 4 the stall reasons of the given models
 * (union, first model's order first) under their node. max_node_level lets
 * a plot stop at the depth its tables fill (2 for legacy tables). */
int td_columns_build(td_columns *out, const td_model *const *models, size_t n_models,
                     int level, int max_node_level, td_error *err);
/* The leaves of that tree down to the depth every model fills: with
 * "Unattributed" they split 100% of the slots (the segments of a stacked
 * bar). Level 4 on tables of different depths stops at the level-3 leaves. */
int td_columns_segments(td_columns *out, const td_model *const *models, size_t n_models,
                        int level, td_error *err);
void td_columns_free(td_columns *cols);

/* A column's value (fraction of issue slots) in b, computed with model m;
 * NAN where m has no counter behind it (legacy level 3, a stall reason the
 * table lacks, Tensor before Hopper) or b has no slots. */
double td_column_value(const td_column *c, const td_model *m, const td_breakdown *b);

/* Shallowest depth (deepest level filled) over the models: 2 or 3. */
int td_models_min_depth(const td_model *const *models, size_t n_models);

/* Path of a bottleneck returned by td_bottleneck ("" for none). */
const char *td_bottleneck_path(const td_model *m, int bottleneck, char *buf, size_t size);

/* Whether a breakdown can be printed as it is: every value a finite
 * number, and level 1 plus Unattributed summing to 100% of the slots. A
 * result whose counters overflow the model (values near 1e308, denormal
 * cycle counts) fails here instead of printing nan, inf or shares that do
 * not add up. what names it in the message ("kernel k", "the application"). */
int td_breakdown_printable(const td_breakdown *b, const char *what, td_error *err);
/* The same for every mean of a summary, and its times. */
int td_summary_printable(const td_summary *s, td_error *err);

/* Numbers in the C locale whatever the process locale: the outputs are read
 * by programs. td_c_numeric_begin switches this thread to the C locale and
 * returns the previous one, which td_c_numeric_end restores. */
typedef struct td_c_numeric {
    locale_t c_locale;
    locale_t previous;
} td_c_numeric;

int td_c_numeric_begin(td_c_numeric *state, td_error *err);
void td_c_numeric_end(td_c_numeric *state);

/* A launch of the result, by device section and index, with its
 * invocation number: how many launches of the same kernel came before it
 * (from 0, profiled or not). */
typedef struct td_launch_ref {
    size_t dev;
    size_t index;
    size_t invocation;
} td_launch_ref;

/* Every launch of every device section in launch order (launch id, then
 * device section). *out is malloc'ed; free it. */
int td_launches_in_order(const td_result *res, td_launch_ref **out, size_t *n,
                         td_error *err);

#endif
