/* The sampled collection against the truth, on simulated launch streams
 * whose every launch is known: the choice of launches and groups
 * (topdown/inject/group_sampler.c, as the collector makes it) and the estimator
 * (levels/estimate.c, as the report computes it) must give every L1-L3
 * node within 2 points of the tree of every launch measured with the full
 * set, with a 95% spread that covers the error on at least 95% of the
 * nodes without being inflated (issue 22's bar). Streams:
 *  - a BFS: the frontier grows and shrinks every launch (size, duration,
 *    level 1 and stall mix all move with it), 160 sources x 25 levels;
 *  - phases: one kernel, one launch shape, alternating a compute and a
 *    memory phase every 128 launches (a period that a fixed power-of-two
 *    stride would alias with);
 *  - a kernel launched twice: two of three groups measured, so the stall
 *    split is not made and nothing is renormalised;
 *  - every launch with the full set: the exact mean and only the
 *    counters' own spread (TD_EST_FLOOR). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "levels/estimate.h"
#include "metrics/xorshift.h"
#include "report/json.h"
#include "report/text.h"
#include "td_testlib.h"
#include "td_testreport.h"
#include "topdown/inject/budget.h"
#include "topdown/inject/group_sampler.h"
#include "sim_queue.h"

static const char arch_json[] =
    "{\"schema\": \"topdown-arch/1\", \"name\": \"esttest\", \"family\": \"Test\","
    " \"compute_capabilities\": [\"9.8\"], \"chips\": [\"EST1\"], \"ipc_max\": 4,"
    " \"source\": \"range_profiler\","
    " \"counters\": {\"inst_executed\": \"inst\", \"inst_issued\": \"issued\","
    "  \"thread_inst_executed\": \"threads\", \"cycles_active\": \"cycles\","
    "  \"duration_ns\": \"duration\", \"warps_active\": \"warps\"},"
    " \"stalls\": ["
    "  {\"reason\": \"no_instruction\", \"metric\": \"s.noinst\", \"node\": \"Frontend.Fetch.Instruction_Fetch\"},"
    "  {\"reason\": \"barrier\", \"metric\": \"s.barrier\", \"node\": \"Frontend.Fetch.Synchronization\"},"
    "  {\"reason\": \"long_scoreboard\", \"metric\": \"s.longsb\", \"node\": \"Backend.Memory_Bound.L1_Bound\"},"
    "  {\"reason\": \"math_pipe_throttle\", \"metric\": \"s.math\", \"node\": \"Backend.Core_Bound.Math_Pipe\"},"
    "  {\"reason\": \"wait\", \"metric\": \"s.wait\", \"node\": \"Backend.Core_Bound.Dependency_Wait\"}],"
    " \"groups\": [[\"inst\", \"issued\", \"threads\", \"cycles\", \"duration\", \"warps\", \"s.noinst\"],"
    "  [\"cycles\", \"warps\", \"duration\", \"s.longsb\", \"s.math\"],"
    "  [\"cycles\", \"warps\", \"duration\", \"s.wait\", \"s.barrier\"]]}";

/* The table with its barrier reason under Constant_Memory instead
 * (test_context_opening_cold). */
static const char *constant_arch_json(void)
{
    static char text[sizeof arch_json + 64];
    const char *from[] = {"\"esttest\"", "\"9.8\"", "\"EST1\"", "Frontend.Fetch.Synchronization"};
    const char *to[] = {"\"esttestc\"", "\"9.9\"", "\"EST2\"", "Backend.Memory_Bound.Constant_Memory"};
    snprintf(text, sizeof text, "%s", arch_json);
    for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
        char *at = strstr(text, from[i]);
        CHECK(at != NULL);
        if (!at)
            break;
        char rest[sizeof text];
        snprintf(rest, sizeof rest, "%s", at + strlen(from[i]));
        snprintf(at, sizeof text - (size_t)(at - text), "%s%s", to[i], rest);
    }
    return text;
}

enum { M_INST, M_ISSUED, M_THREADS, M_CYCLES, M_DURATION, M_WARPS, M_NOINST, M_BARRIER,
       M_LONGSB, M_MATH, M_WAIT, M_COUNT };
static const char *const metric_names[M_COUNT] = {
    "inst", "issued", "threads", "cycles", "duration", "warps",
    "s.noinst", "s.barrier", "s.longsb", "s.math", "s.wait"};
static const size_t group0[] = {M_INST, M_ISSUED, M_THREADS, M_CYCLES, M_DURATION, M_WARPS,
                                M_NOINST};
static const size_t group1[] = {M_CYCLES, M_WARPS, M_DURATION, M_LONGSB, M_MATH};
static const size_t group2[] = {M_CYCLES, M_WARPS, M_DURATION, M_WAIT, M_BARRIER};
static const td_counter_group groups[3] = {{(size_t *)group0, 7}, {(size_t *)group1, 5},
                                           {(size_t *)group2, 5}};

static td_arch_set archs;

/* One simulated launch: its shape, duration and full counter set, from a
 * "size" x in 0..1 (a frontier's share of the graph, a phase) and noise. */
typedef struct sim_launch {
    unsigned grid[3], block[3];
    double duration;
    double c[M_COUNT];
} sim_launch;

static double noise(uint32_t *rng, double amount)
{
    return 1.0 + amount * ((double)(td_xorshift32(rng) % 2001) / 1000.0 - 1.0);
}

static sim_launch simulate(double x, int grid_follows, uint32_t *rng)
{
    sim_launch l;
    memset(&l, 0, sizeof l);
    double threads = grid_follows ? pow(2.0, 10.0 + 14.0 * x) : 65536.0;
    l.block[0] = 256, l.block[1] = l.block[2] = 1;
    l.grid[0] = (unsigned)(threads / 256.0), l.grid[1] = l.grid[2] = 1;
    l.duration = (5000.0 + 2.0e6 * x * x) * noise(rng, 0.05);
    double sms = l.grid[0] < 132 ? l.grid[0] : 132;
    double cycles = l.duration * 1.7 * sms;
    double warps = cycles * (4.0 + 56.0 * x) * noise(rng, 0.05);
    double issue = (0.08 + 0.5 * x) * noise(rng, 0.1); /* issue slots used, 0..1 */
    double issued = 4.0 * cycles * issue;
    double inst = issued * 0.95;
    double eff = 0.55 + 0.4 * x;
    double stalled = warps - issued * 1.3; /* the rest: selected and not selected */
    double mix[5] = {0.30 * (1 - x) + 0.05, 0.15 * (1 - x), 0.15 + 0.55 * x, 0.1 * x, 0.2};
    double total = 0;
    for (int r = 0; r < 5; r++)
        total += (mix[r] *= noise(rng, 0.2));
    double c[M_COUNT] = {inst, issued, 32.0 * inst * eff, cycles, l.duration, warps,
                         stalled * mix[0] / total, stalled * mix[1] / total,
                         stalled * mix[2] / total, stalled * mix[3] / total,
                         stalled * mix[4] / total};
    memcpy(l.c, c, sizeof c);
    return l;
}

static td_device *new_device(td_result *res)
{
    td_error err;
    memset(res, 0, sizeof *res);
    td_device *dev = td_result_add_device(res, &err);
    dev->arch = td_strdup("esttest");
    dev->name = td_strdup("NVIDIA Sim");
    dev->chip = td_strdup("EST1");
    CHECK(td_device_set_metrics(dev, metric_names, M_COUNT, &err) == 0);
    CHECK(td_device_set_groups(dev, groups, 3, &err) == 0);
    return dev;
}

/* Adds the launch: measured with `group` (TD_GROUP_ALL: every counter),
 * or only timed (measure 0). */
static void add(td_device *dev, const char *name, const sim_launch *s, int measure, int group)
{
    td_error err;
    double c[M_COUNT] = {0};
    if (measure && group == TD_GROUP_ALL)
        memcpy(c, s->c, sizeof c);
    for (size_t i = 0; measure && group >= 0 && i < groups[group].n; i++)
        c[groups[group].metrics[i]] = s->c[groups[group].metrics[i]];
    td_launch *l = td_device_add_launch(dev, name, measure ? c : NULL, &err);
    l->id = dev->n_launches - 1;
    l->group = measure ? group : TD_GROUP_ALL;
    l->duration_ns = s->duration;
    memcpy(l->grid, s->grid, sizeof l->grid);
    memcpy(l->block, s->block, sizeof l->block);
}

