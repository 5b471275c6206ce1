#include "range_profiler.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    rp->availability = calloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1, 1);
    if (!rp->availability)
        return failed(rp, "calloc(counter availability)", CUPTI_ERROR_OUT_OF_MEMORY);
    p.pCounterAvailabilityImage = rp->availability;
    TRY(rp, cuptiProfilerGetCounterAvailability(&p));
    return 0;
}

static int host_initialize(td_rp *rp, const char *chip)
{
    CUpti_Profiler_Host_Initialize_Params p = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = rp->availability;
    TRY(rp, cuptiProfilerHostInitialize(&p));
    rp->host = p.pHostObject;
    return 0;
}

/* The config image schedules the metrics into replay passes. */
static int build_config(td_rp *rp)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = rp->host;
    add.ppMetricNames = rp->metrics;
    add.numMetrics = rp->n_metrics;
    TRY(rp, cuptiProfilerHostConfigAddMetrics(&add));

    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = rp->host;
    TRY(rp, cuptiProfilerHostGetConfigImageSize(&size));
    rp->config_size = size.configImageSize;
    rp->config = calloc(rp->config_size ? rp->config_size : 1, 1);
    if (!rp->config)
        return failed(rp, "calloc(config image)", CUPTI_ERROR_OUT_OF_MEMORY);

    CUpti_Profiler_Host_GetConfigImage_Params image = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    image.pHostObject = rp->host;
    image.configImageSize = rp->config_size;
    image.pConfigImage = rp->config;
    TRY(rp, cuptiProfilerHostGetConfigImage(&image));

    CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    passes.configImageSize = rp->config_size;
    passes.pConfigImage = rp->config;
    TRY(rp, cuptiProfilerHostGetNumOfPasses(&passes));
    rp->passes = passes.numOfPasses;
    return 0;
}

static int enable(td_rp *rp)
{
    CUpti_RangeProfiler_Enable_Params p = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = rp->ctx;
    TRY(rp, cuptiRangeProfilerEnable(&p));
    rp->object = p.pRangeProfilerObject;
    return 0;
}

static int disable(td_rp *rp)
{
    if (!rp->object)
        return 0;
    CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    rp->object = NULL;
    rp->started = 0;
    TRY(rp, cuptiRangeProfilerDisable(&p));
    return 0;
}

static int init_counter_data(td_rp *rp)
{
    if (!rp->data) {
        CUpti_RangeProfiler_GetCounterDataSize_Params size = {
            .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        size.pRangeProfilerObject = rp->object;
        size.pMetricNames = rp->metrics;
        size.numMetrics = rp->n_metrics;
        size.maxNumOfRanges = rp->capacity;
        size.maxNumRangeTreeNodes = (uint32_t)rp->capacity;
        TRY(rp, cuptiRangeProfilerGetCounterDataSize(&size));
        rp->data_size = size.counterDataSize;
        rp->data = calloc(rp->data_size ? rp->data_size : 1, 1);
        if (!rp->data)
            return failed(rp, "calloc(counter data image)", CUPTI_ERROR_OUT_OF_MEMORY);
    }
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = rp->object;
    init.counterDataSize = rp->data_size;
    init.pCounterData = rp->data;
    TRY(rp, cuptiRangeProfilerCounterDataImageInitialize(&init));
    return 0;
}

static int set_config(td_rp *rp)
{
    CUpti_RangeProfiler_SetConfig_Params p = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    p.configSize = rp->config_size;
    p.pConfig = rp->config;
    p.counterDataImageSize = rp->data_size;
    p.pCounterDataImage = rp->data;
    p.range = CUPTI_AutoRange;
    p.replayMode = CUPTI_KernelReplay;
    p.maxRangesPerPass = rp->capacity;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    TRY(rp, cuptiRangeProfilerSetConfig(&p));
    return 0;
}

int td_rp_open(td_rp *rp, CUcontext ctx, const char *chip, const char **metrics,
               size_t n_metrics, size_t capacity)
{
    memset(rp, 0, sizeof *rp);
    rp->ctx = ctx;
    rp->metrics = metrics;
    rp->n_metrics = n_metrics;
    rp->capacity = capacity ? capacity : 1;
    if (profiler_initialize(rp) || read_availability(rp) || host_initialize(rp, chip) ||
        build_config(rp) || enable(rp) || init_counter_data(rp) || set_config(rp))
        return -1;
    return 0;
}

int td_rp_start(td_rp *rp)
{
    if (rp->started)
        return 0;
    CUpti_RangeProfiler_Start_Params p = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = rp->object;
    TRY(rp, cuptiRangeProfilerStart(&p));
    rp->started = 1;
    return 0;
}

int td_rp_stop(td_rp *rp, size_t *ranges, size_t *dropped)
{
    *ranges = *dropped = 0;
    if (rp->started) {
        CUpti_RangeProfiler_Stop_Params stop = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        stop.pRangeProfilerObject = rp->object;
        rp->started = 0;
        TRY(rp, cuptiRangeProfilerStop(&stop));
    }
    CUpti_RangeProfiler_DecodeData_Params decode = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = rp->object;
    TRY(rp, cuptiRangeProfilerDecodeData(&decode));
    *dropped = decode.numOfRangeDropped;

    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = rp->data;
    info.counterDataImageSize = rp->data_size;
    TRY(rp, cuptiRangeProfilerGetCounterDataInfo(&info));
    *ranges = info.numTotalRanges;
    return 0;
}

int td_rp_eval(td_rp *rp, size_t range, double *values)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = rp->host;
    p.pCounterDataImage = rp->data;
    p.counterDataImageSize = rp->data_size;
    p.rangeIndex = range;
    p.ppMetricNames = rp->metrics;
    p.numMetrics = rp->n_metrics;
    p.pMetricValues = values;
    TRY(rp, cuptiProfilerHostEvaluateToGpuValues(&p));
    return 0;
}

const char *td_rp_range_name(td_rp *rp, size_t range)
{
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params p = {
        .structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    p.pCounterDataImage = rp->data;
    p.counterDataImageSize = rp->data_size;
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
    if (init_counter_data(rp) == 0 && set_config(rp) == 0)
        return 0;
    if (disable(rp) || enable(rp) || init_counter_data(rp) || set_config(rp))
        return -1;
    return 0;
}

void td_rp_close(td_rp *rp)
{
    if (rp->started) {
        size_t ranges, dropped;
        td_rp_stop(rp, &ranges, &dropped);
    }
    disable(rp);
    if (rp->host) {
        CUpti_Profiler_Host_Deinitialize_Params p = {
            .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        p.pHostObject = rp->host;
        cuptiProfilerHostDeinitialize(&p);
        rp->host = NULL;
    }
    free(rp->availability);
    free(rp->config);
    free(rp->data);
    rp->availability = rp->config = rp->data = NULL;
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
