// td_manykernels: a small ML + particle pipeline built from kernel
// templates, 85 distinct kernels, for measuring topdown on an
// application with many kernels of very different launch counts
// (benchmarks/README.md).
//
//   td_manykernels [--steps N] [--rare-every R]
//
// One step (--steps, default 200):
//   ML, fp32   dropout, 3 tiled GEMMs, bias, GELU, residual add, layernorm,
//              softmax, cross-entropy gradient, transpose, weight-gradient
//              GEMM, Adam, clamp, gating (sigmoid, multiply, max), loss and
//              weight-norm reductions (two stages), a GEMV
//   ML, fp64   a smaller reference model with the same kinds of kernels,
//              instantiated for double
//   signal     two 1-D convolutions, difference, inclusive scan (three
//              kernels), 64-bin histogram
//   particles  cell index, 512-bin cell histogram, scan of the cell counts,
//              tiled all-pairs forces, kick, drift, kinetic energy
// Every R steps (--rare-every, default 50) and once at the end: bitonic
// sort of the particles by cell (shared-memory and global passes) and the
// reorder, a sort of the squared first-layer weights (median), a 256-bin
// weight histogram, a max-norm rescale of the first layers, checksums.
// Setup (once): random initialisation (hash based) of every array.
//
// Deterministic: fixed grids, fixed reduction order, integer atomics only
// (histograms); the checksum is the same from run to run on one GPU and
// build. Prints the steps, launches, distinct kernels launched, final
// losses and the checksum. With the defaults: 74 launches per step (66
// kernels), 66 per rare pass (12 more), 16 at setup, 7 at the end: 15,087
// launches of 85 kernels.

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
    fprintf(stderr, "td_manykernels: %s failed at %s:%d: %s (%s)\n", what, file, line,
            cudaGetErrorString(rc), cudaGetErrorName(rc));
    exit(1);
}

// ------------------------------------------------------------------ helpers
__host__ __device__ __forceinline__ uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__device__ __forceinline__ float unit_rand(uint32_t i, uint32_t seed)
{
    return (hash32(i * 2654435761u ^ hash32(seed)) >> 8) * (1.0f / 16777216.0f); // [0, 1)
}

// Tree reduction of one value per thread over a block of BLOCK threads
// (a power of two), in shared memory the caller provides; every thread
// gets the result. Fixed order: deterministic.
template <typename T, int BLOCK, typename Op>
__device__ T block_reduce(T v, T *s)
{
    s[threadIdx.x] = v;
    __syncthreads();
    for (int off = BLOCK / 2; off > 0; off >>= 1) {
        if ((int)threadIdx.x < off)
            s[threadIdx.x] = Op::combine(s[threadIdx.x], s[threadIdx.x + off]);
        __syncthreads();
    }
    T r = s[0];
    __syncthreads();
    return r;
}

struct SumOp {
    template <typename T> __device__ static T identity() { return T(0); }
    template <typename T> __device__ static T pre(T x) { return x; }
    template <typename T> __device__ static T combine(T a, T b) { return a + b; }
};
struct SumSqOp {
    template <typename T> __device__ static T identity() { return T(0); }
    template <typename T> __device__ static T pre(T x) { return x * x; }
    template <typename T> __device__ static T combine(T a, T b) { return a + b; }
};
struct MaxOp {
    template <typename T> __device__ static T identity() { return T(-1e30); }
    template <typename T> __device__ static T pre(T x) { return x; }
    template <typename T> __device__ static T combine(T a, T b) { return a > b ? a : b; }
};

// ------------------------------------------------------ setup (once)
template <typename T>
__global__ void init_uniform(T *p, size_t n, uint32_t seed, T lo, T hi)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = lo + (hi - lo) * (T)unit_rand((uint32_t)i, seed);
}

__global__ void init_labels(int *labels, int n, int classes, uint32_t seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        labels[i] = (int)(hash32((uint32_t)i ^ seed) % (uint32_t)classes);
}

__global__ void init_particles(float4 *pos, float4 *vel, int n, uint32_t seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t b = (uint32_t)i * 8u;
    pos[i] = make_float4(unit_rand(b, seed), unit_rand(b + 1, seed), unit_rand(b + 2, seed), 1.0f);
    vel[i] = make_float4(0.01f * (unit_rand(b + 3, seed) - 0.5f),
                         0.01f * (unit_rand(b + 4, seed) - 0.5f),
                         0.01f * (unit_rand(b + 5, seed) - 0.5f), 0.0f);
}

// ------------------------------------------------------ elementwise
struct ReluOp {
    template <typename T> __device__ T operator()(T x) const { return x > T(0) ? x : T(0); }
};
struct GeluOp {
    template <typename T> __device__ T operator()(T x) const
    {
        return T(0.5) * x * (T(1) + tanh(T(0.7978845608) * (x + T(0.044715) * x * x * x)));
    }
};
struct TanhOp {
    template <typename T> __device__ T operator()(T x) const { return tanh(x); }
};
struct SigmoidOp {
    template <typename T> __device__ T operator()(T x) const { return T(1) / (T(1) + exp(-x)); }
};
struct SquareOp {
    template <typename T> __device__ T operator()(T x) const { return x * x; }
};
template <typename T> struct ScaleOp {
    T a;
    __device__ T operator()(T x) const { return a * x; }
};
template <typename T> struct ClampOp {
    T lo, hi;
    __device__ T operator()(T x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

struct AddOp {
    template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct SubOp {
    template <typename T> __device__ T operator()(T a, T b) const { return a - b; }
};
struct MulOp {
    template <typename T> __device__ T operator()(T a, T b) const { return a * b; }
};
template <typename T> struct AxpyOp { // alpha * a + b
    T alpha;
    __device__ T operator()(T a, T b) const { return alpha * a + b; }
};
template <typename T> struct DecayOp { // a - lr * b (SGD)
    T lr;
    __device__ T operator()(T a, T b) const { return a - lr * b; }
};

template <typename T, typename Op>
__global__ void map1(const T *x, T *y, size_t n, Op op)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = op(x[i]);
}

template <typename T, typename Op>
__global__ void map2(const T *a, const T *b, T *y, size_t n, Op op)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = op(a[i], b[i]);
}

template <typename T>
__global__ void bias_add(T *x, const T *b, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols)
        x[i] += b[i % cols];
}

