#include "levels/spread.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/xorshift.h"

td_interval td_spread_interval(double value, double half)
{
    td_interval in = {0.0, 1.0, INFINITY, 0};
    if (!(half < INFINITY)) /* infinite or NaN: nothing can be said */
        return in;
    in.half = half;
    in.lo = fmax(0.0, value - half);
    in.hi = fmin(1.0, value + half);
    /* a value just outside 0..1 by rounding keeps lo <= value <= hi */
    in.lo = fmin(in.lo, fmax(value, 0.0));
    in.hi = fmax(in.hi, fmin(value, 1.0));
    in.known = in.hi - in.lo <= TD_SPREAD_KNOWN_MAX + 1e-12;
    return in;
}

double td_spread_t975(double df)
{
    static const double t[31] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (!(df >= 1))
        return INFINITY;
    return df <= 30 ? t[(int)df] : TD_SPREAD_Z95;
}

/* Whether node n's interval lies wholly above each measured sibling's. */
static int interval_leads(const td_model *m, const td_breakdown *mean,
                          const td_breakdown *spread, int n)
{
    double lo = td_spread_interval(mean->value[n], spread->value[n]).lo;
    for (int s = td_model_next_child(m, m->tree[n].parent, -1); s >= 0;
         s = td_model_next_child(m, m->tree[n].parent, s))
        if (s != n && td_node_present(m, mean, s) && td_node_measured(m, mean, s) &&
            !(lo > td_spread_interval(mean->value[s], spread->value[s]).hi))
            return 0;
    return 1;
}

void td_spread_mark(const td_model *m, td_breakdown *mean, const td_breakdown *spread)
{
    for (int n = 0; n < m->n_tree && n < TD_TREE_MAX; n++)
        mean->not_known[n] = (unsigned char)(
            td_node_measured(m, mean, n) &&
            !td_spread_interval(mean->value[n], spread->value[n]).known);
    for (int n = 0; n < m->n_tree && n < TD_TREE_MAX; n++)
        mean->leads[n] = (unsigned char)(mean->not_known[n] && td_node_present(m, mean, n) &&
                                         interval_leads(m, mean, spread, n));
}

/* Weighted mean and sum of squared deviations (West's update), per node. */
typedef struct td_spread_acc {
    double w, w2;               /* sum of weights, of squared weights */
    double mean[TD_TREE_MAX];
    double m2[TD_TREE_MAX];
    double unattributed_mean, unattributed_m2;
} td_spread_acc;

/* share: w / (sum of weights so far, w included). */
static void welford(double *mean, double *m2, double x, double w, double share)
{
    double delta = x - *mean;
    *mean += share * delta;
    *m2 += w * delta * (x - *mean);
}

static void spread_add(td_spread_acc *a, const td_breakdown *x, double w)
{
    if (!(w > 0))
        return;
    a->w += w;
    a->w2 += w * w;
    double share = w / a->w;
    for (int n = 0; n < TD_TREE_MAX; n++)
        welford(&a->mean[n], &a->m2[n], x->value[n], w, share);
    welford(&a->unattributed_mean, &a->unattributed_m2, x->unattributed, w, share);
}

int td_boot_set_add(td_boot_set *set, const td_launch *l, size_t dev, td_error *err)
{
    if (set->n == set->cap && set->cap < TD_BOOTSTRAP_MAX_LAUNCHES) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        if (cap > TD_BOOTSTRAP_MAX_LAUNCHES)
            cap = TD_BOOTSTRAP_MAX_LAUNCHES;
        td_boot_launch *bigger = realloc(set->items, cap * sizeof *bigger);
        if (!bigger)
            return td_fail(err, "out of memory");
        set->items = bigger;
        set->cap = cap;
    }
    td_boot_launch item = {l, dev};
    if (set->n < set->cap) {
        set->items[set->n++] = item;
    } else { /* full: replace the oldest */
        set->items[set->next] = item;
        set->next = (set->next + 1) % set->cap;
    }
    set->total++;
    return 0;
}

void td_boot_set_free(td_boot_set *set)
{
    if (set)
        free(set->items);
}

/* Launch indices ordered by counter group, then by position. */
typedef struct group_key {
    int group;
    size_t index;
} group_key;

static int by_group(const void *a, const void *b)
{
    const group_key *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void combine_merge(td_combine *acc, const td_combine *x)
{
    for (size_t i = 0; i < TD_COUNTER_COUNT + TD_MAX_STALLS; i++) {
        acc->num[i] += x->num[i];
        acc->den[i] += x->den[i];
    }
    acc->cycles += x->cycles;
    acc->launches += x->launches;
}

/* One resample: each group's launches drawn with replacement from it. */
static void resample(const td_combine *single, const group_key *keys, size_t n,
                     uint32_t *rng, td_combine *out)
{
    memset(out, 0, sizeof *out);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && keys[b].group == keys[a].group)
            b++;
        for (size_t j = a; j < b; j++)
            combine_merge(out, &single[keys[a + td_xorshift32(rng) % (b - a)].index]);
        a = b;
    }
}

