/* libtopdown_inject.so: loaded into the app by the CUDA driver through
 * CUDA_INJECTION64_PATH. It sees every kernel launch through CUPTI driver
 * callbacks, profiles the chosen ones with the Range Profiler (one profiler
 * per context), times all of them with the activity API, and writes what it
 * learns to the spool its options name (TOPDOWN_COLLECT, docs/COLLECTION.md).
 * It never stops the app: problems become error records in the spool. */
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topdown/inject/activity.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/device_heap.h"
#include "topdown/inject/budget.h"
#include "topdown/inject/collect_opts.h"
#include "topdown/inject/contexts.h"
#include "topdown/inject/emit.h"
#include "topdown/inject/exit.h"
#include "topdown/inject/graphs.h"
#include "topdown/inject/launch_callbacks.h"
#include "topdown/inject/launch_gate.h"
#include "topdown/inject/measure_policy.h"
#include "topdown/inject/measured_launch.h"
#include "topdown/inject/probe.h"
#include "topdown/inject/kernels.h"
#include "topdown/inject/nvtx.h"
#include "topdown/inject/pcsampling.h"
#include "metrics/spool/spool.h"
#include "topdown/inject/spool_writer.h"
#include "topdown/inject/state.h"
#include "topdown/inject/window.h"

#define TD_EXPORT __attribute__((visibility("default")))
/* DEFAULT_BATCH: kernel-replay launches per profiler session. With 64,
 * td_phases2 died in libcupti's own thread at exit (H100, CUPTI 13.0, also
 * at 1eb6641); with one a session it never did. The likely cause, a batch
 * decoded at exit after libnvperf_host's destructors, is what
 * register_exit_after_cupti removes; one a session stays the default until
 * a GPU run shows more is safe. TOPDOWN_BATCH raises it. */
enum { DEFAULT_BATCH = 1, MAX_BATCH = 4096 };

static _Thread_local unsigned long long profiled_since; /* TOPDOWN_DEBUG */

/* ---- launches ----------------------------------------------------------- */

static int is_per_thread(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
}

/* Grid, block and stream from the launch call's parameters. The _ptsz
 * variants have the same layout as the plain ones. */
static CUfunction read_shape(CUpti_CallbackId cbid, const void *params, launch_rec *l,
                             CUstream *stream)
{
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        const cuLaunchKernelEx_params *p = params;
        const CUlaunchConfig *cfg = p->config;
        if (cfg) {
            unsigned grid[3] = {cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ};
            unsigned block[3] = {cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ};
            memcpy(l->grid, grid, sizeof grid);
            memcpy(l->block, block, sizeof block);
            *stream = cfg->hStream;
        }
        return p->f;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
        const cuLaunchCooperativeKernel_params *p = params;
        unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
        unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
        memcpy(l->grid, grid, sizeof grid);
        memcpy(l->block, block, sizeof block);
        *stream = p->hStream;
        return p->f;
    }
    const cuLaunchKernel_params *p = params;
    unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
    unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    memcpy(l->grid, grid, sizeof grid);
    memcpy(l->block, block, sizeof block);
    *stream = p->hStream;
    return p->f;
}

/* A launch into a stream being captured only adds a node to a CUDA graph:
 * nothing runs now, so it is neither a launch nor a range. */
static int is_captured(CUstream stream, int per_thread)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!stream && per_thread)
        stream = CU_STREAM_PER_THREAD;
    if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return 0;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* CUPTI's id of a launch's stream, kept per context (stream_ids.h). The
 * per-thread default stream is asked every time: its id is the calling
 * thread's. */
static uint32_t stream_id_of(ctx_state *c, CUcontext ctx, CUstream stream, int per_thread)
{
    uint32_t id = 0;
    if (!c || per_thread || stream == CU_STREAM_PER_THREAD) {
        cuptiGetStreamIdEx(ctx, stream, (uint8_t)per_thread, &id);
        return id;
    }
    uint64_t now = td_stream_generation();
    if (td_stream_ids_find(&c->stream_ids, stream, now, &id))
        return id;
    if (cuptiGetStreamIdEx(ctx, stream, 0, &id) == CUPTI_SUCCESS)
        td_stream_ids_keep(&c->stream_ids, stream, id, now);
    return id;
}

/* Loads the module of a kernel about to be launched for the first time (the
 * runtime passes a CUkernel where the driver API takes a CUfunction). */
