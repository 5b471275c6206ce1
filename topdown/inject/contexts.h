/* A context's set-up at its first launch and its end (contexts.c). */
#ifndef TD_CONTEXTS_H
#define TD_CONTEXTS_H

#include <cuda.h>
#include <stdint.h>

#include "topdown/inject/state.h"

/* The context's state, set up on first sight; NULL when out of memory. */
ctx_state *context_for(CUcontext ctx, uint32_t uid);
void forget_context(uint32_t uid);
/* CUPTI's id of a launch's stream on context c (NULL: not tracked). The
 * per-thread default stream is asked every time: its id is the calling
 * thread's. */
uint32_t stream_id_of(ctx_state *c, CUcontext ctx, CUstream stream, int per_thread);
/* A stream is being destroyed: its handle may come back for another. */
void forget_stream(CUstream stream);

#endif
