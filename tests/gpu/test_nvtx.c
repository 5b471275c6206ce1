/* GPU: NVTX regions and the periodic timeline (docs/COLLECTION.md). On
 * td_nvtx (tests/gpu/apps/td_nvtx.cu): every launch carries the ranges it
 * was made in (push/pop, Ex, a domain with a registered string, start/end,
 * another thread's own stack), report --by-region prints one tree per
 * region, --nvtx-include/--nvtx-exclude profile only the launches they
 * select; a user's own NVTX_INJECTION64_PATH is kept and said. On td_smoke
 * with --sample-every: points spread over the whole run, each burst
 * measuring every counter group, and report --timeline shows them.
 * PyTorch's torch.cuda.nvtx ranges (benchmarks/nvtx_torch_min.py), where
 * python3 has torch. Skipped (77) without a GPU or the apps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report/timeline.h"
#include "td_shell.h"
#include "td_gpu.h"

static char dir[] = "/tmp/td_nvtxXXXXXX";
static const char *bin;
static char app[4096], smoke[4096];
static td_arch_set archs;

#define run(...) td_shell_run(dir, __VA_ARGS__)

enum { STEPS = 3 };

/* Launches of the kernel whose name starts with prefix. */
static size_t count_kernel(const td_device *d, const char *prefix, const char *region,
                           int profiled_only)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_launches; i++) {
        const td_launch *l = &d->launches[i];
        if (strncmp(l->kernel, prefix, strlen(prefix)) != 0 || (profiled_only && !l->profiled))
            continue;
        if (region ? (l->region && strcmp(l->region, region) == 0) : l->region == NULL)
            n++;
    }
    return n;
}

