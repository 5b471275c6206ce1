// pm_probe: what PM sampling can carry on this GPU (issue 38). With the
// device's counter availability image: the PM-sampling passes of each model
// counter alone and of its rollup variants, the single-pass groups
// (metrics/arch/pm_groups.c) of the arch table's counters, and for each
// group the cost of switching to it (SetConfig, Start, Decode, Stop) and
// what it measured over a busy kernel (GPU-wide sums over the samples).
//
//   pm_probe ARCHS_DIR [INTERVAL_NS]     (prints a table; exit 0 when done)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "metrics/arch/arch.h"
#include "metrics/arch/host_config.h"
#include "metrics/arch/pm_groups.h"
}

#define CK(call)                                                                          \
    do {                                                                                  \
        CUptiResult rc_ = (call);                                                         \
        if (rc_ != CUPTI_SUCCESS) {                                                       \
            const char *t_ = "?";                                                         \
            cuptiGetResultString(rc_, &t_);                                               \
            fprintf(stderr, "pm_probe: %s failed: %s\n", #call, t_);                      \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct oracle {
    const char *chip;
    const uint8_t *avail;
};

static int device_passes(void *ctx, const char *const *m, size_t n, size_t *passes)
{
    oracle *o = (oracle *)ctx;
    CUpti_Profiler_Host_Object *host = NULL;
    if (td_host_open(CUPTI_PROFILER_TYPE_PM_SAMPLING, o->chip, o->avail, &host) != CUPTI_SUCCESS)
        return -1;
    td_host_config cfg;
    CUptiResult rc = td_host_config_build(host, m, n, &cfg);
    td_host_close(host);
    if (rc != CUPTI_SUCCESS)
        return -1;
    free(cfg.image);
    *passes = cfg.passes;
    return 0;
}

__global__ void busy(const float *in, float *out, size_t n, int reps)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float acc = 0;
    for (int r = 0; r < reps; r++) {
        size_t j = (i * 33 + (size_t)r * 4099) % n;
        acc = acc * 0.999f + in[j];
        if (threadIdx.x % 3 == 0)
            acc = __sinf(acc);
        __syncthreads();
    }
    out[i % n] = acc;
}

/* Configures, starts, runs the busy kernel, decodes and stops one set;
 * prints the times and the sums over its samples. */
static void measure_set(oracle *o, CUpti_PmSampling_Object *obj, const char *tag,
                        const char *const *metrics, size_t n, uint64_t interval, float *in,
                        float *out, size_t elems)
{
    size_t passes = 0;
    int prc = device_passes(o, metrics, n, &passes);
    printf("set %s (%zu metrics, host passes %s%zu):", tag, n, prc ? "error " : "", passes);
    for (size_t j = 0; j < n; j++)
        printf(" %s", metrics[j]);
    printf("\n");
    CUpti_Profiler_Host_Object *host = NULL;
    if (td_host_open(CUPTI_PROFILER_TYPE_PM_SAMPLING, o->chip, o->avail, &host) != CUPTI_SUCCESS)
        return;
    td_host_config cfg;
    if (td_host_config_build(host, metrics, n, &cfg) != CUPTI_SUCCESS) {
        printf("    config build failed at %s\n", cfg.failed_call);
        td_host_close(host);
        return;
    }
    double t0 = now_ms();
    CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    sc.pPmSamplingObject = obj;
    sc.configSize = cfg.size;
    sc.pConfig = cfg.image;
    sc.hardwareBufferSize = 64u << 20;
    sc.samplingInterval = interval;
    sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    CUptiResult rc = cuptiPmSamplingSetConfig(&sc);
    double t1 = now_ms();
    if (rc != CUPTI_SUCCESS) {
        const char *t = "?";
        cuptiGetResultString(rc, &t);
        printf("    setconfig refused (%.3f ms): %s\n", t1 - t0, t);
        free(cfg.image);
        td_host_close(host);
        return;
    }
    CUpti_PmSampling_GetCounterDataSize_Params ds = {
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pPmSamplingObject = obj;
    ds.pMetricNames = (const char **)metrics;
    ds.numMetrics = n;
    ds.maxSamples = 512;
    CK(cuptiPmSamplingGetCounterDataSize(&ds));
    uint8_t *image = (uint8_t *)calloc(ds.counterDataSize, 1);
    CUpti_PmSampling_CounterDataImage_Initialize_Params ii = {
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ii.pPmSamplingObject = obj;
    ii.counterDataSize = ds.counterDataSize;
    ii.pCounterData = image;
    CK(cuptiPmSamplingCounterDataImageInitialize(&ii));
    double t2 = now_ms();
    CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    st.pPmSamplingObject = obj;
    rc = cuptiPmSamplingStart(&st);
    double t3 = now_ms();
    if (rc != CUPTI_SUCCESS) {
        const char *t = "?";
        cuptiGetResultString(rc, &t);
        printf("    start refused: %s\n", t);
        free(image);
        free(cfg.image);
        td_host_close(host);
        return;
    }
    busy<<<1024, 256>>>(in, out, elems, 2000);
    cudaDeviceSynchronize();
    double t4 = now_ms();
    CUpti_PmSampling_DecodeData_Params dd = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
    dd.pPmSamplingObject = obj;
    dd.pCounterDataImage = image;
    dd.counterDataImageSize = ds.counterDataSize;
    CUptiResult drc = cuptiPmSamplingDecodeData(&dd);
    double t5 = now_ms();
    CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    sp.pPmSamplingObject = obj;
    CK(cuptiPmSamplingStop(&sp));
    double t6 = now_ms();
    CUpti_PmSampling_GetCounterDataInfo_Params gi = {
        CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
    gi.pCounterDataImage = image;
    gi.counterDataImageSize = ds.counterDataSize;
    CK(cuptiPmSamplingGetCounterDataInfo(&gi));
    double sums[TD_PM_MAX_PER_GROUP] = {0}, vals[TD_PM_MAX_PER_GROUP];
    size_t evaluated = 0;
    for (size_t s = 0; s < gi.numCompletedSamples; s++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = host;
        ev.pCounterDataImage = image;
        ev.counterDataImageSize = ds.counterDataSize;
        ev.rangeIndex = s;
        ev.ppMetricNames = (const char **)metrics;
        ev.numMetrics = n;
        ev.pMetricValues = vals;
        if (cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS)
            break;
        evaluated++;
        for (size_t m = 0; m < n; m++)
            if (vals[m] >= 0 && vals[m] < 1e300)
                sums[m] += vals[m];
    }
    printf("    setconfig %.3f ms, image %zu bytes init %.3f, start %.3f, kernel %.2f, decode %.3f "
           "(rc %d), stop %.3f; %zu samples, %zu evaluated\n",
           t1 - t0, ds.counterDataSize, t2 - t1, t3 - t2, t4 - t3, t5 - t4, (int)drc, t6 - t5,
           (size_t)gi.numCompletedSamples, evaluated);
    for (size_t m = 0; m < n; m++)
        printf("    %-50s %.6g\n", metrics[m], sums[m]);
    /* The config, counter data image and host object stay: a second
     * SetConfig on the object read the first one's freed config (a
     * segfault on an H200), so they live as long as the object here. */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pm_probe ARCHS_DIR [INTERVAL_NS]\n");
        return 2;
    }
    uint64_t interval = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
    setvbuf(stdout, NULL, _IONBF, 0);
    cudaError_t crc = cudaFree(0);
    if (crc != cudaSuccess) {
        fprintf(stderr, "pm_probe: no CUDA device: %s\n", cudaGetErrorString(crc));
        return 1;
    }
    /* the profiler interface first: CUPTI's chip-name query needs it */
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CK(cuptiProfilerInitialize(&init));
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = 0;
    CK(cuptiDeviceGetChipName(&chip));
    td_arch_set set;
    td_error err;
    if (td_arch_load_dir(argv[1], &set, &err)) {
        fprintf(stderr, "pm_probe: %s\n", err.msg);
        return 1;
    }
    const td_arch *arch = td_arch_for_chip(&set, chip.pChipName);
    if (!arch) {
        fprintf(stderr, "pm_probe: no arch table for %s\n", chip.pChipName);
        return 1;
    }
    CUpti_PmSampling_GetCounterAvailability_Params av = {
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
    av.deviceIndex = 0;
    CK(cuptiPmSamplingGetCounterAvailability(&av));
    uint8_t *avail = (uint8_t *)calloc(av.counterAvailabilityImageSize, 1);
    av.pCounterAvailabilityImage = avail;
    CK(cuptiPmSamplingGetCounterAvailability(&av));
    oracle o = {chip.pChipName, avail};
    printf("chip %s, arch table %s, availability image %zu bytes\n", chip.pChipName, arch->name,
           av.counterAvailabilityImageSize);

    const char *all[TD_COUNTER_COUNT + TD_MAX_STALLS];
    size_t n = td_arch_metrics(arch, all, sizeof all / sizeof *all);
    const char *rollups[] = {".sum", ".avg", ".max"};
    for (size_t i = 0; i < n; i++) {
        printf("alone %-50s", all[i]);
        char base[256];
        snprintf(base, sizeof base, "%s", all[i]);
        char *dot = strrchr(base, '.');
        if (dot)
            *dot = 0;
        for (size_t r = 0; r < 3; r++) {
            char m[300];
            snprintf(m, sizeof m, "%s%s", base, rollups[r]);
            const char *mm = m;
            size_t p = 0;
            int rc = device_passes(&o, &mm, 1, &p);
            printf(" %s=%s", rollups[r], rc ? "x" : p == 1 ? "1" : p == 2 ? "2" : "3+");
        }
        printf("\n");
    }
    const char *anchors[] = {arch->counter[TD_C_CYCLES_ACTIVE]};
    /* every model counter the tree reads; duration, warps active and
     * elapsed cycles come from each sample's own times */
    const char *want[TD_COUNTER_COUNT + TD_MAX_STALLS];
    size_t n_want = 0;
    const td_counter model[] = {TD_C_INST_EXECUTED, TD_C_INST_ISSUED, TD_C_THREAD_INST_EXECUTED};
    for (size_t i = 0; i < 3; i++)
        if (arch->counter[model[i]])
            want[n_want++] = arch->counter[model[i]];
    for (size_t i = 0; i < arch->n_stalls; i++)
        want[n_want++] = arch->stalls[i].metric;
    td_pm_plan plan;
    double t = now_ms();
    if (td_pm_plan_groups(anchors, 1, want, n_want, device_passes, &o, &plan, &err)) {
        fprintf(stderr, "pm_probe: %s\n", err.msg);
        return 1;
    }
    printf("plan: %zu groups, %zu unplaced (%.0f ms to plan)\n", plan.n_groups, plan.n_unplaced,
           now_ms() - t);
    for (size_t u = 0; u < plan.n_unplaced && u < TD_PM_MAX_GROUPS; u++)
        printf("  unplaced %s\n", plan.unplaced[u]);
    for (size_t g = 0; g < plan.n_groups; g++) {
        printf("  group %zu:", g);
        for (size_t j = 0; j < plan.n_metrics[g]; j++)
            printf(" %s", plan.metrics[g][j]);
        printf("\n");
    }

    size_t elems = 1 << 26;
    float *in, *out;
    cudaMalloc(&in, elems * sizeof(float));
    cudaMalloc(&out, elems * sizeof(float));
    cudaMemset(in, 1, elems * sizeof(float));
    busy<<<1024, 256>>>(in, out, elems, 200);
    cudaDeviceSynchronize();
    t = now_ms();
    busy<<<1024, 256>>>(in, out, elems, 2000);
    cudaDeviceSynchronize();
    printf("busy kernel: %.2f ms\n", now_ms() - t);

    double t_en = now_ms();
    CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    en.deviceIndex = 0;
    CK(cuptiPmSamplingEnable(&en));
    t_en = now_ms() - t_en;
    printf("enable %.3f ms\n", t_en);
    for (size_t g = 0; g < plan.n_groups; g++)
        measure_set(&o, en.pPmSamplingObject, "plan", plan.metrics[g], plan.n_metrics[g], interval, in, out, elems);
    /* more sets from stdin, one a line, comma-separated (issue 38: which
     * sets PM sampling takes in one configuration, whatever the host's
     * pass count says) */
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        const char *set[TD_PM_MAX_PER_GROUP];
        size_t k = 0;
        for (char *tok = strtok(line, ", \n"); tok && k < TD_PM_MAX_PER_GROUP; tok = strtok(NULL, ", \n"))
            set[k++] = strdup(tok);
        if (k && getenv("PM_PROBE_REENABLE")) {
            /* a fresh object for each set: does SetConfig take effect only
             * on an object's first config? */
            double t0 = now_ms();
            CUpti_PmSampling_Disable_Params dis = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
            dis.pPmSamplingObject = en.pPmSamplingObject;
            CK(cuptiPmSamplingDisable(&dis));
            double t1 = now_ms();
            en.pPmSamplingObject = NULL;
            CK(cuptiPmSamplingEnable(&en));
            printf("re-enable: disable %.3f ms, enable %.3f ms\n", t1 - t0, now_ms() - t1);
        }
        if (k)
            measure_set(&o, en.pPmSamplingObject, "stdin", set, k, interval, in, out, elems);
    }
    CUpti_PmSampling_Disable_Params di = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    di.pPmSamplingObject = en.pPmSamplingObject;
    t = now_ms();
    CK(cuptiPmSamplingDisable(&di));
    printf("disable %.3f ms\n", now_ms() - t);
    free(avail);
    td_arch_set_free(&set);
    return 0;
}
