// td_bench: kernels with known bottlenecks, one TopDown node each.
//
//   td_bench [--list] [--all] [--kernel NAME[,NAME...]] [--reps N] [--size-mb M]
//            [--graph]
//
// --graph launches each kernel --reps times as a one-node CUDA graph
// (topdown's graph profiling); --size-mb: l1_bound's buffer (256 MiB).
//
// Each designed kernel makes one node of the model (MODEL.md section 4)
// dominate on an H100; benchmarks/README.md says why for each. Variants
// (not run by default, --all runs them) show what the hardware does with
// other designs, and (l1_hit, l2_hit) with l1_bound's chase in L1 and L2.
//
// "TD_HOT(name)" marks the source lines designed to cause kernel name's
// bottleneck: tests/gpu/test_source.c checks that `topdown source` puts
// one of them first (the build compiles with -lineinfo).
//
// Every kernel keeps its result alive by storing it only when it equals a
// run-time key that never matches, so the compiler cannot delete the work
// and the kernels make no memory traffic they were not designed to make.

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_CUDA(call) check_cuda((call), #call, __FILE__, __LINE__)

static void check_cuda(cudaError_t rc, const char *what, const char *file, int line)
{
    if (rc == cudaSuccess)
        return;
    fprintf(stderr, "td_bench: %s failed at %s:%d: %s (%s)\n", what, file, line,
            cudaGetErrorString(rc), cudaGetErrorName(rc));
    exit(1);
}

// Where results go, and the key they are compared with: a kernel argument
// the compiler cannot know, set (setup) to a value no kernel produces.
struct Sink {
    float *out;
    float key;
};

__device__ __forceinline__ void keep(const Sink &s, float v)
{
    if (v == s.key)
        s.out[threadIdx.x] = v;
}

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ unsigned global_warp()
{
    return (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
}

__device__ __forceinline__ unsigned hash32(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// ---------------------------------------------------------------- Retire
// Eight independent FMA chains per thread, 64 warps per SM: the FMA pipes
// take one warp instruction per cycle per scheduler, so every slot issues.
__global__ void __launch_bounds__(256) bench_retire(Sink s, int iters, float seed)
{
    float a0 = seed + threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < 16; j++) {
            a0 = fmaf(a0, 0.9999f, 0.5f); // TD_HOT(retire)
            a1 = fmaf(a1, 0.9998f, 0.5f); // TD_HOT(retire)
            a2 = fmaf(a2, 0.9997f, 0.5f); // TD_HOT(retire)
            a3 = fmaf(a3, 0.9996f, 0.5f); // TD_HOT(retire)
            a4 = fmaf(a4, 0.9995f, 0.5f); // TD_HOT(retire)
            a5 = fmaf(a5, 0.9994f, 0.5f); // TD_HOT(retire)
            a6 = fmaf(a6, 0.9993f, 0.5f); // TD_HOT(retire)
            a7 = fmaf(a7, 0.9992f, 0.5f); // TD_HOT(retire)
        }
    }
    keep(s, a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7);
}

// ------------------------------------------------------- Divergence.Branch
// The same FMA work as retire, behind a branch that one lane in eight
// takes. The condition is a kernel argument, so the compiler emits a real
// branch around the loop (BSSY/BRA in SASS), not predication; the warp
// issues at full rate with 4 of 32 lanes active.
__global__ void __launch_bounds__(256) bench_divergence(Sink s, int iters, unsigned sel)
{
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    if ((lane_id() & 7u) == (sel & 7u)) {
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int j = 0; j < 16; j++) {
                a0 = fmaf(a0, 0.9999f, 0.5f); // TD_HOT(divergence)
                a1 = fmaf(a1, 0.9998f, 0.5f); // TD_HOT(divergence)
                a2 = fmaf(a2, 0.9997f, 0.5f); // TD_HOT(divergence)
                a3 = fmaf(a3, 0.9996f, 0.5f); // TD_HOT(divergence)
                a4 = fmaf(a4, 0.9995f, 0.5f); // TD_HOT(divergence)
                a5 = fmaf(a5, 0.9994f, 0.5f); // TD_HOT(divergence)
                a6 = fmaf(a6, 0.9993f, 0.5f); // TD_HOT(divergence)
                a7 = fmaf(a7, 0.9992f, 0.5f); // TD_HOT(divergence)
            }
        }
    }
    keep(s, a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7);
}

