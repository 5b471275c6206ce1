/* A simulated GPU queue for tests of the collector's budget: the host
 * queues launches (queue_s each, up to `depth` queued), the GPU runs them
 * in order; a sample drains the queue and waits for its launch. Times in
 * seconds. */
#ifndef TD_SIM_QUEUE_H
#define TD_SIM_QUEUE_H

#include <stddef.h>

typedef struct sim_queue {
    double host_s;   /* the app's host clock */
    double gpu_free; /* when the GPU has run what is queued */
    double *finish;  /* when each launch ends, by launch index */
    size_t depth;    /* launches the queue holds */
    double queue_s;  /* host time to queue one launch */
} sim_queue;

/* The host queues launch i of gpu_s; the GPU runs it after what is queued. */
static inline void sim_queue_launch(sim_queue *q, size_t i, double gpu_s)
{
    if (i >= q->depth && q->finish[i - q->depth] > q->host_s)
        q->host_s = q->finish[i - q->depth]; /* the queue is full */
    q->host_s += q->queue_s;
    double start = q->gpu_free > q->host_s ? q->gpu_free : q->host_s;
    q->finish[i] = start + gpu_s;
    q->gpu_free = q->finish[i];
}

/* The host waits until `until` (the app's own GPU time). */
static inline void sim_queue_wait(sim_queue *q, double until)
{
    if (until > q->host_s)
        q->host_s = until;
}

/* A sample of launch i: the queue drained (the app's own GPU time), the
 * profiler's cost_s on the host, the launch queued and waited for. */
static inline void sim_queue_sample(sim_queue *q, size_t i, double gpu_s, double cost_s)
{
    sim_queue_wait(q, q->gpu_free);
    q->host_s += cost_s;
    sim_queue_launch(q, i, gpu_s);
    sim_queue_wait(q, q->finish[i]);
}

#endif
