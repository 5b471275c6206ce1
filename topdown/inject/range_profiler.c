#include "topdown/inject/range_profiler.h"

#include "metrics/arch/host_config.h"
#include "topdown/inject/clock.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/pass_groups.h"
#include "topdown/inject/probe.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TOPDOWN_DEBUG: how long a step of the profiler's set-up took (issue 23:
 * where start-up and a group switch go). */
static void took(const char *what, double since)
{
    if (td_debug_on())
        td_debug("rp", "%s: %.1f ms", what, 1e3 * (now_s() - since));
}

/* Records a failed call and returns -1. */
static int failed(td_rp *rp, const char *call, CUptiResult res)
{
    rp->failure = res;
    rp->failed_call = call;
    return -1;
}

#define TRY(rp, call)                                  \
    do {                                               \
        CUptiResult td_res_ = (call);                  \
        if (td_res_ != CUPTI_SUCCESS)                  \
            return failed((rp), #call, td_res_);       \
    } while (0)

static int profiler_initialize(td_rp *rp)
{
    static int done;
    if (done)
        return 0;
    CUpti_Profiler_Initialize_Params p = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    TRY(rp, cuptiProfilerInitialize(&p));
    done = 1;
    return 0;
}

/* Which counters this context can read now (another session may hold some). */
static int read_availability(td_rp *rp)
{
    CUpti_Profiler_GetCounterAvailability_Params p = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    p.ctx = rp->ctx;
    TRY(rp, cuptiProfilerGetCounterAvailability(&p));
    rp->availability_size = p.counterAvailabilityImageSize;
    rp->availability = calloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1, 1);
    if (!rp->availability)
        return failed(rp, "calloc(counter availability)", CUPTI_ERROR_OUT_OF_MEMORY);
    p.pCounterAvailabilityImage = rp->availability;
    TRY(rp, cuptiProfilerGetCounterAvailability(&p));
    return 0;
}

static int host_initialize(td_rp *rp, CUpti_Profiler_Host_Object **host)
{
    CUptiResult rc = td_host_open(CUPTI_PROFILER_TYPE_RANGE_PROFILER, rp->chip,
                                  rp->availability, host);
    return rc == CUPTI_SUCCESS ? 0 : failed(rp, "cuptiProfilerHostInitialize", rc);
}

/* The config image schedules the metrics into replay passes. */
static int build_config(td_rp *rp, td_rp_config *cfg)
{
    td_host_config built;
    CUptiResult rc = td_host_config_build(cfg->host, cfg->metrics, cfg->n_metrics, &built);
    if (rc != CUPTI_SUCCESS)
        return failed(rp, built.failed_call, rc);
    cfg->config = built.image;
    cfg->config_size = built.size;
    cfg->passes = built.passes;
    return 0;
}

static int enable(td_rp *rp)
{
    CUpti_RangeProfiler_Enable_Params p = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = rp->ctx;
    TRY(rp, cuptiRangeProfilerEnable(&p));
    rp->object = p.pRangeProfilerObject;
    rp->sized = NULL;
    rp->pass = 0;
    return 0;
}

static int disable(td_rp *rp)
{
    rp->active = NULL;
    if (!rp->object)
        return 0;
    CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    rp->object = NULL;
    rp->started = 0;
    rp->pushed = 0;
    TRY(rp, cuptiRangeProfilerDisable(&p));
    return 0;
}

/* GetCounterDataSize also sets the layout of the object's next counter-data
 * images to these metrics: measured on the H200, images initialised after
 * another metric list was sized decode NaN for every counter the two lists
 * do not share. So it is called again when an image is initialised for
 * another list than the object's last one. */
static int size_counter_data(td_rp *rp, td_rp_config *cfg)
{
    if (rp->sized == cfg && cfg->data)
        return 0; /* the layout is this list's already (2.9 ms a call, H100) */
    CUpti_RangeProfiler_GetCounterDataSize_Params size = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pRangeProfilerObject = rp->object;
    size.pMetricNames = cfg->metrics;
    size.numMetrics = cfg->n_metrics;
    size.maxNumOfRanges = cfg->capacity;
    size.maxNumRangeTreeNodes = (uint32_t)cfg->capacity;
    TRY(rp, cuptiRangeProfilerGetCounterDataSize(&size));
    rp->sized = cfg;
    if (cfg->data && cfg->data_size == size.counterDataSize)
        return 0;
    free(cfg->data);
    cfg->data_size = size.counterDataSize;
    cfg->data = calloc(cfg->data_size ? cfg->data_size : 1, 1);
    if (!cfg->data)
        return failed(rp, "calloc(counter data image)", CUPTI_ERROR_OUT_OF_MEMORY);
    return 0;
}

