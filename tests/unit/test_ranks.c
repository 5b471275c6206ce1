/* Issue 14, items 3 and 4 (offline): topdown merge (device sections
 * tagged with their origin, carried by the result file), topdown
 * imbalance (per kernel and rank, the slowest marked, sorted by time lost),
 * and topdown trace (Chrome trace events, parsed back with cJSON). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "topdown/cli.h"

static const char *bin;
static char dir[] = "/tmp/td_ranksXXXXXX";
static char bench_a[4200], bench_b[4200], groups[4200], synthetic[4200];

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int load(const char *name, td_result *res)
{
    return td_shell_load_result(dir, name, res);
}

/* Two td_bench recordings as two ranks (two commands: --force): one
 * result, each section tagged with its input, read back from the file. */
static void test_merge(void)
{
    CHECK(run("%s merge %s %s -o all.json --force", bin, bench_a, bench_b) == 0);
    CHECK(td_shell_file_has(dir, "err.txt", "wrote all.json (2 device sections from 2 results)"));
    td_result res, a;
    CHECK(load("all.json", &res) == 0);
    CHECK(res.n_devices == 2);
    if (res.n_devices == 2) {
        CHECK_STR(res.devices[0].origin, bench_a);
        CHECK_STR(res.devices[1].origin, bench_b);
        CHECK_STR(res.devices[0].arch, "gh100");
        CHECK(res.devices[0].n_launches == 30 && res.devices[1].n_launches == 50);
    }
    CHECK(res.note && strstr(res.note, "merged from 2 results"));
    CHECK(td_shell_load_result("", bench_a, &a) == 0);
    CHECK(a.n_devices == 1 && a.devices[0].origin == NULL);
    if (res.n_devices == 2 && a.n_devices == 1)
        CHECK_STR(res.devices[0].launches[4].kernel, a.devices[0].launches[4].kernel);
    td_result_free(&a);
    td_result_free(&res);
    /* a merged result merges again, keeping its origins */
    CHECK(run("%s merge all.json %s -o all3.json --force", bin, groups) == 0);
    CHECK(load("all3.json", &res) == 0);
    CHECK(res.n_devices == 3);
    if (res.n_devices == 3) {
        CHECK_STR(res.devices[1].origin, bench_b);
        CHECK_STR(res.devices[2].origin, groups);
    }
    td_result_free(&res);
    /* the output rules: never over an input, -f to replace */
    CHECK(run("%s merge %s %s -o all.json", bin, bench_a, bench_b) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "-f"));
    CHECK(run("%s merge %s -o %s -f", bin, bench_a, bench_a) == TD_EXIT_USAGE);
    CHECK(run("%s merge %s", bin, bench_a) == TD_EXIT_USAGE);
    CHECK(run("%s merge %s -o m.json -l 2", bin, bench_a) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "option -l/--level does not apply to `topdown merge`"));
    /* issue 27, item 15: a file given twice would count twice */
    CHECK(run("%s merge %s %s -o twice.json", bin, bench_a, bench_a) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "is given twice: give each rank's result once"));
    CHECK(access("twice.json", F_OK) != 0);
    CHECK(run("%s imbalance %s %s", bin, bench_a, bench_a) == TD_EXIT_USAGE);
}

/* Results that are not the processes of one job: refused, saying what
 * differs and how to force it, no file; --force merges them and the note
 * says so (issue 41 item 8). The same command but for numbers (a rank):
 * one job. */