static void load_module_of(CUfunction f)
{
    if (cuFuncLoad(f) != CUDA_ERROR_INVALID_HANDLE)
        return;
    CUfunction in_context = NULL;
    if (cuKernelGetFunction(&in_context, (CUkernel)f) == CUDA_SUCCESS)
        cuFuncLoad(in_context);
}

/* Whether a launch of k may be replayed: a kernel the filter selects,
 * while replay is on (measure_policy.c decides the rest). */
static int may_replay(const td_kernel *k)
{
    return k->matches && !k->no_replay && td_g.mode != TD_REPLAY_NONE && !td_g.device_heap;
}

static void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    td_probe_start();
    profiled_since = td_probe_now();
    td_gate_enter_shared();
    pthread_mutex_lock(&td_g.lock);
    td_probe_mark(TD_PROBE_LOCK);
    double entered = now_s();
    holding_launch = 1;
    in_our_code = 1;
    launch_rec l = {.corr = cb->correlationId, .group = TD_GROUP_ALL};
    CUstream stream = NULL;
    CUfunction f = read_shape(cbid, cb->functionParams, &l, &stream);
    td_current_ctx = NULL;
    td_current_profiled = 0;
    if (is_captured(stream, is_per_thread(cbid))) {
        in_our_code = 0;
        pthread_mutex_unlock(&td_g.lock);
        return; /* its kernels show up as graph launches when the graph runs */
    }
    td_probe_mark(TD_PROBE_SHAPE);
    ctx_state *c = context_for(cb->context, cb->contextUid);
    l.id = next_launch_id();
    td_probe_mark(TD_PROBE_CONTEXT);
    l.stream = stream_id_of(c, cb->context, stream, is_per_thread(cbid));
    td_probe_mark(TD_PROBE_STREAM);
    const char *mangled = cb->symbolName;
    if (!mangled && f)
        cuFuncGetName(&mangled, f);
    td_probe_mark(TD_PROBE_NAME);
    l.kernel = td_kernel_of_launch(f, mangled, &td_g.filter);
    td_probe_mark(TD_PROBE_KERNEL);
    /* Lazy loading: load the kernel's module now, so that a module using
     * the device heap is known before its first launch is replayed. A
     * kernel that cannot be replayed leaves it to the driver. */
    if (l.kernel && l.kernel->launches == 0 && f && may_replay(l.kernel))
        load_module_of(f);
    if (l.kernel && l.kernel->launches == 0)
        td_g.new_kernel_launch = td_g.launches;
    td_probe_mark(TD_PROBE_LOAD);
    int profile = 0, nvtx_allows = 1;
    l.region = td_nvtx_launch_region(&nvtx_allows);
    if (c && c->profiling && l.kernel && !nvtx_allows) {
        l.kernel->launches++; /* outside --nvtx-include/--nvtx-exclude: timed only */
    } else if (c && c->profiling && l.kernel) {
        double t0 = now_s();
        td_g.waited_s = 0;
        td_g.excluded_in_launch_s = 0;
        td_g.launch_covers = 0;
        if (td_filter_allows(&td_g.filter, l.kernel, progress_of(c, l.kernel)->profiled) &&
            choose_config(c, l.kernel, &l, &l.group) && td_gate_measure_alone())
            profile = profile_launch(c, &l, t0);
    } else if (l.kernel) {
        l.kernel->launches++;
    }
    td_probe_mark(TD_PROBE_CHOICE);
    budget_count_launch(&l);
    td_probe_mark(TD_PROBE_BUDGET);
    if (c && !profile)
        collector_of(c)->unmeasured(c); /* this launch must not become a range */
    td_probe_mark(TD_PROBE_UNMEASURED);
    td_current = l;
    td_current_ctx = c;
    td_current_profiled = profile;
    if (!profile) /* tracing: the app's own time does not include it */
        td_g.budget.traced_s += now_s() - entered;
    in_our_code = 0;
    /* A measured launch keeps td_g.lock (and the gate exclusive) until its
     * exit callback, so nothing stops the profiler while it is launched;
     * a traced one only the gate, shared with other traced launches. */
    if (!profile)
        pthread_mutex_unlock(&td_g.lock);
}

