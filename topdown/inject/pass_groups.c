#include "topdown/inject/pass_groups.h"

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RAW = 256 };

typedef struct builder {
    NVPW_MetricsEvaluator *evaluator;
    uint8_t *scratch;
    NVPA_RawMetricsConfig *raw;
    td_pass_groups_image *out;
} builder;

static int failed(builder *b, const char *call, NVPA_Status status)
{
    b->out->failed_call = call;
    b->out->status = (int)status;
    return -1;
}

#define TRY(b, call)                                    \
    do {                                                \
        NVPA_Status td_status_ = (call);                \
        if (td_status_ != NVPA_STATUS_SUCCESS)          \
            return failed((b), #call, td_status_);      \
    } while (0)

static int open_evaluator(builder *b, const char *chip, const uint8_t *avail)
{
    NVPW_InitializeHost_Params init = {.structSize = NVPW_InitializeHost_Params_STRUCT_SIZE};
    TRY(b, NVPW_InitializeHost(&init));
    NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params size = {
        .structSize = NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE};
    size.pChipName = chip;
    size.pCounterAvailabilityImage = avail;
    TRY(b, NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&size));
    b->scratch = calloc(size.scratchBufferSize ? size.scratchBufferSize : 1, 1);
    if (!b->scratch)
        return failed(b, "calloc", NVPA_STATUS_OUT_OF_MEMORY);
    NVPW_CUDA_MetricsEvaluator_Initialize_Params ev = {
        .structSize = NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE};
    ev.pScratchBuffer = b->scratch;
    ev.scratchBufferSize = size.scratchBufferSize;
    ev.pChipName = chip;
    ev.pCounterAvailabilityImage = avail;
    TRY(b, NVPW_CUDA_MetricsEvaluator_Initialize(&ev));
    b->evaluator = ev.pMetricsEvaluator;
    return 0;
}

/* Appends the raw counters metric depends on to names[0..*n), once each. */
static int add_raw_counters(builder *b, const char *metric, const char **names, size_t *n)
{
    NVPW_MetricEvalRequest request;
    NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params conv = {
        .structSize = NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE};
    conv.pMetricsEvaluator = b->evaluator;
    conv.pMetricName = metric;
    conv.pMetricEvalRequest = &request;
    conv.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    TRY(b, NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&conv));
    NVPW_MetricsEvaluator_GetMetricRawDependencies_Params deps = {
        .structSize = NVPW_MetricsEvaluator_GetMetricRawDependencies_Params_STRUCT_SIZE};
    deps.pMetricsEvaluator = b->evaluator;
    deps.pMetricEvalRequests = &request;
    deps.numMetricEvalRequests = 1;
    deps.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    deps.metricEvalRequestStrideSize = sizeof request;
    TRY(b, NVPW_MetricsEvaluator_GetMetricRawDependencies(&deps)); /* counts */
    const char *found[MAX_RAW], *optional[MAX_RAW];
    if (deps.numRawDependencies > MAX_RAW || deps.numOptionalRawDependencies > MAX_RAW)
        return failed(b, "NVPW_MetricsEvaluator_GetMetricRawDependencies(too many)",
                      NVPA_STATUS_INSUFFICIENT_SPACE);
    deps.ppRawDependencies = found;
    deps.ppOptionalRawDependencies = optional;
    TRY(b, NVPW_MetricsEvaluator_GetMetricRawDependencies(&deps));
    for (size_t d = 0; d < deps.numRawDependencies; d++) {
        int seen = 0;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = strcmp(names[i], found[d]) == 0;
        if (seen)
            continue;
        if (*n == MAX_RAW)
            return failed(b, "add_raw_counters(too many)", NVPA_STATUS_INSUFFICIENT_SPACE);
        names[(*n)++] = found[d];
    }
    return 0;
}

/* One pass group of the group's raw counters. maxPassCount counts the
 * passes of the whole config so far (measured: with 1, a second group
 * could not be added), so group g may end at pass g + 1. */
static int add_pass_group(builder *b, const char *const *metrics, size_t n, size_t passes_so_far)
{
    const char *names[MAX_RAW];
    size_t n_names = 0;
    for (size_t m = 0; m < n; m++)
        if (add_raw_counters(b, metrics[m], names, &n_names))
            return -1;
    NVPA_RawMetricRequest requests[MAX_RAW];
    for (size_t i = 0; i < n_names; i++)
        requests[i] = (NVPA_RawMetricRequest){.structSize = NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE,
                                              .pMetricName = names[i],
                                              .isolated = 1,
                                              .keepInstances = 1};
    NVPW_RawMetricsConfig_BeginPassGroup_Params begin = {
        .structSize = NVPW_RawMetricsConfig_BeginPassGroup_Params_STRUCT_SIZE};
    begin.pRawMetricsConfig = b->raw;
    begin.maxPassCount = passes_so_far + 1;
    TRY(b, NVPW_RawMetricsConfig_BeginPassGroup(&begin));
    NVPW_RawMetricsConfig_AddMetrics_Params add = {
        .structSize = NVPW_RawMetricsConfig_AddMetrics_Params_STRUCT_SIZE};
    add.pRawMetricsConfig = b->raw;
    add.pRawMetricRequests = requests;
    add.numMetricRequests = n_names;
    TRY(b, NVPW_RawMetricsConfig_AddMetrics(&add));
    NVPW_RawMetricsConfig_EndPassGroup_Params end = {
        .structSize = NVPW_RawMetricsConfig_EndPassGroup_Params_STRUCT_SIZE};
    end.pRawMetricsConfig = b->raw;
    TRY(b, NVPW_RawMetricsConfig_EndPassGroup(&end));
    return 0;
}

