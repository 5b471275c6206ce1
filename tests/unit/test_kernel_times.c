/* The budget's per-kernel GPU time from activity records
 * (topdown/inject/kernel_times.c): time per thread launched by kernel,
 * kernels apart, the names compared whole, entries that stay where they
 * are while records come from another thread (CUPTI's buffer thread), and
 * the table's capacity. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "metrics/result/result.h"
#include "topdown/inject/kernel_times.h"

enum { WRITER_RECORDS = 200000, KERNELS_PAST_CAPACITY = 9000 };

static void *write_records(void *arg)
{
    (void)arg;
    char name[32];
    for (int i = 0; i < WRITER_RECORDS; i++) {
        snprintf(name, sizeof name, "_Z6kernel%dv", i % 64);
        td_ktimes_add(name, 32, 64); /* 2 ns a thread */
    }
    return NULL;
}

static void per_thread_by_kernel(void)
{
    td_ktimes_reset();
    CHECK(td_ktimes_find("_Z4tinyv") == NULL);
    CHECK(td_ktimes_ns_per_thread(NULL) == 0);
    td_ktimes_add("_Z4tinyv", 32, 1200);    /* 1 block of 32: 1.2 us */
    td_ktimes_add("_Z4tinyv", 32, 1000);
    td_ktimes_add("_Z4bigsv", 1 << 20, 1 << 20); /* 1 ns a thread */
    const td_ktime *tiny = td_ktimes_find("_Z4tinyv");
    CHECK(tiny != NULL);
    CHECK(td_ktimes_kernels() == 2); /* a second record of tiny added none */
    CHECK_NEAR(td_ktimes_ns_per_thread(tiny), 2200.0 / 64, 1e-9);
    CHECK_NEAR(td_ktimes_ns_per_thread(td_ktimes_find("_Z4bigsv")), 1.0, 1e-12);
    /* a prefix is another kernel */
    CHECK(td_ktimes_find("_Z4tiny") == NULL);
    /* no threads or no name: not counted */
    td_ktimes_add("_Z4tinyv", 0, 5000);
    td_ktimes_add(NULL, 32, 5000);
    CHECK_NEAR(td_ktimes_ns_per_thread(tiny), 2200.0 / 64, 1e-9);
    CHECK(td_ktimes_records() == 3);
    /* the entry read before is the one that grows */
    td_ktimes_add("_Z4tinyv", 64, 6400 + 2200);
    CHECK(td_ktimes_find("_Z4tinyv") == tiny);
    CHECK_NEAR(td_ktimes_ns_per_thread(tiny), (2200.0 + 8600) / 128, 1e-9);
}

/* Records from another thread while this one reads: every record counted,
 * every entry found where it was. */
static void from_another_thread(void)
{
    td_ktimes_reset();
    td_ktimes_add("_Z6kernel0v", 32, 64);
    const td_ktime *first = td_ktimes_find("_Z6kernel0v");
    pthread_t writer;
    CHECK(pthread_create(&writer, NULL, write_records, NULL) == 0);
    int moved = 0;
    for (int i = 0; i < 20000; i++) {
        moved |= td_ktimes_find("_Z6kernel0v") != first;
        double v = td_ktimes_ns_per_thread(first);
        moved |= v != 2.0;
    }
    pthread_join(writer, NULL);
    CHECK(!moved);
    CHECK(td_ktimes_records() == WRITER_RECORDS + 1);
    CHECK_NEAR(td_ktimes_ns_per_thread(td_ktimes_find("_Z6kernel63v")), 2.0, 1e-12);
}

/* Past the table's capacity a new kernel is not counted; the others are. */
static void past_capacity(void)
{
    td_ktimes_reset();
    char name[32];
    for (int i = 0; i < KERNELS_PAST_CAPACITY; i++) {
        snprintf(name, sizeof name, "_Z1k%dv", i);
        td_ktimes_add(name, 1, 10);
    }
    CHECK(td_ktimes_find("_Z1k0v") != NULL);
    CHECK(td_ktimes_find("_Z1k8191v") != NULL);
    CHECK(td_ktimes_find("_Z1k8192v") == NULL);
    CHECK(td_ktimes_records() == 8192);
    CHECK(td_ktimes_kernels() == 8192); /* those past the capacity are not counted */
    td_ktimes_add("_Z1k5v", 1, 30);
    CHECK_NEAR(td_ktimes_ns_per_thread(td_ktimes_find("_Z1k5v")), 20.0, 1e-12);
    td_ktimes_reset();
    CHECK(td_ktimes_kernels() == 0);
}