static void test_merge_one_job(void)
{
    CHECK(run("%s merge %s %s -o mixed.json", bin, groups, synthetic) == TD_EXIT_FAILURE);
    CHECK(td_shell_file_has(dir, "err.txt", "are not processes of one job: their commands "
                            "differ (`/work/main/build/benchmarks/td_bench --reps 25`, "
                            "`./cfd_solver --steps 45`); the second is a synthetic example, "
                            "not a measurement; merge the ranks of one run, or add --force"));
    CHECK(access("mixed.json", F_OK) != 0);
    CHECK(run("%s merge %s %s -o mixed.json", bin, bench_a, bench_b) == TD_EXIT_FAILURE);
    CHECK(td_shell_file_has(dir, "err.txt", "their commands differ (`build/benchmarks/td_bench`, "
                            "`build/benchmarks/td_bench --size-mb 64 --reps 5`); merge"));
    CHECK(run("%s merge %s %s -o mixed.json --force", bin, groups, synthetic) == 0);
    td_result res;
    CHECK(load("mixed.json", &res) == 0);
    CHECK(res.note && strstr(res.note, "merged from 2 results of different jobs (--force; 1 "
                             "synthetic): "));
    CHECK_STR(res.replay_mode, "mixed"); /* none beside an older kernel-replay result */
    td_result_free(&res);
    /* ranks whose commands differ in a number only */
    CHECK(td_shell_load_result("", groups, &res) == 0);
    free(res.argv[res.argc - 1]);
    res.argv[res.argc - 1] = td_strdup("26");
    td_error err;
    char path[4300];
    snprintf(path, sizeof path, "%s/rank1.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
    CHECK(run("%s merge %s rank1.json -o job.json", bin, groups) == 0);
    CHECK(load("job.json", &res) == 0);
    CHECK(res.note && strstr(res.note, "merged from 2 results: "));
    CHECK(res.replay_mode && strcmp(res.replay_mode, "mixed") != 0);
    td_result_free(&res);
}

/* The same chip measured with two arch tables: refused, no file. */
static void test_merge_refuses_other_tables(void)
{
    td_result res;
    td_error err;
    char path[4300];
    CHECK(td_shell_load_result("", bench_b, &res) == 0);
    free(res.devices[0].arch);
    res.devices[0].arch = td_strdup("gb100");
    snprintf(path, sizeof path, "%s/other_table.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
    CHECK(run("%s merge %s other_table.json -o mixed.json", bin, bench_a) == TD_EXIT_FAILURE);
    CHECK(td_shell_file_has(dir, "err.txt", "the same chip (GH100) measured with different "
                            "arch tables (gh100, gb100)"));
    CHECK(access("mixed.json", F_OK) != 0);
}

/* The time lost (ms) of each kernel, from its "  lost X ms:" line, in order. */
static size_t losses(const char *text, double *out, size_t max)
{
    size_t n = 0;
    text = strstr(text, "\nKernel 1/"); /* after the header */
    for (const char *p = text ? strstr(text, "\n  lost ") : NULL; p && n < max;
         p = strstr(p + 1, "\n  lost "))
        out[n++] = strtod(p + 8, NULL);
    return n;
}

/* The widest line of text. */
static size_t widest_line(const char *text)
{
    size_t widest = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        widest = len > widest ? len : widest;
        p = nl ? nl + 1 : NULL;
    }
    return widest;
}

static void test_imbalance(void)
{
    CHECK(run("(%s imbalance %s %s --kernels 0 > two.txt)", bin, bench_a, bench_b) == 0);
    CHECK(run("(%s imbalance all.json --kernels 0 > merged.txt) && cmp two.txt merged.txt",
              bin) == 0);
    char *text = td_shell_read_file(dir, "two.txt");
    CHECK(text && strstr(text, "Imbalance across 2 ranks"));
    CHECK(text && strstr(text, "Time lost: the slowest rank's GPU time minus the mean over the "
                               "ranks\n"));
    CHECK(text && strstr(text, "Kernel 10/10:"));
    /* ranked by time lost, not by max/mean */
    double lost[16];
    size_t n = text ? losses(text, lost, 16) : 0;
    CHECK(n == 10);
    for (size_t i = 1; i < n; i++)
        CHECK(lost[i] <= lost[i - 1]);
    CHECK(n && lost[0] > lost[n - 1]);
    /* 64 MB and 5 repetitions against 3: every kernel is slower in b */
    CHECK(text && strstr(text, "  r1   *      "));
    CHECK(text && !strstr(text, "\n  r0   *      3 "));
    CHECK(text && strstr(text, "Backend.") == NULL); /* level 1 only */
    /* each rank's totals, its source named there once, not per kernel */
    CHECK(text && strstr(text, "\nPer rank (* the most GPU time):\n"));
    CHECK(text && strstr(text, "\n  r0          10        30 "));
    CHECK(text && strstr(text, "\n  r1   *      10        50 "));
    CHECK(text && strstr(text, "64mb.topdown.json\n"));
    CHECK(text && strstr(text, "slowest r1 (") == NULL);
    /* within 100 columns, absolute paths and all */
    CHECK(text && widest_line(text) <= 100);
    free(text);
    /* one rank compares nothing: a usage error saying what to give */
    CHECK(run("%s imbalance %s --kernels 1", bin, groups) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "holds one rank: imbalance compares ranks; give "
                            "each rank's result"));
}

