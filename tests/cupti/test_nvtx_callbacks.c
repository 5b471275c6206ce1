/* The injection library's NVTX bookkeeping (topdown/inject/nvtx.c) fed
 * with the callback data CUPTI hands it (CUpti_NvtxData and the parameter
 * structs of generated_nvtx_meta.h), no GPU: push/pop per thread and
 * domain, the Ex forms' ASCII, wide and registered messages, domain names,
 * start/end ranges by id, the regions launches get and the filter; where
 * NVTX_INJECTION64_PATH points. How CUPTI really delivers them is
 * tests/gpu/test_nvtx.c's job. */
#include "../../topdown/inject/nvtx.c"
#include "../../topdown/inject/spool_writer.c" /* closed: warnings go nowhere */
#include "../../topdown/inject/debug.c"        /* td_debug_init not called: debugging off */

#include <pthread.h>

#include "../check.h"

static void call(CUpti_CallbackId cbid, const void *params, const void *ret)
{
    CUpti_NvtxData data = {"nvtx", params, ret};
    td_nvtx_callback(cbid, &data);
}

static void app_push(const char *name)
{
    nvtxRangePushA_params p = {name};
    call(CUPTI_CBID_NVTX_nvtxRangePushA, &p, NULL);
}

static void app_pop(void)
{
    nvtxRangePop_params p = {NULL};
    call(CUPTI_CBID_NVTX_nvtxRangePop, &p, NULL);
}

static const char *region(int *allowed)
{
    int ok = -1;
    const char *r = td_nvtx_launch_region(&ok);
    if (allowed)
        *allowed = ok;
    return r;
}

static nvtxEventAttributes_t attributes(int type)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = type;
    return a;
}

static void *other_thread(void *arg)
{
    const char **out = arg;
    app_push("worker");
    out[0] = region(NULL);
    app_pop();
    out[1] = region(NULL);
    return NULL;
}

/* Issue 24: NVTX must name the libcupti topdown's calls reach (here the
 * one this test is linked with), not another copy of it (PyTorch's wheel
 * brings its own); a user's own NVTX tool is kept. */
static void check_injection_path(void)
{
    Dl_info info;
    char ours[PATH_MAX];
    CHECK(dladdr((const void *)(uintptr_t)cuptiSubscribe, &info) && info.dli_fname);
    CHECK(realpath(info.dli_fname, ours) != NULL);
    setenv("NVTX_INJECTION64_PATH", "/nonexistent/other/libcupti.so.13", 1);
    point_nvtx_at_our_cupti();
    CHECK_STR(getenv("NVTX_INJECTION64_PATH"), ours);
    point_nvtx_at_our_cupti(); /* the same file: kept */
    CHECK_STR(getenv("NVTX_INJECTION64_PATH"), ours);
    setenv("NVTX_INJECTION64_PATH", "/opt/tool/libmytool.so", 1);
    point_nvtx_at_our_cupti();
    CHECK_STR(getenv("NVTX_INJECTION64_PATH"), "/opt/tool/libmytool.so");
    unsetenv("NVTX_INJECTION64_PATH");
    point_nvtx_at_our_cupti();
    CHECK(getenv("NVTX_INJECTION64_PATH") == NULL);
}

