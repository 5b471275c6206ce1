/* A kernel's launch statistics (levels/launch_stats.h) and their outputs
 * (report/launch_report.c) on an H100 recording of td_bench
 * (benchmarks/results/truth_h100/td_bench.truth.json.xz, which measured
 * sm__warps_active): its durations, the achieved occupancy of a grid whose
 * blocks are known to fill the SMs one each, and, once registers and
 * shared memory are given to its launches as a collector records them,
 * the theoretical occupancy, its limiter and the waves, in the text of
 * --page details, the default tree and --json; "not recorded" without.
 * Then an H200 recording whose collector wrote them (tests/fixtures/h200,
 * bdf0674): every kernel's figures as ncu's LaunchStats and Occupancy
 * sections gave them for the same app on the same H200
 * (benchmarks/results/ncu_occupancy_NVIDIA_H200_2026-11-29.md). */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "metrics/arch/arch.h"
#include "metrics/result/result.h"
#include "td_testlib.h"

static char dir[64], recording[512], with_res[512];
static td_arch_set archs;

static const td_kernel_summary *kernel_named(const td_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (strncmp(s->kernels[k].name, name, strlen(name)) == 0)
            return &s->kernels[k];
    return NULL;
}

/* Durations and achieved occupancy, straight from the recording. */
static void test_recorded(void)
{
    td_result res;
    td_summary s;
    td_error err = {{0}};
    CHECK(td_result_load(recording, &res, &err) == 0);
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    /* bench_dependency: 132 blocks of 128 threads on 132 SMs, one block
     * (4 warps) on each for the whole launch: 4 of 64 warps */
    const td_kernel_summary *k = kernel_named(&s, "bench_dependency");
    CHECK(k != NULL);
    if (k) {
        const td_launch_stats *ls = &k->launch;
        CHECK(ls->durations.count == 3 && ls->durations.count == k->launches);
        CHECK_NEAR(ls->durations.total_ns, k->total_ns, 1e-6);
        CHECK(ls->durations.min_ns <= ls->durations.median_ns &&
              ls->durations.median_ns <= ls->durations.max_ns);
        CHECK(ls->configs == 1 && ls->config.grid[0] == 132 && ls->config.block[0] == 128);
        CHECK(!ls->config.resources.recorded && !ls->has_theoretical && isnan(ls->waves));
        CHECK(ls->max_warps == 64 && ls->achieved_launches == 3);
        CHECK_NEAR(ls->achieved_pct, 6.25, 0.05);
    }
    td_summary_free(&s);
    td_result_free(&res);
}

/* Registers and shared memory as the collector would record them: 32
 * registers for bench_dependency; bench_ifetch 128 in two launches and 32
 * in one (two configurations, the commonest taken). */
static void write_with_resources(void)
{
    td_result res;
    td_error err = {{0}};
    CHECK(td_result_load(recording, &res, &err) == 0);
    int ifetch = 0;
    for (size_t i = 0; i < res.devices[0].n_launches; i++) {
        td_launch *l = &res.devices[0].launches[i];
        if (strncmp(l->kernel, "bench_dependency", 16) == 0)
            l->resources = (td_launch_resources){32, 0, 0, 0, 1};
        if (strncmp(l->kernel, "bench_ifetch", 12) == 0)
            l->resources = (td_launch_resources){ifetch++ ? 128 : 32, 1024, 512, 233472, 1};
    }
    snprintf(with_res, sizeof with_res, "%s/res.json", dir);
    CHECK(td_result_save(with_res, &res, &err) == 0);
    td_result_free(&res);
}

