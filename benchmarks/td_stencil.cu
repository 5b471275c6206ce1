// td_stencil: an iterative 2-D heat solver, a many-launch workload for
// measuring topdown on a real-looking application (benchmarks/README.md).
//
//   td_stencil [--n SIZE] [--iters N] [--check-every K] [--tol T]
//
// Explicit time stepping of  du/dt = div(kappa grad u) + f  on an n x n grid
// (fp64, grid spacing 1) towards its steady state, Jacobi style: every
// iteration reads buffer u and writes buffer v, then they swap. Per
// iteration two launches:
//   heat_stencil   interior cells, u and kappa tiled in shared memory with a
//                  one-cell halo; face conductivities are harmonic means
//   heat_boundary  Dirichlet top (a hot sine profile) and bottom (0),
//                  zero-flux left and right edges
// and every K iterations (--check-every, default 100) the residual, the RMS
// of the update v - u over the interior, by a two-stage reduction
// (residual_partial: one partial sum per block; residual_final: one block
// sums the partials) whose value is copied to the host: the run stops when
// it falls below --tol (default 1e-10; a 2048 grid does not get there in
// 5000 iterations, so the default run does all of them). Setup launches
// init_fields once and heat_boundary once more per buffer.
//
// Prints the iterations run, the final residual and a checksum (mean
// temperature); exit code 0. Cost per iteration with the defaults: the
// stencil streams u, kappa, f in and v out, 4 x 32 MiB of fp64, about
// 45 us at the ~3 TB/s an H100 sustains, ~30 us on an H200 (the boundary
// kernel touches ~8 K cells): 5000 iterations are 0.15-0.25 s of GPU time
// (an estimate, not measured; --n 4096 for 4x); 10,104 launches in all
// (3 at setup, 10,000 in the loop, 100 for 50 residual checks, 1 checksum).
// Also prints the loop's host-clock time for benchmarks/cost.sh:
//   loop_s=<s> launches=<in-loop launches> us_per_launch=<x>

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_CUDA(call) check_cuda((call), #call, __FILE__, __LINE__)

static void check_cuda(cudaError_t rc, const char *what, const char *file, int line)
{
    if (rc == cudaSuccess)
        return;
    fprintf(stderr, "td_stencil: %s failed at %s:%d: %s (%s)\n", what, file, line,
            cudaGetErrorString(rc), cudaGetErrorName(rc));
    exit(1);
}

#define TILE_X 32
#define TILE_Y 8
#define RED_BLOCK 256
#define RED_MAX_BLOCKS 1024

static const double PI = 3.14159265358979323846;

// Setup, once: conductivity between 0.5 and 1.5 in smooth bands, a heat
// source in a Gaussian spot, temperature 0.
__global__ void __launch_bounds__(256) init_fields(double *u, double *v, double *kappa,
                                                  double *f, int n)
{
    size_t cells = (size_t)n * n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells;
         i += (size_t)gridDim.x * blockDim.x) {
        int y = (int)(i / n), x = (int)(i % n);
        double sx = (double)x / (n - 1), sy = (double)y / (n - 1);
        kappa[i] = 1.0 + 0.5 * sin(6.0 * PI * sx) * cos(4.0 * PI * sy);
        double dx = sx - 0.35, dy = sy - 0.6;
        f[i] = 1e-4 * exp(-(dx * dx + dy * dy) / 0.005);
        u[i] = 0.0;
        v[i] = 0.0;
    }
}

__device__ __forceinline__ double harmonic(double a, double b) { return 2.0 * a * b / (a + b); }

// One explicit step on the interior (1..n-2 in x and y). A block owns a
// TILE_Y x TILE_X patch; it loads the patch and a one-cell halo of u and
// kappa into shared memory, all threads cooperating, then each thread
// updates its cell from the tiles.
__global__ void __launch_bounds__(TILE_X *TILE_Y)
    heat_stencil(const double *__restrict__ u, const double *__restrict__ kappa,
                 const double *__restrict__ f, double *__restrict__ v, int n, double dt)
{
    __shared__ double su[TILE_Y + 2][TILE_X + 2];
    __shared__ double sk[TILE_Y + 2][TILE_X + 2];
    int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y; // patch origin (cell coords)
    int tid = threadIdx.y * TILE_X + threadIdx.x;
    for (int i = tid; i < (TILE_Y + 2) * (TILE_X + 2); i += TILE_X * TILE_Y) {
        int r = i / (TILE_X + 2), c = i % (TILE_X + 2);
        int gx = x0 + c - 1, gy = y0 + r - 1;
        double uu = 0.0, kk = 1.0;
        if (gx >= 0 && gx < n && gy >= 0 && gy < n) {
            size_t g = (size_t)gy * n + gx;
            uu = u[g];
            kk = kappa[g];
        }
        su[r][c] = uu;
        sk[r][c] = kk;
    }
    __syncthreads();
    int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x < 1 || y < 1 || x > n - 2 || y > n - 2)
        return;
    int r = threadIdx.y + 1, c = threadIdx.x + 1;
    double uc = su[r][c], kc = sk[r][c];
    double flux = harmonic(kc, sk[r][c - 1]) * (su[r][c - 1] - uc) +
                  harmonic(kc, sk[r][c + 1]) * (su[r][c + 1] - uc) +
                  harmonic(kc, sk[r - 1][c]) * (su[r - 1][c] - uc) +
                  harmonic(kc, sk[r + 1][c]) * (su[r + 1][c] - uc);
    size_t g = (size_t)y * n + x;
    v[g] = uc + dt * (flux + f[g]);
}