typedef struct scores {
    size_t nodes, covered;
    double worst;             /* largest |error| in points */
    double *errors, *spreads; /* per node, points */
} scores;

/* Compares the kernel's sampled tree with its truth, every L1-L3 node. */
static void score(const td_summary *truth, const td_summary *sampled, scores *sc)
{
    const td_model *m = &truth->models[0];
    const td_kernel_summary *t = &truth->kernels[0], *e = &sampled->kernels[0];
    CHECK(t->has_data && e->has_data && e->sampled);
    for (int n = 0; n < m->n_tree; n++) {
        if (m->tree[n].level > 3)
            continue;
        double err = 100.0 * fabs(e->mean.value[n] - t->mean.value[n]);
        double spread = 100.0 * e->spread.value[n];
        sc->errors[sc->nodes] = err;
        sc->spreads[sc->nodes] = spread;
        sc->nodes++;
        sc->covered += err <= spread + 1e-9;
        if (err > sc->worst)
            sc->worst = err;
        if (err > 2.0)
            fprintf(stderr, "  node %s: sampled %.2f truth %.2f spread %.2f\n", m->tree[n].path,
                    100.0 * e->mean.value[n], 100.0 * t->mean.value[n], spread);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

typedef double (*size_fn)(size_t i, uint32_t *rng);

/* A frontier over 25 levels from each of 40 sources: tiny, huge, tiny. */
static double bfs_size(size_t i, uint32_t *rng)
{
    double level = (double)(i % 25) / 24.0;
    double x = pow(sin(3.14159265358979 * level), 3.0) * noise(rng, 0.3);
    return x < 0 ? 0 : (x > 1 ? 1 : x);
}

/* Compute phase then memory phase, 128 launches each. */
static double phase_size(size_t i, uint32_t *rng)
{
    return ((i / 128) % 2 ? 0.9 : 0.1) * noise(rng, 0.02);
}

/* Summarises the truth and the sample as the report does, scores the
 * sample's tree against the truth's, and frees both results. */
static void score_results(td_result *truth_res, td_result *sampled_res, scores *sc)
{
    td_summary truth, sampled;
    td_error err;
    CHECK(td_summarize(truth_res, &archs, NULL, &truth, &err) == 0);
    CHECK(td_summarize(sampled_res, &archs, NULL, &sampled, &err) == 0);
    score(&truth, &sampled, sc);
    td_summary_free(&truth);
    td_summary_free(&sampled);
    td_result_free(truth_res);
    td_result_free(sampled_res);
}

/* score_results, then one line: what, the largest error and the nodes
 * the spread covers. */
static void score_said(td_result *truth_res, td_result *sampled_res, const char *what,
                       scores *sc)
{
    score_results(truth_res, sampled_res, sc);
    printf("%s: largest error %.2f points, %zu of %zu nodes covered\n", what, sc->worst,
           sc->covered, sc->nodes);
}

/* One stream of n launches: the truth (every launch, full set) and the
 * sample as the collector chooses it (budget unlimited: every launch the
 * choice wants), each summarised as the report does. */
static void run_stream(size_fn size, size_t n, int grid_follows, uint32_t seed, scores *sc,
                       size_t *measured)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    td_choose_kernel state;
    memset(&state, 0, sizeof state);
    uint32_t rng = seed, xrng = seed * 7919u + 1u;
    int active = -1;
    *measured = 0;
    for (size_t i = 0; i < n; i++) {
        sim_launch s = simulate(size(i, &xrng), grid_follows, &rng);
        add(truth_dev, "k", &s, 1, TD_GROUP_ALL);
        td_choice ch = td_choose(&state, td_launch_size_class(s.grid, s.block), 3, active, 0);
        add(sampled_dev, "k", &s, ch.measure, ch.group);
        if (ch.measure)
            active = ch.group, (*measured)++;
    }
    score_results(&truth_res, &sampled_res, sc);
    td_choose_free(&state);
}

/* Compute and memory phases of 50 launches (td_phases2 of truth.sh). */
static double phase50_size(size_t i, uint32_t *rng)
{
    return ((i / 50) % 2 ? 0.9 : 0.1) * noise(rng, 0.02);
}

/* The stream sampled under the 40% budget (topdown/inject/budget.c) on a
 * simulated GPU queue, the first launch replayed (auto mode); gpu_clock:
 * the budget also counts the GPU time of the launches queued, each as long
 * as it will run (the collector would estimate it per kernel and size
 * class from the activity records so far: td_phases2's two phases run
 * 0.28 and 0.32 ms). */
/* The launch with its duration set to ns: every count scales with it. */
static sim_launch lasting(sim_launch l, double ns)
{
    double scale = ns / l.duration;
    for (int m = 0; m < M_COUNT; m++)
        l.c[m] *= scale;
    l.duration = ns;
    return l;
}

/* How run_budget_stream runs: the budget on the launches' GPU time too,
 * moves between groups only as the budget pays them (td_budget_kernel_may_move,
 * as the collector does), every launch lasting this long (0: as its size). */
typedef struct budget_run {
    int gpu_clock, moves_paid;
    double fixed_ns;
} budget_run;

static void run_budget_stream(size_fn size, size_t n, budget_run how, uint32_t seed, scores *sc,
                              size_t *measured)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    td_choose_kernel state;
    memset(&state, 0, sizeof state);
    state.covered = 1;
    double *finish = calloc(n, sizeof *finish);
    sim_queue q = {.host_s = 0.2, .gpu_free = 0.2, .finish = finish, .depth = 1024,
                   .queue_s = 5e-6};
    td_budget b = {.overhead = 0.4};
    uint32_t rng = seed, xrng = seed * 7919u + 1u;
    int active = -1;
    *measured = 0;
    for (size_t i = 0; finish && i < n; i++) {
        sim_launch s = simulate(size(i, &xrng), 0, &rng);
        if (how.fixed_ns > 0)
            s = lasting(s, how.fixed_ns * noise(&rng, 0.01));
        add(truth_dev, "k", &s, 1, TD_GROUP_ALL);
        td_choice ch = {0, -1, 0, 0};
        state.stay = how.moves_paid && !td_budget_kernel_may_move(&b, q.host_s, b.gpu_s,
                                                                  state.moves);
        if (i > 0)
            ch = td_choose(&state, td_launch_size_class(s.grid, s.block), 3, active, 0);
        if (ch.measure && !td_budget_allows(&b, q.host_s)) {
            td_choose_dropped(&state, td_launch_size_class(s.grid, s.block), ch.group);
            ch.measure = 0;
        }
        if (how.gpu_clock)
            td_budget_launched(&b, q.host_s, s.duration * 1e-9, s.duration * 1e-9);
        if (i > 0 && !ch.measure) {
            add(sampled_dev, "k", &s, 0, 0);
            sim_queue_launch(&q, i, s.duration * 1e-9);
            continue;
        }
        double cost = i == 0 ? 0.05 : 1.3e-3 + (ch.group != active ? 12e-3 : 0);
        *(i == 0 ? &b.once_s : &b.spent_s) += cost; /* the replay is coverage */
        sim_queue_sample(&q, i, s.duration * 1e-9, cost);
        add(sampled_dev, "k", &s, 1, i == 0 ? TD_GROUP_ALL : ch.group);
        if (i > 0)
            active = ch.group;
        (*measured)++;
    }
    free(finish);
    score_results(&truth_res, &sampled_res, sc);
    td_choose_free(&state);
}

/* Phases of 50 launches alike in duration (300 us), unlike in mix, under
 * the 40% budget with moves between groups paid as the collector pays
 * them: groups are measured in turns, and a group measured in one part
 * of the run only lends its values to the rest (the H100's td_phases2:
 * the issue counters' group in launches 16-62 only). */
