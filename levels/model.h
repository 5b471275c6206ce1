/* The TopDown model of MODEL.md: raw counters -> fractions of issue slots.
 * td_model_init resolves, once per arch table, the full tree: the fixed
 * node records (tree.h) plus the table's stall reasons as real level-4
 * children. Every part of the program walks that one list (m->tree) by
 * tree index; a td_breakdown holds one value per tree index. */
#ifndef TD_MODEL_H
#define TD_MODEL_H

#include <stddef.h>

#include "levels/tree.h"
#include "metrics/arch/arch.h"
#include "metrics/error.h"
#include "metrics/result/result.h"

#define TD_MAX_LEVEL 5
/* The level the stall reasons are listed at (-l 4), and their sources
 * below them (-l 5, where the table splits one by where loads were served). */
#define TD_STALL_LEVEL 4
#define TD_SOURCE_LEVEL 5
#define TD_MAX_NODES 32 /* fixed nodes a node list may hold */
#define TD_TREE_MAX (TD_MAX_NODES + TD_MAX_STALLS + TD_MEM_MAX_SOURCES)
#define TD_PATH_MAX 160
/* Threshold of a stall reason, of its parent, unless the table says. */
#define TD_STALL_THRESHOLD_DEFAULT 0.10

/* One node of the resolved tree. */
typedef struct td_tree_node {
    char path[TD_PATH_MAX]; /* "Backend.Memory_Bound" or "...L1_Bound.long_scoreboard" */
    const char *name;       /* node name, or the stall reason */
    const td_node_info *record; /* the fixed node's record; NULL for a stall reason */
    const td_stall_map *stall_map; /* the stall reason's table entry; NULL for a fixed node */
    const char *area;       /* "RET", "DIV", "FE", "BE": a stall reason's is its node's */
    td_node_kind kind;
    int parent;             /* tree index; -1 at level 1 */
    int level;              /* 1..; a stall reason sits one below its node */
    double threshold;       /* the table's override, else the default */
    int stall;              /* index into the arch table's stalls; -1 for a fixed node */
    int source;             /* index into the table's memory sources; -1 otherwise */
    const td_mem_source *source_map; /* that source's table entry; NULL otherwise */
    int measured;           /* counters lie behind it under this table (a node
                               without a stall reason below it, e.g. Tensor
                               before Hopper or level 3 of a legacy table, has none) */
} td_tree_node;

/* An arch table resolved against the model. */
typedef struct td_model {
    const td_arch *arch;
    const td_backend_info *backend;
    const td_node_set *nodes;
    int depth;                     /* deepest fixed level the table fills (its backend's) */
    int stall_node[TD_MAX_STALLS]; /* tree index of the node each arch stall sits under */
    td_tree_node tree[TD_TREE_MAX]; /* the fixed nodes in their order, then the stall
                                       reasons in table order, then the memory sources */
    int source_stall[TD_MEM_MAX_SOURCES]; /* arch stall each memory source splits */
    int n_tree;
    int max_level;                 /* deepest level of the tree */
} td_model;

/* Resolves the table against the built-in nodes. Fails on a stall mapped
 * to an unknown node or to a node that takes no stall reasons. */
int td_model_init(td_model *m, const td_arch *arch, td_error *err);
/* The same against another node list (a model with an extra node). */
int td_model_init_nodes(td_model *m, const td_arch *arch, const td_node_set *nodes,
                        td_error *err);

/* Tree index of a node path (or bare fixed-node name); -1 if none. */
int td_model_find(const td_model *m, const char *path);
/* Tree index of the stall reason of arch stall i. */
static inline int td_model_stall_index(const td_model *m, size_t i)
{
    return m->nodes->count + (int)i;
}
/* The next child of parent (-1: level 1) after tree index `after` (-1:
 * the first); -1 when there is none. Children come in tree order. */
int td_model_next_child(const td_model *m, int parent, int after);

/* Where the memory section's metrics sit in a device's metric list
 * (-1: not recorded; a result without them has no level 5 and no
 * throughput, and is modelled as before). */
typedef struct td_mem_binding {
    int source_ok[TD_MEM_MAX_SOURCES];   /* every source of its stall is recorded */
    int source[TD_MEM_MAX_SOURCES];
    int unit_ok[TD_MEM_MAX_UNITS];       /* work, peak and cycles recorded */
    int work[TD_MEM_MAX_UNITS][TD_MEM_MAX_COUNTS];
    int peak[TD_MEM_MAX_UNITS];
    int cycles[TD_MEM_MAX_UNITS];
} td_mem_binding;

/* Where each counter the model needs sits in a device's metric list. */
typedef struct td_binding {
    int counter[TD_COUNTER_COUNT]; /* index into launch counters, -1 unused */
    int stall[TD_MAX_STALLS];
    td_mem_binding mem;
} td_binding;

/* Fails naming the first counter the device section lacks. */
int td_model_bind(const td_model *m, const td_device *dev, td_binding *b,
                  td_error *err);

/* Fractions of issue slots (0..1), never NaN, one per tree index. Level 1
 * sums to 1: Retire + Divergence + Frontend + Backend + unattributed. A
 * launch without active cycles has no slots: has_slots = 0 and everything
 * is 0. Stalled slots of a launch with no stall samples at all (S = 0,
 * which MODEL.md leaves undefined) cannot be split and are kept as
 * "unattributed". */