// ------------------------------------ Frontend.Fetch.Instruction_Fetch
// 256 distinct blocks of 64 FMAs (16 bytes of SASS each: 256 KiB of hot
// code, beyond the SM's instruction caches). Each warp jumps to a
// pseudo-random block every iteration, so warps run in different places
// and sequential prefetch does not help: warps wait for instructions.
#define IFETCH_BLOCKS 256

template <int B>
__device__ __forceinline__ void ifetch_block(float &a, float &b, float &c, float &d)
{
#pragma unroll
    for (int i = 0; i < 16; i++) {
        // Distinct immediates keep every instruction distinct.
        a = fmaf(a, 1.0f + (B * 64 + i * 4 + 0) * 2.5e-7f, b); // TD_HOT(ifetch)
        b = fmaf(b, 1.0f - (B * 64 + i * 4 + 1) * 2.5e-7f, c); // TD_HOT(ifetch)
        c = fmaf(c, 1.0f + (B * 64 + i * 4 + 2) * 2.5e-7f, d); // TD_HOT(ifetch)
        d = fmaf(d, 1.0f - (B * 64 + i * 4 + 3) * 2.5e-7f, a); // TD_HOT(ifetch)
    }
}

#define IF_CASE1(n) \
    case (n): ifetch_block<(n)>(a, b, c, d); break;
#define IF_CASE4(n) IF_CASE1(n) IF_CASE1((n) + 1) IF_CASE1((n) + 2) IF_CASE1((n) + 3)
#define IF_CASE16(n) IF_CASE4(n) IF_CASE4((n) + 4) IF_CASE4((n) + 8) IF_CASE4((n) + 12)
#define IF_CASE64(n) IF_CASE16(n) IF_CASE16((n) + 16) IF_CASE16((n) + 32) IF_CASE16((n) + 48)

// MASK: IFETCH_BLOCKS - 1 for the whole body; 3 (ifetch_small): 4 KiB of
// code, the control (unreachable cases dropped). PC sampling puts the fetch
// stall on the switch: its jump table and case entries (H100 and H200).
template <unsigned MASK>
__device__ __forceinline__ void ifetch_body(Sink s, int iters)
{
    float a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
    unsigned warp = global_warp();
    for (int i = 0; i < iters; i++) {
        switch (hash32(warp * 977u + (unsigned)i) & MASK) { // TD_HOT(ifetch)
            IF_CASE64(0)
            IF_CASE64(64)
            IF_CASE64(128)
            IF_CASE64(192)
        }
    }
    keep(s, a + b + c + d);
}

__global__ void __launch_bounds__(256) bench_ifetch(Sink s, int iters)
{
    ifetch_body<IFETCH_BLOCKS - 1>(s, iters);
}

__global__ void __launch_bounds__(256) bench_ifetch_small(Sink s, int iters)
{
    ifetch_body<3>(s, iters);
}

// ------------------------------------- Frontend.Fetch.Synchronization
// Blocks of 32 warps meet at __syncthreads() after every step; in each
// step one warp (a different one each time) does 128 times the work of
// the others, so 31 warps wait at the barrier most of the time.
__global__ void __launch_bounds__(1024) bench_sync(Sink s, int steps, int work)
{
    float a = threadIdx.x, b = a + 1;
    unsigned warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    // A warp waiting at the barrier may be sampled at BAR.SYNC or at the
    // instruction after it (the loop's step, on the for line): both count.
    for (int step = 0; step < steps; step++) { // TD_HOT(sync)
        int n = ((unsigned)step % nwarps == warp) ? work * 128 : work;
        for (int i = 0; i < n; i++) {
            a = fmaf(a, 0.9999f, b);
            b = fmaf(b, 0.9998f, a);
        }
        __syncthreads(); // TD_HOT(sync)
    }
    keep(s, a + b);
}

