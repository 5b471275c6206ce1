// td_peer: one process driving two GPUs, for topdown's multi-GPU test
// (tests/gpu/test_multigpu.c), its one-GPU copies test
// (tests/gpu/test_gpu_copies.c) and benchmarks/multigpu.sh. On each device
// d (a primary context each):
//   1 HtoD copy of BYTES from pinned memory into a[d]
//   1 memset of BYTES on b[d]
//   REPS x (axpy<<<>>> on a[d], then row_sum<<<>>> into b[d]): 2*REPS kernels
// then, with two devices, peer access enabled where possible:
//   cudaMemcpyPeer a[0] -> b[1] and a[1] -> b[0] (BYTES each)
// or, with one device, a DtoD copy a[0] -> b[0]; and finally
//   1 DtoH copy of BYTES from b[0], whose values are checked.
// Prints "td_peer: D devices, K kernel launches, C copies, check ok".
// Options: --devices 1|2 (default: 2 when present), --bytes N (default
// 8 MiB, a multiple of 4), --reps N (default 3), --exit CODE.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "td_peer: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

__global__ void axpy(float *x, float a, float b, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = a * x[i] + b;
}

// Writes x into y, element by element, through a strided loop that also
// sums (the sum is discarded; it keeps the loads busy).
__global__ void row_sum(const float *x, float *y, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        acc += x[i];
        y[i] = x[i];
    }
    if (acc == -1.0f)
        y[0] = acc;
}

struct options {
    int devices, reps, exit_code;
    size_t bytes;
};

static options parse(int argc, char **argv)
{
    options o = {0, 3, 0, (size_t)8 << 20};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--devices") && i + 1 < argc)
            o.devices = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            o.bytes = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            o.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--exit") && i + 1 < argc)
            o.exit_code = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: td_peer [--devices 1|2] [--bytes N] [--reps N] [--exit CODE]\n");
            exit(2);
        }
    }
    if (o.bytes < 4 || o.bytes % 4 || o.reps < 1 || o.devices < 0 || o.devices > 2) {
        fprintf(stderr, "td_peer: --bytes must be a positive multiple of 4, --reps >= 1, "
                        "--devices 1 or 2\n");
        exit(2);
    }
    return o;
}

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    int present = 0;
    CHECK(cudaGetDeviceCount(&present));
    int devices = o.devices ? o.devices : (present >= 2 ? 2 : 1);
    if (present < devices) {
        fprintf(stderr, "td_peer: %d device%s asked for, %d present\n", devices,
                devices == 1 ? "" : "s", present);
        return 2;
    }
    size_t n = o.bytes / sizeof(float);
    float *host = NULL, *a[2] = {NULL, NULL}, *b[2] = {NULL, NULL};
    CHECK(cudaMallocHost(&host, o.bytes));
    for (size_t i = 0; i < n; i++)
        host[i] = 1.0f;
    int kernels = 0, copies = 0;
    for (int d = 0; d < devices; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&a[d], o.bytes));
        CHECK(cudaMalloc(&b[d], o.bytes));
        CHECK(cudaMemcpy(a[d], host, o.bytes, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(b[d], 0, o.bytes));
        copies += 2;
        for (int r = 0; r < o.reps; r++) {
            axpy<<<264, 256>>>(a[d], 1.0f, 1.0f, n); // x = x + 1
            row_sum<<<264, 256>>>(a[d], b[d], n);
            kernels += 2;
        }
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
    }
    // a[d] and b[d] now hold 1 + reps everywhere.
    if (devices == 2) {
        for (int d = 0; d < 2; d++) {
            int can = 0;
            CHECK(cudaDeviceCanAccessPeer(&can, d, 1 - d));
            CHECK(cudaSetDevice(d));
            if (can && cudaDeviceEnablePeerAccess(1 - d, 0) != cudaSuccess)
                cudaGetLastError(); // already enabled: fine
        }
        CHECK(cudaMemcpyPeer(b[1], 1, a[0], 0, o.bytes));
        CHECK(cudaMemcpyPeer(b[0], 0, a[1], 1, o.bytes));
        copies += 2;
    } else {
        CHECK(cudaSetDevice(0));
        CHECK(cudaMemcpy(b[0], a[0], o.bytes, cudaMemcpyDeviceToDevice));
        copies++;
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(host, b[0], o.bytes, cudaMemcpyDeviceToHost));
    copies++;
    float want = 1.0f + (float)o.reps;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += host[i] != want;
    for (int d = 0; d < devices; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(a[d]));
        CHECK(cudaFree(b[d]));
    }
    CHECK(cudaFreeHost(host));
    printf("td_peer: %d device%s, %d kernel launches, %d copies, check %s\n", devices,
           devices == 1 ? "" : "s", kernels, copies, bad ? "FAILED" : "ok");
    if (bad)
        return 1;
    return o.exit_code;
}