typedef struct td_breakdown {
    union {
        double value[TD_TREE_MAX]; /* by tree index */
        struct {                   /* the same values, for the built-in nodes */
            double node[TD_NODE_COUNT]; /* by td_node */
            double stall[TD_MAX_STALLS]; /* level 4, arch stall order */
        };
    };
    size_t n_stalls;   /* stall reasons present (0: a mean over mixed tables) */
    unsigned sources;  /* level-5 sources present, bit s for source s (none: not
                          measured, or mixed tables) */
    double ipc;        /* executed warp instructions per active SM cycle */
    double ipc_issued;
    double warp_eff;   /* 0..1 */
    double unattributed; /* stalled slots not split: no stall sample (S == 0),
                            or a split that was not made (reasons_missing) */
    unsigned char not_known[TD_TREE_MAX]; /* the node's 95% interval is too wide
                            to give a number (levels/spread.h td_spread_mark);
                            never set by the model itself */
    unsigned char leads[TD_TREE_MAX]; /* not known, yet its interval lies wholly
                            above each sibling's: the largest of them whatever
                            its value, so the bottleneck search goes through
                            it (td_spread_mark) */
    size_t reasons_missing; /* stall reasons no launch measured: the split below
                               Frontend/Backend is not made, and those nodes are
                               shown as not measured (n/m), never renormalised */
    int has_slots;
} td_breakdown;

/* The model of one counter vector (a launch's, or several launches'
 * combined), laid out as the binding says. */
void td_model_counters(const td_model *m, const td_binding *b, const double *counters,
                       td_breakdown *out);
/* Fills every node without a formula with the sum of its children,
 * deepest first (the values of formula nodes and stall reasons set). */
void td_model_roll_up(const td_model *m, td_breakdown *out);
/* The model of one profiled launch; fails on a launch without counters. */
int td_model_launch(const td_model *m, const td_binding *b,
                    const td_launch *launch, td_breakdown *out, td_error *err);

/* acc += w * x, for weighted means. */
void td_breakdown_accumulate(td_breakdown *acc, const td_breakdown *x, double w);
void td_breakdown_scale(td_breakdown *acc, double factor);
/* Keeps only what tables of different depths share: the fixed levels down
 * to depth, no stall reason. */
void td_breakdown_keep_shared(const td_model *m, td_breakdown *b, int depth);

/* Whether tree node `node` has a value in b (a stall reason of a mean over
 * mixed tables has none, a source of a run without its counters none). */
int td_node_present(const td_model *m, const td_breakdown *b, int node);
/* Whether b's value of node was measured: not a node of the stall split
 * when the split was not made (b->reasons_missing). An unmeasured node is
 * shown as n/m and never marked. */
int td_node_measured(const td_model *m, const td_breakdown *b, int node);
/* Whether b's value of node is known: measured, and its 95% interval no
 * wider than levels/spread.h allows (b->not_known). A node not known is
 * shown as n/k, never as a number, and never marked. */
int td_node_known(const td_model *m, const td_breakdown *b, int node);

/* Bottleneck per MODEL.md section 7, searched down to max_level (1..5).
 * Returns a tree index, or -1 if none. */
int td_bottleneck(const td_model *m, const td_breakdown *b, int max_level);
/* Whether a tree node is a loss over its threshold. */
int td_over_threshold(const td_model *m, const td_breakdown *b, int node);

/* What the model concludes from a breakdown, computed once and rendered by
 * every output. */
typedef struct td_verdict {
    int bottleneck[TD_MAX_LEVEL + 1]; /* [l]: searched down to level l (1..5); -1: none */
    int runner_up[TD_MAX_LEVEL + 1];  /* [l]: named with the bottleneck where the
                                         search chose by TD_BOTTLENECK_TIE or less;
                                         -1: none */
    unsigned char over[TD_TREE_MAX];  /* each tree node over its threshold */
    int not_enough_data; /* most slots unattributed: no bottleneck is named */
    int not_known;       /* a level-1 node is not known (levels/spread.h): no
                            bottleneck is named; deeper, the search stops
                            above a node not known unless it leads its
                            siblings (td_breakdown.leads) */
} td_verdict;

/* Where the bottleneck search chose a node over its best sibling (over
 * its threshold) by this share of the slots or less, the node it would
 * have reached the other way, at the bottleneck's level, is named with
 * it: its runner-up ("A or B", MODEL.md section 7). */
#define TD_BOTTLENECK_TIE 0.05

/* Share of the slots past which unattributed slots leave too little data
 * for a verdict (MODEL.md section 7). */
#define TD_UNATTRIBUTED_MAX 0.5

void td_model_judge(const td_model *m, const td_breakdown *b, td_verdict *out);
/* The bottleneck at level as named everywhere: "A", "A or B" with its
 * runner-up, "" for none (MODEL.md section 7). */
const char *td_verdict_names(const td_model *m, const td_verdict *v, int level, char *buf,
                             size_t size);
/* Whether node is named as the bottleneck at level (itself or the runner-up). */
int td_verdict_names_node(const td_verdict *v, int level, int node);

#endif
