// td_graphs: CUDA graphs launched many times, for topdown's graph
// profiling (docs/COLLECTION.md, CUDA graphs). Two graphs:
//   captured  stream capture of one compute-bound kernel (fma_graph),
//             the same kernel also launched directly, so the graph's tree
//             can be compared with the direct one;
//   explicit  the graph API: a memset node, a memory-bound kernel node
//             (stream_graph) and a child graph holding fma_graph.
// Options: --launches N (each graph, default 200). Prints a checksum.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "td_graphs: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(2);                                                             \
        }                                                                        \
    } while (0)

__global__ void fma_graph(float *out, int iters)
{
    float x = threadIdx.x * 1e-3f, y = 1.0001f;
    for (int i = 0; i < iters; i++)
        x = fmaf(x, y, 1e-4f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void stream_graph(const float *in, float *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = 2.0f * in[i] + 1.0f;
}

static const int fma_blocks = 264, fma_threads = 256, fma_iters = 4096;

static cudaGraphExec_t captured_graph(float *out, cudaStream_t stream)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    fma_graph<<<fma_blocks, fma_threads, 0, stream>>>(out, fma_iters);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    return exec;
}

static cudaGraphNode_t add_kernel(cudaGraph_t graph, void *func, dim3 grid, dim3 block,
                                  void **args, const cudaGraphNode_t *deps, size_t n_deps)
{
    cudaKernelNodeParams p = {};
    p.func = func;
    p.gridDim = grid;
    p.blockDim = block;
    p.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddKernelNode(&node, graph, deps, n_deps, &p));
    return node;
}

static cudaGraphExec_t explicit_graph(float *in, float *out, float *fma_out, size_t n)
{
    cudaGraph_t graph, child;
    CHECK(cudaGraphCreate(&graph, 0));
    CHECK(cudaGraphCreate(&child, 0));
    cudaMemsetParams ms = {};
    ms.dst = out;
    ms.value = 0;
    ms.elementSize = 4;
    ms.width = n;
    ms.height = 1;
    cudaGraphNode_t memset_node, stream_node, child_node;
    CHECK(cudaGraphAddMemsetNode(&memset_node, graph, NULL, 0, &ms));
    void *stream_args[] = {&in, &out, &n};
    stream_node = add_kernel(graph, (void *)stream_graph, dim3(1056), dim3(256), stream_args,
                             &memset_node, 1);
    int iters = fma_iters;
    void *fma_args[] = {&fma_out, &iters};
    add_kernel(child, (void *)fma_graph, dim3(fma_blocks), dim3(fma_threads), fma_args, NULL, 0);
    CHECK(cudaGraphAddChildGraphNode(&child_node, graph, &stream_node, 1, child));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaGraphDestroy(graph));
    return exec;
}

int main(int argc, char **argv)
{
    int launches = 200;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--launches"))
            launches = atoi(argv[i + 1]);
    size_t n = (size_t)1 << 24;
    float *in, *out, *fma_out;
    CHECK(cudaMalloc(&in, n * sizeof *in));
    CHECK(cudaMalloc(&out, n * sizeof *out));
    CHECK(cudaMalloc(&fma_out, fma_blocks * fma_threads * sizeof *fma_out));
    CHECK(cudaMemset(in, 0, n * sizeof *in));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaGraphExec_t captured = captured_graph(fma_out, stream);
    cudaGraphExec_t explicit_exec = explicit_graph(in, out, fma_out, n);
    for (int i = 0; i < launches; i++) {
        fma_graph<<<fma_blocks, fma_threads, 0, stream>>>(fma_out, fma_iters);
        CHECK(cudaGraphLaunch(captured, stream));
        CHECK(cudaGraphLaunch(explicit_exec, stream));
    }
    CHECK(cudaStreamSynchronize(stream));
    float check = 0;
    CHECK(cudaMemcpy(&check, fma_out, sizeof check, cudaMemcpyDeviceToHost));
    printf("td_graphs: %d launches of each graph, checksum %.4f\n", launches, check);
    CHECK(cudaGraphExecDestroy(captured));
    CHECK(cudaGraphExecDestroy(explicit_exec));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(fma_out));
    return 0;
}
