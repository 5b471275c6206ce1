/* Each node's spread (levels/spread.h), in the summary and the text:
 * identical launches have only the counters' own spread (half a point,
 * under the default threshold) and leave the text as it was; two
 * launch kinds of which half were only timed give a spread, the same
 * launches all measured none; the
 * counter groups of a real H200 run give small, reproducible bootstrap
 * spreads. The interval, "not known" and the bottleneck's runner-up:
 * test_interval. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/estimate.h"
#include "levels/spread.h"
#include "report/text.h"
#include "td_outputs_testlib.h"
#include "td_testreport.h"

static td_arch_set archs;

static const fx_shares kind_a = {.retire = 0.2, .branch = 0.1, .noinst = 1, .longsb = 3, .wait = 1};
static const fx_shares kind_b = {.retire = 0.4, .branch = 0.05, .noinst = 2, .longsb = 2, .wait = 1};

/* The text report of a summary at level `level` (threshold in points). */
static char *report_text(const td_result *res, const td_summary *s, int level,
                         double threshold)
{
    static char text[1 << 16];
    td_report_options o;
    td_report_options_init(&o);
    o.level = level;
    o.spread_threshold = threshold;
    o.no_desc = 1;
    CHECK(td_test_report_text(res, s, &o, text, sizeof text) == 0);
    return text;
}

static int summarize(const td_result *res, td_summary *s)
{
    td_error err;
    int rc = td_summarize(res, &archs, NULL, s, &err);
    if (rc)
        fprintf(stderr, "td_summarize: %s\n", err.msg);
    return rc;
}

static void test_identical_launches(void)
{
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = fx_device(&res, "testarch", 0);
    for (int i = 0; i < 12; i++)
        fx_launch(dev, "same", 250, kind_a);
    td_summary s;
    CHECK(summarize(&res, &s) == 0);
    const td_kernel_summary *ks = &s.kernels[0];
    int all_floor = 1;
    for (int n = 0; n < TD_TREE_MAX; n++)
        all_floor &= ks->spread.value[n] == TD_EST_FLOOR &&
                     fabs(s.app_spread.value[n] - TD_EST_FLOOR) < 1e-15;
    CHECK(all_floor); /* the counters' own repeatability, no sampling */
    CHECK(ks->spread.unattributed == 0.0);
    /* the default text carries no spread and no within-spread marker */
    const char *text = report_text(&res, &s, 4, TD_SPREAD_THRESHOLD_DEFAULT);
    CHECK(strstr(text, "+-") == NULL);
    CHECK(strstr(text, "within spread") == NULL);
    CHECK(strstr(text, "<==") != NULL);
    /* threshold 0 shows every spread, here the floor */
    text = report_text(&res, &s, 1, 0);
    char floor_line[64];
    snprintf(floor_line, sizeof floor_line, "%% Slots   20.0 +-%.1f\n", 100.0 * TD_EST_FLOOR);
    CHECK(strstr(text, floor_line) != NULL);
    td_summary_free(&s);
    td_result_free(&res);
}

/* Launches of two kinds and one duration, half of them only timed: the
 * unmeasured half could be either kind, so the kernel's tree has a spread
 * (a 95% interval, levels/estimate.h), shown as "+-P" over the threshold.
 * The same launches all measured leave nothing unknown: no spread. */
static void test_sampled_launches(void)
{
    const int pairs = 8;
    td_result res, all;
    memset(&res, 0, sizeof res);
    memset(&all, 0, sizeof all);
    td_device *dev = fx_device(&res, "testarch", 0), *every = fx_device(&all, "testarch", 0);
    for (int i = 0; i < pairs; i++) {
        fx_launch(dev, "alt", 100, kind_a);
        fx_launch(dev, "alt", 100, kind_b);
        fx_unprofiled(dev, "alt", 100);
        fx_unprofiled(dev, "alt", 100);
        for (int j = 0; j < 2; j++) {
            fx_launch(every, "alt", 100, kind_a);
            fx_launch(every, "alt", 100, kind_b);
        }
    }
    td_summary s, s_all;
    CHECK(summarize(&res, &s) == 0 && summarize(&all, &s_all) == 0);
    const td_model *m = &s.models[0];
    const td_kernel_summary *ks = &s.kernels[0];
    int retire = td_model_find(m, "Retire"), l1 = td_model_find(m, "Backend.Memory_Bound.L1_Bound");
    CHECK(retire >= 0 && l1 >= 0);
    double want = ks->spread.value[retire];
    CHECK(ks->sampled && want > 0.01 && want < 0.2); /* the kinds differ by 20 points */
    CHECK(ks->spread.value[l1] > 0);
    CHECK_NEAR(ks->mean.value[retire], s_all.kernels[0].mean.value[retire], 1e-12);
    for (int n = 0; n < TD_TREE_MAX; n++)
        CHECK(s_all.kernels[0].spread.value[n] == TD_EST_FLOOR);
    /* one kernel: the application's spread is the kernel's */
    CHECK_NEAR(s.app_spread.value[retire], want, 1e-12);
    /* the text shows it over the threshold, as "+-P" */
    char line[128];
    snprintf(line, sizeof line, "%6.1f +-%.1f", 100.0 * ks->mean.value[retire], 100.0 * want);
    CHECK(strstr(report_text(&res, &s, 1, TD_SPREAD_THRESHOLD_DEFAULT), line) != NULL);
    CHECK(strstr(report_text(&res, &s, 1, 100.0 * want + 0.1), line) == NULL);
    td_summary_free(&s);
    td_summary_free(&s_all);
    td_result_free(&res);
    td_result_free(&all);
}