static void check_kernel_events(const cJSON *events, const td_device *dev, size_t *n_x,
                                size_t *n_meta)
{
    double last_ts = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        if (strcmp(td_shell_json_str(e, "ph"), "M") == 0) {
            CHECK(*n_x == 0); /* the names first */
            (*n_meta)++;
            continue;
        }
        CHECK_STR(td_shell_json_str(e, "ph"), "X");
        CHECK(td_shell_json_num(e, "ts") >= last_ts);
        last_ts = td_shell_json_num(e, "ts");
        CHECK(td_shell_json_num(e, "dur") > 0 && td_shell_json_num(e, "tid") == 7 && td_shell_json_num(e, "pid") >= 0);
        CHECK(strchr(td_shell_json_str(e, "name"), '(') == NULL && td_shell_json_str(e, "name")[0]);
        CHECK(td_shell_json_str(e, "cname")[0]);
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        double sum = td_shell_json_num(args, "Retire") + td_shell_json_num(args, "Divergence") + td_shell_json_num(args, "Frontend") +
                     td_shell_json_num(args, "Backend");
        CHECK(sum > 99 && sum <= 100.0001);
        CHECK(td_shell_json_str(args, "bottleneck")[0]);
        if (dev && *n_x == 0) { /* the first launch: ts 0, its own duration */
            CHECK(td_shell_json_num(e, "ts") == 0);
            CHECK_NEAR(td_shell_json_num(e, "dur") * 1e3, dev->launches[0].duration_ns, 1e-6);
        }
        (*n_x)++;
    }
}

static void test_trace(void)
{
    CHECK(run("%s trace %s -o trace.json", bin, groups) == 0);
    td_result res;
    CHECK(td_shell_load_result("", groups, &res) == 0);
    size_t timed = 0;
    for (size_t i = 0; i < res.devices[0].n_launches; i++)
        timed += res.devices[0].launches[i].start_ns != 0;
    cJSON *root = td_shell_read_json(dir, "trace.json");
    CHECK(root != NULL);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    size_t n_x = 0, n_meta = 0;
    check_kernel_events(events, &res.devices[0], &n_x, &n_meta);
    CHECK(timed > 200 && n_x == timed);
    CHECK(n_meta == 2); /* one process, one stream */
    const cJSON *first = cJSON_GetArrayItem(events, 0);
    CHECK_STR(td_shell_json_str(first, "name"), "process_name");
    cJSON_Delete(root);
    td_result_free(&res);
    /* two ranks: a process per section, named by its origin */
    CHECK(run("cp %s copy.json && %s merge %s copy.json -o two.json && %s trace two.json -o "
              "t2.json", groups, bin, groups, bin) == 0);
    root = td_shell_read_json(dir, "t2.json");
    events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    n_x = n_meta = 0;
    check_kernel_events(events, NULL, &n_x, &n_meta);
    CHECK(n_x == 2 * timed && n_meta == 4);
    CHECK(strstr(td_shell_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(events, 2), "args"),
                     "name"), "copy.json: GPU 0"));
    cJSON_Delete(root);
    /* a result without start times: said, no file */
    CHECK(run("%s trace %s -o none.json", bin, bench_a) == TD_EXIT_FAILURE);
    CHECK(td_shell_file_has(dir, "err.txt", "no launch or copy of the result has a start time"));
    CHECK(access("none.json", F_OK) != 0);
    CHECK(run("%s trace %s -o t3.json --csv k.csv", bin, groups) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "option --csv does not apply to `topdown trace`"));
    CHECK(run("%s imbalance %s --csv k.csv", bin, groups) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "option --csv does not apply to `topdown imbalance`"));
    CHECK(run("%s trace %s -o trace.json", bin, groups) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "-f"));
}

int main(void)
{
    const char *src;
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    snprintf(bench_a, sizeof bench_a, "%s/benchmarks/results/h100_td_bench.topdown.json", src);
    snprintf(bench_b, sizeof bench_b, "%s/benchmarks/results/h100_td_bench_64mb.topdown.json",
             src);
    snprintf(groups, sizeof groups, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json",
             src);
    snprintf(synthetic, sizeof synthetic, "%s/tests/fixtures/outputs/a100_synthetic.topdown.json",
             src);
    test_merge();
    test_merge_refuses_other_tables();
    test_merge_one_job();
    test_imbalance();
    test_trace();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
