/* GPU: replay-free collection (docs/COLLECTION.md). On td_smoke, with no
 * budget and no replay, every launch measures one counter group with sane
 * values and every kernel collects every group; on td_bench's designed
 * kernels, launched often enough, the tree from counter groups and the tree
 * from kernel replay agree within 2 points on every node to level 3, and
 * the default mode marks each designed kernel on its node; CUDA graph
 * launches are measured as a whole; kernels using the device heap are
 * never replayed and the app runs as without topdown. Skipped (77)
 * without a GPU or the apps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "levels/aggregate.h"
#include "td_shell.h"
#include "td_gpu.h"

#define AGREE_POINTS 2.0

static char dir[] = "/tmp/td_replayfreeXXXXXX";
static const char *bin;
static char smoke[4096], bench[4096], graphs[4096], heap[4096];
static td_arch_set archs;

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int group_has(const td_device *d, int group, int metric)
{
    for (size_t i = 0; i < d->groups[group].n; i++)
        if ((int)d->groups[group].metrics[i] == metric)
            return 1;
    return 0;
}

/* Each group launch: cycles > 0, instructions where its group has them. */
static void check_group_launches(const td_device *d, size_t *per_group)
{
    int cycles = td_device_metric_index(d, "sm__cycles_active.sum");
    int exec = td_device_metric_index(d, "smsp__inst_executed.sum");
    int issued = td_device_metric_index(d, "smsp__inst_issued.sum");
    CHECK(cycles >= 0 && exec >= 0 && issued >= 0);
    for (size_t i = 0; cycles >= 0 && i < d->n_launches; i++) {
        const td_launch *l = &d->launches[i];
        CHECK(l->profiled && l->group != TD_GROUP_ALL);
        if (!l->profiled || l->group == TD_GROUP_ALL || l->group >= (int)d->n_groups)
            continue;
        per_group[l->group]++;
        CHECK(group_has(d, l->group, cycles) && l->counters[cycles] > 0);
        if (group_has(d, l->group, exec) && group_has(d, l->group, issued))
            CHECK(l->counters[exec] > 0 && l->counters[issued] >= l->counters[exec]);
    }
}

static void test_every_group_measured(void)
{
    CHECK(run("%s --replay-mode none --overhead unlimited -l 3 --no-desc -o none.json -- "
              "%s --repeat 30", bin, smoke) == 0);
    CHECK(!td_shell_file_has(dir, "err.txt", "not a count"));
    CHECK(!td_shell_file_has(dir, "out.txt", "incomplete rotation"));
    CHECK(td_shell_file_has(dir, "out.txt", "replay mode none"));
    td_result res;
    if (td_shell_load_result(dir, "none.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK_STR(res.replay_mode, "none");
    CHECK(res.n_devices == 1);
    if (res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        size_t per_group[64] = {0};
        CHECK(d->n_groups >= 2 && d->n_groups <= 64);
        CHECK(d->n_launches == 180);
        if (d->n_groups >= 2 && d->n_groups <= 64) {
            check_group_launches(d, per_group);
            for (size_t g = 0; g < d->n_groups; g++)
                CHECK(per_group[g] >= 6); /* every kernel, every group */
        }
    }
    td_result_free(&res);
}

static int summarize(const char *name, td_result *res, td_summary *s)
{
    td_error err;
    if (td_shell_load_result(dir, name, res) != 0)
        return -1;
    if (td_summarize(res, &archs, NULL, s, &err) != 0) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        td_result_free(res);
        return -1;
    }
    return 0;
}

static const td_kernel_summary *find_kernel(const td_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (strstr(s->kernels[k].name, name))
            return &s->kernels[k];
    return NULL;
}

/* Every node to level 3 within AGREE_POINTS, kernel by kernel. */
static void compare_trees(const td_summary *a, const td_summary *b)
{
    const td_model *m = td_summary_model(a);
    for (size_t k = 0; k < a->n_kernels; k++) {
        const td_kernel_summary *ka = &a->kernels[k];
        const td_kernel_summary *kb = find_kernel(b, ka->name);
        CHECK(kb != NULL && ka->has_data && kb->has_data);
        if (!kb || !ka->has_data || !kb->has_data)
            continue;
        double worst = 0;
        const char *worst_node = "-";
        for (int n = 0; n < m->n_tree; n++) {
            if (m->tree[n].level > 3)
                continue;
            double diff = 100.0 * fabs(ka->mean.value[n] - kb->mean.value[n]);
            if (diff > worst) {
                worst = diff;
                worst_node = m->tree[n].path;
            }
        }
        int same = ka->verdict.bottleneck[3] == kb->verdict.bottleneck[3];
        printf("  %-40.40s largest difference %.2f points (%s), %s bottleneck\n", ka->name,
               worst, worst_node, same ? "same" : "DIFFERENT");
        CHECK(worst <= AGREE_POINTS);
        CHECK(same);
    }
}

static void test_agreement_with_replay(void)
{
    CHECK(run("%s --replay-mode kernel --per-kernel 5 -o kernel.json -- %s --reps 25", bin,
              bench) == 0);
    CHECK(run("%s --replay-mode none --overhead unlimited -o groups.json -- %s --reps 25", bin,
              bench) == 0);
    td_result ra, rb;
    td_summary sa, sb;
    if (summarize("kernel.json", &ra, &sa) != 0) {
        CHECK(0);
        return;
    }
    if (summarize("groups.json", &rb, &sb) == 0) {
        CHECK(sb.group_launches > 0 && sb.incomplete == 0);
        compare_trees(&sa, &sb);
        td_summary_free(&sb);
        td_result_free(&rb);
    } else {
        CHECK(0);
    }
    td_summary_free(&sa);
    td_result_free(&ra);
}

/* The graph of launches of `kernel` that is not `other_graph`. */
static uint64_t graph_of(const td_result *res, const char *kernel, uint64_t other_graph)
{
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            if (l->graph_id && l->graph_id != other_graph && strstr(l->kernel, kernel))
                return l->graph_id;
        }
    return 0;
}