// Boundary conditions on the freshly written buffer: thread i handles
// column i of the top and bottom rows and row i of the left and right
// edges. Runs after heat_stencil in the stream, so the zero-flux edges copy
// this iteration's interior values.
__global__ void __launch_bounds__(256) heat_boundary(double *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    v[i] = sin(PI * i / (n - 1));  // top row: hot profile, 0 at the corners
    v[(size_t)(n - 1) * n + i] = 0.0; // bottom row
    if (i >= 1 && i <= n - 2) {
        size_t row = (size_t)i * n;
        v[row] = v[row + 1];
        v[row + n - 1] = v[row + n - 2];
    }
}

// Sum of a block's values, all threads get it (RED_BLOCK threads).
__device__ double block_sum(double x)
{
    __shared__ double warp_sums[RED_BLOCK / 32];
    for (int off = 16; off > 0; off >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_sums[warp] = x;
    __syncthreads();
    double total = 0.0;
    if (warp == 0) {
        total = lane < RED_BLOCK / 32 ? warp_sums[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1)
            total += __shfl_down_sync(0xffffffffu, total, off);
    }
    return total; // valid in thread 0
}

// Stage 1: each block sums (v - u)^2 over a grid-stride share of the
// interior rows and writes one partial. Fixed grid and fixed order: the
// result is deterministic.
__global__ void __launch_bounds__(RED_BLOCK)
    residual_partial(const double *__restrict__ u, const double *__restrict__ v, int n,
                     double *__restrict__ partial)
{
    size_t inner = (size_t)(n - 2) * (n - 2);
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)RED_BLOCK + threadIdx.x; i < inner;
         i += (size_t)gridDim.x * RED_BLOCK) {
        size_t y = i / (n - 2) + 1, x = i % (n - 2) + 1;
        double d = v[y * n + x] - u[y * n + x];
        acc += d * d;
    }
    double s = block_sum(acc);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s;
}

// Stage 2: one block sums the partials; out = RMS of the update.
__global__ void __launch_bounds__(RED_BLOCK)
    residual_final(const double *__restrict__ partial, int n_partial, int n, double *out)
{
    double acc = 0.0;
    for (int i = threadIdx.x; i < n_partial; i += RED_BLOCK)
        acc += partial[i];
    double s = block_sum(acc);
    if (threadIdx.x == 0)
        *out = sqrt(s / ((double)(n - 2) * (n - 2)));
}

// Checksum at the end: the mean temperature, by the same two stages.
__global__ void __launch_bounds__(RED_BLOCK)
    mean_partial(const double *__restrict__ u, size_t cells, double *__restrict__ partial)
{
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)RED_BLOCK + threadIdx.x; i < cells;
         i += (size_t)gridDim.x * RED_BLOCK)
        acc += u[i];
    double s = block_sum(acc);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s;
}

static void usage(const char *msg, const char *arg)
{
    fprintf(stderr, "td_stencil: %s '%s' (usage: td_stencil [--n SIZE] [--iters N] "
                    "[--check-every K] [--tol T])\n", msg, arg);
    exit(2);
}

static long parse_long(const char *opt, const char *val, long lo, long hi)
{
    char *end = NULL;
    long v = val ? strtol(val, &end, 10) : 0;
    if (!val || *end != '\0' || v < lo || v > hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s needs an integer from %ld to %ld, got", opt, lo, hi);
        usage(msg, val ? val : "");
    }
    return v;
}

