/* NVTX regions in results and reports: the region column of
 * topdown-result/2 written and read back (old files load unchanged, bad
 * columns are refused), the spool's "region" field, one view and one tree
 * per region (report --by-region), and the region columns of the CSVs. */
#include <math.h>

#include "../check.h"
#include "metrics/spool/spool.h"
#include "report/region.h"
#include "report/timeline.h"
#include "td_outputs_testlib.h"

static td_arch_set archs;

static const fx_shares kind_a = {.retire = 0.40, .branch = 0.05, .noinst = 1, .longsb = 2, .wait = 1};
static const fx_shares kind_b = {.retire = 0.10, .branch = 0.05, .noinst = 1, .longsb = 6, .wait = 1};

/* forward: gemm as kind_a x3; backward: gemm as kind_b x2, grad as kind_b
 * x3; then two launches outside any region. */
static void make_result(td_result *res, int with_regions)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, "testarch", 0);
    const char *fwd = with_regions ? td_device_intern(dev, "step/forward") : NULL;
    const char *bwd = with_regions ? td_device_intern(dev, "step/backward (epoch 1)") : NULL;
    for (int i = 0; i < 3; i++)
        fx_launch(dev, "gemm", 1000, kind_a)->region = fwd;
    for (int i = 0; i < 2; i++)
        fx_launch(dev, "gemm", 1000, kind_b)->region = bwd;
    for (int i = 0; i < 3; i++)
        fx_launch(dev, "grad", 2000, kind_b)->region = bwd;
    fx_launch(dev, "copy", 500, kind_a);
    fx_unprofiled(dev, "copy", 500);
}

static double retire_pct(const td_breakdown *b)
{
    double shares[TD_PHASE_WIDTH];
    td_level1_shares(b, shares);
    return shares[0];
}

static const td_kernel_summary *kernel_named(const td_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (strcmp(s->kernels[k].name, name) == 0)
            return &s->kernels[k];
    return NULL;
}