// ------------------------------------- Backend.Memory_Bound.L1_Bound
// Pointer chasing: every thread follows its own chain of dependent loads
// to pseudo-random 4-byte words of a buffer far larger than L2 (the next
// address hashes the loaded value, so each load waits for the last and no
// two lanes share a cache line). The buffer is zeroed with cudaMemset, no
// init kernel, so this is the only kernel of its run.
// One loop for bench_l1_bound, bench_l1_hit and bench_l2_hit (after SGEMM).
__device__ __forceinline__ unsigned chase_loop(const unsigned *buf, unsigned n_words, int steps)
{
    unsigned idx = hash32(blockIdx.x * blockDim.x + threadIdx.x);
    unsigned acc = 0;
    for (int i = 0; i < steps; i++) {
        unsigned v = buf[(unsigned)(((uint64_t)idx * n_words) >> 32)]; // TD_HOT(l1_bound) TD_HOT(l1_hit) TD_HOT(l2_hit)
        acc += v; // TD_HOT(l1_bound) TD_HOT(l1_hit) TD_HOT(l2_hit)
        idx = hash32(idx + v + (unsigned)i); // TD_HOT(l1_bound) TD_HOT(l1_hit) TD_HOT(l2_hit)
    }
    return acc;
}

// ------------------------------------- Backend.Memory_Bound.MIO_Bound
// Shared-memory loads where all 32 lanes hit the same bank (row stride of
// 32 words): each load replays 32 times in the shared-memory pipe, whose
// queue fills (mio_throttle) while the loads' results are awaited
// (short_scoreboard).
__global__ void __launch_bounds__(256) bench_mio_bound(Sink s, int iters)
{
    __shared__ float tile[32 * 32]; // row stride 32 words: a column is one bank
    unsigned lane = lane_id();
    for (unsigned i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        tile[i] = (float)(i & 63u);
    __syncthreads();
    const float *t = tile;
    unsigned k = 0;
    float acc = 0.0f;
    for (int i = 0; i < iters; i++) {
        float v0 = t[lane * 32 + ((k + 0) & 31)]; // TD_HOT(mio_bound)
        float v1 = t[lane * 32 + ((k + 5) & 31)]; // TD_HOT(mio_bound)
        float v2 = t[lane * 32 + ((k + 11) & 31)]; // TD_HOT(mio_bound)
        float v3 = t[lane * 32 + ((k + 17) & 31)]; // TD_HOT(mio_bound)
        acc += (v0 + v1) + (v2 + v3); // TD_HOT(mio_bound)
        k += (unsigned)acc & 7u; // the next addresses depend on these loads; TD_HOT(mio_bound)
        k += 1;
    }
    keep(s, acc);
}

// Variant: the same dependent shared-memory loads without conflicts (each
// lane its own bank): the waits are the loads' latency (short_scoreboard).
__global__ void __launch_bounds__(256) bench_smem_chain(Sink s, int iters)
{
    __shared__ unsigned next[32 * 32];
    unsigned lane = lane_id();
    for (unsigned i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        next[i] = (i * 7u + 32u) & (32 * 32 - 1); // bank 7 x the last: the lanes stay in 32 distinct banks
    __syncthreads();
    unsigned at = lane;
    for (int i = 0; i < iters; i++)
        at = next[at]; // TD_HOT(smem_chain)
    keep(s, (float)at);
}

// Variant: dependent warp shuffles, which go through the MIO queue on
// GH100 without touching shared memory.
__global__ void __launch_bounds__(256) bench_mio_shfl(Sink s, int iters)
{
    float v = threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++) {
        v += __shfl_xor_sync(0xffffffffu, v, 1); // TD_HOT(mio_shfl)
        v += __shfl_xor_sync(0xffffffffu, v, 7); // TD_HOT(mio_shfl)
    }
    keep(s, v);
}

// ------------------------------ Backend.Memory_Bound.Constant_Memory
// 64 KiB of __constant__ memory read at compile-time addresses (c[0x3][...]
// in SASS; on sm_90 ptxas reads them with ULDC into uniform registers): 16
// blocks of 64 FMAs, each constant on its own 64-byte line, so a sweep
// touches 1024 lines, far more than the immediate constant cache holds.
// Warps jump between blocks at random, as in ifetch but with 16 KiB of
// code only, and wait on immediate-constant cache misses (imc_miss).
#define CONST_WORDS 16384
#define CONST_BLOCKS 16
__constant__ float c_table[CONST_WORDS];

template <int B>
__device__ __forceinline__ void const_block(float &a, float &b)
{
#pragma unroll
    for (int i = 0; i < 32; i++) {
        a = fmaf(a, c_table[(B * 64 + 2 * i) * 16], b); // TD_HOT(constant)
        b = fmaf(b, c_table[(B * 64 + 2 * i + 1) * 16], a); // TD_HOT(constant)
    }
}

#define CM_CASE1(n) \
    case (n): const_block<(n)>(a, b); break;
#define CM_CASE4(n) CM_CASE1(n) CM_CASE1((n) + 1) CM_CASE1((n) + 2) CM_CASE1((n) + 3)

__global__ void __launch_bounds__(256) bench_constant(Sink s, int iters)
{
    float a = threadIdx.x, b = a + 1;
    unsigned warp = global_warp();
    for (int i = 0; i < iters; i++) {
        switch (hash32(warp * 977u + (unsigned)i) & (CONST_BLOCKS - 1)) {
            CM_CASE4(0)
            CM_CASE4(4)
            CM_CASE4(8)
            CM_CASE4(12)
        }
    }
    keep(s, a + b);
}

// Variant: divergent indexing, every lane of a warp reads another word
// (LDC with a per-thread address, serialized per distinct address). On
// GH100 LDC goes through the MIO queue: it lands on MIO_Bound, not on
// Constant_Memory (measured, see README.md).
__global__ void __launch_bounds__(256) bench_constant_ldc(Sink s, int iters)
{
    unsigned idx = hash32(blockIdx.x * blockDim.x + threadIdx.x) & (CONST_WORDS - 1);
    float acc = 0.0f;
    for (int i = 0; i < iters; i++) {
        float v0 = c_table[idx];
        float v1 = c_table[(idx + 4099u) & (CONST_WORDS - 1)];
        acc += v0 + v1;
        idx = (idx * 5u + 1u + (unsigned)acc) & (CONST_WORDS - 1);
    }
    keep(s, acc);
}

// ------------------------------------- Backend.Core_Bound.Math_Pipe
// Eight independent FP64 FMA chains per thread, 64 warps per SM. The FP64
// pipe takes a warp instruction every second cycle per scheduler on GH100
// (every 32nd or 64th on consumer chips), so ready warps wait for the pipe
// (math_pipe_throttle) in the slots it cannot take.
__global__ void __launch_bounds__(256) bench_math_pipe(Sink s, int iters)
{
    double x[8];
#pragma unroll
    for (int c = 0; c < 8; c++)
        x[c] = threadIdx.x + c;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
#pragma unroll
            for (int c = 0; c < 8; c++)
                x[c] = fma(x[c], 0.999999, 0.5); // TD_HOT(math_pipe)
        }
    }
    double sum = 0.0;