template <typename T>
__global__ void dropout(const T *x, T *y, int n, uint32_t seed, float p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = unit_rand((uint32_t)i, seed) < p ? T(0) : x[i] * T(1.0f / (1.0f - p));
}

template <typename T>
__global__ void adam_update(T *w, const T *g, T *m, T *v, int n, T lr, T c1, T c2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T mi = T(0.9) * m[i] + T(0.1) * g[i];
    T vi = T(0.999) * v[i] + T(0.001) * g[i] * g[i];
    m[i] = mi;
    v[i] = vi;
    w[i] -= lr * (mi * c1) / (sqrt(vi * c2) + T(1e-8));
}

// ------------------------------------------------------ dense algebra
// C[M x N] = A[M x K] B[K x N], row-major, TILE x TILE threads, one output
// each, TILE-deep K slices in shared memory.
template <typename T, int TILE>
__global__ void __launch_bounds__(TILE *TILE) gemm_tiled(const T *A, const T *B, T *C, int M, int N, int K)
{
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    T acc = T(0);
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ak < K ? A[(size_t)row * K + ak] : T(0);
        Bs[threadIdx.y][threadIdx.x] = bk < K && col < N ? B[(size_t)bk * N + col] : T(0);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

// out[cols x rows] = in[rows x cols]^T through a padded shared tile.
template <typename T, int TILE>
__global__ void __launch_bounds__(TILE *TILE) transpose(const T *in, T *out, int rows, int cols)
{
    __shared__ T tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols)
        out[(size_t)y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

// y = A x, one block per row.
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) matvec(const T *A, const T *x, T *y, int rows, int cols)
{
    __shared__ T s[BLOCK];
    T acc = T(0);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        acc += A[(size_t)blockIdx.x * cols + c] * x[c];
    acc = block_reduce<T, BLOCK, SumOp>(acc, s);
    if (threadIdx.x == 0 && (int)blockIdx.x < rows)
        y[blockIdx.x] = acc;
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) softmax_rows(const T *x, T *y, int cols)
{
    __shared__ T s[BLOCK];
    const T *xr = x + (size_t)blockIdx.x * cols;
    T *yr = y + (size_t)blockIdx.x * cols;
    T mx = T(-1e30);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        mx = xr[c] > mx ? xr[c] : mx;
    mx = block_reduce<T, BLOCK, MaxOp>(mx, s);
    T sum = T(0);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        sum += exp(xr[c] - mx);
    sum = block_reduce<T, BLOCK, SumOp>(sum, s);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        yr[c] = exp(xr[c] - mx) / sum;
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) layernorm_rows(const T *x, T *y, int cols)
{
    __shared__ T s[BLOCK];
    const T *xr = x + (size_t)blockIdx.x * cols;
    T *yr = y + (size_t)blockIdx.x * cols;
    T sum = T(0);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        sum += xr[c];
    T mean = block_reduce<T, BLOCK, SumOp>(sum, s) / T(cols);
    T sq = T(0);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        sq += (xr[c] - mean) * (xr[c] - mean);
    T inv = T(1) / sqrt(block_reduce<T, BLOCK, SumOp>(sq, s) / T(cols) + T(1e-5));
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        yr[c] = (xr[c] - mean) * inv;
}

// G = P - onehot(label), loss[row] = -log P[row][label].
template <typename T>
__global__ void cross_entropy_grad(const T *P, const int *labels, T *G, T *loss, int rows,
                                   int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols)
        return;
    int r = i / cols, c = i % cols;
    int hit = labels[r] == c;
    G[i] = P[i] - (hit ? T(1) : T(0));
    if (hit)
        loss[r] = -log(P[i] > T(1e-12) ? P[i] : T(1e-12));
}

// Rescale each row to a max-norm of at most 1 (rare: a weight constraint).
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) maxnorm_rows(T *w, int cols)
{
    __shared__ T s[BLOCK];
    T *wr = w + (size_t)blockIdx.x * cols;
    T sq = T(0);
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        sq += wr[c] * wr[c];
    T norm = sqrt(block_reduce<T, BLOCK, SumOp>(sq, s));
    if (norm > T(1))
        for (int c = threadIdx.x; c < cols; c += BLOCK)
            wr[c] /= norm;
}

// ------------------------------------------------------ reductions
template <typename T, typename Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_stage1(const T *x, size_t n, T *partial)
{
    __shared__ T s[BLOCK];
    T acc = Op::template identity<T>();
    for (size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
        acc = Op::combine(acc, Op::pre(x[i]));
    acc = block_reduce<T, BLOCK, Op>(acc, s);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = acc;
}

template <typename T, typename Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_stage2(const T *partial, int n, T *out)
{
    __shared__ T s[BLOCK];
    T acc = Op::template identity<T>();
    for (int i = threadIdx.x; i < n; i += BLOCK)
        acc = Op::combine(acc, partial[i]);
    acc = block_reduce<T, BLOCK, Op>(acc, s);
    if (threadIdx.x == 0)
        *out = acc;
}

// Checksum partials: sum of x[i] * (1 + i % 7) per block, in double.
template <typename T>
__global__ void __launch_bounds__(256) checksum_partial(const T *x, size_t n, double *partial)
{
    __shared__ double s[256];
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)256 + threadIdx.x; i < n; i += (size_t)gridDim.x * 256)
        acc += (double)x[i] * (double)(1 + i % 7);
    acc = block_reduce<double, 256, SumOp>(acc, s);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = acc;
}

