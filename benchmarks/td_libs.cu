// td_libs: kernels nobody here wrote (issue 11, item 4). The CUDA toolkit's
// own libraries in several shapes and precisions, for
// benchmarks/lib_agreement.sh, which compares topdown's tree of each kernel
// with the tree rebuilt from ncu's raw counters:
//   cuBLAS   GEMM fp32 (square, tall-skinny, small), fp16 on tensor cores
//            (square, skinny), fp64; GEMV fp32 (N and T) and fp64
//   cuFFT    1D C2C (power of two, batched; 1000 points: not a power of
//            two), 1D R2C, 2D C2C
//   cuSPARSE SpMV on CSR (default algorithm and CSR_ALG2)
//   CUB      radix sort (keys, pairs), inclusive scan, reduce
//   Thrust   sort (float), reduce, inclusive scan
//   cuRAND   XORWOW uniform, Philox normal, Sobol32 uniform
//
//   td_libs [--list] [--only NAME[,NAME...]] [--reps N]
//
// Each workload is set up once (handles, plans, buffers), then run --reps
// times (default 3) and synchronised; one line per workload. Buffers are
// sized so that kernel replay (which saves and restores all device memory
// per pass) stays affordable: about 450 MiB in all.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand.h>
#include <cusparse.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static void fail(const char *what, int code, const char *file, int line)
{
    fprintf(stderr, "td_libs: %s:%d: %s failed (%d)\n", file, line, what, code);
    exit(2);
}

#define CUDA_OK(call)                                                          \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess)                                                 \
            fail(#call, (int)e_, __FILE__, __LINE__);                          \
    } while (0)
