// td_smoke: a small CUDA program with kernels of known character, used by
// topdown's GPU tests and by benchmarks/ncu_compare.sh. Each kernel goes
// through a different launch path, so the injection library's callbacks
// are all exercised:
//   fma_chain      <<<>>>                     compute bound, dependent FMAs
//   divergent      <<<>>>                     half of each warp idles
//   triad          <<<>>>                     streams memory
//   block_reduce   <<<>>>                     shared memory and barriers
//   scale<float>   cudaLaunchKernelEx         a template (demangling)
//   coop_sum       cudaLaunchCooperativeKernel
//
// Options: --repeat N (default 1), --exit CODE, --crash (SIGSEGV after
// the kernels), --raise SIG (raise a signal after the kernels),
// --no-kernel, --graph (also launch a CUDA graph of two kernels),
// --second-context (also launch fma_chain twice in a context of its own,
// made with the driver API and destroyed before exit), --l2-reread (instead
// of the six kernels, N launches of l2_reread: a kernel that reads a
// 16 MiB buffer, which stays in the L2 from one launch to the next unless
// the caches are flushed: tests/gpu/test_conditions.c), --fresh-streams
// (each repeat on a stream of its own, created before it and destroyed
// after it: a destroyed stream's handle often comes back for the next).
#include <cuda.h>
#include <cuda_runtime.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "td_smoke: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

__global__ void fma_chain(float *out, int iters)
{
    float x = threadIdx.x * 1e-3f, y = 1.0001f;
    for (int i = 0; i < iters; i++)
        x = fmaf(x, y, 1e-4f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void divergent(float *out, int iters)
{
    float x = threadIdx.x;
    if (threadIdx.x & 1) {
        for (int i = 0; i < iters; i++)
            x = x * 0.999f + 1.0f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void triad(const float *a, const float *b, float *c, float s, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + s * b[i];
}

__global__ void block_reduce(const float *in, float *out, size_t n)
{
    __shared__ float partial[256];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = partial[0];
}

template <typename T> __global__ void scale(T *x, T s, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= s;
}

// Reads the buffer once (zeros: nothing is ever written), with a short
// chain of FMAs per element, so that with the data in the L2 (left there
// by the launch before) part of the load latency is hidden by the math,
// and with a flushed L2 the DRAM latency is not: the flush shows as fewer
// retired slots and more Memory_Bound ones.
__global__ void l2_reread(const float4 *in, float *out, size_t n4)
{
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        acc = fmaf(acc, v.x, v.y);
        acc = fmaf(acc, v.z, v.w);
        acc = fmaf(acc, v.x, v.w);
        acc = fmaf(acc, v.y, v.z);
    }
    if (acc == 1234.5f)
        out[0] = acc;
}

__global__ void coop_sum(const float *in, float *out, int n)
{
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += in[i];
    atomicAdd(out, acc);
}

struct buffers {
    float *a, *b, *c, *small;
    size_t n;
};

static void run_once(const buffers &m, cudaStream_t stream)
{
    fma_chain<<<264, 256, 0, stream>>>(m.small, 2048);
    divergent<<<264, 256, 0, stream>>>(m.small, 1024);
    triad<<<1056, 256, 0, stream>>>(m.a, m.b, m.c, 3.0f, m.n);
    block_reduce<<<(unsigned)((m.n + 255) / 256), 256, 0, stream>>>(m.a, m.c, m.n);

    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)((m.n + 255) / 256));
    cfg.blockDim = dim3(256);
    cfg.stream = stream;
    CHECK(cudaLaunchKernelEx(&cfg, scale<float>, m.b, 0.5f, m.n));

    int n = (int)m.n;
    float *in = m.a, *out = m.small;
    void *args[] = {&in, &out, &n};
    CHECK(cudaLaunchCooperativeKernel((void *)coop_sum, dim3(132), dim3(256), args, 0, stream));
}

static void run_graph(const buffers &m, cudaStream_t stream)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    fma_chain<<<132, 128, 0, stream>>>(m.small, 256);
    divergent<<<132, 128, 0, stream>>>(m.small, 256);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
}

