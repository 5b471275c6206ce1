/* Collection on a real GPU: topdown runs td_smoke (tests/gpu/apps) and the
 * result must hold every launch with sane counters, pass the app's output
 * and exit code through, keep a partial result when the app dies, honour
 * the launch filters, time unprofiled and graph launches, and say so when
 * another profiler holds CUPTI. Skipped (77) without a GPU or td_smoke. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "td_gpu.h"

static const char *bin;
static char app[4096], preload[4096];
static char dir[] = "/tmp/td_collectXXXXXX";

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int output_has(const char *file, const char *needle)
{
    return td_shell_file_has(dir, file, needle);
}

static int load(const char *name, td_result *res)
{
    return td_shell_load_result(dir, name, res);
}

static size_t count_profiled(const td_device *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_launches; i++)
        n += d->launches[i].profiled != 0;
    return n;
}

static int has_kernel(const td_device *d, const char *name)
{
    for (size_t i = 0; i < d->n_launches; i++)
        if (strstr(d->launches[i].kernel, name))
            return 1;
    return 0;
}

/* Raw counters that hardware guarantees: issued >= executed, at most 32
 * threads per warp instruction, cycles and time when anything ran. */
static void check_counters(const td_device *d)
{
    int exec = td_device_metric_index(d, "smsp__inst_executed.sum");
    int issued = td_device_metric_index(d, "smsp__inst_issued.sum");
    int threads = td_device_metric_index(d, "smsp__thread_inst_executed.sum");
    int cycles = td_device_metric_index(d, "sm__cycles_active.sum");
    CHECK(exec >= 0 && issued >= 0 && threads >= 0 && cycles >= 0);
    if (exec < 0 || issued < 0 || threads < 0 || cycles < 0)
        return;
    for (size_t i = 0; i < d->n_launches; i++) {
        const td_launch *l = &d->launches[i];
        CHECK(l->duration_ns > 0);
        if (!l->profiled)
            continue;
        const double *c = l->counters;
        if (l->group != TD_GROUP_ALL) {
            CHECK(c[cycles] > 0); /* every group holds the cycles (test_replayfree) */
            continue;
        }
        CHECK(c[exec] > 0);
        CHECK(c[issued] >= c[exec]);
        CHECK(c[threads] > 0 && c[threads] <= 32 * c[exec]);
        CHECK(c[cycles] > 0);
        double stalls = 0;
        for (size_t m = 0; m < d->n_metrics; m++) {
            CHECK(c[m] >= 0);
            if (strstr(d->metrics[m], "warps_issue_stalled"))
                stalls += c[m];
        }
        CHECK(stalls > 0);
    }
}