/* Whether every value of a tree is a finite number (a resample that
 * draws huge counters several times may overflow where the kernel did not). */
static int all_finite(const td_breakdown *x)
{
    for (int n = 0; n < TD_TREE_MAX; n++)
        if (!isfinite(x->value[n]))
            return 0;
    return isfinite(x->unattributed);
}

typedef struct boot_ctx {
    const td_boot_set *set;
    const td_model *models;
    const td_binding *bindings;
    const td_device *devices;
    size_t kdev;
} boot_ctx;

static void boot_resamples(const boot_ctx *c, const td_combine *single, const group_key *keys,
                           td_combine *sample, td_spread_acc *acc)
{
    uint32_t rng = TD_BOOTSTRAP_SEED;
    size_t k = c->kdev;
    for (int r = 0; r < TD_BOOTSTRAP_RESAMPLES; r++) {
        resample(single, keys, c->set->n, &rng, sample);
        td_breakdown x;
        size_t missing;
        td_error why;
        if (sample->launches == 0 ||
            td_combine_model(sample, &c->models[k], &c->bindings[k], &c->devices[k], &x,
                             &missing, &why) != 0 || !x.has_slots || !all_finite(&x))
            continue;
        spread_add(acc, &x, 1.0);
    }
}

static void boot_finish(const td_spread_acc *acc, double scale, td_breakdown *out)
{
    memset(out, 0, sizeof *out);
    if (!(acc->w > 1.5))
        return;
    for (int n = 0; n < TD_TREE_MAX; n++)
        out->value[n] = scale * sqrt(acc->m2[n] > 0 ? acc->m2[n] / (acc->w - 1.0) : 0.0);
    out->unattributed =
        scale * sqrt(acc->unattributed_m2 > 0 ? acc->unattributed_m2 / (acc->w - 1.0) : 0.0);
}

/* Degrees of freedom of keys[0..n), ordered by group: launches less groups. */
static double group_df(const group_key *keys, size_t n)
{
    size_t groups = 0;
    for (size_t i = 0; i < n; i++)
        groups += i == 0 || keys[i].group != keys[i - 1].group;
    return (double)n - (double)groups;
}

int td_spread_bootstrap(const td_boot_set *set, const td_model *models,
                        const td_binding *bindings, const td_device *devices, size_t kdev,
                        td_breakdown *out, int *has_spread, td_error *err)
{
    memset(out, 0, sizeof *out);
    *has_spread = 0;
    if (set->n < 2)
        return 0;
    td_combine *single = calloc(set->n + 1, sizeof *single);
    group_key *keys = calloc(set->n, sizeof *keys);
    td_spread_acc *acc = calloc(1, sizeof *acc);
    if (!single || !keys || !acc) {
        free(single), free(keys), free(acc);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < set->n; i++) {
        const td_boot_launch *b = &set->items[i];
        td_combine_add(&single[i], &models[b->dev], &bindings[b->dev], &devices[b->dev],
                       b->launch);
        keys[i].group = b->launch->group;
        keys[i].index = i;
    }
    qsort(keys, set->n, sizeof *keys, by_group);
    double t = td_spread_t975(group_df(keys, set->n));
    if (t < INFINITY) {
        boot_ctx c = {set, models, bindings, devices, kdev};
        boot_resamples(&c, single, keys, &single[set->n], acc);
        boot_finish(acc, t * sqrt((double)set->n / (double)set->total), out);
        *has_spread = 1;
    }
    free(single), free(keys), free(acc);
    return 0;
}

/* The farthest a share of value can move inside 0..1. */
static double reach_cap(double value)
{
    return fmax(value, 1.0 - value);
}

void td_spread_accumulate_sq(td_breakdown *acc, const td_breakdown *mean,
                             const td_breakdown *x, double w)
{
    for (int n = 0; n < TD_TREE_MAX; n++) {
        double half = fmin(x->value[n], reach_cap(mean->value[n]));
        acc->value[n] += w * w * half * half;
    }
    double half = fmin(x->unattributed, reach_cap(mean->unattributed));
    acc->unattributed += w * w * half * half;
}

void td_spread_sqrt(td_breakdown *acc)
{
    for (int n = 0; n < TD_TREE_MAX; n++)
        acc->value[n] = sqrt(acc->value[n]);
    acc->unattributed = sqrt(acc->unattributed);
}
