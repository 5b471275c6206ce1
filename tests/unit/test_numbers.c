/* Numbers (issue 41 item 14): thousands separators in the text (not in
 * CSV or JSON), --page raw's values scaled with their unit, and one way
 * to say "not measured": n/m in the text, empty in CSV and -x lines, null
 * in JSON and the trace. */
#include "../check.h"
#include "td_outputs_testlib.h"
#include "metrics/result/result.h"
#include "report/raw.h"
#include "report/wrap.h"

static char dir[64];
static fx_output r;
static char env[300];

static void run(const char *args)
{
    fx_run(dir, env, args, &r);
}

static void test_count_text(void)
{
    char buf[32];
    CHECK(strcmp(td_count_text(0, buf, sizeof buf), "0") == 0);
    CHECK(strcmp(td_count_text(999, buf, sizeof buf), "999") == 0);
    CHECK(strcmp(td_count_text(1000, buf, sizeof buf), "1,000") == 0);
    CHECK(strcmp(td_count_text(114022, buf, sizeof buf), "114,022") == 0);
    CHECK(strcmp(td_count_text(1234567, buf, sizeof buf), "1,234,567") == 0);
    CHECK(strcmp(td_count_text(1234567, buf, 4), "1,2") == 0); /* cut, ended */
    CHECK(strcmp(TD_COUNT(12345), "12,345") == 0);
    CHECK(strcmp(TD_MS(3787201234.0), "3,787.201") == 0);
    CHECK(strcmp(TD_MS(525387000.0), "525.387") == 0);
    CHECK(strcmp(TD_MS(-1234567890.0), "-1,234.568") == 0);
    CHECK(strchr(TD_MS(1e300), ',') == NULL); /* past a count: as printf writes it */
}

/* The bundled PyTorch recording: counts with separators in the text,
 * whole in the CSV and the JSON. */
static void test_separators(void)
{
    char args[600];
    const char *p = "benchmarks/results/recordings_2026-11-26/h100_pytorch_mlp_2000.json.xz";
    snprintf(args, sizeof args, "report %s/%s", getenv("TOPDOWN_REPO_DIR"), p);
    run(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "46 kernels, 114,022 launches (1,476 profiled), GPU time 3,787.201 ms"));
    CHECK(strstr(r.out, "Copies:   3,011 copies") != NULL);
    CHECK(strstr(r.out, "  3,000 launches (114 profiled: 3 replayed, 111 in counter groups)"));
    snprintf(args, sizeof args, "report %s/%s --csv -", getenv("TOPDOWN_REPO_DIR"), p);
    run(args);
    CHECK(strstr(r.out, ",3000,114,") != NULL && strstr(r.out, "3,000") == NULL);
    snprintf(args, sizeof args, "report %s/%s --json", getenv("TOPDOWN_REPO_DIR"), p);
    run(args);
    CHECK(strstr(r.out, "3000") != NULL && strstr(r.out, "3,000") == NULL);
}

static void test_raw_units(void)
{
    char buf[64];
    td_raw_format_value("sm__cycles_active.sum", 2.71384e9, buf, sizeof buf);
    CHECK(strcmp(buf, "2.71 G cycles") == 0);
    td_raw_format_value("gpu__time_duration.sum", 1.1588e7, buf, sizeof buf);
    CHECK(strcmp(buf, "11.59 ms") == 0);
    td_raw_format_value("gpu__time_duration.sum", 812, buf, sizeof buf);
    CHECK(strcmp(buf, "812.00 ns") == 0);
    td_raw_format_value("smsp__inst_executed.sum", 4.3058e8, buf, sizeof buf);
    CHECK(strcmp(buf, "430.58 M inst") == 0);
    td_raw_format_value("smsp__warps_issue_stalled_wait.sum", 9.0449e8, buf, sizeof buf);
    CHECK(strcmp(buf, "904.49 M warps") == 0);
    td_raw_format_value("smsp__warps_issue_stalled_wait.sum", 0, buf, sizeof buf);
    CHECK(strcmp(buf, "0 warps") == 0);
    td_raw_format_value("stall_memory_dependency", 68.2, buf, sizeof buf); /* nvprof's % */
    CHECK(strcmp(buf, "68.2 %") == 0);
    td_raw_format_value("ipc", 0.6957, buf, sizeof buf);
    CHECK(strcmp(buf, "0.6957") == 0);
    td_raw_format_value("l1tex__t_bytes.sum", 1.5e6, buf, sizeof buf);
    CHECK(strcmp(buf, "1.50 M B") == 0);
    char args[600];
    snprintf(args, sizeof args, "report %s/tests/fixtures/h200/h200_bench_kernel.topdown.json "
             "--page raw", getenv("TOPDOWN_REPO_DIR"));
    run(args);
    CHECK(strstr(r.out, "  sm__cycles_active.sum                                  2.71 G cycles"));
    CHECK(strstr(r.out, "gpu__time_duration.sum                                      11.59 ms"));
    snprintf(args, sizeof args, "report %s/tests/fixtures/h200/h200_bench_kernel.topdown.json "
             "--page raw --csv -", getenv("TOPDOWN_REPO_DIR"));
    run(args);
    CHECK(strstr(r.out, "sm__cycles_active.sum,27") != NULL && strstr(r.out, " G") == NULL);
}

