/* GPU: `topdown --time-sampled` (PM samples by time, PC samples of a
 * second run; no range, no replay) gives each of td_bench's designed
 * kernels its designed bottleneck in its own tree, every launch counters,
 * the result says how it was collected, and topdown ends soon after the
 * app's two runs (PM sampling stops with the app). Skipped (77) without a
 * GPU or without td_bench. */
#include <time.h>

#include "bench_checks.h"
#include "check.h"
#include "metrics/result/result.h"
#include "td_gpu.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
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

    static char out[OUT_CAP];
    char *alone[] = {bench, NULL};
    double t0 = now_s();
    CHECK(run_capture(alone, out, sizeof out) == 0);
    double app_s = now_s() - t0;
    char dir[] = "/tmp/td_time_sampled_XXXXXX", json[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(json, sizeof json, "%s/run.json", dir);
    static char report[OUT_CAP];
    char *argv[] = {(char *)topdown, "--time-sampled", "-l", "3", "--no-desc",
                    "--no-progress", "-f", "-o", json, "--", bench, NULL};
    t0 = now_s();
    int rc = run_capture(argv, report, sizeof report);
    double td_s = now_s() - t0;
    CHECK(rc == 0);
    /* two runs of the app, two start-ups of CUPTI (~0.5 s each), the
     * PM drain (at most 1 s past the app's end), the join: no more */
    printf("td_bench alone %.2f s, under --time-sampled %.2f s\n", app_s, td_s);
    CHECK(td_s < 2 * app_s + 3.5);
    CHECK(strstr(report, "Collection: time-sampled") != NULL);
    td_result res;
    td_error err;
    CHECK(td_result_load(json, &res, &err) == 0);
    size_t profiled = 0, launches = 0;
    for (size_t d = 0; d < res.n_devices; d++)
        for (size_t i = 0; i < res.devices[d].n_launches; i++, launches++)
            profiled += res.devices[d].launches[i].profiled != 0;
    CHECK(res.replay_mode && strcmp(res.replay_mode, "time-sampled") == 0);
    CHECK(launches > 0 && profiled == launches); /* td_bench's kernels each run alone */
    td_result_free(&res);
    unlink(json);
    char cubins[300];
    snprintf(cubins, sizeof cubins, "rm -rf '%s'", dir);
    CHECK(system(cubins) == 0);

    for (int i = 0; i < n; i++) {
        static char copy[OUT_CAP];
        snprintf(copy, sizeof copy, "%s", report);
        char *section = kernel_section(copy, kernels[i].name);
        if (!section) {
            fprintf(stderr, "td_bench %s: no tree of bench_%s\n", kernels[i].name,
                    kernels[i].name);
            CHECK(0);
            continue;
        }
        check_designed(&kernels[i], "sampled", section);
    }
    return td_check_summary();
}
