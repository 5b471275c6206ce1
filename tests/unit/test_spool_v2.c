/* The spool, format topdown-spool/2: kernel records and launches that name
 * them by "k", counter groups and group launches (expanded into every
 * metric), graph ids, registers and shared memory, the start record's
 * replay mode and overhead; bad
 * records refused with one line naming the line; values out of range
 * refused instead of converted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"

#define START "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\"," \
              "\"replay_mode\":\"auto\",\"overhead_pct\":5}\n"
#define DEVICE "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"chip\":\"GH100\"," \
               "\"cc\":[9,0],\"arch\":\"gh100\",\"passes\":1,\"metrics\":[\"a\",\"b\",\"c\"]," \
               "\"groups\":[[2,0],[1]]}\n"
#define KERNEL "{\"type\":\"kernel\",\"pid\":7,\"k\":0,\"name\":\"void big<int>(int*)\"," \
               "\"mangled\":\"_Z3bigIiEvPi\"}\n"
#define LAUNCH "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"corr\":1,\"grid\":[1,1,1]," \
               "\"block\":[32,1,1],\"duration_ns\":10,"
#define BARE_LAUNCH "{\"type\":\"launch\",\"pid\":7,\"context\":1,"
#define END "{\"type\":\"end\",\"pid\":7}\n"

static int parse(const char *text, td_result *res, td_spool_summary *sum, td_error *err)
{
    memset(res, 0, sizeof *res);
    memset(err, 0, sizeof *err);
    return td_spool_parse(text, strlen(text), "test.spool", res, sum, err);
}

/* A spool that must parse: checked, its error said when it does not. */
static int parse_well(const char *text, td_result *res, td_spool_summary *sum)
{
    td_error err;
    int ok = parse(text, res, sum, &err) == 0;
    if (!ok)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(ok);
    return ok;
}