static void check_turns(void)
{
    enum { STREAMS = 12, N = 1000 };
    static double errors[STREAMS * TD_TREE_MAX], spreads[STREAMS * TD_TREE_MAX];
    scores sc = {0, 0, 0, errors, spreads};
    size_t measured = 0;
    for (uint32_t seed = 1; seed <= STREAMS; seed++) {
        size_t m = 0;
        run_budget_stream(phase50_size, N, (budget_run){1, 1, 300e3}, seed * 2246822519u, &sc,
                          &m);
        measured += m;
    }
    printf("phases of 50 alike in duration, moves paid by the budget: %zu launches measured of "
           "%d a stream; worst error %.2f points; spread covers %zu/%zu; median error %.3f, "
           "median spread %.3f\n", measured / STREAMS, N, sc.worst, sc.covered, sc.nodes,
           median(errors, sc.nodes), median(spreads, sc.nodes));
    /* The groups come in turns (seed 1: group 0 in launches 1-65 and
     * 673-987, group 2 in 134-333), 12-27 launches each: errors up to 5
     * points. A third of the run whose group came in one turn cannot show
     * how turns differ, and the spread (turns resampled only where a
     * third holds two) covers 85% of the nodes. Before the fifteenth
     * session it covered all: kernel replay's disagreement with the
     * groups, added where the estimate held no replayed quantity, stood in
     * for it by chance (docs/COLLECTION.md, not done). */
    CHECK(sc.covered * 100 >= sc.nodes * 85);
    CHECK(sc.worst < 10.0);
}

/* td_phases2 under the default budget, on the host's clock (inject.c
 * before budget.c: 2 samples here, worst node 43 points off, as the H100
 * measured 41-44) and with the GPU time counted, samples paced by the
 * budget's cap (83 samples, 1.4 points): the spread covers the error either
 * way; counting GPU time brings the tree near the truth. */
static void check_budget_clock(void)
{
    enum { STREAMS = 12, N = 1000 };
    static double errors[2][STREAMS * TD_TREE_MAX], spreads[2][STREAMS * TD_TREE_MAX];
    scores sc[2] = {{0, 0, 0, errors[0], spreads[0]}, {0, 0, 0, errors[1], spreads[1]}};
    size_t measured[2] = {0, 0};
    for (int clock = 0; clock < 2; clock++)
        for (uint32_t seed = 1; seed <= STREAMS; seed++) {
            size_t m = 0;
            run_budget_stream(phase50_size, N, (budget_run){clock, 0, 0}, seed * 2654435761u,
                              &sc[clock], &m);
            measured[clock] += m;
        }
    for (int clock = 0; clock < 2; clock++)
        printf("phases of 50 under the 40%% budget, %s: %zu launches measured of %d a stream; "
               "worst error %.2f points; spread covers %zu/%zu; median error %.3f, median "
               "spread %.3f\n", clock ? "host or GPU time" : "host clock",
               measured[clock] / STREAMS, N, sc[clock].worst, sc[clock].covered,
               sc[clock].nodes, median(errors[clock], sc[clock].nodes),
               median(spreads[clock], sc[clock].nodes));
    for (int clock = 0; clock < 2; clock++)
        CHECK(sc[clock].covered * 100 >= sc[clock].nodes * 95);
    CHECK(measured[1] > measured[0] && sc[1].worst < sc[0].worst);
}

static void check_bar(const char *what, size_fn size, size_t n, int grid_follows)
{
    enum { STREAMS = 12 };
    static double errors[STREAMS * TD_TREE_MAX], spreads[STREAMS * TD_TREE_MAX];
    scores sc = {0, 0, 0, errors, spreads};
    size_t measured = 0;
    for (uint32_t seed = 1; seed <= STREAMS; seed++)
        run_stream(size, n, grid_follows, seed * 2654435761u, &sc, &measured);
    double med_err = median(errors, sc.nodes), med_spread = median(spreads, sc.nodes);
    printf("%s: %zu launches, %zu measured; worst error %.2f points; spread covers %zu/%zu "
           "nodes; median error %.3f, median spread %.3f\n", what, n, measured, sc.worst,
           sc.covered, sc.nodes, med_err, med_spread);
    CHECK(sc.worst <= 2.0);
    CHECK(sc.covered * 100 >= sc.nodes * 95);
    CHECK(med_spread <= fmax(3.0 * med_err, 1.0));
    CHECK(measured < n / 4); /* a sample, not every launch */
}

/* Two launches of a kernel with three groups: its level 1 is measured,
 * its stall split is not (n/m), and the stalled slots stay unattributed. */
static void test_incomplete(void)
{
    td_result res;
    td_device *dev = new_device(&res);
    uint32_t rng = 5;
    sim_launch a = simulate(0.3, 1, &rng), b = simulate(0.3, 1, &rng);
    add(dev, "twice", &a, 1, 0);
    add(dev, "twice", &b, 1, 1);
    td_summary s;
    td_error err;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    const td_kernel_summary *k = &s.kernels[0];
    const td_model *m = &s.models[0];
    CHECK(k->has_data && k->sampled);
    CHECK(m->arch->n_stalls == 5 && k->stalls_missing == 2); /* 3 of 5 reasons measured */
    CHECK(s.incomplete == 1);
    int retire = td_model_find(m, "Retire"), fe = td_model_find(m, "Frontend");
    td_breakdown one;
    CHECK(td_model_launch(m, &s.bindings[0], &dev->launches[0], &one, &err) == 0);
    CHECK_NEAR(k->mean.value[retire], one.value[retire], 1e-9);
    CHECK(k->mean.value[fe] == 0.0);
    CHECK_NEAR(k->mean.unattributed, 1.0 - one.value[retire] -
                   one.value[td_model_find(m, "Divergence")], 1e-9);
    CHECK(k->mean.reasons_missing == 2 && !td_node_measured(m, &k->mean, fe));
    CHECK(td_node_measured(m, &k->mean, retire));
    /* the outputs say n/m (text) and null (JSON), never 0.0 */
    char text[1 << 15];
    td_report_options o;
    td_report_options_init(&o);
    o.level = 3;
    o.no_desc = 1;
    CHECK(td_test_report_text(&res, &s, &o, text, sizeof text) == 0);
    CHECK(strstr(text, "Frontend                                              % Slots    n/m\n"));
    CHECK(strstr(text, "2 of 5 stall reasons never measured"));
    CHECK(strstr(text, "stall split not measured (too few launches for every counter group): "
                       "kernel #1 (100.0%);"));
    CHECK(strstr(text, "--replay-mode kernel completes them")); /* wrapped at 100 columns */
    CHECK(strstr(text, "application") && strstr(text, "(device heap, CUDA graphs)"));
    FILE *f = tmpfile();
    CHECK(f && td_report_json(f, &s, 3, "sim", NULL, NULL, NULL, &err) == 0);
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    CHECK(strstr(text, "\"path\":\t\"Frontend\"") || strstr(text, "\"path\":\"Frontend\""));
    CHECK(strstr(text, "\"pct_slots\":\tnull") || strstr(text, "\"pct_slots\":null"));
    td_summary_free(&s);
    td_result_free(&res);
}

/* Every launch with the full set: the exact duration-weighted mean of the
 * launches' trees, and no sampling spread (nothing was left unmeasured):
 * only the counters' repeatability. */
static void test_every_launch(void)
{
    td_result res;
    td_device *dev = new_device(&res);
    uint32_t rng = 9;
    double want = 0, total = 0;
    td_summary s;
    td_error err;
    for (int i = 0; i < 50; i++) {
        sim_launch l = simulate(i % 2 ? 0.2 : 0.8, 1, &rng);
        add(dev, "all", &l, 1, TD_GROUP_ALL);
    }
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    const td_model *m = &s.models[0];
    int l1b = td_model_find(m, "Backend.Memory_Bound.L1_Bound");
    for (size_t i = 0; i < dev->n_launches; i++) {
        td_breakdown one;
        CHECK(td_model_launch(m, &s.bindings[0], &dev->launches[i], &one, &err) == 0);
        want += dev->launches[i].duration_ns * one.value[l1b];
        total += dev->launches[i].duration_ns;
    }
    CHECK(!s.kernels[0].sampled);
    CHECK_NEAR(s.kernels[0].mean.value[l1b], want / total, 1e-12);
    for (int n = 0; n < TD_TREE_MAX; n++)
        CHECK(s.kernels[0].spread.value[n] == TD_EST_FLOOR); /* the counters' own */
    td_summary_free(&s);
    td_result_free(&res);
}

