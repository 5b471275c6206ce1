/* Communication kernels (NCCL, NVSHMEM): recognised by name, their share
 * of GPU time said apart, and advice on overlap and balance between ranks
 * in place of the compute advice their stalls would get (waiting for the
 * other ranks shows as barrier stalls, not as a fault of the kernel). */
#ifndef TD_REPORT_COMM_H
#define TD_REPORT_COMM_H

#include <stddef.h>

#include "levels/aggregate.h"

/* The library of a communication kernel ("NCCL", "NVSHMEM"), NULL for
 * any other name. */
const char *td_comm_library(const char *kernel_name);

/* The "Fix: ..." line, in buf, of a bottleneck whose slots are share
 * (0-1) library's communication kernels; share 1: a kernel of its own. */
const char *td_comm_fix(const char *library, double share, char *buf, size_t size);

/* The communication kernels of a summary. */
typedef struct td_comm_totals {
    size_t kernels, launches;
    double ns;          /* their GPU time */
    const char *library; /* the first one's; "communication" when several */
} td_comm_totals;
void td_comm_totals_of(const td_summary *s, td_comm_totals *out);

/* The share (0-1) of the app tree's node value that comes from the
 * communication kernels (the app is the kernels' time-weighted mean). */
double td_comm_node_share(const td_summary *s, int node);

#endif