#define LIB_OK(call, ok)                                                       \
    do {                                                                       \
        int e_ = (int)(call);                                                  \
        if (e_ != (int)(ok))                                                   \
            fail(#call, e_, __FILE__, __LINE__);                               \
    } while (0)
#define BLAS_OK(call) LIB_OK(call, CUBLAS_STATUS_SUCCESS)
#define FFT_OK(call) LIB_OK(call, CUFFT_SUCCESS)
#define SPARSE_OK(call) LIB_OK(call, CUSPARSE_STATUS_SUCCESS)
#define RAND_OK(call) LIB_OK(call, CURAND_STATUS_SUCCESS)

// Three shared 64 MiB buffers and a scratch area for CUB and cuSPARSE.
static const size_t BUF_BYTES = (size_t)64 << 20;
struct pool {
    void *a, *b, *c;
    void *scratch;
    size_t scratch_bytes;
    cublasHandle_t blas;
    curandGenerator_t fill;
};

static void *need_scratch(pool &p, size_t bytes)
{
    if (bytes > p.scratch_bytes) {
        if (p.scratch)
            CUDA_OK(cudaFree(p.scratch));
        CUDA_OK(cudaMalloc(&p.scratch, bytes));
        p.scratch_bytes = bytes;
    }
    return p.scratch;
}

// ---- cuBLAS ---------------------------------------------------------------

static void sgemm(pool &p, int m, int n, int k, int reps)
{
    const float alpha = 1.0f, beta = 0.0f;
    for (int r = 0; r < reps; r++)
        BLAS_OK(cublasSgemm(p.blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, (float *)p.a, m,
                            (float *)p.b, k, &beta, (float *)p.c, m));
}

static void w_sgemm_square(pool &p, int reps) { sgemm(p, 2048, 2048, 2048, reps); }
static void w_sgemm_tall(pool &p, int reps) { sgemm(p, 8192, 256, 2048, reps); }
static void w_sgemm_small(pool &p, int reps) { sgemm(p, 256, 256, 256, reps); }

// fp16 in and out, fp32 accumulation: tensor-core kernels.
static void hgemm(pool &p, int m, int n, int k, int reps)
{
    const float alpha = 1.0f, beta = 0.0f;
    for (int r = 0; r < reps; r++)
        BLAS_OK(cublasGemmEx(p.blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, p.a, CUDA_R_16F,
                             m, p.b, CUDA_R_16F, k, &beta, p.c, CUDA_R_16F, m,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

static void w_hgemm_tc_square(pool &p, int reps) { hgemm(p, 4096, 4096, 4096, reps); }
static void w_hgemm_tc_skinny(pool &p, int reps) { hgemm(p, 4096, 128, 4096, reps); }

static void w_dgemm(pool &p, int reps)
{
    const double alpha = 1.0, beta = 0.0;
    for (int r = 0; r < reps; r++)
        BLAS_OK(cublasDgemm(p.blas, CUBLAS_OP_N, CUBLAS_OP_N, 1024, 1024, 1024, &alpha,
                            (double *)p.a, 1024, (double *)p.b, 1024, &beta, (double *)p.c,
                            1024));
}

static void sgemv(pool &p, cublasOperation_t op, int reps)
{
    const float alpha = 1.0f, beta = 0.0f;
    for (int r = 0; r < reps; r++)
        BLAS_OK(cublasSgemv(p.blas, op, 4096, 4096, &alpha, (float *)p.a, 4096, (float *)p.b, 1,
                            &beta, (float *)p.c, 1));
}

static void w_sgemv_n(pool &p, int reps) { sgemv(p, CUBLAS_OP_N, reps); }
static void w_sgemv_t(pool &p, int reps) { sgemv(p, CUBLAS_OP_T, reps); }

static void w_dgemv(pool &p, int reps)
{
    const double alpha = 1.0, beta = 0.0;
    for (int r = 0; r < reps; r++)
        BLAS_OK(cublasDgemv(p.blas, CUBLAS_OP_N, 4096, 2048, &alpha, (double *)p.a, 4096,
                            (double *)p.b, 1, &beta, (double *)p.c, 1));
}

// ---- cuFFT ----------------------------------------------------------------

static void fft_c2c(cufftHandle plan, pool &p, int reps)
{
    for (int r = 0; r < reps; r++)
        FFT_OK(cufftExecC2C(plan, (cufftComplex *)p.a, (cufftComplex *)p.b, CUFFT_FORWARD));
    FFT_OK(cufftDestroy(plan));
}

static void w_fft_1d_pow2(pool &p, int reps)
{
    cufftHandle plan;
    FFT_OK(cufftPlan1d(&plan, 1 << 20, CUFFT_C2C, 8)); /* 8 x 8 MiB */
    fft_c2c(plan, p, reps);
}

static void w_fft_1d_1000(pool &p, int reps)
{
    cufftHandle plan;
    FFT_OK(cufftPlan1d(&plan, 1000, CUFFT_C2C, 4096));
    fft_c2c(plan, p, reps);
}

static void w_fft_2d(pool &p, int reps)
{
    cufftHandle plan;
    FFT_OK(cufftPlan2d(&plan, 2048, 2048, CUFFT_C2C)); /* 32 MiB */
    fft_c2c(plan, p, reps);
}

static void w_fft_1d_r2c(pool &p, int reps)
{
    cufftHandle plan;
    FFT_OK(cufftPlan1d(&plan, 1 << 22, CUFFT_R2C, 1)); /* 16 MiB in, 16 MiB out */
    for (int r = 0; r < reps; r++)
        FFT_OK(cufftExecR2C(plan, (cufftReal *)p.a, (cufftComplex *)p.b));
    FFT_OK(cufftDestroy(plan));
}

// ---- cuSPARSE -------------------------------------------------------------

// A CSR matrix of 1M rows, 8 entries a row at pseudo-random columns.
struct csr {
    int rows, nnz;
    int *row_ptr, *col;
    float *val;
};

static csr make_csr(void)
{
    csr m;
    m.rows = 1 << 20;
    const int per_row = 8;
    m.nnz = m.rows * per_row;
    std::vector<int> row_ptr(m.rows + 1), col(m.nnz);
    std::vector<float> val(m.nnz, 1.0f);
    unsigned state = 12345;
    for (int i = 0; i <= m.rows; i++)
        row_ptr[i] = i * per_row;
    for (int i = 0; i < m.rows; i++) {
        for (int j = 0; j < per_row; j++) {
            state = state * 1664525u + 1013904223u;
            col[i * per_row + j] = (int)(state % (unsigned)m.rows);
        }
        std::sort(col.begin() + i * per_row, col.begin() + (i + 1) * per_row);
    }
    CUDA_OK(cudaMalloc(&m.row_ptr, row_ptr.size() * sizeof(int)));
    CUDA_OK(cudaMalloc(&m.col, col.size() * sizeof(int)));
    CUDA_OK(cudaMalloc(&m.val, val.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(m.row_ptr, row_ptr.data(), row_ptr.size() * sizeof(int),
                       cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(m.col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(m.val, val.data(), val.size() * sizeof(float), cudaMemcpyHostToDevice));
    return m;
}

static void spmv(pool &p, cusparseSpMVAlg_t alg, int reps)
{
    csr m = make_csr();
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t x, y;
    SPARSE_OK(cusparseCreate(&h));
    SPARSE_OK(cusparseCreateCsr(&a, m.rows, m.rows, m.nnz, m.row_ptr, m.col, m.val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE_OK(cusparseCreateDnVec(&x, m.rows, p.a, CUDA_R_32F));
    SPARSE_OK(cusparseCreateDnVec(&y, m.rows, p.b, CUDA_R_32F));
    const float alpha = 1.0f, beta = 0.0f;
    size_t bytes = 0;
    SPARSE_OK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta,
                                      y, CUDA_R_32F, alg, &bytes));
    void *buffer = need_scratch(p, bytes ? bytes : 1);
    for (int r = 0; r < reps; r++)
        SPARSE_OK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y,
                               CUDA_R_32F, alg, buffer));
    CUDA_OK(cudaDeviceSynchronize());
    SPARSE_OK(cusparseDestroyDnVec(x));
    SPARSE_OK(cusparseDestroyDnVec(y));
    SPARSE_OK(cusparseDestroySpMat(a));
    SPARSE_OK(cusparseDestroy(h));
    CUDA_OK(cudaFree(m.row_ptr));
    CUDA_OK(cudaFree(m.col));
    CUDA_OK(cudaFree(m.val));
}

static void w_spmv_csr(pool &p, int reps) { spmv(p, CUSPARSE_SPMV_ALG_DEFAULT, reps); }
static void w_spmv_csr_alg2(pool &p, int reps) { spmv(p, CUSPARSE_SPMV_CSR_ALG2, reps); }

// ---- CUB ------------------------------------------------------------------

static const int N_ITEMS = 1 << 24; /* 64 MiB of 4-byte items */

static void w_cub_sort_keys(pool &p, int reps)
{
    size_t bytes = 0;
    unsigned *in = (unsigned *)p.a, *out = (unsigned *)p.b;
    CUDA_OK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, N_ITEMS));
    void *tmp = need_scratch(p, bytes);
    for (int r = 0; r < reps; r++)
        CUDA_OK(cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, N_ITEMS));
}

static void w_cub_sort_pairs(pool &p, int reps)
{
    const int n = N_ITEMS / 2; /* keys and values share the buffers' halves */
    unsigned *keys_in = (unsigned *)p.a, *keys_out = (unsigned *)p.b;
    float *vals_in = (float *)p.a + n, *vals_out = (float *)p.b + n;
    size_t bytes = 0;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in,
                                            vals_out, n));
    void *tmp = need_scratch(p, bytes);
    for (int r = 0; r < reps; r++)
        CUDA_OK(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, vals_in,
                                                vals_out, n));
}

