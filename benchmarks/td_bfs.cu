// td_bfs: breadth-first search over a synthetic power-law graph, the
// launch-varying workload of issue 22: from launch to launch of the same
// kernel the frontier goes from one vertex to a million and back, and with
// it the grid, the divergence and the memory access pattern.
//
//   td_bfs [--scale S (21)] [--edge-factor E (8)] [--sources K (24)] [--seed X (1)]
//          [--bottom-up]
//
// The graph, built on the host from the seed (the same graph every run):
// 2^S vertices and E * 2^S undirected R-MAT edges (Graph500's quadrant
// probabilities a 0.57, b 0.19, c 0.19, d 0.05, one random stream per 2^20
// edges, made by up to 16 host threads; self loops dropped,
// duplicates kept), vertex ids shuffled so that the hubs are spread over
// memory, stored in CSR with both directions of every edge. Defaults: 2.1 M
// vertices, 16.8 M edges, 33.5 M adjacency entries (134 MB on the GPU).
//
// K BFS runs from K pseudo-random vertices of non-zero degree, each
// level-synchronous with two launches per level:
//   bfs_topdown       one warp per frontier vertex (queue), its lanes over
//                     the adjacency list; unvisited neighbours get the next
//                     level and a flag
//   frontier_compact  one thread per vertex: the flags become the next
//                     frontier (a flag array and a queue, warp-aggregated
//                     appends) and its size and edge count
// then the two counters are copied to the host. With --bottom-up the
// direction switches as in Beamer's direction-optimizing BFS (alpha 14, beta
// 24): when the frontier's edges exceed the unvisited edges / 14,
// bfs_bottomup (one thread per unvisited vertex, looking for a parent in
// the frontier flags) replaces bfs_topdown until the frontier is below
// V / 24 vertices.
//
// Launches with the defaults: about 2 per level, ~8 levels per source: a
// few hundred. Prints the in-loop time (td_app.h) of the K searches, then
// the searches' totals and a checksum (visited vertices and the sum of
// their distances: deterministic, whatever the order of the racing writes).
// Exit 0, 1 on any CUDA error, 2 on a bad argument.
#define TD_APP_NAME "td_bfs"
#include "td_app.h"

#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

static const char *USAGE = "td_bfs [--scale S (21)] [--edge-factor E (8)] [--sources K (24)] "
                           "[--seed X (1)] [--bottom-up]";

#define BLOCK 256

// ---- the kernels ---------------------------------------------------------------------

// One warp per frontier vertex; a neighbour seen unvisited gets level + 1.
// Several warps may write the same neighbour: they write the same values.
__global__ void __launch_bounds__(BLOCK) bfs_topdown(const unsigned *row, const unsigned *col,
                                                     const unsigned *queue, unsigned n,
                                                     int *dist, unsigned char *next, int level)
{
    unsigned lane = threadIdx.x & 31u;
    unsigned long long warp = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5;
    unsigned long long warps = (gridDim.x * (unsigned long long)blockDim.x) >> 5;
    for (unsigned long long q = warp; q < n; q += warps) {
        unsigned u = queue[q];
        unsigned end = row[u + 1];
        for (unsigned j = row[u] + lane; j < end; j += 32) {
            unsigned v = col[j];
            if (dist[v] < 0) {
                dist[v] = level + 1;
                next[v] = 1;
            }
        }
    }
}

// One thread per unvisited vertex: its first neighbour in the frontier
// makes it visited. Only its own thread writes a vertex.
__global__ void __launch_bounds__(BLOCK) bfs_bottomup(const unsigned *row, const unsigned *col,
                                                      unsigned nv, int *dist,
                                                      const unsigned char *front,
                                                      unsigned char *next, int level)
{
    for (unsigned long long v = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; v < nv;
         v += (unsigned long long)gridDim.x * blockDim.x) {
        if (dist[v] >= 0)
            continue;
        unsigned end = row[v + 1];
        for (unsigned j = row[v]; j < end; j++)
            if (front[col[j]]) {
                dist[v] = level + 1;
                next[v] = 1;
                break;
            }
    }
}

