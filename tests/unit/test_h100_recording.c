/* The bundled H100 recording of td_bench (benchmarks/results/), read with
 * the real arch tables: the whole pipeline from raw counters to the
 * bottleneck, on real hardware data, without a GPU. Each designed kernel
 * must be marked on the node it was designed for (benchmarks/README.md). */
#include <stdlib.h>

#include "../check.h"
#include "levels/aggregate.h"

typedef struct designed {
    const char *prefix;   /* kernel name up to its parameters */
    const char *node;     /* intended bottleneck at level 3, NULL: none */
} designed;

static const designed kernels[] = {
    {"bench_retire(", NULL},
    {"bench_divergence(", "Divergence.Branch"},
    {"bench_ifetch(", "Frontend.Fetch.Instruction_Fetch"},
    {"bench_sync(", "Frontend.Fetch.Synchronization"},
    {"bench_l1_bound(", "Backend.Memory_Bound.L1_Bound"},
    {"bench_mio_bound(", "Backend.Memory_Bound.MIO_Bound"},
    {"bench_constant(", "Backend.Memory_Bound.Constant_Memory"},
    {"bench_math_pipe(", "Backend.Core_Bound.Math_Pipe"},
    {"bench_dependency(", "Backend.Core_Bound.Dependency_Wait"},
};

static const td_kernel_summary *find_kernel(const td_summary *s, const char *prefix)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (strncmp(s->kernels[k].name, prefix, strlen(prefix)) == 0)
            return &s->kernels[k];
    return NULL;
}

static double level1_sum(const td_breakdown *b)
{
    return b->node[TD_N_RETIRE] + b->node[TD_N_DIVERGENCE] + b->node[TD_N_FRONTEND] +
           b->node[TD_N_BACKEND] + b->unattributed;
}

int main(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/benchmarks/results/h100_td_bench.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    td_error err;
    td_arch_set archs;
    td_result res;
    if (td_arch_load_dir(getenv("TOPDOWN_ARCHS"), &archs, &err) ||
        td_result_load(path, &res, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    CHECK(res.n_devices == 1);
    CHECK_STR(res.devices[0].chip, "GH100");
    CHECK_STR(res.devices[0].arch, "gh100");
    CHECK(!res.synthetic);
    td_summary s;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    CHECK(s.n_kernels == 10 && s.profiled == s.launches);
    CHECK_NEAR(level1_sum(&s.app), 1.0, 1e-4);
    const td_model *m = &s.models[0];
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
        const td_kernel_summary *k = find_kernel(&s, kernels[i].prefix);
        CHECK(k != NULL);
        if (!k)
            continue;
        CHECK_NEAR(level1_sum(&k->mean), 1.0, 1e-4);
        int found = td_bottleneck(m, &k->mean, 3);
        const char *found_path = found >= 0 && found < TD_NODE_COUNT
                                     ? td_node_get(found)->path : "(none)";
        int ok = kernels[i].node ? strcmp(found_path, kernels[i].node) == 0 : found < 0;
        if (!ok)
            fprintf(stderr, "%s: expected %s, model says %s\n", kernels[i].prefix,
                    kernels[i].node ? kernels[i].node : "(none)", found_path);
        CHECK(ok);
    }
    /* retire: Retire is most of the slots when nothing is over threshold. */
    const td_kernel_summary *retire = find_kernel(&s, "bench_retire(");
    CHECK(retire && retire->mean.node[TD_N_RETIRE] > 0.9);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
    return td_check_summary();
}
