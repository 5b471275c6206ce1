#include "metrics/arch/host_config.h"

#include <stdlib.h>

CUptiResult td_host_open(CUpti_ProfilerType type, const char *chip, const uint8_t *avail,
                         CUpti_Profiler_Host_Object **host)
{
    CUpti_Profiler_Host_Initialize_Params p = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = type,
        .pChipName = chip,
        .pCounterAvailabilityImage = avail,
    };
    CUptiResult rc = cuptiProfilerHostInitialize(&p);
    *host = rc == CUPTI_SUCCESS ? p.pHostObject : NULL;
    return rc;
}

void td_host_close(CUpti_Profiler_Host_Object *host)
{
    if (!host)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    cuptiProfilerHostDeinitialize(&p);
}

static CUptiResult fail(td_host_config *out, const char *call, CUptiResult rc)
{
    free(out->image);
    out->image = NULL;
    out->size = out->passes = 0;
    out->failed_call = call;
    return rc;
}

CUptiResult td_host_config_build(CUpti_Profiler_Host_Object *host, const char *const *metrics,
                                 size_t n, td_host_config *out)
{
    *out = (td_host_config){0};
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = host,
        .ppMetricNames = (const char **)metrics,
        .numMetrics = n,
    };
    CUptiResult rc = cuptiProfilerHostConfigAddMetrics(&add);
    if (rc != CUPTI_SUCCESS)
        return fail(out, "cuptiProfilerHostConfigAddMetrics", rc);
    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    if ((rc = cuptiProfilerHostGetConfigImageSize(&size)) != CUPTI_SUCCESS)
        return fail(out, "cuptiProfilerHostGetConfigImageSize", rc);
    out->size = size.configImageSize;
    out->image = calloc(out->size ? out->size : 1, 1);
    if (!out->image)
        return fail(out, "calloc", CUPTI_ERROR_OUT_OF_MEMORY);
    CUpti_Profiler_Host_GetConfigImage_Params get = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = host,
        .configImageSize = out->size,
        .pConfigImage = out->image,
    };
    if ((rc = cuptiProfilerHostGetConfigImage(&get)) != CUPTI_SUCCESS)
        return fail(out, "cuptiProfilerHostGetConfigImage", rc);
    CUpti_Profiler_Host_GetNumOfPasses_Params count = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = out->size,
        .pConfigImage = out->image,
    };
    if ((rc = cuptiProfilerHostGetNumOfPasses(&count)) != CUPTI_SUCCESS)
        return fail(out, "cuptiProfilerHostGetNumOfPasses", rc);
    out->passes = count.numOfPasses;
    return CUPTI_SUCCESS;
}
