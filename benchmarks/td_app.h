// td_app.h: what the truth and cost apps (td_bfs, td_phases2, td_few,
// td_tiny, td_devheap; mem_latency for its CUDA check) share: checking
// every CUDA call and every launch, parsing integer flags, and the in-loop
// time line the cost harness reads
// (benchmarks/cost.sh, benchmarks/README.md):
//
//   loop_s=<seconds> launches=<N> us_per_launch=<x>
//
// measured with a host clock (CLOCK_MONOTONIC) around the app's main loop,
// the final cudaDeviceSynchronize included.
#ifndef TD_APP_H
#define TD_APP_H

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vector>

// The app's name for messages; each app defines it before including this.
#ifndef TD_APP_NAME
#error "define TD_APP_NAME before including td_app.h"
#endif

#define CHECK_CUDA(call) td_check_cuda((call), #call, __FILE__, __LINE__)
// After every launch: a launch error (bad configuration, too many
// resources) is reported at once, not at the next synchronisation.
#define CHECK_LAUNCH() td_check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

static inline void td_check_cuda(cudaError_t rc, const char *what, const char *file, int line)
{
    if (rc == cudaSuccess)
        return;
    fprintf(stderr, "%s: %s failed at %s:%d: %s (%s)\n", TD_APP_NAME, what, file, line,
            cudaGetErrorString(rc), cudaGetErrorName(rc));
    exit(1);
}

static inline double td_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The line benchmarks/cost.sh reads.
static inline void td_print_loop(double seconds, long long launches)
{
    printf("loop_s=%.6f launches=%lld us_per_launch=%.3f\n", seconds, launches,
           launches > 0 ? 1e6 * seconds / (double)launches : 0.0);
    fflush(stdout);
}

static inline void td_usage_error(const char *usage, const char *msg, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\nusage: %s\n", TD_APP_NAME, msg, arg, usage);
    exit(2);
}

// The integer after option opt (argv[*i + 1]), from lo to hi; advances *i.
static inline long long td_parse_int(int argc, char **argv, int *i, long long lo, long long hi,
                                     const char *usage)
{
    const char *opt = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    char *end = NULL;
    long long v = val ? strtoll(val, &end, 10) : 0;
    if (!val || end == val || *end != '\0' || v < lo || v > hi) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s needs an integer from %lld to %lld, got", opt, lo, hi);
        td_usage_error(usage, msg, val ? val : "");
    }
    (*i)++;
    return v;
}

// A usable device, or exit 1 with why.
// 8 independent FMA chains of `iters` steps each, started from a0 + 0.1 i
// and adding c at every step; the thread's sum is stored once (the
// compute-bound design of td_few and td_phases2).
__device__ __forceinline__ void td_fma_chains(float *out, int iters, float a0, float c)
{
    float a1 = a0 + 0.1f, a2 = a0 + 0.2f, a3 = a0 + 0.3f;
    float a4 = a0 + 0.4f, a5 = a0 + 0.5f, a6 = a0 + 0.6f, a7 = a0 + 0.7f;
    const float m = 0.9999f;
    for (int i = 0; i < iters; i++) {
        a0 = fmaf(a0, m, c);
        a1 = fmaf(a1, m, c);
        a2 = fmaf(a2, m, c);
        a3 = fmaf(a3, m, c);
        a4 = fmaf(a4, m, c);
        a5 = fmaf(a5, m, c);
        a6 = fmaf(a6, m, c);
        a7 = fmaf(a7, m, c);
    }
    out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// The sum of n floats of device memory, read back to the host (checksums).
static inline double td_device_sum(const float *d, size_t n)
{
    std::vector<float> h(n);
    CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += h[i];
    return s;
}

static inline int td_require_device(void)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess || n == 0) {
        fprintf(stderr, "%s: no usable CUDA device (%s)\n", TD_APP_NAME,
                rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
        exit(1);
    }
    int dev = 0, sms = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms;
}

#endif