static void test_regions_per_launch(void)
{
    CHECK(run("%s --overhead unlimited -o all.json -- %s --steps %d", bin, app, STEPS) == 0);
    td_result res;
    if (td_shell_load_result(dir, "all.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 1);
    if (res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        char region[64];
        for (int e = 0; e < STEPS; e++) {
            snprintf(region, sizeof region, "step/forward (epoch %d)", e);
            CHECK(count_kernel(d, "fwd_kernel", region, 0) == 2);
            snprintf(region, sizeof region, "step/backward (epoch %d)", e);
            CHECK(count_kernel(d, "bwd_kernel", region, 0) == 2);
            snprintf(region, sizeof region, "Solver@iterate (epoch %d)", e);
            CHECK(count_kernel(d, "solver_kernel", region, 0) == 1);
        }
        CHECK(count_kernel(d, "tail_kernel", NULL, 0) == STEPS);
        CHECK(count_kernel(d, "worker_kernel", "worker", 0) == 1);
    }
    td_result_free(&res);

    /* One tree per region, in launch order. */
    CHECK(run("%s report all.json --by-region --no-desc", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "=== NVTX region 1/11: step/forward (epoch 0) | 2 launches"));
    CHECK(td_shell_file_has(dir, "out.txt", ": Solver@iterate (epoch 2) | 1 launch,"));
    CHECK(td_shell_file_has(dir, "out.txt", ": (no NVTX region) | 3 launches"));
    CHECK(td_shell_file_has(dir, "out.txt", ": worker | 1 launch,"));
    CHECK(run("%s report all.json --by-region --csv regions.csv", bin) == 0);
    CHECK(td_shell_file_has(dir, "regions.csv", ",step/backward (epoch 1)\n"));
}

static void test_include_exclude(void)
{
    /* Push/pop path: only the forward launches get counters. */
    CHECK(run("%s --overhead unlimited -o fwd.json --nvtx-include 'step/forward/' -- %s "
              "--steps %d", bin, app, STEPS) == 0);
    td_result res;
    if (td_shell_load_result(dir, "fwd.json", &res) == 0 && res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        size_t profiled = 0;
        for (size_t i = 0; i < d->n_launches; i++)
            profiled += d->launches[i].profiled;
        CHECK(profiled == 2 * STEPS);
        CHECK(count_kernel(d, "fwd_kernel", "step/forward (epoch 1)", 1) == 2);
        CHECK(d->n_launches == 6 * STEPS + 1); /* the others timed */
        td_result_free(&res);
    } else {
        CHECK(0);
    }
    /* A domain and a start/end range; an exclude on top. */
    CHECK(run("%s --overhead unlimited -o dom.json --nvtx-include 'Solver@iterate/' "
              "--nvtx-include 'epoch 1' --nvtx-exclude 'backward]' -- %s --steps %d", bin, app,
              STEPS) == 0);
    if (td_shell_load_result(dir, "dom.json", &res) == 0 && res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        size_t solver = 0, fwd = 0, bwd = 0, other = 0;
        for (size_t i = 0; i < d->n_launches; i++) {
            const td_launch *l = &d->launches[i];
            if (!l->profiled)
                continue;
            if (!strncmp(l->kernel, "solver_kernel", 13))
                solver++;
            else if (!strncmp(l->kernel, "fwd_kernel", 10))
                fwd++;
            else if (!strncmp(l->kernel, "bwd_kernel", 10))
                bwd++;
            else
                other++;
        }
        CHECK(solver == STEPS);   /* every epoch's solver */
        CHECK(fwd == 2);          /* epoch 1's forward */
        CHECK(bwd == 0 && other == 0);
        td_result_free(&res);
    } else {
        CHECK(0);
    }
    /* Bad syntax: refused before the app starts. */
    CHECK(run("%s --nvtx-include 'a//b' -- %s", bin, app) == 2);
    CHECK(td_shell_file_has(dir, "err.txt", "NVTX filter 'a//b'"));
}

static void test_user_injection_path(void)
{
    /* The user's own NVTX tool: kept, said, and no region recorded (so
     * the include matches nothing: exit 3, nothing profiled). */
    CHECK(run("NVTX_INJECTION64_PATH=/nonexistent/libmytool.so %s -o user.json "
              "--nvtx-include 'step/' -- %s --steps 1", bin, app) == 3);
    CHECK(td_shell_file_has(dir, "err.txt", "NVTX_INJECTION64_PATH=/nonexistent/libmytool.so is kept"));
    td_result res;
    if (td_shell_load_result(dir, "user.json", &res) == 0 && res.n_devices == 1) {
        CHECK(count_kernel(&res.devices[0], "fwd_kernel", NULL, 0) == 2);
        td_result_free(&res);
    } else {
        CHECK(0);
    }
}

static void test_sample_every(void)
{
    /* 2000 invocations of each td_smoke kernel, a point every 200th. */
    CHECK(run("%s --replay-mode none --sample-every 200 -o sampled.json -- %s --repeat 2000",
              bin, smoke) == 0);
    td_result res;
    td_summary s;
    td_error err;
    if (td_shell_load_result(dir, "sampled.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    const char *name = NULL;
    CHECK(td_kernel_lookup(&s, &res, "triad", TD_NAME_FUNCTION, &name, &err) == 0);
    td_timeline t;
    if (name && td_timeline_build(&res, &s, name, &t, &err) == 0) {
        CHECK(t.invocations == 2000);
        CHECK(t.n_points >= 9 && t.n_points <= 10);
        CHECK(t.combined == t.n_points);
        CHECK(t.n_points && t.points[t.n_points - 1].invocation >= 1800);
        for (size_t i = 0; i < t.n_points; i++)
            CHECK(t.points[i].samples == res.devices[0].n_groups);
        td_timeline_free(&t);
    } else {
        CHECK(0);
    }
    td_summary_free(&s);
    td_result_free(&res);
    CHECK(run("%s report sampled.json --timeline triad", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "points combine consecutive sampled invocations"));
    CHECK(run("%s --sample-every 5min -- %s", bin, smoke) == 2);
    CHECK(td_shell_file_has(dir, "err.txt", "--sample-every needs"));
}

/* Issue 24: PyTorch's wheel brings its own libcupti.so.13, which the
 * injection library binds to; NVTX then named the toolkit's copy, which
 * has no subscriber, and every launch was "(no NVTX region)". */
static void test_pytorch(void)
{
    if (run("python3 -c 'import torch' 2>/dev/null") != 0) {
        printf("PyTorch check skipped: python3 has no torch\n");
        return;
    }
    const char *src = getenv("TOPDOWN_REPO_DIR");
    CHECK(run("%s -l 1 --no-progress -o torch.json -- python3 %s/benchmarks/nvtx_torch_min.py",
              bin, src ? src : ".") == 0);
    CHECK(run("%s report torch.json --by-region -l 1", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", ": step/matmul | 20 launches"));
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_present() || !td_gpu_program(app, sizeof app, "tests/gpu/td_nvtx") ||
        !td_gpu_program(smoke, sizeof smoke, "tests/gpu/td_smoke"))
        return TD_GPU_SKIP;
    td_error err;
    const char *archs_dir = getenv("TOPDOWN_ARCHS");
    CHECK(archs_dir && td_arch_load_dir(archs_dir, &archs, &err) == 0);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_regions_per_launch();
    test_include_exclude();
    test_user_injection_path();
    test_sample_every();
    test_pytorch();
    td_shell_remove_dir(dir);
    td_arch_set_free(&archs);
    return td_check_summary();
}