static void test_details_text(void)
{
    td_run_output *r = malloc(sizeof *r);
    char args[1024];
    snprintf(args, sizeof args, "report '%s' -l 1 --page details -k bench_dependency", with_res);
    td_test_run_topdown(dir, args, r);
    CHECK(r->status == 0);
    CHECK(strstr(r->out, "\n  Launch: grid 132x1x1, block 128x1x1 (4 warps), 0.06 waves\n"
                 "  Resources: 32 registers/thread, shared memory 0 B static + 0 B dynamic per "
                 "block\n") != NULL);
    /* 16 blocks by warps and by registers (1,024 a warp, 16 warps a sub-partition) */
    CHECK(strstr(r->out, "\n  Occupancy: theoretical 100.0% (64 of 64 warps, 16 blocks per SM), "
                 "limited by warps and registers\n"
                 "  Achieved occupancy: 6.2% of 64 warps per SM (3 profiled launches)\n") != NULL);
    CHECK(strstr(r->out, "\n  per launch (ms): mean 1.089, median 1.089,") != NULL);
    snprintf(args, sizeof args, "report '%s' -l 1 --page details -k bench_ifetch --wide",
             with_res);
    td_test_run_topdown(dir, args, r);
    CHECK(strstr(r->out, "  Launch: grid 1056x1x1, block 256x1x1 (8 warps), 4.00 waves; the "
                 "commonest of 2 configurations (2 of 3 launches)\n  Resources: 128 "
                 "registers/thread, shared memory 1,024 B static + 512 B dynamic per block\n")
          != NULL);
    CHECK(strstr(r->out, "theoretical 25.0% (16 of 64 warps, 2 blocks per SM), limited by "
                 "registers\n") != NULL);
    /* without them: said, never guessed */
    snprintf(args, sizeof args, "report '%s' -l 1 --page details -k bench_sgemm", recording);
    td_test_run_topdown(dir, args, r);
    CHECK(strstr(r->out, "\n  Resources: registers and shared memory not recorded\n"
                 "  Occupancy: theoretical n/m (without registers and shared memory)\n"
                 "  Achieved occupancy: 43.6% of 64 warps per SM (3 profiled launches)\n") != NULL);
    /* the default tree: the durations, not the Launch and Occupancy lines */
    snprintf(args, sizeof args, "report '%s' -l 1 -k bench_ifetch", with_res);
    td_test_run_topdown(dir, args, r);
    CHECK(strstr(r->out, "\n  per launch (ms): mean 11.930, median 11.928, min 11.916, max 11.945, "
                 "std 0.014\n") != NULL);
    CHECK(strstr(r->out, "Launch:") == NULL && strstr(r->out, "Occupancy") == NULL &&
          strstr(r->out, "Resources:") == NULL);
    free(r);
}

static const cJSON *json_kernel(const cJSON *root, const char *name)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(root, "kernels")) {
        const cJSON *n = cJSON_GetObjectItem(k, "name");
        if (cJSON_IsString(n) && strncmp(n->valuestring, name, strlen(name)) == 0)
            return k;
    }
    return NULL;
}

static double json_at(const cJSON *k, const char *object, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(k, object), key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void test_json(void)
{
    td_run_output *r = malloc(sizeof *r);
    char args[1024];
    snprintf(args, sizeof args, "report '%s' -l 1 --json", with_res);
    td_test_run_topdown(dir, args, r);
    CHECK(r->status == 0);
    cJSON *root = cJSON_Parse(r->out);
    const cJSON *k = json_kernel(root, "bench_ifetch");
    CHECK(k != NULL);
    CHECK_NEAR(json_at(k, "durations", "count"), 3, 0);
    CHECK_NEAR(json_at(k, "durations", "median_ns"), 11928256, 1);
    CHECK_NEAR(json_at(k, "launch", "registers_per_thread"), 128, 0);
    CHECK_NEAR(json_at(k, "launch", "static_shared_bytes"), 1024, 0);
    CHECK_NEAR(json_at(k, "launch", "dynamic_shared_bytes"), 512, 0);
    CHECK_NEAR(json_at(k, "launch", "shared_config_bytes"), 233472, 0);
    CHECK_NEAR(json_at(k, "launch", "configs"), 2, 0);
    CHECK_NEAR(json_at(k, "occupancy", "theoretical_pct"), 25, 1e-9);
    CHECK_NEAR(json_at(k, "occupancy", "blocks_per_sm"), 2, 0);
    CHECK_NEAR(json_at(k, "occupancy", "waves"), 4, 1e-9);
    const cJSON *occ = cJSON_GetObjectItem(k, "occupancy");
    const cJSON *limiters = cJSON_GetObjectItem(occ, "limiters");
    CHECK(cJSON_GetArraySize(limiters) == 1 &&
          strcmp(cJSON_GetArrayItem(limiters, 0)->valuestring, "registers") == 0);
    CHECK_NEAR(json_at(occ, "block_limits", "registers"), 2, 0);
    CHECK_NEAR(json_at(occ, "block_limits", "warps"), 8, 0);
    /* 1,024 + 512 + the driver's 1,024 a block: 2,560, 91 in 228 KB */
    CHECK_NEAR(json_at(occ, "block_limits", "shared memory"), 91, 0);
    k = json_kernel(root, "bench_sgemm");
    CHECK(k && cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "launch"),
                                                 "resources_recorded")));
    CHECK(k && cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "launch"),
                                                "registers_per_thread")));
    CHECK(k && cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "occupancy"),
                                                "theoretical_pct")));
    CHECK(k && json_at(k, "occupancy", "achieved_pct") > 0);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "application"), "durations") == NULL);
    cJSON_Delete(root);
    free(r);
}

