/* The cost budget of sampled collection (--overhead), pure: no CUDA, so
 * tests/unit/test_budget.c runs it against a simulated GPU.
 *
 * A sampled launch is measured while the time spent sampling stays within
 * `overhead` of the app's own time so far. One-time costs (CUPTI's set-up,
 * each kernel's coverage) are left out of both sides. The app's own time is
 * its host time less what profiling took (sampling, one-time costs, and
 * our launch callbacks' tracing: counted as the app's, 10^5 one-block
 * launches bought samples with it), or, when more, its host time up
 * to its first launch plus the GPU time of the launches it queued: an app
 * that queues its launches and waits at the end has a host time far below
 * its GPU time, and a budget on the host's clock alone spends itself on
 * the first launches of a short run and leaves the rest unsampled
 * (td_phases2 on the H100: 39 samples, all in launches 2-74 of 1,000).
 * measure_policy.c estimates a kernel's queued GPU time from its activity
 * records (td_ktimes_queued_ns), before them by its profiled launches'
 * time per thread launched.
 *
 * The app's time before its first launch pays for samples at most as
 * fast as its launches' own time does (TD_BUDGET_START_PACE): spent at
 * once, it buys a burst of consecutive samples, all in one phase of the
 * run (td_phases2 on the H200: 26 samples in launches 2-37, then none
 * until 666), where the estimator needs them spread over the run. */
#ifndef TD_BUDGET_H
#define TD_BUDGET_H

typedef struct td_budget {
    double overhead; /* sampling time allowed per unit of the app's time; 0: no budget */
    double start_s;  /* the clock when collection started */
    double spent_s;  /* sampling: what the budget weighs */
    double once_s;   /* set-up and coverage: paid once, outside the budget */
    double traced_s; /* inside the launch callbacks of launches not sampled */
    double gpu_s;    /* GPU time of the launches queued so far, estimated in waves of
                        the device (kernel_times.h): the app's own time */
    double share_gpu_s; /* the same, each launch priced per thread launched: what the
                           kernels' shares are of (measure_policy.c says why) */
    double gpu_from_s; /* the app's own time at its first launch */
    int launched;    /* a launch was counted */
    long samples;    /* budgeted samples taken (the caller counts them) */
    int counts_all;  /* TOPDOWN_BUDGET_ALL: one-time costs and tracing are spent too */
} td_budget;

/* The start's time pays for sampling at most this times as fast as the
 * launches' own time. */
#define TD_BUDGET_START_PACE 4.0
/* A sample in an open session, about (1-13 ms on the H100 and H200). */
#define TD_BUDGET_SAMPLE_S 5e-3
#define TD_BUDGET_SLACK_SHARE 0.01
/* A move to another counter group's pass: a Stop and a Start, 5-13 ms on
 * the H100 and H200, ten samples in an open session. */
#define TD_BUDGET_MOVE_S 10e-3
/* The part of a kernel's share of the allowance its moves may take. */
#define TD_BUDGET_MOVE_SHARE 0.25

/* What the budget weighs against its allowance: the sampling; with
 * counts_all also the one-time costs (set-up, coverage) and the tracing,
 * so that what is left for samples is what the user's budget has left
 * (issue 40: one budget that counts everything). */
double td_budget_spent(const td_budget *b);
/* The app's own time at now_s, as the budget counts it. */
double td_budget_native(const td_budget *b, double now_s);
/* What sampling may have spent by now_s. */
double td_budget_allowance(const td_budget *b, double now_s);
/* 1: a sample may be taken at now_s. */
int td_budget_allows(const td_budget *b, double now_s);
/* 1: a sample of a kernel whose samples spent kernel_spent_s, and whose
 * launches queued kernel_gpu_s of the GPU time, may be taken at now_s: the
 * kernel's spending, with a sample of the mean cost so far, stays within
 * its share of the GPU time of the allowance, plus one sample
 * (TD_BUDGET_SAMPLE_S) for a kernel of at least TD_BUDGET_SLACK_SHARE of
 * the GPU time; and all sampling, with that sample, within the allowance
 * (without it the kernels' slack and moves spent 2x the allowance of a
 * simulated td_manykernels, test_budget). Against the whole allowance
 * alone, the kernels of many short launches took the samples that the
 * kernels holding the GPU time need (td_stencil, H200: heat_boundary, 7%
 * of the GPU time, 18 samples; heat_stencil, 92%, none after its first
 * launches; td_manykernels: nbody_forces, 45%, none), and a sample's cost
 * paid before it spaces the samples over the run. A kernel whose GPU time
 * is not known yet has the whole allowance. */
int td_budget_kernel_allows(const td_budget *b, double now_s, double kernel_spent_s,
                            double kernel_gpu_s);
/* 1: a sample of the kernel may move the rotation to another counter
 * group's pass: its moves so far and this one, TD_BUDGET_MOVE_S each,
 * within TD_BUDGET_MOVE_SHARE of its share of the allowance. Else its
 * samples keep the open pass's group (group_sampler.h): a move costs ten samples,
 * and one of nbody_forces' in a simulated td_manykernels took a third of
 * the run's budget and left the kernel's middle third unsampled
 * (test_budget). A kernel whose GPU time is not known yet may move. */
int td_budget_kernel_may_move(const td_budget *b, double now_s, double kernel_gpu_s,
                              unsigned moves);
/* A launch was queued at now_s; est_s: how much the estimate of the GPU
 * time queued so far grew (0: unknown, e.g. a kernel's first launch), or
 * shrank where the activity records corrected it (kernel_times.h);
 * share_est_s: the same for share_gpu_s. */
void td_budget_launched(td_budget *b, double now_s, double est_s, double share_est_s);

#endif