int main(int argc, char **argv)
{
    long n = 2048, iters = 5000, check_every = 100;
    double tol = 1e-10;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--n")) {
            n = parse_long(a, next, 16, 32768);
            i++;
        } else if (!strcmp(a, "--iters")) {
            iters = parse_long(a, next, 1, 100000000);
            i++;
        } else if (!strcmp(a, "--check-every")) {
            check_every = parse_long(a, next, 1, 100000000);
            i++;
        } else if (!strcmp(a, "--tol")) {
            char *end = NULL;
            tol = next ? strtod(next, &end) : -1.0;
            if (!next || *end != '\0' || !(tol >= 0.0))
                usage("--tol needs a number >= 0, got", next ? next : "");
            i++;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("td_stencil [--n SIZE (2048)] [--iters N (5000)] [--check-every K (100)] "
                   "[--tol T (1e-10)]\n");
            return 0;
        } else {
            usage("unknown argument", a);
        }
    }
    int n_dev = 0;
    cudaError_t rc = cudaGetDeviceCount(&n_dev);
    if (rc != cudaSuccess || n_dev == 0) {
        fprintf(stderr, "td_stencil: no usable CUDA device (%s)\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
        return 1;
    }
    int dev = 0, sms = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

    size_t cells = (size_t)n * n, bytes = cells * sizeof(double);
    double *u, *v, *kappa, *f, *partial, *d_res;
    CHECK_CUDA(cudaMalloc(&u, bytes));
    CHECK_CUDA(cudaMalloc(&v, bytes));
    CHECK_CUDA(cudaMalloc(&kappa, bytes));
    CHECK_CUDA(cudaMalloc(&f, bytes));
    CHECK_CUDA(cudaMalloc(&partial, RED_MAX_BLOCKS * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&d_res, sizeof(double)));

    int red_blocks = sms * 4 < RED_MAX_BLOCKS ? sms * 4 : RED_MAX_BLOCKS;
    int bnd_blocks = (int)((n + 255) / 256);
    dim3 block(TILE_X, TILE_Y);
    dim3 grid((unsigned)((n + TILE_X - 1) / TILE_X), (unsigned)((n + TILE_Y - 1) / TILE_Y));
    // Stable for dt * 4 * max(kappa) < 1; kappa <= 1.5.
    double dt = 0.9 / (4.0 * 1.5);

    init_fields<<<sms * 8, 256>>>(u, v, kappa, f, (int)n);
    heat_boundary<<<bnd_blocks, 256>>>(u, (int)n);
    heat_boundary<<<bnd_blocks, 256>>>(v, (int)n);
    CHECK_CUDA(cudaGetLastError());

    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    // The in-loop time for benchmarks/cost.sh: host clock from here to the
    // end of the loop's final synchronisation, setup excluded.
    CHECK_CUDA(cudaDeviceSynchronize());
    struct timespec host_t0, host_t1;
    clock_gettime(CLOCK_MONOTONIC, &host_t0);
    long loop_launches = 0;
    CHECK_CUDA(cudaEventRecord(start));
    double res = -1.0;
    long it = 0;
    int converged = 0;
    while (it < iters) {
        heat_stencil<<<grid, block>>>(u, kappa, f, v, (int)n, dt);
        heat_boundary<<<bnd_blocks, 256>>>(v, (int)n);
        loop_launches += 2;
        it++;
        if (it % check_every == 0 || it == iters) {
            residual_partial<<<red_blocks, RED_BLOCK>>>(u, v, (int)n, partial);
            residual_final<<<1, RED_BLOCK>>>(partial, red_blocks, (int)n, d_res);
            loop_launches += 2;
            CHECK_CUDA(cudaGetLastError());
            CHECK_CUDA(cudaMemcpy(&res, d_res, sizeof res, cudaMemcpyDeviceToHost));
            if (res < tol)
                converged = 1;
        }
        double *t = u; // v is the newest state: it becomes u
        u = v;
        v = t;
        if (converged)
            break;
    }
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaDeviceSynchronize());
    clock_gettime(CLOCK_MONOTONIC, &host_t1);
    double loop_s = (double)(host_t1.tv_sec - host_t0.tv_sec) +
                    1e-9 * (double)(host_t1.tv_nsec - host_t0.tv_nsec);
    printf("loop_s=%.6f launches=%ld us_per_launch=%.3f\n", loop_s, loop_launches,
           loop_launches > 0 ? 1e6 * loop_s / (double)loop_launches : 0.0);
    float ms = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));

    mean_partial<<<red_blocks, RED_BLOCK>>>(u, cells, partial);
    CHECK_CUDA(cudaGetLastError());
    static double host_partial[RED_MAX_BLOCKS];
    CHECK_CUDA(cudaMemcpy(host_partial, partial, red_blocks * sizeof(double),
                          cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int i = 0; i < red_blocks; i++)
        sum += host_partial[i];

    printf("td_stencil: n %ld, %ld iterations run (%s), residual %.6e, mean temperature "
           "%.12f, %.3f ms\n", n, it, converged ? "converged" : "not converged", res,
           sum / (double)cells, ms);
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    CHECK_CUDA(cudaFree(u));
    CHECK_CUDA(cudaFree(v));
    CHECK_CUDA(cudaFree(kappa));
    CHECK_CUDA(cudaFree(f));
    CHECK_CUDA(cudaFree(partial));
    CHECK_CUDA(cudaFree(d_res));
    return 0;
}