static void test_v2_records(void)
{
    const char *text =
        START DEVICE KERNEL
        "{\"type\":\"kernel\",\"pid\":7,\"k\":1,\"name\":\"small()\"}\n"
        LAUNCH "\"id\":0,\"k\":0,\"group\":0,\"counters\":[30,10]}\n"
        LAUNCH "\"id\":1,\"k\":1,\"group\":1,\"counters\":[20],\"graph\":5,\"graph_node\":3}\n"
        LAUNCH "\"id\":2,\"k\":0,\"counters\":[1,2,3]}\n"
        LAUNCH "\"id\":3,\"kernel\":\"old_style\",\"mangled\":\"_Z9old_stylev\"}\n"
        KERNEL /* the same record again: harmless */
        LAUNCH "\"id\":4,\"k\":0}\n" END;
    td_result res;
    td_spool_summary sum;
    int ok = parse_well(text, &res, &sum);
    CHECK_STR(res.replay_mode, "auto");
    CHECK(res.overhead_pct == 5);
    CHECK(td_spool_complete(&sum) && sum.launches == 5 && sum.profiled == 3);
    CHECK(res.n_devices == 1);
    if (ok && res.n_devices == 1 && res.devices[0].n_launches == 5) {
        const td_device *d = &res.devices[0];
        CHECK(d->n_groups == 2 && d->groups[0].n == 2 && d->groups[0].metrics[0] == 2);
        const td_launch *l = d->launches;
        CHECK_STR(l[0].kernel, "void big<int>(int*)");
        CHECK_STR(l[0].mangled, "_Z3bigIiEvPi");
        CHECK(l[0].kernel == l[4].kernel); /* one copy of the name */
        CHECK(l[0].group == 0 && l[0].profiled);
        CHECK(l[0].counters[0] == 10 && l[0].counters[1] == 0 && l[0].counters[2] == 30);
        CHECK_STR(l[1].kernel, "small()");
        CHECK(l[1].mangled == NULL);
        CHECK(l[1].group == 1 && l[1].counters[0] == 0 && l[1].counters[1] == 20);
        CHECK(l[1].graph_id == 5 && l[1].graph_node == 3);
        CHECK(l[2].group == TD_GROUP_ALL && l[2].counters[2] == 3);
        CHECK_STR(l[3].kernel, "old_style");
        CHECK_STR(l[3].mangled, "_Z9old_stylev");
        CHECK(!l[4].profiled && l[4].graph_id == 0);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

/* A launch measured in a user range (a counter group) takes its kernel's
 * activity time, not the range's, which holds the range's own cost; a
 * replayed launch (the full set) keeps its counters' time. */
static void test_group_launch_time(void)
{
    const char *text =
        START DEVICE KERNEL
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"corr\":1,\"grid\":[1,1,1],"
        "\"block\":[32,1,1],\"duration_ns\":52000,\"id\":0,\"k\":0,\"group\":0,"
        "\"counters\":[30,10]}\n"
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"corr\":2,\"grid\":[1,1,1],"
        "\"block\":[32,1,1],\"duration_ns\":9000,\"id\":1,\"k\":0,\"counters\":[1,2,3]}\n"
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1,\"start_ns\":5,"
        "\"duration_ns\":8000}\n"
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":2,\"start_ns\":9,"
        "\"duration_ns\":7000}\n" END;
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse(text, &res, &sum, &err) == 0);
    if (res.n_devices == 1 && res.devices[0].n_launches == 2) {
        const td_launch *l = res.devices[0].launches;
        CHECK_NEAR(l[0].duration_ns, 8000, 0);
        CHECK_NEAR(l[1].duration_ns, 9000, 0);
    } else {
        CHECK(!"two launches");
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

/* Registers and shared memory ("res", CUPTI's kernel record): from a
 * kernel_time line in the collector's own form (scanned), from one read as
 * JSON (other spacing), and on a graph kernel's launch record; the first
 * kernel_time of a launch wins, as for its time. */
static void test_resources(void)
{
    const char *text =
        START DEVICE KERNEL
        LAUNCH "\"id\":0,\"k\":0}\n"
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"corr\":2,\"grid\":[1,1,1],"
        "\"block\":[32,1,1],\"duration_ns\":10,\"id\":1,\"k\":0}\n"
        BARE_LAUNCH "\"id\":2,\"k\":0,\"res\":[24,0,512,8192],\"graph\":4}\n"
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1,\"start_ns\":5,"
        "\"duration_ns\":8,\"res\":[32,1024,4294967295,233472]}\n"
        "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1,\"start_ns\":6,"
        "\"duration_ns\":9,\"res\":[99,0,0,0]}\n"
        "{\"type\": \"kernel_time\", \"pid\": 7, \"context\": 1, \"corr\": 2, \"start_ns\": 7, "
        "\"duration_ns\": 9, \"res\": [128, 0, 0, 0]}\n" END;
    td_result res;
    td_spool_summary sum;
    int ok = parse_well(text, &res, &sum);
    if (ok && res.n_devices == 1 && res.devices[0].n_launches == 3) {
        const td_launch *l = res.devices[0].launches;
        CHECK(l[0].resources.recorded && l[0].resources.registers == 32);
        CHECK(l[0].resources.static_shared == 1024 &&
              l[0].resources.dynamic_shared == 4294967295u &&
              l[0].resources.shared_config == 233472);
        CHECK(l[1].resources.recorded && l[1].resources.registers == 128);
        CHECK(l[2].resources.recorded && l[2].resources.registers == 24 &&
              l[2].resources.dynamic_shared == 512 && l[2].resources.shared_config == 8192);
    } else {
        CHECK(!"three launches");
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    /* a kernel_time without "res" leaves them not recorded */
    ok = parse_well(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0}\n"
                    "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1,"
                    "\"start_ns\":5,\"duration_ns\":8}\n" END, &res, &sum);
    CHECK(ok && res.n_devices == 1 && !res.devices[0].launches[0].resources.recorded);
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

/* The error names the line and says what is wrong, in one line. */
static void expect_error(const char *text, const char *needle)
{
    td_result res;
    td_spool_summary sum;
    td_error err;
    int rc = parse(text, &res, &sum, &err);
    CHECK(rc == -1);
    if (rc == 0)
        fprintf(stderr, "accepted:\n%s\n", text);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.msg, needle);
    CHECK(strstr(err.msg, needle) != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

#define DEV_GROUPS(groups) "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0," \
                           "\"metrics\":[\"a\",\"b\",\"c\"],\"groups\":" groups "}\n"

static void test_v2_errors(void)
{
    expect_error(START DEV_GROUPS("[[0,3]]"), "line 2");
    expect_error(START DEV_GROUPS("[[0,3]]"), "\"groups\"[0] is 3, out of range");
    expect_error(START DEV_GROUPS("[[0],[]]"), "group 1 must be a non-empty list");
    expect_error(START DEV_GROUPS("[[1,1]]"), "metric 1 twice");
    expect_error(START DEV_GROUPS("[[-1]]"), "negative");
    expect_error(START DEV_GROUPS("[0]"), "group 0");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"group\":0,\"counters\":[1]}\n",
                 "line 4: \"counters\" must be a list of 2 numbers, one per metric of group 0");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"group\":1,\"counters\":[1,2,3]}\n",
                 "of group 1");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"counters\":[1,2]}\n",
                 "3 numbers, one per metric");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"group\":2,\"counters\":[1]}\n",
                 "line 4: \"group\" is 2, out of range");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"group\":0}\n",
                 "without \"counters\"");
    expect_error(START DEV_GROUPS("[]") KERNEL LAUNCH "\"id\":0,\"k\":0,\"group\":0,\"counters\":[1]}\n",
                 "no \"groups\"");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":9}\n",
                 "line 4: kernel 9 of process 7 has no kernel record before it");
    /* k of another process is another kernel */
    expect_error(START DEVICE "{\"type\":\"kernel\",\"pid\":8,\"k\":0,\"name\":\"x\"}\n"
                 LAUNCH "\"id\":0,\"k\":0}\n", "line 4: kernel 0 of process 7");
    expect_error(START DEVICE KERNEL "{\"type\":\"kernel\",\"pid\":7,\"k\":0,\"name\":\"other\"}\n",
                 "line 4: a second kernel record");
    expect_error(START DEVICE "{\"type\":\"kernel\",\"pid\":7,\"k\":1e300,\"name\":\"x\"}\n",
                 "line 3: \"k\"");
    expect_error(START DEVICE LAUNCH "\"id\":0}\n", "\"kernel\" is missing");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"graph\":-2}\n", "\"graph\"");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"graph_node\":0.5}\n", "integer");
    expect_error("{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\",\"overhead_pct\":-5}\n",
                 "overhead_pct");
}