// The next frontier: front = next, next cleared, the flagged vertices
// appended to queue (one atomic per warp), counters[0] += their number,
// counters[1] += their degrees. The loop is uniform over each warp (the
// block's base), so every lane takes part in the ballot.
__global__ void __launch_bounds__(BLOCK) frontier_compact(const unsigned *row, unsigned nv,
                                                          unsigned char *front,
                                                          unsigned char *next, unsigned *queue,
                                                          unsigned long long *counters)
{
    unsigned lane = threadIdx.x & 31u;
    for (unsigned long long base = blockIdx.x * (unsigned long long)blockDim.x; base < nv;
         base += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long v = base + threadIdx.x;
        bool in = false;
        if (v < nv) {
            in = next[v] != 0;
            front[v] = in ? 1 : 0;
            if (in)
                next[v] = 0;
        }
        unsigned mask = __ballot_sync(0xffffffffu, in);
        unsigned long long deg = in ? (unsigned long long)(row[v + 1] - row[v]) : 0ull;
        for (int off = 16; off > 0; off >>= 1)
            deg += __shfl_down_sync(0xffffffffu, deg, off);
        unsigned long long pos = 0;
        if (lane == 0 && mask) {
            pos = atomicAdd(&counters[0], (unsigned long long)__popc(mask));
            atomicAdd(&counters[1], deg);
        }
        pos = __shfl_sync(0xffffffffu, pos, 0);
        if (in)
            queue[pos + (unsigned)__popc(mask & ((1u << lane) - 1u))] = (unsigned)v;
    }
}

// ---- the graph ------------------------------------------------------------------------

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct graph {
    unsigned nv;
    std::vector<unsigned> row; // nv + 1 offsets
    std::vector<unsigned> col; // both directions of every edge
};

// Quadrant thresholds over 16 random bits: a, a + b, a + b + c.
static const unsigned RMAT_A = (unsigned)(0.57 * 65536), RMAT_AB = (unsigned)(0.76 * 65536),
                      RMAT_ABC = (unsigned)(0.95 * 65536);
static const long long RMAT_CHUNK = 1 << 20; // edges per random stream

// Edges [first, last) of chunk c: their own stream, so the graph does not
// depend on how many host threads make it. Branch-free quadrant choice:
// u's bit for c and d, v's bit for b and d.
static void rmat_chunk(unsigned *eu, unsigned *ev, long long first, long long last, int scale,
                       uint64_t seed)
{
    // The chunk's start state hashed from the seed and the chunk number:
    // splitmix64 streams started a few increments apart would overlap.
    uint64_t h = seed * 0x2545F4914F6CDD1Dull ^ (uint64_t)(first / RMAT_CHUNK);
    uint64_t s = splitmix64(&h);
    for (long long e = first; e < last; e++) {
        unsigned u = 0, v = 0;
        uint64_t bits = 0;
        for (int l = 0; l < scale; l++) {
            if ((l & 3) == 0)
                bits = splitmix64(&s);
            unsigned r = (unsigned)(bits & 0xffffu);
            bits >>= 16;
            unsigned ge_a = r >= RMAT_A, ge_ab = r >= RMAT_AB, ge_abc = r >= RMAT_ABC;
            u |= ge_ab << l;
            v |= (ge_a ^ ge_ab ^ ge_abc) << l;
        }
        eu[e] = u;
        ev[e] = v;
    }
}

struct rmat_job {
    unsigned *eu, *ev;
    long long ne;
    int scale, worker, workers;
    uint64_t seed;
};

static void *rmat_worker(void *arg)
{
    rmat_job *j = (rmat_job *)arg;
    for (long long first = (long long)j->worker * RMAT_CHUNK; first < j->ne;
         first += (long long)j->workers * RMAT_CHUNK)
        rmat_chunk(j->eu, j->ev, first, std::min(first + RMAT_CHUNK, j->ne), j->scale, j->seed);
    return NULL;
}

