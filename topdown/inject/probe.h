/* Under TOPDOWN_DEBUG: where the time of a launch that is only traced goes
 * (issue 23: tracing must cost <= 2 us a launch above native), step by step
 * of the launch callbacks, summed over the run and said at exit. Off, a
 * mark is one untaken branch. */
#ifndef TD_PROBE_H
#define TD_PROBE_H

typedef enum td_probe_step {
    TD_PROBE_LOCK,     /* waiting for td_g.lock */
    TD_PROBE_SHAPE,    /* the launch's parameters, stream capture */
    TD_PROBE_CONTEXT,  /* its context, id and stream id */
    TD_PROBE_KERNEL,   /* its kernel by name */
    TD_PROBE_CHOICE,   /* NVTX region, filter and choice */
    TD_PROBE_BUDGET,   /* the budget's count, the collector told */
    TD_PROBE_EXIT,     /* from the enter callback's end to the exit callback */
    TD_PROBE_EMIT,     /* the launch's spool line */
    TD_PROBE_TAIL,     /* the exit callback's rest */
    TD_PROBE_STEPS
} td_probe_step;

/* Starts this thread's clock (a launch's enter callback). */
void td_probe_start(void);
/* Adds the time since the last mark to step; nothing when debug is off. */
void td_probe_mark(td_probe_step step);
/* The launch was only traced: its marks count (else they are dropped). */
void td_probe_commit(void);
/* One debug line per step: launches counted, ns a launch. */
void td_probe_report(void);

#endif
