/* One way a context's Range Profiler collects, a record of functions
 * (like LIKWID's NvmonFunctions): the batch (batch.c: kernel replay of the
 * full set, or the per-group fallback) and the rotation (rotation.c). The
 * configuration in use picks it (collector_of, window.c); a context moves
 * between them launch by launch. Set-up and end are the context's
 * (contexts.c), shared by both; so is what collector.c holds, below both:
 * failures, the waits and flushes around a range, and the writing of what
 * a collector holds. */
#ifndef TD_COLLECTOR_H
#define TD_COLLECTOR_H

#include "topdown/inject/state.h"

typedef struct td_collector {
    const char *name;
    /* A chosen launch, its configuration selected: 1 when it is measured. */
    int (*launch_begin)(ctx_state *c, const launch_rec *l);
    /* After a measured launch's call returned. */
    void (*launch_end)(ctx_state *c);
    /* After a measured graph launch. */
    void (*graph_end)(ctx_state *c);
    /* Before a launch or graph launch that is not measured. */
    void (*unmeasured)(ctx_state *c);
    /* Writes what it holds (inside close_window: the context current). */
    void (*flush)(ctx_state *c);
} td_collector;

void close_configs(ctx_state *c);
/* The error record of a profiler CUPTI refused for want of privileges
 * (what: td_rp_describe's text); 0 for any other failure, nothing said. */
int say_no_privileges(const ctx_state *c, const char *what);
/* Asks CUPTI, at the context's first measured launch, whether the Range
 * Profiler supports its device (vGPU, confidential computing, ...): 1 if
 * so; else 0, said, and the context's launches are timed only. Asked
 * then, not at set-up: asked in the context-created callback, with
 * cuptiProfilerInitialize already deferred, td_tiny's 8 threads traced
 * still ran 5.6x native; deferred too, 2.1x (H200). CUPTI's floor asking
 * it alone at a first launch ran 1.02x: which call did it is not known. */
int profiling_supported(ctx_state *c);
void stop_profiling(ctx_state *c, const char *why);
void wait_for_gpu(void);
void group_failed(ctx_state *c);
void count_measurement(ctx_state *c, const launch_rec *l);
void flush_before_pass(ctx_state *c);
/* Writes what the profiler holds with flush: close_window (window.c)
 * passes the flush of the collector in use, a collector its own. */
void close_window_with(ctx_state *c, void (*flush)(ctx_state *c));

#endif
