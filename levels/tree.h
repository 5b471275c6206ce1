/* The node records of MODEL.md section 4: one record per node holds
 * everything the program knows about it (path, parent, level, kind,
 * threshold, descriptions with formula and advice, plot colour). The fixed
 * nodes are the same for every architecture; the stall reasons of an arch
 * table become level-4 nodes when the model resolves the tree (model.h).
 * The model decides nothing by a node's id: the kind and the formula do.
 * Only outputs that show the four level-1 nodes by name index them by id
 * (report/trace.c's colours and arguments, report/merge.c's imbalance
 * JSON, levels/pm_model.c's PM-timeline columns). */
#ifndef TD_TREE_H
#define TD_TREE_H

#include "metrics/arch/backend.h"

/* Ids of the built-in nodes, in tree order (pre-order). The program walks
 * the records; the ids name nodes for tests, for the records below and
 * for the level-1 outputs above. */
typedef enum td_node {
    TD_N_RETIRE,
    TD_N_DIVERGENCE,
    TD_N_BRANCH,
    TD_N_REPLAY,
    TD_N_FRONTEND,
    TD_N_FETCH,
    TD_N_INSTRUCTION_FETCH,
    TD_N_BRANCH_RESOLVING,
    TD_N_SYNCHRONIZATION,
    TD_N_DECODE,
    TD_N_DISPATCH,
    TD_N_MISC,
    TD_N_BACKEND,
    TD_N_MEMORY_BOUND,
    TD_N_L1_BOUND,
    TD_N_MIO_BOUND,
    TD_N_CONSTANT_MEMORY,
    TD_N_DRAIN,
    TD_N_CORE_BOUND,
    TD_N_MATH_PIPE,
    TD_N_DEPENDENCY_WAIT,
    TD_N_TENSOR,
    TD_NODE_COUNT
} td_node;

/* How a node gets its value. */
typedef enum td_node_kind {
    TD_KIND_USEFUL,      /* useful work, from the issue rates; never a loss or a bottleneck */
    TD_KIND_COMPUTED,    /* a loss from the issue rates: its formula, or the sum of its children */
    TD_KIND_STALL_SPLIT, /* a share of the unused slots: the sum of the stall reasons below it */
    TD_KIND_STALL,       /* a stall reason of the arch table (resolved per table, level 4) */
    TD_KIND_SOURCE       /* a share of a stall reason by where its loads were served (the
                            table's "memory" section, level 5; levels/memory.h) */
} td_node_kind;

/* The share of issue slots a USEFUL or COMPUTED leaf takes (MODEL.md 3). */
typedef double (*td_node_formula)(const td_issue_rates *r, double ipc_max);

typedef struct td_node_info {
    const char *name;   /* "L1_Bound" */
    const char *path;   /* "Backend.Memory_Bound.L1_Bound" */
    int parent;         /* index in the same node list, -1 for level 1 */
    int level;          /* 1.. */
    const char *area;   /* "RET", "DIV", "FE", "BE" */
    double threshold;   /* default, fraction: of all slots (level 1), of the parent below */
    const char *desc;   /* one line */
    td_node_kind kind;
    td_node_formula formula; /* USEFUL/COMPUTED leaves; NULL: sum of the children */
    const char *colour;      /* "#rrggbb", the same in every plot */
    const char *long_desc;   /* formula and advice, for `topdown describe` */
} td_node_info;

/* A list of node records, parents before children, in tree order. */
typedef struct td_node_set {
    const td_node_info *nodes;
    int count;
} td_node_set;

/* The fixed nodes of MODEL.md section 4 (TD_NODE_COUNT of them). */
const td_node_set *td_nodes_builtin(void);

/* Built-in node by id; NULL if none. */
const td_node_info *td_node_get(int node);
/* Built-in node by path ("Frontend.Fetch") or by bare name ("Fetch"); -1 if none. */
int td_node_find(const char *path_or_name);
/* The same in any node list. */
int td_node_set_find(const td_node_set *set, const char *path_or_name);
/* Longest description, for `topdown describe`. */
const char *td_node_long_desc(int node);

/* "useful", "computed", "stall_split", "stall": the kind as the JSON view names it. */
const char *td_kind_name(td_node_kind kind);

/* The kind's rules, in one place. */
static inline int td_kind_is_loss(td_node_kind kind)
{
    return kind != TD_KIND_USEFUL;
}

/* Stall reasons attach under (and only under) these nodes. */
static inline int td_kind_takes_stalls(td_node_kind kind)
{
    return kind == TD_KIND_STALL_SPLIT;
}

#endif
