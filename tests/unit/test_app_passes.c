/* The join of `--replay-mode application` passes (report/app_passes.h):
 * three passes of a device of three counter groups, pass p measuring every
 * launch with group p. Every launch matched becomes TD_GROUP_ALL with each
 * metric's value from the pass that measured it (first); a launch a pass
 * missed (fewer launches, another grid, not profiled, another group)
 * keeps its first-pass group and counters exactly; metrics land by name;
 * a section of another arch gives nothing. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "report/app_passes.h"

/* The metrics, canonically numbered; every group holds the cycles, as
 * replay-free groups do (metrics/arch/groups.h). */
enum { CYCLES, A0, A1, B0, B1, C0, N_METRICS };
static const char *const metric_names[N_METRICS] = {
    "sm__cycles_elapsed.max", "a0.sum", "a1.sum", "b0.sum", "b1.sum", "c0.sum"};
enum { N_GROUPS = 3, GROUP_SIZE = 3 };
typedef int group_table[N_GROUPS][GROUP_SIZE]; /* canonical metrics, -1: none */
static const group_table groups = {{CYCLES, A0, A1}, {CYCLES, B0, B1}, {CYCLES, C0, -1}};

/* The launches of a pass, by key (the base's launch index): two kernels
 * interleaved, each launch's grid its own. */
enum { N_KEYS = 7, TIMED = -2 };
static const char *const kernel_of[N_KEYS] = {"stencil(float*)", "reduce(float const*, int)",
                                              "stencil(float*)", "reduce(float const*, int)",
                                              "stencil(float*)", "stencil(float*)",
                                              "reduce(float const*, int)"};
static const size_t base_order[N_KEYS] = {0, 1, 2, 3, 4, 5, 6};
/* another interleaving, the same launches of each kernel in the same order */
static const size_t pass_order[N_KEYS] = {0, 2, 1, 4, 3, 5, 6};
enum { TIMED_KEY = 3 }; /* only timed in the first pass */

/* What pass p read for metric m of launch key k: unique to all three. */
static double value(int pass, size_t key, int metric)
{
    return 10000.0 * (pass + 1) + 10.0 * (double)key + metric;
}

static int canonical(const char *name)
{
    for (int m = 0; m < N_METRICS; m++)
        if (strcmp(name, metric_names[m]) == 0)
            return m;
    return -1;
}

static int in_group(int group, int metric)
{
    for (int k = 0; k < GROUP_SIZE; k++)
        if (groups[group][k] == metric)
            return 1;
    return 0;
}

/* A device section with these metric names, in this order, and a group table. */
static td_device *add_section(td_result *res, const char *arch, const char *const *names,
                              size_t n, const group_table *table)
{
    td_error err;
    td_device *dev = td_result_add_device(res, &err);
    CHECK(dev != NULL);
    dev->arch = td_strdup(arch);
    CHECK(td_device_set_metrics(dev, names, n, &err) == 0);
    size_t members[N_GROUPS][GROUP_SIZE];
    td_counter_group set[N_GROUPS];
    for (int g = 0; g < N_GROUPS; g++) {
        set[g] = (td_counter_group){members[g], 0};
        for (int k = 0; k < GROUP_SIZE && (*table)[g][k] >= 0; k++)
            members[g][set[g].n++] =
                (size_t)td_device_metric_index(dev, metric_names[(*table)[g][k]]);
    }
    CHECK(td_device_set_groups(dev, set, N_GROUPS, &err) == 0);
    return dev;
}

static td_device *plain_section(td_result *res, const char *arch)
{
    return add_section(res, arch, metric_names, N_METRICS, &groups);
}

/* Launch key of pass `pass`, measured with group (TIMED: not profiled):
 * the metrics of the section's group hold values, the others 0. */
static td_launch *add_launch(td_device *dev, size_t key, int pass, int group)
{
    td_error err;
    double counters[16] = {0};
    for (size_t k = 0; group >= 0 && k < dev->groups[group].n; k++) {
        size_t j = dev->groups[group].metrics[k];
        counters[j] = value(pass, key, canonical(dev->metrics[j]));
    }
    td_launch *l = td_device_add_launch(dev, kernel_of[key], group == TIMED ? NULL : counters,
                                        &err);
    CHECK(l != NULL);
    l->group = group == TIMED ? TD_GROUP_ALL : group;
    l->grid[0] = 100 + (unsigned)key;
    l->grid[1] = l->grid[2] = 1;
    l->block[0] = 256;
    l->block[1] = l->block[2] = 1;
    l->duration_ns = 1000.0 + (double)key;
    return l;
}

/* Pass p: the launches in that order, every one measured with group p. */
static void add_pass_launches(td_device *dev, const size_t *order, int pass)
{
    for (size_t i = 0; i < N_KEYS; i++)
        add_launch(dev, order[i], pass, pass);
}

/* The first pass: group 0, launch TIMED_KEY only timed. */
static td_device *first_pass(td_result *res, const char *arch)
{
    td_device *dev = plain_section(res, arch);
    for (size_t i = 0; i < N_KEYS; i++)
        add_launch(dev, base_order[i], 0, base_order[i] == TIMED_KEY ? TIMED : 0);
    return dev;
}

