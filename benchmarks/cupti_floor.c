/* libcupti_floor.so: what CUPTI itself costs an app, without topdown
 * (issue 23's floor). An injection library like topdown's
 * (CUDA_INJECTION64_PATH), doing only what CUPTI_FLOOR names:
 *
 *   load   nothing: the cost of being injected (CUPTI not even subscribed)
 *   cb     topdown's launch callbacks (topdown/inject/launch_callbacks.h),
 *          each an empty function
 *   act    cb + kernel activity records (CONCURRENT_KERNEL), 1 MB buffers
 *          counted and freed, flushed every 100 ms as topdown does
 *   lock   act + one process-wide mutex held from a launch's enter
 *          callback to its exit: the global lock issue 23 forbids, for
 *          comparison with act on several host threads
 *   rp     act + the Range Profiler enabled on each context at its first
 *          launch (cuptiProfilerInitialize, cuptiRangeProfilerEnable), as
 *          topdown's collector does, no session ever started
 *   init   act + cuptiProfilerInitialize at the first launch, no Range
 *          Profiler enabled: which of the two serialises launching threads
 *   dev    act + cuptiProfilerDeviceSupported at the first launch, nothing
 *          initialised (topdown's set-up asked it of every context)
 *   devctx the same asked in the context-created callback, where topdown
 *          asked it until 32950f0
 *   window rp, then after CUPTI_FLOOR_WINDOW launches (default 1000) the
 *          Range Profiler disabled and CUPTI's profiler deinitialised:
 *          whether the launches after a collection window run at act's cost
 *
 * At exit it says on stderr what it saw ("cupti_floor: act, N launches,
 * M kernel records"), so a run that traced nothing is seen. Not part of
 * topdown: benchmarks/cupti_floor.sh runs it. */
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/inject/launch_callbacks.h"

#define FLOOR_EXPORT __attribute__((visibility("default")))

enum floor_mode { FLOOR_LOAD, FLOOR_CB, FLOOR_ACT, FLOOR_LOCK, FLOOR_RP, FLOOR_INIT, FLOOR_DEV, FLOOR_DEVCTX, FLOOR_WINDOW };
enum { BUFFER_BYTES = 1 << 20, ALIGN = 8 };

static enum floor_mode mode;
static CUpti_SubscriberHandle subscriber;
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long launches;
static atomic_long kernel_records;
/* rp: the last context the Range Profiler was enabled on, and how many */
static _Atomic(CUcontext) enabled_ctx;
static atomic_int enabled_contexts;

static const char *mode_name[] = {"load", "cb", "act", "lock", "rp", "init", "dev", "devctx", "window"};

static int mode_from(const char *word, enum floor_mode *out)
{
    for (size_t i = 0; i < sizeof mode_name / sizeof *mode_name; i++)
        if (word && strcmp(word, mode_name[i]) == 0) {
            *out = (enum floor_mode)i;
            return 0;
        }
    return -1;
}

static void ask_device_supported(void)
{
    CUdevice dev = 0;
    CUpti_Profiler_DeviceSupported_Params sp = {
        .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        return;
    sp.cuDevice = dev;
    sp.api = CUPTI_PROFILER_RANGE_PROFILING;
    cuptiProfilerDeviceSupported(&sp);
}

/* window: the object enabled at the first launch, and whether it was
 * given back */
static CUpti_RangeProfiler_Object *window_object;
static long window_launches = 1000;

static void end_window(void)
{
    static pthread_mutex_t ending = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&ending);
    if (window_object) {
        CUpti_RangeProfiler_Disable_Params d = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        d.pRangeProfilerObject = window_object;
        cuptiRangeProfilerDisable(&d);
        CUpti_Profiler_DeInitialize_Params de = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        cuptiProfilerDeInitialize(&de);
        window_object = NULL;
    }
    pthread_mutex_unlock(&ending);
}

