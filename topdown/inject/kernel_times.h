/* Each kernel's GPU time by launch size, from the activity records (the
 * kernels' own durations), for the budget's count of the app's GPU time.
 * A range's gpu__time_duration holds the range's own cost: on the H200 it
 * made td_tiny's 96 ms of GPU time 1.10 s, and the budget allowed
 * samples against that (issue 40). Pure C: written from CUPTI's buffer
 * thread, read from the launching threads; its own lock, held briefly,
 * taking no other. */
#ifndef TD_KERNEL_TIMES_H
#define TD_KERNEL_TIMES_H

#include <stddef.h>
#include <stdint.h>

/* Where a kernel's sums are; NULL until its first record came. */
typedef struct td_ktime td_ktime;

/* A finished launch of the kernel of this mangled name: its threads and
 * its duration. Kernels past the table's capacity are not counted. */
void td_ktimes_add(const char *mangled, double threads, uint64_t duration_ns);
/* The kernel's entry, once a record of it came; NULL before. */
const td_ktime *td_ktimes_find(const char *mangled);
/* Kernels with records so far, read without the lock: a kernel whose
 * td_ktimes_find found nothing is looked up again only once it grew (a
 * lookup hashes the mangled name). */
size_t td_ktimes_kernels(void);
/* Its mean time per thread launched, ns; 0: none yet. */
double td_ktimes_ns_per_thread(const td_ktime *t);
/* Size classes: floor(log2(threads launched)), td_launch_size_class's. */
#define TD_KTIME_CLASSES 64

/* A kernel's launches queued in one size class. */
typedef struct td_kqueued {
    uint64_t launches;
    double threads;
} td_kqueued;

/* One launch of `threads` priced from a launch of ref_threads that took
 * ref_ns, where full_threads fill the device (its SMs times the threads an
 * SM holds; 0: unknown): in waves, not per thread. A launch that does not
 * fill the device runs in about one wave whatever its size; td_sort's
 * radix_scatter took 45.7 us at 256 threads and 1.36 ms at 8 M on the
 * H200 (270,336 threads fill it): 1.50 ms by waves, 1.50 s per thread. */
double td_launch_scaled_ns(double ref_ns, double ref_threads, double threads,
                           double full_threads);
/* The GPU time of a kernel's launches queued, ns (queued: per size class,
 * TD_KTIME_CLASSES of them): each class's launches at its records' mean
 * duration; a class without records from the nearest class with records
 * (td_launch_scaled_ns, full_threads). 0: no record of the kernel yet. Called
 * again as records come, it converges to the kernel's own time, where a
 * running sum of each launch's estimate at queue time kept its errors:
 * td_sort's radix_scatter, priced by its smallest launches' time per
 * thread (178 ns at 256 threads, 0.16 at 8 M), counted 14.2 s of GPU time
 * for 27 ms run (H200), and the budget allowed 6.3 s where 0.25 s was 40%. */
double td_ktimes_queued_ns(const td_ktime *t, const td_kqueued *queued, double full_threads);
/* Records counted (all kernels), for TOPDOWN_DEBUG. */
uint64_t td_ktimes_records(void);
/* Forgets everything (tests). */
void td_ktimes_reset(void);

#endif
