/* A simulated collector run, for the tests of the budget and the choice:
 * the decisions of topdown/inject/measure_policy.c in auto mode (each kernel's
 * first launch replayed, the replay's object kept while new kernels come,
 * then counter groups chosen by group_sampler.c under budget.c; natural
 * coverage, TOPDOWN_NATURAL, is not simulated: these runs are the rules
 * before it, TOPDOWN_NATURAL_MIN=0) against the GPU
 * queue of sim_queue.h. Costs as measured on the H100: a sample in an open
 * session 1.3 ms (sample_s: another), a move to another group's pass 12 ms
 * more, a replay 25 ms and the fresh rotation object after replays 0.2 s
 * (coverage, outside the budget). Times in seconds. */
#ifndef TD_SIM_COLLECT_H
#define TD_SIM_COLLECT_H

#include <stdlib.h>
#include <string.h>

#include "topdown/inject/budget.h"
#include "topdown/inject/group_sampler.h"
#include "sim_queue.h"

#define SIM_MAX_KERNELS 96
#define SIM_GROUPS 5
#define SIM_SAMPLE_S 1.3e-3
#define SIM_MOVE_S 12e-3
#define SIM_REPLAY_S 25e-3
#define SIM_RETURN_S 0.2
#define SIM_RETURN_AFTER 16  /* TD_RETURN_AFTER of measure_policy.c */
#define SIM_COVER_LAUNCHES 4 /* TD_COVER_LAUNCHES of measure_policy.c */

typedef struct sim_launch {
    unsigned kernel;
    double gpu_s;   /* its GPU time */
    double threads; /* its threads: its size class and GPU-time estimate */
    double host_s;  /* the app's own host work before it is queued */
    int sync;       /* the app waits for the GPU after it */
} sim_launch;

typedef struct sim_run {
    const sim_launch *launches;
    size_t n;
    double start_s;  /* the app's start before its first launch */
    double overhead; /* --overhead */
    double sample_s; /* a sample's cost in an open session; 0: SIM_SAMPLE_S */
    int before;      /* the rules before issue 22's budgeted stride (sim_before_allows, no
                        GPU time before a kernel's first estimate, every move paid) */
    /* out */
    signed char *measured; /* per launch: 0 not measured, -1 replayed (coverage),
                              1 + the counter group sampled */
    double native_s, wall_s; /* the run's end without and with the collector */
    double once_s, spent_s, allowance_s;
    size_t samples, moves;
} sim_run;

typedef struct sim_kernel {
    td_choose_kernel choose;
    double spent_s, gpu_est_s, duration_sum, thread_sum;
    long launches, profiled, durations;
    int full; /* a replay measured the full set */
} sim_kernel;

/* td_budget_kernel_allows as it was before: each kernel within its share
 * and its slack, but not all of them within the allowance. */
static int sim_before_allows(const td_budget *b, double now_s, double kernel_spent_s,
                             double kernel_gpu_s)
{
    double allowance = td_budget_allowance(b, now_s);
    if (!(b->gpu_s > 0) || !(kernel_gpu_s > 0))
        return b->spent_s <= allowance;
    double share = kernel_gpu_s / b->gpu_s;
    double mean = b->samples > 0 ? b->spent_s / (double)b->samples : 0;
    double slack = share >= TD_BUDGET_SLACK_SHARE ? TD_BUDGET_SAMPLE_S : 0;
    return kernel_spent_s + mean <= share * allowance + slack;
}

/* The app alone: its end. */
static double sim_native(const sim_run *r)
{
    double *finish = calloc(r->n ? r->n : 1, sizeof *finish);
    sim_queue q = {.host_s = r->start_s, .gpu_free = r->start_s, .finish = finish,
                   .depth = 1024, .queue_s = 5e-6};
    for (size_t i = 0; finish && i < r->n; i++) {
        q.host_s += r->launches[i].host_s;
        sim_queue_launch(&q, i, r->launches[i].gpu_s);
        if (r->launches[i].sync)
            sim_queue_wait(&q, q.gpu_free);
    }
    sim_queue_wait(&q, q.gpu_free);
    free(finish);
    return q.host_s;
}

/* The kernel's GPU time for its share, as measure_policy.c's kernel_gpu_s. */
static double sim_kernel_gpu(const sim_run *r, const sim_kernel *k)
{
    if (r->before || k->gpu_est_s > 0 || k->durations <= 0)
        return k->gpu_est_s;
    return k->duration_sum / (double)k->durations;
}

/* The launch's configuration as measure_policy.c decides it: -2 none, -1 the full
 * set (a replay, coverage), else a counter group under the budget. */
static int sim_decide(const sim_run *r, td_budget *b, sim_kernel *k, const sim_launch *l,
                      double now, int active, int on_replay, size_t since_new)
{
    if (!k->full)
        return -1; /* auto mode: the kernel's first profiled launch is replayed */
    unsigned cls = td_threads_size_class(l->threads);
    double gpu = sim_kernel_gpu(r, k);
    k->choose.covered = 1;
    k->choose.stay = !r->before && !td_budget_kernel_may_move(b, now, gpu, k->choose.moves);
    td_choice c = td_choose(&k->choose, cls, SIM_GROUPS, active, 0);
    if (!c.measure)
        return -2;
    if (on_replay && since_new < SIM_RETURN_AFTER) {
        td_choose_dropped(&k->choose, cls, c.group);
        return k->profiled < SIM_COVER_LAUNCHES ? -1 : -2;
    }
    int ok = r->before ? sim_before_allows(b, now, k->spent_s, gpu)
                       : td_budget_kernel_allows(b, now, k->spent_s, gpu);
    if (!ok) {
        td_choose_dropped(&k->choose, cls, c.group);
        return -2;
    }
    b->samples++;
    return c.group;
}

