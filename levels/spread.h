/* The spread of a kernel's tree over its profiled launches (MODEL.md
 * section 6): how far each node's mean would move with other launches.
 *  - launches that each measured the full set: the standard error of the
 *    duration-weighted mean, over the weights' effective sample size;
 *  - a combination of counter groups (levels/combine.h): the standard
 *    deviation over a deterministic bootstrap of the launches, resampled
 *    within each group;
 *  - the application: the kernels' spreads weighted by their time shares
 *    (kernels taken as independent).
 * A spread is a td_breakdown of fractions of issue slots, like the mean. */
#ifndef TD_SPREAD_H
#define TD_SPREAD_H

#include "levels/combine.h"
#include "levels/model.h"

#define TD_BOOTSTRAP_RESAMPLES 50
#define TD_BOOTSTRAP_MAX_LAUNCHES 2000 /* the last ones of a kernel */
#define TD_BOOTSTRAP_SEED 2463534242u

/* Weighted mean and sum of squared deviations (West's update), per node. */
typedef struct td_spread_acc {
    double w, w2;               /* sum of weights, of squared weights */
    double mean[TD_TREE_MAX];
    double m2[TD_TREE_MAX];
    double unattributed_mean, unattributed_m2;
} td_spread_acc;

void td_spread_add(td_spread_acc *a, const td_breakdown *x, double w);
/* Standard error of the weighted mean: sqrt(var / (n_eff - 1)), var the
 * weighted population variance, n_eff = (sum w)^2 / sum w^2. 0 with an
 * effective sample of 1 or less. */
void td_spread_standard_error(const td_spread_acc *a, td_breakdown *out);

/* One launch of a combination and the device section it came from. */
typedef struct td_boot_launch {
    const td_launch *launch;
    size_t dev;
} td_boot_launch;

/* The last TD_BOOTSTRAP_MAX_LAUNCHES launches added (a ring). */
typedef struct td_boot_set {
    td_boot_launch *items;
    size_t n, cap, next;
    size_t total;       /* launches ever added */
} td_boot_set;

int td_boot_set_add(td_boot_set *set, const td_launch *l, size_t dev, td_error *err);
void td_boot_set_free(td_boot_set *set);

/* The bootstrap's standard deviation per node of the combination of set,
 * modelled with models[kdev] (models, bindings, devices by section), scaled
 * by sqrt(used / total) when only the last launches were used. */
int td_spread_bootstrap(const td_boot_set *set, const td_model *models,
                        const td_binding *bindings, const td_device *devices, size_t kdev,
                        td_breakdown *out, td_error *err);

/* acc += (w * x)^2 node by node, for the application's spread; then
 * td_spread_sqrt takes the root. */
void td_spread_accumulate_sq(td_breakdown *acc, const td_breakdown *x, double w);
void td_spread_sqrt(td_breakdown *acc);

/* The runner-up of a bottleneck node: its largest sibling over threshold
 * when their ranges (value +- spread) overlap, else -1. */
int td_spread_rival(const td_model *m, const td_breakdown *b, const td_breakdown *spread,
                    const td_verdict *v, int node);

#endif
