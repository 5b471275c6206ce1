// rp_modes: what the CUPTI Range Profiler costs per kernel launch in each
// collection mode, and the facts topdown's replay-free collection rests on,
// measured in-process (no topdown, no injection):
//   kernel replay of the full gh100 set (5 counters + 17 stalls) and of one
//   one-pass group; auto range with user replay (one range per session);
//   user range + user replay of a one-pass group (topdown's path), its
//   counters next to kernel replay's, and the cost of switching groups
//   (a fresh profiler object each time).
// Experiments kept as evidence: RP_SINGLE=1 (which metric lists a fresh
// object reads), RP_GRAPH=1 (ranges of a CUDA graph launch).
// Usage: rp_modes [--mem-mb N] [--launches N]; benchmarks/results holds a
// recorded run. Built by hand: see benchmarks/README.md.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include <chrono>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { fprintf(stderr, "%s: %d\n", #call, (int)r_); exit(2); } } while (0)
#define CP(call) do { CUptiResult r_ = (call); if (r_ != CUPTI_SUCCESS) { const char *s_; cuptiGetResultString(r_, &s_); fprintf(stderr, "%s: %s\n", #call, s_); return -1; } } while (0)

__global__ void work(float *x, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < iters; k++) v = v * 1.0001f + 0.5f;
    x[i] = v;
}

static double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Config {
    std::vector<const char *> metrics;
    std::vector<uint8_t> config, data;
    size_t passes = 0;
    CUpti_Profiler_Host_Object *host = nullptr;
};

static CUcontext ctx;
static CUpti_RangeProfiler_Object *rpo;
static std::vector<uint8_t> avail;
static const char *chip;

static int build(Config &c, size_t ranges)
{
    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER; hi.pChipName = chip; hi.pCounterAvailabilityImage = avail.data();
    CP(cuptiProfilerHostInitialize(&hi)); c.host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = c.host; add.ppMetricNames = c.metrics.data(); add.numMetrics = c.metrics.size();
    CP(cuptiProfilerHostConfigAddMetrics(&add));
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = c.host; CP(cuptiProfilerHostGetConfigImageSize(&sz));
    c.config.resize(sz.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params im = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    im.pHostObject = c.host; im.configImageSize = c.config.size(); im.pConfigImage = c.config.data();
    CP(cuptiProfilerHostGetConfigImage(&im));
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = c.config.size(); np.pConfigImage = c.config.data();
    CP(cuptiProfilerHostGetNumOfPasses(&np)); c.passes = np.numOfPasses;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = rpo; ds.pMetricNames = c.metrics.data(); ds.numMetrics = c.metrics.size();
    ds.maxNumOfRanges = ranges; ds.maxNumRangeTreeNodes = ranges;
    CP(cuptiRangeProfilerGetCounterDataSize(&ds)); c.data.resize(ds.counterDataSize);
    return 0;
}

static CUpti_ProfilerRange range_mode = CUPTI_AutoRange;
static int size_again(Config &c)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = rpo; ds.pMetricNames = c.metrics.data(); ds.numMetrics = c.metrics.size();
    ds.maxNumOfRanges = 1; ds.maxNumRangeTreeNodes = 1;
    CP(cuptiRangeProfilerGetCounterDataSize(&ds));
    c.data.resize(ds.counterDataSize);
    return 0;
}

static int arm(Config &c, CUpti_ProfilerReplayMode mode, size_t ranges)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params in = {CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    in.pRangeProfilerObject = rpo; in.counterDataSize = c.data.size(); in.pCounterData = c.data.data();
    CP(cuptiRangeProfilerCounterDataImageInitialize(&in));
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = rpo; sc.configSize = c.config.size(); sc.pConfig = c.config.data();
    sc.counterDataImageSize = c.data.size(); sc.pCounterDataImage = c.data.data();
    sc.range = range_mode; sc.replayMode = mode; sc.maxRangesPerPass = ranges;
    sc.numNestingLevels = 1; sc.minNestingLevel = 1; sc.targetNestingLevel = 1;
    CP(cuptiRangeProfilerSetConfig(&sc));
    return 0;
}

static int start() { CUpti_RangeProfiler_Start_Params p = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE}; p.pRangeProfilerObject = rpo; CP(cuptiRangeProfilerStart(&p)); return 0; }
static int stop(int *all) { CUpti_RangeProfiler_Stop_Params p = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE}; p.pRangeProfilerObject = rpo; CP(cuptiRangeProfilerStop(&p)); *all = p.isAllPassSubmitted; return 0; }
static int decode(Config &c, size_t *ranges)
{
    CUpti_RangeProfiler_DecodeData_Params d = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = rpo; CP(cuptiRangeProfilerDecodeData(&d));
    CUpti_RangeProfiler_GetCounterDataInfo_Params i = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    i.pCounterDataImage = c.data.data(); i.counterDataImageSize = c.data.size();
    CP(cuptiRangeProfilerGetCounterDataInfo(&i)); *ranges = i.numTotalRanges;
    return 0;
}
static double eval(Config &c, size_t range, size_t metric)
{
    std::vector<double> v(c.metrics.size());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = c.host; p.pCounterDataImage = c.data.data(); p.counterDataImageSize = c.data.size();
    p.rangeIndex = range; p.ppMetricNames = c.metrics.data(); p.numMetrics = c.metrics.size(); p.pMetricValues = v.data();
    if (cuptiProfilerHostEvaluateToGpuValues(&p) != CUPTI_SUCCESS) return -1;
    return v[metric];
}

static CUfunction fn;
static CUdeviceptr buf;
static int n = 1 << 20, iters = 200;
static void launch(CUstream s = 0)
{
    void *args[] = {&buf, &n, &iters};
    CU(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, s, args, 0));
}

// Cost of `launches` launches, each profiled with `per` launches per Start/Stop.
static int measure(const char *what, Config &c, CUpti_ProfilerReplayMode mode, int launches, int per)
{
    if (arm(c, mode, per)) return -1;
    double t0 = now_ms();
    size_t total = 0;
    for (int i = 0; i < launches; i += per) {
        if (start()) return -1;
        for (int j = 0; j < per; j++) launch();
        int all = 0;
        if (stop(&all)) return -1;
        size_t r = 0;
        if (decode(c, &r)) return -1;
        total += r;
        if (arm(c, mode, per)) return -1;
    }
    CU(cuCtxSynchronize());
    double ms = now_ms() - t0;
    printf("%-48s passes %zu: %8.3f ms per launch (%d launches, %zu ranges)\n", what, c.passes,
           ms / launches, launches, total);
    return 0;
}

// A new Range Profiler object for the context (a metric list other than the
// last one sized decodes NaN on a reused object: see topdown/inject/range_profiler.c).
static int fresh_object()
{
    CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = rpo;
    cuptiRangeProfilerDisable(&di);
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CP(cuptiRangeProfilerEnable(&en));
    rpo = en.pRangeProfilerObject;
    return 0;
}

// One launch in a user range, user replay: nothing is replayed.
static int user_range_launch(Config &c)
{
    if (size_again(c) || arm(c, CUPTI_UserReplay, 1) || start()) return -1;
    CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pu.pRangeProfilerObject = rpo; pu.pRangeName = "launch";
    CP(cuptiRangeProfilerPushRange(&pu));
    launch();
    CU(cuCtxSynchronize());
    CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    po.pRangeProfilerObject = rpo;
    CP(cuptiRangeProfilerPopRange(&po));
    int all; size_t r;
    return stop(&all) || decode(c, &r);
}

