/* Level 5 and speed of light on the H200 recordings of issue 42
 * (tests/fixtures/h200/h200_*_memory.topdown.json.xz, 2026-11-29), read
 * with the built topdown without a GPU:
 *  - td_bench (its first launches replayed with the memory counters):
 *    the chase over 32 KiB, 8 MiB and 256 MiB puts long_scoreboard's
 *    slots on L1_Hit, L2_Hit and DRAM, each over 95% of the stall, and
 *    its units' throughput reads as ncu's did on the same GPU (L2 at its
 *    peak for l2_hit, DRAM over 40% for l1_bound, L1 over 70% for sgemm);
 *  - the PyTorch loop (the memory counters from the counter groups only):
 *    the optimizer's heaviest multi_tensor_apply kernel waits on DRAM, its
 *    Fix line reads DRAM's throughput, and the application has all four
 *    units' throughput;
 *  - td_bench and three PyTorch steps under --replay-mode kernel, the MIO
 *    split's counters with them (h200_*_mio, session 8): each MIO kernel
 *    puts its MIO stalls on the unit it was built for, PyTorch's softmax
 *    splits between shared memory and the XU, and the recordings made
 *    before the split's counters show none of its nodes;
 *  - td_bench under --time-sampled (h200_td_bench_time_sampled, session 8):
 *    SM issue and DRAM throughput from the PM samples read as the ranges
 *    did (retire's issue at its peak, l1_bound's DRAM near 60%), and L1
 *    and L2, which PM sampling cannot measure whole, are not measured. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_shell.h"

#define SPLIT "Backend.Memory_Bound.L1_Bound.long_scoreboard"

static const char *bin, *src;
static char dir[] = "/tmp/td_memrecXXXXXX";

static double node_pct(const cJSON *kernel, const char *path)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(kernel, "nodes")) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(n, "path");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(n, "pct_slots");
        if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0 && cJSON_IsNumber(v))
            return v->valuedouble;
    }
    return NAN;
}

static double sol(const cJSON *obj, const char *unit)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "throughput_pct_of_peak"), unit);
    return cJSON_IsNumber(u) ? u->valuedouble : NAN;
}

static const cJSON *kernel_named(const cJSON *root, const char *prefix)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(root, "kernels")) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(k, "name");
        if (cJSON_IsString(name) && strncmp(name->valuestring, prefix, strlen(prefix)) == 0)
            return k;
    }
    fprintf(stderr, "no kernel %s\n", prefix);
    return NULL;
}

static cJSON *report_json(const char *fixture)
{
    CHECK(td_shell_run(dir, "%s report %s/tests/fixtures/h200/%s -l 5 --json --kernels 0", bin,
                       src, fixture) == 0);
    return td_shell_read_json(dir, "out.txt");
}

/* The designed chase's source holds over 95% of long_scoreboard. */
static void check_source(const cJSON *root, const char *kernel, const char *source)
{
    const cJSON *k = kernel_named(root, kernel);
    char path[256];
    snprintf(path, sizeof path, SPLIT ".%s", source);
    double split = k ? node_pct(k, SPLIT) : NAN, part = k ? node_pct(k, path) : NAN;
    printf("%s: long_scoreboard %.1f%%, %s %.1f%%\n", kernel, split, source, part);
    CHECK(split > 30 && part > 0.95 * split);
}

static void test_td_bench(void)
{
    cJSON *root = report_json("h200_td_bench_memory.topdown.json.xz");
    check_source(root, "bench_l1_hit", "L1_Hit");
    check_source(root, "bench_l2_hit", "L2_Hit");
    check_source(root, "bench_l1_bound", "DRAM");
    const cJSON *l2 = kernel_named(root, "bench_l2_hit"), *dram = kernel_named(root, "bench_l1_bound");
    const cJSON *sgemm = kernel_named(root, "bench_sgemm");
    CHECK(sol(l2, "L2") > 90 && sol(l2, "L2") <= 101);
    CHECK(sol(dram, "DRAM") > 40 && sol(dram, "DRAM") <= 101);
    CHECK(sol(sgemm, "L1") > 70 && sol(sgemm, "L1") <= 101);
    /* a kernel that loads nothing has no level 5 to show, and its DRAM idles */
    const cJSON *retire = kernel_named(root, "bench_retire");
    CHECK(sol(retire, "DRAM") < 1 && sol(retire, "SM_Issue") > 90);
    cJSON_Delete(root);
}

static void test_pytorch(void)
{
    cJSON *root = report_json("h200_pytorch_memory.topdown.json.xz");
    const cJSON *app = cJSON_GetObjectItemCaseSensitive(root, "application");
    static const char *const units[] = {"SM_Issue", "L1", "L2", "DRAM"};
    for (size_t u = 0; u < 4; u++)
        CHECK(sol(app, units[u]) > 0 && sol(app, units[u]) <= 101);
    const cJSON *opt = kernel_named(root, "void at::native::(anonymous namespace)::multi_tensor_apply_kernel");
    double split = opt ? node_pct(opt, SPLIT) : NAN;
    double dram = opt ? node_pct(opt, SPLIT ".DRAM") : NAN;
    printf("multi_tensor_apply: long_scoreboard %.1f%%, DRAM %.1f%%, DRAM %.1f%% of peak\n",
           split, dram, sol(opt, "DRAM"));
    CHECK(split > 50 && dram > 0.9 * split && sol(opt, "DRAM") > 20);
    cJSON_Delete(root);
    /* the text: the details page's line, and the Fix line of a DRAM bottleneck */
    CHECK(td_shell_run(dir, "%s report %s/tests/fixtures/h200/h200_pytorch_memory.topdown.json.xz "
                       "-l 5 --page details --kernels 0", bin, src) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "Speed of light: SM_Issue "));
    CHECK(td_shell_file_has(dir, "out.txt", "long_scoreboard.DRAM"));
    CHECK(td_shell_file_has(dir, "out.txt", "Fix: DRAM at "));
}

