/* --sample-every (topdown/inject/sample_policy.h) driven by simulated launch
 * sequences: which invocations are sampled, with which counter groups,
 * how many points a run of 20,000 launches gets, the time-based period
 * with a duration estimate, and the option's syntax. */
#include <string.h>

#include "../check.h"
#include "topdown/inject/sample_policy.h"

static td_sample_every parse(const char *text)
{
    td_sample_every p;
    td_error err;
    CHECK(td_sample_every_parse(text, &p, &err) == 0);
    return p;
}

static void test_parse(void)
{
    td_sample_every p = parse("100");
    CHECK(p.unit == TD_SAMPLE_LAUNCHES && p.every == 100);
    p = parse("5ms");
    CHECK(p.unit == TD_SAMPLE_TIME);
    CHECK_NEAR(p.every_ns, 5e6, 1e-6);
    p = parse("250us");
    CHECK_NEAR(p.every_ns, 250e3, 1e-6);
    p = parse("0.5s");
    CHECK_NEAR(p.every_ns, 5e8, 1e-3);
    p = parse("");
    CHECK(p.unit == TD_SAMPLE_OFF);
    const char *bad[] = {"0", "-3", "2.5", "5 ms", "5min", "ms", "1e3", "abc", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        td_error err;
        err.msg[0] = '\0';
        CHECK(td_sample_every_parse(bad[i], &p, &err) == -1);
        CHECK(strstr(err.msg, "--sample-every") != NULL);
        CHECK(p.unit == TD_SAMPLE_OFF);
    }
}

/* Every launch of one kernel: which are sampled and with which group,
 * each sampled launch measured as asked. */
static size_t run(const td_sample_every *p, size_t n_launches, size_t n_groups, double est_ns,
                  int *sampled_group, td_sample_kernel *k)
{
    size_t sampled = 0;
    int active = -1;
    for (size_t i = 0; i < n_launches; i++) {
        int group = -2;
        sampled_group[i] = -2;
        if (td_sample_decide(p, k, n_groups, active, est_ns, &group)) {
            td_sample_taken(k, n_groups, group);
            sampled_group[i] = group;
            active = group;
            sampled++;
        }
    }
    return sampled;
}

static void test_every_n_with_groups(void)
{
    td_sample_every p = parse("10");
    td_sample_kernel k;
    memset(&k, 0, sizeof k);
    int got[40];
    size_t sampled = run(&p, 40, 3, 0, got, &k);
    /* Points at invocations 0, 10, 20, 30; each a burst of 3 covering
     * groups 0..2; the group configured last is taken first. */
    CHECK(sampled == 12);
    CHECK(k.points == 4);
    CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == -2);
    CHECK(got[9] == -2);
    CHECK(got[10] == 2 && got[11] == 0 && got[12] == 1 && got[13] == -2);
    CHECK(got[20] == 1 && got[21] == 0 && got[22] == 2);
    CHECK(got[30] >= 0 && got[33] == -2);
}

static void test_full_set_points(void)
{
    /* No counter groups (--replay-mode kernel): a point is one launch. */
    td_sample_every p = parse("1000");
    td_sample_kernel k;
    memset(&k, 0, sizeof k);
    static int got[20000];
    size_t sampled = run(&p, 20000, 0, 0, got, &k);
    CHECK(sampled == 20);
    CHECK(got[0] == TD_SAMPLE_FULL_SET && got[1000] == TD_SAMPLE_FULL_SET);
    CHECK(got[999] == -2 && got[19000] == TD_SAMPLE_FULL_SET);
}

static void test_20000_launches_bounded(void)
{
    /* The benchmark's shape: 20,000 launches, 5 groups, every 200th. */
    td_sample_every p = parse("200");
    td_sample_kernel k;
    memset(&k, 0, sizeof k);
    static int got[20000];
    size_t sampled = run(&p, 20000, 5, 0, got, &k);
    CHECK(k.points == 100);
    CHECK(sampled == 500);
    /* The last point is near the end of the run: the timeline spans it. */
    size_t last = 0;
    for (size_t i = 0; i < 20000; i++)
        if (got[i] != -2)
            last = i;
    CHECK(last >= 19800);
}

static void test_time_period(void)
{
    /* 50 us launches, every 1 ms of the kernel's time: a point every 20
     * invocations; unknown duration first (0), then known. */
    td_sample_every p = parse("1ms");
    td_sample_kernel k;
    memset(&k, 0, sizeof k);
    int group, starts[8], n_starts = 0;
    for (int i = 0; i < 100; i++) {
        long before = k.points;
        if (td_sample_decide(&p, &k, 2, -1, i < 2 ? 0 : 50e3, &group))
            td_sample_taken(&k, 2, group);
        if (k.points > before && n_starts < 8)
            starts[n_starts++] = i;
    }
    CHECK(n_starts >= 4);
    CHECK(starts[0] == 0);
    /* From the second point on: 20 invocations of 50 us apart. */
    CHECK(starts[2] - starts[1] == 20);
    CHECK(starts[3] - starts[2] == 20);
}

static void test_full_set_completes_point(void)
{
    /* The caller replays the point's first launch (the kernel's first
     * profiled launch in auto mode): the point is then complete. */
    td_sample_every p = parse("5");
    td_sample_kernel k;
    memset(&k, 0, sizeof k);
    int group;
    CHECK(td_sample_decide(&p, &k, 4, -1, 0, &group) == 1);
    td_sample_taken(&k, 4, TD_SAMPLE_FULL_SET);
    CHECK(k.in_point == 0);
    CHECK(td_sample_decide(&p, &k, 4, -1, 0, &group) == 0);
}

static void test_unmeasured_burst_ends(void)
{
    /* Launches the caller could not measure (never td_sample_taken): the
     * burst gives up after 4 per group and the next point comes later. */
    td_sample_every p = parse("100");
    td_sample_kernel k;
    memset(&k, 0, sizeof k);
    int group, asked = 0;
    for (int i = 0; i < 100; i++)
        asked += td_sample_decide(&p, &k, 2, -1, 0, &group);
    CHECK(asked == 8);
    CHECK(k.in_point == 0);
    CHECK(td_sample_decide(&p, &k, 2, -1, 0, &group) == 1); /* invocation 100 */
}

int main(void)
{
    test_parse();
    test_every_n_with_groups();
    test_full_set_points();
    test_20000_launches_bounded();
    test_time_period();
    test_full_set_completes_point();
    test_unmeasured_burst_ends();
    return td_check_summary();
}