static const char *stalls[] = {"no_instruction", "branch_resolving", "barrier", "membar", "sleeping",
    "dispatch_stall", "misc", "short_scoreboard", "mio_throttle", "drain", "imc_miss", "long_scoreboard",
    "tex_throttle", "lg_throttle", "wait", "math_pipe_throttle", "gmma"};
static char stall_names[17][96];


// ---- RP_COST=1: where a replay-free sample's time goes, and cheaper ways ----

static int push(const char *name)
{
    CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pu.pRangeProfilerObject = rpo; pu.pRangeName = name;
    CP(cuptiRangeProfilerPushRange(&pu));
    return 0;
}
static int pop()
{
    CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    po.pRangeProfilerObject = rpo;
    CP(cuptiRangeProfilerPopRange(&po));
    return 0;
}
static int size_for(std::vector<const char *> &metrics, size_t ranges, std::vector<uint8_t> &data)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = rpo; ds.pMetricNames = metrics.data(); ds.numMetrics = metrics.size();
    ds.maxNumOfRanges = ranges; ds.maxNumRangeTreeNodes = ranges;
    CP(cuptiRangeProfilerGetCounterDataSize(&ds));
    data.assign(ds.counterDataSize, 0);
    return 0;
}
static int init_image(std::vector<uint8_t> &data)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params in = {CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    in.pRangeProfilerObject = rpo; in.counterDataSize = data.size(); in.pCounterData = data.data();
    CP(cuptiRangeProfilerCounterDataImageInitialize(&in));
    return 0;
}
static CUpti_ProfilerReplayMode set_config_replay = CUPTI_UserReplay;
static CUpti_ProfilerRange set_config_range = CUPTI_UserRange;
static int set_config(Config &c, std::vector<uint8_t> &data, size_t ranges)
{
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = rpo; sc.configSize = c.config.size(); sc.pConfig = c.config.data();
    sc.counterDataImageSize = data.size(); sc.pCounterDataImage = data.data();
    sc.range = set_config_range; sc.replayMode = set_config_replay; sc.maxRangesPerPass = ranges;
    sc.numNestingLevels = 1; sc.minNestingLevel = 1; sc.targetNestingLevel = 1;
    CP(cuptiRangeProfilerSetConfig(&sc));
    return 0;
}
static int decode_image(std::vector<uint8_t> &data, size_t *ranges, size_t *dropped)
{
    CUpti_RangeProfiler_DecodeData_Params d = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = rpo; CP(cuptiRangeProfilerDecodeData(&d));
    *dropped = d.numOfRangeDropped;
    CUpti_RangeProfiler_GetCounterDataInfo_Params i = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    i.pCounterDataImage = data.data(); i.counterDataImageSize = data.size();
    CP(cuptiRangeProfilerGetCounterDataInfo(&i)); *ranges = i.numTotalRanges;
    return 0;
}
// Values of c's metrics for one range of an image (NaN when evaluation fails).
static void eval_into(Config &c, std::vector<uint8_t> &data, size_t range, std::vector<double> &v)
{
    v.assign(c.metrics.size(), NAN);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = c.host; p.pCounterDataImage = data.data(); p.counterDataImageSize = data.size();
    p.rangeIndex = range; p.ppMetricNames = c.metrics.data(); p.numMetrics = c.metrics.size(); p.pMetricValues = v.data();
    if (cuptiProfilerHostEvaluateToGpuValues(&p) != CUPTI_SUCCESS) v.assign(c.metrics.size(), -1);
}
static void print_values(const char *what, Config &c, std::vector<double> &v)
{
    printf("   %s:", what);
    for (size_t m = 0; m < v.size(); m++) printf(" %s=%.0f", c.metrics[m] + 0, v[m]);
    printf("\n");
}
#define STEP(acc, call) do { double t_ = now_ms(); if (call) { printf("FAILED: %s\n", #call); return -1; } acc += now_ms() - t_; } while (0)

// A: the per-sample path as topdown runs it (an image re-armed each sample),
// timed step by step.
static int cost_breakdown(Config &one)
{
    if (fresh_object()) return -1;
    std::vector<uint8_t> data;
    double t_size = 0, t_init = 0, t_cfg = 0, t_start = 0, t_sync = 0, t_push = 0, t_launch = 0,
           t_pop = 0, t_stop = 0, t_decode = 0, t_eval = 0;
    int n = 40; std::vector<double> v;
    for (int i = 0; i < n; i++) {
        int all; size_t r, d;
        STEP(t_size, size_for(one.metrics, 1, data));
        STEP(t_init, init_image(data));
        STEP(t_cfg, set_config(one, data, 1));
        STEP(t_start, start());
        STEP(t_sync, cuCtxSynchronize() != CUDA_SUCCESS);
        STEP(t_push, push("launch"));
        STEP(t_launch, (launch(), 0));
        STEP(t_pop, pop());
        STEP(t_stop, stop(&all));
        STEP(t_decode, decode_image(data, &r, &d));
        STEP(t_eval, (eval_into(one, data, 0, v), 0));
    }
    printf("A per sample, ms: size %.3f init %.3f setconfig %.3f start %.3f sync %.3f push %.3f launch %.3f pop %.3f stop %.3f decode %.3f eval %.3f\n",
           t_size / n, t_init / n, t_cfg / n, t_start / n, t_sync / n, t_push / n, t_launch / n, t_pop / n,
           t_stop / n, t_decode / n, t_eval / n);
    print_values("A last", one, v);
    return 0;
}

// B: one session, many user ranges: Start once, a range around each sampled
// launch with unprofiled launches between, one Stop and decode.
static int cost_batched(Config &one, int per, int others, int drain)
{
    if (fresh_object()) return -1;
    std::vector<uint8_t> data;
    if (size_for(one.metrics, per, data) || init_image(data) || set_config(one, data, per)) return -1;
    double t0 = now_ms(), t_start = 0, t_stop = 0, t_decode = 0, t_pushpop = 0;
    STEP(t_start, start());
    char name[32];
    for (int i = 0; i < per; i++) {
        for (int k = 0; k < others; k++) launch();
        double t1 = now_ms();
        if (drain) CU(cuCtxSynchronize());
        snprintf(name, sizeof name, "%d", i);
        if (push(name)) return -1;
        launch();
        if (pop()) return -1;
        t_pushpop += now_ms() - t1;
    }
    int all; size_t r = 0, d = 0;
    STEP(t_stop, stop(&all));
    STEP(t_decode, decode_image(data, &r, &d));
    double total = now_ms() - t0;
    int bad = 0; std::vector<double> v;
    for (size_t i = 0; i < r; i++) {
        eval_into(one, data, i, v);
        if (!(v[0] == 8978432.0)) bad++;
    }
    printf("B %d ranges in one session, %d unprofiled launches between, drain %d: %.3f ms per sample "
           "(start %.3f, sync+push+launch+pop %.3f each, stop %.3f, decode %.3f); %zu ranges decoded, %zu dropped, %d with inst != 8978432\n",
           per, others, drain, total / per, t_start, t_pushpop / per, t_stop, t_decode, r, d, bad);
    if (r) { eval_into(one, data, r - 1, v); print_values("B last range", one, v); }
    return 0;
}