static void w_cub_scan(pool &p, int reps)
{
    size_t bytes = 0;
    float *in = (float *)p.a, *out = (float *)p.b;
    CUDA_OK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, N_ITEMS));
    void *tmp = need_scratch(p, bytes);
    for (int r = 0; r < reps; r++)
        CUDA_OK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, N_ITEMS));
}

static void w_cub_reduce(pool &p, int reps)
{
    size_t bytes = 0;
    float *in = (float *)p.a, *out = (float *)p.c;
    CUDA_OK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, N_ITEMS));
    void *tmp = need_scratch(p, bytes);
    for (int r = 0; r < reps; r++)
        CUDA_OK(cub::DeviceReduce::Sum(tmp, bytes, in, out, N_ITEMS));
}

// ---- Thrust ---------------------------------------------------------------

static void w_thrust_sort(pool &p, int reps)
{
    thrust::device_ptr<float> keys((float *)p.b);
    for (int r = 0; r < reps; r++) {
        CUDA_OK(cudaMemcpy(p.b, p.a, (size_t)(N_ITEMS / 4) * sizeof(float),
                           cudaMemcpyDeviceToDevice)); /* unsorted again */
        thrust::sort(thrust::device, keys, keys + N_ITEMS / 4);
    }
}

static void w_thrust_reduce(pool &p, int reps)
{
    thrust::device_ptr<float> in((float *)p.a);
    float sum = 0;
    for (int r = 0; r < reps; r++)
        sum += thrust::reduce(thrust::device, in, in + N_ITEMS);
    if (sum == 1234.5f)
        printf("td_libs: %g\n", sum);
}