/* Values that cannot be real, and lines that are not clean JSON, are
 * refused rather than converted. */
static void test_hardening(void)
{
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":1e300,\"k\":0}\n", "line 4: \"id\"");
    expect_error(START DEVICE KERNEL BARE_LAUNCH "\"id\":0,\"k\":0,\"grid\":[1e300,1,1]}\n",
                 "\"grid\"[0]");
    expect_error(START DEVICE KERNEL BARE_LAUNCH "\"id\":0,\"k\":0,\"block\":[-5,1,1]}\n",
                 "\"block\"[0]");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"stream\":1e20}\n", "\"stream\"");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"counters\":[1,1e301,0]}\n",
                 "more than any real");
    expect_error(START DEVICE KERNEL "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"k\":0,"
                 "\"duration_ns\":4e16}\n", "\"duration_ns\"");
    expect_error(START DEVICE KERNEL "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"k\":0,"
                 "\"duration_ns\":1e999}\n", "finite");
    expect_error(START "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"cc\":[1e20,0]}\n",
                 "\"cc\"[0]");
    expect_error(START "{\"type\":\"device\",\"pid\":7,\"context\":1e12,\"device\":0}\n", "\"context\"");
    expect_error(START "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":-1}\n", "\"device\"");
    expect_error(START "{\"type\":\"signal\",\"pid\":7,\"signal\":1e20}\n", "\"signal\"");
    expect_error(START "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1e10,"
                 "\"duration_ns\":1}\n", "\"corr\"");
    expect_error(START "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1,"
                 "\"duration_ns\":1,\"res\":[1,2,3]}\n", "\"res\" must be");
    expect_error(START "{\"type\":\"kernel_time\",\"pid\":7,\"context\":1,\"corr\":1,"
                 "\"duration_ns\":1,\"res\":[1,2,3,4294967296]}\n", "\"res\"");
    expect_error(START DEVICE KERNEL LAUNCH "\"id\":0,\"k\":0,\"res\":[1,-2,3,4]}\n", "\"res\"");
    expect_error(START DEVICE "{\"type\":\"end\",\"pid\":7} trailing\n" END, "line 3");
    expect_error(START DEVICE "{\"type\":\"end\",\"pid\":7}{}\n" END, "after the end");
    expect_error(START "{\"type\":\"kernel\",\"pid\":7,\"k\":0,\"name\":\"a\x01z\"}\n" END,
                 "control character");
    expect_error(START "{\"type\":\"kernel\",\"pid\":7,\"k\":0,\"name\":\"a\tz\"}\n" END,
                 "line 2");
}

/* A spool/1 start record is still read, with its launches. */
static void test_v1_start(void)
{
    const char *text = "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/1\"}\n"
                       "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"metrics\":[\"a\"]}\n"
                       "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"kernel\":\"k\","
                       "\"counters\":[4],\"graph\":2}\n";
    td_result res;
    td_spool_summary sum;
    td_error err;
    CHECK(parse(text, &res, &sum, &err) == 0);
    CHECK(res.replay_mode == NULL && res.overhead_pct == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 1);
    if (res.n_devices == 1 && res.devices[0].n_launches == 1) {
        CHECK(res.devices[0].launches[0].counters[0] == 4);
        CHECK(res.devices[0].launches[0].graph_id == 2);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

int main(void)
{
    test_v2_records();
    test_group_launch_time();
    test_resources();
    test_v2_errors();
    test_hardening();
    test_v1_start();
    return td_check_summary();
}
