// mem_latency: load-to-use latency of global loads in SM cycles, per
// buffer size, by one thread chasing pointers.
//
//   mem_latency [-n LOADS] [SIZE...]
//
// SIZE: bytes, or with a K, M or G suffix (KiB, MiB, GiB); default 32K 8M
// 1G, which on an H100 or H200 land in L1, in L2 and in DRAM. LOADS: the
// timed dependent loads per size (default 1048576). Prints a header line
// (device, SM clock, CUDA versions), then per size one line for plain
// loads (cached in L1 on Hopper) and one for __ldcg (L2 only, so the L2
// latency shows even for a buffer that would sit in L1). Exit code 1 without
// a GPU.
//
// Why so: the td_bench kernels l1_hit, l2_hit and l1_bound make the same
// loads wait on L1, L2 and DRAM; their stall cycles per load only make
// sense next to what one load costs at each level when nothing else runs,
// which is what a single dependent chain shows.

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define TD_APP_NAME "mem_latency"
#include "td_app.h" // CHECK_CUDA

// One slot per 128-byte line, so every load of the chain touches a line
// (and sector) of its own and the caches cannot serve two loads with one
// fill. A slot's first word holds the byte offset of the next slot.
#define SLOT 128u

// Byte offsets, not pointers: pointers loaded from memory are generic, and
// a generic load is not the global load a kernel's `buf[i]` is. The add of
// the offset to the base is part of every measured load, as it is in any
// indexed load.
template <bool CG>
__device__ __forceinline__ unsigned next_offset(const char *base, unsigned off)
{
    const unsigned *p = (const unsigned *)(base + off);
    return CG ? __ldcg(p) : *p;
}

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

struct Timing {
    long long cycles;
    unsigned long long ns;
    unsigned last; // keeps the chain alive
};

// One block of one thread: nothing else competes for the caches or the
// memory, so the time per load is the latency, not a throughput.
template <bool CG>
__global__ void chase(const char *base, unsigned n_slots, int loads, Timing *out)
{
    unsigned off = 0;
    // Warm-up: the whole cycle once, so the caches hold what fits (and the
    // TLBs what they can).
    for (unsigned i = 0; i < n_slots; i++)
        off = next_offset<CG>(base, off);
    // clock64() is read when the instruction issues: the last warm-up load
    // may still be in flight, and the last timed one is; one load in
    // `loads` of error either way.
    long long c0 = clock64();
    unsigned long long t0 = global_ns();
#pragma unroll 8
    for (int i = 0; i < loads; i++)
        off = next_offset<CG>(base, off);
    long long c1 = clock64();
    unsigned long long t1 = global_ns();
    out->cycles = c1 - c0;
    out->ns = t1 - t0;
    out->last = off;
}

// A dependent chain needs one cycle through all slots in random order
// (Sattolo's algorithm): sequential order would let prefetchers and DRAM
// row hits hide the latency.
__global__ void scatter(char *base, const unsigned *next, unsigned n_slots)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_slots)
        *(unsigned *)(base + (size_t)i * SLOT) = next[i] * SLOT;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t splitmix64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void build_chain(char *buf, unsigned n_slots)
{
    std::vector<unsigned> next(n_slots);
    for (unsigned i = 0; i < n_slots; i++)
        next[i] = i;
    for (unsigned i = n_slots - 1; i > 0; i--) {
        unsigned j = (unsigned)(splitmix64() % i); // j < i: one single cycle
        unsigned t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    unsigned *d_next = NULL;
    CHECK_CUDA(cudaMalloc(&d_next, (size_t)n_slots * sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(d_next, next.data(), (size_t)n_slots * sizeof(unsigned),
                          cudaMemcpyHostToDevice));
    scatter<<<(n_slots + 255) / 256, 256>>>(buf, d_next, n_slots);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaFree(d_next));
}

static void measure(bool cg, const char *buf, size_t bytes, int loads, Timing *d_out)
{
    unsigned n_slots = (unsigned)(bytes / SLOT);
    if (cg)
        chase<true><<<1, 1>>>(buf, n_slots, loads, d_out);
    else
        chase<false><<<1, 1>>>(buf, n_slots, loads, d_out);
    CHECK_CUDA(cudaGetLastError());
    Timing t;
    CHECK_CUDA(cudaMemcpy(&t, d_out, sizeof t, cudaMemcpyDeviceToHost));
    printf("size_bytes=%zu cycles_per_load=%.1f ns_per_load=%.1f load=%s loads=%d\n", bytes,
           (double)t.cycles / loads, (double)t.ns / loads, cg ? "ldcg" : "default", loads);
    fflush(stdout);
}

static void usage(const char *msg, const char *arg)
{
    fprintf(stderr, "mem_latency: %s '%s' (usage: mem_latency [-n LOADS] [SIZE[K|M|G]...])\n",
            msg, arg);
    exit(2);
}

// "32K" -> 32768; 0 when it is not a size this program can chase: at
// least two slots, and offsets that fit 32 bits.
static size_t parse_size(const char *s)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end != '\0' || v == 0 || v > (4ull << 30) >> shift)
        return 0;
    size_t bytes = (size_t)(v << shift) / SLOT * SLOT;
    if (bytes > (4ull << 30) - SLOT)
        bytes = (4ull << 30) - SLOT;
    return bytes >= 2 * SLOT ? bytes : 0;
}

int main(int argc, char **argv)
{
    std::vector<size_t> sizes;
    int loads = 1 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n")) {
            char *end = NULL;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end != '\0' || v < 1 || v > (1L << 30))
                usage("-n needs a count from 1 to 2^30, got", i + 1 < argc ? argv[i + 1] : "");
            loads = (int)v;
            i++;
        } else {
            size_t bytes = parse_size(argv[i]);
            if (!bytes)
                usage("not a size from 256 bytes to 4G:", argv[i]);
            sizes.push_back(bytes);
        }
    }
    if (sizes.empty())
        sizes = {32u << 10, 8u << 20, 1u << 30};

    int n_dev = 0;
    cudaError_t rc = cudaGetDeviceCount(&n_dev);
    if (rc != cudaSuccess || n_dev == 0) {
        fprintf(stderr, "mem_latency: no usable CUDA device (%s); run it on a machine "
                        "with an NVIDIA GPU and driver\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
        return 1;
    }
    cudaDeviceProp p;
    CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0, runtime = 0, driver = 0;
    // cudaDeviceProp::clockRate is gone in CUDA 13; the attribute stays.
    CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
    CHECK_CUDA(cudaDriverGetVersion(&driver));
    // The SM clock printed is the device's maximum; the chase's own clock
    // is cycles_per_load / ns_per_load (GHz).
    printf("device=\"%s\" cc=%d.%d sm_clock_max_mhz=%d l2_bytes=%d cuda_runtime=%d.%d "
           "cuda_driver=%d.%d\n",
           p.name, p.major, p.minor, clock_khz / 1000, p.l2CacheSize, runtime / 1000,
           runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);

    Timing *d_out = NULL;
    CHECK_CUDA(cudaMalloc(&d_out, sizeof(Timing)));
    for (size_t bytes : sizes) {
        char *buf = NULL;
        CHECK_CUDA(cudaMalloc(&buf, bytes));
        build_chain(buf, (unsigned)(bytes / SLOT));
        measure(false, buf, bytes, loads, d_out);
        measure(true, buf, bytes, loads, d_out);
        CHECK_CUDA(cudaFree(buf));
    }
    CHECK_CUDA(cudaFree(d_out));
    return 0;
}