static int init_counter_data(td_rp *rp, td_rp_config *cfg)
{
    if (size_counter_data(rp, cfg))
        return -1;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = rp->object;
    init.counterDataSize = cfg->data_size;
    init.pCounterData = cfg->data;
    TRY(rp, cuptiRangeProfilerCounterDataImageInitialize(&init));
    return 0;
}

static int set_config(td_rp *rp, td_rp_config *cfg)
{
    CUpti_RangeProfiler_SetConfig_Params p = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    p.configSize = cfg->config_size;
    p.pConfig = cfg->config;
    p.counterDataImageSize = cfg->data_size;
    p.pCounterDataImage = cfg->data;
    /* User replay gives NaN counters with auto range (H200, CUPTI 13.0):
     * it is paired with a user range around the one launch. */
    p.range = cfg->user_replay ? CUPTI_UserRange : CUPTI_AutoRange;
    p.replayMode = cfg->user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
    p.maxRangesPerPass = cfg->capacity;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    TRY(rp, cuptiRangeProfilerSetConfig(&p));
    return 0;
}

int td_rp_open(td_rp *rp, CUcontext ctx, const char *chip)
{
    memset(rp, 0, sizeof *rp);
    rp->ctx = ctx;
    rp->chip = chip;
    /* The configurations are built without the counter availability
     * image (CUPTI: "required for future chip support"; every chip of
     * archs/ schedules without it): reading it cost each context 75-125
     * ms (H200). A configuration that then fails is built again with it
     * (td_rp_reset). */
    return 0;
}

/* CUPTI's profiler initialised (once a process) and the Range Profiler
 * enabled on the context: at the first configuration, not at set-up. */
static int enable_first(td_rp *rp)
{
    double t0 = now_s();
    if (profiler_initialize(rp))
        return -1;
    took("cuptiProfilerInitialize", t0);
    return enable(rp);
}

int td_rp_count_passes(void *opaque, const char *const *metrics, size_t n, size_t *passes,
                       td_error *err)
{
    td_rp *rp = opaque;
    td_rp_config probe = {.metrics = (const char **)metrics, .n_metrics = n};
    int rc = profiler_initialize(rp); /* the host API may not need it; set-up rarely comes here */
    if (rc == 0)
        rc = host_initialize(rp, &probe.host);
    if (rc == 0)
        rc = build_config(rp, &probe);
    *passes = probe.passes;
    td_host_close(probe.host);
    free(probe.config);
    if (rc != 0) {
        char what[256];
        td_rp_describe(rp, what, sizeof what);
        return td_fail(err, "counting passes: %s", what);
    }
    return 0;
}

void td_rp_config_prepare(td_rp_config *cfg, const char **metrics, size_t n_metrics,
                          size_t capacity, int user_replay)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->metrics = metrics;
    cfg->n_metrics = n_metrics;
    cfg->capacity = capacity ? capacity : 1;
    cfg->user_replay = user_replay;
}

/* The rotation's image: nvperf's, a pass per group. CUPTI's own image of
 * the union is built first for the host object, which evaluates ranges. */
static int build_rotation_image(td_rp *rp, td_rp_config *cfg)
{
    const char *const *lists[TD_MAX_GROUPS];
    for (size_t g = 0; g < cfg->groups->n; g++)
        lists[g] = cfg->groups->metric[g];
    td_pass_groups_image built;
    if (td_pass_groups_build(rp->chip, rp->availability, lists, cfg->groups->size,
                             cfg->groups->n, &built) != 0)
        return failed(rp, built.failed_call, CUPTI_ERROR_NOT_SUPPORTED);
    free(cfg->config);
    cfg->config = built.image;
    cfg->config_size = built.size;
    cfg->passes = built.passes;
    return 0;
}

/* Host side: the scheduling of the metrics; a replay-free one must be one
 * pass, the rotation one pass per group. */
