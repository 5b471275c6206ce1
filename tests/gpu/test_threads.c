/* Launches from 8 host threads at once (benchmarks/td_tiny --threads 8),
 * every launch measured without replay: traced launches run side by side
 * (launch_gate.h), but a measured launch has its range to itself. Every
 * launch of td_tiny's kernel runs the same instructions, so every launch
 * that measured them must count the same number as a one-thread run: a
 * kernel of another thread inside the range would add its own. The app's
 * output and exit code pass through. Skipped (77) without a GPU or td_tiny. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "td_gpu.h"

static const char *bin;
static char tiny[4096];
static char dir[] = "/tmp/td_threadsXXXXXX";

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* The instructions executed of every launch measured in a range of its
 * own (a group launch; a replayed launch counts 48 fewer: COLLECTION.md)
 * that measured them: one value for all (then *value), else -1;
 * *measured: how many. */
static int same_instructions(const char *file, double *value, size_t *measured)
{
    td_result res;
    *measured = 0;
    if (td_shell_load_result(dir, file, &res) != 0)
        return -1;
    int same = res.n_devices == 1 ? 0 : -1;
    for (size_t d = 0; d < res.n_devices && same == 0; d++) {
        const td_device *dev = &res.devices[d];
        int at = td_device_metric_index(dev, "smsp__inst_executed.sum");
        for (size_t i = 0; at >= 0 && i < dev->n_launches; i++) {
            const td_launch *l = &dev->launches[i];
            if (!l->profiled || l->group == TD_GROUP_ALL || !td_launch_measured(dev, l, at))
                continue;
            if (*measured == 0)
                *value = l->counters[at];
            else if (l->counters[at] != *value) {
                printf("launch %zu: %.0f instructions, the first %.0f\n", i, l->counters[at],
                       *value);
                same = -1;
            }
            (*measured)++;
        }
    }
    td_result_free(&res);
    return same;
}

/* The distinct streams of a result's launches, and *fewest: the launches
 * of the stream with the fewest (each td_tiny thread has its own stream,
 * each with its own CUPTI stream id). -1: not loaded. */
static int streams_of(const char *file, size_t *fewest)
{
    td_result res;
    if (td_shell_load_result(dir, file, &res) != 0)
        return -1;
    uint64_t ids[64];
    size_t counts[64] = {0}, n = 0;
    for (size_t d = 0; d < res.n_devices; d++)
        for (size_t i = 0; i < res.devices[d].n_launches; i++) {
            uint64_t id = res.devices[d].launches[i].stream;
            size_t s = 0;
            while (s < n && ids[s] != id)
                s++;
            if (s == n && n < 64)
                ids[n++] = id;
            if (s < 64)
                counts[s]++;
        }
    td_result_free(&res);
    *fewest = n ? counts[0] : 0;
    for (size_t s = 1; s < n; s++)
        if (counts[s] < *fewest)
            *fewest = counts[s];
    return (int)n;
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_present() || !td_gpu_program(tiny, sizeof tiny, "benchmarks/td_tiny"))
        return TD_GPU_SKIP;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *every = "--replay-mode none --overhead unlimited";
    CHECK(run("%s %s -o one.json -- %s --launches 400", bin, every, tiny) == 0);
    CHECK(run("%s %s -o eight.json -- %s --launches 1600 --threads 8", bin, every, tiny) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "from 8 host threads"));
    double one = 0, eight = 0;
    size_t n_one = 0, n_eight = 0;
    CHECK(same_instructions("one.json", &one, &n_one) == 0);
    CHECK(same_instructions("eight.json", &eight, &n_eight) == 0);
    printf("instructions a launch: %.0f (1 thread, %zu launches), %.0f (8 threads, %zu)\n", one,
           n_one, eight, n_eight);
    CHECK(n_one > 40 && n_eight > 160 && one > 0 && eight == one);
    size_t fewest = 0;
    CHECK(streams_of("one.json", &fewest) == 1 && fewest == 400);
    CHECK(streams_of("eight.json", &fewest) == 8 && fewest == 200);
    /* the default, sampled under the budget, from 8 threads */
    CHECK(run("%s -o default.json -- %s --launches 40000 --threads 8", bin, tiny) == 0);
    double dflt = 0;
    size_t n_dflt = 0;
    CHECK(same_instructions("default.json", &dflt, &n_dflt) == 0);
    CHECK(n_dflt > 0 && dflt == one);
    td_shell_remove_dir(dir);
    return td_check_summary();
}
