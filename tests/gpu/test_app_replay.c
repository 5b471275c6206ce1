/* --replay-mode application on a real GPU: the app runs once per counter
 * group, only the first run's output and exit code reach the user, and
 * every launch comes back with the full set, joined by kernel name and
 * order: each launch's instructions executed equal kernel replay's of the
 * same launch, plus the 8 a warp a range without replay adds (a
 * deterministic count: a launch joined to another would show). A device-heap app, which kernel replay refuses, gets the full set
 * too. Skipped (77) without a GPU or td_smoke and td_heap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "td_gpu.h"

static const char *bin;
static char smoke[4096], heap[4096];
static char dir[] = "/tmp/td_appreplayXXXXXX";

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* Occurrences of needle in the file. */
static int count_in(const char *file, const char *needle)
{
    char *text = td_shell_read_file(dir, file);
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    free(text);
    return n;
}

static size_t full_set_launches(const td_device *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_launches; i++)
        n += d->launches[i].profiled && d->launches[i].group == TD_GROUP_ALL;
    return n;
}

/* Warps a launch runs: blocks x warps a block. */
static double warps_of(const td_launch *l)
{
    double threads = (double)l->block[0] * l->block[1] * l->block[2];
    return (double)l->grid[0] * l->grid[1] * l->grid[2] * ceil(threads / 32.0);
}

/* Every joined launch of a with kernel replay's instructions executed of
 * the same launch in b, plus what a range without replay counts on top:
 * 8 a warp and 40 (measured on the H200 over 6 kernels of td_smoke and
 * every group-0 launch of td_bfs and td_stencil, 132 to 131,072 blocks:
 * docs/COLLECTION.md). A launch joined to another launch would differ
 * by other amounts. */
static void check_same_instructions(const td_device *a, const td_device *b)
{
    int ia = td_device_metric_index(a, "smsp__inst_executed.sum");
    int ib = td_device_metric_index(b, "smsp__inst_executed.sum");
    CHECK(ia >= 0 && ib >= 0 && a->n_launches == b->n_launches);
    for (size_t i = 0; ia >= 0 && ib >= 0 && i < a->n_launches && i < b->n_launches; i++) {
        const td_launch *x = &a->launches[i], *y = &b->launches[i];
        CHECK_STR(x->kernel, y->kernel);
        CHECK(x->profiled && y->profiled && x->counters[ia] > 0);
        double extra = 8.0 * warps_of(y) + 40.0;
        if (x->profiled && y->profiled &&
            fabs(x->counters[ia] - y->counters[ib] - extra) > 1e-6 * y->counters[ib]) {
            printf("launch %zu (%s): %.0f instructions joined, %.0f by kernel replay + %.0f\n",
                   i, x->kernel, x->counters[ia], y->counters[ib], extra);
            CHECK(0);
        }
    }
}

static void test_smoke(void)
{
    CHECK(run("%s --replay-mode application -o app.json -- %s --exit 3", bin, smoke) == 3);
    CHECK(count_in("out.txt", "td_smoke: 6 kernel launches done") == 1); /* later runs silent */
    CHECK(count_in("out.txt", "Collection: replay mode application") == 1);
    CHECK(run("%s --replay-mode kernel -o kernel.json -- %s", bin, smoke) == 0);
    td_result app, kernel;
    if (td_shell_load_result(dir, "app.json", &app) != 0) {
        CHECK(0);
        return;
    }
    CHECK_STR(app.replay_mode, "application");
    CHECK(app.exit_code == 3);
    CHECK(app.note && strstr(app.note, "application replay: the app ran 5 of 5 times"));
    /* the 4 later runs are cost: coverage holds them, the native run is one */
    CHECK(td_cost_recorded(&app.cost) && app.cost.coverage_s > 2.0 * td_cost_native_s(&app.cost));
    CHECK(app.n_devices == 1);
    if (app.n_devices == 1) {
        CHECK(app.devices[0].n_launches == 6 && full_set_launches(&app.devices[0]) == 6);
        if (td_shell_load_result(dir, "kernel.json", &kernel) == 0) {
            if (kernel.n_devices == 1)
                check_same_instructions(&app.devices[0], &kernel.devices[0]);
            td_result_free(&kernel);
        } else {
            CHECK(0);
        }
    }
    printf("application replay note: %s\n", app.note ? app.note : "(none)");
    td_result_free(&app);
}

/* The device heap: kernel replay is refused, application replay is not. */
static void test_heap(void)
{
    CHECK(run("%s --replay-mode application -o heap.json -- %s --frames 10", bin, heap) == 0);
    td_result res;
    if (td_shell_load_result(dir, "heap.json", &res) != 0) {
        CHECK(0);
        return;
    }
    size_t launches = 0, full = 0;
    for (size_t d = 0; d < res.n_devices; d++) {
        launches += res.devices[d].n_launches;
        full += full_set_launches(&res.devices[d]);
    }
    printf("td_heap: %zu of %zu launches with the full set\n", full, launches);
    CHECK(launches > 10 && full == launches);
    td_result_free(&res);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_present() || !td_gpu_program(smoke, sizeof smoke, "tests/gpu/td_smoke") ||
        !td_gpu_program(heap, sizeof heap, "tests/gpu/td_heap"))
        return TD_GPU_SKIP;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_smoke();
    test_heap();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
