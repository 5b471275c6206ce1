/* Under TOPDOWN_DEBUG: where the time of a launch that is only traced goes
 * (issue 23: tracing must cost <= 2 us a launch above native), step by step
 * of the launch callbacks, summed over the run and said at exit. Off, a
 * mark is one untaken branch. */
#ifndef TD_PROBE_H
#define TD_PROBE_H

typedef enum td_probe_step {
    TD_PROBE_LOCK,     /* waiting for td_g.lock */
    TD_PROBE_SHAPE,    /* the launch's parameters, stream capture */
    TD_PROBE_CONTEXT,  /* its context and id */
    TD_PROBE_STREAM,   /* its stream's id */
    TD_PROBE_NAME,     /* its function's name */
    TD_PROBE_KERNEL,   /* its kernel by name */
    TD_PROBE_LOAD,     /* a first launch's module loaded */
    TD_PROBE_CHOICE,   /* NVTX region, filter and choice */
    TD_PROBE_BUDGET,   /* the budget's count */
    TD_PROBE_UNMEASURED, /* the collector told the launch is not measured */
    TD_PROBE_EXIT,     /* from the enter callback's end to the exit callback */
    TD_PROBE_EMIT,     /* the launch's spool line */
    TD_PROBE_TAIL,     /* the exit callback's rest */
    TD_PROBE_STEPS
} td_probe_step;

/* Under TOPDOWN_DEBUG, the profiler's own steps (issue 23: where a
 * profiled launch's time goes): calls counted and timed, said at exit. */
typedef enum td_probe_span {
    TD_SPAN_WAIT,          /* cuCtxSynchronize before and after a range */
    TD_SPAN_SELECT,        /* a configuration made active (fresh object, SetConfig) */
    TD_SPAN_START,         /* cuptiRangeProfilerStart */
    TD_SPAN_PUSH,          /* cuptiRangeProfilerPushRange */
    TD_SPAN_POP,           /* cuptiRangeProfilerPopRange */
    TD_SPAN_STOP,          /* cuptiRangeProfilerStop (a pass ends) */
    TD_SPAN_DECODE,        /* cuptiRangeProfilerDecodeData and the range count */
    TD_SPAN_EVAL,          /* one range's metrics evaluated */
    TD_SPAN_REPLAYED,      /* a replayed launch, enter callback to exit callback's end */
    TD_SPAN_SAMPLED,       /* a launch in a counter group, the same */
    TD_SPANS
} td_probe_span;

/* The clock for a span (0 when debug is off). */
unsigned long long td_probe_now(void);
/* Counts a span that began at since (td_probe_now). */
void td_probe_count(td_probe_span span, unsigned long long since);

/* Starts this thread's clock (a launch's enter callback). */
void td_probe_start(void);
/* Adds the time since the last mark to step; nothing when debug is off. */
void td_probe_mark(td_probe_step step);
/* The launch was only traced: its marks count (else they are dropped). */
void td_probe_commit(void);
/* One debug line per step: launches counted, ns a launch; one per span
 * taken: calls, ms in all, ms a call. */
void td_probe_report(void);

#endif