// ------------------------------------------------------ scan (inclusive)
// Stage 1: each block scans its BLOCK elements (Hillis-Steele) and writes
// its total; stage 2: one block scans the totals (at most BLOCK of them);
// stage 3: each block adds the totals of the blocks before it.
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) scan_blocks(const T *x, T *y, T *totals, int n)
{
    __shared__ T s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : T(0);
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        T add = (int)threadIdx.x >= off ? s[threadIdx.x - off] : T(0);
        __syncthreads();
        s[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n)
        y[i] = s[threadIdx.x];
    if (threadIdx.x == BLOCK - 1)
        totals[blockIdx.x] = s[BLOCK - 1];
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) scan_totals(T *totals, int n)
{
    __shared__ T s[BLOCK];
    s[threadIdx.x] = (int)threadIdx.x < n ? totals[threadIdx.x] : T(0);
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        T add = (int)threadIdx.x >= off ? s[threadIdx.x - off] : T(0);
        __syncthreads();
        s[threadIdx.x] += add;
        __syncthreads();
    }
    if ((int)threadIdx.x < n)
        totals[threadIdx.x] = s[threadIdx.x];
}

template <typename T, int BLOCK>
__global__ void scan_add(T *y, const T *totals, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        y[i] += totals[blockIdx.x - 1];
}

// ------------------------------------------------------ histograms
template <int NBINS>
__global__ void histogram_keys(const int *keys, int n, unsigned *hist)
{
    __shared__ unsigned h[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[(unsigned)keys[i] % NBINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (h[b])
            atomicAdd(&hist[b], h[b]);
}

template <int NBINS>
__global__ void histogram_values(const float *x, int n, float lo, float hi, unsigned *hist)
{
    __shared__ unsigned h[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = (int)((x[i] - lo) / (hi - lo) * NBINS);
        atomicAdd(&h[b < 0 ? 0 : (b >= NBINS ? NBINS - 1 : b)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (h[b])
            atomicAdd(&hist[b], h[b]);
}

// ------------------------------------------------------ 1-D convolution
// Triangle filter of radius R (weights sum to 1), clamped at the ends.
template <typename T, int R>
__global__ void conv1d(const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T acc = T(0);
#pragma unroll
    for (int k = -R; k <= R; k++) {
        int j = i + k < 0 ? 0 : (i + k >= n ? n - 1 : i + k);
        acc += T(R + 1 - (k < 0 ? -k : k)) * x[j];
    }
    y[i] = acc / T((R + 1) * (R + 1));
}

// ------------------------------------------------------ particles
template <int G>
__global__ void cell_index(const float4 *pos, int *cell, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = pos[i];
    int cx = min((int)(p.x * G), G - 1), cy = min((int)(p.y * G), G - 1),
        cz = min((int)(p.z * G), G - 1);
    cell[i] = (cz * G + cy) * G + cx;
}

// Softened all-pairs gravity, BLOCK bodies per shared-memory tile.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) nbody_forces(const float4 *pos, float4 *acc, int n, float eps2, float g)
{
    __shared__ float4 tile[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float4 pi = i < n ? pos[i] : make_float4(0, 0, 0, 0);
    float ax = 0, ay = 0, az = 0;
    for (int t0 = 0; t0 < n; t0 += BLOCK) {
        int j = t0 + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0); // mass 0 outside
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < BLOCK; k++) {
            float4 q = tile[k];
            float dx = q.x - pi.x, dy = q.y - pi.y, dz = q.z - pi.z;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = rsqrtf(r2);
            float s = q.w * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        __syncthreads();
    }
    if (i < n)
        acc[i] = make_float4(g * ax, g * ay, g * az, 0.0f);
}

__global__ void kick(float4 *vel, const float4 *acc, int n, float dt, float damping, float vmax)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v = vel[i], a = acc[i];
    v.x = fminf(fmaxf(damping * (v.x + dt * a.x), -vmax), vmax);
    v.y = fminf(fmaxf(damping * (v.y + dt * a.y), -vmax), vmax);
    v.z = fminf(fmaxf(damping * (v.z + dt * a.z), -vmax), vmax);
    vel[i] = v;
}

__global__ void drift(float4 *pos, const float4 *vel, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = pos[i], v = vel[i];
    p.x += dt * v.x;
    p.y += dt * v.y;
    p.z += dt * v.z;
    p.x -= floorf(p.x); // periodic box [0, 1)
    p.y -= floorf(p.y);
    p.z -= floorf(p.z);
    pos[i] = p;
}

__global__ void kinetic_energy(const float4 *vel, float *e, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = vel[i];
        e[i] = 0.5f * (v.x * v.x + v.y * v.y + v.z * v.z);
    }
}

__global__ void make_keys(const int *cell, unsigned long long *keys, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        keys[i] = ((unsigned long long)(unsigned)cell[i] << 32) | (unsigned)i;
}

__global__ void gather_particles(const unsigned long long *keys, const float4 *pos,
                                 const float4 *vel, float4 *pos_out, float4 *vel_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned src = (unsigned)(keys[i] & 0xffffffffu);
    pos_out[i] = pos[src];
    vel_out[i] = vel[src];
}

// ------------------------------------------------------ bitonic sort
// Ascending sort of n = 2^k elements (n a multiple of BLOCK): each block
// sorts its chunk in shared memory (directions alternate between chunks,
// as the network needs), then for each larger stage the strides >= BLOCK
// run as global passes and the rest in shared memory.
template <typename T>
__device__ __forceinline__ void cmp_swap(T &a, T &b, bool up)
{
    if ((a > b) == up) {
        T t = a;
        a = b;
        b = t;
    }
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) bitonic_sort_shared(T *a)
{
    __shared__ T s[BLOCK];
    unsigned base = blockIdx.x * BLOCK, t = threadIdx.x;
    s[t] = a[base + t];
    __syncthreads();
    for (unsigned k = 2; k <= BLOCK; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t)
                cmp_swap(s[t], s[p], ((base + t) & k) == 0);
            __syncthreads();
        }
    }
    a[base + t] = s[t];
}

template <typename T>
__global__ void bitonic_global(T *a, unsigned n, unsigned j, unsigned k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, p = i ^ j;
    if (i < n && p > i)
        cmp_swap(a[i], a[p], (i & k) == 0);
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) bitonic_merge_shared(T *a, unsigned k)
{
    __shared__ T s[BLOCK];
    unsigned base = blockIdx.x * BLOCK, t = threadIdx.x;
    s[t] = a[base + t];
    __syncthreads();
    for (unsigned j = BLOCK >> 1; j > 0; j >>= 1) {
        unsigned p = t ^ j;
        if (p > t)
            cmp_swap(s[t], s[p], ((base + t) & k) == 0);
        __syncthreads();
    }
    a[base + t] = s[t];
}

// ================================================================== host
static long g_launches;
static const void *g_kernels[256];
static int g_n_kernels;

// Launches kernel k and counts the launch and the distinct kernels.
template <typename... KArgs, typename... Args>
static void launch(dim3 grid, dim3 block, void (*k)(KArgs...), Args... args)
{
    k<<<grid, block>>>(args...);
    CHECK_CUDA(cudaGetLastError());
    g_launches++;
    for (int i = 0; i < g_n_kernels; i++)
        if (g_kernels[i] == (const void *)k)
            return;
    if (g_n_kernels < 256)
        g_kernels[g_n_kernels++] = (const void *)k;
}

static unsigned blocks_for(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b < 1024 ? b : 1024); // grid-stride kernels cap their grid
}