static int build(td_rp *rp, td_rp_config *cfg)
{
    if (cfg->host && cfg->built_with == rp->availability)
        return 0;
    if (cfg->host) { /* built before the availability was read */
        td_host_close(cfg->host);
        free(cfg->config);
        cfg->host = NULL;
        cfg->config = NULL;
    }
    cfg->built_with = rp->availability;
    double t0 = now_s();
    if (host_initialize(rp, &cfg->host) || build_config(rp, cfg))
        return -1;
    took("a configuration's host image", t0);
    if (cfg->groups) {
        t0 = now_s();
        int rc = build_rotation_image(rp, cfg);
        took("the rotation's image", t0);
        return rc;
    }
    if (cfg->user_replay && cfg->passes != 1)
        return failed(rp, "one-pass counter group(more passes on this device)",
                      CUPTI_ERROR_NOT_SUPPORTED);
    return 0;
}

void td_rp_config_prepare_rotation(td_rp_config *cfg, const char **metrics, size_t n_metrics,
                                   const td_groups *groups, size_t capacity)
{
    td_rp_config_prepare(cfg, metrics, n_metrics, capacity, 1);
    cfg->groups = groups;
}

void td_rp_config_free(td_rp_config *cfg)
{
    td_host_close(cfg->host);
    free(cfg->config);
    free(cfg->data);
    memset(cfg, 0, sizeof *cfg);
}

/* Another configuration takes a fresh profiler object: measured on the
 * H200 (CUPTI 13.0), an object re-configured with another metric list
 * decodes NaN for the counters the two lists do not share, while a fresh
 * object per list reads them all (benchmarks/rp_modes.cu, RP_SINGLE). */
int td_rp_select(td_rp *rp, td_rp_config *cfg)
{
    if (rp->active == cfg)
        return 0;
    unsigned long long since = td_probe_now();
    if (build(rp, cfg))
        return -1;
    /* Initialised and enabled only now: either makes the driver
     * serialise the app's launching threads (CUPTI's floor, 8 host threads
     * of td_tiny, H200: 4.76x native with cuptiProfilerInitialize alone,
     * 4.3-5.3x with the Range Profiler enabled too, no session open), so
     * a context none of whose launches is measured (a filter, NVTX
     * ranges) runs traced alone. */
    double t0 = now_s();
    if (!rp->object ? enable_first(rp) : rp->active && (disable(rp) || enable(rp)))
        return -1;
    took("a fresh profiler object", t0);
    t0 = now_s();
    if (init_counter_data(rp, cfg) || set_config(rp, cfg))
        return -1;
    took("counter data and cuptiRangeProfilerSetConfig", t0);
    rp->active = cfg;
    rp->pass = 0;
    td_probe_count(TD_SPAN_SELECT, since);
    return 0;
}

int td_rp_start(td_rp *rp)
{
    if (rp->started)
        return 0;
    if (!rp->active)
        return failed(rp, "td_rp_start(no configuration)", CUPTI_ERROR_INVALID_OPERATION);
    CUpti_RangeProfiler_Start_Params p = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    unsigned long long since = td_probe_now();
    TRY(rp, cuptiRangeProfilerStart(&p));
    td_probe_count(TD_SPAN_START, since);
    rp->started = 1;
    return 0;
}

