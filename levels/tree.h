/* The node tree of MODEL.md section 4: fixed by the model, the same for
 * every architecture. Level-4 nodes are the stall reasons of the arch
 * table and are not listed here. */
#ifndef TD_TREE_H
#define TD_TREE_H

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

typedef struct td_node_info {
    const char *name;   /* "L1_Bound" */
    const char *path;   /* "Backend.Memory_Bound.L1_Bound" */
    int parent;         /* td_node, -1 for level 1 */
    int level;          /* 1..3 */
    const char *area;   /* "RET", "DIV", "FE", "BE" */
    double threshold;   /* default, fraction: of all slots (level 1), of the parent below */
    const char *desc;   /* one line */
} td_node_info;

const td_node_info *td_node_get(int node);
/* Node by path ("Frontend.Fetch") or by bare name ("Fetch"); -1 if none. */
int td_node_find(const char *path_or_name);
/* Longest description, for `topdown describe`. */
const char *td_node_long_desc(int node);

#endif
