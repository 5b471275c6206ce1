// td_sort: an LSD radix sort of 32-bit keys with payloads, run over arrays
// of very different sizes (issues 39 and 40): a few kernels whose launches
// range from one block to thousands, a few hundred launches in all, the
// shape of the third-party sort whose profiling cost grew from 0.96 s to
// 4.80 s between two rounds.
//
//   td_sort [--rounds R (4)] [--seed X (1)]
//
// Each round sorts arrays of 2^10, 2^14, 2^18, 2^22 and 2^25 keys (the same
// pseudo-random keys each run), 8 passes of 4 bits each, three launches a
// pass:
//   radix_histogram  per block, the counts of its tile's 16 digit values
//   radix_scan       one block: the exclusive scan of every block's counts,
//                    digit-major (the scatter offsets)
//   radix_scatter    per block, each key and payload to its place (stable)
// then checks the last array is sorted. Prints the in-loop time line
// (td_app.h): loop_s=<s> launches=<N> us_per_launch=<x>. Exit 0, 1 on a
// CUDA error or an unsorted result, 2 on a bad argument.
#define TD_APP_NAME "td_sort"
#include "td_app.h"

#include <vector>

static const char *USAGE = "td_sort [--rounds R (4)] [--seed X (1)]";

#define TILE 1024 // keys per block
#define THREADS 256
#define DIGITS 16
#define BITS 4

__global__ void radix_histogram(const unsigned *keys, unsigned n, int shift, unsigned *counts,
                                unsigned blocks)
{
    __shared__ unsigned local[DIGITS];
    if (threadIdx.x < DIGITS)
        local[threadIdx.x] = 0;
    __syncthreads();
    unsigned base = blockIdx.x * TILE;
    for (unsigned i = threadIdx.x; i < TILE && base + i < n; i += blockDim.x)
        atomicAdd(&local[(keys[base + i] >> shift) & (DIGITS - 1)], 1u);
    __syncthreads();
    if (threadIdx.x < DIGITS)
        counts[threadIdx.x * blocks + blockIdx.x] = local[threadIdx.x];
}

// One block: exclusive scan over DIGITS x blocks counts, in place.
__global__ void radix_scan(unsigned *counts, unsigned total)
{
    __shared__ unsigned carry;
    __shared__ unsigned part[THREADS];
    if (threadIdx.x == 0)
        carry = 0;
    __syncthreads();
    for (unsigned start = 0; start < total; start += THREADS) {
        unsigned i = start + threadIdx.x;
        unsigned v = i < total ? counts[i] : 0;
        part[threadIdx.x] = v;
        __syncthreads();
        for (unsigned off = 1; off < THREADS; off <<= 1) {
            unsigned add = threadIdx.x >= off ? part[threadIdx.x - off] : 0;
            __syncthreads();
            part[threadIdx.x] += add;
            __syncthreads();
        }
        if (i < total)
            counts[i] = carry + part[threadIdx.x] - v;
        __syncthreads();
        if (threadIdx.x == THREADS - 1)
            carry += part[THREADS - 1];
        __syncthreads();
    }
}

// Stable: thread 0 of each block walks its tile in order (slow but simple
// and deterministic; the other threads copy the tile in and out).
__global__ void radix_scatter(const unsigned *keys, const unsigned *vals, unsigned n, int shift,
                              const unsigned *offsets, unsigned blocks, unsigned *keys_out,
                              unsigned *vals_out)
{
    __shared__ unsigned tile_keys[TILE], tile_vals[TILE], next[DIGITS];
    unsigned base = blockIdx.x * TILE;
    unsigned count = n - base < TILE ? n - base : TILE;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        tile_keys[i] = keys[base + i];
        tile_vals[i] = vals[base + i];
    }
    if (threadIdx.x < DIGITS)
        next[threadIdx.x] = offsets[threadIdx.x * blocks + blockIdx.x];
    __syncthreads();
    if (threadIdx.x == 0)
        for (unsigned i = 0; i < count; i++) {
            unsigned d = (tile_keys[i] >> shift) & (DIGITS - 1);
            unsigned at = next[d]++;
            keys_out[at] = tile_keys[i];
            vals_out[at] = tile_vals[i];
        }
}

