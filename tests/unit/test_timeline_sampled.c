/* Timelines of replay-free collection (report/timeline.c): consecutive
 * profiled launches that together measured every counter group make one
 * point, with a bootstrap spread where some group holds two launches. On a launch sequence shaped like
 * --sample-every (bursts of one launch per group between timed-only
 * launches, built from a real H200 recording) and on the recording as it
 * was collected (groups rotated by phase). */
#include <math.h>

#include "../check.h"
#include "report/timeline.h"
#include "td_outputs_testlib.h"

/* Occurrences of needle in text. */
static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static td_arch_set archs;

static int load(const char *name, td_result *res, td_summary *s)
{
    char path[1024];
    td_error err;
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/%s", getenv("TOPDOWN_REPO_DIR"), name);
    if (td_result_load(path, res, &err) || td_summarize(res, &archs, NULL, s, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return -1;
    }
    return 0;
}

static double retire_pct(const td_breakdown *b)
{
    double shares[TD_PHASE_WIDTH];
    td_level1_shares(b, shares);
    return shares[0];
}

/* The recording's launches of kernel: the first of each group 0..n-1. */
static int first_of_each_group(const td_device *dev, const char *kernel, size_t *at, size_t n)
{
    size_t found = 0;
    for (size_t g = 0; g < n; g++) {
        at[g] = SIZE_MAX;
        for (size_t i = 0; i < dev->n_launches && at[g] == SIZE_MAX; i++)
            if (dev->launches[i].profiled && dev->launches[i].group == (int)g &&
                strcmp(dev->launches[i].kernel, kernel) == 0)
                at[g] = i;
        found += at[g] != SIZE_MAX;
    }
    return found == n ? 0 : -1;
}

/* 4 points: 10 timed-only launches, then one launch per group (5). */
static void test_sampled_bursts(void)
{
    td_result rec;
    td_summary srec;
    if (load("h200_bench_groups.topdown.json", &rec, &srec) != 0) {
        CHECK(0);
        return;
    }
    const td_device *dev = &rec.devices[0];
    CHECK(dev->n_groups == 5);
    size_t at[5];
    const char *kernel = "bench_retire(Sink, int, float)";
    CHECK(first_of_each_group(dev, kernel, at, 5) == 0);

    /* A view of the recording: its device, new launches (counters shared). */
    td_result res = rec;
    td_device view = *dev;
    res.devices = &view;
    res.n_devices = 1;
    enum { POINTS = 4, GAP = 10, PER_POINT = GAP + 5 };
    td_launch launches[POINTS * PER_POINT];
    view.launches = launches;
    view.n_launches = 0;
    for (int p = 0; p < POINTS; p++) {
        for (int i = 0; i < GAP; i++) {
            td_launch l = dev->launches[at[0]];
            l.profiled = 0;
            l.counters = NULL;
            l.group = TD_GROUP_ALL;
            launches[view.n_launches++] = l;
        }
        for (int g = 0; g < 5; g++)
            launches[view.n_launches++] = dev->launches[at[(g + p) % 5]];
    }
    for (size_t i = 0; i < view.n_launches; i++) {
        launches[i].id = i;
        launches[i].start_ns = 1000 * (i + 1);
    }
    td_summary s;
    td_error err;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    td_timeline t;
    CHECK(td_timeline_build(&res, &s, kernel, &t, &err) == 0);
    CHECK(t.invocations == POINTS * PER_POINT);
    CHECK(t.n_points == POINTS && t.combined == POINTS && t.leftover == 0);
    const td_kernel_summary *ks = &s.kernels[0];
    for (size_t p = 0; p < t.n_points && p < POINTS; p++) {
        const td_timeline_point *pt = &t.points[p];
        CHECK(pt->samples == 5);
        CHECK(pt->invocation == p * PER_POINT + GAP);
        CHECK(pt->launch_id == p * PER_POINT + GAP);
        CHECK(pt->b.has_slots);
        /* The same five launches each time: the kernel's own mean. */
        CHECK_NEAR(retire_pct(&pt->b), retire_pct(&ks->mean), 0.5);
        /* one launch a group: no variance to estimate, no spread to show */
        CHECK(!pt->has_spread && pt->spread.value[0] == 0);
    }
    /* The text: a samples column and a spread column. */
    FILE *f = tmpfile();
    CHECK(f && td_timeline_text(f, &t, &s, 1, 5.0, &err) == 0);
    char text[8192] = "";
    if (f) {
        rewind(f);
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(strstr(text, "4 points combine consecutive sampled invocations") != NULL);
    CHECK(strstr(text, " samples ") != NULL && strstr(text, "  spread\n") != NULL);
    CHECK(strstr(text, "       5 ") != NULL);
    CHECK(strstr(text, "Phases: 1 ") != NULL);
    CHECK(count_of(text, "  +-") == 0);
    /* Points with a spread show the widest node's 95% interval; one of
     * one launch a group shows none (--json leaves it out too; issue 39). */
    for (size_t p = 0; p < t.n_points; p++) {
        t.points[p].has_spread = 1;
        for (int n = 0; n < TD_TREE_MAX; n++)
            t.points[p].spread.value[n] = 0.002;
    }
    t.points[0].has_spread = 0;
    f = tmpfile();
    CHECK(f && td_timeline_text(f, &t, &s, 1, 5.0, &err) == 0);
    text[0] = '\0';
    if (f) {
        rewind(f);
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(count_of(text, "  +-0.2\n") == POINTS - 1);
    td_timeline_free(&t);

    /* A burst cut short (the run ended): its launches are left over. */
    view.n_launches -= 2;
    CHECK(td_timeline_build(&res, &s, kernel, &t, &err) == 0);
    CHECK(t.n_points == POINTS - 1 && t.leftover == 3);
    td_timeline_free(&t);
    td_summary_free(&s);
    td_summary_free(&srec);
    td_result_free(&rec);
}

/* The recording as collected: groups rotated by phase, one combined point
 * from the first launches, the rest left over; full-set launches of the
 * kernel-replay recording stay one point each. */
static void test_recordings(void)
{
    td_result res;
    td_summary s;
    td_error err;
    td_timeline t;
    if (load("h200_bench_groups.topdown.json", &res, &s) == 0) {
        CHECK(td_timeline_build(&res, &s, "bench_retire", &t, &err) != 0); /* not exact */
        CHECK(td_timeline_build(&res, &s, "bench_retire(Sink, int, float)", &t, &err) == 0);
        CHECK(t.invocations == 25 && t.combined == t.n_points && t.n_points >= 1);
        CHECK(t.n_points == 0 || t.points[0].samples >= 5);
        td_timeline_free(&t);
        td_summary_free(&s);
        td_result_free(&res);
    } else {
        CHECK(0);
    }
    if (load("h200_bench_kernel.topdown.json", &res, &s) == 0) {
        CHECK(td_timeline_build(&res, &s, "bench_retire(Sink, int, float)", &t, &err) == 0);
        CHECK(t.combined == 0 && t.n_points >= 1 && t.n_points < t.invocations);
        for (size_t i = 0; i < t.n_points; i++)
            CHECK(t.points[i].samples == 1);
        td_timeline_free(&t);
        td_summary_free(&s);
        td_result_free(&res);
    } else {
        CHECK(0);
    }
}

int main(void)
{
    fx_real_archs(&archs);
    test_sampled_bursts();
    test_recordings();
    td_arch_set_free(&archs);
    return td_check_summary();
}
