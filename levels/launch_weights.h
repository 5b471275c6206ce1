/* The duration the model weighs each launch by (MODEL.md section 6:
 * duration-weighted means): its own recorded duration, except where the
 * measurement made it longer. A counter group's session opens with its
 * first range, and that launch's kernel record and its range's
 * gpu__time_duration can both hold the session's start: on an H200 (CUDA
 * 13.0) td_sort's radix_histogram launches of 1.4-2.1 us that opened a
 * session recorded 56-81 us, fell in the duration class of the kernel's
 * 73 us launches and took 60% of its weight with their own instruction
 * rate (Retire 5.5 points under application replay in three runs);
 * td_manykernels' first ranges recorded 80.6 us for 1.2 us launches on the
 * H200 and the H100. Such a launch, where it outlasts every one of its
 * like launches (same kernel, grid and block) that opened no session and
 * was not replayed, is weighed as their median; else as itself (a kernel's
 * like launches can differ a thousandfold in work, td_bfs's frontier). A
 * replay keeps its own, its passes' time: weighed as its like launches,
 * td_bfs's frontier_compact compared its replays with other natural
 * launches and read MIO_Bound 9.6 points off. Pure: launches in, weights
 * out. */
#ifndef TD_LAUNCH_WEIGHTS_H
#define TD_LAUNCH_WEIGHTS_H

#include <stddef.h>

#include "metrics/result/result.h"
#include "metrics/error.h"

/* 1: launch l opens a counter group's session: profiled with a group, and
 * its context's profiled launch before it (last_group: its group,
 * TD_GROUP_ALL for the full set, TD_LAUNCH_NO_GROUP for none yet)
 * measured another. */
#define TD_LAUNCH_NO_GROUP (TD_GROUP_ALL - 1)
int td_launch_opens_session(const td_launch *l, int last_group);

/* opens[i]: td_launch_opens_session of launch i of one context's launches
 * (in launch order). */
void td_launch_openers(const td_launch *launches, size_t n, unsigned char *opens);

/* weight_ns[i]: the duration launch i of one context's launches (in
 * launch order) is weighed by, as above; 0 where its own is unknown.
 * opens: td_launch_openers' flags of the same launches. */
int td_launch_weights(const td_launch *launches, size_t n, const unsigned char *opens,
                      double *weight_ns, td_error *err);

#endif