#define MIO "Backend.Memory_Bound.MIO_Bound"

/* Both MIO stalls of the kernel put over `least` of themselves on source. */
static void check_mio(const cJSON *root, const char *kernel, const char *source, double least)
{
    const cJSON *k = kernel_named(root, kernel);
    static const char *const stalls[] = {"mio_throttle", "short_scoreboard"};
    double stall_sum = 0, part_sum = 0;
    for (size_t i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, MIO ".%s", stalls[i]);
        stall_sum += k ? node_pct(k, path) : NAN;
        snprintf(path, sizeof path, MIO ".%s.%s", stalls[i], source);
        part_sum += k ? node_pct(k, path) : NAN;
    }
    printf("%s: MIO stalls %.1f%%, %s %.1f%%\n", kernel, stall_sum, source, part_sum);
    CHECK(stall_sum > 20 && part_sum > least * stall_sum);
}

static void test_mio(void)
{
    cJSON *root = report_json("h200_td_bench_mio.topdown.json.xz");
    check_mio(root, "bench_mio_bound", "Shared_Memory", 0.95);
    check_mio(root, "bench_smem_chain", "Shared_Memory", 0.95);
    check_mio(root, "bench_mio_shfl", "Shared_Memory", 0.95); /* shuffles use its pipe */
    check_mio(root, "bench_constant_ldc", "ADU", 0.95);
    check_mio(root, "bench_math_xu", "Special_Math", 0.95);
    check_mio(root, "bench_sgemm", "Shared_Memory", 0.95);
    /* the loads' split is still there beside it */
    check_source(root, "bench_l2_hit", "L2_Hit");
    cJSON_Delete(root);
    root = report_json("h200_pytorch_mio.topdown.json.xz");
    const cJSON *softmax = kernel_named(root, "void (anonymous namespace)::softmax_warp_forward");
    double shared = softmax ? node_pct(softmax, MIO ".short_scoreboard.Shared_Memory") : NAN;
    double xu = softmax ? node_pct(softmax, MIO ".short_scoreboard.Special_Math") : NAN;
    printf("softmax_warp_forward: short_scoreboard Shared_Memory %.1f%%, Special_Math %.1f%%\n",
           shared, xu);
    CHECK(shared > 5 && xu > 1);
    cJSON_Delete(root);
    /* recorded without the split's counters: none of its nodes */
    CHECK(td_shell_run(dir, "%s report %s/tests/fixtures/h200/h200_td_bench_memory.topdown.json.xz "
                       "-l 5 -v --kernels 0", bin, src) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "long_scoreboard.L2_Hit"));
    CHECK(!td_shell_file_has(dir, "out.txt", "Shared_Memory"));
    /* the text: the source's own description and Fix line */
    CHECK(td_shell_run(dir, "%s report %s/tests/fixtures/h200/h200_td_bench_mio.topdown.json.xz "
                       "-l 5 --kernels 0", bin, src) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "mio_throttle's waits on the address-divergence unit"));
    CHECK(td_shell_file_has(dir, "out.txt", "Fix: index __constant__ data uniformly"));
    /* describe and list-nodes name each source under the stall it splits */
    CHECK(td_shell_run(dir, "%s describe ADU", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "ADU (level 5, below the stall reason mio_throttle)"));
    CHECK(td_shell_file_has(dir, "out.txt", "ADU (level 5, below the stall reason short_scoreboard)"));
    CHECK(td_shell_file_has(dir, "out.txt", "--replay-mode kernel only"));
    CHECK(td_shell_run(dir, "%s describe L2_Hit", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "below the stall reason long_scoreboard"));
    CHECK(!td_shell_file_has(dir, "out.txt", "--replay-mode kernel only"));
    CHECK(td_shell_run(dir, "%s list-nodes -l 5", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "MIO_Bound.short_scoreboard.Special_Math"));
}

static void test_time_sampled_sol(void)
{
    cJSON *root = report_json("h200_td_bench_time_sampled.topdown.json.xz");
    const cJSON *retire = kernel_named(root, "bench_retire");
    const cJSON *dram = kernel_named(root, "bench_l1_bound");
    printf("time-sampled: retire SM_Issue %.1f%%, l1_bound DRAM %.1f%%, L1 %.1f, L2 %.1f\n",
           sol(retire, "SM_Issue"), sol(dram, "DRAM"), sol(dram, "L1"), sol(dram, "L2"));
    CHECK(sol(retire, "SM_Issue") > 95 && sol(retire, "SM_Issue") <= 101);
    CHECK(sol(dram, "DRAM") > 50 && sol(dram, "DRAM") < 70 && sol(dram, "SM_Issue") < 10);
    CHECK(isnan(sol(dram, "L1")) && isnan(sol(dram, "L2")));
    cJSON_Delete(root);
}

int main(void)
{
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    test_td_bench();
    test_pytorch();
    test_mio();
    test_time_sampled_sol();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
