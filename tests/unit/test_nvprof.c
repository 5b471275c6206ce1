/* Legacy GPUs: nvprof CSV -> result -> model, with the level-2 tree of
 * MODEL.md section 5. The CSV text is hand-made in nvprof's layout. */
#include <stdlib.h>
#include <sys/stat.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "metrics/arch/nvprof.h"
#include "td_testlib.h"

#define ROW(kernel, inv, metric, value) \
    "\"Tesla P100-PCIE-16GB (0)\",\"" kernel "\"," inv ",\"" metric "\",\"Desc, with comma\"," value "," value "," value "\n"

static const char metrics_csv[] =
    "==123== NVPROF is profiling process 123, command: ./app\n"
    "==123== Profiling result:\n"
    "==123== Metric result:\n"
    "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
    ROW("k1(float*, int)", "2", "ipc", "2.000000")
    ROW("k1(float*, int)", "2", "issued_ipc", "2.200000")
    ROW("k1(float*, int)", "2", "warp_execution_efficiency", "75.00%")
    ROW("k1(float*, int)", "2", "stall_inst_fetch", "10.00%")
    ROW("k1(float*, int)", "2", "stall_memory_dependency", "60.00%")
    ROW("k1(float*, int)", "2", "stall_exec_dependency", "20.00%")
    ROW("k1(float*, int)", "2", "stall_not_selected", "10.00%")
    ROW("k2()", "1", "ipc", "1.000000")
    ROW("k2()", "1", "issued_ipc", "1.000000")
    ROW("k2()", "1", "warp_execution_efficiency", "100.00%")
    ROW("k2()", "1", "stall_inst_fetch", "50.00%")
    ROW("k2()", "1", "stall_memory_dependency", "0.00%")
    ROW("k2()", "1", "stall_exec_dependency", "50.00%");

static const char times_csv[] =
    "==123== Profiling result:\n"
    "\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\",\"Min\",\"Max\",\"Name\"\n"
    ",%,ms,,ms,ms,ms,\n"
    "\"GPU activities\",75.0,3.000000,2,1.5,1.5,1.5,\"k1(float*, int)\"\n"
    "\"GPU activities\",25.0,1.000000,1,1.0,1.0,1.0,\"k2()\"\n"
    "\"GPU activities\",1.0,0.010000,1,0.01,0.01,0.01,\"[CUDA memcpy HtoD]\"\n";

/* One kernel on a range-profiler device and on a legacy one: its mean
 * keeps only levels 1-2, which both tables have. */
static void test_mixed_tables(const char *archs_dir, const char *scratch)
{
    char path[256];
    td_error err;
    td_test_write(archs_dir, "testarch.json", td_test_arch_json, path, sizeof path);
    td_arch_set set;
    CHECK(td_arch_load_dir(archs_dir, &set, &err) == 0);
    td_result res = {0};
    double mc[] = {2000, 2200, 48000, 1000, 1, 100, 240, 60, 100};
    double lc[] = {2, 2.2, 75, 10, 60, 20};
    td_device *a = td_result_add_device(&res, &err);
    a->arch = td_strdup("testarch");
    td_device_set_metrics(a, td_test_metric_names, 9, &err);
    td_device_add_launch(a, "k", mc, &err)->duration_ns = 1;
    td_device *b = td_result_add_device(&res, &err);
    b->arch = td_strdup("legacy");
    td_device_set_metrics(b, td_test_legacy_metric_names, 6, &err);
    td_device_add_launch(b, "k", lc, &err)->duration_ns = 1;
    td_summary s;
    CHECK(td_summarize(&res, &set, NULL, &s, &err) == 0);
    CHECK(s.mixed_arch && s.n_kernels == 1 && s.kernels[0].mixed_arch);
    CHECK(s.kernels[0].mean.n_stalls == 0 && s.app.n_stalls == 0);
    CHECK(s.kernels[0].mean.node[TD_N_L1_BOUND] == 0);
    CHECK_NEAR(s.kernels[0].mean.node[TD_N_RETIRE], 0.375, 1e-9);
    CHECK_NEAR(s.kernels[0].mean.node[TD_N_BACKEND], (0.36 + 0.4) / 2, 1e-9);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&set);
    (void)scratch;
}