/* td_sort's radix_scatter as the H200 measured it (2026-11-29): five
 * sizes in turn, 256 to 8 M threads, 45.7 us to 1.36 ms, 16 launches of
 * each per round, two rounds; the records arrive LAG launches behind.
 * The running sum of each launch's estimate by the records' time per
 * thread at queue time (the rule before) priced the 8 M-thread launches at
 * the smallest ones' 178 ns a thread; td_ktimes_queued_ns, at each size's
 * own mean, or the nearest size's scaled (per thread where full is 0, in
 * waves of full threads), converges to the kernel's own time; on the way
 * it is off by at most worst_bound once a record came. */
static void queued_by_size(int lag, double full, double worst_bound)
{
    enum { SIZES = 5, EACH = 8, LAUNCHES = 2 * SIZES * EACH };
    static const double threads[SIZES] = {256, 4096, 65536, 1048576, 8388608};
    static const double ns[SIZES] = {45.7e3, 45.4e3, 45.8e3, 214.2e3, 1364.6e3};
    td_ktimes_reset();
    td_kqueued queued[TD_KTIME_CLASSES];
    memset(queued, 0, sizeof queued);
    double truth = 0, per_thread_sum = 0, worst = 1, last = 0;
    for (int i = 0; i < LAUNCHES + lag; i++) {
        if (i >= lag) { /* the record of launch i - lag */
            int done = ((i - lag) / EACH) % SIZES;
            td_ktimes_add("_Z7scatterv", threads[done], (uint64_t)ns[done]);
        }
        if (i >= LAUNCHES)
            continue;
        int size = (i / EACH) % SIZES;
        const td_ktime *t = td_ktimes_find("_Z7scatterv");
        truth += ns[size];
        per_thread_sum += td_ktimes_ns_per_thread(t) * threads[size];
        unsigned cls = td_threads_size_class(threads[size]);
        queued[cls].launches++;
        queued[cls].threads += threads[size];
        double est = td_ktimes_queued_ns(t, queued, full);
        if (t) { /* once a record came: off by how much */
            double off = est > truth ? est / truth : truth / est;
            worst = off > worst ? off : worst;
        }
        last = est;
    }
    double at_end = td_ktimes_queued_ns(td_ktimes_find("_Z7scatterv"), queued, full);
    printf("radix_scatter-like, records %d launches behind, %.0f threads fill the GPU: run %.2f ms; by size %.2f ms at "
           "the last launch (worst %.2fx on the way), %.2f ms once every record came; "
           "per-thread running sum %.1f ms\n", lag, full, truth * 1e-6, last * 1e-6, worst,
           at_end * 1e-6, per_thread_sum * 1e-6);
    CHECK_NEAR(at_end / truth, 1.0, 1e-9);
    CHECK(worst < worst_bound);
    CHECK(lag < 8 || per_thread_sum > 10 * truth); /* the failure measured on the H200 */
    CHECK(td_ktimes_queued_ns(NULL, queued, full) == 0); /* no record yet */
    td_ktimes_reset();
}

/* A launch priced from another size: per thread where the device's size
 * is not known, else in waves of it (td_sort's radix_scatter on the
 * H200: 45.7 us at 256 threads, 1.36 ms at 8 M; 132 SMs of 2,048). */
static void scaled_in_waves(void)
{
    const double full = 132 * 2048.0;
    CHECK_NEAR(td_launch_scaled_ns(45.7e3, 256, 8388608, 0), 45.7e3 * 32768, 1e-3);
    double by_waves = td_launch_scaled_ns(45.7e3, 256, 8388608, full);
    CHECK(by_waves > 1.36e6 / 1.2 && by_waves < 1.36e6 * 1.2);
    CHECK_NEAR(td_launch_scaled_ns(45.7e3, 256, 65536, full), 45.7e3, 1e-9); /* one wave */
    CHECK_NEAR(td_launch_scaled_ns(1.36e6, 8388608, 256, full), 1.36e6 * full / 8388608, 1e-6);
    CHECK_NEAR(td_launch_scaled_ns(1e3, 2 * full, 4 * full, full), 2e3, 1e-9); /* linear past one */
    CHECK(td_launch_scaled_ns(1e3, 0, 256, full) == 0 && td_launch_scaled_ns(1e3, 256, 0, full) == 0);
}

int main(void)
{
    /* per thread: 4.0x and 58x on the way; in waves of an H200: 1.13x, 1.20x */
    queued_by_size(2, 0, 5.0);
    queued_by_size(12, 0, 70.0);
    queued_by_size(2, 132 * 2048.0, 1.5);
    queued_by_size(12, 132 * 2048.0, 1.5);
    scaled_in_waves();
    per_thread_by_kernel();
    from_another_thread();
    past_capacity();
    return td_check_summary();
}