static void test_plain_run(void)
{
    CHECK(run("%s -o plain.json -- %s --exit 3", bin, app) == 3);
    CHECK(output_has("out.txt", "td_smoke: 6 kernel launches done"));
    td_result res;
    if (load("plain.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK_STR(res.status, "complete");
    CHECK(res.exit_code == 3);
    CHECK(res.n_devices == 1);
    if (res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        CHECK(d->passes > 0 && d->n_metrics > 0 && d->sm_count > 0);
        CHECK(d->n_launches == 6 && count_profiled(d) == 6);
        CHECK(has_kernel(d, "fma_chain") && has_kernel(d, "coop_sum"));
        CHECK(has_kernel(d, "scale<float>")); /* demangled, via cudaLaunchKernelEx */
        check_counters(d);
    }
    td_result_free(&res);
}

static void test_app_dies(void)
{
    td_result res;
    CHECK(run("%s -o crash.json -- %s --crash", bin, app) == 128 + 11);
    if (load("crash.json", &res) == 0) {
        CHECK_STR(res.status, "crashed");
        CHECK(res.term_signal == 11);
        /* flushed by the injection library's signal handler */
        CHECK(res.n_devices == 1 && count_profiled(&res.devices[0]) == 6);
        td_result_free(&res);
    }
    CHECK(run("%s -o term.json -- %s --raise 15", bin, app) == 128 + 15);
    if (load("term.json", &res) == 0) {
        CHECK_STR(res.status, "interrupted");
        CHECK(res.n_devices == 1 && count_profiled(&res.devices[0]) == 6);
        td_result_free(&res);
    }
}

/* Five rounds in batches of four ranges of kernel replay, two launches of
 * each kernel profiled, the rest and the graph's kernels only timed. */
static void test_per_kernel_batches_graphs(void)
{
    CHECK(run("TOPDOWN_BATCH=4 %s --replay-mode kernel --per-kernel 2 -o pk.json -- %s "
              "--repeat 5 --graph", bin, app) == 0);
    td_result res;
    if (load("pk.json", &res) != 0 || res.n_devices != 1) {
        CHECK(0);
        return;
    }
    const td_device *d = &res.devices[0];
    CHECK(d->n_launches == 32);
    CHECK(count_profiled(d) == 12);
    check_counters(d);
    int exec = td_device_metric_index(d, "smsp__inst_executed.sum");
    double first = -1;
    for (size_t i = 0; i < d->n_launches && exec >= 0; i++) {
        const td_launch *l = &d->launches[i];
        if (!l->profiled || !strstr(l->kernel, "fma_chain"))
            continue;
        if (first < 0)
            first = l->counters[exec];
        else
            CHECK(l->counters[exec] == first); /* the same work, counted the same */
    }
    td_result_free(&res);
}

static void test_filters(void)
{
    td_result res;
    /* Without a budget every matching launch is profiled. */
    CHECK(run("%s -k 'triad|scale' --overhead unlimited -o filt.json -- %s --repeat 2", bin,
              app) == 0);
    if (load("filt.json", &res) == 0 && res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        CHECK(d->n_launches == 12 && count_profiled(d) == 4);
        for (size_t i = 0; i < d->n_launches; i++)
            if (d->launches[i].profiled)
                CHECK(strstr(d->launches[i].kernel, "triad") ||
                      strstr(d->launches[i].kernel, "scale"));
        td_result_free(&res);
    }
    /* The Range Profiler is enabled at a context's first measured launch:
     * a run whose filter selects nothing never enables it (an enabled one
     * serialises the app's launching threads), one that measures does. */
    CHECK(run("TOPDOWN_DEBUG=1 %s -k '^zzzz$' -o none_chosen.json -- %s", bin, app) == 3);
    CHECK(output_has("out.txt", "td_smoke: 6 kernel launches done"));
    CHECK(!output_has("err.txt", "a fresh profiler object"));
    CHECK(run("TOPDOWN_DEBUG=1 %s -k 'triad' -o one_chosen.json -- %s", bin, app) == 0);
    CHECK(output_has("err.txt", "a fresh profiler object"));
    CHECK(run("%s --launch-skip 2 --launch-count 3 -o skip.json -- %s", bin, app) == 0);
    if (load("skip.json", &res) == 0 && res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        CHECK(count_profiled(d) == 3);
        CHECK(d->n_launches == 6 && !d->launches[0].profiled && !d->launches[1].profiled &&
              d->launches[2].profiled);
        td_result_free(&res);
    }
}

/* Exactly the launches of the kernel whose demangled name contains part
 * are profiled (with --overhead unlimited: every one), and there are some. */
static void check_profiled_only(const char *file, const char *part)
{
    td_result res;
    if (load(file, &res) != 0)
        return;
    size_t named = 0, profiled = 0, wrong = 0;
    for (size_t d = 0; d < res.n_devices; d++)
        for (size_t i = 0; i < res.devices[d].n_launches; i++) {
            const td_launch *l = &res.devices[d].launches[i];
            int is_it = strstr(l->kernel, part) != NULL;
            named += is_it;
            profiled += l->profiled != 0;
            wrong += (l->profiled != 0) != is_it;
        }
    CHECK(named > 0 && profiled == named && wrong == 0);
    td_result_free(&res);
}

/* Issue 15: ncu's -k forms pick exactly that kernel in the collector, on
 * the name base --kernel-name-base chooses (function by default). */
static void test_ncu_kernel_names(void)
{
    CHECK(run("%s -k 'regex:^_Z\\d+triad' --kernel-name-base mangled --overhead unlimited "
              "-o k_mangled.json -- %s --repeat 2", bin, app) == 0);
    check_profiled_only("k_mangled.json", "triad");
    /* scale<float>: its base name is "scale", templates left out */
    CHECK(run("%s -k '^scale$' --overhead unlimited -o k_anchor.json -- %s --repeat 2", bin,
              app) == 0);
    check_profiled_only("k_anchor.json", "scale");
    CHECK(run("%s -k 'regex:^fma_\\w+$' --overhead unlimited -o k_word.json -- %s", bin,
              app) == 0);
    check_profiled_only("k_word.json", "fma_chain");
    /* the whole demangled name has the parameter list, the base name not */
    CHECK(run("%s -k 'triad\\(' --overhead unlimited -o k_none.json -- %s", bin, app) == 3);
    CHECK(output_has("err.txt", "warning: -k 'triad\\(' matched no kernel name"));
    CHECK(run("%s -k 'triad\\(' --kernel-name-base demangled --overhead unlimited "
              "-o k_demangled.json -- %s", bin, app) == 0);
    check_profiled_only("k_demangled.json", "triad");
}

static void test_nothing_to_profile(void)
{
    td_result res;
    /* No launch at all: no result file, topdown's own "nothing measured". */
    CHECK(run("%s -o none.json -- %s --no-kernel", bin, app) == 3);
    CHECK(output_has("err.txt", "nothing measured"));
    CHECK(run("test -e none.json") != 0);
    /* Another CUPTI client got there first: the app still runs, topdown
     * says why it has nothing, keeps the launches' times, and exits 3. */
    CHECK(run("LD_PRELOAD=%s %s -o other.json -- %s", preload, bin, app) == 3);
    CHECK(output_has("out.txt", "td_smoke: 6 kernel launches done"));
    if (load("other.json", &res) == 0) {
        CHECK(res.note && strstr(res.note, "another profiler"));
        td_result_free(&res);
    }
}

/* Two contexts in one process: each gets its own profiler state and
 * device section; the second is destroyed before exit, which must flush
 * its launches. Where CUPTI cannot profile the second context while the
 * first holds the device, its launches must still be there, timed, and
 * the result must say why they have no counters. */
static void test_two_contexts(void)
{
    CHECK(run("%s -o ctx.json -- %s --second-context", bin, app) == 0);
    CHECK(output_has("out.txt", "td_smoke: 8 kernel launches done"));
    CHECK(output_has("out.txt", "Application:")); /* the report still prints */
    td_result res;
    if (load("ctx.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 2);
    if (res.n_devices == 2) {
        CHECK(res.devices[0].context != res.devices[1].context);
        CHECK(res.devices[0].index == 0 && res.devices[1].index == 0);
        size_t total = res.devices[0].n_launches + res.devices[1].n_launches;
        CHECK(total == 8);
        int second = res.devices[0].n_launches == 2 ? 0 : 1;
        const td_device *d = &res.devices[second];
        CHECK(d->n_launches == 2 && has_kernel(d, "fma_chain"));
        CHECK(d->launches[0].duration_ns > 0 && d->launches[1].duration_ns > 0);
        if (count_profiled(d) == 2) {
            check_counters(d);
        } else {
            CHECK(count_profiled(d) == 0);
            CHECK(res.note && strstr(res.note, "timed only"));
            printf("second context timed only: %s\n", res.note ? res.note : "(no note)");
        }
    }
    td_result_free(&res);
}

/* Each repeat on a stream created and destroyed around it: its launches
 * carry a stream id of their own, though the handle may come back (as
 * any cache of CUPTI's ids by handle must keep them: COLLECTION.md's
 * not done). */
static void test_fresh_streams(void)
{
    CHECK(run("%s -o fresh.json -- %s --repeat 3 --fresh-streams", bin, app) == 0);
    td_result res;
    if (load("fresh.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 1);
    if (res.n_devices == 1 && res.devices[0].n_launches == 18) {
        const td_launch *l = res.devices[0].launches;
        for (size_t i = 0; i < 18; i++) /* in launch order: 6 a stream */
            CHECK(l[i].stream == l[i / 6 * 6].stream);
        CHECK(l[0].stream != l[6].stream && l[6].stream != l[12].stream &&
              l[0].stream != l[12].stream);
    } else {
        CHECK(0);
    }
    td_result_free(&res);
}

int main(void)
{
    const char *build = getenv("TOPDOWN_BUILD_DIR");
    bin = getenv("TOPDOWN_BIN");
    snprintf(preload, sizeof preload, "%s/tests/gpu/libtd_other_subscriber.so",
             build ? build : ".");
    if (!bin || !td_gpu_present() || !td_gpu_program(app, sizeof app, "tests/gpu/td_smoke"))
        return TD_GPU_SKIP;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_plain_run();
    test_app_dies();
    test_per_kernel_batches_graphs();
    test_filters();
    test_ncu_kernel_names();
    test_nothing_to_profile();
    test_two_contexts();
    test_fresh_streams();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
