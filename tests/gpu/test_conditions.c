/* GPU: measurement conditions (docs/COLLECTION.md, "Measurement
 * conditions"). td_smoke --l2-reread launches a kernel that re-reads an
 * 16 MiB buffer: without flushing, each launch finds it in the L2 the
 * launch before left it in; with --cache-control all every profiled pass
 * starts from an L2 without it, so its Memory_Bound share rises. Both
 * results record their conditions, the report says them, the flush kernel
 * never shows up as a launch, `topdown diff` warns, and kernel replay
 * still works with flushing. --clock-control base: locked while the app
 * runs and given back after (as root), or refused before the app starts
 * with the fix named (not root). Skipped (77) without a GPU or td_smoke. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "levels/aggregate.h"
#include "td_shell.h"
#include "td_gpu.h"

/* How much the flush must raise Memory_Bound, in points of issue slots. */
#define FLUSH_EFFECT_POINTS 2.0

static char dir[] = "/tmp/td_conditionsXXXXXX";
static const char *bin;
static char smoke[4096];
static td_arch_set archs;

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* l2_reread's Memory_Bound share (%) in a result; NAN when missing. */
static double memory_bound(const char *name, td_result *res)
{
    td_summary s;
    td_error err;
    double share = NAN;
    if (td_shell_load_result(dir, name, res) != 0)
        return NAN;
    if (td_summarize(res, &archs, NULL, &s, &err) != 0) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return NAN;
    }
    for (size_t k = 0; k < s.n_kernels; k++) {
        CHECK(strstr(s.kernels[k].name, "td_flush") == NULL); /* never the flush */
        if (strstr(s.kernels[k].name, "l2_reread") && s.kernels[k].has_data)
            share = 100.0 * s.kernels[k].mean.value[TD_N_MEMORY_BOUND];
    }
    td_summary_free(&s);
    return share;
}

static void test_cache_control(void)
{
    const char *opts = "--replay-mode none --overhead unlimited --no-progress -l 2";
    CHECK(run("%s %s --cache-control none -o warm.json -- %s --l2-reread --repeat 200", bin,
              opts, smoke) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "Conditions: cache-control none"));
    CHECK(run("%s %s --cache-control all -o flushed.json -- %s --l2-reread --repeat 200", bin,
              opts, smoke) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "Conditions: cache-control all (caches flushed"));
    CHECK(!td_shell_file_has(dir, "err.txt", "cannot flush"));
    td_result warm, flushed;
    double w = memory_bound("warm.json", &warm), f = memory_bound("flushed.json", &flushed);
    printf("  l2_reread Memory_Bound: %.1f%% warm, %.1f%% flushed (+%.1f points)\n", w, f,
           f - w);
    CHECK(!isnan(w) && !isnan(f));
    CHECK(f - w >= FLUSH_EFFECT_POINTS);
    CHECK_STR(warm.conditions.cache_control, "none");
    CHECK_STR(flushed.conditions.cache_control, "all");
    CHECK_STR(flushed.conditions.clock_control, "none");
    td_result_free(&warm);
    td_result_free(&flushed);
    CHECK(run("%s diff warm.json flushed.json -l 1", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "WARNING: A and B were measured under different "
                            "conditions"));
}

/* Kernel replay with a flush before each launch (batches of one). */
static void test_kernel_replay_flushed(void)
{
    CHECK(run("%s --replay-mode kernel --cache-control all --no-progress -o replay.json -- "
              "%s --repeat 3", bin, smoke) == 0);
    td_result res;
    if (td_shell_load_result(dir, "replay.json", &res) != 0) {
        CHECK(0);
        return;
    }
    size_t profiled = 0;
    for (size_t d = 0; d < res.n_devices; d++)
        for (size_t i = 0; i < res.devices[d].n_launches; i++) {
            profiled += res.devices[d].launches[i].profiled;
            CHECK(strstr(res.devices[d].launches[i].kernel, "td_flush") == NULL);
        }
    CHECK(profiled == 18);
    CHECK_STR(res.conditions.cache_control, "all");
    td_result_free(&res);
}

/* 1 when no application clock setting is active on the GPU. */
static int clocks_given_back(const char *when)
{
    int ok = run("nvidia-smi --query-gpu=clocks_event_reasons.applications_clocks_setting "
                 "--format=csv,noheader") == 0 && td_shell_file_has(dir, "out.txt", "Not Active");
    printf("  clocks %s %s\n", ok ? "given back" : "STILL LOCKED", when);
    return ok;
}

static void test_clock_control(void)
{
    int rc = run("%s --clock-control base --no-progress -o clocks.json -- %s", bin, smoke);
    if (rc == 1 && td_shell_file_has(dir, "err.txt", "administrator rights")) {
        CHECK(td_shell_file_has(dir, "err.txt", "run topdown as root, or use --clock-control "
                                "none"));
        char path[4200];
        snprintf(path, sizeof path, "%s/clocks.json", dir);
        CHECK(access(path, F_OK) != 0);
        printf("  not root: --clock-control base refused before the app started, as designed\n");
        return;
    }
    CHECK(rc == 0);
    td_result res;
    if (td_shell_load_result(dir, "clocks.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.conditions.clock_control &&
          (strcmp(res.conditions.clock_control, "base") == 0 ||
           strcmp(res.conditions.clock_control, "preset") == 0));
    CHECK(res.conditions.clock_mhz > 100);
    printf("  clocks %s at %.0f MHz while profiling\n", res.conditions.clock_control,
           res.conditions.clock_mhz);
    int preset = res.conditions.clock_control && !strcmp(res.conditions.clock_control, "preset");
    td_result_free(&res);
    if (preset)
        return; /* someone else's setting: left as it was */
    /* Given back: no clock setting is active any more (unless preset). */
    CHECK(clocks_given_back("after the app exited"));
    /* ... also when the app crashes, is killed, or topdown itself is
     * stopped while the app runs (issue 24). */
    CHECK(run("%s --clock-control base --no-progress -f -o crash.json -- %s --crash", bin,
              smoke) != 0);
    CHECK(clocks_given_back("after the app crashed"));
    CHECK(run("%s --clock-control base --no-progress -f -o killed.json -- %s --raise 9", bin,
              smoke) != 0);
    CHECK(clocks_given_back("after the app was killed (SIGKILL)"));
    CHECK(run("timeout -s TERM 3 %s --clock-control base --no-progress -f -o stopped.json -- "
              "%s --repeat 100000000", bin, smoke) != 0);
    CHECK(clocks_given_back("after topdown was sent SIGTERM"));
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_present() || !td_gpu_program(smoke, sizeof smoke, "tests/gpu/td_smoke"))
        return TD_GPU_SKIP;
    td_error err;
    const char *archs_dir = getenv("TOPDOWN_ARCHS");
    CHECK(archs_dir && td_arch_load_dir(archs_dir, &archs, &err) == 0);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_cache_control();
    test_kernel_replay_flushed();
    test_clock_control();
    td_shell_remove_dir(dir);
    td_arch_set_free(&archs);
    return td_check_summary();
}