template <typename T> static T *dalloc(size_t n)
{
    T *p = NULL;
    CHECK_CUDA(cudaMalloc(&p, n * sizeof(T)));
    CHECK_CUDA(cudaMemset(p, 0, n * sizeof(T)));
    return p;
}

// Sizes.
enum {
    B = 256, D = 256, H = 512, C = 64,   // fp32 model: batch, width, hidden, classes
    BD = 64, DD = 64, CD = 32,           // fp64 reference model
    SIG = 1 << 16,                       // signal length
    NP = 8192, GRID = 8,                 // particles, cells per side (512 cells)
    RED_BLOCKS = 64,                     // stage-1 blocks of every reduction
    SORT_BLOCK = 512,
};

struct Model32 {
    float *X, *Xd, *W1, *b1, *H1, *A1, *W2, *H2, *R, *Y, *W3, *L, *P, *G, *loss, *Yt, *dW3;
    float *m3, *v3, *S, *L2, *probe, *Wv, *red, *scalar, *wsq;
    int *labels;
};
struct Model64 {
    double *X, *W1, *b1, *H1, *A1, *Y, *W2, *L, *P, *G, *loss, *Yt, *dW2, *m2, *v2, *gb, *red,
        *scalar, *probe, *pv, *Sig, *Sig2;
    int *labels;
};
struct Signal {
    float *x, *y, *z, *d, *scan, *totals;
    unsigned *hist;
};
struct Particles {
    float4 *pos, *vel, *acc, *pos2, *vel2;
    int *cell, *cell_scan, *cell_totals;
    unsigned *cell_hist, *label_hist, *weight_hist;
    float *energy;
    unsigned long long *keys;
};

static void reduce_sum32(float *x, size_t n, float *partial, float *out)
{
    launch(RED_BLOCKS, 256, reduce_stage1<float, SumOp, 256>, (const float *)x, n, partial);
    launch(1, 256, reduce_stage2<float, SumOp, 256>, (const float *)partial, (int)RED_BLOCKS, out);
}

template <typename T, int BLOCK>
static void bitonic_sort(T *a, unsigned n)
{
    launch(n / BLOCK, BLOCK, bitonic_sort_shared<T, BLOCK>, a);
    for (unsigned k = 2 * BLOCK; k <= n; k <<= 1) {
        for (unsigned j = k >> 1; j >= BLOCK; j >>= 1)
            launch(n / 256, 256, bitonic_global<T>, a, n, j, k);
        launch(n / BLOCK, BLOCK, bitonic_merge_shared<T, BLOCK>, a, k);
    }
}