/* A kernel measured in one counter group of two (its stall split not
 * made), one measured whole, one only timed. */
static void write_partial(const char *path)
{
    static const size_t g0[] = {FX_INST, FX_ISSUED, FX_THREADS, FX_CYCLES, FX_DURATION,
                                FX_NOINST, FX_LONGSB};
    static const size_t g1[] = {FX_CYCLES, FX_DURATION, FX_LGTHR, FX_WAIT};
    const td_counter_group groups[2] = {{(size_t *)g0, 7}, {(size_t *)g1, 4}};
    td_result res;
    td_error err;
    memset(&res, 0, sizeof res);
    td_device *dev = fx_device(&res, "testarch", 0);
    CHECK(td_device_set_groups(dev, groups, 2, &err) == 0);
    fx_shares s = {0.3, 0.05, 0.0, 0.2, 0.25, 0.1, 0.1};
    for (int i = 0; i < 3; i++) {
        td_launch *l = fx_launch(dev, "half(int)", 2000 + 100 * i, s);
        l->group = 0;
        l->counters[FX_LGTHR] = l->counters[FX_WAIT] = 0;
        l->start_ns = 10000 * (uint64_t)i + 1;
        fx_launch(dev, "whole(int)", 1000, s)->start_ns = 10000 * (uint64_t)i + 4000;
    }
    fx_unprofiled(dev, "timed(int)", 500)->start_ns = 40000;
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
}

static void test_not_measured(void)
{
    char path[128], args[400];
    snprintf(path, sizeof path, "%s/partial.json", dir);
    write_partial(path);
    snprintf(args, sizeof args, "report %s -l 2 --no-desc", path);
    run(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Frontend                                              % Slots    n/m\n"));
    snprintf(args, sizeof args, "report %s --print-summary per-kernel", path);
    run(args);
    CHECK(strstr(r.out, "n/m        n/m  ") != NULL);            /* half: Frontend, Backend */
    CHECK(strstr(r.out, "n/m        n/m        n/m        n/m  n/m\n")); /* timed */
    CHECK(strstr(r.out, " -") == NULL);
    snprintf(args, sizeof args, "report %s --print-summary per-kernel -x ,", path);
    run(args);
    CHECK(strstr(r.out, "half(int),") != NULL && strstr(r.out, ",,,") != NULL);
    CHECK(strstr(r.out, "timed(int),") != NULL && strstr(r.out, ",,,,,\n") != NULL);
    CHECK(strstr(r.out, "n/m") == NULL && strstr(r.out, ",-") == NULL);
    snprintf(args, sizeof args, "report %s --page raw", path);
    run(args);
    CHECK(strstr(r.out, "  s.wait                                         n/m         0\n"));
    CHECK(strstr(r.out, "  s.no_instruction                               0.2         3\n"));
    snprintf(args, sizeof args, "diff %s %s -l 1 -v", path, path);
    run(args);
    CHECK(strstr(r.out, "Frontend") && strstr(r.out, "n/m      n/m      n/m") != NULL);
    snprintf(args, sizeof args, "trace %s -o %s/t.json", path, dir);
    run(args);
    CHECK(r.status == 0);
    char trace[1 << 16];
    snprintf(path, sizeof path, "%s/t.json", dir);
    fx_slurp(path, trace, sizeof trace);
    const char *half = strstr(trace, "\"kernel\":\"half(int)\"");
    if (!half)
        half = strstr(trace, "\"kernel\":\t\"half(int)\"");
    CHECK(half != NULL);
    CHECK(half && (strstr(half, "\"Frontend\":null") || strstr(half, "\"Frontend\":\tnull")));
    const char *timed = strstr(trace, "timed(int)\"");
    CHECK(timed && (strstr(timed, "\"Retire\":null") || strstr(timed, "\"Retire\":\tnull")));
}

int main(void)
{
    if (!td_test_tmpdir(dir, sizeof dir))
        return 1;
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    td_arch_set_free(&archs);
    snprintf(env, sizeof env, "TOPDOWN_ARCHS='%s/archs'", dir);
    test_count_text();
    test_not_measured();
    snprintf(env, sizeof env, "TOPDOWN_ARCHS='%s'", getenv("TOPDOWN_ARCHS"));
    test_separators();
    test_raw_units();
    td_test_cleanup(dir);
    return td_check_summary();
}