/* The report's text of a summary at level 1. */
static void report_text(const td_result *res, const td_summary *s, char *text, size_t size)
{
    td_report_options o;
    td_report_options_init(&o);
    o.level = 1;
    o.no_desc = 1;
    CHECK(td_test_report_text(res, s, &o, text, size) == 0);
}

/* The summary of res as the report makes it, and its text at level 1. */
static void summary_text(const td_result *res, td_summary *s, char *text, size_t size)
{
    td_error err;
    CHECK(td_summarize(res, &archs, NULL, s, &err) == 0);
    report_text(res, s, text, size);
}

/* The report's text with its wrapped lines joined (a line break and the
 * indent after it become one space), so that a phrase can be found
 * wherever the wrap fell. */
static void unwrap(char *text)
{
    char *to = text;
    for (const char *from = text; *from; from++) {
        if (*from == '\n' && from[1] == ' ') {
            while (from[1] == ' ')
                from++;
            *to++ = ' ';
            continue;
        }
        *to++ = *from;
    }
    *to = '\0';
}

/* A kernel measured only in the first phase of its run, its second
 * phase's launch size never: that can be anything, so the kernel is not
 * known (n/k), and the report's header and the kernel say so and what
 * measures more; one measured all along is not listed. */
static void test_unsure(void)
{
    td_result res;
    td_device *dev = new_device(&res);
    uint32_t rng = 11, xrng = 12;
    for (size_t i = 0; i < 1000; i++) {
        sim_launch l = simulate(phase_size(i * 2, &xrng), 0, &rng);
        add(dev, "first_phase_only", &l, i < 6, i < 6 ? (int)(i % 3) : 0);
    }
    td_summary s;
    char text[1 << 15];
    summary_text(&res, &s, text, sizeof text);
    CHECK(strstr(text, "not known (n/k: a 95% interval wider than 30 points): kernel #1 "
                       "(100.0%); each kernel's\n          NOTE says why"));
    CHECK(strstr(text, "NOTE: not known (n/k): a 95% interval wider than 30 points (6 of 1,000 "
                       "launches measured,\n    each with one counter group); --overhead "
                       "unlimited measures more launches,"));
    CHECK(strstr(text, "Retire                                                % Slots    n/k\n"));
    CHECK(strstr(text, "No verdict: its level-1 shares are not known (n/k)"));
    td_summary_free(&s);
    td_result_free(&res);
    dev = new_device(&res);
    for (size_t i = 0; i < 300; i++) {
        sim_launch l = simulate(0.5, 1, &rng);
        add(dev, "measured_all_along", &l, 1, (int)(i % 3));
    }
    summary_text(&res, &s, text, sizeof text);
    CHECK(!strstr(text, "n/k"));
    td_summary_free(&s);
    td_result_free(&res);
}

/* The largest spread of the kernel's L1-L3 nodes, in points. */
static double widest_spread(const td_summary *s)
{
    const td_model *m = &s->models[0];
    double widest = 0;
    for (int n = 0; n < m->n_tree; n++)
        if (m->tree[n].level <= 3)
            widest = fmax(widest, 100.0 * s->kernels[0].spread.value[n]);
    return widest;
}

/* Two phases of alike launches (600, a phase per 100), every stratum of
 * every group measured by a few launches and one full-set replay in each
 * of four strata, as the collector's coverage makes them: the spread is
 * what the launches vary, about the floor. It was 18-60 points when the
 * bound for unmeasured strata read the cells of the bootstrap's last
 * resample (strata it alone left empty) and the 4 replays, one per
 * stratum, counted as a pool of their own (t(1)). */
static void test_spread_every_stratum(void)
{
    td_result res;
    td_device *dev = new_device(&res);
    uint32_t rng = 21;
    for (size_t i = 0; i < 600; i++) {
        sim_launch l = simulate((i / 100) % 2 ? 0.9 : 0.1, 0, &rng);
        int replay = i == 0 || i == 150 || i == 300 || i == 450;
        int sampled = i % 8 == 3;
        add(dev, "phased", &l, replay || sampled,
            replay ? TD_GROUP_ALL : (int)((i / 8) % 3));
    }
    td_summary s;
    td_error err;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    CHECK(s.kernels[0].sampled);
    double widest = widest_spread(&s);
    printf("every stratum measured: widest spread %.2f points\n", widest);
    CHECK(widest < 3.0);
    td_summary_free(&s);
    td_result_free(&res);
}

/* One launch shape all along, the last third never measured: its bound is
 * twice the measured strata's deviation, small; measured in the first
 * third only, the rest is taken to run as the sample did: small too
 * (issue 39: five alike launches of 25 said +-50, two thirds of the time
 * times the node's range). */
static void test_spread_unmeasured_third(void)
{
    td_result res;
    td_summary s;
    td_error err;
    uint32_t rng = 23;
    double widest[2];
    for (int only_first = 0; only_first < 2; only_first++) {
        td_device *dev = new_device(&res);
        size_t last = only_first ? 300 : 600;
        for (size_t i = 0; i < 900; i++) {
            sim_launch l = simulate(0.5, 0, &rng);
            add(dev, "steady", &l, i < last && i % 4 == 0, (int)((i / 4) % 3));
        }
        CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
        widest[only_first] = widest_spread(&s);
        td_summary_free(&s);
        td_result_free(&res);
    }
    printf("a third unmeasured: widest spread %.2f points; two thirds: %.2f\n", widest[0],
           widest[1]);
    CHECK(widest[0] < 3.0);
    CHECK(widest[1] < 3.0);
}


/* One shape, one duration, a stall mix that changes after the first third
 * (compute, then memory); the issue counters' group and one stall group
 * measured in every third, the other stall group only in the first and
 * last: the middle third borrows those reasons from its class at other
 * times, which disagree (the H100's td_manykernels in
 * benchmarks/results/truth_h100_variants/: 93-94% of the nodes covered).
 * The spread holds how far the borrowed reasons swing between the thirds
 * that measured them. */
static void test_spread_borrowed_drift(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    uint32_t rng = 31;
    for (size_t i = 0; i < 900; i++) {
        size_t third = i / 300;
        sim_launch l = lasting(simulate(third == 0 ? 0.1 : 0.9, 0, &rng),
                               100e3 * noise(&rng, 0.01));
        add(truth_dev, "drifting", &l, 1, TD_GROUP_ALL);
        int group = (int)((i / 4) % 3);
        int measured = i % 4 == 0 && (group != 1 || third != 1);
        add(sampled_dev, "drifting", &l, measured, group);
    }
    scores sc = {0};
    double errors[64], spreads[64];
    sc.errors = errors, sc.spreads = spreads;
    score_said(&truth_res, &sampled_res, "a group's reasons borrowed across a drift", &sc);
    CHECK(sc.worst > 100.0 * TD_EST_FLOOR); /* the borrowing is wrong past the floor, */
    CHECK(sc.covered == sc.nodes); /* and the spread says by how much (18 of 22 before) */
}

/* td_sort's radix_scatter on the H200: the same grid for launches of 1 to
 * 32,768 blocks' work, level 1 (the issue counters' group) measured only
 * on the short ones, the stall groups on both. The long ones, most of the
 * time, diverge otherwise: borrowed level 1 said Divergence 4.3 [3.0,
 * 5.5] where every launch measured gave 26.7. With level 1 from one
 * duration class alone, the classes that never measured it can be
 * anything, and the spread must say so. */
