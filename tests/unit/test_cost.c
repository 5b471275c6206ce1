/* What profiling cost (metrics/result/cost.h): the spool's end records of
 * two processes summed into the result's "cost", the report header's Cost
 * line (whole and wrapped), the --json tree's estimate, a save and load
 * that gives the same numbers back, `topdown merge` summing two results'
 * costs, what the reader refuses or skips, and an older result without it:
 * it loads, prints no Cost line and writes no "cost" key. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "metrics/spool/spool.h"
#include "report/json.h"
#include "report/ranks.h"
#include "report/text.h"
#include "td_outputs_testlib.h"
#include "td_testreport.h"

static const fx_shares shares = {.retire = 0.3, .branch = 0.1, .noinst = 1, .longsb = 3, .wait = 1};

/* The line of the fixture's two processes, and of one process alone. */
static const char two_processes[] =
    "Cost:     profiling added 0.47 s to 1.52 s of 2 processes (sampling 0.12 s, set-up 0.25 s, "
    "coverage 0.10 s): 45% of native, estimated\n";
static const char one_process[] =
    "Cost:     profiling added 0.47 s to a 1.52 s run (sampling 0.12 s, set-up 0.25 s, "
    "coverage 0.10 s): 45% of native, estimated\n";
/* The same wrapped to 100 columns, as the report prints it without --wide. */
static const char one_process_wrapped[] =
    "Cost:     profiling added 0.47 s to a 1.52 s run (sampling 0.12 s, set-up 0.25 s,\n"
    "          coverage 0.10 s): 45% of native, estimated\n";

/* tests/fuzz/spool/seeds/cost_two_pids.spool: pids 11 and 12 with a
 * cost (12 without coverage_s, as collectors before it wrote), 13 with
 * counts only (older still). */
static void load_fixture_spool(td_result *res)
{
    char path[512];
    td_spool_summary sum;
    td_error err;
    snprintf(path, sizeof path, "%s/tests/fuzz/spool/seeds/cost_two_pids.spool",
             getenv("TOPDOWN_REPO_DIR"));
    memset(res, 0, sizeof *res);
    memset(&sum, 0, sizeof sum);
    CHECK(td_spool_load(path, res, &sum, &err) == 0);
    CHECK(sum.processes == 3 && sum.ended == 3);
    td_spool_summary_free(&sum);
}

static void check_fixture_sums(const td_cost *c)
{
    CHECK(c->processes == 2);
    CHECK_NEAR(c->elapsed_s, 1.52, 1e-12);
    CHECK_NEAR(c->profiling_s, 0.12, 1e-12);
    CHECK_NEAR(c->setup_s, 0.25, 1e-12);
    CHECK_NEAR(c->coverage_s, 0.10, 1e-12);
    CHECK_NEAR(c->switch_s, 0.03, 1e-12);
    CHECK_NEAR(c->decode_s, 0.015, 1e-12);
    CHECK(c->switches == 4 && c->launches == 1200 && c->profiled == 50);
    CHECK(c->budget_skipped == 1130 && c->replay_failures == 1);
    CHECK_NEAR(td_cost_added_s(c), 0.47, 1e-12);
    CHECK_NEAR(td_cost_native_s(c), 1.05, 1e-12);
    CHECK_NEAR(td_cost_pct_of_native(c), 100 * 0.47 / 1.05, 1e-9);
}

/* A result of one kernel carrying cost. */
static void build(td_result *res, const td_cost *cost)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, "testarch", 0);
    fx_launch(dev, "k1", 3000, shares);
    res->status = td_strdup("complete");
    if (cost)
        res->cost = *cost;
}

static char *report_of(const td_result *res, const td_arch_set *archs, int wide)
{
    static char text[1 << 15];
    CHECK(td_test_level1_text(res, archs, wide, text, sizeof text) == 0);
    return text;
}

static void test_spool_and_header(const td_arch_set *archs, td_cost *fixture)
{
    td_result spooled, res;
    load_fixture_spool(&spooled);
    check_fixture_sums(&spooled.cost);
    *fixture = spooled.cost;
    td_result_free(&spooled);

    build(&res, fixture);
    CHECK(strstr(report_of(&res, archs, 1), two_processes) != NULL);
    res.cost.processes = 1; /* the same numbers from one process */
    CHECK(strstr(report_of(&res, archs, 1), one_process) != NULL);
    CHECK(strstr(report_of(&res, archs, 0), one_process_wrapped) != NULL);
    /* after the Collection line, before the notes */
    const char *text = report_of(&res, archs, 1);
    CHECK(strstr(text, "Kernels:") < strstr(text, "\nCost:"));
    /* a small share gets a decimal; parts above the run's time give none */
    res.cost.elapsed_s = 10.47;
    CHECK(strstr(report_of(&res, archs, 1), "to a 10.47 s run (sampling 0.12 s, set-up 0.25 s, "
                 "coverage 0.10 s): 4.7% of native, estimated\n") != NULL);
    res.cost.elapsed_s = 0.40;
    CHECK(strstr(report_of(&res, archs, 1), "coverage 0.10 s): no native time left to compare "
                 "with\n") != NULL);
    td_result_free(&res);
}

