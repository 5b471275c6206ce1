/* A context's set-up at its first launch and its end (contexts.c). */
#ifndef TD_CONTEXTS_H
#define TD_CONTEXTS_H

#include <cuda.h>
#include <stdint.h>

#include "topdown/inject/state.h"

/* The context's state, set up on first sight; NULL when out of memory. */
ctx_state *context_for(CUcontext ctx, uint32_t uid);
void forget_context(uint32_t uid);

#endif