static void test_level1_one_class(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    uint32_t rng = 37;
    for (size_t i = 0; i < 600; i++) {
        int big = i % 2;
        sim_launch l = lasting(simulate(big ? 0.9 : 0.1, 0, &rng), big ? 500e3 : 5e3);
        add(truth_dev, "varying", &l, 1, TD_GROUP_ALL);
        int group = (int)((i / 2) % 3);
        int measured = i % 2 == 0 || group != 0; /* level 1 on short launches only */
        add(sampled_dev, "varying", &l, measured, group);
    }
    scores sc = {0};
    double errors[64], spreads[64];
    sc.errors = errors, sc.spreads = spreads;
    score_said(&truth_res, &sampled_res, "level 1 from the short launches alone", &sc);
    CHECK(sc.worst > 5.0);          /* the borrowed level 1 is wrong, */
    CHECK(sc.covered == sc.nodes);  /* and the spread says it may be */
}

/* td_sort's radix_histogram (H200): launches of 1-256 blocks, 2 us, measured
 * every counter group; its 32768-block launches, 73 us and most of its
 * time, only the groups without the issue counters. Their level 1 is
 * another size's, 5 octaves away: the estimate said Retire 9.8 +-7.4
 * where application replay gave 26.5. Now the interval says it can be
 * anything there (levels/estimate.c level1_far), where a longer launch of
 * a measured size does not (the same stream, the long launches of the
 * short ones' grid). The short ones fall in two classes: with level 1 in
 * one class alone, every other class can be anything already. */
static void test_level1_other_size(void)
{
    double widest[2];
    for (int same_size = 0; same_size < 2; same_size++) {
        td_result res;
        td_device *dev = new_device(&res);
        uint32_t rng = 53;
        for (size_t i = 0; i < 600; i++) {
            int big = i % 4 == 3; /* the short ones in two classes, 2 and 5 us */
            sim_launch l = lasting(simulate(big ? 0.9 : 0.1, 0, &rng),
                                   big ? 80e3 : i % 4 == 1 ? 5e3 : 2e3);
            if (big && !same_size)
                l.grid[0] = 32768;
            int group = (int)((i / 4) % 3);
            add(dev, "histogram", &l, !big || group != 0, group);
        }
        td_summary s;
        td_error err;
        CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
        int retire = td_model_find(&s.models[0], "Retire");
        widest[same_size] = retire >= 0 ? s.kernels[0].spread.value[retire] : 0;
        /* the kernel's NOTE says why: the long launches' share of its time */
        char text[1 << 15];
        report_text(&res, &s, text, sizeof text);
        unwrap(text);
        if (same_size)
            CHECK(s.kernels[0].level1_elsewhere == 0 && !strstr(text, "whose issue counters"));
        else
            CHECK(s.kernels[0].level1_elsewhere > 0.8 &&
                  strstr(text, "% of its time in launches of a size whose issue counters no "
                               "launch measured); --overhead unlimited measures every size"));
        td_summary_free(&s);
        td_result_free(&res);
    }
    printf("level 1 of another size: Retire +-%.1f points, +-%.1f for the same size\n",
           100 * widest[0], 100 * widest[1]);
    CHECK(widest[0] > 0.30); /* not known */
    CHECK(widest[1] < 0.15);
}

/* td_phases2 as the H100 ran it (truth_h100_stride): compute and memory
 * phases of 50 launches, 318 and 280 us, one octave; the issue counters'
 * group measured launches 16-62 of 1,000 (30 of the compute phase, 5 of
 * the memory phase), the other groups the rest of the run. Octave-wide
 * duration classes mixed the phases 6:1 in level 1 (Retire 81 where the
 * truth is 52; the spread said 0.75); eighths of an octave split them. */
static void test_phases_one_octave(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    uint32_t rng = 29;
    size_t issue_samples = 0;
    for (size_t i = 0; i < 1000; i++) {
        int memory = (i / 50) % 2;
        sim_launch l = lasting(simulate(memory ? 0.9 : 0.1, 0, &rng),
                               (memory ? 280e3 : 318e3) * noise(&rng, 0.01));
        add(truth_dev, "phased", &l, 1, TD_GROUP_ALL);
        int issue = i >= 16 && i <= 62 && (i < 32 || i % 3 == 0);
        int other = i > 62 && i % 9 == 0;
        issue_samples += (size_t)issue;
        add(sampled_dev, "phased", &l, issue || other, issue ? 0 : 1 + (int)(i / 9) % 2);
    }
    double errors[64], spreads[64];
    scores sc = {0, 0, 0, errors, spreads};
    char what[96];
    snprintf(what, sizeof what, "two phases in one octave, issue counters from %zu launches "
             "early on", issue_samples);
    score_said(&truth_res, &sampled_res, what, &sc);
    CHECK(sc.worst < 2.0);
    /* 95% intervals of 22 correlated nodes: a few may miss, none by far */
    for (size_t n = 0; n < sc.nodes; n++)
        CHECK(errors[n] <= 2.0 * spreads[n]);
}

/* Whether the sampled launch i of a td_phases2-like stream measured, and
 * with which group: level 1 (group 0) only in phase A, as the H200's run
 * of session 13 (call 5) took it: replays of launches 0-3, group 0 at
 * 17-33 and three later launches of phase A; the stall groups in both
 * phases, phase B's mostly in the first third (a rotation riding its
 * groups), so that its other thirds borrow them from there. */
static int phases_h200_group(size_t i, int *group)
{
    static const size_t level1_late[] = {109, 345, 635};
    static const size_t stall1[] = {34, 38, 51, 55, 58, 61, 146, 790};
    static const size_t stall2[] = {68, 72, 76, 216, 311};
    if (i < 4)
        return *group = TD_GROUP_ALL, 1;
    if (i >= 17 && i <= 33)
        return *group = 0, 1;
    for (size_t k = 0; k < 3; k++)
        if (i == level1_late[k])
            return *group = 0, 1;
    for (size_t k = 0; k < sizeof stall1 / sizeof *stall1; k++)
        if (i == stall1[k])
            return *group = 1, 1;
    for (size_t k = 0; k < sizeof stall2 / sizeof *stall2; k++)
        if (i == stall2[k])
            return *group = 2, 1;
    return 0;
}

/* td_phases2 on the H200 (trace_NVIDIA_H200_2026-11-29_s13, call 5): one
 * launch size, a compute phase of 321 us and a memory phase of 197 us,
 * 50 launches each in turn; level 1 measured in the compute phase alone.
 * The memory phase's strata measured stall groups, so their level 1 was
 * borrowed within the spread of their own thirds alone: Retire 93.3
 * +-0.75 where application replay gave 60.2. Parted by a gap from every
 * class that measured level 1, the memory phase's level 1 can be
 * anything, and the spread says so, and the report's NOTE why. Where the
 * durations run on without such a gap (one kind of work whose time
 * varies: td_devheap's heap_new, 13.3-28.9 ms over two octaves), the class
 * borrows level 1 as before. */
static void test_level1_phases_gap(void)
{
    double widest[2];
    for (int continuum = 0; continuum < 2; continuum++) {
        td_result truth_res, sampled_res;
        td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
        uint32_t rng = 61;
        for (size_t i = 0; i < 1000; i++) {
            int memory = (i / 50) % 2 == 1;
            double ns = memory ? 197e3 : 321e3;
            if (continuum) /* the same work, its time spread over 150-330 us */
                ns = 150e3 + 180e3 * (double)(td_xorshift32(&rng) % 1000) / 1000.0;
            sim_launch l = lasting(simulate(memory && !continuum ? 0.9 : 0.1, 0, &rng),
                                   ns * noise(&rng, 0.01));
            add(truth_dev, "solver_step", &l, 1, TD_GROUP_ALL);
            int group = 0;
            int measured = phases_h200_group(i, &group);
            add(sampled_dev, "solver_step", &l, measured, group);
        }
        /* the kernel's NOTE says why: the memory phase's share of its time */
        td_summary s;
        char text[1 << 15];
        summary_text(&sampled_res, &s, text, sizeof text);
        unwrap(text);
        const char *why = strstr(text, "% of its time in launches over 10% shorter or longer "
                                       "than any that measured its issue counters)");
        if (continuum)
            CHECK(!why && s.kernels[0].level1_other_kind == 0);
        else
            CHECK(why && why - text >= 2 && strncmp(why - 2, "38", 2) == 0);
        td_summary_free(&s);
        double errors[64], spreads[64];
        scores sc = {0, 0, 0, errors, spreads};
        score_said(&truth_res, &sampled_res,
                   continuum ? "one kind of work over 150-330 us, level 1 in some launches"
                             : "two phases parted by a gap, level 1 in one alone", &sc);
        double wide = 0;
        for (size_t n = 0; n < sc.nodes; n++)
            wide = fmax(wide, spreads[n]);
        widest[continuum] = wide;
        if (!continuum) {
            CHECK(sc.worst > 10.0);         /* the borrowed level 1 is far off, */
            CHECK(sc.covered == sc.nodes); /* and the spread says it may be */
            CHECK(wide > 30.0);            /* so wide that the report says n/k */
        } else {
            CHECK(sc.worst < 3.0);
            CHECK(wide < 10.0);
        }
    }
    printf("level 1 of one phase: widest spread %.1f points; of one kind of work: %.1f\n",
           widest[0], widest[1]);
}