/* A recorded result's level-1 report, with the real arch tables. */
static char *report_of_recorded(const char *rel, const td_arch_set *real, td_result *res)
{
    char path[512];
    td_error err;
    snprintf(path, sizeof path, "%s/%s", getenv("TOPDOWN_REPO_DIR"), rel);
    CHECK(td_result_load(path, res, &err) == 0);
    return report_of(res, real, 1);
}

/* Coverage replays that cost most of the run: the report says how to
 * avoid them, in auto mode, where the kernels repeat (PyTorch, H200: 87
 * replays, 4.54 s of 6.20 s); not for td_few, whose kernels run 1-3 times
 * (its replays are as dear, and counter groups could not cover them). */
static void test_coverage_note(void)
{
    td_arch_set real;
    fx_real_archs(&real);
    td_result res;
    const char *text = report_of_recorded("benchmarks/results/truth_h200_libs/pytorch.sampled.json.xz",
                                          &real, &res);
    CHECK(strstr(text, "NOTE:     coverage took 4.54 s of the 6.20 s profiling added: 87 "
                       "launches with kernel replay") != NULL);
    CHECK(strstr(text, "--replay-mode none measures them with counter groups instead, and a "
                       "kernel launched fewer than 5 times") != NULL);
    CHECK(strstr(text, "\nCost:") < strstr(text, "NOTE:     coverage took"));
    res.cost.coverage_s = 0.9; /* under a second */
    CHECK(strstr(report_of(&res, &real, 1), "NOTE:     coverage took") == NULL);
    res.cost.coverage_s = 4.54;
    res.cost.profiling_s = 5.0; /* under half of what profiling added */
    CHECK(strstr(report_of(&res, &real, 1), "NOTE:     coverage took") == NULL);
    res.cost.profiling_s = 1.24;
    free(res.replay_mode);
    res.replay_mode = td_strdup("kernel"); /* the user asked for replay */
    CHECK(strstr(report_of(&res, &real, 1), "NOTE:     coverage took") == NULL);
    td_result_free(&res);
    /* td_few: 3.94 s of replays of 18 launches, kernels launched 1-3 times */
    text = report_of_recorded("benchmarks/results/truth_h200_stride/td_few.sampled.json.xz", &real,
                              &res);
    CHECK(strstr(text, "coverage 3.94 s") != NULL);
    CHECK(strstr(text, "NOTE:     coverage took") == NULL);
    td_result_free(&res);
    td_arch_set_free(&real);
}

static void test_json_report(const td_arch_set *archs, const td_cost *fixture)
{
    td_result res;
    td_summary s;
    td_error err;
    build(&res, fixture);
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && td_report_json(f, &s, 1, "r.json", NULL, &res.cost, NULL, &err) == 0);
    if (f)
        fclose(f);
    cJSON *tree = cJSON_Parse(text);
    const cJSON *cost = cJSON_GetObjectItemCaseSensitive(tree, "cost");
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "version")) == 1);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "processes")) == 2);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "budget_skipped")) == 1130);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "elapsed_s")), 1.52,
               1e-12);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "added_s")), 0.47,
               1e-12);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "native_s")), 1.05,
               1e-12);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cost, "pct_of_native")),
               100 * 0.47 / 1.05, 1e-9);
    cJSON_Delete(tree);
    free(text);
    td_summary_free(&s);
    td_result_free(&res);
}

static void test_round_trip(const char *dir, const td_cost *fixture)
{
    td_result res, back;
    td_error err;
    char path[256];
    snprintf(path, sizeof path, "%s/cost.json", dir);
    build(&res, fixture);
    CHECK(td_result_save(path, &res, &err) == 0);
    CHECK(td_result_load(path, &back, &err) == 0);
    CHECK(memcmp(&back.cost, fixture, sizeof *fixture) == 0); /* every number exact */
    td_result_free(&back);

    /* What the reader would refuse is not written. */
    res.cost.setup_s = -1;
    CHECK(td_result_save(path, &res, &err) == -1 && strstr(err.msg, "setup_s"));
    res.cost.setup_s = NAN;
    CHECK(td_result_save(path, &res, &err) == -1 && strstr(err.msg, "setup_s"));
    td_result_free(&res);
}

static int parses(const char *cost, td_result *out, td_error *err)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"schema\":\"topdown-result/2\",%s\"kernels\":[],"
             "\"devices\":[]}", cost);
    memset(out, 0, sizeof *out);
    int rc = td_result_parse(text, strlen(text), "c.json", out, err);
    if (rc == 0)
        td_result_free(out);
    return rc;
}

