// td_devheap: kernels that allocate and free device-heap memory per thread
// (device-side malloc/free and new[]/delete[]), launched a few hundred
// times, next to a kernel that does the same work without the heap (issue
// 22). Kernel replay cannot repeat a heap kernel faithfully (the heap is not
// restored between passes), so a collector must measure them otherwise.
//
//   td_devheap [--launches L (200)] [--floats K (32)] [--heap-mb M (256)]
//
// The heap is sized first (cudaDeviceSetLimit(cudaLimitMallocHeapSize, M
// MiB)). Then L heap launches, alternately
//   heap_malloc  each thread mallocs K floats, fills them from the input,
//                sums them in four passes, stores the sum and frees them
//   heap_new     the same with new float[K] and delete[]
// each followed by one launch of
//   plain_sum    the same sums without the heap (the input read directly)
// all with 4 blocks of 128 threads per SM; a setup kernel (heap_init) fills
// the input once. Launches with the defaults: 1 + 200 + 200 = 401. A thread
// whose allocation fails counts itself: the run then exits 1 ("device heap
// exhausted"), as it does on any CUDA error; 2 on a bad argument. Prints the
// in-loop time (td_app.h) and a checksum (the sums of both outputs, which
// must agree).
#define TD_APP_NAME "td_devheap"
#include "td_app.h"

#include <vector>

static const char *USAGE = "td_devheap [--launches L (200)] [--floats K (32)] [--heap-mb M (256)]";

#define BLOCK 128

__device__ __forceinline__ float sum_passes(const float *p, int k)
{
    float acc = 0.0f;
    for (int pass = 0; pass < 4; pass++)
        for (int j = 0; j < k; j++)
            acc += p[(j + pass) % k] * (1.0f + 0.25f * pass);
    return acc;
}

__device__ __forceinline__ void fill(float *p, const float *in, size_t n, size_t tid, int k)
{
    for (int j = 0; j < k; j++)
        p[j] = in[(tid * k + j) % n];
}

__global__ void __launch_bounds__(BLOCK) heap_malloc(const float *in, size_t n, float *out, int k,
                                                     unsigned *failures)
{
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float *p = (float *)malloc((size_t)k * sizeof(float));
    if (!p) {
        atomicAdd(failures, 1u);
        out[tid] = 0.0f;
        return;
    }
    fill(p, in, n, tid, k);
    out[tid] = sum_passes(p, k);
    free(p);
}

__global__ void __launch_bounds__(BLOCK) heap_new(const float *in, size_t n, float *out, int k,
                                                  unsigned *failures)
{
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float *p = new float[k];
    if (!p) {
        atomicAdd(failures, 1u);
        out[tid] = 0.0f;
        return;
    }
    fill(p, in, n, tid, k);
    out[tid] = sum_passes(p, k);
    delete[] p;
}

// The same sums, the input read in place.
__global__ void __launch_bounds__(BLOCK) plain_sum(const float *in, size_t n, float *out, int k)
{
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int pass = 0; pass < 4; pass++)
        for (int j = 0; j < k; j++)
            acc += in[(tid * k + (size_t)((j + pass) % k)) % n] * (1.0f + 0.25f * pass);
    out[tid] = acc;
}

__global__ void __launch_bounds__(BLOCK) heap_init(float *in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        in[i] = (float)(i % 13) * 0.5f;
}

int main(int argc, char **argv)
{
    long long launches = 200, heap_mb = 256;
    int k = 32;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--launches"))
            launches = td_parse_int(argc, argv, &i, 1, 100000000LL, USAGE);
        else if (!strcmp(a, "--floats"))
            k = (int)td_parse_int(argc, argv, &i, 1, 4096, USAGE);
        else if (!strcmp(a, "--heap-mb"))
            heap_mb = td_parse_int(argc, argv, &i, 1, 65536, USAGE);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\n"
                   "L launches of per-thread device-heap kernels (heap_malloc: malloc/free,\n"
                   "heap_new: new[]/delete[], alternately), each followed by plain_sum, the\n"
                   "same work without the heap; the heap is M MiB. Prints loop_s=<s>\n"
                   "launches=<2L> us_per_launch=<x> (host clock, final sync included), then\n"
                   "a checksum.\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    int sms = td_require_device();
    // The heap's size must be set before any kernel that uses it runs.
    CHECK_CUDA(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)heap_mb << 20));
    const unsigned blocks = (unsigned)sms * 4;
    const size_t threads = (size_t)blocks * BLOCK;
    const size_t n = (size_t)1 << 22; // 16 MiB of input
    float *in, *out_heap, *out_plain;
    unsigned *d_fail;
    CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out_heap, threads * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out_plain, threads * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_fail, sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(d_fail, 0, sizeof(unsigned)));
    heap_init<<<blocks, BLOCK>>>(in, n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaDeviceSynchronize());

    long long total = 0;
    double t0 = td_now_s();
    for (long long i = 0; i < launches; i++) {
        if (i % 2 == 0)
            heap_malloc<<<blocks, BLOCK>>>(in, n, out_heap, k, d_fail);
        else
            heap_new<<<blocks, BLOCK>>>(in, n, out_heap, k, d_fail);
        CHECK_LAUNCH();
        plain_sum<<<blocks, BLOCK>>>(in, n, out_plain, k);
        CHECK_LAUNCH();
        total += 2;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    double t1 = td_now_s();
    td_print_loop(t1 - t0, total);

    unsigned failures = 0;
    CHECK_CUDA(cudaMemcpy(&failures, d_fail, sizeof failures, cudaMemcpyDeviceToHost));
    double s_heap = td_device_sum(out_heap, threads), s_plain = td_device_sum(out_plain, threads);
    printf("td_devheap: %lld heap launches (%lld heap_malloc, %lld heap_new) + %lld plain_sum, "
           "%zu threads x %d floats, heap %lld MiB, allocation failures %u, checksum %.6e %.6e\n",
           launches, (launches + 1) / 2, launches / 2, launches, threads, k, heap_mb, failures,
           s_heap, s_plain);
    CHECK_CUDA(cudaFree(in));
    CHECK_CUDA(cudaFree(out_heap));
    CHECK_CUDA(cudaFree(out_plain));
    CHECK_CUDA(cudaFree(d_fail));
    if (failures) {
        fprintf(stderr, "td_devheap: device heap exhausted: %u allocations failed (raise "
                        "--heap-mb)\n", failures);
        return 1;
    }
    return 0;
}
