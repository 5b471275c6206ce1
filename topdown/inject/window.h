/* A context's window (window.c): the collector its configuration in use
 * picks, a chosen launch added to the window of its configuration, and
 * what the window holds written. */
#ifndef TD_WINDOW_H
#define TD_WINDOW_H

#include "topdown/inject/collector.h"
#include "topdown/inject/state.h"

const td_collector *collector_of(const ctx_state *c);
/* A chosen launch into its configuration's window: 1 when it is measured. */
int add_to_window(ctx_state *c, const launch_rec *l);
/* Writes what the profiler holds: the open batch, or the rotation's cycle. */
void close_window(ctx_state *c);
/* The exit flush (exit.c's at_exit), registered with atexit again once a
 * configuration was built; InitializeInjection sets it. */
void set_exit_flush(void (*at_exit)(void));

#endif