/* ncu 2025.3.1 on the H200, td_bench: registers per thread, theoretical
 * and achieved occupancy (%). */
static const struct {
    const char *kernel;
    unsigned registers;
    double theoretical, achieved;
} ncu_h200[] = {
    {"bench_ifetch", 16, 100, 85.2},     {"bench_constant", 16, 100, 76.2},
    {"bench_divergence", 20, 100, 61.7}, {"bench_retire", 20, 100, 61.7},
    {"bench_math_pipe", 24, 100, 56.3},  {"bench_dependency", 16, 100, 6.2},
    {"bench_mio_bound", 19, 100, 66.0},  {"bench_sgemm", 64, 50, 43.5},
    {"bench_sync", 16, 100, 97.7},       {"bench_l1_bound", 16, 100, 49.5},
};

static void test_h200_against_ncu(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/h200_bench_resources.topdown.json.xz",
             getenv("TOPDOWN_REPO_DIR"));
    td_result res;
    td_summary s;
    td_error err = {{0}};
    CHECK(td_result_load(path, &res, &err) == 0);
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    for (size_t i = 0; i < sizeof ncu_h200 / sizeof *ncu_h200; i++) {
        const td_kernel_summary *k = kernel_named(&s, ncu_h200[i].kernel);
        CHECK(k != NULL);
        if (!k)
            continue;
        const td_launch_stats *ls = &k->launch;
        CHECK(ls->config.resources.recorded && ls->has_theoretical);
        CHECK(ls->config.resources.registers == ncu_h200[i].registers);
        CHECK_NEAR(ls->theoretical.pct, ncu_h200[i].theoretical, 0.05);
        CHECK_NEAR(ls->achieved_pct, ncu_h200[i].achieved, 0.5);
    }
    /* bench_sgemm: 64 registers x 256 threads, 4 blocks of 65,536 registers */
    const td_kernel_summary *sgemm = kernel_named(&s, "bench_sgemm");
    if (sgemm)
        CHECK(sgemm->launch.theoretical.blocks == 4 &&
              sgemm->launch.theoretical.limiters == 1u << TD_OCC_REGISTERS);
    td_summary_free(&s);
    td_result_free(&res);
}

int main(void)
{
    char archs_dir[512];
    td_error err = {{0}};
    td_test_tmpdir(dir, sizeof dir);
    snprintf(recording, sizeof recording,
             "%s/benchmarks/results/truth_h100/td_bench.truth.json.xz", getenv("TOPDOWN_REPO_DIR"));
    if (td_arch_default_dir(archs_dir, sizeof archs_dir, &err) ||
        td_arch_load_dir(archs_dir, &archs, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    test_recorded();
    write_with_resources();
    test_details_text();
    test_json();
    test_h200_against_ncu();
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
