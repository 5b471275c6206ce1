/* GPU, issue 42 item 1: level 5 and speed of light measured. Three
 * td_bench kernels chase dependent loads over buffers sized for L1 (32
 * KiB, l1_hit), L2 (8 MiB, l2_hit) and DRAM (256 MiB, l1_bound); measured
 * without replay at every launch (the memory counters come from the
 * counter groups alone, never from a replay of the default), `-l 5` gives
 * each long_scoreboard's sources,
 * the largest the level it was sized for, and each memory unit's
 * throughput as a % of peak (0 to 100, with a little counter skew).
 * Skipped (77) without a GPU or td_bench. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "td_gpu.h"
#include "td_shell.h"

#define SPLIT "Backend.Memory_Bound.L1_Bound.long_scoreboard"

/* The kernel's node of path in the report's JSON; NAN where absent. */
static double node_pct(const cJSON *kernel, const char *path)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(kernel, "nodes")) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "path");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(n, "pct_slots");
        if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
            return cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }
    return NAN;
}

static void check_kernel(const char *dir, const char *topdown, const char *bench,
                         const char *kernel, const char *expected)
{
    static const char *const sources[] = {"L1_Hit", "L2_Hit", "DRAM"};
    int rc = td_shell_run(dir, "%s --no-progress -f --replay-mode none --overhead unlimited "
                          "-o %s.json -- %s --kernel %s --reps 20",
                          topdown, kernel, bench, kernel);
    CHECK(rc == 0);
    rc = td_shell_run(dir, "%s report %s.json -l 5 --json", topdown, kernel);
    CHECK(rc == 0);
    cJSON *root = td_shell_read_json(dir, "out.txt");
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "kernels"), 0);
    CHECK(k != NULL);
    if (!k) {
        cJSON_Delete(root);
        return;
    }
    char path[256];
    double best = -1, sum = 0;
    const char *largest = "none";
    for (size_t s = 0; s < 3; s++) {
        snprintf(path, sizeof path, SPLIT ".%s", sources[s]);
        double v = node_pct(k, path);
        printf("%s: %s %.2f%%\n", kernel, sources[s], v);
        CHECK(!isnan(v));
        sum += isnan(v) ? 0 : v;
        if (v > best)
            best = v, largest = sources[s];
    }
    double split = node_pct(k, SPLIT);
    CHECK(fabs(sum - split) < 0.2); /* the sources share the stall out, to rounding */
    if (strcmp(largest, expected) != 0)
        fprintf(stderr, "%s: the largest source is %s, designed %s\n", kernel, largest, expected);
    CHECK(strcmp(largest, expected) == 0);
    const cJSON *sol = cJSON_GetObjectItemCaseSensitive(k, "throughput_pct_of_peak");
    CHECK(cJSON_GetArraySize(sol) == 4);
    const cJSON *u;
    cJSON_ArrayForEach(u, sol) {
        printf("%s: %s %.1f%% of peak\n", kernel, u->string, cJSON_IsNumber(u) ? u->valuedouble : -1);
        CHECK(cJSON_IsNumber(u) && u->valuedouble >= 0 && u->valuedouble <= 105);
    }
    cJSON_Delete(root);
}

int main(void)
{
    if (!td_gpu_present())
        return TD_GPU_SKIP;
    char bench[4096];
    if (!td_gpu_program(bench, sizeof bench, "benchmarks/td_bench"))
        return TD_GPU_SKIP;
    char dir[] = "/tmp/td_memory_sources_XXXXXX";
    const char *topdown, *src;
    if (td_shell_start(dir, &topdown, &src) != 0)
        return 1;
    check_kernel(dir, topdown, bench, "l1_hit", "L1_Hit");
    check_kernel(dir, topdown, bench, "l2_hit", "L2_Hit");
    check_kernel(dir, topdown, bench, "l1_bound", "DRAM");
    td_shell_remove_dir(dir);
    return td_check_summary();
}
