// td_few: kernels launched only once, twice or three times (issue 22): too
// few launches to rotate counter groups over, each long enough (~40 ms on
// an H100, estimated) to matter.
//
//   td_few [--work X (1)]
//
// Three designs, each as three distinct kernels (template instantiations,
// so three names), the one numbered K launched K times:
//   few_stream<K>  memory streaming: a triad over three 256 MiB arrays,
//                  128 sweeps (~100 GB, long_scoreboard / DRAM bound)
//   few_fma<K>     FP32 FMA: 8 independent chains per thread, 2048 threads
//                  per SM, 512 K steps (Retire)
//   few_bank<K>    shared memory with 32-way bank conflicts: a row stride of
//                  32 words, the next address depending on the loads, as
//                  td_bench's mio_bound (MIO_Bound)
// 9 kernels, 18 launches: for K in 1, 2, 3, K rounds of stream, fma, bank.
// --work X multiplies every kernel's work. Prints the in-loop time
// (td_app.h) of the 18 launches and a checksum. Exit 0, 1 on any CUDA
// error, 2 on a bad argument.
#define TD_APP_NAME "td_few"
#include "td_app.h"

#include <vector>

static const char *USAGE = "td_few [--work X (1)]";

#define BLOCK 256

template <int K>
__global__ void __launch_bounds__(BLOCK) few_stream(const float4 *x, const float4 *y, float4 *z,
                                                    size_t n4, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        float k = 1.0f + (float)s * 1e-3f;
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
             i += (size_t)gridDim.x * blockDim.x) {
            float4 a = x[i], b = y[i];
            z[i] = make_float4(a.x + k * b.x, a.y + k * b.y, a.z + k * b.z, a.w + k * b.w);
        }
    }
}

template <int K>
__global__ void __launch_bounds__(BLOCK) few_fma(float *out, int iters)
{
    td_fma_chains(out, iters, threadIdx.x * 1e-3f, 1e-4f * K);
}

template <int K>
__global__ void __launch_bounds__(BLOCK) few_bank(float *out, int iters)
{
    __shared__ float tile[32 * 32]; // row stride 32 words: a column is one bank
    unsigned lane = threadIdx.x & 31u;
    for (unsigned i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        tile[i] = (float)((i + K) & 63u);
    __syncthreads();
    unsigned k = 0;
    float acc = 0.0f;
    for (int i = 0; i < iters; i++) {
        float v0 = tile[lane * 32 + ((k + 0) & 31)];
        float v1 = tile[lane * 32 + ((k + 5) & 31)];
        float v2 = tile[lane * 32 + ((k + 11) & 31)];
        float v3 = tile[lane * 32 + ((k + 17) & 31)];
        acc += (v0 + v1) + (v2 + v3);
        k += ((unsigned)acc & 7u) + 1u; // the next addresses depend on these loads
    }
    out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = acc;
}

struct ctx {
    unsigned blocks;
    float *x, *y, *z, *out_fma, *out_bank;
    size_t n4;
    int sweeps, fma_iters, bank_iters;
};

template <int K>
static void round_of(const ctx &c)
{
    few_stream<K><<<c.blocks, BLOCK>>>((const float4 *)c.x, (const float4 *)c.y, (float4 *)c.z,
                                       c.n4, c.sweeps);
    CHECK_LAUNCH();
    few_fma<K><<<c.blocks, BLOCK>>>(c.out_fma, c.fma_iters);
    CHECK_LAUNCH();
    few_bank<K><<<c.blocks, BLOCK>>>(c.out_bank, c.bank_iters);
    CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    long long work = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--work"))
            work = td_parse_int(argc, argv, &i, 1, 1000, USAGE);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\n"
                   "9 kernels of 3 designs (few_stream, few_fma, few_bank), the one numbered K\n"
                   "launched K times (18 launches, ~40 ms each on an H100); --work X\n"
                   "multiplies their work. Prints loop_s=<s> launches=18 us_per_launch=<x>\n"
                   "(host clock, final sync included), then a checksum.\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    int sms = td_require_device();
    ctx c;
    c.blocks = (unsigned)sms * 8;
    const size_t n = (size_t)256 << 18; // 256 MiB of floats per array
    c.n4 = n / 4;
    c.sweeps = (int)(128 * work);
    c.fma_iters = (int)(524288 * work);
    c.bank_iters = (int)(10240 * work);
    const size_t outs = (size_t)c.blocks * BLOCK;
    CHECK_CUDA(cudaMalloc(&c.x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&c.y, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&c.z, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&c.out_fma, outs * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&c.out_bank, outs * sizeof(float)));
    // Bytes 0x3f800000 would be 1.0f; 0x01010101 is a tiny positive float:
    // the values do not matter to a stream, only that they are finite.
    CHECK_CUDA(cudaMemset(c.x, 0x01, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(c.y, 0x01, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(c.z, 0, n * sizeof(float)));
    CHECK_CUDA(cudaDeviceSynchronize());

    long long launches = 0;
    double t0 = td_now_s();
    round_of<1>(c);
    launches += 3;
    for (int r = 0; r < 2; r++, launches += 3)
        round_of<2>(c);
    for (int r = 0; r < 3; r++, launches += 3)
        round_of<3>(c);
    CHECK_CUDA(cudaDeviceSynchronize());
    double t1 = td_now_s();
    td_print_loop(t1 - t0, launches);

    double s_fma = td_device_sum(c.out_fma, outs), s_bank = td_device_sum(c.out_bank, outs);
    double s_z = td_device_sum(c.z, 1024);
    printf("td_few: 9 kernels, %lld launches (work x%lld), checksum %.6e %.6e %.6e\n", launches,
           work, s_fma, s_bank, s_z);
    CHECK_CUDA(cudaFree(c.x));
    CHECK_CUDA(cudaFree(c.y));
    CHECK_CUDA(cudaFree(c.z));
    CHECK_CUDA(cudaFree(c.out_fma));
    CHECK_CUDA(cudaFree(c.out_bank));
    return 0;
}