static void test_file_round_trip(const char *dir)
{
    td_result res, back;
    td_error err;
    char path[512];
    make_result(&res, 1);
    snprintf(path, sizeof path, "%s/regions.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    char text[1 << 14];
    fx_slurp(path, text, sizeof text);
    CHECK(strstr(text, "\"regions\":[\"step/forward\",\"step/backward (epoch 1)\"]") != NULL);
    CHECK(strstr(text, "\"region\":[1,1,1,2,2,2,2,2,0,0]") != NULL);
    CHECK(td_result_load(path, &back, &err) == 0);
    const td_device *dev = &back.devices[0];
    CHECK(dev->n_launches == 10);
    CHECK_STR(dev->launches[0].region, "step/forward");
    CHECK_STR(dev->launches[5].region, "step/backward (epoch 1)");
    CHECK(dev->launches[3].region == dev->launches[7].region); /* interned */
    CHECK(dev->launches[8].region == NULL && dev->launches[9].region == NULL);
    td_result_free(&back);

    /* Corrupt columns: a region index past the names, a column alone. */
    char bad[1 << 14], *at;
    snprintf(bad, sizeof bad, "%s", text);
    at = strstr(bad, "\"region\":[1,1,1,2");
    CHECK(at != NULL);
    if (at)
        at[10] = '7';
    CHECK(td_result_parse(bad, strlen(bad), "bad.json", &back, &err) == -1);
    CHECK(strstr(err.msg, "\"region\"") != NULL);
    td_result_free(&back);
    snprintf(bad, sizeof bad, "%s", text);
    at = strstr(bad, "\"regions\"");
    if (at)
        memcpy(at, "\"regionz\"", 9);
    CHECK(td_result_parse(bad, strlen(bad), "bad.json", &back, &err) == -1);
    CHECK(strstr(err.msg, "without \"regions\"") != NULL);
    td_result_free(&back);
    td_result_free(&res);

    /* Without regions: no column, and every launch loads with none. */
    make_result(&res, 0);
    CHECK(td_result_save(path, &res, &err) == 0);
    fx_slurp(path, text, sizeof text);
    CHECK(strstr(text, "region") == NULL);
    CHECK(td_result_load(path, &back, &err) == 0);
    for (size_t i = 0; i < back.devices[0].n_launches; i++)
        CHECK(back.devices[0].launches[i].region == NULL);
    td_result_free(&back);
    td_result_free(&res);
}

static void test_spool_region(void)
{
    static const char spool[] =
        "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\"}\n"
        "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"name\":\"GPU\",\"chip\":\"GH100\","
        "\"cc\":[9,0],\"sm_count\":132,\"arch\":\"gh100\",\"passes\":3,\"metrics\":[\"a\",\"b\"]}\n"
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"corr\":1,\"kernel\":\"k1\","
        "\"grid\":[1,1,1],\"block\":[32,1,1],\"stream\":7,\"region\":\"Lib@solve/iterate\"}\n"
        "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":1,\"corr\":2,\"kernel\":\"k1\","
        "\"grid\":[1,1,1],\"block\":[32,1,1],\"stream\":7}\n"
        "{\"type\":\"end\",\"pid\":7,\"launches\":2,\"profiled\":0}\n";
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(spool, strlen(spool), "t.spool", &res, &sum, &err) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 2);
    if (res.n_devices == 1 && res.devices[0].n_launches == 2) {
        CHECK_STR(res.devices[0].launches[0].region, "Lib@solve/iterate");
        CHECK(res.devices[0].launches[1].region == NULL);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

static void test_region_set(void)
{
    td_result res;
    td_error err;
    make_result(&res, 1);
    td_region_set set;
    CHECK(td_region_set_build(&res, &archs, NULL, &set, &err) == 0);
    CHECK(set.n == 3);
    if (set.n == 3) {
        CHECK_STR(set.names[0], "step/forward");
        CHECK_STR(set.names[1], "step/backward (epoch 1)");
        CHECK(set.names[2] == NULL);
        CHECK(set.summaries[0].launches == 3);
        CHECK(set.summaries[1].launches == 5);
        CHECK(set.summaries[2].launches == 2);
        /* gemm in each region is modelled over that region's launches. */
        const td_kernel_summary *fwd = kernel_named(&set.summaries[0], "gemm");
        const td_kernel_summary *bwd = kernel_named(&set.summaries[1], "gemm");
        CHECK(fwd && bwd);
        if (fwd && bwd) {
            CHECK_NEAR(retire_pct(&fwd->mean), 40.0, 0.01);
            CHECK_NEAR(retire_pct(&bwd->mean), 10.0, 0.01);
        }
        CHECK(kernel_named(&set.summaries[0], "grad") == NULL);
        CHECK_NEAR(set.summaries[1].total_ns, 8000, 1e-6);
    }
    td_region_set_free(&set);
    td_result_free(&res);
}

static void test_cli(const char *dir)
{
    static fx_output r;
    td_result res;
    td_error err;
    char path[512], env[600], args[1600];
    make_result(&res, 1);
    snprintf(path, sizeof path, "%s/cli.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
    snprintf(env, sizeof env, "TOPDOWN_ARCHS='%s/archs'", dir);

    snprintf(args, sizeof args, "report '%s' --by-region --no-desc", path);
    fx_run(dir, env, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "=== NVTX region 1/3: step/forward | 3 launches, 0.003 ms, 25.0% of GPU time ===") != NULL);
    CHECK(strstr(r.out, "=== NVTX region 2/3: step/backward (epoch 1) | 5 launches, 0.008 ms, 66.7% of GPU time ===") != NULL);
    CHECK(strstr(r.out, "=== NVTX region 3/3: (no NVTX region) | 2 launches") != NULL);
    CHECK(td_count(r.out, "topdown " TOPDOWN_VERSION " | ") == 1); /* the header once */
    CHECK(td_count(r.out, "Application: ") == 3);  /* a tree per region */
    const char *fwd = strstr(r.out, "NVTX region 1/3"), *bwd = strstr(r.out, "NVTX region 2/3");
    CHECK(fwd && bwd && fwd < bwd);

    /* --csv: one row per region and kernel, and each region's app row. */
    snprintf(args, sizeof args, "report '%s' --by-region --csv '%s/k.csv'", path, dir);
    fx_run(dir, env, args, &r);
    CHECK(r.status == 0);
    char csv[1 << 14], file[600];
    snprintf(file, sizeof file, "%s/k.csv", dir);
    fx_slurp(file, csv, sizeof csv);
    const char *eol = strchr(csv, '\n');
    CHECK(eol && eol - 7 >= csv && strncmp(eol - 7, ",region", 7) == 0);
    CHECK(strstr(csv, "\ngemm,3,3,") != NULL);
    CHECK(strstr(csv, "\ngemm,2,2,") != NULL);
    CHECK(td_count(csv, ",step/backward (epoch 1)\n") == 3); /* gemm, grad, app */
    CHECK(td_count(csv, "<application>") == 3);

    /* --csv-launches: a region column when the result has regions. */
    snprintf(args, sizeof args, "report '%s' --csv-launches '%s/l.csv'", path, dir);
    fx_run(dir, env, args, &r);
    CHECK(r.status == 0);
    snprintf(file, sizeof file, "%s/l.csv", dir);
    fx_slurp(file, csv, sizeof csv);
    CHECK(td_count(csv, ",step/forward\n") == 3);
    eol = strchr(csv, '\n');
    CHECK(eol && strncmp(eol - 7, ",region", 7) == 0);

    snprintf(args, sizeof args, "report '%s' --by-region --json", path);
    fx_run(dir, env, args, &r);
    CHECK(r.status != 0 && strstr(r.err, "--by-region") != NULL);

    /* A result without regions: one region, and no CSV column. */
    make_result(&res, 0);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
    snprintf(args, sizeof args, "report '%s' --by-region --csv-launches '%s/l.csv' -f", path, dir);
    fx_run(dir, env, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "=== NVTX region 1/1: (no NVTX region) | 10 launches") != NULL);
    fx_slurp(file, csv, sizeof csv);
    CHECK(strstr(csv, "region") == NULL);
}

/* The profiling options are checked before any app runs (no GPU needed):
 * exit 2 and a line naming the problem. */
static void test_option_errors(const char *dir)
{
    static fx_output r;
    fx_run(dir, NULL, "--nvtx-include 'a//b' -- /bin/true", &r);
    CHECK(r.status == 2);
    CHECK(strstr(r.err, "NVTX filter 'a//b': a range name is empty") != NULL);
    fx_run(dir, NULL, "--nvtx-exclude 'x@y@z/' -- /bin/true", &r);
    CHECK(r.status == 2 && strstr(r.err, "two '@'") != NULL);
    fx_run(dir, NULL, "--sample-every 5min -- /bin/true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--sample-every needs") != NULL);
    fx_run(dir, NULL, "report x.json --nvtx-include a/", &r);
    CHECK(r.status == 2 && strstr(r.err, "for profiling") != NULL);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    fx_load_archs(dir, &archs);
    test_file_round_trip(dir);
    test_spool_region();
    test_region_set();
    test_cli(dir);
    test_option_errors(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
