/* The model of MODEL.md: a hand-computed example, invariants on random
 * counter sets, and the division-by-zero cases. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "td_testlib.h"

enum { M_INST, M_ISSUED, M_THREADS, M_CYCLES, M_DURATION, M_NOINST, M_LONGSB, M_LGTHR, M_WAIT, M_COUNT };

static td_arch arch;
static td_model model;
static td_binding binding;
static td_device device;

static void setup(const char *dir)
{
    char path[512];
    td_error err;
    td_test_write(dir, "testarch.json", td_test_arch_json, path, sizeof path);
    if (td_arch_load_file(path, &arch, &err) || td_model_init(&model, &arch, &err) ||
        td_device_set_metrics(&device, td_test_metric_names, M_COUNT, &err) ||
        td_model_bind(&model, &device, &binding, &err)) {
        fprintf(stderr, "setup: %s\n", err.msg);
        exit(1);
    }
}

static td_breakdown compute(const double *c)
{
    td_launch l = {.kernel = "k", .profiled = 1, .counters = (double *)c};
    td_breakdown b;
    td_error err;
    CHECK(td_model_launch(&model, &binding, &l, &b, &err) == 0);
    return b;
}

static void test_hand_computed(void)
{
    /* IPC 2, IPC_issued 2.2, WarpEff 0.75, IPC_MAX 4: Retire 37.5%,
     * Branch 12.5%, Replay 5%, Stalled 45% split 1:3:0:1 over the stalls. */
    double c[M_COUNT] = {2000, 2200, 48000, 1000, 5000, 100, 240, 60, 100};
    td_breakdown b = compute(c);
    CHECK_NEAR(b.ipc, 2.0, 1e-12);
    CHECK_NEAR(b.warp_eff, 0.75, 1e-12);
    CHECK_NEAR(b.node[TD_N_RETIRE], 0.375, 1e-12);
    CHECK_NEAR(b.node[TD_N_BRANCH], 0.125, 1e-12);
    CHECK_NEAR(b.node[TD_N_REPLAY], 0.05, 1e-12);
    CHECK_NEAR(b.node[TD_N_DIVERGENCE], 0.175, 1e-12);
    CHECK_NEAR(b.node[TD_N_INSTRUCTION_FETCH], 0.09, 1e-12);
    CHECK_NEAR(b.node[TD_N_FRONTEND], 0.09, 1e-12);
    CHECK_NEAR(b.node[TD_N_L1_BOUND], 0.27, 1e-12);
    CHECK_NEAR(b.stall[1], 0.216, 1e-12); /* long_scoreboard: 0.45 * 240/500 */
    CHECK_NEAR(b.node[TD_N_DEPENDENCY_WAIT], 0.09, 1e-12);
    CHECK_NEAR(b.node[TD_N_BACKEND], 0.36, 1e-12);
    CHECK(td_bottleneck(&model, &b, 1) == TD_N_BACKEND);
    CHECK(td_bottleneck(&model, &b, 2) == TD_N_MEMORY_BOUND);
    CHECK(td_bottleneck(&model, &b, 3) == TD_N_L1_BOUND);
    CHECK(td_bottleneck(&model, &b, 4) == td_model_stall_index(&model, 1));
    /* Below threshold: Frontend is 9% of slots, under its 20%. */
    CHECK(!td_over_threshold(&model, &b, TD_N_FRONTEND));
    CHECK(td_over_threshold(&model, &b, TD_N_DIVERGENCE));
}

static double level_sum(const td_breakdown *b, int level)
{
    double sum = level == 1 ? b->unattributed : 0;
    for (int n = 0; n < TD_NODE_COUNT; n++)
        if (td_node_get(n)->level == level)
            sum += b->node[n];
    return sum;
}

static void check_children_sum(const td_breakdown *b)
{
    for (int parent = 0; parent < TD_NODE_COUNT; parent++) {
        double children = 0;
        int has_children = 0;
        for (int n = 0; n < TD_NODE_COUNT; n++)
            if (td_node_get(n)->parent == parent) {
                children += b->node[n];
                has_children = 1;
            }
        double stalls = 0;
        int has_stalls = 0;
        for (size_t i = 0; i < b->n_stalls; i++)
            if (model.stall_node[i] == parent) {
                stalls += b->stall[i];
                has_stalls = 1;
            }
        if (has_children)
            CHECK_NEAR(children, b->node[parent], 1e-4);
        if (has_stalls)
            CHECK_NEAR(stalls, b->node[parent], 1e-4);
    }
}

static void test_random_invariants(void)
{
    srand(12345);
    for (int trial = 0; trial < 2000; trial++) {
        double c[M_COUNT];
        c[M_CYCLES] = 1 + rand() % 100000;
        c[M_INST] = rand() % (int)(4 * c[M_CYCLES] + 1);
        c[M_ISSUED] = c[M_INST] * (1.0 + (rand() % 100) / 1000.0);
        c[M_THREADS] = c[M_INST] * (1 + rand() % 32);
        c[M_DURATION] = rand() % 1000000;
        for (int s = M_NOINST; s < M_COUNT; s++)
            c[s] = (trial % 7 == 0) ? 0 : rand() % 1000000;
        td_breakdown b = compute(c);
        CHECK_NEAR(level_sum(&b, 1), 1.0, 1e-4);
        CHECK_NEAR(level_sum(&b, 2) + b.node[TD_N_RETIRE] + b.unattributed, 1.0, 1e-4);
        CHECK_NEAR(level_sum(&b, 3) + b.node[TD_N_RETIRE] + b.node[TD_N_DIVERGENCE] +
                       b.unattributed, 1.0, 1e-4);
        check_children_sum(&b);
        for (int n = 0; n < TD_NODE_COUNT; n++)
            CHECK(isfinite(b.node[n]) && b.node[n] >= 0);
    }
}