int td_rp_push(td_rp *rp, const char *name)
{
    if (!rp->active || !rp->active->user_replay)
        return 0;
    CUpti_RangeProfiler_PushRange_Params p = {
        .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    p.pRangeName = name;
    unsigned long long since = td_probe_now();
    TRY(rp, cuptiRangeProfilerPushRange(&p));
    td_probe_count(TD_SPAN_PUSH, since);
    rp->pushed = 1;
    return 0;
}

int td_rp_pop(td_rp *rp)
{
    if (!rp->pushed)
        return 0;
    rp->pushed = 0;
    CUpti_RangeProfiler_PopRange_Params p = {
        .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    unsigned long long since = td_probe_now();
    TRY(rp, cuptiRangeProfilerPopRange(&p));
    td_probe_count(TD_SPAN_POP, since);
    return 0;
}

int td_rp_end_pass(td_rp *rp, int *cycle_done)
{
    *cycle_done = 0;
    if (!rp->started)
        return 0;
    CUpti_RangeProfiler_Stop_Params stop = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = rp->object;
    rp->started = 0;
    unsigned long long since = td_probe_now();
    TRY(rp, cuptiRangeProfilerStop(&stop));
    td_probe_count(TD_SPAN_STOP, since);
    rp->pass = stop.passIndex; /* the next pass; 0 after the last */
    *cycle_done = stop.isAllPassSubmitted;
    return 0;
}

int td_rp_stop(td_rp *rp, size_t *ranges, size_t *dropped)
{
    *ranges = *dropped = 0;
    if (!rp->active)
        return 0;
    int cycle_done;
    if (td_rp_end_pass(rp, &cycle_done))
        return -1;
    return td_rp_decode(rp, ranges, dropped);
}

int td_rp_decode(td_rp *rp, size_t *ranges, size_t *dropped)
{
    *ranges = *dropped = 0;
    if (!rp->active)
        return 0;
    CUpti_RangeProfiler_DecodeData_Params decode = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = rp->object;
    unsigned long long since = td_probe_now();
    TRY(rp, cuptiRangeProfilerDecodeData(&decode));
    *dropped = decode.numOfRangeDropped;

    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = rp->active->data;
    info.counterDataImageSize = rp->active->data_size;
    TRY(rp, cuptiRangeProfilerGetCounterDataInfo(&info));
    *ranges = info.numTotalRanges;
    td_probe_count(TD_SPAN_DECODE, since);
    return 0;
}

int td_rp_eval(td_rp *rp, size_t range, double *values)
{
    td_rp_config *cfg = rp->active;
    if (!cfg)
        return failed(rp, "td_rp_eval(no configuration)", CUPTI_ERROR_INVALID_OPERATION);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = cfg->host;
    p.pCounterDataImage = cfg->data;
    p.counterDataImageSize = cfg->data_size;
    p.rangeIndex = range;
    p.ppMetricNames = cfg->metrics;
    p.numMetrics = cfg->n_metrics;
    p.pMetricValues = values;
    unsigned long long since = td_probe_now();
    TRY(rp, cuptiProfilerHostEvaluateToGpuValues(&p));
    td_probe_count(TD_SPAN_EVAL, since);
    return 0;
}

const char *td_rp_range_name(td_rp *rp, size_t range)
{
    if (!rp->active)
        return NULL;
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params p = {
        .structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    p.pCounterDataImage = rp->active->data;
    p.counterDataImageSize = rp->active->data_size;
    p.rangeIndex = range;
    p.rangeDelimiter = "/";
    if (cuptiRangeProfilerCounterDataGetRangeInfo(&p) != CUPTI_SUCCESS)
        return NULL;
    return p.rangeName;
}

/* A fresh image for the next batch; if CUPTI refuses a second SetConfig on
 * the same object, start over with a new one. */
int td_rp_rearm(td_rp *rp)
{
    td_rp_config *cfg = rp->active;
    if (!cfg)
        return 0;
    rp->pass = 0;
    if (init_counter_data(rp, cfg) == 0 && set_config(rp, cfg) == 0)
        return 0;
    if (disable(rp) || enable(rp) || init_counter_data(rp, cfg) || set_config(rp, cfg))
        return -1;
    rp->active = cfg;
    return 0;
}

/* After a failure: a fresh object, and the counter availability read if
 * it was not (another session may hold counters), so that the next
 * td_rp_select builds its configuration again with it. */
int td_rp_reset(td_rp *rp)
{
    disable(rp); /* a failure here is the old object's; the new one decides */
    if (profiler_initialize(rp))
        return -1;
    if (!rp->availability) {
        double t0 = now_s();
        CUptiResult failure = rp->failure;
        const char *failed_call = rp->failed_call;
        if (read_availability(rp) != 0) { /* the failure told stays the first one */
            free(rp->availability);
            rp->availability = NULL;
            rp->failure = failure;
            rp->failed_call = failed_call;
        }
        took("counter availability", t0);
    }
    return enable(rp);
}

void td_rp_close(td_rp *rp)
{
    if (rp->started) {
        size_t ranges, dropped;
        td_rp_stop(rp, &ranges, &dropped);
    }
    disable(rp);
    free(rp->availability);
    rp->availability = NULL;
}

void td_rp_describe(const td_rp *rp, char *buf, size_t size)
{
    const char *name = NULL;
    if (cuptiGetResultString(rp->failure, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI error";
    /* "cuptiRangeProfilerEnable(&p)" reads better without the argument. */
    const char *call = rp->failed_call ? rp->failed_call : "CUPTI";
    size_t len = strcspn(call, "(");
    snprintf(buf, size, "%.*s: %s", (int)len, call, name);
}
