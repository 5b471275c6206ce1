/* What each launch measures (measure_policy.c): the full set replayed, a
 * counter group (group_sampler.h) under the budget or --sample-every's
 * points, or nothing; and the costs the budget counts. */
#ifndef TD_MEASURE_POLICY_H
#define TD_MEASURE_POLICY_H

#include "topdown/inject/state.h"

/* A launch was queued: the budget counts its GPU time. */
void budget_count_launch(const launch_rec *l);
/* A one-time cost (*where: setup_s or coverage_s), outside the budget. */
void pay_once(double *where, double s);
/* The counter group the context's profiler is configured for, -1: none. */
int active_group(const ctx_state *c);
/* A graph launch's or a launch's group under the budget (size class 0 for
 * a graph launch); 1 when it is measured. */
int choose_group(ctx_state *c, td_kernel *k, unsigned size_class, int *group);
/* 1 and the configuration (a group, or TD_GROUP_ALL) if this launch is to
 * be profiled. */
int choose_config(ctx_state *c, td_kernel *k, const launch_rec *l, int *group);

#endif
