// td_nvtx: a CUDA program whose kernels run inside NVTX ranges of every
// kind topdown follows (tests/gpu/test_nvtx.c), with the toolkit's NVTX3
// headers (header-only). Per step, launched in this order:
//   [start/end "epoch E" (process-wide) around the whole step]
//   push "step" / push "forward"   : fwd_kernel x2
//                 pop, push "backward"  (nvtxRangePushEx, a registered-free
//                 ASCII attribute)  : bwd_kernel x2
//                 pop
//   pop
//   domain "Solver": push "iterate" (nvtxDomainRangePushEx with a
//                 registered string) : solver_kernel x1
//                 pop
//   outside any range               : tail_kernel x1
// and from a second thread, inside push "worker": worker_kernel x1 (its
// stack is its own; the main thread's ranges do not reach it).
//
// Options: --steps N (default 3). CUDA is initialised before the first
// NVTX call, so that CUPTI is attached when the ranges open.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "td_nvtx: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

__global__ void fwd_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * 1.0001f + 1.0f;
}

__global__ void bwd_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * 0.9999f - 0.5f;
}

__global__ void solver_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0;
    for (int k = 0; k < 64 && i < n; k++)
        acc = fmaf(acc, 1.0001f, x[(i + k) % n]);
    if (i < n)
        x[i] = acc * 1e-3f;
}

__global__ void tail_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

__global__ void worker_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] -= 1.0f;
}

enum { N = 1 << 20, THREADS = 256 };

static void launch(void (*k)(float *, int), float *x, cudaStream_t s)
{
    k<<<(N + THREADS - 1) / THREADS, THREADS, 0, s>>>(x, N);
    CHECK(cudaGetLastError());
}

static nvtxEventAttributes_t ascii_attributes(const char *message)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

static void *worker(void *arg)
{
    float *x = (float *)arg;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    nvtxRangePushA("worker");
    launch(worker_kernel, x, s);
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(int argc, char **argv)
{
    int steps = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: td_nvtx [--steps N]\n");
            return 2;
        }
    }
    CHECK(cudaFree(0)); /* CUDA (and topdown's CUPTI) first, then NVTX */
    float *x = NULL, *y = NULL;
    CHECK(cudaMalloc(&x, N * sizeof *x));
    CHECK(cudaMalloc(&y, N * sizeof *y));
    CHECK(cudaMemset(x, 0, N * sizeof *x));
    CHECK(cudaMemset(y, 0, N * sizeof *y));

    nvtxDomainHandle_t solver = nvtxDomainCreateA("Solver");
    nvtxStringHandle_t iterate = nvtxDomainRegisterStringA(solver, "iterate");
    for (int step = 0; step < steps; step++) {
        char epoch[32];
        snprintf(epoch, sizeof epoch, "epoch %d", step);
        nvtxRangeId_t epoch_range = nvtxRangeStartA(epoch);

        nvtxRangePushA("step");
        nvtxRangePushA("forward");
        launch(fwd_kernel, x, 0);
        launch(fwd_kernel, x, 0);
        nvtxRangePop();
        nvtxEventAttributes_t bwd = ascii_attributes("backward");
        nvtxRangePushEx(&bwd);
        launch(bwd_kernel, x, 0);
        launch(bwd_kernel, x, 0);
        nvtxRangePop();
        nvtxRangePop();

        nvtxEventAttributes_t it;
        memset(&it, 0, sizeof it);
        it.version = NVTX_VERSION;
        it.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        it.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        it.message.registered = iterate;
        nvtxDomainRangePushEx(solver, &it);
        launch(solver_kernel, x, 0);
        nvtxDomainRangePop(solver);

        nvtxRangeEnd(epoch_range);
        launch(tail_kernel, x, 0);
    }
    CHECK(cudaDeviceSynchronize());
    pthread_t t;
    if (pthread_create(&t, NULL, worker, y) != 0) {
        fprintf(stderr, "td_nvtx: pthread_create failed\n");
        return 2;
    }
    pthread_join(t, NULL);
    CHECK(cudaDeviceSynchronize());
    nvtxDomainDestroy(solver);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    printf("td_nvtx: %d steps\n", steps);
    return 0;
}
