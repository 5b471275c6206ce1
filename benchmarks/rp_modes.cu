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

#include <chrono>
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
