/* Spreads: how sure a node's share is (MODEL.md section 6).
 *
 * A spread is held as a half-width (a td_breakdown of fractions of issue
 * slots, like the mean): the t-quantile times the standard error of the
 * share's estimate, computed where the share is (a kernel's in
 * levels/estimate.h, the application's and a combination's here). Every
 * output shows it through td_spread_interval: the 95% interval, clipped to
 * 0..1, or "not known" where that interval is wider than
 * TD_SPREAD_KNOWN_MAX.
 *
 * Also here:
 *  - a combination of counter groups (levels/combine.h; the timeline's
 *    points): a deterministic bootstrap of its launches, resampled within
 *    each group;
 *  - the application: the kernels' spreads weighted by their time shares
 *    (kernels taken as independent). */
#ifndef TD_SPREAD_H
#define TD_SPREAD_H

#include "levels/combine.h"
#include "levels/model.h"

#define TD_BOOTSTRAP_RESAMPLES 50
#define TD_BOOTSTRAP_MAX_LAUNCHES 2000 /* the last ones of a kernel */
#define TD_BOOTSTRAP_SEED 2463534242u

/* The widest 95% interval, as a share of the slots, that is shown as a
 * number; a node whose interval is wider is "not known" (issue 39: 30
 * points). */
#define TD_SPREAD_KNOWN_MAX 0.30
#define TD_SPREAD_Z95 1.959964

/* A node's 95% interval: 0 <= lo <= value <= hi <= 1. */
typedef struct td_interval {
    double lo, hi;
    double half; /* the half-width it was made from (INFINITY: none known) */
    int known;   /* hi - lo <= TD_SPREAD_KNOWN_MAX */
} td_interval;

/* The interval of value +- half, clipped to 0..1; an infinite half (too
 * few samples to estimate a variance) gives 0..1, not known. */
td_interval td_spread_interval(double value, double half);

/* Student's t, 97.5% quantile, for df degrees of freedom (df >= 1; the
 * normal's beyond 30); INFINITY below 1: no variance can be estimated. */
double td_spread_t975(double df);

/* Marks in mean->not_known the nodes of m whose interval, from spread,
 * is not known (td_node_known); nodes not measured are left alone. Marks
 * in mean->leads those of them whose interval lies wholly above each
 * measured sibling's. */
void td_spread_mark(const td_model *m, td_breakdown *mean, const td_breakdown *spread);

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

/* The half-width of each node's 95% interval for the combination of set,
 * modelled with models[kdev] (models, bindings, devices by section): the
 * bootstrap's standard deviation (scaled by sqrt(used / total) when only
 * the last launches were used) times t(launches - groups). *has_spread:
 * 0 (and out all 0) where no group holds two launches, so no variance can
 * be estimated: a point of one launch per group shows none. */
int td_spread_bootstrap(const td_boot_set *set, const td_model *models,
                        const td_binding *bindings, const td_device *devices, size_t kdev,
                        td_breakdown *out, int *has_spread, td_error *err);

/* acc += (w * x)^2 node by node, for the application's spread, with x each
 * node's half-width capped at the farthest its value can move (max(v,
 * 1 - v) of mean: a kernel not known counts as anything); then
 * td_spread_sqrt takes the root. */
void td_spread_accumulate_sq(td_breakdown *acc, const td_breakdown *mean,
                             const td_breakdown *x, double w);
void td_spread_sqrt(td_breakdown *acc);

#endif
