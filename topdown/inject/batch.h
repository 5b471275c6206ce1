/* The batch collector (batch.c): kernel replay of the full set, or the
 * per-group fallback, a profiled launch one range of the open batch. */
#ifndef TD_BATCH_H
#define TD_BATCH_H

#include <stddef.h>

#include "topdown/inject/collector.h"
#include "topdown/inject/state.h"

extern const td_collector td_batch_collector;

/* Launches a batch of this configuration holds. */
size_t window_capacity(int group);
/* Starts that failed at the context's last launches and were not said. */
void say_start_failures(ctx_state *c);

#endif
