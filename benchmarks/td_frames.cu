// td_frames: kernels launched only inside CUDA graphs (issues 38 and 39),
// the shape of the third-party app whose per-frame graphs left its kernels
// without a tree: each frame captures a graph of three kernels on a stream,
// instantiates it, launches it and destroys it; then a second phase
// launches one instantiated graph frame after frame.
//
//   td_frames [--frames F (300)] [--n N (4194304)]
//
//   frame_stencil  a 1-D three-point stencil over N floats (memory bound)
//   frame_reduce   per block, the sum of its tile of the result (shared
//                  memory tree), one partial per block
//   frame_update   one block: the partials summed, the field scaled by it
//                  (a dependency on the whole frame)
// Prints the in-loop time line (td_app.h) over both phases and a checksum.
// Exit 0, 1 on a CUDA error, 2 on a bad argument.
#define TD_APP_NAME "td_frames"
#include "td_app.h"

#include <utility>
#include <vector>

static const char *USAGE = "td_frames [--frames F (300)] [--n N (4194304)]";

#define THREADS 256

__global__ void frame_stencil(const float *in, float *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = in[i > 0 ? i - 1 : i], c = in[i], r = in[i + 1 < n ? i + 1 : i];
        out[i] = 0.25f * l + 0.5f * c + 0.25f * r;
    }
}

__global__ void frame_reduce(const float *x, unsigned n, float *partials)
{
    __shared__ float part[THREADS];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned half = THREADS / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = part[0];
}

__global__ void frame_update(float *field, const float *partials, unsigned blocks, unsigned n)
{
    __shared__ float total;
    if (threadIdx.x == 0) {
        float s = 0;
        for (unsigned b = 0; b < blocks; b++)
            s += partials[b];
        total = s;
    }
    __syncthreads();
    float scale = total != 0.0f ? (float)n / total : 1.0f;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x * 64)
        field[i] *= scale;
}

struct frame_args {
    float *a, *b, *partials;
    unsigned n, blocks;
};

static void enqueue_frame(const frame_args &f, cudaStream_t s)
{
    frame_stencil<<<f.blocks, THREADS, 0, s>>>(f.a, f.b, f.n);
    frame_reduce<<<f.blocks, THREADS, 0, s>>>(f.b, f.n, f.partials);
    frame_update<<<1, THREADS, 0, s>>>(f.b, f.partials, f.blocks, f.n);
}

static cudaGraphExec_t capture(const frame_args &f, cudaStream_t s)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    enqueue_frame(f, s);
    CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphDestroy(graph));
    return exec;
}

int main(int argc, char **argv)
{
    long long frames = 300, n = 1 << 22;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--frames"))
            frames = td_parse_int(argc, argv, &i, 1, 1000000, USAGE);
        else if (!strcmp(a, "--n"))
            n = td_parse_int(argc, argv, &i, 1024, 1 << 28, USAGE);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\nper-frame CUDA graphs of three kernels (captured, launched and "
                   "destroyed each frame), then one graph launched each frame; prints "
                   "loop_s=<s> launches=<N> us_per_launch=<x> (kernel launches).\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    td_require_device();
    frame_args f;
    f.n = (unsigned)n;
    f.blocks = (f.n + THREADS - 1) / THREADS;
    CHECK_CUDA(cudaMalloc(&f.a, (size_t)f.n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&f.b, (size_t)f.n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&f.partials, (size_t)f.blocks * sizeof(float)));
    std::vector<float> host(f.n);
    for (unsigned i = 0; i < f.n; i++)
        host[i] = 1.0f + (float)(i % 97) * 0.01f;
    CHECK_CUDA(cudaMemcpy(f.a, host.data(), (size_t)f.n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaDeviceSynchronize());
    double t0 = td_now_s();
    for (long long i = 0; i < frames; i++) { // a graph per frame
        cudaGraphExec_t exec = capture(f, s);
        CHECK_CUDA(cudaGraphLaunch(exec, s));
        CHECK_CUDA(cudaGraphExecDestroy(exec));
        float *t = f.a;
        f.a = f.b;
        f.b = t;
    }
    cudaGraphExec_t reused[2] = {capture(f, s), NULL};
    std::swap(f.a, f.b);
    reused[1] = capture(f, s); // the other buffer order
    for (long long i = 0; i < frames; i++) // one graph each frame
        CHECK_CUDA(cudaGraphLaunch(reused[i % 2], s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    td_print_loop(td_now_s() - t0, 3 * 2 * frames);
    float check = 0;
    CHECK_CUDA(cudaMemcpy(&check, f.b, sizeof check, cudaMemcpyDeviceToHost));
    printf("checksum %.6f\n", check);
    CHECK_CUDA(cudaGraphExecDestroy(reused[0]));
    CHECK_CUDA(cudaGraphExecDestroy(reused[1]));
    CHECK_CUDA(cudaStreamDestroy(s));
    return 0;
}
