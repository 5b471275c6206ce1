/* The spool -> result path (metrics/spool/spool.c): the spool and result that
 * topdown recorded on an H100 (tests/fixtures/h100/), and hand-made spools
 * that are cut short, damaged or not spools at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"

static const char *START = "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/1\"}\n";
static const char *DEVICE =
    "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"name\":\"GPU\",\"chip\":\"GH100\","
    "\"cc\":[9,0],\"sm_count\":132,\"arch\":\"gh100\",\"passes\":3,\"metrics\":[\"a\",\"b\"]}\n";

static char *concat(const char *const *parts)
{
    size_t len = 0;
    for (size_t i = 0; parts[i]; i++)
        len += strlen(parts[i]);
    char *text = calloc(len + 1, 1);
    for (size_t i = 0; parts[i]; i++)
        strcat(text, parts[i]);
    return text;
}

static int parse(const char *text, td_result *res, td_spool_summary *sum, td_error *err)
{
    memset(res, 0, sizeof *res);
    memset(err, 0, sizeof *err);
    return td_spool_parse(text, strlen(text), "test.spool", res, sum, err);
}

/* Launches come back in id order with their counters, and kernel_time
 * records fill the duration of unprofiled launches. */
static void test_complete_spool(void)
{
    const char *parts[] = {
        START, DEVICE,
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":1,\"corr\":11,\"kernel\":\"k2\","
        "\"grid\":[4,1,1],\"block\":[32,1,1],\"stream\":7}\n",
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"corr\":10,\"kernel\":\"k1\","
        "\"mangled\":\"_Z2k1v\",\"grid\":[2,1,1],\"block\":[64,1,1],\"duration_ns\":500,"
        "\"counters\":[3,4]}\n",
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":11,\"start_ns\":90,"
        "\"duration_ns\":250}\n",
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":11,\"start_ns\":95,"
        "\"duration_ns\":999}\n",
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":10,\"start_ns\":10,"
        "\"duration_ns\":777}\n",
        "{\"type\":\"future_record\",\"pid\":7}\n",
        "{\"type\":\"end\",\"pid\":7,\"launches\":2,\"profiled\":1}\n", NULL};
    char *text = concat(parts);
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse(text, &res, &sum, &err) == 0);
    CHECK(td_spool_complete(&sum));
    CHECK(sum.launches == 2 && sum.profiled == 1 && sum.timed == 2 && sum.passes == 3);
    CHECK(res.n_devices == 1);
    if (res.n_devices == 1 && res.devices[0].n_launches == 2) {
        const td_device *d = &res.devices[0];
        CHECK_STR(d->chip, "GH100");
        CHECK(d->cc_major == 9 && d->cc_minor == 0 && d->sm_count == 132);
        CHECK(d->n_metrics == 2 && d->context == 1);
        CHECK_STR(d->launches[0].kernel, "k1"); /* sorted back into launch order */
        CHECK_STR(d->launches[0].mangled, "_Z2k1v");
        CHECK(d->launches[0].profiled && d->launches[0].counters[1] == 4);
        CHECK_NEAR(d->launches[0].duration_ns, 500, 0); /* from counters, not activity */
        CHECK(d->launches[0].start_ns == 10);
        CHECK_STR(d->launches[1].kernel, "k2");
        CHECK(!d->launches[1].profiled);
        CHECK_NEAR(d->launches[1].duration_ns, 250, 0); /* the first timing wins */
        CHECK(d->launches[1].grid[0] == 4 && d->launches[1].block[0] == 32);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    free(text);
}

/* A crash mid-write leaves a cut last line: dropped, and the spool is not
 * complete (no end record). */
static void test_truncated_spool(void)
{
    const char *parts[] = {
        START, DEVICE,
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"kernel\":\"k1\",\"counters\":[1,2]}\n",
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":1,\"kernel\":\"k1\",\"coun", NULL};
    char *text = concat(parts);
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse(text, &res, &sum, &err) == 0);
    CHECK(sum.truncated == 1);
    CHECK(!td_spool_complete(&sum));
    CHECK(sum.launches == 1);
    td_spool_summary_free(&sum);
    td_result_free(&res);
    free(text);
}