int main(void)
{
    char dir[64], archs_dir[128], path[256], mpath[256], tpath[256];
    td_error err;
    td_test_tmpdir(dir, sizeof dir);
    snprintf(archs_dir, sizeof archs_dir, "%s/archs", dir);
    mkdir(archs_dir, 0700);
    td_test_write(archs_dir, "legacy.json", td_test_legacy_arch_json, path, sizeof path);
    td_test_write(dir, "metrics.csv", metrics_csv, mpath, sizeof mpath);
    td_test_write(dir, "times.csv", times_csv, tpath, sizeof tpath);
    td_arch_set set;
    CHECK(td_arch_load_dir(archs_dir, &set, &err) == 0);
    td_result res;
    CHECK(td_nvprof_import(mpath, tpath, &set.items[0], &res, &err) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 3);
    CHECK_NEAR(res.devices[0].launches[0].duration_ns, 1.5e6, 1e-6);
    td_summary s;
    CHECK(td_summarize(&res, &set, NULL, &s, &err) == 0);
    CHECK_STR(s.kernels[0].name, "k1(float*, int)");
    const td_breakdown *k1 = &s.kernels[0].mean;
    CHECK_NEAR(k1->node[TD_N_RETIRE], 0.375, 1e-9);
    CHECK_NEAR(k1->node[TD_N_REPLAY], 0.05, 1e-9);
    CHECK_NEAR(k1->node[TD_N_FETCH], 0.45 * 10 / 90, 1e-9); /* not_selected left out */
    CHECK_NEAR(k1->node[TD_N_MEMORY_BOUND], 0.45 * 60 / 90, 1e-9);
    CHECK_NEAR(k1->node[TD_N_BACKEND], 0.45 * 80 / 90, 1e-9);
    CHECK(td_bottleneck(&s.models[0], k1, 2) == TD_N_MEMORY_BOUND);
    /* No level-3 nodes: the stall metrics come right below level 2. */
    CHECK(td_bottleneck(&s.models[0], k1, 3) == td_model_stall_index(&s.models[0], 1));
    /* App: k1 weighs 3 ms, k2 1 ms. */
    CHECK_NEAR(s.app.node[TD_N_RETIRE], (0.375 * 3 + 0.25 * 1) / 4, 1e-9);
    td_summary_free(&s);
    td_result_free(&res);

    /* Bad inputs: a missing metric, a file that is not nvprof's. */
    const char *lacking = "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
                          ROW("k1()", "1", "ipc", "2.0");
    td_test_write(dir, "lacking.csv", lacking, mpath, sizeof mpath);
    CHECK(td_nvprof_import(mpath, NULL, &set.items[0], &res, &err) == -1);
    CHECK(strstr(err.msg, "lacks metric") != NULL);
    td_test_write(dir, "junk.csv", "hello\nworld\n", mpath, sizeof mpath);
    CHECK(td_nvprof_import(mpath, NULL, &set.items[0], &res, &err) == -1);
    CHECK(strstr(err.msg, "no nvprof metric table") != NULL);
    CHECK(td_nvprof_import("/nonexistent.csv", NULL, &set.items[0], &res, &err) == -1);
    /* Issue 10, item 5: a claimed count is no licence to allocate: 1e7
     * invocations in a small file, a count that is not one, and a total over
     * the bound are refused, not turned into launches. */
    static const char header[] = "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\","
                                 "\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n";
    char huge[4096];
    snprintf(huge, sizeof huge, "%s" ROW("k()", "10000000", "ipc", "1.0")
             ROW("k()", "10000000", "issued_ipc", "1.0")
             ROW("k()", "10000000", "warp_execution_efficiency", "100%%")
             ROW("k()", "10000000", "stall_inst_fetch", "1%%")
             ROW("k()", "10000000", "stall_memory_dependency", "1%%")
             ROW("k()", "10000000", "stall_exec_dependency", "1%%"), header);
    td_test_write(dir, "huge.csv", huge, mpath, sizeof mpath);
    CHECK(td_nvprof_import(mpath, NULL, &set.items[0], &res, &err) == -1);
    CHECK(strstr(err.msg, "Invocations") != NULL);
    snprintf(huge, sizeof huge, "%s" ROW("k()", "12abc", "ipc", "1.0"), header);
    td_test_write(dir, "notcount.csv", huge, mpath, sizeof mpath);
    CHECK(td_nvprof_import(mpath, NULL, &set.items[0], &res, &err) == -1);
    CHECK(strstr(err.msg, "12abc") != NULL);
    char *many = malloc(1 << 16);
    size_t used = (size_t)snprintf(many, 1 << 16, "%s", header);
    for (int k = 0; k < 3; k++)
        for (int m = 3; m < 6; m++)
            used += (size_t)snprintf(many + used, (1 << 16) - used,
                                     "\"Tesla P100 (0)\",\"k%d()\",600000,\"%s\",\"d\",1,1,1\n", k,
                                     td_test_legacy_metric_names[m]);
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 3; m++)
            used += (size_t)snprintf(many + used, (1 << 16) - used,
                                     "\"Tesla P100 (0)\",\"k%d()\",600000,\"%s\",\"d\",1,1,1\n", k,
                                     td_test_legacy_metric_names[m]);
    td_test_write(dir, "many.csv", many, mpath, sizeof mpath);
    free(many);
    CHECK(td_nvprof_import(mpath, NULL, &set.items[0], &res, &err) == -1);
    CHECK(strstr(err.msg, "invocations in all") != NULL);
    td_arch_set_free(&set);
    test_mixed_tables(archs_dir, mpath);
    td_test_cleanup(dir);
    return td_check_summary();
}
