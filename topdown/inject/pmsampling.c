#include "topdown/inject/pmsampling.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metrics/arch/host_config.h"
#include "metrics/result/pm_samples.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/spool_writer.h"

/* The hardware buffer the GPU writes samples into, and how often the
 * decode thread empties it. */
#define HW_BUFFER_BYTES (64u << 20)
#define DECODE_PERIOD_NS 50000000L
/* Decode calls per wake-up of the decode thread while the app runs. */
#define RUN_ROUNDS 64
#define MAX_PM_METRICS (TD_COUNTER_COUNT + TD_MAX_STALLS)

typedef struct sampler {
    uint32_t device, context;
    char chip[64];
    CUpti_PmSampling_Object *object;
    CUpti_Profiler_Host_Object *host;
    const char *metrics[MAX_PM_METRICS]; /* borrowed from the arch table */
    size_t n_metrics;
    uint8_t *config, *image;
    size_t config_size, image_size, image_samples;
    uint64_t interval_ns, t0;
    uint64_t overflows;
    uint64_t end_ts;      /* the app's end (CUPTI time): later samples are idle */
    uint64_t last_end;    /* end of the last sample decoded */
    uint64_t decoded, decode_ns; /* samples decoded, and the time it took */
    uint64_t first_start, covered_ns; /* the first sample, and the time samples cover */
    uint64_t lost_overflows; /* overflows over the whole run, for the warning */
    int started;
    int clock_said;       /* a sample before the run's start was reported */
    struct sampler *next;
} sampler;

static struct {
    pthread_mutex_t lock; /* the list and every sampler's CUPTI calls */
    sampler *list;
    pthread_t thread;
    int thread_running;
    int stopping;
    pthread_cond_t wake;
    /* Set without the lock, so that a decode thread holding it through
     * its rounds sees the end at its next round, not 64 rounds later. */
    atomic_int stop_asked;
} pms = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, PTHREAD_COND_INITIALIZER, 0};

/* TOPDOWN_DEBUG: what the sampler does (debug.h). */
#define DBG(...) td_debug("pms", __VA_ARGS__)

static void report(const sampler *s, const char *call, CUptiResult rc)
{
    const char *text = NULL;
    if (cuptiGetResultString(rc, &text) != CUPTI_SUCCESS || !text)
        text = "unknown error";
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        td_sw_error("insufficient_privileges", "PM sampling on device %u: reading GPU "
                    "performance counters is restricted to administrators on this machine "
                    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)", s->device);
    else
        td_sw_error("pm_sampling_failed", "PM sampling on device %u (%s): %s failed: %s "
                    "(error %d); no PM timeline for it", s->device, s->chip, call, text, (int)rc);
}

