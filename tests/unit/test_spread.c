/* Each node's spread (levels/spread.h), in the summary and the text:
 * identical launches have spread 0 and leave the text as it was; two
 * alternating launch kinds give the standard error computed by hand; the
 * counter groups of a real H200 run give small, reproducible bootstrap
 * spreads; a bottleneck within its rival's spread is marked as such. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/spread.h"
#include "report/text.h"
#include "td_outputs_testlib.h"

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
    td_error err;
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return strcpy(text, "");
    CHECK(td_report_text(f, res, s, &o, &err) == 0);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
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
    int all_zero = 1;
    for (int n = 0; n < TD_TREE_MAX; n++)
        all_zero &= ks->spread.value[n] == 0.0 && s.app_spread.value[n] == 0.0;
    CHECK(all_zero);
    CHECK(ks->spread.unattributed == 0.0);
    /* the default text carries no spread and no within-spread marker */
    const char *text = report_text(&res, &s, 4, TD_SPREAD_THRESHOLD_DEFAULT);
    CHECK(strstr(text, "+-") == NULL);
    CHECK(strstr(text, "within spread") == NULL);
    CHECK(strstr(text, "<==") != NULL);
    /* threshold 0 shows every spread, here 0.0 */
    text = report_text(&res, &s, 1, 0);
    CHECK(strstr(text, "% Slots   20.0 +-0.0\n") != NULL);
    td_summary_free(&s);
    td_result_free(&res);
}

/* One launch's model, for the hand computation. */
static td_breakdown launch_model(const td_summary *s, const td_launch *l)
{
    td_breakdown b;
    td_error err;
    CHECK(td_model_launch(&s->models[0], &s->bindings[0], l, &b, &err) == 0);
    return b;
}

/* pairs launches of each kind, durations da and db, alternating: the
 * standard error of the duration-weighted mean of node value x. */
static double hand_standard_error(double a, double b, double da, double db, int pairs)
{
    double mean = (da * a + db * b) / (da + db);
    double var = (da * (a - mean) * (a - mean) + db * (b - mean) * (b - mean)) / (da + db);
    double w = pairs * (da + db), w2 = pairs * (da * da + db * db);
    double n_eff = w * w / w2;
    return sqrt(var / (n_eff - 1.0));
}

static void test_alternating_launches(void)
{
    const double da = 100, db = 300;
    const int pairs = 5;
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = fx_device(&res, "testarch", 0);
    for (int i = 0; i < pairs; i++) {
        fx_launch(dev, "alt", da, kind_a);
        fx_launch(dev, "alt", db, kind_b);
    }
    td_summary s;
    CHECK(summarize(&res, &s) == 0);
    const td_model *m = &s.models[0];
    td_breakdown a = launch_model(&s, &dev->launches[0]);
    td_breakdown b = launch_model(&s, &dev->launches[1]);
    const td_kernel_summary *ks = &s.kernels[0];
    int retire = td_model_find(m, "Retire"), l1 = td_model_find(m, "Backend.Memory_Bound.L1_Bound");
    CHECK(retire >= 0 && l1 >= 0);
    double want = hand_standard_error(a.value[retire], b.value[retire], da, db, pairs);
    CHECK(want > 0.01); /* the launch kinds differ: a spread of points */
    CHECK_NEAR(ks->spread.value[retire], want, 1e-9);
    CHECK_NEAR(ks->spread.value[l1], hand_standard_error(a.value[l1], b.value[l1], da, db, pairs),
               1e-9);
    /* one kernel: the application's spread is the kernel's */
    CHECK_NEAR(s.app_spread.value[retire], want, 1e-12);
    /* the text shows it over the threshold, as "+-P" */
    char line[128];
    snprintf(line, sizeof line, "%6.1f +-%.1f", 100.0 * ks->mean.value[retire], 100.0 * want);
    CHECK(strstr(report_text(&res, &s, 1, TD_SPREAD_THRESHOLD_DEFAULT), line) != NULL);
    CHECK(strstr(report_text(&res, &s, 1, 100.0 * want + 0.1), line) == NULL);
    td_summary_free(&s);
    td_result_free(&res);
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
        fx_launch(dev, "k2", 300, i % 2 ? kind_a : kind_b);
    }
    td_summary s;
    CHECK(summarize(&res, &s) == 0);
    CHECK(s.n_kernels == 2);
    const td_kernel_summary *k2 = &s.kernels[0], *k1 = &s.kernels[1];
    int node = td_model_find(&s.models[0], "Frontend");
    double w1 = k1->total_ns / s.total_ns, w2 = k2->total_ns / s.total_ns;
    CHECK_NEAR(w1, 0.4, 1e-12);
    double want = hypot(w1 * k1->spread.value[node], w2 * k2->spread.value[node]);
    CHECK(k1->spread.value[node] > 0 && k2->spread.value[node] > 0);
    CHECK_NEAR(s.app_spread.value[node], want, 1e-12);
    td_summary_free(&s);
    td_result_free(&res);
}