// R-MAT edges (made by up to 16 host threads), relabelled by a random
// permutation, in CSR.
static void make_graph(graph *g, int scale, long long edge_factor, uint64_t seed)
{
    const unsigned nv = 1u << scale;
    const long long ne = edge_factor * (long long)nv;
    std::vector<unsigned> eu((size_t)ne), ev((size_t)ne);
    long hw = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = (int)std::max(1L, std::min(16L, hw));
    std::vector<rmat_job> jobs((size_t)workers);
    std::vector<pthread_t> threads((size_t)workers);
    for (int w = 0; w < workers; w++) {
        jobs[(size_t)w] = rmat_job{eu.data(), ev.data(), ne, scale, w, workers, seed};
        if (pthread_create(&threads[(size_t)w], NULL, rmat_worker, &jobs[(size_t)w]) != 0) {
            fprintf(stderr, "td_bfs: pthread_create failed\n");
            exit(1);
        }
    }
    for (int w = 0; w < workers; w++)
        pthread_join(threads[(size_t)w], NULL);

    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 12345;
    std::vector<unsigned> perm(nv);
    for (unsigned i = 0; i < nv; i++)
        perm[i] = i;
    for (unsigned i = nv - 1; i > 0; i--)
        std::swap(perm[i], perm[splitmix64(&s) % (i + 1ull)]);

    std::vector<unsigned> deg(nv, 0);
    size_t kept = 0;
    for (long long e = 0; e < ne; e++) {
        unsigned u = eu[(size_t)e], v = ev[(size_t)e];
        if (u == v)
            continue;
        u = perm[u];
        v = perm[v];
        eu[kept] = u;
        ev[kept] = v;
        kept++;
        deg[u]++;
        deg[v]++;
    }
    if (2.0 * (double)kept >= 4294967295.0) {
        fprintf(stderr, "td_bfs: %zu edges do not fit 32-bit offsets; lower --scale or "
                        "--edge-factor\n", kept);
        exit(2);
    }
    g->nv = nv;
    g->row.assign((size_t)nv + 1, 0);
    for (unsigned i = 0; i < nv; i++)
        g->row[(size_t)i + 1] = g->row[i] + deg[i];
    g->col.resize(2 * kept);
    std::vector<unsigned> pos(g->row.begin(), g->row.end() - 1);
    for (size_t e = 0; e < kept; e++) {
        g->col[pos[eu[e]]++] = ev[e];
        g->col[pos[ev[e]]++] = eu[e];
    }
}

// ---- the searches ---------------------------------------------------------------------

