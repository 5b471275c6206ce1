/* GPU: each td_bench kernel designed around one node of the model
 * (benchmarks/README.md) gets that node marked as the application's
 * bottleneck by `topdown -l 3`, launched directly and launched as a
 * one-node CUDA graph (td_bench --graph, 30 graph launches: every counter
 * group of the graph's replay-free rotation, docs/COLLECTION.md). The kernels and their intended nodes come
 * from `td_bench --list`; "Retire" means no loss node over threshold and
 * Retire the largest level-1 node. Skipped (77) without a GPU or without
 * td_bench (built only where nvcc is found). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_checks.h"
#include "check.h"
#include "td_gpu.h"

static void check_kernel(const char *topdown, const char *bench, const char *dir,
                         const bench_kernel *k, int graph)
{
    static char report[OUT_CAP];
    char json[4096];
    const char *how = graph ? "graph" : "direct";
    int len = snprintf(json, sizeof json, "%s/%s.%s.json", dir, k->name, how);
    if (len < 0 || (size_t)len >= sizeof json) {
        CHECK(!"result path fits");
        return;
    }
    char *argv[] = {(char *)topdown, "-l", "3", "--no-desc", "--no-progress", "-f",
                    "-o", json, "--", (char *)bench, "--kernel", (char *)k->name,
                    "--reps", graph ? "30" : "1", graph ? "--graph" : NULL, NULL};
    int rc = run_capture(argv, report, sizeof report);
    unlink(json);
    if (rc != 0)
        fprintf(stderr, "td_bench %s (%s): topdown exited with %d\n%s\n", k->name, how, rc,
                report);
    CHECK(rc == 0);
    char *section = app_section(report);
    if (!section) {
        fprintf(stderr, "td_bench %s (%s): no Application tree in topdown's output\n%s\n",
                k->name, how, report);
        CHECK(0);
        return;
    }
    check_designed(k, how, section);
}

int main(void)
{
    const char *topdown;
    char bench[4096];
    static bench_kernel kernels[MAX_KERNELS];
    int n = 0, start = bench_start(&topdown, bench, sizeof bench, kernels, MAX_KERNELS, &n);
    if (start == TD_GPU_SKIP)
        return TD_GPU_SKIP;
    if (start != 0)
        return td_check_summary();
    char dir[] = "/tmp/td_bottlenecks_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (int graph = 0; graph <= 1; graph++)
        for (int i = 0; i < n; i++)
            check_kernel(topdown, bench, dir, &kernels[i], graph);
    rmdir(dir);
    return td_check_summary();
}