/* One run with the collector; fills r's outputs (r->measured: n values). */
static void sim_collect(sim_run *r)
{
    static sim_kernel ks[SIM_MAX_KERNELS];
    memset(ks, 0, sizeof ks);
    r->native_s = sim_native(r);
    double *finish = calloc(r->n ? r->n : 1, sizeof *finish);
    sim_queue q = {.host_s = r->start_s, .gpu_free = r->start_s, .finish = finish,
                   .depth = 1024, .queue_s = 5e-6};
    td_budget b = {.overhead = r->overhead};
    double sample_s = r->sample_s > 0 ? r->sample_s : SIM_SAMPLE_S;
    int active = -1, on_replay = 0;
    size_t new_at = 0;
    r->samples = r->moves = 0;
    memset(r->measured, 0, r->n);
    for (size_t i = 0; finish && i < r->n; i++) {
        const sim_launch *l = &r->launches[i];
        sim_kernel *k = &ks[l->kernel % SIM_MAX_KERNELS];
        q.host_s += l->host_s;
        if (k->launches++ == 0)
            new_at = i;
        int g = sim_decide(r, &b, k, l, q.host_s, active, on_replay, i - new_at);
        /* priced by the profiled launches' time per thread: the collector's
         * rule for the shares before a kernel's activity records come
         * (measure_policy.c); the app's time too, as the simulator has no
         * device size to count waves of */
        double est = k->durations ? k->duration_sum / k->thread_sum * l->threads : 0;
        k->gpu_est_s += est;
        td_budget_launched(&b, q.host_s, est, est);
        if (g == -2) {
            sim_queue_launch(&q, i, l->gpu_s);
        } else {
            double cost = 0, once = SIM_REPLAY_S;
            if (g >= 0) {
                int move = g != active && !on_replay; /* a fresh object starts with g */
                cost = sample_s + (move ? SIM_MOVE_S : 0);
                once = on_replay ? SIM_RETURN_S : 0;
                on_replay = 0;
                active = g;
                b.spent_s += cost;
                k->spent_s += cost;
                r->samples++;
                r->moves += (size_t)move;
            } else {
                on_replay = 1;
                k->full = 1;
            }
            b.once_s += once;
            sim_queue_sample(&q, i, l->gpu_s, cost + once);
            k->profiled++;
            k->durations++;
            k->duration_sum += l->gpu_s;
            k->thread_sum += l->threads;
            r->measured[i] = (signed char)(g >= 0 ? g + 1 : -1);
        }
        if (l->sync)
            sim_queue_wait(&q, q.gpu_free);
    }
    sim_queue_wait(&q, q.gpu_free);
    r->wall_s = q.host_s;
    r->once_s = b.once_s;
    r->spent_s = b.spent_s;
    r->allowance_s = td_budget_allowance(&b, q.host_s);
    for (size_t i = 0; i < SIM_MAX_KERNELS; i++)
        td_choose_free(&ks[i].choose);
    free(finish);
}

/* A kernel's launches measured in each third of its run; the share of
 * its GPU time in strata (duration class x third, as levels/estimate.c)
 * with no launch measured, which the estimator bounds by the worst case;
 * and the (duration class of >= 5% of its time, counter group) pairs no
 * launch measured, whose stall reasons it borrows from another class. */
typedef struct sim_thirds {
    size_t launches, per_third[3], per_group[SIM_GROUPS], missing;
    double share, unsampled;
} sim_thirds;

static sim_thirds sim_kernel_thirds(const sim_run *r, unsigned kernel)
{
    enum { CLASSES = 64 };
    sim_thirds t;
    memset(&t, 0, sizeof t);
    double time[CLASSES][3] = {{0}}, total = 0, all = 0;
    int hit[CLASSES][3] = {{0}}, grp[CLASSES][SIM_GROUPS] = {{0}};
    for (size_t i = 0; i < r->n; i++) {
        all += r->launches[i].gpu_s;
        t.launches += r->launches[i].kernel == kernel;
    }
    size_t ordinal = 0;
    for (size_t i = 0; i < r->n && t.launches; i++) {
        const sim_launch *l = &r->launches[i];
        if (l->kernel != kernel)
            continue;
        size_t third = ordinal++ * 3 / t.launches;
        unsigned cls = td_threads_size_class(l->gpu_s * 1e9) % CLASSES;
        time[cls][third] += l->gpu_s;
        total += l->gpu_s;
        if (!r->measured[i])
            continue;
        hit[cls][third] = 1;
        t.per_third[third]++;
        for (int g = 0; g < SIM_GROUPS; g++)
            grp[cls][g] |= r->measured[i] < 0 || r->measured[i] - 1 == g;
        if (r->measured[i] > 0)
            t.per_group[(r->measured[i] - 1) % SIM_GROUPS]++;
    }
    for (int c = 0; c < CLASSES; c++) {
        for (int th = 0; th < 3; th++)
            if (!hit[c][th])
                t.unsampled += time[c][th];
        if (time[c][0] + time[c][1] + time[c][2] >= 0.05 * total)
            for (int g = 0; g < SIM_GROUPS; g++)
                t.missing += !grp[c][g];
    }
    t.unsampled = total > 0 ? t.unsampled / total : 0;
    t.share = all > 0 ? total / all : 0;
    return t;
}

#endif