#define CALL(s, call)                         \
    do {                                      \
        CUptiResult rc_ = (call);             \
        if (rc_ != CUPTI_SUCCESS) {           \
            report((s), #call, rc_);          \
            return -1;                        \
        }                                     \
    } while (0)

size_t td_pms_candidates(const td_arch *arch, const char **names, size_t cap, size_t *base)
{
    size_t n = 0;
    for (size_t i = 0; i < arch->n_pm_metrics && n < cap; i++)
        names[n++] = arch->pm_metrics[i];
    *base = n;
    const char *thread = arch->counter[TD_C_THREAD_INST_EXECUTED];
    int have = 0;
    for (size_t i = 0; thread && i < n; i++)
        have |= strcmp(names[i], thread) == 0;
    if (thread && !have && n < cap)
        names[n++] = thread;
    for (size_t i = 0; i < arch->n_stalls && n < cap; i++) {
        int dup = 0;
        for (size_t j = 0; j < *base; j++)
            dup |= strcmp(names[j], arch->stalls[i].metric) == 0;
        if (!dup)
            names[n++] = arch->stalls[i].metric;
    }
    return n;
}

/* ---- setting up --------------------------------------------------------- */

static int availability(sampler *s, uint8_t **image)
{
    CUpti_PmSampling_GetCounterAvailability_Params p = {
        .structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
    p.deviceIndex = s->device;
    CALL(s, cuptiPmSamplingGetCounterAvailability(&p));
    *image = calloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1, 1);
    if (!*image)
        return -1;
    p.pCounterAvailabilityImage = *image;
    CALL(s, cuptiPmSamplingGetCounterAvailability(&p));
    return 0;
}

/* A host object holding metrics[0..n) and its config image; passes out. */
static int host_config(sampler *s, const uint8_t *avail, const char **metrics, size_t n,
                       CUpti_Profiler_Host_Object **host, uint8_t **config, size_t *size,
                       size_t *passes)
{
    *host = NULL;
    *config = NULL;
    if (td_host_open(CUPTI_PROFILER_TYPE_PM_SAMPLING, s->chip, avail, host) != CUPTI_SUCCESS)
        return -1;
    td_host_config built;
    if (td_host_config_build(*host, metrics, n, &built) != CUPTI_SUCCESS) {
        td_host_close(*host);
        *host = NULL;
        return -1;
    }
    *config = built.image;
    *size = built.size;
    *passes = built.passes;
    return 0;
}

/* Keeps set[0..n) in s (host object, config image) if it is one pass
 * on this device; 1 if kept. */
static int try_set(sampler *s, const uint8_t *avail, const char **set, size_t n)
{
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t size = 0, passes = 0;
    if (n == 0 || host_config(s, avail, set, n, &host, &config, &size, &passes) != 0)
        return 0;
    if (passes != 1) {
        free(config);
        td_host_close(host);
        return 0;
    }
    td_host_close(s->host);
    free(s->config);
    s->host = host;
    s->config = config;
    s->config_size = size;
    memcpy(s->metrics, set, n * sizeof *set);
    s->n_metrics = n;
    return 1;
}

/* The largest candidate set of one pass on this device: the table's set
 * (else cycles and executed instructions alone), then with
 * thread_inst_executed, then with every stall reason at once. The device's
 * availability image can differ from the host API's view without one. */
static int choose_metrics(sampler *s, const td_arch *arch, const uint8_t *avail)
{
    const char *cand[MAX_PM_METRICS], *set[MAX_PM_METRICS];
    size_t base = 0, n = td_pms_candidates(arch, cand, MAX_PM_METRICS, &base);
    const char *thread = arch->counter[TD_C_THREAD_INST_EXECUTED];
    size_t first_stall = base + (n > base && thread && strcmp(cand[base], thread) == 0);
    if (!try_set(s, avail, cand, base)) {
        const char *two[2] = {arch->counter[TD_C_CYCLES_ACTIVE], arch->counter[TD_C_INST_EXECUTED]};
        if (!two[0] || !two[1] || !try_set(s, avail, two, 2))
            return -1;
        td_sw_warning("PM sampling on device %u: the arch table's set of %zu metrics takes "
                      "more than one pass with this device's counter availability; sampling "
                      "active cycles and executed instructions only", s->device, base);
    }
    size_t grown = s->n_metrics;
    int thread_added = 0, stalls_added = 0;
    memcpy(set, s->metrics, grown * sizeof *set);
    if (first_stall > base) {
        set[grown] = thread;
        if ((thread_added = try_set(s, avail, set, grown + 1)))
            grown++;
    }
    memcpy(set + grown, cand + first_stall, (n - first_stall) * sizeof *set);
    if (n > first_stall && (stalls_added = try_set(s, avail, set, grown + n - first_stall)))
        grown += n - first_stall;
    if (thread_added || stalls_added)
        td_sw_warning("PM sampling on device %u: with this device's counter availability "
                      "%s%s%s fit%s the same pass as the arch table's set; update the table's "
                      "\"pm_sampling\" (docs/ARCH_TABLES.md)", s->device,
                      thread_added ? "thread_inst_executed" : "",
                      thread_added && stalls_added ? " and " : "",
                      stalls_added ? "every stall reason" : "",
                      thread_added && stalls_added ? "" : "s");
    return 0;
}

size_t td_pms_image_samples(size_t header_bytes, size_t sample_bytes, uint64_t interval_ns)
{
    uint64_t want = 2 * (uint64_t)DECODE_PERIOD_NS / (interval_ns ? interval_ns : 1) + 16;
    size_t fit = header_bytes < TD_PMS_IMAGE_BYTES && sample_bytes
                     ? (TD_PMS_IMAGE_BYTES - header_bytes) / sample_bytes
                     : TD_PMS_IMAGE_MIN_SAMPLES;
    size_t n = want < fit ? (size_t)want : fit;
    if (n < TD_PMS_IMAGE_MIN_SAMPLES)
        n = TD_PMS_IMAGE_MIN_SAMPLES;
    return n > TD_PMS_IMAGE_MAX_SAMPLES ? TD_PMS_IMAGE_MAX_SAMPLES : n;
}

/* The counter-data image's size for n samples; 0 on failure (said). */
static size_t image_bytes(sampler *s, size_t n)
{
    CUpti_PmSampling_GetCounterDataSize_Params size = {
        .structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pPmSamplingObject = s->object;
    size.pMetricNames = s->metrics;
    size.numMetrics = s->n_metrics;
    size.maxSamples = (uint32_t)n;
    CUptiResult rc = cuptiPmSamplingGetCounterDataSize(&size);
    if (rc != CUPTI_SUCCESS) {
        report(s, "cuptiPmSamplingGetCounterDataSize", rc);
        return 0;
    }
    return size.counterDataSize;
}

/* The counter-data image made empty, ready for the next decode. */
static CUptiResult init_image(const sampler *s)
{
    CUpti_PmSampling_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pPmSamplingObject = s->object;
    init.counterDataSize = s->image_size;
    init.pCounterData = s->image;
    return cuptiPmSamplingCounterDataImageInitialize(&init);
}

/* CUPTI's image holds every sample's raw counters (about 41 KB a sample
 * for three metrics on GH100): sized by memory (td_pms_image_samples),
 * from the sizes of one and two samples. */
static int counter_image(sampler *s)
{
    size_t one = image_bytes(s, 1), two = one ? image_bytes(s, 2) : 0;
    if (!one || two <= one)
        return -1;
    size_t n = td_pms_image_samples(one > two - one ? one - (two - one) : 0, two - one,
                                    s->interval_ns);
    if (!(s->image_size = image_bytes(s, n)))
        return -1;
    s->image_samples = n;
    s->image = calloc(s->image_size ? s->image_size : 1, 1);
    if (!s->image)
        return -1;
    CUptiResult rc = init_image(s);
    if (rc != CUPTI_SUCCESS) {
        report(s, "cuptiPmSamplingCounterDataImageInitialize(&init)", rc);
        return -1;
    }
    return 0;
}

/* The profiler interface must be up before any PM-sampling call, the
 * availability query included (CUPTI's pm_sampling sample does the same). */
static int profiler_init(sampler *s)
{
    static int done; /* once per process; callers hold pms.lock */
    if (done)
        return 0;
    CUpti_Profiler_Initialize_Params prof = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CALL(s, cuptiProfilerInitialize(&prof));
    done = 1;
    return 0;
}

static int enable_and_start(sampler *s)
{
    CUpti_PmSampling_Enable_Params en = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    en.deviceIndex = s->device;
    CALL(s, cuptiPmSamplingEnable(&en));
    s->object = en.pPmSamplingObject;
    CUpti_PmSampling_SetConfig_Params cfg = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    cfg.pPmSamplingObject = s->object;
    cfg.configSize = s->config_size;
    cfg.pConfig = s->config;
    cfg.hardwareBufferSize = HW_BUFFER_BYTES;
    cfg.samplingInterval = s->interval_ns;
    /* GPU time, not SYSCLK cycles (whose clock varies); Ampere GA10x and
     * later (not Turing, not GA100: CUPTI refuses it there). */
    cfg.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    cfg.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    CALL(s, cuptiPmSamplingSetConfig(&cfg));
    if (counter_image(s))
        return -1;
    CUpti_PmSampling_Start_Params start = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    start.pPmSamplingObject = s->object;
    CALL(s, cuptiPmSamplingStart(&start));
    s->started = 1;
    return 0;
}

static void sampler_free(sampler *s)
{
    DBG("device %u: freeing the sampler", s->device);
    if (s->object) {
        CUpti_PmSampling_Disable_Params p = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
        p.pPmSamplingObject = s->object;
        cuptiPmSamplingDisable(&p);
    }
    td_host_close(s->host);
    free(s->config);
    free(s->image);
    free(s);
}

/* ---- stopping before CUPTI's libraries at exit ---------------------------- */

static pid_t hooked_pid;

static void stop_at_exit(void)
{
    if (getpid() == hooked_pid) /* a fork()ed child has no decode thread */
        td_pms_stop_all();
}

/* exit() runs atexit handlers and C++ static destructors in the reverse
 * order of their registration. libnvperf_host, which CUPTI loads at the
 * first profiler host call, registers its destructors as it loads: after
 * the injection library's at_exit (InitializeInjection), so they ran
 * first, and the sampler's last decode then wrote into what they had
 * freed: the app died of a corrupted heap (issue 24). Registered once a
 * sampler has started and once more after the first decode (objects CUPTI
 * makes on first use), sampling stops before any of them. Callers hold
 * pms.lock. */
static void hook_exit(int after_decode)
{
    static int started, decoded;
    int *done = after_decode ? &decoded : &started;
    if (*done)
        return;
    *done = 1;
    hooked_pid = getpid();
    if (atexit(stop_at_exit) != 0)
        DBG("atexit failed: sampling is stopped by the injection library's own exit hook");
}

/* ---- decoding ------------------------------------------------------------ */

static uint64_t since_t0(const sampler *s, uint64_t t)
{
    return t > s->t0 ? t - s->t0 : 0;
}

int td_pms_sample_timed(uint64_t start, uint64_t end)
{
    return start != 0 && end > start;
}

/* Evaluates the completed samples of the image into one spool record. */
static int emit_samples(sampler *s)
{
    CUpti_PmSampling_GetCounterDataInfo_Params info = {
        .structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = s->image;
    info.counterDataImageSize = s->image_size;
    CALL(s, cuptiPmSamplingGetCounterDataInfo(&info));
    if (info.numCompletedSamples == 0)
        return 0;
    td_pm_samples *batch = NULL;
    td_error err;
    if (td_pm_create(&batch, s->metrics, s->n_metrics, s->interval_ns,
                     info.numCompletedSamples + 2, &err))
        return -1;
    double values[MAX_PM_METRICS];
    int rc = 0;
    size_t untimed = 0, idle = 0;
    for (size_t i = 0; rc == 0 && i < info.numCompletedSamples; i++) {
        CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
            .structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
        si.pPmSamplingObject = s->object;
        si.pCounterDataImage = s->image;
        si.counterDataImageSize = s->image_size;
        si.sampleIndex = i;
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = s->host;
        ev.pCounterDataImage = s->image;
        ev.counterDataImageSize = s->image_size;
        ev.rangeIndex = i;
        ev.ppMetricNames = s->metrics;
        ev.numMetrics = s->n_metrics;
        ev.pMetricValues = values;
        CUptiResult r1 = cuptiPmSamplingCounterDataGetSampleInfo(&si);
        CUptiResult r2 = r1 == CUPTI_SUCCESS ? cuptiProfilerHostEvaluateToGpuValues(&ev) : r1;
        if (r2 != CUPTI_SUCCESS) {
            report(s, r1 != CUPTI_SUCCESS ? "cuptiPmSamplingCounterDataGetSampleInfo"
                                          : "cuptiProfilerHostEvaluateToGpuValues", r2);
            rc = -1;
            break;
        }
        if (!td_pms_sample_timed(si.startTimestamp, si.endTimestamp)) {
            untimed++;
            continue;
        }
        if (si.endTimestamp > s->last_end)
            s->last_end = si.endTimestamp;
        if (s->end_ts && si.startTimestamp >= s->end_ts) {
            idle++; /* after the app's end: the GPU idles */
            continue;
        }
        if (!s->first_start)
            s->first_start = si.startTimestamp;
        s->covered_ns += si.endTimestamp - si.startTimestamp;
        if (si.startTimestamp < s->t0 && !s->clock_said) {
            /* Not the launches' clock (CUPTI timestamps): the kernels
             * laid over the timeline would be misplaced. */
            s->clock_said = 1;
            td_sw_warning("PM sampling on device %u: a sample starts %.3f ms before the run "
                          "did; its clock is not the launches' clock, so kernels laid over "
                          "the PM timeline may be misplaced", s->device,
                          (double)(s->t0 - si.startTimestamp) / 1e6);
        }
        for (size_t m = 0; m < s->n_metrics; m++)
            if (!(values[m] >= 0 && values[m] < 1e300))
                values[m] = 0; /* NaN or negative: nothing counted */
        rc = td_pm_add(batch, since_t0(s, si.startTimestamp), since_t0(s, si.endTimestamp),
                       values, &err);
    }
    batch->overflows = s->overflows;
    s->lost_overflows += s->overflows;
    s->overflows = 0;
    s->decoded += info.numCompletedSamples;
    DBG("device %u: %zu samples evaluated (rc %d), %zu rows, %zu without their times, %zu "
        "after the end", s->device, info.numCompletedSamples, rc, batch->n, untimed, idle);
    cJSON *rec = batch->n ? td_pm_to_json(batch) : NULL;
    td_pm_free(batch);
    if (rec) {
        cJSON_AddStringToObject(rec, "type", "pm_samples");
        cJSON_AddNumberToObject(rec, "pid", (double)getpid());
        cJSON_AddNumberToObject(rec, "context", s->context);
        cJSON_AddNumberToObject(rec, "device", s->device);
        td_sw_emit(rec);
    }
    return rc;
}

/* CUPTI's clock, the launches' and the samples' (0 if it fails). */
static uint64_t cupti_now(const sampler *s)
{
    uint64_t t = 0;
    if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS)
        DBG("device %u: no CUPTI timestamp: the drain runs until the buffer is empty or "
            "its time is spent", s ? s->device : 0u);
    return t;
}

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One decode: fills the image from the hardware buffer and writes its
 * samples as a spool record. 1: the buffer holds more (the image filled
 * up), 0: it is empty, -1: sampling failed (said; the sampler stops).
 * Caller holds pms.lock. */
static int decode_round(sampler *s)
{
    uint64_t t = mono_ns();
    CUpti_PmSampling_DecodeData_Params p = {.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
    p.pPmSamplingObject = s->object;
    p.pCounterDataImage = s->image;
    p.counterDataImageSize = s->image_size;
    CUptiResult rc = cuptiPmSamplingDecodeData(&p);
    DBG("device %u: decode: rc %d, stop reason %d, overflow %d", s->device, (int)rc,
        (int)p.decodeStopReason, (int)p.overflow);
    if (p.overflow || rc == CUPTI_ERROR_OUT_OF_MEMORY)
        s->overflows++;
    if (rc != CUPTI_SUCCESS && rc != CUPTI_ERROR_OUT_OF_MEMORY) {
        report(s, "cuptiPmSamplingDecodeData", rc);
        s->started = 0;
        return -1;
    }
    int more = p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
    if (emit_samples(s) != 0) {
        s->started = 0;
        return -1;
    }
    hook_exit(1);
    int ok = init_image(s) == CUPTI_SUCCESS;
    s->decode_ns += mono_ns() - t;
    return ok ? more : -1;
}

/* While the app runs: up to RUN_ROUNDS decodes, fewer when the end is asked
 * for (the drain takes over). Caller holds pms.lock. */
static void decode_running(sampler *s)
{
    for (int round = 0; s->started && round < RUN_ROUNDS && !atomic_load(&pms.stop_asked); round++)
        if (decode_round(s) != 1)
            return;
}

td_pms_drain td_pms_drain_next(int buffer_more, uint64_t last_end, uint64_t end_ts,
                               uint64_t spent_ns, uint64_t max_ns)
{
    if (!buffer_more)
        return TD_PMS_DRAIN_EMPTY;
    if (end_ts && last_end >= end_ts)
        return TD_PMS_DRAIN_CAUGHT_UP;
    return spent_ns >= max_ns ? TD_PMS_DRAIN_OUT_OF_TIME : TD_PMS_DRAIN_MORE;
}

/* At the end: decodes up to the app's end (s->end_ts) and no further. The
 * GPU goes on sampling its idle time into the buffer, and where decoding
 * is slower than sampling (GH100: ~48 us a sample, four metrics) a drain
 * "until empty" never ended: --pm-interval 20 on td_tiny decoded idle
 * samples for 40 s after the app's 1 s loop. Caller holds pms.lock. */
static void drain(sampler *s)
{
    uint64_t t0 = mono_ns();
    td_pms_drain state = TD_PMS_DRAIN_MORE;
    while (s->started && state == TD_PMS_DRAIN_MORE) {
        int more = decode_round(s);
        if (more < 0)
            return;
        state = td_pms_drain_next(more, s->last_end, s->end_ts, mono_ns() - t0,
                                  TD_PMS_DRAIN_MAX_NS);
    }
    DBG("device %u: drained in %.1f ms (state %d)", s->device, (double)(mono_ns() - t0) / 1e6,
        (int)state);
    if (state == TD_PMS_DRAIN_OUT_OF_TIME)
        td_sw_warning("PM sampling on device %u: the samples of the run's last %.0f ms were not "
                      "decoded (decoding stops %.1f s after the app's end)", s->device,
                      s->end_ts > s->last_end ? (double)(s->end_ts - s->last_end) / 1e6 : 0.0,
                      (double)TD_PMS_DRAIN_MAX_NS / 1e9);
}

/* Samples were lost during the run: the GPU samples into its buffer
 * faster than CUPTI decodes it. CUPTI flags an overflow only sometimes: at
 * 20 us on GH100 (H200, four metrics) the samples came in bursts of ~14 ms
 * with ~40 ms gaps and no overflow flag, so the gaps are measured too. */
static void say_lost(const sampler *s)
{
    uint64_t span = s->end_ts > s->first_start && s->first_start ? s->end_ts - s->first_start : 0;
    double covered = span ? (double)s->covered_ns / (double)span : 1.0;
    if ((!s->lost_overflows && covered >= TD_PMS_COVERED_ENOUGH) || !s->decoded)
        return;
    double us_per_sample = (double)s->decode_ns / (double)s->decoded / 1e3;
    td_sw_warning("PM sampling on device %u: samples cover %.0f%% of the run (%llu overflow%s): "
                  "the GPU sampled every %.0f us into its buffer faster than CUPTI decoded it "
                  "(%.0f us a sample), and dropped what came while the buffer was full; "
                  "--pm-interval %.0f or more keeps them all", s->device, 100.0 * covered,
                  (unsigned long long)s->lost_overflows, s->lost_overflows == 1 ? "" : "s",
                  (double)s->interval_ns / 1e3, us_per_sample,
                  (double)(uint64_t)(us_per_sample * 1.25 + 1));
}

static void *decode_loop(void *arg)
{
    (void)arg;
    DBG("decode thread starts");
    pthread_mutex_lock(&pms.lock);
    while (!pms.stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += DECODE_PERIOD_NS;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        int rc = 0;
        while (!pms.stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&pms.wake, &pms.lock, &until);
        for (sampler *s = pms.list; !pms.stopping && s; s = s->next)
            decode_running(s);
    }
    pthread_mutex_unlock(&pms.lock);
    DBG("decode thread ends");
    return NULL;
}

static void stop(sampler *s)
{
    if (!s->started)
        return;
    if (!s->end_ts)
        s->end_ts = cupti_now(s);
    drain(s);
    CUpti_PmSampling_Stop_Params p = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    p.pPmSamplingObject = s->object;
    DBG("device %u: stopping", s->device);
    CUptiResult rc = cuptiPmSamplingStop(&p); /* also after a failed decode */
    DBG("device %u: stopped (rc %d)", s->device, (int)rc);
    if (rc != CUPTI_SUCCESS)
        report(s, "cuptiPmSamplingStop", rc);
    s->started = 0;
    say_lost(s);
}

/* ---- the interface ------------------------------------------------------- */

void td_pms_start(uint32_t device, uint32_t context, const char *chip, const td_arch *arch,
                  uint64_t interval_ns, uint64_t t0)
{
    pthread_mutex_lock(&pms.lock);
    for (sampler *s = pms.list; s; s = s->next)
        if (s->device == device) {
            pthread_mutex_unlock(&pms.lock);
            return;
        }
    sampler *s = calloc(1, sizeof *s);
    uint8_t *avail = NULL;
    if (!s) {
        pthread_mutex_unlock(&pms.lock);
        return;
    }
    s->device = device;
    s->context = context;
    s->interval_ns = interval_ns;
    s->t0 = t0;
    snprintf(s->chip, sizeof s->chip, "%s", chip);
    int ok = profiler_init(s) == 0 && availability(s, &avail) == 0;
    if (ok && choose_metrics(s, arch, avail) != 0) {
        td_sw_error("pm_sampling_failed", "PM sampling on device %u (%s): no set of the arch "
                    "table %s's counters fits one PM-sampling pass; no PM timeline", device,
                    chip, arch->name);
        ok = 0;
    }
    free(avail);
    if (ok) {
        DBG("device %u (%s): %zu metrics, config %zu bytes, interval %llu ns", device, chip,
            s->n_metrics, s->config_size, (unsigned long long)interval_ns);
        for (size_t i = 0; i < s->n_metrics; i++)
            DBG("  metric %s", s->metrics[i]);
        ok = enable_and_start(s) == 0;
        DBG("device %u: started %d, counter data image %zu bytes for %zu samples", device, ok,
            s->image_size, s->image_samples);
    }
    if (!ok) {
        sampler_free(s);
        pthread_mutex_unlock(&pms.lock);
        return;
    }
    s->next = pms.list;
    pms.list = s;
    hook_exit(0);
    if (!pms.thread_running && pthread_create(&pms.thread, NULL, decode_loop, NULL) == 0)
        pms.thread_running = 1;
    pthread_mutex_unlock(&pms.lock);
}

void td_pms_context_ending(uint32_t context)
{
    pthread_mutex_lock(&pms.lock);
    DBG("context %u ending", context);
    for (sampler **p = &pms.list; *p; p = &(*p)->next) {
        sampler *s = *p;
        if (s->context != context)
            continue;
        stop(s);
        *p = s->next;
        sampler_free(s);
        break;
    }
    pthread_mutex_unlock(&pms.lock);
}

void td_pms_stop_all(void)
{
    uint64_t end_ts = cupti_now(NULL);
    atomic_store(&pms.stop_asked, 1);
    pthread_mutex_lock(&pms.lock);
    DBG("stop all");
    pms.stopping = 1;
    for (sampler *s = pms.list; s; s = s->next)
        s->end_ts = end_ts;
    pthread_cond_broadcast(&pms.wake);
    int running = pms.thread_running;
    pms.thread_running = 0;
    pthread_mutex_unlock(&pms.lock);
    if (running)
        pthread_join(pms.thread, NULL);
    pthread_mutex_lock(&pms.lock);
    while (pms.list) {
        sampler *s = pms.list;
        stop(s);
        pms.list = s->next;
        sampler_free(s);
    }
    DBG("stop all done");
    pthread_mutex_unlock(&pms.lock);
}