// C: a fresh object, step by step.
static int cost_fresh_object()
{
    double t_dis = 0, t_en = 0; int n = 10;
    for (int i = 0; i < n; i++) {
        CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        di.pRangeProfilerObject = rpo;
        STEP(t_dis, cuptiRangeProfilerDisable(&di) != CUPTI_SUCCESS);
        CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        en.ctx = ctx;
        STEP(t_en, cuptiRangeProfilerEnable(&en) != CUPTI_SUCCESS);
        rpo = en.pRangeProfilerObject;
    }
    printf("C fresh object, ms: disable %.3f enable %.3f\n", t_dis / n, t_en / n);
    return 0;
}

// D: switching groups on one object by SetConfig, the image sized for the
// union of every group's metrics (union=1) or for the group's own (union=0).
static int cost_same_object(Config &a, Config &b, int use_union, int per_switch)
{
    if (fresh_object()) return -1;
    std::vector<const char *> all_metrics = a.metrics;
    for (auto m : b.metrics) {
        int dup = 0;
        for (auto x : all_metrics) dup |= !strcmp(x, m);
        if (!dup) all_metrics.push_back(m);
    }
    std::vector<uint8_t> data;
    double t0 = now_ms(); int n = 10, fails = 0;
    for (int i = 0; i < n; i++) {
        Config &c = i % 2 ? a : b;
        if (size_for(use_union ? all_metrics : c.metrics, per_switch, data) || init_image(data) ||
            set_config(c, data, per_switch)) { fails++; printf("D switch %d: setup failed\n", i); continue; }
        if (start()) { fails++; continue; }
        int ok = 1; char name[32];
        for (int j = 0; j < per_switch && ok; j++) {
            CU(cuCtxSynchronize());
            snprintf(name, sizeof name, "%d", j);
            ok = push(name) == 0;
            launch();
            ok = ok && pop() == 0;
        }
        int all; size_t r = 0, d = 0;
        if (stop(&all) || decode_image(data, &r, &d) || !ok) { fails++; printf("D switch %d: session failed\n", i); continue; }
        std::vector<double> v;
        eval_into(c, data, 0, v);
        if (i < 4) { char w[64]; snprintf(w, sizeof w, "D union %d switch %d (%zu ranges)", use_union, i, r); print_values(w, c, v); }
    }
    printf("D same object, image for %s metrics, %d sample(s) per switch: %.3f ms per switch+samples, %d failed\n",
           use_union ? "the union of" : "each group's", per_switch, (now_ms() - t0) / n, fails);
    return 0;
}

// E: one multi-pass configuration in user replay: does each Start/Stop
// session measure the next pass, and what does the merged range read?
static int cost_passes(Config &full)
{
    if (fresh_object()) return -1;
    std::vector<uint8_t> data;
    if (size_for(full.metrics, 1, data) || init_image(data) || set_config(full, data, 1)) return -1;
    double t0 = now_ms(); int passes = 0, all = 0;
    while (!all && passes < 12) {
        if (start()) return -1;
        CU(cuCtxSynchronize());
        if (push("k")) return -1;
        launch();
        if (pop()) return -1;
        CUpti_RangeProfiler_Stop_Params p = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = rpo;
        CP(cuptiRangeProfilerStop(&p));
        all = p.isAllPassSubmitted;
        printf("E pass %d: stop says passIndex %zu, targetNestingLevel %zu, all submitted %d\n", passes,
               p.passIndex, p.targetNestingLevel, all);
        passes++;
    }
    size_t r = 0, d = 0;
    if (decode_image(data, &r, &d)) return -1;
    std::vector<double> v;
    eval_into(full, data, 0, v);
    printf("E %d sessions, %.3f ms each, %zu ranges\n", passes, (now_ms() - t0) / passes, r);
    print_values("E merged range", full, v);
    return 0;
}

// D2: the object configured first with the full set (user replay), then
// switched between one-pass groups by SetConfig: are the groups' counters
// read (D: a group other than the first configured reads NaN)?
static int cost_superset_first(Config &full, Config &a, Config &b, int run_full)
{
    if (fresh_object()) return -1;
    std::vector<uint8_t> data;
    if (size_for(full.metrics, 1, data) || init_image(data) || set_config(full, data, 1)) return -1;
    if (run_full) {
        int all = 0;
        while (!all) {
            if (start()) return -1;
            if (push("k")) return -1;
            launch();
            if (pop() || stop(&all)) return -1;
        }
        size_t r, d;
        if (decode_image(data, &r, &d)) return -1;
    }
    double t0 = now_ms(); int n = 6;
    for (int i = 0; i < n; i++) {
        Config &c = i % 2 ? a : b;
        double t1 = now_ms();
        if (size_for(full.metrics, 1, data) || init_image(data) || set_config(c, data, 1) || start()) {
            printf("D2 switch %d: setup failed\n", i); continue;
        }
        double t_setup = now_ms() - t1;
        CU(cuCtxSynchronize());
        int ok = push("k") == 0;
        launch();
        ok = ok && pop() == 0;
        int all; size_t r = 0, d = 0;
        if (stop(&all) || decode_image(data, &r, &d) || !ok) { printf("D2 switch %d: session failed\n", i); continue; }
        std::vector<double> v;
        eval_into(c, data, 0, v);
        char w[96]; snprintf(w, sizeof w, "D2 full set first (run %d), switch %d, setup %.3f ms, %zu ranges", run_full, i, t_setup, r);
        print_values(w, c, v);
    }
    printf("D2 %.3f ms per switch+sample\n", (now_ms() - t0) / n);
    return 0;
}

// E2: one multi-pass configuration, user replay, a range per launch named
// after its pass: may the passes hold different ranges, and which metrics
// does each range read (the pass each metric was scheduled in)?
static int cost_pass_ranges(Config &full)
{
    if (fresh_object()) return -1;
    std::vector<uint8_t> data;
    if (size_for(full.metrics, 16, data) || init_image(data) || set_config(full, data, 16)) return -1;
    int all = 0, pass = 0; char name[32];
    double t0 = now_ms();
    while (!all && pass < 12) {
        if (start()) return -1;
        for (int i = 0; i < 2; i++) {
            launch();
            CU(cuCtxSynchronize());
            snprintf(name, sizeof name, "p%d_%d", pass, i);
            if (push(name)) { printf("E2 push %s failed\n", name); return -1; }
            launch();
            if (pop()) return -1;
        }
        if (stop(&all)) { printf("E2 stop failed in pass %d\n", pass); return -1; }
        pass++;
    }
    size_t r = 0, d = 0;
    if (decode_image(data, &r, &d)) { printf("E2 decode failed\n"); return -1; }
    printf("E2 %d passes, %.3f ms per session, %zu ranges, %zu dropped\n", pass, (now_ms() - t0) / pass, r, d);
    std::vector<double> v;
    for (size_t i = 0; i < r; i++) {
        eval_into(full, data, i, v);
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
        ri.counterDataImageSize = data.size(); ri.pCounterDataImage = data.data(); ri.rangeIndex = i;
        ri.rangeDelimiter = "/";
        const char *nm = cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS ? ri.rangeName : "?";
        printf("   E2 range %zu (%s): valid", i, nm);
        for (size_t m = 0; m < v.size(); m++) if (v[m] == v[m]) printf(" %s", full.metrics[m] + 0);
        printf("\n");
    }
    return 0;
}