#pragma unroll
    for (int c = 0; c < 8; c++)
        sum += x[c];
    keep(s, (float)sum);
}

// Variant: the XU (MUFU: sin, ex2, rsqrt), an even narrower pipe. On GH100
// its instructions queue through MIO, so the waits show as mio_throttle
// (MIO_Bound), not math_pipe_throttle: measured, see README.md.
__device__ __forceinline__ float sin_xu(float x)
{
    float y;
    asm("sin.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float ex2_xu(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float rsqrt_xu(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__global__ void __launch_bounds__(256) bench_math_xu(Sink s, int iters)
{
    float x[8];
#pragma unroll
    for (int c = 0; c < 8; c++)
        x[c] = threadIdx.x * 1e-3f + c;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < 8; c++)
            x[c] = rsqrt_xu(ex2_xu(sin_xu(x[c])));
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < 8; c++)
        sum += x[c];
    keep(s, sum);
}

// ------------------------------ Backend.Core_Bound.Dependency_Wait
// One chain of dependent FMAs, launched as one block of 4 warps per SM:
// one warp per scheduler, which issues once and then waits out the FMA
// latency, with no other warp to fill the gap.
__global__ void __launch_bounds__(128) bench_dependency(Sink s, int iters)
{
    float a = threadIdx.x;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < 64; j++)
            a = fmaf(a, 0.9999f, 0.5f); // TD_HOT(dependency)
    }
    keep(s, a);
}