/* Launch key of base measured every metric, each from the first pass
 * that measured it (pass p measured group p: the cycles from pass 0). */
static int joined_whole(const td_device *dev, size_t key)
{
    const td_launch *l = &dev->launches[key];
    if (!l->profiled || l->group != TD_GROUP_ALL)
        return 0;
    for (int m = 0; m < N_METRICS; m++) {
        int first = in_group(0, m) ? 0 : in_group(1, m) ? 1 : 2;
        if (l->counters[td_device_metric_index(dev, metric_names[m])] != value(first, key, m))
            return 0;
    }
    return 1;
}

/* Launch key of base is still group 0 with exactly the counters saved. */
static int as_first_pass(const td_device *dev, size_t key, const double *saved)
{
    const td_launch *l = &dev->launches[key];
    return l->profiled && l->group == 0 &&
           memcmp(l->counters, saved, dev->n_metrics * sizeof *saved) == 0;
}

static void save_counters(const td_device *dev, double saved[N_KEYS][N_METRICS])
{
    for (size_t k = 0; k < N_KEYS; k++)
        if (dev->launches[k].counters)
            memcpy(saved[k], dev->launches[k].counters, N_METRICS * sizeof **saved);
}

/* Joins the passes into base; 0 on success. */
static int join(td_result *base, td_result *const *passes, size_t n, td_app_passes_stats *stats)
{
    td_error err;
    td_app_passes *ap = NULL;
    if (td_app_passes_begin(base, &ap, &err))
        return -1;
    for (size_t p = 0; p < n; p++)
        if (td_app_passes_add(ap, base, passes[p], &err)) {
            td_app_passes_free(ap);
            return -1;
        }
    td_app_passes_finish(ap, base, stats);
    return 0;
}

static void free_results(td_result *results, size_t n)
{
    for (size_t i = 0; i < n; i++)
        td_result_free(&results[i]);
}

/* Three passes, every launch matched (the later passes interleave the two
 * kernels otherwise): every profiled launch whole, the timed one left. */
static void test_every_launch_matched(void)
{
    td_result r[3];
    memset(r, 0, sizeof r);
    td_device *base = first_pass(&r[0], "testarch");
    add_pass_launches(plain_section(&r[1], "testarch"), base_order, 1);
    add_pass_launches(plain_section(&r[2], "testarch"), pass_order, 2);
    td_app_passes_stats stats;
    CHECK(join(&r[0], (td_result *[]){&r[1], &r[2]}, 2, &stats) == 0);
    for (size_t k = 0; k < N_KEYS; k++)
        if (k != TIMED_KEY)
            CHECK(joined_whole(base, k));
    const td_launch *timed = &base->launches[TIMED_KEY];
    CHECK(!timed->profiled && timed->counters == NULL);
    CHECK(td_launch_measured(base, &base->launches[0], td_device_metric_index(base, "c0.sum")));
    CHECK(stats.passes == 3);
    CHECK(stats.launches == N_KEYS - 1);
    CHECK(stats.complete == N_KEYS - 1);
    CHECK(stats.unmatched == 0);
    free_results(r, 3);
}

/* Pass 1's reduce has one launch fewer and one launch of another grid,
 * stencil one launch more; pass 2's stencil #1 was not profiled. Those
 * base launches stay group 0 with their first-pass counters. */
static void test_launches_missed(void)
{
    td_result r[3];
    memset(r, 0, sizeof r);
    td_device *base = first_pass(&r[0], "testarch");
    double saved[N_KEYS][N_METRICS];
    save_counters(base, saved);
    td_device *pass1 = plain_section(&r[1], "testarch");
    for (size_t i = 0; i < N_KEYS; i++) {
        if (base_order[i] == 6) /* reduce's last launch */
            continue;
        td_launch *l = add_launch(pass1, base_order[i], 1, 1);
        if (base_order[i] == 1) /* reduce's first launch */
            l->grid[0] = 7;
    }
    add_launch(pass1, 5, 1, 1)->grid[0] = 999; /* stencil #4: base has no such launch */
    td_device *pass2 = plain_section(&r[2], "testarch");
    for (size_t i = 0; i < N_KEYS; i++)
        add_launch(pass2, pass_order[i], 2, pass_order[i] == 2 ? TIMED : 2);
    td_app_passes_stats stats;
    CHECK(join(&r[0], (td_result *[]){&r[1], &r[2]}, 2, &stats) == 0);
    CHECK(as_first_pass(base, 1, saved[1])); /* another grid */
    CHECK(as_first_pass(base, 6, saved[6])); /* no launch at that ordinal */
    CHECK(as_first_pass(base, 2, saved[2])); /* not profiled */
    CHECK(!td_launch_measured(base, &base->launches[6], td_device_metric_index(base, "b0.sum")));
    CHECK(joined_whole(base, 0) && joined_whole(base, 4) && joined_whole(base, 5));
    CHECK(stats.passes == 3);
    CHECK(stats.launches == N_KEYS - 1);
    CHECK(stats.complete == 3);
    CHECK(stats.unmatched == 3);
    free_results(r, 3);
}