static int fetch_image(builder *b)
{
    NVPW_RawMetricsConfig_GenerateConfigImage_Params gen = {
        .structSize = NVPW_RawMetricsConfig_GenerateConfigImage_Params_STRUCT_SIZE};
    gen.pRawMetricsConfig = b->raw;
    gen.mergeAllPassGroups = 0; /* the passes are the groups */
    TRY(b, NVPW_RawMetricsConfig_GenerateConfigImage(&gen));
    NVPW_RawMetricsConfig_GetConfigImage_Params get = {
        .structSize = NVPW_RawMetricsConfig_GetConfigImage_Params_STRUCT_SIZE};
    get.pRawMetricsConfig = b->raw;
    TRY(b, NVPW_RawMetricsConfig_GetConfigImage(&get)); /* sizes */
    uint8_t *image = calloc(get.bytesCopied ? get.bytesCopied : 1, 1);
    if (!image)
        return failed(b, "calloc", NVPA_STATUS_OUT_OF_MEMORY);
    get.bytesAllocated = get.bytesCopied;
    get.pBuffer = image;
    NVPA_Status status = NVPW_RawMetricsConfig_GetConfigImage(&get);
    if (status != NVPA_STATUS_SUCCESS) {
        free(image);
        return failed(b, "NVPW_RawMetricsConfig_GetConfigImage", status);
    }
    b->out->image = image;
    b->out->size = get.bytesCopied;
    NVPW_RawMetricsConfig_GetNumPasses_V2_Params passes = {
        .structSize = NVPW_RawMetricsConfig_GetNumPasses_V2_Params_STRUCT_SIZE};
    passes.pRawMetricsConfig = b->raw;
    TRY(b, NVPW_RawMetricsConfig_GetNumPasses_V2(&passes));
    b->out->passes = passes.numPasses;
    return 0;
}

static int build(builder *b, const char *chip, const uint8_t *avail,
                 const char *const *const *groups, const size_t *sizes, size_t n_groups)
{
    if (open_evaluator(b, chip, avail))
        return -1;
    NVPW_CUDA_RawMetricsConfig_Create_V2_Params create = {
        .structSize = NVPW_CUDA_RawMetricsConfig_Create_V2_Params_STRUCT_SIZE};
    create.activityKind = NVPA_ACTIVITY_KIND_PROFILER;
    create.pChipName = chip;
    create.pCounterAvailabilityImage = avail;
    TRY(b, NVPW_CUDA_RawMetricsConfig_Create_V2(&create));
    b->raw = create.pRawMetricsConfig;
    for (size_t g = 0; g < n_groups; g++)
        if (add_pass_group(b, groups[g], sizes[g], g))
            return -1;
    return fetch_image(b);
}

int td_pass_groups_build(const char *chip, const uint8_t *avail, const char *const *const *groups,
                         const size_t *sizes, size_t n_groups, td_pass_groups_image *out)
{
    memset(out, 0, sizeof *out);
    builder b = {.out = out};
    int rc = build(&b, chip, avail, groups, sizes, n_groups);
    if (rc == 0 && out->passes != n_groups)
        rc = failed(&b, "NVPW_RawMetricsConfig_GetNumPasses_V2(a pass per group)",
                    NVPA_STATUS_INVALID_OBJECT_STATE);
    if (rc != 0) {
        free(out->image);
        out->image = NULL;
        out->size = 0;
    }
    if (b.raw) {
        NVPW_RawMetricsConfig_Destroy_Params destroy = {
            .structSize = NVPW_RawMetricsConfig_Destroy_Params_STRUCT_SIZE};
        destroy.pRawMetricsConfig = b.raw;
        NVPW_RawMetricsConfig_Destroy(&destroy);
    }
    if (b.evaluator) {
        NVPW_MetricsEvaluator_Destroy_Params destroy = {
            .structSize = NVPW_MetricsEvaluator_Destroy_Params_STRUCT_SIZE};
        destroy.pMetricsEvaluator = b.evaluator;
        NVPW_MetricsEvaluator_Destroy(&destroy);
    }
    free(b.scratch);
    return rc;
}
