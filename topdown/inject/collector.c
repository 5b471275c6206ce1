/* What both collectors (batch.c, rotation.c) share: a context's
 * configurations freed, whether CUPTI supports profiling it (asked at its
 * first measured launch), its profiling stopped on failure or restarted
 * after a failed decode, the waits and the cache flush before a range, a
 * measurement counted, and the writing of what a collector holds. */
#include "topdown/inject/collector.h"

#include <cupti_profiler_target.h>
#include <stdio.h>

#include "topdown/inject/probe.h"
#include "topdown/inject/spool_writer.h"

void close_configs(ctx_state *c)
{
    for (size_t i = 0; i < c->groups.n; i++)
        td_rp_config_free(&c->group_cfg[i]);
    c->n_group_cfg = 0;
    if (c->has_rotation)
        td_rp_config_free(&c->rotation);
    c->has_rotation = 0;
    if (c->has_full)
        td_rp_config_free(&c->full);
    c->has_full = 0;
}

int say_no_privileges(const ctx_state *c, const char *what)
{
    if (c->rp.failure != CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        return 0;
    td_sw_error("insufficient_privileges",
                "reading GPU performance counters is restricted to administrators on "
                "this machine (%s): run topdown as root, or load the nvidia module with "
                "NVreg_RestrictProfilingToAdminUsers=0 "
                "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)", what);
    return 1;
}

static const char *support_problem(CUdevice dev)
{
    CUpti_Profiler_DeviceSupported_Params p = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (cuptiProfilerDeviceSupported(&p) != CUPTI_SUCCESS ||
        p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return NULL;
    if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return "profiling is disabled on this vGPU (ask the host's admin to enable it)";
    if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "this vGPU does not support profiling";
    if (p.confidentialCompute == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "profiling is not possible with confidential computing on";
    if (p.cmp == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "crypto-mining processors (CMP) cannot be profiled";
    if (p.sli == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "profiling is not possible with SLI on";
    if (p.wsl == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "this WSL setup does not support profiling";
    if (p.architecture == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "the Range Profiler does not support this GPU";
    return NULL;
}

int profiling_supported(ctx_state *c)
{
    if (c->support_checked)
        return c->profiling;
    c->support_checked = 1;
    const char *problem = support_problem(c->dev);
    if (!problem)
        return 1;
    td_sw_error("unsupported_gpu", "cannot profile %s: %s", c->gpu, problem);
    close_configs(c);
    td_rp_close(&c->rp);
    c->profiling = 0;
    return 0;
}

/* The Range Profiler is enabled at a context's first measured launch
 * (td_rp_select), so a refusal for privileges can come here too. */
void stop_profiling(ctx_state *c, const char *why)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    if (!say_no_privileges(c, what))
        td_sw_error("profiler_failed", "context %u: %s (%s); later launches are timed only",
                    c->uid, why, what);
    close_configs(c);
    td_rp_close(&c->rp);
    c->profiling = 0;
}

/* Waits for the context's queued work; the wait is the app's GPU time,
 * not profiling cost, so the budget leaves it out. */
void wait_for_gpu(void)
{
    double t0 = now_s();
    unsigned long long since = td_probe_now();
    cuCtxSynchronize();
    td_probe_count(TD_SPAN_WAIT, since);
    td_g.waited_s += now_s() - t0;
}

/* A replay-free launch failed to decode: start over, give up after a few. */
void group_failed(ctx_state *c)
{
    if (++c->failures > 8) {
        stop_profiling(c, "decoding the counters failed repeatedly");
        return;
    }
    if (td_rp_reset(&c->rp) != 0)
        stop_profiling(c, "restarting the profiler after a failed decode failed");
}

/* What a measured launch adds to its kernel's progress. */
void count_measurement(ctx_state *c, const launch_rec *l)
{
    if (l->kernel)
        td_progress_measured(progress_of(c, l->kernel), l->group);
}

/* --cache-control all: the app's queued work drained (it would refill the
 * L2), then the flush, before the session starts (so the flush is in no
 * range). Under kernel replay CUPTI's own save of device memory still runs
 * between this flush and the first pass (docs/COLLECTION.md). */
void flush_before_pass(ctx_state *c)
{
    if (!c->flush.ready)
        return;
    wait_for_gpu();
    if (td_flush_run(&c->flush) != 0 && !c->flush_failed_said++)
        td_sw_warning("--cache-control all: the cache flush failed in context %u; launches "
                      "are measured with the caches as they were", c->uid);
}

/* Writes what the profiler holds: the open batch, or the rotation's cycle
 * (flush, the collector's). */
void close_window_with(ctx_state *c, void (*flush)(ctx_state *c))
{
    if (!c->profiling)
        return;
    double t0 = now_s();
    /* At exit or on a signal the context may not be current here. */
    int pushed = cuCtxPushCurrent(c->ctx) == CUDA_SUCCESS;
    flush(c);
    td_g.decode_s += now_s() - t0;
    if (!td_g.in_profiled_launch) {
        td_g.budget.spent_s += now_s() - t0 - td_g.waited_s;
        td_g.waited_s = 0;
    }
    if (pushed) {
        CUcontext popped;
        cuCtxPopCurrent(&popped);
    }
}