// -------------------------------------------------------------- SGEMM
// A classic tiled SGEMM (64x64 tiles, 8-deep K slices in shared memory,
// 4x4 outputs per thread): a realistic mix with no single dominant node.
#define SG_TILE 64
#define SG_K 8

__global__ void __launch_bounds__(256) bench_sgemm(const float *A, const float *B, float *C,
                                                 int n)
{
    __shared__ float As[SG_K][SG_TILE];
    __shared__ float Bs[SG_K][SG_TILE];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * SG_TILE, col0 = blockIdx.x * SG_TILE;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < n; k0 += SG_K) {
        // 256 threads load a 64x8 slice of A and an 8x64 slice of B, two
        // elements each.
        int ar = threadIdx.x / SG_K, ac = threadIdx.x % SG_K;
        As[ac][ar] = A[(size_t)(row0 + ar) * n + k0 + ac];
        As[ac][ar + 32] = A[(size_t)(row0 + ar + 32) * n + k0 + ac];
        int br = threadIdx.x / SG_TILE, bc = threadIdx.x % SG_TILE;
        Bs[br][bc] = B[(size_t)(k0 + br) * n + col0 + bc];
        Bs[br + 4][bc] = B[(size_t)(k0 + br + 4) * n + col0 + bc];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SG_K; k++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                a[i] = As[k][ty * 4 + i];
                b[i] = Bs[k][tx * 4 + i];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            C[(size_t)(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}

// ------------------------------ Backend.Memory_Bound.L1_Bound kernels
// chase_loop() (the L1_Bound section above) over three buffer sizes. The
// loop is one copy inlined into each kernel, so -lineinfo puts all three
// kernels' loads on chase_loop()'s lines, which carry the three kernels'
// TD_HOT markers; the kernels are defined down here so that the lines
// above keep the numbers the recordings cite (benchmarks/results/).
//   l1_bound: --size-mb (256 MiB), far beyond L2: the loads wait for DRAM.
//   l1_hit (variant): 32 KiB, which stays in every SM's L1 after its first
//     touches: the loads hit L1.
//   l2_hit (variant): 8 MiB, beyond L1 but well within L2 (50 MB on the
//     H100 and H200): the loads miss L1 and hit L2.
// The buffers are zeroed, so a load returns 0 and the next address is
// hash32(idx + i): still pseudo-random over the whole buffer.
#define L1_HIT_BYTES (32u << 10)
#define L2_HIT_BYTES (8u << 20)
// Launched as l1_bound is: 4 blocks of 256 threads per SM, one wave, so a
// launch lasts its steps times the cost of one step. Alone, a load takes
// 41 SM cycles from L1 and 284 from L2 (H200, benchmarks/mem_latency); with
// 1024 chasing threads per SM, each warp's load of 32 lines queues in L1
// (l1_hit) or in L2, then at 93-99% of its peak throughput (l2_hit); a step
// took ~330 and ~1,700 cycles (H200 at 1.98 GHz). These step counts
// make ~2.8 and ~3.5 ms a launch there, >= 1 ms on an H100 or H200 class GPU
// (the latency floor alone would be 0.34 and 0.59 ms).
#define L1_HIT_STEPS 16384
#define L2_HIT_STEPS 4096

__global__ void __launch_bounds__(256) bench_l1_bound(Sink s, const unsigned *buf,
                                                    unsigned n_words, int steps)
{
    keep(s, (float)chase_loop(buf, n_words, steps));
}

__global__ void __launch_bounds__(256) bench_l1_hit(Sink s, const unsigned *buf,
                                                  unsigned n_words, int steps)
{
    keep(s, (float)chase_loop(buf, n_words, steps));
}

__global__ void __launch_bounds__(256) bench_l2_hit(Sink s, const unsigned *buf,
                                                  unsigned n_words, int steps)
{
    keep(s, (float)chase_loop(buf, n_words, steps));
}

// ------------------------------------------------------------- driver
struct Ctx {
    Sink sink;
    int sms;
    size_t l1_bytes; // --size-mb
    unsigned *chase; // l1_bound buffer
    unsigned *chase_l1, *chase_l2; // l1_hit and l2_hit buffers
    float *ga, *gb, *gc; // sgemm matrices
    int gemm_n;
    cudaStream_t stream; // 0 (the legacy default stream) unless --graph
};

typedef void (*launch_fn)(Ctx &ctx);

static void run_retire(Ctx &c) { bench_retire<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 2048, 1.0f); }
static void run_divergence(Ctx &c) { bench_divergence<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 2048, 3u); }
static void run_ifetch(Ctx &c) { bench_ifetch<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 512); }
static void run_ifetch_small(Ctx &c) { bench_ifetch_small<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 512); }
static void run_sync(Ctx &c) { bench_sync<<<c.sms * 2, 1024, 0, c.stream>>>(c.sink, 256, 4); }
static void run_l1_bound(Ctx &c)
{
    bench_l1_bound<<<c.sms * 4, 256, 0, c.stream>>>(c.sink, c.chase, (unsigned)(c.l1_bytes / 4), 256);
}
static void run_l1_hit(Ctx &c)
{
    bench_l1_hit<<<c.sms * 4, 256, 0, c.stream>>>(c.sink, c.chase_l1, L1_HIT_BYTES / 4,
                                                  L1_HIT_STEPS);
}
static void run_l2_hit(Ctx &c)
{
    bench_l2_hit<<<c.sms * 4, 256, 0, c.stream>>>(c.sink, c.chase_l2, L2_HIT_BYTES / 4,
                                                  L2_HIT_STEPS);
}
static void run_mio_bound(Ctx &c) { bench_mio_bound<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 256); }
static void run_smem_chain(Ctx &c) { bench_smem_chain<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 4096); }
static void run_mio_shfl(Ctx &c) { bench_mio_shfl<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 2048); }
static void run_constant(Ctx &c) { bench_constant<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 128); }
static void run_constant_ldc(Ctx &c) { bench_constant_ldc<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 64); }
static void run_math_pipe(Ctx &c) { bench_math_pipe<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 4096); }
static void run_math_xu(Ctx &c) { bench_math_xu<<<c.sms * 8, 256, 0, c.stream>>>(c.sink, 1024); }
static void run_dependency(Ctx &c) { bench_dependency<<<c.sms, 128, 0, c.stream>>>(c.sink, 8192); }
static void run_sgemm(Ctx &c)
{
    dim3 grid(c.gemm_n / SG_TILE, c.gemm_n / SG_TILE);
    bench_sgemm<<<grid, 256, 0, c.stream>>>(c.ga, c.gb, c.gc, c.gemm_n);
}

