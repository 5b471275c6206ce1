// td_phases2: a solver that alternates a compute phase and a memory phase
// every N launches (issue 22): the sampled launches of a kernel must cover
// both phases, in proportion to their time, for its tree to be right.
//
//   td_phases2 [--same-kernel | --two-kernels] [--launches L (5000)] [--phase N (50)]
//              [--iters I (4096)] [--mb M (256)]
//
// --same-kernel (default): ONE kernel, solver_step(mode, ...), for both
// phases: mode 0 computes (8 independent FMA chains of I steps per thread,
// no memory traffic but one store), mode 1 streams (a triad z = x + s * y
// over three arrays of M MiB each, grid-stride). One kernel name whose
// behaviour changes with the phase: Retire-heavy, then memory-bound.
// --two-kernels: the same work as two kernels, compute_step and memory_step.
//
// L launches in all, the phase switching every N launches (launch i is in
// the memory phase when (i / N) is odd). Sizes for an H100 (estimated, not
// measured): a compute launch ~0.3 ms (132 SMs x 2048 threads x 32 K FMAs
// at 128 FMAs per SM and cycle), a memory launch ~0.27 ms (768 MiB at
// ~3 TB/s): 5000 launches ~1.4 s in the loop. Prints the in-loop time (td_app.h) and a checksum (the compute
// outputs' sum and a sample of z). Exit 0, 1 on any CUDA error, 2 on a bad
// argument.
#define TD_APP_NAME "td_phases2"
#include "td_app.h"

#include <vector>

static const char *USAGE = "td_phases2 [--same-kernel | --two-kernels] [--launches L (5000)] "
                           "[--phase N (50)] [--iters I (4096)] [--mb M (256)]";

#define BLOCK 256

// 8 independent FMA chains, the sum stored once.
__device__ __forceinline__ void compute_body(float *out, int iters, float seed)
{
    td_fma_chains(out, iters, seed + threadIdx.x * 1e-3f, 1e-4f);
}

// z = x + s * y, grid-stride, float4.
__device__ __forceinline__ void memory_body(const float4 *x, const float4 *y, float4 *z, float s,
                                            size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 a = x[i], b = y[i];
        z[i] = make_float4(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w);
    }
}

// One kernel for both phases: mode 0 compute, mode 1 memory.
__global__ void __launch_bounds__(BLOCK) solver_step(int mode, float *out, int iters, float seed,
                                                     const float4 *x, const float4 *y, float4 *z,
                                                     float s, size_t n4)
{
    if (mode == 0)
        compute_body(out, iters, seed);
    else
        memory_body(x, y, z, s, n4);
}

__global__ void __launch_bounds__(BLOCK) compute_step(float *out, int iters, float seed)
{
    compute_body(out, iters, seed);
}

__global__ void __launch_bounds__(BLOCK) memory_step(const float4 *x, const float4 *y, float4 *z,
                                                     float s, size_t n4)
{
    memory_body(x, y, z, s, n4);
}

// x = 1 + i mod 7, y = i mod 5 (exact in float): z is checkable.
__global__ void __launch_bounds__(BLOCK) phases_init(float *x, float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        x[i] = (float)(1 + i % 7);
        y[i] = (float)(i % 5);
    }
}

int main(int argc, char **argv)
{
    int same = 1, iters = 4096;
    long long launches = 5000, phase = 50, mb = 256;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--same-kernel"))
            same = 1;
        else if (!strcmp(a, "--two-kernels"))
            same = 0;
        else if (!strcmp(a, "--launches"))
            launches = td_parse_int(argc, argv, &i, 1, 100000000LL, USAGE);
        else if (!strcmp(a, "--phase"))
            phase = td_parse_int(argc, argv, &i, 1, 100000000LL, USAGE);
        else if (!strcmp(a, "--iters"))
            iters = (int)td_parse_int(argc, argv, &i, 1, 100000000LL, USAGE);
        else if (!strcmp(a, "--mb"))
            mb = td_parse_int(argc, argv, &i, 1, 16384, USAGE);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\n"
                   "L launches alternating every N launches between a compute phase (FMA\n"
                   "chains) and a memory phase (a triad over 3 x M MiB): one kernel with a\n"
                   "mode argument (--same-kernel, default) or two kernels (--two-kernels).\n"
                   "Prints loop_s=<s> launches=<L> us_per_launch=<x> (host clock, final\n"
                   "sync included), then a checksum.\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    int sms = td_require_device();
    const unsigned blocks = (unsigned)sms * 8; // 2048 threads per SM
    const size_t n = (size_t)mb << 18, n4 = n / 4; // floats per array
    const size_t outs = (size_t)blocks * BLOCK;
    float *x, *y, *z, *out;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&z, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, outs * sizeof(float)));
    phases_init<<<blocks, BLOCK>>>(x, y, n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaMemset(z, 0, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(out, 0, outs * sizeof(float)));
    CHECK_CUDA(cudaDeviceSynchronize());

    long long compute_launches = 0, memory_launches = 0;
    double t0 = td_now_s();
    for (long long i = 0; i < launches; i++) {
        int mode = (int)((i / phase) & 1);
        float seed = (float)(i % 1000) * 1e-3f;
        if (same)
            solver_step<<<blocks, BLOCK>>>(mode, out, iters, seed, (const float4 *)x,
                                           (const float4 *)y, (float4 *)z, 2.0f, n4);
        else if (mode == 0)
            compute_step<<<blocks, BLOCK>>>(out, iters, seed);
        else
            memory_step<<<blocks, BLOCK>>>((const float4 *)x, (const float4 *)y, (float4 *)z,
                                           2.0f, n4);
        CHECK_LAUNCH();
        (mode ? memory_launches : compute_launches)++;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    double t1 = td_now_s();
    td_print_loop(t1 - t0, launches);

    std::vector<float> h(outs);
    CHECK_CUDA(cudaMemcpy(h.data(), out, outs * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (size_t i = 0; i < outs; i++)
        sum += h[i];
    float zs[8];
    CHECK_CUDA(cudaMemcpy(zs, z, sizeof zs, cudaMemcpyDeviceToHost));
    double zsum = 0;
    for (int i = 0; i < 8; i++)
        zsum += zs[i];
    printf("td_phases2: %s, %lld launches (%lld compute, %lld memory, phase %lld), iters %d, "
           "3 x %lld MiB, checksum %.6e %.1f\n",
           same ? "solver_step (one kernel)" : "compute_step + memory_step", launches,
           compute_launches, memory_launches, phase, iters, mb, sum, zsum);
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(y));
    CHECK_CUDA(cudaFree(z));
    CHECK_CUDA(cudaFree(out));
    return 0;
}
