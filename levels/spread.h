/* Spreads besides a kernel's (levels/estimate.h):
 *  - a combination of counter groups (levels/combine.h; the timeline's
 *    points): the standard deviation over a deterministic bootstrap of the
 *    launches, resampled within each group;
 *  - the application: the kernels' spreads weighted by their time shares
 *    (kernels taken as independent);
 *  - whether a bottleneck lies within its rival's spread.
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