/* Two kernels of different time: the application's spread is the root of
 * the sum of (time share x kernel spread)^2. */
static void test_application_spread(void)
{
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = fx_device(&res, "testarch", 0);
    for (int i = 0; i < 4; i++) {
        fx_launch(dev, "k1", 100, kind_a);
        fx_launch(dev, "k1", 100, kind_b);
        fx_unprofiled(dev, "k1", 100);
        fx_launch(dev, "k2", 300, i % 2 ? kind_a : kind_b);
        fx_unprofiled(dev, "k2", 300);
    }
    td_summary s;
    CHECK(summarize(&res, &s) == 0);
    CHECK(s.n_kernels == 2);
    const td_kernel_summary *k2 = &s.kernels[0], *k1 = &s.kernels[1];
    int node = td_model_find(&s.models[0], "Frontend");
    double w1 = k1->total_ns / s.total_ns, w2 = k2->total_ns / s.total_ns;
    CHECK_NEAR(w1, 1.0 / 3.0, 1e-12);
    double want = hypot(w1 * k1->spread.value[node], w2 * k2->spread.value[node]);
    CHECK(k1->spread.value[node] > 0 && k2->spread.value[node] > 0);
    CHECK_NEAR(s.app_spread.value[node], want, 1e-12);
    td_summary_free(&s);
    td_result_free(&res);
}

/* The counter groups of the replay-free H200 run: bootstrap spreads. */
static void test_groups_bootstrap(void)
{
    char path[1024];
    td_error err;
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    td_result res;
    CHECK(td_result_load(path, &res, &err) == 0);
    td_summary s1, s2;
    CHECK(summarize(&res, &s1) == 0 && summarize(&res, &s2) == 0);
    size_t multiplexed = 0, some_spread = 0;
    for (size_t k = 0; k < s1.n_kernels; k++) {
        const td_kernel_summary *ks = &s1.kernels[k];
        if (!ks->has_data)
            continue;
        multiplexed += ks->multiplexed;
        const td_model *m = &s1.models[ks->model];
        for (int n = 0; n < m->n_tree; n++) {
            double v = ks->spread.value[n];
            /* 95% intervals of 5 launches a group: sgemm's reach 4 points */
            CHECK(v >= 0 && v < 0.05 && isfinite(v));
            some_spread += v > 0;
        }
        CHECK(memcmp(&ks->spread, &s2.kernels[k].spread, sizeof ks->spread) == 0);
    }
    CHECK(multiplexed >= 9);
    CHECK(some_spread > 0); /* the resamples differ */
    CHECK(memcmp(&s1.app_spread, &s2.app_spread, sizeof s1.app_spread) == 0);
    /* the same text twice, spreads shown */
    char *first = strdup(report_text(&res, &s1, 4, 0));
    CHECK(first && strcmp(first, report_text(&res, &s2, 4, 0)) == 0);
    CHECK(first && strstr(first, " +-") != NULL);
    free(first);
    td_summary_free(&s1);
    td_summary_free(&s2);
    td_result_free(&res);
}

/* --spread-threshold on the command line: 0 shows every spread; a value
 * outside 0..100 points is a usage error. */
static void test_cli(const char *dir)
{
    char args[1400];
    fx_output r;
    const char *file = "tests/fixtures/h200/h200_bench_groups.topdown.json";
    snprintf(args, sizeof args, "report '%s/%s' -l 2 --spread-threshold 0 --no-desc",
             getenv("TOPDOWN_REPO_DIR"), file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "% Slots   17.6 +-") != NULL); /* every spread shown */
    snprintf(args, sizeof args, "report '%s/%s' -l 2 --no-desc", getenv("TOPDOWN_REPO_DIR"),
             file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "+-0.0") == NULL); /* under the threshold */
    snprintf(args, sizeof args, "report '%s/%s' --spread-threshold -1",
             getenv("TOPDOWN_REPO_DIR"), file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "--spread-threshold") != NULL);
    snprintf(args, sizeof args, "report '%s/%s' --csv -", getenv("TOPDOWN_REPO_DIR"), file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, ",kernel_function,Retire_lo,Retire_hi,Divergence_lo,"));
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set real;
    fx_load_archs(dir, &archs);
    test_identical_launches();
    test_sampled_launches();
    test_application_spread();
    td_arch_set_free(&archs);
    fx_real_archs(&real);
    archs = real;
    test_groups_bootstrap();
    test_cli(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