static void test_reader(void)
{
    td_result r;
    td_error err;
    CHECK(parses("", &r, &err) == 0);
    CHECK(parses("\"cost\":null,", &r, &err) == 0);
    /* a later version is skipped, not misread */
    CHECK(parses("\"cost\":{\"version\":2,\"processes\":\"two\"},", &r, &err) == 0);
    CHECK(parses("\"cost\":{\"processes\":1,\"elapsed_s\":1},", &r, &err) == -1);
    CHECK(strstr(err.msg, "c.json: \"cost\"") && strstr(err.msg, "version"));
    CHECK(parses("\"cost\":{\"version\":1,\"processes\":1},", &r, &err) == -1);
    CHECK(strstr(err.msg, "elapsed_s") != NULL);
    CHECK(parses("\"cost\":{\"version\":1,\"processes\":0,\"elapsed_s\":1},", &r, &err) == -1);
    CHECK(parses("\"cost\":{\"version\":1,\"processes\":1,\"elapsed_s\":1,\"setup_s\":-0.5},",
                 &r, &err) == -1);
    CHECK(strstr(err.msg, "setup_s") != NULL);
    CHECK(parses("\"cost\":[1],", &r, &err) == -1);
}

/* An end record's rounding below 0 and a null (a NaN) do not refuse a
 * spool; a word where a number belongs does. */
static void test_spool_tolerance(void)
{
    const char *start = "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\"}\n";
    char text[1024];
    td_result res;
    td_spool_summary sum;
    td_error err;
    snprintf(text, sizeof text, "%s{\"type\":\"end\",\"pid\":7,\"elapsed_s\":2,"
             "\"profiling_s\":-1e-12,\"setup_s\":null,\"coverage_s\":0.5}\n", start);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == 0);
    CHECK(res.cost.processes == 1 && res.cost.profiling_s == 0 && res.cost.setup_s == 0);
    CHECK(res.cost.elapsed_s == 2 && res.cost.coverage_s == 0.5);
    td_spool_summary_free(&sum);
    td_result_free(&res);
    snprintf(text, sizeof text, "%s{\"type\":\"end\",\"pid\":7,\"elapsed_s\":null}\n", start);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == 0);
    CHECK(!td_cost_recorded(&res.cost) && sum.ended == 1);
    td_spool_summary_free(&sum);
    td_result_free(&res);
    snprintf(text, sizeof text, "%s{\"type\":\"end\",\"pid\":7,\"elapsed_s\":\"long\"}\n", start);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == -1);
    CHECK(strstr(err.msg, "elapsed_s") != NULL);
    td_result_free(&res);
}

/* Tracing and the end of the run (issue 40: one budget that counts
 * everything): read from an end record, summed, added to what profiling
 * added, on the Cost line, and named when they are the largest part. */
static void test_tracing_and_exit(void)
{
    const char *text = "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\"}\n"
                       "{\"type\":\"end\",\"pid\":7,\"elapsed_s\":2,\"profiling_s\":0.1,"
                       "\"setup_s\":0.2,\"coverage_s\":0.3,\"tracing_s\":0.25,\"exit_s\":0.05}\n";
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == 0);
    CHECK(res.cost.tracing_s == 0.25 && res.cost.exit_s == 0.05);
    CHECK_NEAR(td_cost_added_s(&res.cost), 0.9, 1e-12);
    CHECK_NEAR(td_cost_native_s(&res.cost), 1.1, 1e-12);
    char line[320];
    td_cost_describe(&res.cost, line, sizeof line);
    CHECK_STR(line, "profiling added 0.90 s to a 2.00 s run (sampling 0.10 s, set-up 0.20 s, "
                    "coverage 0.30 s, tracing 0.25 s, end of run 0.05 s): 82% of native, "
                    "estimated");
    td_cost twice = {0};
    td_cost_add(&twice, &res.cost);
    td_cost_add(&twice, &res.cost);
    CHECK_NEAR(twice.tracing_s, 0.5, 1e-12);
    CHECK_NEAR(twice.exit_s, 0.1, 1e-12);
    td_spool_summary_free(&sum);
    td_result_free(&res);
    td_cost traced = {.processes = 1, .elapsed_s = 3, .profiling_s = 0.1, .tracing_s = 0.9};
    char why[512];
    CHECK(td_cost_over_budget(&traced, 40, why, sizeof why) == 1); /* 1 s on 2 s */
    CHECK(strstr(why, "0.90 s, was tracing (topdown's callbacks at every launch") != NULL);
}