static const td_kernel_summary *whole_graph(const td_summary *s, uint64_t graph)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (s->kernels[k].graph_whole && s->kernels[k].graph == graph)
            return &s->kernels[k];
    return NULL;
}

/* Graph launches are measured as a whole: the captured one-kernel graph's
 * tree is its kernel's tree launched directly; a kernel only launched by a
 * graph gets its graph's tree. */
static void test_graphs(void)
{
    CHECK(run("%s --overhead unlimited -l 3 -o graphs.json -- %s --launches 60", bin,
              graphs) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "td_graphs: 60 launches of each graph"));
    CHECK(td_shell_file_has(dir, "out.txt", "Graphs:"));
    td_result res;
    td_summary s;
    if (summarize("graphs.json", &res, &s) != 0) {
        CHECK(0);
        return;
    }
    uint64_t explicit_graph = graph_of(&res, "stream_graph", 0);
    uint64_t captured = graph_of(&res, "fma_graph", explicit_graph);
    CHECK(explicit_graph && captured && s.graph_launches >= 180);
    const td_kernel_summary *whole = whole_graph(&s, captured);
    const td_kernel_summary *direct = find_kernel(&s, "fma_graph");
    const td_kernel_summary *streamed = find_kernel(&s, "stream_graph");
    CHECK(whole && whole->has_data && whole->stalls_missing == 0);
    CHECK(direct && direct->has_data && !direct->graph_level);
    CHECK(streamed && streamed->has_data && streamed->graph_level);
    CHECK(whole_graph(&s, explicit_graph) != NULL);
    if (whole && direct && whole->has_data && direct->has_data) {
        const td_model *m = td_summary_model(&s);
        double worst = 0;
        for (int n = 0; n < m->n_tree; n++)
            if (m->tree[n].level <= 3 && 100.0 * fabs(whole->mean.value[n] - direct->mean.value[n]) > worst)
                worst = 100.0 * fabs(whole->mean.value[n] - direct->mean.value[n]);
        printf("  captured graph against its kernel launched directly: %.2f points\n", worst);
        CHECK(worst <= AGREE_POINTS);
        CHECK(whole->verdict.bottleneck[3] == direct->verdict.bottleneck[3]);
    }
    td_summary_free(&s);
    td_result_free(&res);
}

/* Device-heap kernels are never replayed: the app's output and exit code
 * are the same under topdown as without it. */
static void test_device_heap(void)
{
    CHECK(run("%s --frames 40 | tee native.txt", heap) == 0);
    CHECK(td_shell_file_has(dir, "native.txt", "td_heap: 40 frames, image sum"));
    CHECK(run("%s -o heap.json -- %s --frames 40", bin, heap) == 0);
    CHECK(td_shell_file_has(dir, "err.txt", "device heap"));
    CHECK(run("head -1 out.txt > topdown.txt && cmp topdown.txt native.txt") == 0);
    td_result res;
    if (td_shell_load_result(dir, "heap.json", &res) != 0) {
        CHECK(0);
        return;
    }
    for (size_t d = 0; d < res.n_devices; d++)
        for (size_t i = 0; i < res.devices[d].n_launches; i++)
            CHECK(!res.devices[d].launches[i].profiled ||
                  res.devices[d].launches[i].group != TD_GROUP_ALL); /* nothing replayed */
    CHECK(res.exit_code == 0);
    td_result_free(&res);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_present() ||
        !td_gpu_program(smoke, sizeof smoke, "tests/gpu/td_smoke") ||
        !td_gpu_program(bench, sizeof bench, "benchmarks/td_bench") ||
        !td_gpu_program(graphs, sizeof graphs, "tests/gpu/td_graphs") ||
        !td_gpu_program(heap, sizeof heap, "tests/gpu/td_heap"))
        return TD_GPU_SKIP;
    td_error err;
    const char *archs_dir = getenv("TOPDOWN_ARCHS");
    CHECK(archs_dir && td_arch_load_dir(archs_dir, &archs, &err) == 0);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_every_group_measured();
    test_agreement_with_replay();
    test_graphs();
    test_device_heap();
    td_shell_remove_dir(dir);
    td_arch_set_free(&archs);
    return td_check_summary();
}