// E3: the config image made with nvperf's raw-metrics config, one pass
// group per topdown counter group (each holding its own copy of the
// shared counters), user replay, a session per pass and ranges named after
// their pass: does each range read its whole group, shared counters included?
#define NV(call) do { NVPA_Status s_ = (call); if (s_ != NVPA_STATUS_SUCCESS) { printf("%s: nvpa status %d\n", #call, (int)s_); return -1; } } while (0)
static int raw_requests(NVPW_MetricsEvaluator *ev, std::vector<const char *> &metrics, std::vector<NVPA_RawMetricRequest> &out)
{
    for (auto m : metrics) {
        NVPW_MetricEvalRequest req;
        NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params cv = {NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE};
        cv.pMetricsEvaluator = ev; cv.pMetricName = m; cv.pMetricEvalRequest = &req;
        cv.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
        NV(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&cv));
        NVPW_MetricsEvaluator_GetMetricRawDependencies_Params dp = {NVPW_MetricsEvaluator_GetMetricRawDependencies_Params_STRUCT_SIZE};
        dp.pMetricsEvaluator = ev; dp.pMetricEvalRequests = &req; dp.numMetricEvalRequests = 1;
        dp.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
        dp.metricEvalRequestStrideSize = sizeof(NVPW_MetricEvalRequest);
        NV(NVPW_MetricsEvaluator_GetMetricRawDependencies(&dp));
        std::vector<const char *> deps(dp.numRawDependencies), opt(dp.numOptionalRawDependencies);
        dp.ppRawDependencies = deps.data(); dp.ppOptionalRawDependencies = opt.data();
        NV(NVPW_MetricsEvaluator_GetMetricRawDependencies(&dp));
        for (auto d : deps) {
            int dup = 0;
            for (auto &r : out) dup |= !strcmp(r.pMetricName, d);
            if (dup) continue;
            NVPA_RawMetricRequest r = {NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE};
            r.pMetricName = d; r.isolated = 1; r.keepInstances = 1;
            out.push_back(r);
        }
    }
    return 0;
}