struct Bench {
    const char *name;
    const char *node;  // intended bottleneck ("-": none by design)
    int variant;       // 1: not run by default (--all or --kernel)
    launch_fn run;
    const char *what;
};

// Data over code: the list drives --list, the default run and the tests.
static const Bench benches[] = {
    {"retire", "Retire", 0, run_retire, "independent FMA chains, 64 warps/SM"},
    {"divergence", "Divergence.Branch", 0, run_divergence, "FMA loop taken by 1 lane in 8"},
    {"ifetch", "Frontend.Fetch.Instruction_Fetch", 0, run_ifetch,
     "random jumps over 256 KiB of distinct FMAs"},
    {"sync", "Frontend.Fetch.Synchronization", 0, run_sync,
     "__syncthreads() after unequal work per warp"},
    {"l1_bound", "Backend.Memory_Bound.L1_Bound", 0, run_l1_bound,
     "dependent random loads over --size-mb MiB"},
    {"mio_bound", "Backend.Memory_Bound.MIO_Bound", 0, run_mio_bound,
     "32-way shared-memory bank conflicts"},
    {"constant", "Backend.Memory_Bound.Constant_Memory", 0, run_constant,
     "immediate __constant__ operands over 64 KiB"},
    {"math_pipe", "Backend.Core_Bound.Math_Pipe", 0, run_math_pipe,
     "independent FP64 FMA chains (FP64 pipe)"},
    {"dependency", "Backend.Core_Bound.Dependency_Wait", 0, run_dependency,
     "one dependent FMA chain, one warp per scheduler"},
    {"sgemm", "-", 0, run_sgemm, "tiled SGEMM 2048^3, no single dominant node"},
    {"ifetch_small", "-", 1, run_ifetch_small, "ifetch's code path over 4 KiB (control)"},
    {"constant_ldc", "-", 1, run_constant_ldc, "divergent indexing into __constant__"},
    {"math_xu", "-", 1, run_math_xu, "independent sin/ex2/rsqrt chains (XU pipe)"},
    {"smem_chain", "-", 1, run_smem_chain, "dependent conflict-free shared-memory loads"},
    {"mio_shfl", "-", 1, run_mio_shfl, "dependent warp shuffles (MIO, no shared memory)"},
    {"l1_hit", "Backend.Memory_Bound.L1_Bound", 1, run_l1_hit,
     "l1_bound's dependent random loads over 32 KiB (L1 hits)"},
    {"l2_hit", "Backend.Memory_Bound.L1_Bound", 1, run_l2_hit,
     "l1_bound's dependent random loads over 8 MiB (L1 misses, L2 hits)"},
};
static const int n_benches = (int)(sizeof benches / sizeof benches[0]);