static void launch_exit(const CUpti_CallbackData *cb)
{
    if (!holding_launch)
        return;
    td_probe_mark(TD_PROBE_EXIT);
    if (!td_current_profiled)
        pthread_mutex_lock(&td_g.lock);
    in_our_code = 1;
    double entered = now_s();
    ctx_state *c = td_current_ctx;
    const CUresult *ret = cb->functionReturnValue;
    int ok = !ret || *ret == CUDA_SUCCESS;
    if (c && td_current_profiled) {
        if (!ok && c->n_window > 0)
            c->window[c->n_window - 1].failed = 1;
        collector_of(c)->launch_end(c);
        end_profiled_launch();
        td_probe_count(td_current.group == TD_GROUP_ALL ? TD_SPAN_REPLAYED : TD_SPAN_SAMPLED,
                       profiled_since);
    } else if (c && ok) {
        emit_launch(c, &td_current, NULL);
        td_probe_mark(TD_PROBE_EMIT);
    }
    td_g.launches += c && ok;
    if (c)
        td_pcs_tick(c->ctx, c->uid);
    if (!td_current_profiled) {
        td_g.budget.traced_s += now_s() - entered;
        td_probe_mark(TD_PROBE_TAIL);
        td_probe_commit();
    }
    td_gate_leave_launch();
}

