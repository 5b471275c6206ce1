/* The node columns shared by the CSV, plot, timeline, diff and JSON
 * outputs: the nodes of the resolved model tree down to a level, in tree
 * order, named by their dotted path, over one or several models (the
 * union of their stall reasons), and how to read a column's value. */
#ifndef TD_REPORT_COLUMNS_H
#define TD_REPORT_COLUMNS_H

#include "levels/aggregate.h"
#include "levels/spread.h"
#include "report/output.h"

typedef struct td_column {
    char path[TD_PATH_MAX]; /* "Backend.Memory_Bound" or "...L1_Bound.long_scoreboard" */
    const char *name;   /* the node's name, or the stall reason */
    int node;           /* tree index of the fixed node; for a stall reason, of the node it sits under */
    const td_node_info *record; /* that fixed node's record */
    const char *reason; /* NULL for a fixed node; else the stall reason (borrowed) */
    const char *source; /* NULL; else the source (level 5) of that stall reason */
    int level;          /* 1..5 */
    int leaf;           /* no other column lies below it: a segment of a stacked bar */
} td_column;

typedef struct td_columns {
    td_column *items;
    size_t count;
} td_columns;

/* Every fixed node down to min(level, max_node_level), in tree order
 * (pre-order), then for level 4 the stall reasons of the given models
 * (union, first model's order first) under their node, and for level 5
 * each stall reason's sources below it. max_node_level lets
 * a plot stop at the depth its tables fill (2 for legacy tables). */
int td_columns_build(td_columns *out, const td_model *const *models, size_t n_models,
                     int level, int max_node_level, td_error *err);
/* The leaves of that tree down to the depth every model fills: with
 * "Unattributed" they split 100% of the slots (the segments of a stacked
 * bar). Level 4 on tables of different depths stops at the level-3 leaves;
 * level 5 gives level 4's (a stall's sources are not in every breakdown). */
int td_columns_segments(td_columns *out, const td_model *const *models, size_t n_models,
                        int level, td_error *err);
void td_columns_free(td_columns *cols);

/* A column's value (fraction of issue slots) in b, computed with model m;
 * NAN where m has no counter behind it (legacy level 3, a stall reason the
 * table lacks, Tensor before Hopper), b has no slots, or the value is not
 * known (td_column_not_known). */
double td_column_value(const td_column *c, const td_model *m, const td_breakdown *b);
/* Whether the column's node was measured but its interval is too wide to
 * give a number (levels/spread.h): "n/k" in text, never a value. */
int td_column_not_known(const td_column *c, const td_model *m, const td_breakdown *b);
/* The column's share of the slots where it is not known, else 0: what
 * leaves not known hold together (a plot's "Not known" segment). */
double td_column_not_known_share(const td_column *c, const td_model *m, const td_breakdown *b);

/* The column's 95% interval (levels/spread.h td_spread_interval) from the
 * half-widths in spread, the spread of mean; 0 where the column has no
 * measured value in mean (not measured: no interval), else 1, known or not. */
int td_column_interval(const td_column *c, const td_model *m, const td_breakdown *mean,
                       const td_breakdown *spread, td_interval *out);

/* A node's interval as the text shows it after its value, in points:
 * "+-1.1" where both ends lie as far from it (to the 0.1 shown), else
 * "+1.1-0.4" (above, then below), clipped at 0 or 100. */
const char *td_interval_text(double value, td_interval in, char *buf, size_t size);
/* The farther end's distance from value, in points. */
double td_interval_reach(double value, td_interval in);

/* toplev's --nodes: whether the node at path is shown under selection, a
 * comma list of node paths or bare names (NULL: every node): a node
 * listed, one below it, or one above it (for context). */
int td_node_selected(const char *selection, const char *path);
/* Keeps the columns td_node_selected shows (selection NULL: all). */
void td_columns_select(td_columns *cols, const char *selection);
/* Whether path is one of the selection's nodes itself. */
int td_node_listed(const char *selection, const char *path);
/* Fails naming the first item of selection that is no node. */
int td_nodes_check(const char *selection, td_error *err);

/* Shallowest depth (deepest fixed level filled) over the models. */
int td_models_min_depth(const td_model *const *models, size_t n_models);

/* What the text says where a verdict names no bottleneck: "n/k" where
 * level 1 is not known, else "none". */
const char *td_verdict_none(const td_verdict *v);

/* Path of a tree node returned by td_bottleneck ("" for none). */
const char *td_bottleneck_path(const td_model *m, int bottleneck, char *buf, size_t size);

/* Whether a breakdown modelled with m can be printed as it is: every value
 * a finite number, and level 1 plus Unattributed summing to 100% of the
 * slots. A result whose counters overflow the model (values near 1e308,
 * denormal cycle counts) fails here instead of printing nan, inf or shares
 * that do not add up. what names it in the message ("kernel k", "the
 * application"). */
int td_breakdown_printable(const td_model *m, const td_breakdown *b, const char *what,
                           td_error *err);
/* The same for every mean of a summary, and its times. */
int td_summary_printable(const td_summary *s, td_error *err);

#endif