/* rp: the Range Profiler enabled on the launch's context at its first
 * launch (td_tiny has one context; another would be enabled again). */
static void enable_range_profiler(CUcontext ctx)
{
    if (atomic_load_explicit(&enabled_ctx, memory_order_acquire) == ctx)
        return;
    static pthread_mutex_t enabling = PTHREAD_MUTEX_INITIALIZER;
    static int initialized;
    pthread_mutex_lock(&enabling);
    if (atomic_load(&enabled_ctx) != ctx) {
        if (mode == FLOOR_DEV || mode == FLOOR_DEVCTX) {
            if (mode == FLOOR_DEV)
                ask_device_supported();
            atomic_store(&enabled_ctx, ctx);
            pthread_mutex_unlock(&enabling);
            return;
        }
        CUpti_Profiler_Initialize_Params init = {
            .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if (!initialized)
            initialized = cuptiProfilerInitialize(&init) == CUPTI_SUCCESS;
        CUpti_RangeProfiler_Enable_Params p = {
            .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        p.ctx = ctx;
        if (initialized && (mode == FLOOR_RP || mode == FLOOR_WINDOW) &&
            cuptiRangeProfilerEnable(&p) == CUPTI_SUCCESS) {
            atomic_fetch_add(&enabled_contexts, 1);
            if (mode == FLOOR_WINDOW)
                window_object = p.pRangeProfilerObject;
        }
        atomic_store(&enabled_ctx, ctx);
    }
    pthread_mutex_unlock(&enabling);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) { /* devctx: a context was created */
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
            ask_device_supported();
        return;
    }
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        long n = atomic_fetch_add_explicit(&launches, 1, memory_order_relaxed) + 1;
        if (mode == FLOOR_WINDOW && n == window_launches)
            end_window();
        else if (mode >= FLOOR_RP && (mode != FLOOR_WINDOW || n < window_launches))
            enable_range_profiler(cb->context);
        if (mode == FLOOR_LOCK)
            pthread_mutex_lock(&launch_lock);
    } else if (mode == FLOOR_LOCK) {
        pthread_mutex_unlock(&launch_lock);
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(ALIGN, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *record = NULL;
    long kernels = 0;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        kernels += record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    atomic_fetch_add(&kernel_records, kernels);
    free(buffer);
}

static void at_exit(void)
{
    if (mode >= FLOOR_ACT)
        cuptiActivityFlushAll(1);
    fprintf(stderr, "cupti_floor: %s, %ld launches, %ld kernel records, Range Profiler on %d "
            "contexts\n", mode_name[mode], atomic_load(&launches), atomic_load(&kernel_records),
            atomic_load(&enabled_contexts));
}

static int start_activity(void)
{
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
        return -1;
    /* topdown's period: records arrive while the app runs */
    cuptiActivityFlushPeriod(100);
    return 0;
}

FLOOR_EXPORT int InitializeInjection(void)
{
    if (mode_from(getenv("CUPTI_FLOOR"), &mode) != 0) {
        fprintf(stderr, "cupti_floor: CUPTI_FLOOR must be load, cb, act, lock, rp, init, dev, devctx or window; nothing done\n");
        return 1;
    }
    atexit(at_exit);
    if (mode == FLOOR_LOAD)
        return 1;
    if (cuptiSubscribe(&subscriber, on_callback, NULL) != CUPTI_SUCCESS) {
        fprintf(stderr, "cupti_floor: cuptiSubscribe failed\n");
        return 1;
    }
    for (size_t i = 0; i < TD_N_LAUNCH_CALLBACKS; i++)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, td_launch_callbacks[i]);
    if (mode == FLOOR_DEVCTX)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    const char *window = getenv("CUPTI_FLOOR_WINDOW");
    if (window && atol(window) > 0)
        window_launches = atol(window);
    if (mode >= FLOOR_ACT && start_activity() != 0)
        fprintf(stderr, "cupti_floor: kernel activity records unavailable\n");
    return 1;
}