static long long sort_once(unsigned *keys, unsigned *vals, unsigned *tmp_keys, unsigned *tmp_vals,
                           unsigned *counts, unsigned n)
{
    unsigned blocks = (n + TILE - 1) / TILE;
    long long launches = 0;
    for (int pass = 0; pass < 32 / BITS; pass++) {
        int shift = pass * BITS;
        radix_histogram<<<blocks, THREADS>>>(keys, n, shift, counts, blocks);
        CHECK_LAUNCH();
        radix_scan<<<1, THREADS>>>(counts, DIGITS * blocks);
        CHECK_LAUNCH();
        radix_scatter<<<blocks, THREADS>>>(keys, vals, n, shift, counts, blocks, tmp_keys,
                                           tmp_vals);
        CHECK_LAUNCH();
        launches += 3;
        unsigned *t = keys;
        keys = tmp_keys;
        tmp_keys = t;
        t = vals;
        vals = tmp_vals;
        tmp_vals = t;
    }
    return launches; // 8 passes: the sorted keys are back in keys
}

int main(int argc, char **argv)
{
    long long rounds = 4, seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--rounds"))
            rounds = td_parse_int(argc, argv, &i, 1, 1000, USAGE);
        else if (!strcmp(a, "--seed"))
            seed = td_parse_int(argc, argv, &i, 0, 1LL << 31, USAGE);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\nLSD radix sorts of 2^10 to 2^25 keys, 3 kernels of very "
                   "different launch sizes, 120 launches a round; prints loop_s=<s> "
                   "launches=<N> us_per_launch=<x>.\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    td_require_device();
    static const int log_sizes[] = {10, 14, 18, 22, 25};
    const unsigned most = 1u << 25;
    std::vector<unsigned> host(most);
    unsigned long long x = (unsigned long long)seed * 0x9E3779B97F4A7C15ull + 1;
    for (unsigned i = 0; i < most; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        host[i] = (unsigned)(x >> 16);
    }
    unsigned *keys, *vals, *tmp_keys, *tmp_vals, *counts, *src;
    size_t bytes = (size_t)most * sizeof(unsigned);
    CHECK_CUDA(cudaMalloc(&keys, bytes));
    CHECK_CUDA(cudaMalloc(&vals, bytes));
    CHECK_CUDA(cudaMalloc(&tmp_keys, bytes));
    CHECK_CUDA(cudaMalloc(&tmp_vals, bytes));
    CHECK_CUDA(cudaMalloc(&src, bytes));
    CHECK_CUDA(cudaMalloc(&counts, (size_t)DIGITS * (most / TILE) * sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaDeviceSynchronize());
    long long launches = 0;
    double t0 = td_now_s();
    unsigned last = 0;
    for (long long r = 0; r < rounds; r++)
        for (int s : log_sizes) {
            unsigned n = 1u << s;
            CHECK_CUDA(cudaMemcpy(keys, src, (size_t)n * sizeof(unsigned),
                                  cudaMemcpyDeviceToDevice));
            CHECK_CUDA(cudaMemcpy(vals, src, (size_t)n * sizeof(unsigned),
                                  cudaMemcpyDeviceToDevice));
            launches += sort_once(keys, vals, tmp_keys, tmp_vals, counts, n);
            last = n;
        }
    CHECK_CUDA(cudaDeviceSynchronize());
    td_print_loop(td_now_s() - t0, launches);
    std::vector<unsigned> out(last);
    CHECK_CUDA(cudaMemcpy(out.data(), keys, (size_t)last * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    for (unsigned i = 1; i < last; i++)
        if (out[i - 1] > out[i]) {
            fprintf(stderr, "td_sort: not sorted at %u\n", i);
            return 1;
        }
    printf("sorted %u keys, last %u\n", last, out[last - 1]);
    return 0;
}