int main(int argc, char **argv)
{
    int scale = 21, sources = 24, bottom_up = 0;
    long long edge_factor = 8, seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--scale"))
            scale = (int)td_parse_int(argc, argv, &i, 4, 28, USAGE);
        else if (!strcmp(a, "--edge-factor"))
            edge_factor = td_parse_int(argc, argv, &i, 1, 64, USAGE);
        else if (!strcmp(a, "--sources"))
            sources = (int)td_parse_int(argc, argv, &i, 1, 100000, USAGE);
        else if (!strcmp(a, "--seed"))
            seed = td_parse_int(argc, argv, &i, 0, (1LL << 62), USAGE);
        else if (!strcmp(a, "--bottom-up"))
            bottom_up = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\n"
                   "BFS over an R-MAT graph of 2^S vertices and E * 2^S edges from K sources,\n"
                   "one expansion kernel and one frontier compaction per level; --bottom-up\n"
                   "switches direction as Beamer's BFS does. Prints loop_s=<s> launches=<N>\n"
                   "us_per_launch=<x> for the searches (host clock, final sync included),\n"
                   "then a checksum.\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    int sms = td_require_device();

    double g0 = td_now_s();
    graph g;
    make_graph(&g, scale, edge_factor, (uint64_t)seed);
    const unsigned nv = g.nv;
    const unsigned long long entries = g.col.size();
    double g1 = td_now_s();

    // Sources: pseudo-random vertices with at least one edge.
    std::vector<unsigned> src;
    uint64_t s = (uint64_t)seed * 31 + 7;
    for (long long tries = 0; (int)src.size() < sources && tries < 1000LL * sources; tries++) {
        unsigned v = (unsigned)(splitmix64(&s) % nv);
        if (g.row[(size_t)v + 1] > g.row[v])
            src.push_back(v);
    }
    if (src.empty()) {
        fprintf(stderr, "td_bfs: the graph has no edges\n");
        return 2;
    }

    unsigned *d_row, *d_col, *d_queue;
    int *d_dist;
    unsigned char *d_front, *d_next;
    unsigned long long *d_counters;
    CHECK_CUDA(cudaMalloc(&d_row, ((size_t)nv + 1) * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&d_col, entries * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&d_queue, (size_t)nv * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&d_dist, (size_t)nv * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_front, nv));
    CHECK_CUDA(cudaMalloc(&d_next, nv));
    CHECK_CUDA(cudaMalloc(&d_counters, 2 * sizeof(unsigned long long)));
    CHECK_CUDA(cudaMemcpy(d_row, g.row.data(), ((size_t)nv + 1) * sizeof(unsigned),
                          cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_col, g.col.data(), entries * sizeof(unsigned),
                          cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaDeviceSynchronize());

    const unsigned vblocks = (unsigned)std::min<unsigned long long>((nv + BLOCK - 1) / BLOCK,
                                                                    (unsigned long long)sms * 8);
    long long launches = 0, levels = 0, topdown_launches = 0, bottomup_launches = 0;
    unsigned long long visited = 0, dist_sum = 0, max_frontier = 0;
    double t0 = td_now_s();
    for (size_t k = 0; k < src.size(); k++) {
        unsigned root = src[k];
        const int zero = 0;
        const unsigned char one = 1;
        CHECK_CUDA(cudaMemset(d_dist, 0xff, (size_t)nv * sizeof(int))); // -1: unvisited
        CHECK_CUDA(cudaMemset(d_front, 0, nv));
        CHECK_CUDA(cudaMemset(d_next, 0, nv));
        CHECK_CUDA(cudaMemcpy(d_dist + root, &zero, sizeof zero, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_front + root, &one, 1, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_queue, &root, sizeof root, cudaMemcpyHostToDevice));
        unsigned long long n = 1, m_f = g.row[(size_t)root + 1] - g.row[root];
        unsigned long long m_u = entries - m_f;
        visited += 1;
        bool bu = false;
        for (int level = 0; n > 0; level++) {
            if (bottom_up) {
                if (!bu && m_f > m_u / 14)
                    bu = true;
                else if (bu && n < nv / 24)
                    bu = false;
            }
            CHECK_CUDA(cudaMemsetAsync(d_counters, 0, 2 * sizeof(unsigned long long)));
            if (bu) {
                bfs_bottomup<<<vblocks, BLOCK>>>(d_row, d_col, nv, d_dist, d_front, d_next, level);
                bottomup_launches++;
            } else {
                unsigned long long warps_needed = n;
                unsigned blocks = (unsigned)std::min<unsigned long long>(
                    (warps_needed * 32 + BLOCK - 1) / BLOCK, (unsigned long long)sms * 32);
                bfs_topdown<<<blocks, BLOCK>>>(d_row, d_col, d_queue, (unsigned)n, d_dist, d_next,
                                               level);
                topdown_launches++;
            }
            CHECK_LAUNCH();
            frontier_compact<<<vblocks, BLOCK>>>(d_row, nv, d_front, d_next, d_queue, d_counters);
            CHECK_LAUNCH();
            launches += 2;
            unsigned long long h[2];
            CHECK_CUDA(cudaMemcpy(h, d_counters, sizeof h, cudaMemcpyDeviceToHost));
            n = h[0];
            m_f = h[1];
            m_u = m_u > m_f ? m_u - m_f : 0;
            visited += n;
            dist_sum += (unsigned long long)(level + 1) * n;
            max_frontier = std::max(max_frontier, n);
            levels++;
        }
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    double t1 = td_now_s();
    td_print_loop(t1 - t0, launches);

    printf("td_bfs: %u vertices, %llu adjacency entries (graph built in %.2f s), %zu sources, "
           "%lld levels, %lld bfs_topdown + %lld bfs_bottomup + %lld frontier_compact launches, "
           "largest frontier %llu, visited %llu, distance sum %llu, checksum %llu\n",
           nv, entries, g1 - g0, src.size(), levels, topdown_launches, bottomup_launches,
           launches / 2, max_frontier, visited, dist_sum, visited * 1000003ull + dist_sum);
    CHECK_CUDA(cudaFree(d_row));
    CHECK_CUDA(cudaFree(d_col));
    CHECK_CUDA(cudaFree(d_queue));
    CHECK_CUDA(cudaFree(d_dist));
    CHECK_CUDA(cudaFree(d_front));
    CHECK_CUDA(cudaFree(d_next));
    CHECK_CUDA(cudaFree(d_counters));
    return 0;
}
