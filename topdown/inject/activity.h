/* Kernel durations from CUPTI's activity API (CONCURRENT_KERNEL records):
 * every launch gets a GPU-measured duration, profiled or not, at a cost of
 * a few hundred nanoseconds per launch and without serialising kernels.
 * Records become kernel_time lines joined to launches by correlation id;
 * kernels launched inside CUDA graphs (which no launch callback sees)
 * become launch lines of their own. Memcpy, memset and peer-copy records
 * become copy lines (TOPDOWN_NO_COPIES=1 leaves them out). */
#ifndef TD_ACTIVITY_H
#define TD_ACTIVITY_H

#include <stdint.h>

/* next_id hands out launch ids shared with the callback path; copies: 0
 * leaves copies out (TOPDOWN_NO_COPIES); buffer_kb: TOPDOWN_ACTIVITY_KB;
 * device_kb: TOPDOWN_ACTIVITY_DEVICE_KB (-1: CUPTI's); per_thread:
 * TOPDOWN_ACTIVITY_PER_THREAD (-1: CUPTI's, 0: global buffers). */
int td_activity_start(uint64_t t0, uint64_t (*next_id)(void), int copies, long buffer_kb,
                      long device_kb, long per_thread);
/* Delivers every buffered record now (exit, context teardown, signals). */
void td_activity_flush(void);
/* A cuGraphLaunch (its correlation id) ran this graph exec (its CUPTI id). */
void td_activity_graph_launch(uint32_t corr, uint32_t exec);

#endif