static void test_zero_cases(void)
{
    double no_cycles[M_COUNT] = {0};
    td_breakdown b = compute(no_cycles);
    CHECK(!b.has_slots);
    CHECK(b.node[TD_N_RETIRE] == 0 && b.node[TD_N_BACKEND] == 0);
    CHECK(td_bottleneck(&model, &b, 3) == -1);

    double no_inst[M_COUNT] = {0, 0, 0, 1000, 10, 0, 500, 0, 0};
    b = compute(no_inst);
    CHECK(b.has_slots);
    CHECK_NEAR(b.node[TD_N_RETIRE], 0, 1e-12);
    CHECK_NEAR(b.warp_eff, 1.0, 1e-12);
    CHECK_NEAR(b.node[TD_N_L1_BOUND], 1.0, 1e-12);

    double no_stalls[M_COUNT] = {1000, 1000, 32000, 1000, 10, 0, 0, 0, 0};
    b = compute(no_stalls);
    CHECK_NEAR(b.node[TD_N_RETIRE], 0.25, 1e-12);
    CHECK_NEAR(b.unattributed, 0.75, 1e-12);
    CHECK_NEAR(level_sum(&b, 1), 1.0, 1e-12);
    CHECK(isfinite(b.node[TD_N_FRONTEND]) && b.node[TD_N_FRONTEND] == 0);

    /* Issued beyond IPC_MAX (counter skew): level 1 still sums to 1. */
    double overfull[M_COUNT] = {4000, 4400, 128000, 1000, 10, 1, 1, 1, 1};
    b = compute(overfull);
    CHECK_NEAR(level_sum(&b, 1), 1.0, 1e-12);
}

static void test_aggregation(void)
{
    td_result res = {0};
    td_error err;
    td_device *dev = td_result_add_device(&res, &err);
    dev->arch = td_strdup("testarch");
    CHECK(td_device_set_metrics(dev, td_test_metric_names, M_COUNT, &err) == 0);
    /* Kernel A: two launches, Retire 25% (1 ns) and 75% (3 ns): mean 62.5%. */
    double a1[M_COUNT] = {1000, 1000, 32000, 1000, 1, 0, 1, 0, 0};
    double a2[M_COUNT] = {3000, 3000, 96000, 1000, 3, 0, 1, 0, 0};
    double bk[M_COUNT] = {0, 0, 0, 1000, 4, 0, 1, 0, 0};
    td_device_add_launch(dev, "A", a1, &err)->duration_ns = 1;
    td_device_add_launch(dev, "A", a2, &err)->duration_ns = 3;
    td_device_add_launch(dev, "B", bk, &err)->duration_ns = 4;
    /* An unprofiled launch of B counts with B's values and its own time. */
    td_device_add_launch(dev, "B", NULL, &err)->duration_ns = 4;
    td_arch_set set = {.items = &arch, .count = 1};
    td_summary s;
    CHECK(td_summarize(&res, &set, NULL, &s, &err) == 0);
    CHECK(s.n_kernels == 2);
    CHECK_STR(s.kernels[0].name, "B"); /* heaviest first: 8 ns */
    CHECK(s.kernels[0].launches == 2 && s.kernels[0].profiled == 1);
    CHECK_NEAR(s.kernels[1].mean.node[TD_N_RETIRE], 0.625, 1e-12);
    CHECK_NEAR(s.total_ns, 12, 1e-12);
    /* App: A (4 ns) at 62.5% retire, B (8 ns) at 0%. */
    CHECK_NEAR(s.app.node[TD_N_RETIRE], 0.625 * 4 / 12, 1e-12);
    CHECK_NEAR(s.app.node[TD_N_L1_BOUND], (0.375 * 4 + 1.0 * 8) / 12, 1e-12);
    td_summary_free(&s);
    /* A second section whose launches were only timed (its context could
     * not be profiled) has no metrics; its 4 ns launch counts with the
     * values of A's launches nearest in duration (levels/estimate.h): the
     * 3 ns one, at 75%. */
    td_device *timed = td_result_add_device(&res, &err);
    timed->arch = td_strdup("testarch");
    timed->context = 2;
    td_device_add_launch(timed, "A", NULL, &err)->duration_ns = 4;
    CHECK(td_summarize(&res, &set, NULL, &s, &err) == 0);
    CHECK(s.n_kernels == 2 && s.launches == 5 && s.profiled == 3);
    CHECK_NEAR(s.total_ns, 16, 1e-12);
    const td_kernel_summary *ka = strcmp(s.kernels[0].name, "A") == 0 ? &s.kernels[0]
                                                                       : &s.kernels[1];
    CHECK(ka->sampled);
    CHECK_NEAR(ka->mean.node[TD_N_RETIRE], (1 * 0.25 + 3 * 0.75 + 4 * 0.75) / 8, 1e-12);
    CHECK_NEAR(s.app.node[TD_N_RETIRE], (1 * 0.25 + 3 * 0.75 + 4 * 0.75) / 16, 1e-12);
    td_summary_free(&s);
    /* An unknown arch name is an error, not a crash. */
    CHECK(td_summarize(&res, &set, "nosuch", &s, &err) == -1);
    CHECK(strstr(err.msg, "nosuch") != NULL);
    td_result_free(&res);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    setup(dir);
    test_hand_computed();
    test_random_invariants();
    test_zero_cases();
    test_aggregation();
    td_arch_free(&arch);
    for (size_t i = 0; i < device.n_metrics; i++)
        free(device.metrics[i]);
    free(device.metrics);
    td_test_cleanup(dir);
    return td_check_summary();
}
