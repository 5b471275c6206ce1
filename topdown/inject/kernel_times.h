/* Each kernel's GPU time per thread launched, from the activity records
 * (the kernels' own durations), for the budget's count of the app's GPU
 * time. A range's gpu__time_duration holds the range's own cost: on the
 * H200 it made td_tiny's 96 ms of GPU time 1.10 s, and the budget allowed
 * samples against that (issue 40). Pure C: written from CUPTI's buffer
 * thread, read from the launching threads; its own lock, held briefly,
 * taking no other. */
#ifndef TD_KERNEL_TIMES_H
#define TD_KERNEL_TIMES_H

#include <stdint.h>

/* Where a kernel's sums are; NULL until its first record came. */
typedef struct td_ktime td_ktime;

/* A finished launch of the kernel of this mangled name: its threads and
 * its duration. Kernels past the table's capacity are not counted. */
void td_ktimes_add(const char *mangled, double threads, uint64_t duration_ns);
/* The kernel's entry, once a record of it came; NULL before. */
const td_ktime *td_ktimes_find(const char *mangled);
/* Its mean time per thread launched, ns; 0: none yet. */
double td_ktimes_ns_per_thread(const td_ktime *t);
/* Records counted (all kernels), for TOPDOWN_DEBUG. */
uint64_t td_ktimes_records(void);
/* Forgets everything (tests). */
void td_ktimes_reset(void);

#endif