static const Bench *find_bench(const char *name, size_t len)
{
    for (int i = 0; i < n_benches; i++)
        if (strlen(benches[i].name) == len && strncmp(benches[i].name, name, len) == 0)
            return &benches[i];
    return NULL;
}

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "td_bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (usage: td_bench [--list] [--all] [--kernel NAME[,NAME...]] "
                    "[--reps N] [--size-mb M] [--graph])\n");
    exit(2);
}

static long parse_positive(const char *opt, const char *val, long max)
{
    char *end = NULL;
    long v = val ? strtol(val, &end, 10) : 0;
    if (!val || *end != '\0' || v < 1 || v > max) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s needs an integer from 1 to %ld, got '%%s'", opt, max);
        usage_error(msg, val ? val : "");
    }
    return v;
}

struct Options {
    int selected[64];
    int n_selected;
    int list, all;
    int graph; // --graph: each kernel captured into a one-node CUDA graph
    long reps, size_mb;
};

static void select_names(Options &o, const char *csv)
{
    const char *p = csv;
    while (*p) {
        size_t len = strcspn(p, ",");
        const Bench *b = find_bench(p, len);
        if (!b) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len < 100 ? len : 100), p);
            usage_error("unknown kernel '%s'; td_bench --list shows the names", name);
        }
        if (o.n_selected < 64)
            o.selected[o.n_selected++] = (int)(b - benches);
        p += len;
        if (*p == ',')
            p++;
    }
}

static Options parse_args(int argc, char **argv)
{
    Options o = {};
    o.reps = 3;
    o.size_mb = 256;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--list")) {
            o.list = 1;
        } else if (!strcmp(a, "--all")) {
            o.all = 1;
        } else if (!strcmp(a, "--graph")) {
            o.graph = 1;
        } else if (!strcmp(a, "--kernel")) {
            if (!next || !*next)
                usage_error("%s needs a kernel name", a);
            select_names(o, next);
            i++;
        } else if (!strcmp(a, "--reps")) {
            o.reps = parse_positive(a, next, 100000);
            i++;
        } else if (!strcmp(a, "--size-mb")) {
            o.size_mb = parse_positive(a, next, 65536);
            i++;
        } else {
            usage_error("unknown argument '%s'", a);
        }
    }
    if (o.n_selected == 0)
        for (int i = 0; i < n_benches; i++)
            if (o.all || !benches[i].variant)
                o.selected[o.n_selected++] = i;
    return o;
}

static void print_list(void)
{
    // name, intended node, default/variant, description: tab-separated for
    // scripts (model_check.py, the bottleneck test).
    for (int i = 0; i < n_benches; i++)
        printf("%s\t%s\t%s\t%s\n", benches[i].name, benches[i].node,
               benches[i].variant ? "variant" : "default", benches[i].what);
}

static int uses(const Options &o, const char *name)
{
    for (int i = 0; i < o.n_selected; i++)
        if (!strcmp(benches[o.selected[i]].name, name))
            return 1;
    return 0;
}