/* A short kernel's n launches of about ns each: every launch into truth
 * with the full set, and into sampled its first 4 replayed (the full set)
 * and every `every`-th launch in a counter group in turn, the others
 * timed. The side `cold_replays` names (1: the replays, 0: the group
 * launches) stalled 5x as long on no_instruction (and on long_scoreboard
 * with `longsb`). The truth takes each launch as the group launches see
 * it (the natural run, MODEL.md section 6) with `natural_truth`, else as
 * the replays do (kernel replay of every launch). */
static void replays_and_groups(td_device *truth, td_device *sampled, const char *name, size_t n,
                               size_t every, double ns, int cold_replays, int longsb,
                               int natural_truth, uint32_t *rng)
{
    for (size_t i = 0; i < n; i++) {
        sim_launch l = lasting(simulate(0.3, 0, rng), ns * noise(rng, 0.02));
        int replay = i < 4, grouped = i % every == every / 2;
        sim_launch cold = l;
        cold.c[M_NOINST] *= 5.0;
        if (longsb)
            cold.c[M_LONGSB] *= 5.0;
        add(truth, name, cold_replays != natural_truth ? &cold : &l, 1, TD_GROUP_ALL);
        add(sampled, name, replay == cold_replays ? &cold : &l, replay || grouped,
            replay ? TD_GROUP_ALL : (int)(i / every) % 3);
    }
}

/* A short kernel whose launches without replay stall on instruction fetch
 * five times as long as under kernel replay (td_manykernels' bitonic_global
 * on the H100: 31% against 5%): the first 4 launches replayed with the full
 * set, the rest sampled by group. Every quantity of the replays gives way
 * to the groups' (TD_EST_NATURAL_MIN), so the estimate is the natural
 * run's alone: against that truth it is close and its spread narrow (the
 * disagreement, which no quantity of the estimate carries, no longer
 * widens it: td_tiny's MIO_Bound read +-15 for an error of 0.06 on the
 * H200). The report still says the two ways disagree. Against kernel
 * replay's truth the error is the disagreement itself. */
static void test_conditions_differ(void)
{
    double worst[2];
    for (int natural = 0; natural < 2; natural++) {
        td_result truth_res, sampled_res;
        td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
        uint32_t rng = 31;
        replays_and_groups(truth_dev, sampled_dev, "short", 300, 10, 2000.0, 0, 0, natural, &rng);
        td_summary s;
        char text[1 << 15];
        summary_text(&sampled_res, &s, text, sizeof text);
        CHECK(strstr(text, "kernel replay and the counter groups (without replay) disagree on "
                           "level 1") != NULL);
        CHECK(strstr(text, "n/k") == NULL); /* the natural run's tree is known */
        td_summary_free(&s);
        double errors[64], spreads[64];
        scores sc = {0, 0, 0, errors, spreads};
        score_said(&truth_res, &sampled_res,
                   natural ? "kernel replay and groups disagree, natural truth"
                           : "kernel replay and groups disagree, kernel replay's truth",
                   &sc);
        worst[natural] = sc.worst;
        if (natural) {
            CHECK(sc.worst < 2.0);
            CHECK(sc.covered == sc.nodes);
            for (size_t n = 0; n < sc.nodes; n++)
                CHECK(spreads[n] < 5.0);
        }
    }
    CHECK(worst[0] > 5.0); /* the groups' conditions win the estimate */
    CHECK(worst[1] < worst[0] / 3);
}

/* Where a replay's quantity stays in the estimate (the kernel's group
 * launches of another size: the replays are the only measurement of
 * theirs), the estimate mixes the two ways of measuring and the spread
 * carries how far they disagree (MODEL.md section 6): replays stalled 5x
 * on no_instruction, Instruction_Fetch's spread at least half that gap. */
static void test_mixed_conditions_widen(void)
{
    td_result res;
    td_device *dev = new_device(&res);
    uint32_t seed = 53;
    for (size_t i = 0; i < 200; i++) {
        sim_launch l = lasting(simulate(0.3, 0, &seed), 3000.0 * noise(&seed, 0.02));
        int replay = i < 4 || (i >= 100 && i < 104), sampled = i % 5 == 2;
        if (!replay)
            l.grid[0] = 8;
        sim_launch cold = l;
        cold.c[M_NOINST] *= 5.0;
        add(dev, "mixed", replay ? &cold : &l, replay || sampled,
            replay ? TD_GROUP_ALL : (int)(i / 5) % 3);
    }
    td_summary s;
    td_error err;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    int node = td_model_find(&s.models[0], "Frontend.Fetch.Instruction_Fetch");
    CHECK(node >= 0 && s.n_kernels == 1);
    if (node >= 0 && s.n_kernels == 1) {
        const td_kernel_summary *k = &s.kernels[0];
        double gap = k->conditions.value[node], spread = k->spread.value[node];
        printf("replays kept: Instruction_Fetch disagreement %.2f, spread %.2f points\n",
               100 * gap, 100 * spread);
        CHECK(gap > 0.02);
        CHECK(spread >= 0.5 * gap);
    }
    td_summary_free(&s);
    td_result_free(&res);
}

/* Natural conditions first (issue 39, levels/estimate.h
 * TD_EST_NATURAL_MIN): the truth is every launch in the app's own
 * conditions; the kernel's first 4 launches, replayed, stalled 5x as long
 * on no_instruction and on long_scoreboard (their caches cold, as td_tiny's
 * replays said MIO_Bound 15.6 points off its natural run), and every 6th
 * launch is sampled with a counter group in turn. Where two or more group
 * launches of their size and duration measured a quantity, the replays'
 * gives way: the tree keeps to the natural run, and the spread still
 * covers it. A kernel whose group launches are of another size (an
 * 8-block launch, not 256) keeps its replays: they are its only
 * measurement of that size, and 4 replays against 2 group launches of
 * each group make its tree mostly theirs. */
static void test_natural_first(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    uint32_t rng = 43;
    replays_and_groups(truth_dev, sampled_dev, "natural", 600, 6, 3000.0, 1, 1, 1, &rng);
    double errors[64], spreads[64];
    scores sc = {0, 0, 0, errors, spreads};
    score_said(&truth_res, &sampled_res, "replays under other conditions", &sc);
    CHECK(sc.worst < 1.0);
    CHECK(sc.covered == sc.nodes);
    /* Replays as the only measurement of their size keep their counters:
     * the same stream, the group launches of 8 blocks (another size) or of
     * 256 like the replays: Instruction_Fetch comes from the cold replays
     * in the first, from the group launches in the second. */
    double fetch[2];
    for (int alike = 0; alike < 2; alike++) {
        td_result res;
        td_device *dev = new_device(&res);
        td_summary s;
        td_error err;
        uint32_t seed = 47;
        for (size_t i = 0; i < 40; i++) {
            sim_launch l = lasting(simulate(0.3, 0, &seed), 3000.0 * noise(&seed, 0.02));
            int replay = i < 4, sampled = i >= 20 && i < 26;
            if (!replay && !alike)
                l.grid[0] = 8;
            sim_launch cold = l;
            cold.c[M_NOINST] *= 5.0;
            add(dev, "sized", replay ? &cold : &l, replay || sampled,
                replay ? TD_GROUP_ALL : (int)(i - 20) % 3);
        }
        CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
        int node = td_model_find(&s.models[0], "Frontend.Fetch.Instruction_Fetch");
        CHECK(node >= 0 && s.n_kernels == 1);
        fetch[alike] = node >= 0 && s.n_kernels ? s.kernels[0].mean.value[node] : 0;
        td_summary_free(&s);
        td_result_free(&res);
    }
    printf("replays of another size: Instruction_Fetch %.2f against %.2f of the same size\n",
           100 * fetch[0], 100 * fetch[1]);
    CHECK(fetch[0] > fetch[1] + 0.02);
}