static void test_merge(const td_cost *fixture)
{
    td_result inputs[3], merged;
    td_error err;
    td_cost one = *fixture;
    one.processes = 1;
    build(&inputs[0], fixture);
    build(&inputs[1], &one);
    build(&inputs[2], NULL); /* an older result: adds nothing */
    const char *labels[] = {"a.json", "b.json", "c.json"};
    CHECK(td_results_merge(inputs, labels, 3, 0, &merged, &err) == 0);
    CHECK(merged.cost.processes == 3);
    CHECK_NEAR(merged.cost.elapsed_s, 2 * 1.52, 1e-12);
    CHECK_NEAR(td_cost_added_s(&merged.cost), 2 * 0.47, 1e-12);
    CHECK(merged.cost.budget_skipped == 2 * 1130 && merged.cost.launches == 2400);
    td_result_free(&merged);
    for (int i = 0; i < 3; i++)
        td_result_free(&inputs[i]);

    build(&inputs[0], NULL);
    build(&inputs[1], NULL);
    CHECK(td_results_merge(inputs, labels, 2, 0, &merged, &err) == 0);
    CHECK(!td_cost_recorded(&merged.cost));
    td_result_free(&merged);
    td_result_free(&inputs[0]);
    td_result_free(&inputs[1]);
}

/* A recording made before the section existed: loads, no Cost line, and
 * saved again it has no "cost" key. */
static void test_old_result(const char *dir)
{
    char path[512], again[256];
    td_result res;
    td_arch_set real;
    td_error err;
    snprintf(path, sizeof path, "%s/tests/fixtures/h100/td_bench.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    CHECK(td_result_load(path, &res, &err) == 0);
    CHECK(!td_cost_recorded(&res.cost));
    fx_real_archs(&real);
    CHECK(strstr(report_of(&res, &real, 1), "Cost:") == NULL);
    snprintf(again, sizeof again, "%s/old.json", dir);
    CHECK(td_result_save(again, &res, &err) == 0);
    static char text[1 << 20];
    fx_slurp(again, text, sizeof text);
    CHECK(strstr(text, "\"cost\"") == NULL);
    td_arch_set_free(&real);
    td_result_free(&res);
}

/* The budget broken, said (issue 40): the parts of what profiling added,
 * the largest named; modes no budget governs never warn; the bundled
 * PyTorch recording (100% of native against 40%) warns when re-read, the
 * PM-sampling one (4.8%) does not. */
static void test_budget_exceeded(const char *dir)
{
    td_cost c = {.processes = 1, .elapsed_s = 15, .profiling_s = 1, .setup_s = 0.5,
                 .coverage_s = 3.5};
    char why[512];
    CHECK(td_cost_over_budget(&c, 40, why, sizeof why) == 1); /* 5 s on 10 s: 50% */
    CHECK(strstr(why, "profiling added 50% of native time against a budget of 40%") != NULL);
    CHECK(strstr(why, "3.50 s, was coverage (each kernel's first launches replayed") != NULL);
    CHECK(td_cost_over_budget(&c, 60, why, sizeof why) == 0 && why[0] == '\0');
    CHECK(td_cost_over_budget(&c, 0, why, sizeof why) == 0); /* no budget */
    td_cost none = {0};
    CHECK(td_cost_over_budget(&none, 40, why, sizeof why) == 0); /* not recorded */
    td_result r;
    memset(&r, 0, sizeof r);
    r.cost = c;
    r.overhead_pct = 40;
    r.replay_mode = "auto";
    CHECK(td_result_budget_exceeded(&r, why, sizeof why) == 1);
    r.replay_mode = "time-sampled"; /* two runs by design */
    CHECK(td_result_budget_exceeded(&r, why, sizeof why) == 0);
    r.replay_mode = "application";
    CHECK(td_result_budget_exceeded(&r, why, sizeof why) == 0);

    const char *src = getenv("TOPDOWN_REPO_DIR");
    char args[1024];
    td_run_output out;
    snprintf(args, sizeof args, "report '%s/benchmarks/results/recordings_2026-11-26/"
             "h100_pytorch_mlp_2000.json.xz' -l 1", src);
    td_test_run_topdown(dir, args, &out);
    CHECK(out.status == 0);
    CHECK(strstr(out.out, "WARNING:  the cost budget was exceeded: profiling added 100% of "
                          "native time against a budget of 40%") != NULL);
    snprintf(args, sizeof args, "report '%s/benchmarks/results/recordings_2026-11-26/"
             "h100_pytorch_pm.json.xz' -l 1", src);
    td_test_run_topdown(dir, args, &out);
    CHECK(out.status == 0 && strstr(out.out, "cost budget was exceeded") == NULL);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    td_cost fixture;
    test_spool_and_header(&archs, &fixture);
    test_json_report(&archs, &fixture);
    test_coverage_note();
    test_round_trip(dir, &fixture);
    test_reader();
    test_spool_tolerance();
    test_tracing_and_exit();
    test_merge(&fixture);
    test_old_result(dir);
    test_budget_exceeded(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