static void expect_error(const char *text, const char *needle)
{
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse(text, &res, &sum, &err) == -1);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.msg, needle);
    CHECK(strstr(err.msg, needle) != NULL);
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

static void test_bad_spools(void)
{
    expect_error("\x7f" "ELF\x02\x01\x01 garbage", "not a topdown spool");
    expect_error("{\"type\":\"device\",\"pid\":1,\"context\":1,\"device\":0}\n",
                 "not a topdown spool");
    expect_error("{\"type\":\"start\",\"pid\":1,\"format\":\"topdown-spool/99\"}\n",
                 "different builds");
    char *text;
    const char *middle[] = {START, DEVICE, "{not json\n",
                            "{\"type\":\"end\",\"pid\":7}\n", NULL};
    text = concat(middle);
    expect_error(text, "line 3");
    free(text);
    const char *orphan[] = {START, "{\"type\":\"launch\",\"pid\":7,\"context\":9,\"id\":0,"
                            "\"kernel\":\"k\"}\n", NULL};
    text = concat(orphan);
    expect_error(text, "before the device record");
    free(text);
    const char *short_counters[] = {START, DEVICE, "{\"type\":\"launch\",\"pid\":7,\"context\":1,"
                                    "\"id\":0,\"kernel\":\"k\",\"counters\":[1]}\n", NULL};
    text = concat(short_counters);
    expect_error(text, "2 numbers");
    free(text);
    const char *negative[] = {START, DEVICE, "{\"type\":\"launch\",\"pid\":7,\"context\":1,"
                              "\"id\":0,\"kernel\":\"k\",\"counters\":[1,-5]}\n", NULL};
    text = concat(negative);
    expect_error(text, "negative");
    free(text);
    const char *no_kernel[] = {START, DEVICE, "{\"type\":\"launch\",\"pid\":7,\"context\":1,"
                               "\"id\":0}\n", NULL};
    text = concat(no_kernel);
    expect_error(text, "\"kernel\" is missing");
    free(text);
}

/* Errors from the injection library reach the summary, once each. */
static void test_error_records(void)
{
    const char *parts[] = {
        START,
        "{\"type\":\"error\",\"pid\":7,\"code\":\"insufficient_privileges\",\"message\":\"no perm\"}\n",
        "{\"type\":\"error\",\"pid\":7,\"code\":\"insufficient_privileges\",\"message\":\"no perm\"}\n",
        "{\"type\":\"warning\",\"pid\":7,\"message\":\"careful\"}\n",
        "{\"type\":\"signal\",\"pid\":7,\"signal\":15}\n", NULL};
    char *text = concat(parts);
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse(text, &res, &sum, &err) == 0);
    CHECK_STR(sum.errors, "no perm");
    CHECK_STR(sum.warnings, "careful");
    CHECK(sum.last_signal == 15);
    CHECK(!td_spool_complete(&sum));
    CHECK(sum.launches == 0 && res.n_devices == 0);
    CHECK(!sum.collector_failed); /* no permission is not the collector's failure */
    td_spool_summary_free(&sum);
    td_result_free(&res);
    free(text);
    /* the Range Profiler did not start: topdown's failure, not the app's */
    const char *failed[] = {
        START,
        "{\"type\":\"error\",\"pid\":7,\"code\":\"profiler_failed\",\"message\":\"context 1: "
        "starting the profiler failed (cuptiRangeProfilerStart: CUPTI_ERROR_UNKNOWN); later "
        "launches are timed only\"}\n", NULL};
    text = concat(failed);
    CHECK(parse(text, &res, &sum, &err) == 0);
    CHECK(sum.collector_failed && strstr(sum.errors, "later launches are timed only"));
    td_spool_summary_free(&sum);
    td_result_free(&res);
    free(text);
}

static void test_empty_and_missing(void)
{
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse("", &res, &sum, &err) == 0);
    CHECK(sum.processes == 0 && !td_spool_complete(&sum));
    td_result_free(&res);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_load("/nonexistent/topdown.spool", &res, &sum, &err) == 0);
    CHECK(sum.processes == 0);
    td_result_free(&res);
}