/* Frontend and Backend close, the launches far apart: the bottleneck is
 * marked as within its rival's spread; well apart, it is not. */
static void test_within_spread_marker(void)
{
    const fx_shares fe = {.retire = 0.2, .noinst = 6, .longsb = 2};
    const fx_shares be = {.retire = 0.2, .noinst = 2, .longsb = 6};
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = fx_device(&res, "testarch", 0);
    for (int i = 0; i < 4; i++) {
        fx_launch(dev, "close", 100, fe);
        fx_launch(dev, "close", 101, be);
        fx_launch(dev, "apart", 10, be);
        fx_launch(dev, "apart", 10, be);
    }
    td_summary s;
    CHECK(summarize(&res, &s) == 0);
    const char *text = report_text(&res, &s, 1, TD_SPREAD_THRESHOLD_DEFAULT);
    /* past 100 columns, the runner-up goes under the line */
    CHECK(strstr(text, "% Slots   40.1 +-7.6  <==\n        (within spread of Frontend)\n") != NULL);
    const char *apart = strstr(text, "Kernel 2/2: apart");
    CHECK(apart != NULL && strstr(apart, "within spread") == NULL);
    CHECK(apart != NULL && strstr(apart, "<==\n") != NULL);
    const td_kernel_summary *close = &s.kernels[0];
    int backend = td_model_find(&s.models[0], "Backend");
    int frontend = td_model_find(&s.models[0], "Frontend");
    CHECK(close->verdict.bottleneck[1] == backend);
    CHECK(td_spread_rival(&s.models[0], &close->mean, &close->spread, &close->verdict,
                          backend) == frontend);
    td_breakdown none;
    memset(&none, 0, sizeof none);
    CHECK(td_spread_rival(&s.models[0], &close->mean, &none, &close->verdict, backend) == -1);
    td_summary_free(&s);
    td_result_free(&res);
}

/* The counter groups of the replay-free H200 run: bootstrap spreads. */
static void test_groups_bootstrap(void)
{
    char path[1024];
    td_error err;
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json",
             getenv("TOPDOWN_SOURCE_DIR"));
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
            CHECK(v >= 0 && v < 0.02 && isfinite(v));
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
             getenv("TOPDOWN_SOURCE_DIR"), file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "% Slots   17.6 +-0.0\n") != NULL);
    snprintf(args, sizeof args, "report '%s/%s' -l 2 --no-desc", getenv("TOPDOWN_SOURCE_DIR"),
             file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "+-") == NULL);
    snprintf(args, sizeof args, "report '%s/%s' --spread-threshold -1",
             getenv("TOPDOWN_SOURCE_DIR"), file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "--spread-threshold") != NULL);
    snprintf(args, sizeof args, "report '%s/%s' --csv -", getenv("TOPDOWN_SOURCE_DIR"), file);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, ",kernel_function,Retire_spread,Divergence_spread,"));
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set real;
    fx_load_archs(dir, &archs);
    test_identical_launches();
    test_alternating_launches();
    test_application_spread();
    test_within_spread_marker();
    td_arch_set_free(&archs);
    fx_real_archs(&real);
    archs = real;
    test_groups_bootstrap();
    test_cli(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