static void w_thrust_scan(pool &p, int reps)
{
    thrust::device_ptr<float> in((float *)p.a), out((float *)p.b);
    for (int r = 0; r < reps; r++)
        thrust::inclusive_scan(thrust::device, in, in + N_ITEMS, out);
}

// ---- cuRAND ---------------------------------------------------------------

static void generate(pool &p, curandRngType_t type, int normal, int reps)
{
    curandGenerator_t gen;
    RAND_OK(curandCreateGenerator(&gen, type));
    if (type != CURAND_RNG_QUASI_SOBOL32)
        RAND_OK(curandSetPseudoRandomGeneratorSeed(gen, 2026));
    for (int r = 0; r < reps; r++) {
        if (normal)
            RAND_OK(curandGenerateNormal(gen, (float *)p.c, N_ITEMS, 0.0f, 1.0f));
        else
            RAND_OK(curandGenerateUniform(gen, (float *)p.c, N_ITEMS));
    }
    RAND_OK(curandDestroyGenerator(gen));
}

static void w_curand_xorwow(pool &p, int reps)
{
    generate(p, CURAND_RNG_PSEUDO_XORWOW, 0, reps);
}
static void w_curand_philox_normal(pool &p, int reps)
{
    generate(p, CURAND_RNG_PSEUDO_PHILOX4_32_10, 1, reps);
}
static void w_curand_sobol(pool &p, int reps)
{
    generate(p, CURAND_RNG_QUASI_SOBOL32, 0, reps);
}

// ---- the list -------------------------------------------------------------

struct workload {
    const char *name, *library, *what;
    void (*run)(pool &, int);
};