#define CHECK_CU(call)                                                         \
    do {                                                                       \
        CUresult r_ = (call);                                                  \
        if (r_ != CUDA_SUCCESS) {                                              \
            fprintf(stderr, "td_smoke: %s: CUresult %d\n", #call, (int)r_);    \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

/* A second context on device 0: the runtime launches into whatever
 * context is current, so the same kernel runs under another profiler
 * state, and the context's destruction must flush its results. */
static void run_second_context(void)
{
    CUdevice dev;
    CUcontext ctx;
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, dev));
    float *out;
    CHECK(cudaMalloc(&out, 132 * 128 * sizeof(float)));
    for (int i = 0; i < 2; i++)
        fma_chain<<<132, 128>>>(out, 256);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(out));
    CHECK_CU(cuCtxDestroy(ctx));
}

int main(int argc, char **argv)
{
    int repeat = 1, exit_code = 0, crash = 0, raise_sig = 0, no_kernel = 0, graph = 0;
    int fresh_streams = 0;
    int second_context = 0, l2_reread_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--exit") && i + 1 < argc)
            exit_code = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--raise") && i + 1 < argc)
            raise_sig = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--crash"))
            crash = 1;
        else if (!strcmp(argv[i], "--no-kernel"))
            no_kernel = 1;
        else if (!strcmp(argv[i], "--graph"))
            graph = 1;
        else if (!strcmp(argv[i], "--second-context"))
            second_context = 1;
        else if (!strcmp(argv[i], "--l2-reread"))
            l2_reread_only = 1;
        else if (!strcmp(argv[i], "--fresh-streams"))
            fresh_streams = 1;
        else {
            fprintf(stderr, "td_smoke: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    buffers m;
    m.n = (size_t)1 << 24; /* 64 MiB a buffer: more than the L2 */
    CHECK(cudaMalloc(&m.a, m.n * sizeof(float)));
    CHECK(cudaMalloc(&m.b, m.n * sizeof(float)));
    CHECK(cudaMalloc(&m.c, m.n * sizeof(float)));
    CHECK(cudaMalloc(&m.small, 264 * 256 * sizeof(float)));
    CHECK(cudaMemset(m.a, 0, m.n * sizeof(float)));
    CHECK(cudaMemset(m.b, 0, m.n * sizeof(float)));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    int launches = 0;
    const size_t reread_bytes = (size_t)16 << 20; /* fits the H100/H200 L2 (50 MiB) */
    for (int r = 0; r < repeat && l2_reread_only && !no_kernel; r++) {
        l2_reread<<<1056, 256, 0, stream>>>((const float4 *)m.a, m.small,
                                             reread_bytes / sizeof(float4));
        launches++;
    }
    for (int r = 0; r < repeat && !no_kernel && !l2_reread_only; r++) {
        cudaStream_t fresh = stream;
        if (fresh_streams)
            CHECK(cudaStreamCreate(&fresh));
        run_once(m, fresh);
        launches += 6;
        if (fresh_streams) {
            CHECK(cudaStreamSynchronize(fresh));
            CHECK(cudaStreamDestroy(fresh));
        }
    }
    if (graph && !no_kernel) {
        run_graph(m, stream);
        launches += 2;
    }
    CHECK(cudaStreamSynchronize(stream));
    if (second_context && !no_kernel) {
        run_second_context();
        launches += 2;
    }
    printf("td_smoke: %d kernel launches done\n", launches);
    fflush(stdout);
    if (crash)
        raise(SIGSEGV);
    if (raise_sig)
        raise(raise_sig);
    CHECK(cudaFree(m.a));
    CHECK(cudaFree(m.b));
    CHECK(cudaFree(m.c));
    CHECK(cudaFree(m.small));
    CHECK(cudaStreamDestroy(stream));
    return exit_code;
}