/* A rotation session's first range runs cold: on the bundled runs its
 * sample stalled on instruction fetch several times as long as the same
 * kernel's later samples of the group (td_manykernels' init_uniform on the
 * H100: 0.40 of its warps' time against 0.05). Here sessions of 5 samples
 * of one group in turn, the first of each with 6x the true
 * no_instruction. Set aside where later samples of the group exist, the
 * tree keeps to the truth, and the spread still covers it. */
static void test_session_opening_cold(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    uint32_t rng = 37;
    size_t samples = 0;
    for (size_t i = 0; i < 900; i++) {
        sim_launch l = lasting(simulate(0.3, 0, &rng), 4000.0 * noise(&rng, 0.02));
        add(truth_dev, "short", &l, 1, TD_GROUP_ALL);
        int measured = i % 3 == 1;
        int group = (int)(samples / 5) % 3, opens = samples % 5 == 0;
        sim_launch cold = l;
        cold.c[M_NOINST] *= 6.0;
        add(sampled_dev, "short", measured && opens ? &cold : &l, measured, group);
        samples += (size_t)measured;
    }
    double errors[64], spreads[64];
    scores sc = {0, 0, 0, errors, spreads};
    score_said(&truth_res, &sampled_res, "a session's first sample cold", &sc);
    CHECK(sc.worst < 1.0); /* 12.0 points, 13 of 22 nodes covered, with them kept */
    CHECK(sc.covered == sc.nodes);
}

/* Ranges that ran slow (H200): td_sort's radix_histogram launches of
 * 1.4-2.1 us that opened a counter group's session recorded 56-81 us
 * (kernel record and range alike), and the first group range after a
 * replay ran more cycles for the same instructions (IPC 0.70-0.81 of
 * application replay's; levels/cold_ranges.h). Here 2 us launches, a
 * replay every 60 launches, sessions of 5 samples of one group in turn:
 * each session's first recorded 60 us, and the first range after each
 * replay 1.7x the cycles. Weighed as its like launches
 * (launch_weights.h) and the cold range's level 1 set aside where two
 * warm ranges of its size in its stratum measured it, the tree keeps to
 * the truth (0.27 points) and the spread covers it: 1.51 without either,
 * 1.10 without the weights, 0.45 with the cold ranges' level 1 kept. */
static void test_ranges_slow(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    uint32_t rng = 43;
    size_t samples = 0;
    int after_replay = 0;
    for (size_t i = 0; i < 900; i++) {
        sim_launch l = lasting(simulate(0.3, 0, &rng), 2000.0 * noise(&rng, 0.02));
        add(truth_dev, "slow_start", &l, 1, TD_GROUP_ALL);
        if (i % 60 == 0) {
            add(sampled_dev, "slow_start", &l, 1, TD_GROUP_ALL);
            after_replay = 1;
            continue;
        }
        int measured = i % 3 == 1;
        int group = (int)(samples / 5) % 3, opens = samples % 5 == 0;
        sim_launch slow = l;
        if (measured && after_replay) {
            slow.c[M_CYCLES] *= 1.7;
            slow.c[M_WARPS] *= 1.7;
        }
        if (measured && opens)
            slow.c[M_DURATION] = slow.duration = 60000.0;
        add(sampled_dev, "slow_start", &slow, measured, group);
        samples += (size_t)measured;
        after_replay &= !measured;
    }
    double errors[64], spreads[64];
    scores sc = {0, 0, 0, errors, spreads};
    score_said(&truth_res, &sampled_res, "ranges slow", &sc);
    CHECK(sc.worst < 0.4);
    CHECK(sc.covered == sc.nodes);
}

/* td_manykernels' bitonic_global (H200): 1.2 us launches, the first 4
 * replayed, then the first group range after the replays, which ran cold
 * and slow as a whole (IPC 0.31-0.39 of application replay's 0.71-0.87,
 * recorded 1.5-1.7x its like launches), and one warm range of group 0; the
 * rotation never brought one of its groups, so replays alone measured its
 * reasons, and the replays stalled otherwise than its natural launches
 * (short_scoreboard 0.11 of its warps' time against 0.19). Here: launches
 * 0-3 replayed with long_scoreboard x0.6 and wait x0.7; launch 10 group 0,
 * cold (1.7x the cycles) and recorded 1.6x as long; launch 11 group 0;
 * launches 30-31 group 1; group 2 (wait, barrier) never. The slowed cold
 * range's level 1 is set aside with one warm range of its stratum (two
 * where it is not slowed as a whole): Retire 0.5 points off, 3.3 with it
 * kept. The wait the replays alone measured is 4.0 points off, and the
 * spread holds it (6.0): the replays part from the groups by a factor of
 * 1.67 on long_scoreboard, measured both ways, so their wait may be off
 * as much (a spread of 2.7 without that term). */
static void test_replay_only_reasons(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    free(sampled_res.replay_mode);
    sampled_res.replay_mode = td_strdup("auto");
    uint32_t rng = 53;
    for (size_t i = 0; i < 120; i++) {
        sim_launch l = lasting(simulate(0.3, 0, &rng), 1200.0 * noise(&rng, 0.02));
        add(truth_dev, "bitonic", &l, 1, TD_GROUP_ALL);
        sim_launch seen = l;
        int group = -2; /* not measured */
        if (i < 4) {
            group = TD_GROUP_ALL;
            seen.c[M_LONGSB] *= 0.6;
            seen.c[M_WAIT] *= 0.7;
        } else if (i == 10 || i == 11) {
            group = 0;
        } else if (i == 30 || i == 31) {
            group = 1;
        }
        if (i == 10) {
            seen.c[M_CYCLES] *= 1.7;
            seen.c[M_WARPS] *= 1.7;
            seen.c[M_DURATION] = seen.duration = 1.6 * l.duration;
        }
        add(sampled_dev, "bitonic", &seen, group != -2, group == -2 ? TD_GROUP_ALL : group);
    }
    td_summary truth, sampled;
    td_error err;
    CHECK(td_summarize(&truth_res, &archs, NULL, &truth, &err) == 0);
    CHECK(td_summarize(&sampled_res, &archs, NULL, &sampled, &err) == 0);
    const td_model *m = &truth.models[0];
    int retire = td_model_find(m, "Retire"), wait = td_model_find(m, "Backend.Core_Bound.Dependency_Wait");
    CHECK(retire >= 0 && wait >= 0 && truth.n_kernels == 1 && sampled.n_kernels == 1);
    if (retire >= 0 && wait >= 0 && truth.n_kernels == 1 && sampled.n_kernels == 1) {
        const td_kernel_summary *t = &truth.kernels[0], *e = &sampled.kernels[0];
        double retire_off = 100 * fabs(e->mean.value[retire] - t->mean.value[retire]);
        double wait_off = 100 * fabs(e->mean.value[wait] - t->mean.value[wait]);
        printf("replay-only reasons: Retire %.2f points off (spread %.2f), Dependency_Wait %.2f "
               "off (spread %.2f)\n", retire_off, 100 * e->spread.value[retire], wait_off,
               100 * e->spread.value[wait]);
        CHECK(retire_off < 1.0);
        CHECK(wait_off > 3.0 && wait_off <= 100 * e->spread.value[wait]);
    }
    td_summary_free(&truth);
    td_summary_free(&sampled);
    td_result_free(&truth_res);
    td_result_free(&sampled_res);
}