/* Pass 1's section lists its metrics in reverse with one base lacks:
 * the values land by name. */
static void test_metrics_by_name(void)
{
    td_result r[3];
    memset(r, 0, sizeof r);
    td_device *base = first_pass(&r[0], "testarch");
    const char *reversed[N_METRICS + 1] = {"extra.sum"};
    for (int m = 0; m < N_METRICS; m++)
        reversed[N_METRICS - m] = metric_names[m];
    td_device *pass1 = add_section(&r[1], "testarch", reversed, N_METRICS + 1, &groups);
    add_pass_launches(pass1, base_order, 1);
    CHECK(pass1->launches[0].counters[td_device_metric_index(pass1, "b0.sum")] != 0);
    add_pass_launches(plain_section(&r[2], "testarch"), base_order, 2);
    td_app_passes_stats stats;
    CHECK(join(&r[0], (td_result *[]){&r[1], &r[2]}, 2, &stats) == 0);
    for (size_t k = 0; k < N_KEYS; k++)
        if (k != TIMED_KEY)
            CHECK(joined_whole(base, k));
    CHECK(stats.complete == N_KEYS - 1 && stats.unmatched == 0);
    free_results(r, 3);
}

/* Two sections; pass 1's first has another arch: that section gets
 * nothing from it (its launches stay as they were), the second is joined. */
static void test_other_arch(void)
{
    td_result r[3];
    memset(r, 0, sizeof r);
    first_pass(&r[0], "testarch");
    first_pass(&r[0], "testarch");
    td_device *base = &r[0].devices[0], *second = &r[0].devices[1];
    double saved[N_KEYS][N_METRICS];
    save_counters(base, saved);
    add_pass_launches(plain_section(&r[1], "otherarch"), base_order, 1);
    add_pass_launches(plain_section(&r[1], "testarch"), base_order, 1);
    for (int d = 0; d < 2; d++)
        add_pass_launches(plain_section(&r[2], "testarch"), base_order, 2);
    td_app_passes_stats stats;
    CHECK(join(&r[0], (td_result *[]){&r[1], &r[2]}, 2, &stats) == 0);
    for (size_t k = 0; k < N_KEYS; k++)
        if (k != TIMED_KEY) {
            CHECK(as_first_pass(base, k, saved[k]));
            CHECK(joined_whole(second, k));
        }
    CHECK(stats.launches == 2 * (N_KEYS - 1));
    CHECK(stats.complete == N_KEYS - 1);
    CHECK(stats.unmatched == N_KEYS - 1);
    free_results(r, 3);
}

/* Pass 2's group 2 holds other metrics than base's group 2 (b0 for c0):
 * its launches name group 2 but did not measure it, so give nothing. */
static void test_other_group(void)
{
    static const group_table other = {{CYCLES, A0, A1}, {CYCLES, B0, B1}, {CYCLES, B0, -1}};
    td_result r[3];
    memset(r, 0, sizeof r);
    td_device *base = first_pass(&r[0], "testarch");
    double saved[N_KEYS][N_METRICS];
    save_counters(base, saved);
    add_pass_launches(plain_section(&r[1], "testarch"), base_order, 1);
    td_device *pass2 = add_section(&r[2], "testarch", metric_names, N_METRICS, &other);
    add_pass_launches(pass2, base_order, 2);
    td_app_passes_stats stats;
    CHECK(join(&r[0], (td_result *[]){&r[1], &r[2]}, 2, &stats) == 0);
    for (size_t k = 0; k < N_KEYS; k++)
        if (k != TIMED_KEY)
            CHECK(as_first_pass(base, k, saved[k]));
    CHECK(stats.complete == 0);
    CHECK(stats.unmatched == N_KEYS - 1);
    free_results(r, 3);
}

/* A join begun and freed (an error path) leaves base as it was and
 * leaks nothing; a base that changed since begin is refused by add. */
static void test_free_unfinished(void)
{
    td_result r[2];
    memset(r, 0, sizeof r);
    td_device *base = first_pass(&r[0], "testarch");
    double saved[N_KEYS][N_METRICS];
    save_counters(base, saved);
    add_pass_launches(plain_section(&r[1], "testarch"), base_order, 1);
    td_error err;
    td_app_passes *ap = NULL;
    CHECK(td_app_passes_begin(&r[0], &ap, &err) == 0 && ap != NULL);
    CHECK(td_app_passes_add(ap, &r[0], &r[1], &err) == 0);
    add_launch(base, 0, 0, 0);
    CHECK(td_app_passes_add(ap, &r[0], &r[1], &err) == -1); /* base changed */
    td_app_passes_free(ap);
    for (size_t k = 0; k < N_KEYS; k++)
        if (k != TIMED_KEY)
            CHECK(as_first_pass(base, k, saved[k]));
    td_app_passes_free(NULL);
    free_results(r, 2);
}

int main(void)
{
    test_every_launch_matched();
    test_launches_missed();
    test_metrics_by_name();
    test_other_arch();
    test_other_group();
    test_free_unfinished();
    return td_check_summary();
}
