/* The TopDown model of MODEL.md: raw counters -> fractions of issue slots. */
#ifndef TD_MODEL_H
#define TD_MODEL_H

#include <stddef.h>

#include "../metrics/arch.h"
#include "../metrics/error.h"
#include "../metrics/result.h"
#include "tree.h"

#define TD_MAX_LEVEL 4

/* An arch table resolved against the model: every stall reason's node
 * checked and turned into an index. */
typedef struct td_model {
    const td_arch *arch;
    int stall_node[TD_MAX_STALLS]; /* td_node of each arch stall */
    int depth;                     /* deepest tree level the table fills (2 legacy, 3) */
    double threshold[TD_NODE_COUNT];
    double stall_threshold[TD_MAX_STALLS];
} td_model;

/* Fails on a stall mapped to an unknown node or to a non-leaf node. */
int td_model_init(td_model *m, const td_arch *arch, td_error *err);

/* Where each counter the model needs sits in a device's metric list. */
typedef struct td_binding {
    int counter[TD_COUNTER_COUNT]; /* index into launch counters, -1 unused */
    int stall[TD_MAX_STALLS];
} td_binding;

/* Fails naming the first counter the device section lacks. */
int td_model_bind(const td_model *m, const td_device *dev, td_binding *b,
                  td_error *err);

/* Fractions of issue slots (0..1), never NaN. Level 1 sums to 1:
 * Retire + Divergence + Frontend + Backend + unattributed. A launch without
 * active cycles has no slots: has_slots = 0 and everything is 0. Stalled
 * slots of a launch with no stall samples at all (S = 0, which MODEL.md
 * leaves undefined) cannot be split and are kept as "unattributed". */
typedef struct td_breakdown {
    double node[TD_NODE_COUNT];
    double stall[TD_MAX_STALLS]; /* level 4, arch stall order */
    size_t n_stalls;
    double ipc;        /* executed warp instructions per active SM cycle */
    double ipc_issued;
    double warp_eff;   /* 0..1 */
    double unattributed; /* stalled slots with no stall sample (S == 0) */
    int has_slots;
} td_breakdown;

int td_model_launch(const td_model *m, const td_binding *b,
                    const td_launch *launch, td_breakdown *out, td_error *err);

/* acc += w * x, for weighted means. */
void td_breakdown_accumulate(td_breakdown *acc, const td_breakdown *x, double w);
void td_breakdown_scale(td_breakdown *acc, double factor);

/* Bottleneck per MODEL.md section 7, searched down to max_level (1..4).
 * Returns a td_node, or TD_NODE_COUNT + i for stall i, or -1 if none. */
int td_bottleneck(const td_model *m, const td_breakdown *b, int max_level);
/* Whether a node (or TD_NODE_COUNT + i) is over its threshold. */
int td_over_threshold(const td_model *m, const td_breakdown *b, int node);

#endif
