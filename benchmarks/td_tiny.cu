// td_tiny: a 1-block kernel launched many times, the launch-rate workload
// of issue 23 (the collector's cost per traced launch) and issue 22 (a
// kernel with 10^5 launches whose sampled tree must still be complete).
//
//   td_tiny [--launches N (100000)] [--threads T (1)] [--block B (32)] [--work W (64)]
//
// Each launch is tiny_step<<<1, B>>>: every thread does W dependent FMAs on
// its own float of a small buffer (one load, one store), a few microseconds
// of GPU time, so the loop is bound by the launch rate.
//
// --threads 1 (default): the main thread launches N times on the legacy
// default stream. --threads T > 1: T host threads (pthreads), each with its
// own non-blocking stream and buffer, launch N/T times each (the first N % T
// threads one more), all released together by a barrier: the "several host
// threads launching at once" case (a global lock in the collector shows as
// a slowdown here).
//
// Prints the in-loop time (td_app.h) for the whole loop, all threads
// together: host clock from the release of the launch loop(s) to the end of
// the final cudaDeviceSynchronize:
//   loop_s=<s> launches=<N> us_per_launch=<x>
// then a checksum line (the sum of every buffer; it depends only on N per
// buffer, W and B, so it is the same from run to run). Exit 0, or 1 on any
// CUDA error, 2 on a bad argument.
#define TD_APP_NAME "td_tiny"
#include "td_app.h"

#include <pthread.h>

#include <vector>

static const char *USAGE =
    "td_tiny [--launches N (100000)] [--threads T (1)] [--block B (32)] [--work W (64)]";

__global__ void tiny_step(float *buf, int work, float step)
{
    float x = buf[threadIdx.x];
    // W dependent FMAs: x converges to a fixed point, never overflows.
    for (int i = 0; i < work; i++)
        x = fmaf(x, 0.999f, step);
    buf[threadIdx.x] = x;
}

struct worker {
    pthread_t thread;
    pthread_barrier_t *barrier;
    long long launches;
    int block, work;
    float *buf;
    cudaStream_t stream;
    int dev;
};

static void launch_loop(float *buf, cudaStream_t stream, long long launches, int block, int work)
{
    for (long long i = 0; i < launches; i++) {
        tiny_step<<<1, block, 0, stream>>>(buf, work, 1e-3f);
        CHECK_LAUNCH();
    }
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    CHECK_CUDA(cudaSetDevice(w->dev)); // a new thread: the same device as main
    pthread_barrier_wait(w->barrier);
    launch_loop(w->buf, w->stream, w->launches, w->block, w->work);
    CHECK_CUDA(cudaStreamSynchronize(w->stream));
    return NULL;
}

int main(int argc, char **argv)
{
    long long launches = 100000;
    int threads = 1, block = 32, work = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--launches"))
            launches = td_parse_int(argc, argv, &i, 1, 1000000000LL, USAGE);
        else if (!strcmp(a, "--threads"))
            threads = (int)td_parse_int(argc, argv, &i, 1, 256, USAGE);
        else if (!strcmp(a, "--block"))
            block = (int)td_parse_int(argc, argv, &i, 1, 1024, USAGE);
        else if (!strcmp(a, "--work"))
            work = (int)td_parse_int(argc, argv, &i, 0, 1000000, USAGE);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s\n"
                   "A 1-block kernel (B threads) launched N times; with\n"
                   "--threads T, T host threads each launch N/T times on their own stream.\n"
                   "Prints loop_s=<s> launches=<N> us_per_launch=<x> (host clock around the\n"
                   "launch loop and the final cudaDeviceSynchronize), then a checksum.\n",
                   USAGE);
            return 0;
        } else
            td_usage_error(USAGE, "unknown argument", a);
    }
    if (threads > launches)
        threads = (int)launches;
    td_require_device();
    int dev = 0;
    CHECK_CUDA(cudaGetDevice(&dev));

    std::vector<worker> workers((size_t)threads);
    for (int t = 0; t < threads; t++) {
        worker &w = workers[(size_t)t];
        w.launches = launches / threads + (t < launches % threads ? 1 : 0);
        w.block = block;
        w.work = work;
        w.dev = dev;
        CHECK_CUDA(cudaMalloc(&w.buf, (size_t)block * sizeof(float)));
        CHECK_CUDA(cudaMemset(w.buf, 0, (size_t)block * sizeof(float)));
        w.stream = 0; // one thread: the legacy default stream
        if (threads > 1)
            CHECK_CUDA(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    }
    CHECK_CUDA(cudaDeviceSynchronize());

    double t0 = 0, t1 = 0;
    if (threads == 1) {
        t0 = td_now_s();
        launch_loop(workers[0].buf, 0, launches, block, work);
        CHECK_CUDA(cudaDeviceSynchronize());
        t1 = td_now_s();
    } else {
        pthread_barrier_t barrier;
        if (pthread_barrier_init(&barrier, NULL, (unsigned)threads + 1) != 0) {
            fprintf(stderr, "td_tiny: pthread_barrier_init failed\n");
            return 1;
        }
        for (int t = 0; t < threads; t++) {
            workers[(size_t)t].barrier = &barrier;
            if (pthread_create(&workers[(size_t)t].thread, NULL, worker_main, &workers[(size_t)t]) != 0) {
                fprintf(stderr, "td_tiny: pthread_create failed\n");
                return 1;
            }
        }
        // Every worker is at the barrier (its context current): the clock
        // starts when they are released together.
        pthread_barrier_wait(&barrier);
        t0 = td_now_s();
        for (int t = 0; t < threads; t++)
            pthread_join(workers[(size_t)t].thread, NULL);
        CHECK_CUDA(cudaDeviceSynchronize());
        t1 = td_now_s();
        pthread_barrier_destroy(&barrier);
    }
    td_print_loop(t1 - t0, launches);

    double sum = 0;
    std::vector<float> host((size_t)block);
    for (int t = 0; t < threads; t++) {
        worker &w = workers[(size_t)t];
        CHECK_CUDA(cudaMemcpy(host.data(), w.buf, (size_t)block * sizeof(float),
                              cudaMemcpyDeviceToHost));
        for (int i = 0; i < block; i++)
            sum += host[(size_t)i];
        CHECK_CUDA(cudaFree(w.buf));
        if (w.stream)
            CHECK_CUDA(cudaStreamDestroy(w.stream));
    }
    printf("td_tiny: %lld launches of tiny_step<<<1, %d>>> (work %d) from %d host thread%s, "
           "checksum %.6f\n", launches, block, work, threads, threads == 1 ? "" : "s", sum);
    return 0;
}