/* The context's first launch runs its constant cache cold: on the bundled
 * runs it stalled on imc_miss more than its kernel's later replays
 * (td_tiny on the H100: 0.31 of its warps' time against 0.06). td_tiny:
 * one kernel of 2,000 launches, the first 4 replayed, then samples of the
 * open group only (the budget paid no move), so the other groups' reasons
 * come from the replays alone; the first launch has 6x the true constant
 * stalls. Set aside, the tree keeps to the truth (every launch, the cold
 * one among them), and the spread holds how far keeping it would move. */
static void test_context_opening_cold(void)
{
    td_result truth_res, sampled_res;
    td_device *truth_dev = new_device(&truth_res), *sampled_dev = new_device(&sampled_res);
    for (td_device *dev = truth_dev; dev; dev = dev == truth_dev ? sampled_dev : NULL) {
        free(dev->arch);
        dev->arch = td_strdup("esttestc");
    }
    uint32_t rng = 41;
    for (size_t i = 0; i < 2000; i++) {
        sim_launch l = lasting(simulate(0.3, 0, &rng), 2400.0 * noise(&rng, 0.02));
        if (i == 0)
            l.c[M_BARRIER] *= 6.0; /* here the Constant_Memory reason */
        add(truth_dev, "tiny", &l, 1, TD_GROUP_ALL);
        int replay = i < 4, sampled = i % 150 == 20;
        add(sampled_dev, "tiny", &l, replay || sampled, replay ? TD_GROUP_ALL : 0);
    }
    double errors[64], spreads[64];
    scores sc = {0, 0, 0, errors, spreads};
    score_said(&truth_res, &sampled_res, "the context's first launch cold", &sc);
    CHECK(sc.worst < 2.0); /* 10.1 points with it kept: 1 of the 4 launches that
                              measured the other groups */
    CHECK(sc.covered == sc.nodes);
}

/* The choice alone: coverage first, every group of a class in turn, a
 * stride that grows, and a dropped choice taken again. */
static void test_choice(void)
{
    td_choose_kernel k;
    memset(&k, 0, sizeof k);
    td_choice c = td_choose(&k, 10, 3, 2, 0);
    CHECK(c.measure && c.coverage && c.group == 2); /* the configured group first */
    c = td_choose(&k, 10, 3, 2, 0);
    CHECK(c.measure && c.coverage && c.group == 0);
    td_choose_dropped(&k, 10, 0);
    c = td_choose(&k, 10, 3, 2, 0);
    CHECK(c.measure && c.coverage && c.group == 0); /* dropped: still lacking */
    c = td_choose(&k, 10, 3, 0, 0);
    CHECK(c.measure && c.coverage && c.group == 1);
    size_t taken = 0;
    for (int i = 0; i < 100000; i++)
        taken += td_choose(&k, 10, 3, -1, 0).measure;
    CHECK(taken > 100 && taken < 1000); /* grows with the log of the run */
    /* a new size class starts dense again, with no coverage left to do */
    c = td_choose(&k, 20, 3, -1, 0);
    CHECK(c.measure && !c.coverage);
    CHECK(td_choose(&k, 20, 0, -1, 0).measure == 0);
    /* no budget: every launch, the groups still balanced */
    size_t every = 0;
    uint32_t per_group[3] = {0};
    for (int i = 0; i < 300; i++) {
        td_choice e = td_choose(&k, 30, 3, -1, 1);
        every += e.measure;
        per_group[e.group]++;
    }
    CHECK(every == 300 && per_group[0] == 100 && per_group[1] == 100 && per_group[2] == 100);
    /* a kernel a replay gave every counter owes no group outside the budget */
    td_choose_kernel replayed;
    memset(&replayed, 0, sizeof replayed);
    replayed.covered = 1;
    c = td_choose(&replayed, 10, 3, -1, 0);
    CHECK(c.measure && !c.coverage);
    c = td_choose(&replayed, 10, 3, c.group, 0);
    CHECK(!c.coverage);
    td_choose_free(&replayed);
    /* A covered kernel meeting a new size class at each launch, group 0
     * configured first: the class counts tie at 0, the kernel's keep the
     * groups within TD_CHOOSE_SLACK of each other (every sample took group
     * 0 before, td_manykernels on the H100). */
    td_choose_kernel classes;
    memset(&classes, 0, sizeof classes);
    classes.covered = 1;
    uint32_t took[5] = {0}, waited = 0, most_waited = 0;
    int configured = 0;
    for (unsigned cls = 0, measured = 0; measured < 20 && cls < 200; cls++) {
        td_choice t = td_choose(&classes, cls, 5, configured, 0);
        waited = t.measure ? 0 : waited + 1;
        most_waited = waited > most_waited ? waited : most_waited;
        CHECK(!t.measure || (t.group >= 0 && t.group < 5));
        if (t.measure && t.group >= 0 && t.group < 5)
            took[t.group]++, configured = t.group, measured++;
    }
    /* a move waits TD_CHOOSE_DEFER launches for another kernel to make it */
    CHECK(most_waited == TD_CHOOSE_DEFER);
    for (int g = 0; g < 5; g++)
        CHECK(took[g] >= 3 && took[g] <= TD_CHOOSE_SLACK + 2);
    td_choose_free(&classes);
    /* A budget that runs out now and then (ten refusals in a row whenever
     * a stride's 16th sample is chosen): the class keeps sampling to the end of
     * the run, at the rate of the samples kept (the stride grows with
     * them, not with the refusals). */
    td_choose_kernel refused;
    memset(&refused, 0, sizeof refused);
    refused.covered = 1;
    size_t kept = 0, late = 0, refusals = 0;
    for (int i = 0; i < 4000; i++) {
        td_choice r = td_choose(&refused, 10, 3, -1, 0);
        if (!r.measure)
            continue;
        if (kept % 16 == 15 && refusals < 10) {
            td_choose_dropped(&refused, 10, r.group);
            refusals++;
            continue;
        }
        refusals = 0;
        kept++;
        late += i >= 3000;
    }
    CHECK(kept > 60 && late >= 4);
    td_choose_free(&refused);
    /* A kernel the budget pays no move (stay) keeps the configured group,
     * whatever it leads by; a move is counted, and undone when dropped
     * (every launch chosen, to reach the lead quickly). */
    td_choose_kernel staying;
    memset(&staying, 0, sizeof staying);
    staying.covered = staying.stay = 1;
    int kept_group = 1;
    for (int i = 0; i < 20; i++)
        kept_group &= td_choose(&staying, 10, 3, 0, 1).group == 0;
    CHECK(kept_group && staying.moves == 0);
    staying.stay = 0;
    c = td_choose(&staying, 10, 3, 0, 1);
    CHECK(c.group != 0 && staying.moves == 1);
    td_choose_dropped(&staying, 10, c.group);
    CHECK(staying.moves == 0);
    td_choose_free(&staying);
    unsigned grid[3] = {1024, 1, 1}, block[3] = {256, 1, 1};
    CHECK(td_launch_size_class(grid, block) == 18);
    td_choose_free(&k);
}

int main(void)
{
    char dir[64], path[512];
    td_error err;
    td_test_tmpdir(dir, sizeof dir);
    td_test_write(dir, "esttest.json", arch_json, path, sizeof path);
    td_test_write(dir, "esttestc.json", constant_arch_json(), path, sizeof path);
    CHECK(td_arch_load_dir(dir, &archs, &err) == 0);
    test_choice();
    test_every_launch();
    test_incomplete();
    test_unsure();
    test_spread_every_stratum();
    test_spread_unmeasured_third();
    test_spread_borrowed_drift();
    test_phases_one_octave();
    test_level1_one_class();
    test_level1_other_size();
    test_level1_phases_gap();
    test_conditions_differ();
    test_mixed_conditions_widen();
    test_session_opening_cold();
    test_ranges_slow();
    test_context_opening_cold();
    test_replay_only_reasons();
    test_natural_first();
    check_bar("bfs", bfs_size, 4000, 1);
    check_bar("phases", phase_size, 4096, 0);
    check_budget_clock();
    check_turns();
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