/* ---- CUPTI callbacks ---------------------------------------------------- */

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            graph_enter(cb);
        else
            graph_exit();
        return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER)
        launch_enter(cbid, cb);
    else
        launch_exit(cb);
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    if (cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
        td_stream_destroyed(); /* no lock here: inside the driver (stream_ids.h) */
        return;
    }
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        const CUpti_ModuleResourceData *module = rd->resourceDescriptor;
        double t0 = now_s();
        if (module && td_cubin_uses_device_heap(module->pCubin, module->cubinSize))
            td_g.device_heap = 1;
        if (module) { /* TOPDOWN_DEBUG's count (exit.c); loads race: approximate */
            td_g.modules_scanned++;
            td_g.module_bytes += module->cubinSize;
            td_g.module_scan_s += now_s() - t0;
        }
        uint32_t uid = 0;
        if (module && td_pcs_enabled() && cuptiGetContextId(rd->context, &uid) == CUPTI_SUCCESS) {
            pthread_mutex_lock(&td_g.lock); /* recursive: a launch may load it */
            td_pcs_module_loaded(uid, module->pCubin, module->cubinSize);
            pthread_mutex_unlock(&td_g.lock);
        }
        return;
    }
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
        /* Continuous PC sampling must be read before a module goes: its
         * PCs may be reused by the next one. */
        uint32_t uid = 0;
        if (cuptiGetContextId(rd->context, &uid) == CUPTI_SUCCESS) {
            pthread_mutex_lock(&td_g.lock);
            td_pcs_collect(rd->context, uid);
            pthread_mutex_unlock(&td_g.lock);
        }
        return;
    }
    if (cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
        return;
    uint32_t uid = 0;
    if (cuptiGetContextId(rd->context, &uid) != CUPTI_SUCCESS)
        return;
    td_gate_enter_exclusive();
    pthread_mutex_lock(&td_g.lock);
    in_our_code = 1;
    forget_context(uid);
    td_activity_flush();
    in_our_code = 0;
    pthread_mutex_unlock(&td_g.lock);
    td_gate_leave();
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (td_flush_active)
        return; /* topdown's own cache flush, not the app's */
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        on_driver(cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
        on_resource(cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_NVTX)
        td_nvtx_callback(cbid, data);
}

/* ---- initialisation ----------------------------------------------------- */

static void emit_start(void)
{
    cJSON *rec = td_sw_record("start");
    if (!rec)
        return;
    cJSON_AddStringToObject(rec, "format", TD_SPOOL_FORMAT);
    cJSON_AddStringToObject(rec, "tool_version", TOPDOWN_VERSION);
    cJSON_AddStringToObject(rec, "replay_mode", td_replay_mode_word(td_g.mode));
    cJSON_AddStringToObject(rec, "cache_control", td_g.flush_caches ? "all" : "none");
    cJSON_AddNumberToObject(rec, "overhead_pct", td_g.budget.overhead * 100);
    td_sw_emit(rec);
}

static size_t batch_of(const td_collect_opts *o)
{
    long v = o->batch;
    if (v <= 0)
        return DEFAULT_BATCH;
    return v > MAX_BATCH ? MAX_BATCH : (size_t)v;
}

/* The replay mode, the budget (--overhead in %; 0: none) and the
 * other ways of collecting. */
static void collection_from_opts(const td_collect_opts *o)
{
    td_g.mode = o->replay_mode;
    double pct = o->overhead_pct;
    td_g.budget.overhead = pct > 0 ? pct / 100 : 0;
    td_g.budget.counts_all = o->budget_all;
    td_g.graph_view = o->graph_view;
    td_g.pm_interval_ns = o->pm_interval_ns;
    td_g.flush_caches = o->flush_caches;
    td_g.no_rotation = o->no_rotation; /* for comparisons */
    td_error err = {{0}};
    if (td_sample_every_parse(o->sample_every, &td_g.sample, &err) != 0)
        snprintf(td_g.sample_error, sizeof td_g.sample_error, "%s", err.msg); /* after start */
    /* Explicit counts and periods are the user's cost decision: no budget
     * on top. */
    td_g.budgeted = td_g.budget.overhead > 0 && td_g.filter.per_kernel < 0 &&
                    td_g.filter.launch_count < 0 && td_g.sample.unit == TD_SAMPLE_OFF;
    if (o->app_pass >= 0) { /* a pass of application replay: every launch, one group */
        td_g.mode = TD_REPLAY_NONE;
        td_g.budgeted = 0;
    }
}

/* --source: PC samples are kept for the kernels -k selects. */
static int pcs_selected(const char *function)
{
    td_kernel *k = td_kernel_get(function, &td_g.filter);
    return k && k->matches;
}

static int subscribe(void)
{
    CUptiResult res = cuptiSubscribe(&td_g.subscriber, on_callback, NULL);
    if (res == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        td_sw_error("multiple_subscribers",
                    "another profiler is already attached to this process "
                    "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): run topdown on its own, "
                    "not under ncu, nsys or another CUPTI-based tool");
        return -1;
    }
    if (res != CUPTI_SUCCESS) {
        const char *name = "?";
        cuptiGetResultString(res, &name);
        td_sw_error("cupti_failed", "CUPTI could not attach to the app (cuptiSubscribe: %s)",
                    name);
        return -1;
    }
    cuptiEnableCallback(1, td_g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    cuptiEnableCallback(1, td_g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_MODULE_LOADED);
    cuptiEnableCallback(1, td_g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING);
    if (td_pcs_enabled())
        cuptiEnableCallback(1, td_g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
    for (size_t i = 0; i < TD_N_LAUNCH_CALLBACKS; i++)
        cuptiEnableCallback(1, td_g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, td_launch_callbacks[i]);
    td_nvtx_enable(td_g.subscriber);
    return 0;
}

TD_EXPORT int InitializeInjection(void)
{
    if (td_g.initialized)
        return 1;
    td_g.initialized = 1;
    td_g.pid = getpid();
    td_g.budget.start_s = now_s();
    char msg[512];
    int opts_ok = td_collect_opts_read(&td_g.opts, td_collect_getenv, msg, sizeof msg) == 0;
    td_debug_init(td_g.opts.debug);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&td_g.lock, &attr);
    pthread_mutexattr_destroy(&attr);
    td_gate_init();

    if (!td_g.opts.spool || td_sw_open(td_g.opts.spool) != 0)
        return 1; /* nowhere to report: stay out of the app's way */
    atexit(at_exit);
    set_exit_flush(at_exit); /* registered again after CUPTI's libraries (window.c) */
    /* a refused option line left the filter off (collect_opts.h) */
    int filter_ok = td_filter_from_opts(&td_g.filter, &td_g.opts, msg, sizeof msg) == 0 && opts_ok;
    td_g.batch = batch_of(&td_g.opts);
    collection_from_opts(&td_g.opts);
    td_pcs_init(pcs_selected, &td_g.opts);
    emit_start();
    if (!filter_ok)
        td_sw_error("bad_option", "%s; every launch is profiled", msg);
    if (td_g.sample_error[0])
        td_sw_error("bad_option", "%s; profiled as without it", td_g.sample_error);
    if (td_nvtx_setup(td_g.opts.nvtx_include, td_g.opts.nvtx_exclude, msg, sizeof msg) != 0)
        td_sw_error("bad_option", "%s; no NVTX filter is applied", msg);
    free(td_demangle("_Z4warmv")); /* load the demangler before threads race */
    cuptiGetTimestamp(&td_g.t0);
    if (subscribe() != 0)
        return 1;
    if (!td_g.opts.no_timing &&
        td_activity_start(td_g.t0, next_launch_id, !td_g.opts.no_copies,
                          td_g.opts.activity_kb,
                          td_g.opts.activity_device_kb, td_g.opts.activity_per_thread) != 0)
        td_sw_warning("CUPTI kernel timing is unavailable: unprofiled launches have no "
                      "duration");
    install_signal_handlers();
    if (td_debug_on())
        td_debug("inject", "injection set up in %.1f ms", 1e3 * (now_s() - td_g.budget.start_s));
    return 1;
}