static void setup(Ctx &c, const Options &o)
{
    int dev = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK_CUDA(cudaMalloc(&c.sink.out, 1024 * sizeof(float)));
    c.sink.key = -1234567.0f; // never a result: the kernels' values stay far from it
    c.l1_bytes = (size_t)o.size_mb << 20;
    if (uses(o, "l1_bound")) {
        CHECK_CUDA(cudaMalloc(&c.chase, c.l1_bytes));
        CHECK_CUDA(cudaMemset(c.chase, 0, c.l1_bytes));
    }
    if (uses(o, "l1_hit")) {
        CHECK_CUDA(cudaMalloc(&c.chase_l1, L1_HIT_BYTES));
        CHECK_CUDA(cudaMemset(c.chase_l1, 0, L1_HIT_BYTES));
    }
    if (uses(o, "l2_hit")) {
        CHECK_CUDA(cudaMalloc(&c.chase_l2, L2_HIT_BYTES));
        CHECK_CUDA(cudaMemset(c.chase_l2, 0, L2_HIT_BYTES));
    }
    if (uses(o, "constant") || uses(o, "constant_ldc")) {
        static float table[CONST_WORDS];
        for (int i = 0; i < CONST_WORDS; i++)
            table[i] = 0.999f + (float)(i % 97) * 1e-5f;
        CHECK_CUDA(cudaMemcpyToSymbol(c_table, table, sizeof table));
    }
    if (uses(o, "sgemm")) {
        c.gemm_n = 2048;
        size_t bytes = (size_t)c.gemm_n * c.gemm_n * sizeof(float);
        CHECK_CUDA(cudaMalloc(&c.ga, bytes));
        CHECK_CUDA(cudaMalloc(&c.gb, bytes));
        CHECK_CUDA(cudaMalloc(&c.gc, bytes));
        CHECK_CUDA(cudaMemset(c.ga, 0x3c, bytes)); // 0x3c3c3c3c ~ 0.0115f
        CHECK_CUDA(cudaMemset(c.gb, 0x3c, bytes));
    }
    CHECK_CUDA(cudaDeviceSynchronize());
}

static void teardown(Ctx &c)
{
    CHECK_CUDA(cudaFree(c.sink.out));
    CHECK_CUDA(cudaFree(c.chase));
    CHECK_CUDA(cudaFree(c.chase_l1));
    CHECK_CUDA(cudaFree(c.chase_l2));
    CHECK_CUDA(cudaFree(c.ga));
    CHECK_CUDA(cudaFree(c.gb));
    CHECK_CUDA(cudaFree(c.gc));
}

// --graph: the kernel's launch captured once into a graph, which is then
// launched instead, so topdown's graph profiling meets the designed kernels.
static cudaGraphExec_t capture_graph(Ctx &c, const Bench &b)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal));
    b.run(c);
    CHECK_CUDA(cudaStreamEndCapture(c.stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphDestroy(graph));
    return exec;
}

static float time_bench(Ctx &c, const Bench &b, long reps, int graph)
{
    cudaGraphExec_t exec = graph ? capture_graph(c, b) : NULL;
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaEventRecord(start, c.stream));
    for (long r = 0; r < reps; r++) {
        if (exec)
            CHECK_CUDA(cudaGraphLaunch(exec, c.stream));
        else
            b.run(c);
        CHECK_CUDA(cudaGetLastError());
    }
    CHECK_CUDA(cudaEventRecord(stop, c.stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    if (exec)
        CHECK_CUDA(cudaGraphExecDestroy(exec));
    return ms / (float)reps;
}

int main(int argc, char **argv)
{
    Options o = parse_args(argc, argv);
    if (o.list) {
        print_list();
        return 0;
    }
    int n_dev = 0;
    cudaError_t rc = cudaGetDeviceCount(&n_dev);
    if (rc != cudaSuccess || n_dev == 0) {
        fprintf(stderr, "td_bench: no usable CUDA device (%s); run it on a machine "
                        "with an NVIDIA GPU and driver\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
        return 1;
    }
    Ctx c = {};
    setup(c, o);
    if (o.graph)
        CHECK_CUDA(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    for (int i = 0; i < o.n_selected; i++) {
        const Bench &b = benches[o.selected[i]];
        float ms = time_bench(c, b, o.reps, o.graph);
        printf("%-14s %10.3f ms\n", b.name, ms);
        fflush(stdout);
    }
    if (c.stream)
        CHECK_CUDA(cudaStreamDestroy(c.stream));
    teardown(c);
    return 0;
}
