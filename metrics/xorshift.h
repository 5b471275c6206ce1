/* xorshift32: a fixed pseudo-random sequence, so that searches (pass
 * orders, counter groups) give the same answer on every run. */
#ifndef TD_XORSHIFT_H
#define TD_XORSHIFT_H

#include <stdint.h>

static inline uint32_t td_xorshift32(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

#endif
