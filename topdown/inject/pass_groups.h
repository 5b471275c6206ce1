/* A config image whose replay passes are the counter groups, in order: one
 * nvperf pass group per topdown group, each holding its own copy of the
 * counters groups share (warps active, cycles, duration), so a launch
 * measured in any pass reads its group whole.
 * CUPTI's host API schedules a metric list into passes itself and measures
 * a shared counter in one pass only; nvperf's raw-metrics config takes the
 * passes as given. Measured on the H100 (benchmarks/rp_modes.cu RP_COST3):
 * user replay with one session (Start..Stop) per pass and ranges named
 * per launch decodes each range with exactly its pass's group, shared
 * counters included, with no new profiler object between groups. */
#ifndef TD_PASS_GROUPS_H
#define TD_PASS_GROUPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct td_pass_groups_image {
    uint8_t *image;          /* malloc'd */
    size_t size;
    size_t passes;           /* as nvperf counts them: n_groups when it worked */
    const char *failed_call; /* on failure: the nvperf call, or "calloc" */
    int status;              /* and its NVPA status */
} td_pass_groups_image;

/* groups[g][0..sizes[g]) are metric names of the chip; avail its counter
 * availability image. 0 on success, else -1 with failed_call/status set and
 * nothing allocated. */
int td_pass_groups_build(const char *chip, const uint8_t *avail, const char *const *const *groups,
                         const size_t *sizes, size_t n_groups, td_pass_groups_image *out);

#endif