static void launch_n(int threads)
{
    void *args[] = {&buf, &threads, &iters};
    CU(cuLaunchKernel(fn, (threads + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
}

static int cost_pass_groups(std::vector<std::vector<const char *>> &groups)
{
    NVPW_InitializeHost_Params ih = {NVPW_InitializeHost_Params_STRUCT_SIZE};
    NV(NVPW_InitializeHost(&ih));
    NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params sb = {NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE};
    sb.pChipName = chip; sb.pCounterAvailabilityImage = avail.data();
    NV(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&sb));
    std::vector<uint8_t> scratch(sb.scratchBufferSize);
    NVPW_CUDA_MetricsEvaluator_Initialize_Params ei = {NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE};
    ei.pScratchBuffer = scratch.data(); ei.scratchBufferSize = scratch.size(); ei.pChipName = chip;
    ei.pCounterAvailabilityImage = avail.data();
    NV(NVPW_CUDA_MetricsEvaluator_Initialize(&ei));
    NVPW_MetricsEvaluator *ev = ei.pMetricsEvaluator;

    NVPW_CUDA_RawMetricsConfig_Create_V2_Params rc = {NVPW_CUDA_RawMetricsConfig_Create_V2_Params_STRUCT_SIZE};
    rc.activityKind = NVPA_ACTIVITY_KIND_PROFILER; rc.pChipName = chip; rc.pCounterAvailabilityImage = avail.data();
    NV(NVPW_CUDA_RawMetricsConfig_Create_V2(&rc));
    NVPA_RawMetricsConfig *raw = rc.pRawMetricsConfig;
    std::vector<std::vector<NVPA_RawMetricRequest>> reqs(groups.size());
    std::vector<const char *> all_metrics;
    for (size_t g = 0; g < groups.size(); g++) {
        if (raw_requests(ev, groups[g], reqs[g])) return -1;
        NVPW_RawMetricsConfig_BeginPassGroup_Params bp = {NVPW_RawMetricsConfig_BeginPassGroup_Params_STRUCT_SIZE};
        bp.pRawMetricsConfig = raw; bp.maxPassCount = g + 1;
        NV(NVPW_RawMetricsConfig_BeginPassGroup(&bp));
        for (size_t q = 0; q < reqs[g].size(); q++) {
            NVPW_RawMetricsConfig_IsAddMetricsPossible_Params ip = {NVPW_RawMetricsConfig_IsAddMetricsPossible_Params_STRUCT_SIZE};
            ip.pRawMetricsConfig = raw; ip.pRawMetricRequests = &reqs[g][q]; ip.numMetricRequests = 1;
            NVPA_Status ps = NVPW_RawMetricsConfig_IsAddMetricsPossible(&ip);
            NVPW_RawMetricsConfig_AddMetrics_Params am = {NVPW_RawMetricsConfig_AddMetrics_Params_STRUCT_SIZE};
            am.pRawMetricsConfig = raw; am.pRawMetricRequests = &reqs[g][q]; am.numMetricRequests = 1;
            NVPA_Status as = NVPW_RawMetricsConfig_AddMetrics(&am);
            if (g == 0 || as != NVPA_STATUS_SUCCESS)
                printf("E3 group %zu raw %s: possible status %d (%d), add status %d\n", g, reqs[g][q].pMetricName, (int)ps, (int)ip.isPossible, (int)as);
            if (as != NVPA_STATUS_SUCCESS) {
                reqs[g][q].isolated = 0; reqs[g][q].keepInstances = 0;
                as = NVPW_RawMetricsConfig_AddMetrics(&am);
                printf("   not isolated, no instances: add status %d\n", (int)as);
            }
        }
        NVPW_RawMetricsConfig_EndPassGroup_Params ep = {NVPW_RawMetricsConfig_EndPassGroup_Params_STRUCT_SIZE};
        ep.pRawMetricsConfig = raw;
        NV(NVPW_RawMetricsConfig_EndPassGroup(&ep));
        printf("E3 group %zu: %zu metrics, %zu raw counters\n", g, groups[g].size(), reqs[g].size());
        for (auto m : groups[g]) {
            int dup = 0;
            for (auto x : all_metrics) dup |= !strcmp(x, m);
            if (!dup) all_metrics.push_back(m);
        }
    }
    NVPW_RawMetricsConfig_GenerateConfigImage_Params gi = {NVPW_RawMetricsConfig_GenerateConfigImage_Params_STRUCT_SIZE};
    gi.pRawMetricsConfig = raw; gi.mergeAllPassGroups = 0;
    NV(NVPW_RawMetricsConfig_GenerateConfigImage(&gi));
    NVPW_RawMetricsConfig_GetConfigImage_Params gc = {NVPW_RawMetricsConfig_GetConfigImage_Params_STRUCT_SIZE};
    gc.pRawMetricsConfig = raw;
    NV(NVPW_RawMetricsConfig_GetConfigImage(&gc));
    Config cfg; cfg.metrics = all_metrics;
    if (build(cfg, 1)) return -1; // host object for evaluation (its own image unused)
    cfg.config.assign(gc.bytesCopied, 0);
    gc.bytesAllocated = cfg.config.size(); gc.pBuffer = cfg.config.data();
    NV(NVPW_RawMetricsConfig_GetConfigImage(&gc));
    NVPW_RawMetricsConfig_GetNumPasses_V2_Params np = {NVPW_RawMetricsConfig_GetNumPasses_V2_Params_STRUCT_SIZE};
    np.pRawMetricsConfig = raw;
    NV(NVPW_RawMetricsConfig_GetNumPasses_V2(&np));
    CUpti_Profiler_Host_GetNumOfPasses_Params hp = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    hp.configImageSize = cfg.config.size(); hp.pConfigImage = cfg.config.data();
    CP(cuptiProfilerHostGetNumOfPasses(&hp));
    printf("E3 config image %zu bytes: nvperf says %zu passes, CUPTI %zu; %zu metrics in all\n",
           cfg.config.size(), np.numPasses, hp.numOfPasses, all_metrics.size());

    if (fresh_object()) return -1;
    std::vector<uint8_t> data;
    if (getenv("RP_COST4")) {
        // E4: kernel replay of the same image with a user range, then the rotation, on one object.
        if (size_for(all_metrics, 64, data)) return -1;
        for (int round = 0; round < 3; round++) {
            double t0 = now_ms();
            set_config_replay = CUPTI_KernelReplay;
            if (init_image(data) || set_config(cfg, data, 64)) { printf("E4 round %d: replay setconfig failed\n", round); return -1; }
            int all = 0;
            if (start() || push("replay")) { printf("E4 round %d: replay start/push failed\n", round); return -1; }
            launch_n(n);
            if (pop() || stop(&all)) { printf("E4 round %d: replay pop/stop failed\n", round); return -1; }
            size_t r = 0, d = 0;
            if (decode_image(data, &r, &d)) { printf("E4 round %d: replay decode failed\n", round); return -1; }
            std::vector<double> v; eval_into(cfg, data, 0, v);
            int valid = 0; for (auto x : v) valid += x == x;
            printf("E4 round %d: kernel replay, user range: all submitted %d, %zu ranges, %d of %zu metrics valid, %.3f ms; inst %.0f warps %.0f\n",
                   round, all, r, valid, v.size(), now_ms() - t0, v[0], v[5]);
            t0 = now_ms();
            set_config_replay = CUPTI_UserReplay;
            if (init_image(data) || set_config(cfg, data, 64)) { printf("E4 round %d: rotation setconfig failed\n", round); return -1; }
            int pass = 0; all = 0; char name[32];
            while (!all && pass < 12) {
                if (start()) { printf("E4 rotation start failed\n"); return -1; }
                CU(cuCtxSynchronize());
                snprintf(name, sizeof name, "p%d", pass);
                if (push(name)) { printf("E4 rotation push failed\n"); return -1; }
                launch_n(n);
                if (pop() || stop(&all)) { printf("E4 rotation pop/stop failed\n"); return -1; }
                pass++;
            }
            if (decode_image(data, &r, &d)) { printf("E4 rotation decode failed\n"); return -1; }
            printf("E4 round %d: rotation after it: %d passes, %zu ranges, %.3f ms;", round, pass, r, now_ms() - t0);
            for (size_t i = 0; i < r; i++) { eval_into(cfg, data, i, v); int ok = 0; for (auto x : v) ok += x == x; printf(" [%d valid, warps %.0f]", ok, v[5]); }
            printf("\n");
        }
        return 0;
    }
    if (size_for(all_metrics, 64, data) || init_image(data) || set_config(cfg, data, 64)) return -1;
    for (int cycle = 0; cycle < 2; cycle++) {
        int all = 0, pass = 0; char name[32];
        double t0 = now_ms();
        while (!all && pass < 12) {
            double t1 = now_ms();
            if (start()) return -1;
            double t_start = now_ms() - t1;
            for (int i = 0; i < 2; i++) {
                launch();
                CU(cuCtxSynchronize());
                snprintf(name, sizeof name, "p%d_%d", pass, i);
                if (push(name)) { printf("E3 push %s failed\n", name); return -1; }
                launch_n(n >> i);
                if (pop()) return -1;
            }
            t1 = now_ms();
            if (stop(&all)) { printf("E3 stop failed in pass %d\n", pass); return -1; }
            printf("E3 cycle %d pass %d: start %.3f ms, stop %.3f ms\n", cycle, pass, t_start, now_ms() - t1);
            pass++;
        }
        size_t r = 0, d = 0;
        if (decode_image(data, &r, &d)) { printf("E3 decode failed\n"); return -1; }
        printf("E3 cycle %d: %d passes, %.3f ms per session, %zu ranges, %zu dropped\n", cycle, pass, (now_ms() - t0) / pass, r, d);
        std::vector<double> v;
        for (size_t i = 0; i < r; i++) {
            eval_into(cfg, data, i, v);
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
            ri.counterDataImageSize = data.size(); ri.pCounterDataImage = data.data(); ri.rangeIndex = i;
            ri.rangeDelimiter = "/";
            const char *nm = cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS ? ri.rangeName : "?";
            printf("   E3 range %zu (%s):", i, nm);
            for (size_t m = 0; m < v.size(); m++) if (v[m] == v[m]) printf(" %s=%.0f", all_metrics[m] + 0, v[m]);
            printf("\n");
        }
        if (init_image(data) || set_config(cfg, data, 64)) { printf("E3 re-arm failed\n"); return -1; }
    }
    return 0;
}

// F (RP_COST5=1): what a fresh object's first Start costs, by the counter-data
// image's range capacity and the configuration: a one-pass group in user
// replay (a sample), the full set's passes in user replay (the rotation's
// shape), the full set in kernel replay with auto range (a coverage
// replay); then a second session on the same object (re-armed image).
// G: may a second object be enabled on a context that holds one (the
// replay's object and the rotation's kept side by side)?
static int first_start(const char *what, Config &c, CUpti_ProfilerReplayMode mode, size_t cap)
{
    set_config_replay = mode;
    set_config_range = mode == CUPTI_KernelReplay ? CUPTI_AutoRange : CUPTI_UserRange;
    double t0 = now_ms();
    if (fresh_object()) return -1;
    double t_fresh = now_ms() - t0;
    std::vector<uint8_t> data;
    double t_setup = 0, t_start1 = 0, t_session1 = 0, t_rearm = 0, t_start2 = 0, t_session2 = 0;
    int all = 0, sessions = 0;
    STEP(t_setup, size_for(c.metrics, cap, data) || init_image(data) || set_config(c, data, cap));
    for (int round = 0; round < 2; round++) {
        double &t_start = round ? t_start2 : t_start1, &t_session = round ? t_session2 : t_session1;
        all = 0; sessions = 0;
        while (!all && sessions < 12) {
            double t_s = 0;
            STEP(t_s, start());
            if (sessions == 0) t_start += t_s;
            double t1 = now_ms();
            CU(cuCtxSynchronize());
            if (mode != CUPTI_KernelReplay && push("k")) return -1;
            launch();
            CU(cuCtxSynchronize());
            if (mode != CUPTI_KernelReplay && pop()) return -1;
            if (stop(&all)) return -1;
            if (mode == CUPTI_KernelReplay) all = 1;
            t_session += now_ms() - t1;
            sessions++;
        }
        size_t r = 0, d = 0;
        if (decode_image(data, &r, &d)) return -1;
        if (round == 0) STEP(t_rearm, init_image(data) || set_config(c, data, cap));
    }
    printf("F %-34s capacity %4zu: fresh object %.3f, size+init+setconfig %.3f, first Start %.3f, "
           "%d session(s) %.3f; re-arm %.3f, second Start %.3f, sessions %.3f ms\n",
           what, cap, t_fresh, t_setup, t_start1, sessions, t_session1, t_rearm, t_start2, t_session2);
    set_config_replay = CUPTI_UserReplay;
    set_config_range = CUPTI_UserRange;
    return 0;
}

static int cost_first_starts(Config &one, Config &all)
{
    size_t caps[] = {1, 16, 128, 512};
    for (int rep = 0; rep < 2; rep++)
        for (size_t cap : caps) {
            first_start("one-pass group, user replay", one, CUPTI_UserReplay, cap);
            first_start("full set, user replay", all, CUPTI_UserReplay, cap);
            if (cap <= 16) first_start("full set, kernel replay", all, CUPTI_KernelReplay, cap);
        }
    if (fresh_object()) return -1;
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CUptiResult r = cuptiRangeProfilerEnable(&en);
    const char *s = "?";
    cuptiGetResultString(r, &s);
    printf("G a second object on the context: %s (%s)\n", r == CUPTI_SUCCESS ? "enabled" : "refused", s);
    if (r == CUPTI_SUCCESS && en.pRangeProfilerObject != rpo) {
        CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        di.pRangeProfilerObject = en.pRangeProfilerObject;
        cuptiRangeProfilerDisable(&di);
    }
    return 0;
}

// H (RP_COST6=1): two objects on one context, kept side by side: A the
// rotation's shape (the full set's passes in user replay, a user range per
// pass), B a coverage replay (the full set in kernel replay, auto range).
// A's passes are measured with a B replay between each; both images are
// decoded and checked against the kernel's known instruction count, and
// against A measured alone. H1: B's Start while A's session is open.
static int count_nan(std::vector<double> &v)
{
    int nans = 0;
    for (double x : v) nans += !(x == x);
    return nans;
}

static CUpti_RangeProfiler_Object *enable_object()
{
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    return cuptiRangeProfilerEnable(&en) == CUPTI_SUCCESS ? en.pRangeProfilerObject : nullptr;
}

static void disable_object(CUpti_RangeProfiler_Object *o)
{
    CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = o;
    cuptiRangeProfilerDisable(&di);
}

static int replay_on(CUpti_RangeProfiler_Object *b, Config &all, std::vector<uint8_t> &data, int first,
                     double *t_start, double *t_all, std::vector<double> &v)
{
    rpo = b;
    set_config_replay = CUPTI_KernelReplay; set_config_range = CUPTI_AutoRange;
    double t0 = now_ms();
    if (first ? (size_for(all.metrics, 1, data) || init_image(data) || set_config(all, data, 1))
              : (init_image(data) || set_config(all, data, 1))) return -1;
    double t1 = now_ms();
    if (start()) return -1;
    *t_start = now_ms() - t1;
    launch();
    int done; size_t r = 0, d = 0;
    if (stop(&done) || decode_image(data, &r, &d)) return -1;
    eval_into(all, data, 0, v);
    *t_all = now_ms() - t0;
    set_config_replay = CUPTI_UserReplay; set_config_range = CUPTI_UserRange;
    return 0;
}

static int rotation_on(CUpti_RangeProfiler_Object *a, CUpti_RangeProfiler_Object *b, Config &all, int interleave)
{
    std::vector<uint8_t> adata, bdata;
    rpo = a;
    if (size_for(all.metrics, 16, adata) || init_image(adata) || set_config(all, adata, 16)) return -1;
    int done = 0, pass = 0;
    double a_starts = 0, b_starts = 0, b_all = 0;
    std::vector<double> v;
    while (!done && pass < 12) {
        rpo = a;
        double t0 = now_ms();
        if (start()) { printf("H pass %d: A's Start failed\n", pass); return -1; }
        a_starts += now_ms() - t0;
        CU(cuCtxSynchronize());
        if (push("k")) return -1;
        launch();
        CU(cuCtxSynchronize());
        if (pop() || stop(&done)) return -1;
        if (interleave) {
            double ts = 0, ta = 0;
            if (replay_on(b, all, bdata, pass == 0, &ts, &ta, v)) { printf("H pass %d: B's replay failed\n", pass); return -1; }
            printf("H pass %d: B replay Start %.3f ms, all %.3f ms, inst %.0f, %d of %zu NaN\n", pass, ts, ta, v[0], count_nan(v), v.size());
            if (pass) { b_starts += ts; b_all += ta; }
        }
        pass++;
    }
    rpo = a;
    size_t r = 0, d = 0;
    if (decode_image(adata, &r, &d)) return -1;
    eval_into(all, adata, 0, v);
    printf("H A %s: %d passes, Starts %.3f ms each, %zu ranges; inst %.0f cycles %.0f, %d of %zu NaN;",
           interleave ? "with B's replays between its passes" : "alone", pass, a_starts / pass, r, v[0], v[3],
           count_nan(v), v.size());
    for (size_t m = 5; m < v.size(); m++) printf(" %.0f", v[m]);
    printf("\n");
    if (interleave && pass > 1)
        printf("H B's later replays: Start %.3f ms, whole replay %.3f ms each\n", b_starts / (pass - 1), b_all / (pass - 1));
    return 0;
}

// H2: A measures whole cycles (every pass, then decoded) and B replays
// only between them: whether the two objects may then take turns, each
// with a second Start's cost, where a fresh object's first Start costs
// 135-280 ms (the untried case of the seventh session).
static int a_cycle(CUpti_RangeProfiler_Object *a, Config &all, std::vector<uint8_t> &adata, int first,
                   double *t_first_start, int *nans, double *inst)
{
    rpo = a;
    if ((first && size_for(all.metrics, 16, adata)) || init_image(adata) || set_config(all, adata, 16))
        return -1;
    int done = 0, pass = 0;
    *t_first_start = 0;
    while (!done && pass < 12) {
        double t0 = now_ms();
        CUptiResult rc;
        {
            CUpti_RangeProfiler_Start_Params p = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            p.pRangeProfilerObject = a;
            rc = cuptiRangeProfilerStart(&p);
        }
        if (rc != CUPTI_SUCCESS) {
            const char *s = "?"; cuptiGetResultString(rc, &s);
            printf("H2 A's Start (pass %d) refused: %s\n", pass, s);
            return -1;
        }
        if (pass == 0) *t_first_start = now_ms() - t0;
        CU(cuCtxSynchronize());
        if (push("k")) return -1;
        launch();
        CU(cuCtxSynchronize());
        if (pop() || stop(&done)) return -1;
        pass++;
    }
    size_t r = 0, d = 0;
    if (decode_image(adata, &r, &d)) return -1;
    std::vector<double> v;
    eval_into(all, adata, 0, v);
    *nans = count_nan(v);
    *inst = v[0];
    return pass;
}

static int cost_cycles_then_replay(CUpti_RangeProfiler_Object *a, CUpti_RangeProfiler_Object *b, Config &all)
{
    std::vector<uint8_t> adata, bdata;
    std::vector<double> v;
    for (int round = 0; round < 3; round++) {
        double ta = 0, inst = 0;
        int nans = 0;
        int passes = a_cycle(a, all, adata, round == 0, &ta, &nans, &inst);
        if (passes < 0) return -1;
        printf("H2 round %d: A's cycle of %d passes, its first Start %.3f ms, inst %.0f, %d NaN\n",
               round, passes, ta, inst, nans);
        double ts = 0, tall = 0;
        if (replay_on(b, all, bdata, round == 0, &ts, &tall, v)) {
            printf("H2 round %d: B's replay after A's whole cycle failed\n", round);
            return -1;
        }
        printf("H2 round %d: B's replay Start %.3f ms, all %.3f ms, inst %.0f, %d of %zu NaN\n",
               round, ts, tall, v[0], count_nan(v), v.size());
    }
    return 0;
}

static int cost_two_objects(Config &all)
{
    disable_object(rpo);
    CUpti_RangeProfiler_Object *a = enable_object(), *b = enable_object();
    printf("H objects: A %s, B %s\n", a ? "enabled" : "refused", b ? "enabled" : "refused");
    if (!a || !b) return -1;
    if (getenv("RP_COST6_CYCLES")) {
        int rc = cost_cycles_then_replay(a, b, all);
        disable_object(a);
        disable_object(b);
        rpo = enable_object();
        return rc;
    }
    rotation_on(a, b, all, 0);
    rotation_on(a, b, all, 1);
    rotation_on(a, b, all, 1);
    // H1: B's Start while A's session is open
    std::vector<uint8_t> adata, bdata;
    rpo = a;
    if (!(size_for(all.metrics, 16, adata) || init_image(adata) || set_config(all, adata, 16)) && start() == 0) {
        rpo = b;
        set_config_replay = CUPTI_KernelReplay; set_config_range = CUPTI_AutoRange;
        int ok = !(size_for(all.metrics, 1, bdata) || init_image(bdata) || set_config(all, bdata, 1));
        CUpti_RangeProfiler_Start_Params p = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = b;
        CUptiResult r = ok ? cuptiRangeProfilerStart(&p) : CUPTI_ERROR_UNKNOWN;
        const char *s = "?"; cuptiGetResultString(r, &s);
        printf("H1 B's Start while A's session is open: %s\n", s);
        set_config_replay = CUPTI_UserReplay; set_config_range = CUPTI_UserRange;
    }
    disable_object(a);
    disable_object(b);
    rpo = enable_object();
    return 0;
}

static int cost_experiments(Config &group, Config &cycles4, Config &full)
{
    range_mode = CUPTI_UserRange;
    if (fresh_object()) return 8;
    Config one; one.metrics = group.metrics;
    Config other; other.metrics = cycles4.metrics;
    Config all; all.metrics = full.metrics;
    if (build(one, 1) || build(other, 1) || build(all, 1)) return 7;
    if (getenv("RP_COST3")) {
        std::vector<std::vector<const char *>> groups = {
            {"smsp__inst_executed.sum", "smsp__inst_issued.sum", "smsp__thread_inst_executed.sum", "sm__cycles_active.sum", "gpu__time_duration.sum", "sm__warps_active.sum", "sm__cycles_elapsed.max", "smsp__warps_issue_stalled_no_instruction.sum"},
            {"sm__cycles_active.sum", "sm__warps_active.sum", "gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__warps_issue_stalled_branch_resolving.sum", "smsp__warps_issue_stalled_barrier.sum", "smsp__warps_issue_stalled_membar.sum", "smsp__warps_issue_stalled_dispatch_stall.sum"},
            {"sm__cycles_active.sum", "sm__warps_active.sum", "gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__warps_issue_stalled_sleeping.sum", "smsp__warps_issue_stalled_misc.sum", "smsp__warps_issue_stalled_short_scoreboard.sum", "smsp__warps_issue_stalled_math_pipe_throttle.sum"},
            {"sm__cycles_active.sum", "sm__warps_active.sum", "gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__warps_issue_stalled_mio_throttle.sum", "smsp__warps_issue_stalled_drain.sum", "smsp__warps_issue_stalled_imc_miss.sum", "smsp__warps_issue_stalled_long_scoreboard.sum"},
            {"sm__cycles_active.sum", "sm__warps_active.sum", "gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__warps_issue_stalled_tex_throttle.sum", "smsp__warps_issue_stalled_lg_throttle.sum", "smsp__warps_issue_stalled_wait.sum", "smsp__warps_issue_stalled_gmma.sum"}};
        return cost_pass_groups(groups);
    }
    if (getenv("RP_COST6"))
        return cost_two_objects(all);
    if (getenv("RP_COST5"))
        return cost_first_starts(one, all);
    if (getenv("RP_COST2")) {
        cost_superset_first(all, one, other, 0);
        cost_superset_first(all, one, other, 1);
        cost_pass_ranges(all);
        return 0;
    }
    cost_breakdown(one);
    cost_batched(one, 64, 0, 1);
    cost_batched(one, 64, 3, 1);
    cost_batched(one, 64, 3, 0);
    cost_batched(one, 256, 1, 1);
    cost_fresh_object();
    cost_same_object(one, other, 1, 1);
    cost_same_object(one, other, 1, 8);
    cost_same_object(one, other, 0, 1);
    cost_passes(all);
    return 0;
}

int main(int argc, char **argv)
{
    size_t mem_mb = 64; int launches = 200;
    setvbuf(stdout, NULL, _IONBF, 0);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--mem-mb")) mem_mb = strtoul(argv[i + 1], 0, 10);
        if (!strcmp(argv[i], "--launches")) launches = atoi(argv[i + 1]);
    }
    cudaFree(0);
    CU(cuCtxGetCurrent(&ctx));
    if (cudaGetFuncBySymbol(&fn, (const void *)work) != cudaSuccess) return 2;
    CU(cuMemAlloc(&buf, n * sizeof(float)));
    CUdeviceptr ballast; // device memory the app holds: kernel replay saves/restores it
    CU(cuMemAlloc(&ballast, mem_mb << 20));
    CU(cuMemsetD8(ballast, 1, mem_mb << 20));
    // native
    launch(); CU(cuCtxSynchronize());
    double t0 = now_ms();
    for (int i = 0; i < launches; i++) launch();
    CU(cuCtxSynchronize());
    printf("device memory held: %zu MiB\n", mem_mb);
    printf("%-48s          %8.3f ms per launch\n", "native", (now_ms() - t0) / launches);

    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    if (cuptiProfilerInitialize(&pi) != CUPTI_SUCCESS) return 3;
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0; cuptiDeviceGetChipName(&cn); chip = cn.pChipName;
    CUpti_Profiler_GetCounterAvailability_Params ca = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = ctx; cuptiProfilerGetCounterAvailability(&ca);
    avail.resize(ca.counterAvailabilityImageSize); ca.pCounterAvailabilityImage = avail.data();
    cuptiProfilerGetCounterAvailability(&ca);
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    if (cuptiRangeProfilerEnable(&en) != CUPTI_SUCCESS) return 4;
    rpo = en.pRangeProfilerObject;

    const char *base[] = {"smsp__inst_executed.sum", "smsp__inst_issued.sum", "smsp__thread_inst_executed.sum",
                          "sm__cycles_active.sum", "gpu__time_duration.sum"};
    Config full, group, group64, cycles4;
    for (int i = 0; i < 17; i++) snprintf(stall_names[i], 96, "smsp__warps_issue_stalled_%s.sum", stalls[i]);
    for (auto m : base) { full.metrics.push_back(m); group.metrics.push_back(m); group64.metrics.push_back(m); }
    for (int i = 0; i < 17; i++) full.metrics.push_back(stall_names[i]);
    group.metrics.push_back(stall_names[16]); group64.metrics.push_back(stall_names[16]);
    cycles4.metrics = {"sm__cycles_active.sum", stall_names[0], stall_names[9], stall_names[10], stall_names[11]};
    if (build(full, 1) || build(group, 1) || build(group64, 64) || build(cycles4, 1)) return 5;
    printf("passes: full set %zu, base+gmma %zu, cycles+4 stalls %zu\n", full.passes, group.passes, cycles4.passes);

    int small = launches / 4 > 10 ? launches / 4 : 10;
    if (getenv("RP_GRAPH")) {
        // A graph of 4 kernel nodes: auto range and user range, user and kernel replay,
        // each with a fresh profiler object.
        cudaStream_t st; cudaStreamCreate(&st);
        cudaGraph_t gr; cudaGraphExec_t ge;
        cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
        for (int i = 0; i < 4; i++) launch(st);
        cudaStreamEndCapture(st, &gr);
        cudaGraphInstantiate(&ge, gr, 0);
        struct { CUpti_ProfilerRange range; CUpti_ProfilerReplayMode replay; const char *what; } modes[] = {
            {CUPTI_UserRange, CUPTI_UserReplay, "user range, user replay"},
            {CUPTI_AutoRange, CUPTI_UserReplay, "auto range, user replay"},
            {CUPTI_AutoRange, CUPTI_KernelReplay, "auto range, kernel replay"},
        };
        for (auto &md : modes) {
            CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
            di.pRangeProfilerObject = rpo; cuptiRangeProfilerDisable(&di);
            CUpti_RangeProfiler_Enable_Params en2 = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
            en2.ctx = ctx; if (cuptiRangeProfilerEnable(&en2) != CUPTI_SUCCESS) return 8;
            rpo = en2.pRangeProfilerObject;
            Config one; one.metrics = {"smsp__inst_executed.sum", "sm__cycles_active.sum"};
            range_mode = md.range;
            if (build(one, 8) || arm(one, md.replay, 8) || start()) { printf("%s: setup failed\n", md.what); continue; }
            int pushed = 0;
            if (md.range == CUPTI_UserRange) {
                CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
                pu.pRangeProfilerObject = rpo; pu.pRangeName = "graph";
                pushed = cuptiRangeProfilerPushRange(&pu) == CUPTI_SUCCESS;
            }
            int lr = cudaGraphLaunch(ge, st); cudaStreamSynchronize(st);
            if (pushed) {
                CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
                po.pRangeProfilerObject = rpo; cuptiRangeProfilerPopRange(&po);
            }
            int all; size_t r = 0;
            int ok = stop(&all) == 0 && decode(one, &r) == 0;
            printf("graph of 4 nodes, %s: launch %d, %s, %zu ranges:", md.what, lr, ok ? "decoded" : "FAILED", r);
            for (size_t i = 0; ok && i < r; i++) printf(" [inst %.0f cycles %.0f]", eval(one, i, 0), eval(one, i, 1));
            printf(" (one launch alone: inst 8978432)\n");
        }
        return 0;
    }
    if (getenv("RP_SINGLE")) {
        // Which metric sets user range + user replay can read: a fresh profiler object each.
        std::vector<std::vector<const char *>> sets = {
            {"smsp__inst_executed.sum"}, {"smsp__warps_issue_stalled_wait.sum"},
            {"sm__cycles_active.sum", "smsp__inst_executed.sum"},
            {"smsp__inst_executed.sum", "smsp__inst_issued.sum", "smsp__thread_inst_executed.sum", "sm__cycles_active.sum"},
            {"smsp__inst_executed.sum", "smsp__inst_issued.sum", "smsp__thread_inst_executed.sum", "sm__cycles_active.sum", "gpu__time_duration.sum"},
            {"gpu__time_duration.sum"},
            {"sm__cycles_active.sum", stall_names[0], stall_names[9], stall_names[10], stall_names[11]},
            {"sm__cycles_active.sum", stall_names[14]},
        };
        range_mode = CUPTI_UserRange;
        for (auto &set : sets) {
            CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
            di.pRangeProfilerObject = rpo; cuptiRangeProfilerDisable(&di);
            CUpti_RangeProfiler_Enable_Params en2 = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
            en2.ctx = ctx; if (cuptiRangeProfilerEnable(&en2) != CUPTI_SUCCESS) return 8;
            rpo = en2.pRangeProfilerObject;
            Config one; one.metrics = set;
            if (build(one, 1) || arm(one, CUPTI_UserReplay, 1) || start()) return 7;
            CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
            pu.pRangeProfilerObject = rpo; pu.pRangeName = "k";
            if (cuptiRangeProfilerPushRange(&pu) != CUPTI_SUCCESS) { printf("push failed\n"); return 7; }
            launch(); CU(cuCtxSynchronize());
            CUpti_RangeProfiler_PopRange_Params po = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
            po.pRangeProfilerObject = rpo;
            cuptiRangeProfilerPopRange(&po);
            int all; size_t r = 0;
            if (stop(&all) || decode(one, &r)) return 7;
            printf("user range, user replay, %zu metrics:", set.size());
            for (size_t m = 0; m < set.size(); m++) printf(" %s=%.0f", set[m], eval(one, 0, m));
            printf("\n");
        }
        return 0;
    }
    if (getenv("RP_COST")) return cost_experiments(group, cycles4, full);
    if (measure("kernel replay, full set", full, CUPTI_KernelReplay, small, 1)) return 6;
    if (measure("kernel replay, one-pass group", group, CUPTI_KernelReplay, small, 1)) return 6;
    // Auto range with user replay: how many ranges a session of 64 launches makes.
    if (measure("user replay, auto range, 64 launches per session", group64, CUPTI_UserReplay,
                launches / 64 * 64, 64)) return 6;
    {
        // topdown's replay-free path: a fresh object for the group's metric list, then per
        // launch: re-arm, Start, PushRange, launch, sync, PopRange, Stop, Decode.
        if (fresh_object()) return 8;
        range_mode = CUPTI_UserRange;
        Config one; one.metrics = group.metrics;
        if (build(one, 1)) return 7;
        double t0 = now_ms();
        for (int i = 0; i < launches; i++)
            if (user_range_launch(one)) return 7;
        printf("%-48s passes %zu: %8.3f ms per launch (%d launches)\n",
               "user replay, user range, one-pass group", one.passes, (now_ms() - t0) / launches, launches);
        printf("   values of the last:");
        for (size_t m = 0; m < one.metrics.size(); m++) printf(" %s=%.0f", one.metrics[m], eval(one, 0, m));
        printf("\n");
        // A configuration switch: another metric list needs a fresh object.
        Config other; other.metrics = cycles4.metrics;
        if (build(other, 1)) return 7;
        t0 = now_ms();
        int switches = 20;
        for (int i = 0; i < switches; i++) {
            Config &c = i % 2 ? one : other;
            if (fresh_object() || user_range_launch(c)) return 7;
        }
        printf("%-48s %8.3f ms per launch (%d launches, each after a fresh object)\n",
               "user replay, switching groups every launch", (now_ms() - t0) / switches, switches);
        range_mode = CUPTI_AutoRange;
        if (fresh_object()) return 8;
        if (build(full, 1) || arm(full, CUPTI_KernelReplay, 1) || start()) return 7;
        launch();
        int all; size_t r;
        if (stop(&all) || decode(full, &r)) return 7;
        printf("   same kernel, kernel replay of the full set:");
        for (size_t m = 0; m < 5; m++) printf(" %s=%.0f", full.metrics[m], eval(full, 0, m));
        printf("\n");
    }
    return 0;
}
