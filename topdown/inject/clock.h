/* The collector's one clock (CLOCK_MONOTONIC): seconds for what profiling
 * costs and the budget, nanoseconds for TOPDOWN_DEBUG's probe. */
#ifndef TD_INJECT_CLOCK_H
#define TD_INJECT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double now_s(void)
{
    return (double)now_ns() * 1e-9;
}

#endif
