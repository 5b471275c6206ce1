/* The launch records (emit.c): a launch with its counters, or timed only,
 * and TOPDOWN_DEBUG's batch records. */
#ifndef TD_EMIT_H
#define TD_EMIT_H

#include <stddef.h>

#include "topdown/inject/state.h"

void emit_launch(const ctx_state *c, const launch_rec *l, const double *values);
void emit_batch_debug(ctx_state *c, int decoded, size_t ranges, size_t dropped,
                      size_t expected);

#endif