/* The progress reader counts only complete lines and resumes where it
 * stopped. */
static void test_progress(void)
{
    char path[] = "/tmp/td_spool_progressXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs(START, f);
    fputs(DEVICE, f);
    fputs("{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"kernel\":\"k\",\"counters\":[1,2]}\n", f);
    fputs("{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":1,\"kern", f);
    fflush(f);
    td_spool_progress p = {0};
    CHECK(td_spool_progress_update(path, &p) == 0);
    CHECK(p.launches == 1 && p.profiled == 1 && p.passes == 3);
    fputs("el\":\"k\"}\n", f);
    fclose(f);
    CHECK(td_spool_progress_update(path, &p) == 0);
    CHECK(p.launches == 2 && p.profiled == 1);
    unlink(path);
}

/* ---- the H100 recording ------------------------------------------------- */

static char *fixture(const char *name)
{
    const char *src = getenv("TOPDOWN_REPO_DIR");
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/tests/fixtures/h100/%s", src ? src : "..", name);
    return path;
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The real spool gives the same launches and counters as the result file
 * topdown saved from it on the H100, and sane raw counters. */
static void test_h100_recording(const char *app, size_t launches, size_t profiled)
{
    char name[256];
    snprintf(name, sizeof name, "%s.spool", app);
    char *spool = fixture(name);
    snprintf(name, sizeof name, "%s.topdown.json", app);
    char *saved = fixture(name);
    CHECK(file_exists(spool) && file_exists(saved));
    td_result res, ref;
    td_spool_summary sum;
    td_error err = {{0}};
    memset(&res, 0, sizeof res);
    memset(&ref, 0, sizeof ref);
    int ok = td_spool_load(spool, &res, &sum, &err) == 0;
    if (!ok)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(ok);
    CHECK(td_result_load(saved, &ref, &err) == 0);
    CHECK(td_spool_complete(&sum));
    CHECK(res.n_devices == 1 && ref.n_devices == 1);
    if (ok && res.n_devices == 1 && ref.n_devices == 1) {
        const td_device *d = &res.devices[0], *r = &ref.devices[0];
        CHECK_STR(d->chip, "GH100");
        CHECK(d->cc_major == 9 && d->passes > 0 && d->n_metrics == r->n_metrics);
        CHECK(d->n_launches == r->n_launches && d->n_launches == launches);
        CHECK(sum.profiled == (long)profiled && sum.timed == (long)launches);
        int inst_exec = td_device_metric_index(d, "smsp__inst_executed.sum");
        int inst_issued = td_device_metric_index(d, "smsp__inst_issued.sum");
        int threads = td_device_metric_index(d, "smsp__thread_inst_executed.sum");
        CHECK(inst_exec >= 0 && inst_issued >= 0 && threads >= 0);
        for (size_t i = 0; i < d->n_launches && i < r->n_launches; i++) {
            const td_launch *l = &d->launches[i], *lr = &r->launches[i];
            CHECK_STR(l->kernel, lr->kernel);
            CHECK(l->profiled == lr->profiled);
            CHECK(l->duration_ns > 0);
            if (!l->profiled || inst_exec < 0 || inst_issued < 0 || threads < 0)
                continue;
            for (size_t m = 0; m < d->n_metrics; m++)
                CHECK_NEAR(l->counters[m], lr->counters[m], 1e-6 * (1 + lr->counters[m]));
            CHECK(l->counters[inst_exec] > 0);
            CHECK(l->counters[inst_issued] >= l->counters[inst_exec]);
            CHECK(l->counters[threads] <= 32 * l->counters[inst_exec]);
        }
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    td_result_free(&ref);
    free(spool);
    free(saved);
}

int main(void)
{
    test_complete_spool();
    test_truncated_spool();
    test_bad_spools();
    test_error_records();
    test_empty_and_missing();
    test_progress();
    /* td_smoke --repeat 2 --graph under --per-kernel 1: 6 launches
     * profiled, 6 only timed, 2 kernels of a CUDA graph */
    test_h100_recording("td_smoke", 14, 6);
    test_h100_recording("td_bench", 30, 30); /* benchmarks/td_bench, all profiled */
    return td_check_summary();
}