int main(void)
{
    check_injection_path();
    char msg[256];
    CHECK(td_nvtx_setup("step/forward/\nSolver@iterate]", "epoch 1", msg, sizeof msg) == 0);
    CHECK(td_nvtx_filtering());

    int allowed;
    CHECK(region(&allowed) == NULL);
    CHECK(allowed == 0); /* an include is given, no range open */

    /* Nested push/pop, the Ex form with an ASCII and a wide message. */
    app_push("step");
    app_push("forward");
    CHECK_STR(region(&allowed), "step/forward");
    CHECK(allowed == 1);
    app_pop();
    nvtxEventAttributes_t bwd = attributes(NVTX_MESSAGE_TYPE_UNICODE);
    bwd.message.unicode = L"backward";
    nvtxRangePushEx_params ex = {&bwd};
    call(CUPTI_CBID_NVTX_nvtxRangePushEx, &ex, NULL);
    CHECK_STR(region(&allowed), "step/backward");
    CHECK(allowed == 0);
    app_pop();
    app_pop();
    app_pop(); /* one pop too many (pushed before CUPTI attached): ignored */
    CHECK(region(NULL) == NULL);

    /* A domain, a registered string, the domain's own stack. */
    nvtxDomainHandle_t solver = (nvtxDomainHandle_t)(uintptr_t)0x1000;
    nvtxDomainCreateA_params create = {"Solver"};
    call(CUPTI_CBID_NVTX_nvtxDomainCreateA, &create, &solver);
    nvtxStringHandle_t iterate = (nvtxStringHandle_t)(uintptr_t)0x2000;
    nvtxDomainRegisterStringA_params reg = {solver, "iterate"};
    call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, &reg, &iterate);
    nvtxEventAttributes_t it = attributes(NVTX_MESSAGE_TYPE_REGISTERED);
    it.message.registered = iterate;
    nvtxDomainRangePushEx_params dpush = {solver, {&it}};
    call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &dpush, NULL);
    app_push("outer");
    CHECK_STR(region(&allowed), "outer Solver@iterate");
    CHECK(allowed == 1); /* Solver@iterate] */

    /* Start/end ranges: process-wide, ended by id. */
    nvtxRangeId_t id1 = 41, id2 = 42;
    nvtxRangeStartA_params s1 = {"epoch 1"};
    call(CUPTI_CBID_NVTX_nvtxRangeStartA, &s1, &id1);
    nvtxEventAttributes_t warm = attributes(NVTX_MESSAGE_TYPE_ASCII);
    warm.message.ascii = "warmup";
    nvtxDomainRangeStartEx_params s2 = {solver, {&warm}};
    call(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, &s2, &id2);
    CHECK_STR(region(&allowed), "outer Solver@iterate (epoch 1) (Solver@warmup)");
    CHECK(allowed == 0); /* excluded: epoch 1 */

    /* Another thread: its own (empty) stack, the same start/end ranges. */
    const char *seen[2] = {NULL, NULL};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, seen) == 0);
    pthread_join(t, NULL);
    CHECK_STR(seen[0], "worker (epoch 1) (Solver@warmup)");
    CHECK_STR(seen[1], "(epoch 1) (Solver@warmup)");

    nvtxRangeEnd_params e1 = {id1};
    call(CUPTI_CBID_NVTX_nvtxRangeEnd, &e1, NULL);
    nvtxDomainRangeEnd_params e2 = {solver, {id2}};
    call(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, &e2, NULL);
    CHECK_STR(region(NULL), "outer Solver@iterate");
    nvtxDomainRangePop_params dpop = {solver};
    call(CUPTI_CBID_NVTX_nvtxDomainRangePop, &dpop, NULL);
    app_pop();
    CHECK(region(NULL) == NULL);

    /* A domain CUPTI never saw created: named by its handle. */
    nvtxEventAttributes_t x = attributes(NVTX_MESSAGE_TYPE_ASCII);
    x.message.ascii = "x";
    nvtxDomainRangePushEx_params unknown = {(nvtxDomainHandle_t)(uintptr_t)0x3000, {&x}};
    call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &unknown, NULL);
    const char *r = region(NULL);
    CHECK(r && strncmp(r, "domain 0x3000@x", 15) == 0);
    /* Names are interned: the same region is the same pointer. */
    CHECK(region(NULL) == r);

    /* A bad filter is refused with its message. */
    td_nvtx_filter_free(&nv.filter);
    CHECK(td_nvtx_setup("a//b", "epoch 1", msg, sizeof msg) == -1);
    CHECK(strstr(msg, "NVTX filter 'a//b'") != NULL);
    CHECK(!td_nvtx_filtering());
    return td_check_summary();
}
