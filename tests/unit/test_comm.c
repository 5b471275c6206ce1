/* Communication kernels (issue 41 item 2): NCCL and NVSHMEM kernels are
 * recognised by name, their share of GPU time is said apart, and their
 * bottleneck (and the app's, where their slots are most of it) gets advice
 * on overlap and balance between ranks, not the compute Fix line. */
#include <stdlib.h>
#include <sys/stat.h>

#include "../check.h"
#include "report/comm.h"
#include "td_testlib.h"

static char dir[64];

#define LAUNCH(name, ns) "{\"kernel\": \"" name "\", \"duration_ns\": " ns ", \"counters\": {" TD_TEST_COUNTERS(ns) "}}"
#define RESULT(launches)                                                                   \
    "{\"schema\": \"topdown-result/1\", \"app\": {\"argv\": [\"./app\"], \"exit_code\": 0},"  \
    " \"devices\": [{\"arch\": \"testarch\", \"name\": \"Test GPU\","                       \
    "  \"metrics\": [\"smsp__inst_executed.sum\", \"smsp__inst_issued.sum\","               \
    "   \"smsp__thread_inst_executed.sum\", \"sm__cycles_active.sum\", \"gpu__time_duration.sum\"," \
    "   \"s.no_instruction\", \"s.long_scoreboard\", \"s.lg_throttle\", \"s.wait\"],"        \
    "  \"launches\": [" launches "]}]}"

/* NCCL's all-reduce 80% of the time, a compute kernel 20%: the same
 * counters, so both are L1_Bound. */
static const char comm_json[] = RESULT(
    LAUNCH("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "8000") ","
    LAUNCH("void gemm<float>(float const*, int)", "2000"));
/* The same kernels with NCCL 20%: the app's bottleneck is mostly compute. */
static const char compute_json[] = RESULT(
    LAUNCH("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "2000") ","
    LAUNCH("void gemm<float>(float const*, int)", "8000"));

static const char gemm_json[] = RESULT(LAUNCH("void gemm<float>(float const*, int)", "8000"));

static void test_patterns(void)
{
    CHECK(td_comm_library("ncclKernel_AllReduce_RING_LL_Sum_float") != NULL);
    CHECK(strcmp(td_comm_library("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"),
                 "NCCL") == 0);
    CHECK(strcmp(td_comm_library("void onecclx::NCCL_reduce<float>(float*)"), "NCCL") == 0);
    CHECK(strcmp(td_comm_library("nvshmemi_transfer_rma_kernel"), "NVSHMEM") == 0);
    CHECK(strcmp(td_comm_library("void app::put<float>(NvShmem_ctx)"), "NVSHMEM") == 0);
    CHECK(td_comm_library("void gemm<float>(float const*, int)") == NULL);
    CHECK(td_comm_library("vectorized_elementwise_kernel") == NULL);
    CHECK(td_comm_library(NULL) == NULL);
}

static void test_report(void)
{
    td_run_output r;
    td_test_run_topdown(dir, "report comm.json -l 3", &r);
    CHECK(r.status == 0);
    /* the share apart, in the header */
    CHECK(strstr(r.out, "\nComms:    1 NCCL kernel, 1 launch, 0.008 ms: 80.0% of GPU time, "
                        "compute 20.0%\n") != NULL);
    /* the NCCL kernel's bottleneck, and the app's, get communication's advice */
    CHECK(td_count(r.out, "NCCL communication waiting for other ranks") == 2);
    CHECK(strstr(r.out, "Fix: 80% of these slots are NCCL communication") != NULL);
    /* the compute kernel keeps the node's advice, and only it */
    CHECK(td_count(r.out, "Fix: coalesce accesses") == 1);
    const char *gemm = strstr(r.out, "Kernel 2/2: gemm");
    CHECK(gemm && strstr(gemm, "Fix: coalesce accesses") != NULL);

    td_test_run_topdown(dir, "report compute.json -l 3", &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "20.0% of GPU time, compute 80.0%\n") != NULL);
    /* the app's bottleneck is mostly compute: the node's advice */
    CHECK(td_count(r.out, "Fix: coalesce accesses") == 2);
    CHECK(td_count(r.out, "communication waiting for other ranks") == 1);

    /* -k keeps the run's line; a run without communication has none */
    td_test_run_topdown(dir, "report compute.json -l 3 -k gemm", &r);
    CHECK(r.status == 0 && strstr(r.out, "\nComms:    1 NCCL kernel") != NULL);
    td_test_run_topdown(dir, "report gemm.json -l 3", &r);
    CHECK(r.status == 0 && strstr(r.out, "Comms:") == NULL);
    CHECK(strstr(r.out, "Fix: coalesce accesses") != NULL);
}

int main(void)
{
    if (td_test_start_cli(dir, sizeof dir) != 0)
        return 1;
    char path[256];
    td_test_write(dir, "comm.json", comm_json, path, sizeof path);
    td_test_write(dir, "compute.json", compute_json, path, sizeof path);
    td_test_write(dir, "gemm.json", gemm_json, path, sizeof path);
    test_patterns();
    test_report();
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