static const workload workloads[] = {
    {"sgemm_square", "cuBLAS", "SGEMM 2048x2048x2048", w_sgemm_square},
    {"sgemm_tall", "cuBLAS", "SGEMM 8192x256x2048", w_sgemm_tall},
    {"sgemm_small", "cuBLAS", "SGEMM 256x256x256", w_sgemm_small},
    {"hgemm_tc_square", "cuBLAS", "GemmEx fp16, fp32 accumulate, 4096^3 (tensor cores)", w_hgemm_tc_square},
    {"hgemm_tc_skinny", "cuBLAS", "GemmEx fp16, fp32 accumulate, 4096x128x4096", w_hgemm_tc_skinny},
    {"dgemm", "cuBLAS", "DGEMM 1024^3", w_dgemm},
    {"sgemv_n", "cuBLAS", "SGEMV 4096x4096", w_sgemv_n},
    {"sgemv_t", "cuBLAS", "SGEMV 4096x4096 transposed", w_sgemv_t},
    {"dgemv", "cuBLAS", "DGEMV 4096x2048", w_dgemv},
    {"fft_1d_pow2", "cuFFT", "C2C 2^20 points, batch 8", w_fft_1d_pow2},
    {"fft_1d_1000", "cuFFT", "C2C 1000 points, batch 4096", w_fft_1d_1000},
    {"fft_2d", "cuFFT", "C2C 2048x2048", w_fft_2d},
    {"fft_1d_r2c", "cuFFT", "R2C 2^22 points", w_fft_1d_r2c},
    {"spmv_csr", "cuSPARSE", "SpMV CSR 1M rows, 8M nonzeros, default algorithm", w_spmv_csr},
    {"spmv_csr_alg2", "cuSPARSE", "SpMV CSR, CSR_ALG2", w_spmv_csr_alg2},
    {"cub_sort_keys", "CUB", "radix sort 16M uint32 keys", w_cub_sort_keys},
    {"cub_sort_pairs", "CUB", "radix sort 8M uint32 keys with float values", w_cub_sort_pairs},
    {"cub_scan", "CUB", "inclusive sum of 16M floats", w_cub_scan},
    {"cub_reduce", "CUB", "sum of 16M floats", w_cub_reduce},
    {"thrust_sort", "Thrust", "sort 4M floats", w_thrust_sort},
    {"thrust_reduce", "Thrust", "reduce 16M floats", w_thrust_reduce},
    {"thrust_scan", "Thrust", "inclusive scan of 16M floats", w_thrust_scan},
    {"curand_xorwow", "cuRAND", "XORWOW, 16M uniform floats", w_curand_xorwow},
    {"curand_philox_normal", "cuRAND", "Philox4_32_10, 16M normal floats", w_curand_philox_normal},
    {"curand_sobol", "cuRAND", "Sobol32, 16M uniform floats", w_curand_sobol},
};
static const int N_WORKLOADS = (int)(sizeof workloads / sizeof *workloads);

static int selected(const char *only, const char *name)
{
    if (!only)
        return 1;
    size_t len = strlen(name);
    for (const char *p = only; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    int reps = 3;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) {
            for (int w = 0; w < N_WORKLOADS; w++)
                printf("%s\t%s\t%s\n", workloads[w].name, workloads[w].library,
                       workloads[w].what);
            return 0;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: td_libs [--list] [--only NAME[,NAME...]] [--reps N]\n");
            return 2;
        }
    }
    if (reps < 1) {
        fprintf(stderr, "td_libs: --reps needs a positive number\n");
        return 2;
    }
    pool p = {};
    CUDA_OK(cudaMalloc(&p.a, BUF_BYTES));
    CUDA_OK(cudaMalloc(&p.b, BUF_BYTES));
    CUDA_OK(cudaMalloc(&p.c, BUF_BYTES));
    BLAS_OK(cublasCreate(&p.blas));
    // Inputs: uniform floats in [0, 1) (as fp16 or fp64 bits they are still
    // finite numbers, which is all the kernels' speed depends on).
    RAND_OK(curandCreateGenerator(&p.fill, CURAND_RNG_PSEUDO_DEFAULT));
    RAND_OK(curandGenerateUniform(p.fill, (float *)p.a, BUF_BYTES / sizeof(float)));
    RAND_OK(curandGenerateUniform(p.fill, (float *)p.b, BUF_BYTES / sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
    int ran = 0;
    for (int w = 0; w < N_WORKLOADS; w++) {
        if (!selected(only, workloads[w].name))
            continue;
        workloads[w].run(p, reps);
        CUDA_OK(cudaDeviceSynchronize());
        printf("td_libs: %-22s %-8s %s, %d reps\n", workloads[w].name, workloads[w].library,
               workloads[w].what, reps);
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "td_libs: --only '%s' names no workload (td_libs --list)\n", only);
        return 2;
    }
    RAND_OK(curandDestroyGenerator(p.fill));
    BLAS_OK(cublasDestroy(p.blas));
    if (p.scratch)
        CUDA_OK(cudaFree(p.scratch));
    CUDA_OK(cudaFree(p.a));
    CUDA_OK(cudaFree(p.b));
    CUDA_OK(cudaFree(p.c));
    return 0;
}