template <typename T>
static double checksum(const T *x, size_t n, double *partial)
{
    static double host[RED_BLOCKS];
    launch(RED_BLOCKS, 256, checksum_partial<T>, x, n, partial);
    CHECK_CUDA(cudaMemcpy(host, partial, sizeof host, cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (int i = 0; i < RED_BLOCKS; i++)
        s += host[i];
    return s;
}

static void setup(Model32 &m, Model64 &d, Signal &s, Particles &p)
{
    m.X = dalloc<float>(B * D); m.Xd = dalloc<float>(B * D); m.W1 = dalloc<float>(D * H);
    m.b1 = dalloc<float>(H); m.H1 = dalloc<float>(B * H); m.A1 = dalloc<float>(B * H);
    m.W2 = dalloc<float>(H * D); m.H2 = dalloc<float>(B * D); m.R = dalloc<float>(B * D);
    m.Y = dalloc<float>(B * D); m.W3 = dalloc<float>(D * C); m.L = dalloc<float>(B * C);
    m.P = dalloc<float>(B * C); m.G = dalloc<float>(B * C); m.loss = dalloc<float>(B);
    m.Yt = dalloc<float>(D * B); m.dW3 = dalloc<float>(D * C); m.m3 = dalloc<float>(D * C);
    m.v3 = dalloc<float>(D * C); m.S = dalloc<float>(B * C); m.L2 = dalloc<float>(B * C);
    m.probe = dalloc<float>(D); m.Wv = dalloc<float>(H); m.red = dalloc<float>(RED_BLOCKS);
    m.scalar = dalloc<float>(4); m.wsq = dalloc<float>(D * H); m.labels = dalloc<int>(B);

    d.X = dalloc<double>(BD * DD); d.W1 = dalloc<double>(DD * DD); d.b1 = dalloc<double>(DD);
    d.H1 = dalloc<double>(BD * DD); d.A1 = dalloc<double>(BD * DD); d.Y = dalloc<double>(BD * DD);
    d.W2 = dalloc<double>(DD * CD); d.L = dalloc<double>(BD * CD); d.P = dalloc<double>(BD * CD);
    d.G = dalloc<double>(BD * CD); d.loss = dalloc<double>(BD); d.Yt = dalloc<double>(DD * BD);
    d.dW2 = dalloc<double>(DD * CD); d.m2 = dalloc<double>(DD * CD); d.v2 = dalloc<double>(DD * CD);
    d.gb = dalloc<double>(DD); d.red = dalloc<double>(RED_BLOCKS); d.scalar = dalloc<double>(4);
    d.probe = dalloc<double>(DD); d.pv = dalloc<double>(BD); d.Sig = dalloc<double>(SIG);
    d.Sig2 = dalloc<double>(SIG); d.labels = dalloc<int>(BD);

    s.x = dalloc<float>(SIG); s.y = dalloc<float>(SIG); s.z = dalloc<float>(SIG);
    s.d = dalloc<float>(SIG); s.scan = dalloc<float>(SIG); s.totals = dalloc<float>(SIG / 256);
    s.hist = dalloc<unsigned>(64);

    p.pos = dalloc<float4>(NP); p.vel = dalloc<float4>(NP); p.acc = dalloc<float4>(NP);
    p.pos2 = dalloc<float4>(NP); p.vel2 = dalloc<float4>(NP); p.cell = dalloc<int>(NP);
    p.cell_scan = dalloc<int>(GRID * GRID * GRID); p.cell_totals = dalloc<int>(256);
    p.cell_hist = dalloc<unsigned>(GRID * GRID * GRID); p.label_hist = dalloc<unsigned>(64);
    p.weight_hist = dalloc<unsigned>(256); p.energy = dalloc<float>(NP);
    p.keys = dalloc<unsigned long long>(NP);

    const float a1 = 1.0f / sqrtf((float)D), a2 = 1.0f / sqrtf((float)H);
    launch(blocks_for(B * D, 256), 256, init_uniform<float>, m.X, (size_t)B * D, 1u, -1.0f, 1.0f);
    launch(blocks_for(D * H, 256), 256, init_uniform<float>, m.W1, (size_t)D * H, 2u, -a1, a1);
    launch(blocks_for(H, 256), 256, init_uniform<float>, m.b1, (size_t)H, 3u, -0.1f, 0.1f);
    launch(blocks_for(H * D, 256), 256, init_uniform<float>, m.W2, (size_t)H * D, 4u, -a2, a2);
    launch(blocks_for(D * C, 256), 256, init_uniform<float>, m.W3, (size_t)D * C, 5u, -a1, a1);
    launch(blocks_for(H, 256), 256, init_uniform<float>, m.Wv, (size_t)H, 6u, -1.0f, 1.0f);
    launch(blocks_for(SIG, 256), 256, init_uniform<float>, s.x, (size_t)SIG, 7u, -1.0f, 1.0f);
    launch(1, 256, init_labels, m.labels, (int)B, (int)C, 8u);
    const double ad = 1.0 / sqrt((double)DD);
    launch(blocks_for(BD * DD, 256), 256, init_uniform<double>, d.X, (size_t)BD * DD, 11u, -1.0, 1.0);
    launch(blocks_for(DD * DD, 256), 256, init_uniform<double>, d.W1, (size_t)DD * DD, 12u, -ad, ad);
    launch(blocks_for(DD, 256), 256, init_uniform<double>, d.b1, (size_t)DD, 13u, -0.1, 0.1);
    launch(blocks_for(DD * CD, 256), 256, init_uniform<double>, d.W2, (size_t)DD * CD, 14u, -ad, ad);
    launch(blocks_for(DD, 256), 256, init_uniform<double>, d.probe, (size_t)DD, 15u, -1.0, 1.0);
    launch(blocks_for(SIG, 256), 256, init_uniform<double>, d.Sig, (size_t)SIG, 16u, -1.0, 1.0);
    launch(1, 256, init_labels, d.labels, (int)BD, (int)CD, 17u);
    launch(NP / 256, 256, init_particles, p.pos, p.vel, (int)NP, 21u);
}

// One training step of the fp32 model; returns nothing, the loss sum
// stays on the device (m.scalar[0]).
static void step_model32(Model32 &m, int step)
{
    const unsigned ew = 256;
    dim3 t16(16, 16), t32(32, 32);
    launch(blocks_for(B * D, ew), ew, dropout<float>, (const float *)m.X, m.Xd, (int)(B * D),
           (uint32_t)step, 0.1f);
    launch(dim3(H / 32, B / 32), t32, gemm_tiled<float, 32>, (const float *)m.Xd,
           (const float *)m.W1, m.H1, (int)B, (int)H, (int)D);
    launch(blocks_for(B * H, ew), ew, bias_add<float>, m.H1, (const float *)m.b1, (int)B, (int)H);
    launch(blocks_for(B * H, ew), ew, map1<float, GeluOp>, (const float *)m.H1, m.A1,
           (size_t)B * H, GeluOp());
    launch(dim3(D / 16, B / 16), t16, gemm_tiled<float, 16>, (const float *)m.A1,
           (const float *)m.W2, m.H2, (int)B, (int)D, (int)H);
    launch(blocks_for(B * D, ew), ew, map2<float, AddOp>, (const float *)m.H2,
           (const float *)m.X, m.R, (size_t)B * D, AddOp());
    launch(B, 256, layernorm_rows<float, 256>, (const float *)m.R, m.Y, (int)D);
    launch(dim3(C / 16, B / 16), t16, gemm_tiled<float, 16>, (const float *)m.Y,
           (const float *)m.W3, m.L, (int)B, (int)C, (int)D);
    launch(B, 64, softmax_rows<float, 64>, (const float *)m.L, m.P, (int)C);
    launch(blocks_for(B * C, ew), ew, cross_entropy_grad<float>, (const float *)m.P,
           (const int *)m.labels, m.G, m.loss, (int)B, (int)C);
    reduce_sum32(m.loss, B, m.red, m.scalar);
    // Weight gradient of the last layer: dW3 = Y^T G / B, then Adam and a clamp.
    launch(dim3(D / 32, B / 32), t32, transpose<float, 32>, (const float *)m.Y, m.Yt, (int)B,
           (int)D);
    launch(dim3(C / 32, D / 32), t32, gemm_tiled<float, 32>, (const float *)m.Yt,
           (const float *)m.G, m.dW3, (int)D, (int)C, (int)B);
    launch(blocks_for(D * C, ew), ew, map1<float, ScaleOp<float>>, (const float *)m.dW3, m.dW3,
           (size_t)D * C, ScaleOp<float>{1.0f / B});
    float c1 = 1.0f / (1.0f - powf(0.9f, (float)(step + 1)));
    float c2 = 1.0f / (1.0f - powf(0.999f, (float)(step + 1)));
    launch(blocks_for(D * C, ew), ew, adam_update<float>, m.W3, (const float *)m.dW3, m.m3, m.v3,
           (int)(D * C), 1e-3f, c1, c2);
    launch(blocks_for(D * C, ew), ew, map1<float, ClampOp<float>>, (const float *)m.W3, m.W3,
           (size_t)D * C, ClampOp<float>{-1.0f, 1.0f});
    // Gating statistics: max of sigmoid(L) * L.
    launch(blocks_for(B * C, ew), ew, map1<float, SigmoidOp>, (const float *)m.L, m.S,
           (size_t)B * C, SigmoidOp());
    launch(blocks_for(B * C, ew), ew, map2<float, MulOp>, (const float *)m.S,
           (const float *)m.L, m.L2, (size_t)B * C, MulOp());
    launch(RED_BLOCKS, 256, reduce_stage1<float, MaxOp, 256>, (const float *)m.L2,
           (size_t)B * C, m.red);
    launch(1, 256, reduce_stage2<float, MaxOp, 256>, (const float *)m.red, (int)RED_BLOCKS,
           m.scalar + 1);
    // Weight norm of W3.
    launch(RED_BLOCKS, 256, reduce_stage1<float, SumSqOp, 256>, (const float *)m.W3,
           (size_t)D * C, m.red);
    launch(1, 256, reduce_stage2<float, SumSqOp, 256>, (const float *)m.red, (int)RED_BLOCKS,
           m.scalar + 2);
    // A probe through the first layer: probe = relu(W1 Wv).
    launch(D, 128, matvec<float, 128>, (const float *)m.W1, (const float *)m.Wv, m.probe,
           (int)D, (int)H);
    launch(blocks_for(D, ew), ew, map1<float, ReluOp>, (const float *)m.probe, m.probe,
           (size_t)D, ReluOp());
    // The next input: X = tanh(X + 0.1 Y).
    launch(blocks_for(B * D, ew), ew, map2<float, AxpyOp<float>>, (const float *)m.Y,
           (const float *)m.X, m.X, (size_t)B * D, AxpyOp<float>{0.1f});
    launch(blocks_for(B * D, ew), ew, map1<float, TanhOp>, (const float *)m.X, m.X,
           (size_t)B * D, TanhOp());
}

static void step_model64(Model64 &d, int step)
{
    const unsigned ew = 256;
    dim3 t16(16, 16);
    launch(dim3(DD / 16, BD / 16), t16, gemm_tiled<double, 16>, (const double *)d.X,
           (const double *)d.W1, d.H1, (int)BD, (int)DD, (int)DD);
    launch(blocks_for(BD * DD, ew), ew, bias_add<double>, d.H1, (const double *)d.b1, (int)BD,
           (int)DD);
    launch(blocks_for(BD * DD, ew), ew, map1<double, GeluOp>, (const double *)d.H1, d.A1,
           (size_t)BD * DD, GeluOp());
    launch(BD, 64, layernorm_rows<double, 64>, (const double *)d.A1, d.Y, (int)DD);
    launch(dim3(CD / 16, BD / 16), t16, gemm_tiled<double, 16>, (const double *)d.Y,
           (const double *)d.W2, d.L, (int)BD, (int)CD, (int)DD);
    launch(BD, 64, softmax_rows<double, 64>, (const double *)d.L, d.P, (int)CD);
    launch(blocks_for(BD * CD, ew), ew, cross_entropy_grad<double>, (const double *)d.P,
           (const int *)d.labels, d.G, d.loss, (int)BD, (int)CD);
    launch(RED_BLOCKS, 256, reduce_stage1<double, SumOp, 256>, (const double *)d.loss,
           (size_t)BD, d.red);
    launch(1, 256, reduce_stage2<double, SumOp, 256>, (const double *)d.red, (int)RED_BLOCKS,
           d.scalar);
    launch(dim3(DD / 16, BD / 16), t16, transpose<double, 16>, (const double *)d.Y, d.Yt,
           (int)BD, (int)DD);
    launch(dim3(CD / 16, DD / 16), t16, gemm_tiled<double, 16>, (const double *)d.Yt,
           (const double *)d.G, d.dW2, (int)DD, (int)CD, (int)BD);
    launch(blocks_for(DD * CD, ew), ew, map1<double, ScaleOp<double>>, (const double *)d.dW2,
           d.dW2, (size_t)DD * CD, ScaleOp<double>{1.0 / BD});
    double c1 = 1.0 / (1.0 - pow(0.9, step + 1.0)), c2 = 1.0 / (1.0 - pow(0.999, step + 1.0));
    launch(blocks_for(DD * CD, ew), ew, adam_update<double>, d.W2, (const double *)d.dW2, d.m2,
           d.v2, (int)(DD * CD), 1e-3, c1, c2);
    launch(blocks_for(DD * CD, ew), ew, map1<double, ClampOp<double>>, (const double *)d.W2,
           d.W2, (size_t)DD * CD, ClampOp<double>{-1.0, 1.0});
    // Bias of the first layer: SGD on the mean of the activations' squares.
    launch(blocks_for(DD, ew), ew, map1<double, SquareOp>, (const double *)d.b1, d.gb,
           (size_t)DD, SquareOp());
    launch(blocks_for(DD, ew), ew, map2<double, DecayOp<double>>, (const double *)d.b1,
           (const double *)d.gb, d.b1, (size_t)DD, DecayOp<double>{1e-3});
    launch(RED_BLOCKS, 256, reduce_stage1<double, SumSqOp, 256>, (const double *)d.W2,
           (size_t)DD * CD, d.red);
    launch(1, 256, reduce_stage2<double, SumSqOp, 256>, (const double *)d.red, (int)RED_BLOCKS,
           d.scalar + 1);
    launch(BD, 128, matvec<double, 128>, (const double *)d.X, (const double *)d.probe, d.pv,
           (int)BD, (int)DD);
    launch(blocks_for(BD, ew), ew, map1<double, SigmoidOp>, (const double *)d.pv, d.pv,
           (size_t)BD, SigmoidOp());
    launch(blocks_for(BD, ew), ew, map2<double, MulOp>, (const double *)d.pv,
           (const double *)d.pv, d.pv, (size_t)BD, MulOp());
    // The next input: X = tanh(X + 0.1 Y).
    launch(blocks_for(BD * DD, ew), ew, map2<double, AxpyOp<double>>, (const double *)d.Y,
           (const double *)d.X, d.X, (size_t)BD * DD, AxpyOp<double>{0.1});
    launch(blocks_for(BD * DD, ew), ew, map1<double, TanhOp>, (const double *)d.X, d.X,
           (size_t)BD * DD, TanhOp());
    // A smoothed fp64 signal: Sig = 0.5 Sig + 0.5 conv(Sig) (Sig2 = conv - Sig).
    launch(SIG / 256, 256, conv1d<double, 3>, (const double *)d.Sig, d.Sig2, (int)SIG);
    launch(blocks_for(SIG, ew), ew, map2<double, AddOp>, (const double *)d.Sig,
           (const double *)d.Sig2, d.Sig, (size_t)SIG, AddOp());
    launch(blocks_for(SIG, ew), ew, map1<double, ScaleOp<double>>, (const double *)d.Sig, d.Sig,
           (size_t)SIG, ScaleOp<double>{0.5});
    launch(blocks_for(SIG, ew), ew, map1<double, ReluOp>, (const double *)d.Sig, d.Sig2,
           (size_t)SIG, ReluOp());
}

static void step_signal(Signal &s)
{
    launch(SIG / 256, 256, conv1d<float, 2>, (const float *)s.x, s.y, (int)SIG);
    launch(SIG / 256, 256, conv1d<float, 4>, (const float *)s.y, s.z, (int)SIG);
    launch(blocks_for(SIG, 256), 256, map2<float, SubOp>, (const float *)s.x, (const float *)s.z,
           s.d, (size_t)SIG, SubOp());
    launch(SIG / 256, 256, scan_blocks<float, 256>, (const float *)s.d, s.scan, s.totals, (int)SIG);
    launch(1, 256, scan_totals<float, 256>, s.totals, (int)(SIG / 256));
    launch(SIG / 256, 256, scan_add<float, 256>, s.scan, (const float *)s.totals, (int)SIG);
    CHECK_CUDA(cudaMemsetAsync(s.hist, 0, 64 * sizeof(unsigned)));
    launch(64, 256, histogram_values<64>, (const float *)s.scan, (int)SIG, -64.0f, 64.0f, s.hist);
    // x = z + 0.5 (x - z): half a smoothing step.
    launch(blocks_for(SIG, 256), 256, map2<float, AxpyOp<float>>, (const float *)s.d,
           (const float *)s.z, s.x, (size_t)SIG, AxpyOp<float>{0.5f});
}

static void step_particles(Particles &p, Model32 &m)
{
    const int cells = GRID * GRID * GRID;
    launch(NP / 256, 256, cell_index<GRID>, (const float4 *)p.pos, p.cell, (int)NP);
    CHECK_CUDA(cudaMemsetAsync(p.cell_hist, 0, cells * sizeof(unsigned)));
    launch(32, 256, histogram_keys<GRID * GRID * GRID>, (const int *)p.cell, (int)NP, p.cell_hist);
    launch(cells / 256, 256, scan_blocks<int, 256>, (const int *)p.cell_hist, p.cell_scan,
           p.cell_totals, cells);
    launch(1, 256, scan_totals<int, 256>, p.cell_totals, cells / 256);
    launch(cells / 256, 256, scan_add<int, 256>, p.cell_scan, (const int *)p.cell_totals, cells);
    launch(NP / 128, 128, nbody_forces<128>, (const float4 *)p.pos, p.acc, (int)NP, 1e-4f, 1e-6f);
    launch(NP / 256, 256, kick, p.vel, (const float4 *)p.acc, (int)NP, 1e-3f, 0.999f, 1.0f);
    launch(NP / 256, 256, drift, p.pos, (const float4 *)p.vel, (int)NP, 1e-3f);
    launch(NP / 256, 256, kinetic_energy, (const float4 *)p.vel, p.energy, (int)NP);
    reduce_sum32(p.energy, NP, m.red, m.scalar + 3);
    CHECK_CUDA(cudaMemsetAsync(p.label_hist, 0, 64 * sizeof(unsigned)));
    launch(1, 256, histogram_keys<64>, (const int *)m.labels, (int)B, p.label_hist);
}

// Every R steps: reorder particles by cell, weight statistics, a max-norm
// constraint. Returns the median squared weight of W1.
static float rare_pass(Particles &p, Model32 &m, Model64 &d)
{
    launch(NP / 256, 256, make_keys, (const int *)p.cell, p.keys, (int)NP);
    bitonic_sort<unsigned long long, SORT_BLOCK>(p.keys, NP);
    launch(NP / 256, 256, gather_particles, (const unsigned long long *)p.keys,
           (const float4 *)p.pos, (const float4 *)p.vel, p.pos2, p.vel2, (int)NP);
    float4 *t = p.pos;
    p.pos = p.pos2;
    p.pos2 = t;
    t = p.vel;
    p.vel = p.vel2;
    p.vel2 = t;

    launch(blocks_for(D * H, 256), 256, map1<float, SquareOp>, (const float *)m.W1, m.wsq,
           (size_t)D * H, SquareOp());
    CHECK_CUDA(cudaMemsetAsync(p.weight_hist, 0, 256 * sizeof(unsigned)));
    launch(64, 256, histogram_values<256>, (const float *)m.wsq, (int)(D * H), 0.0f, 0.01f,
           p.weight_hist);
    bitonic_sort<float, SORT_BLOCK>(m.wsq, D * H);
    launch(D, 128, maxnorm_rows<float, 128>, m.W1, (int)H);
    launch(DD, 64, maxnorm_rows<double, 64>, d.W1, (int)DD);
    float median = 0.0f;
    CHECK_CUDA(cudaMemcpy(&median, m.wsq + D * H / 2, sizeof median, cudaMemcpyDeviceToHost));
    return median;
}

int main(int argc, char **argv)
{
    long steps = 200, rare = 50;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        long *dst = !strcmp(a, "--steps") ? &steps : (!strcmp(a, "--rare-every") ? &rare : NULL);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("td_manykernels [--steps N (200)] [--rare-every R (50)]\n");
            return 0;
        }
        char *end = NULL;
        long v = dst && next ? strtol(next, &end, 10) : 0;
        if (!dst || !next || *end != '\0' || v < 1 || v > 10000000) {
            fprintf(stderr, "td_manykernels: bad argument '%s'%s%s (usage: td_manykernels "
                            "[--steps N] [--rare-every R], N and R from 1 to 10000000)\n",
                    a, next ? " " : "", next && dst ? next : "");
            return 2;
        }
        *dst = v;
        i++;
    }
    int n_dev = 0;
    cudaError_t rc = cudaGetDeviceCount(&n_dev);
    if (rc != cudaSuccess || n_dev == 0) {
        fprintf(stderr, "td_manykernels: no usable CUDA device (%s)\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
        return 1;
    }

    Model32 m;
    Model64 d;
    Signal s;
    Particles p;
    setup(m, d, s, p);
    double *ck = dalloc<double>(RED_BLOCKS);

    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaEventRecord(start));
    float median = 0.0f;
    for (long step = 0; step < steps; step++) {
        step_model32(m, (int)step);
        step_model64(d, (int)step);
        step_signal(s);
        step_particles(p, m);
        if ((step + 1) % rare == 0)
            median = rare_pass(p, m, d);
    }
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));

    float scal32[4];
    double scal64[2];
    CHECK_CUDA(cudaMemcpy(scal32, m.scalar, sizeof scal32, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(scal64, d.scalar, sizeof scal64, cudaMemcpyDeviceToHost));
    double sum = checksum(m.W3, (size_t)D * C, ck) + checksum(m.X, (size_t)B * D, ck) +
                 checksum(d.W2, (size_t)DD * CD, ck) + checksum(d.Sig, (size_t)SIG, ck) +
                 checksum(s.x, (size_t)SIG, ck) + checksum(p.cell_scan, (size_t)GRID * GRID * GRID, ck) +
                 checksum((const float *)p.pos, (size_t)NP * 4, ck);
    printf("td_manykernels: %ld steps, %ld launches, %d distinct kernels, loss fp32 %.6f fp64 "
           "%.9f, kinetic energy %.6e, median w^2 %.6e, checksum %.10e, %.3f ms\n",
           steps, g_launches, g_n_kernels, scal32[0] / B, scal64[0] / BD, scal32[3], median, sum,
           ms);
    return 0;
}
