/* Which launch of a kernel is measured, and with which counter group, in
 * replay-free collection (docs/COLLECTION.md "Choosing launches"). Pure
 * logic, no CUDA: tests/unit/test_estimate.c drives it with simulated
 * launch streams and checks the estimator's tree against the truth.
 *
 * The estimator (levels/estimate.h) post-stratifies a kernel's launches by
 * duration and by time; the choice feeds it samples spread over both:
 *  - a launch's size class (floor(log2(threads launched))) stands in for
 *    its duration, which is known only after it ran;
 *  - in each size class of each kernel, launches are sampled one per
 *    stride, at a pseudo-random place in the stride (a fixed stride would
 *    alias with a loop of the same period), and the stride doubles each
 *    time the class holds TD_CHOOSE_PER_CLASS more samples: samples reach
 *    from the first launch to the last and their number grows with the log
 *    of the run;
 *  - each sample takes the group already configured while it leads the
 *    class and the kernel by at most TD_CHOOSE_SLACK samples, else the
 *    nearest such group ahead of it in the rotation's order (the groups
 *    are passes measured in turn: a move d passes ahead ends d sessions,
 *    5-13 ms each on the H100, where a sample costs about 1 ms), or
 *    whatever it leads by while the budget pays the kernel no move
 *    (`stay`, td_budget_kernel_may_move);
 *  - a sample that would move waits up to TD_CHOOSE_DEFER of the
 *    kernel's launches for another kernel to move the rotation (PyTorch,
 *    H100, none mode: 265 sessions for 1,181 samples, now 160 for 1,347;
 *    tests/unit/test_group_sampler.c);
 *  - a kernel that lacks a group altogether is measured at once with the
 *    nearest such group ahead (coverage: every kernel gets a whole tree as
 *    early as it can), unless
 *    a replay already gave it every counter: its first launches would all
 *    be spent on coverage, and the budget would then leave the rest of a
 *    short run unsampled;
 *  - a kernel a replay covered still owes each group `natural` samples
 *    (natural coverage): a replay measures under other conditions than
 *    the app's own run (td_tiny's replays put MIO_Bound 15.6 points off
 *    application replay, H200), and the estimator sets a replay's
 *    quantity aside only where TD_EST_NATURAL_MIN counter-group launches
 *    measured it (levels/estimate.c); under the budget alone td_tiny's
 *    kernel kept the first group (8 samples of 2,000 launches). A kernel
 *    launched once owes nothing more: it is not launched again;
 *  - a natural sample rides the rotation: it takes the configured group
 *    where the kernel owes it, and moves the rotation to another group it
 *    owes only once the configured group has served no owed sample for
 *    TD_CHOOSE_NATURAL_IDLE launches (the kernels owing it have had
 *    their turn); until then the launch is sampled as the stride says.
 *    Moving at once to each kernel's owed group, PyTorch's 20-step run
 *    moved the rotation 69-71 passes; riding it, 29-33 (H200): a move
 *    ends a session, a Stop and a Start. The arm TOPDOWN_NATURAL_DEFER=N (natural_defer) lets a natural sample
 *    wait so for at most N of its kernel's own launches: td_manykernels'
 *    bitonic_global (H200), 72 launches in two bursts, each alternating
 *    with another kernel, saw the rotation move some 17 launches apart
 *    while other kernels still owed the configured group, and one of its
 *    five groups never came in 17 runs, only its replays measured it
 *    (short_scoreboard half its natural launches'); at N = 8 every group
 *    came in 7 of 7, its worst node 4.3 points off application replay on
 *    average where 5.4, but td_stencil's median spread passed 1 point in
 *    5 of 7 runs where 2 of 7 (fourteenth session). Not the default;
 *  - a kernel owing natural samples also owes one of each group in each
 *    size class that holds `heavy_pct` percent or more of the threads it
 *    launched so far (a stand-in for its time), taken at once, without
 *    waiting for the rotation: the estimator's strata are size classes,
 *    and one that lacks a group borrows it from others. td_sort's
 *    radix_scatter (H200) put 80% of its time in 16 launches of 32,768
 *    blocks; the budget paid it no move, so they measured only the groups
 *    the rotation brought (4 of 5 samples one group), the rest came from
 *    its 45 us launches, and Backend read 4.4 points above application
 *    replay;
 *  - a kernel owing natural samples owes them again, one of each group,
 *    once its launches reach `renew` and each time they double
 *    (epochs; fourfold, the H200's td_phases2 measured level 1 in its
 *    memory phase in one of two runs): budgeted samples at the stride, which may move the
 *    rotation where the budget pays the kernel no move, riding it as
 *    natural samples do. Without, td_phases2 (one kernel, a compute and a
 *    memory phase every 50 launches, H200) measured level 1 in 17
 *    consecutive launches of its first phase and never again: the
 *    budget paid no move back to that group, and Backend read 33 points
 *    off application replay. */
#ifndef TD_GROUP_SAMPLER_H
#define TD_GROUP_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/result/result.h" /* td_launch_threads, td_launch_size_class */

#define TD_CHOOSE_MAX_GROUPS 32 /* TD_MAX_GROUPS of metrics/arch/groups.h */
#define TD_CHOOSE_PER_CLASS 16  /* samples per stride of a size class */
#define TD_CHOOSE_SLACK 3       /* samples the configured group may lead by */
#define TD_CHOOSE_DEFER 4       /* launches a kernel waits for its group before it moves */
/* Launches the configured group serves no owed natural sample before a
 * natural sample may move the rotation. On PyTorch's recorded launch
 * stream (tests/unit/test_group_sampler.c) 16 to 64 end 14-16 sessions
 * where moving at once ended 45, and 8 ends 32; with 64, td_stencil's
 * kernels (two, alternating) swept the groups late in the run (H200). */
#define TD_CHOOSE_NATURAL_IDLE 16
/* The arm's limit: a kernel's own launches a natural sample waits for the
 * rotation at most (TOPDOWN_NATURAL_DEFER; by default no limit). On
 * PyTorch's recorded stream 8 ends as many sessions as the idle window
 * alone, 4 ends 7 more (tests/unit/test_group_sampler.c). */
#define TD_CHOOSE_NATURAL_DEFER 8
/* The part of a kernel's threads, in percent, that makes a size class
 * owe each group a natural sample of its own. */
#define TD_CHOOSE_HEAVY_PCT 25
/* A kernel's launches at which its first epoch of renewed natural samples
 * starts; each next one at twice as many. */
#define TD_CHOOSE_RENEW 64

/* One size class of one kernel. */
typedef struct td_choose_class {
    unsigned size_class;
    uint64_t seen;      /* launches of the class seen */
    double threads;     /* threads they launched, about: seen x 2^size_class */
    uint64_t next;      /* ordinal of its next sample */
    uint64_t stride;
    uint32_t samples;   /* samples planned in the class */
    uint32_t rng;       /* xorshift32 state: where in the stride the next sample falls */
    uint32_t group_samples[TD_CHOOSE_MAX_GROUPS];
} td_choose_class;

/* A kernel's sampling state on one context. */
typedef struct td_choose_kernel {
    td_choose_class *classes;
    size_t n_classes, cap_classes;
    uint32_t group_samples[TD_CHOOSE_MAX_GROUPS]; /* over all classes */
    double threads; /* over all classes, as each class's */
    int covered; /* a launch measured the full set (a replay): every reason is
                    known, so no group is owed outside the budget (the caller
                    sets it) */
    int stay;    /* the budget pays no move: a sample takes the configured
                    group (the caller sets it) */
    uint32_t natural; /* with covered: samples each group still owes (the
                         caller sets it; 0: none) */
    int natural_budgeted; /* they are the budget's samples, at the stride,
                             not coverage (the caller sets it) */
    int natural_waits; /* a natural sample of a group other than the
                          configured one waits for the rotation
                          (td_choose_natural_may_move; the caller sets it) */
    uint32_t natural_defer;    /* ... for at most this many of the kernel's
                                  launches (0: as natural_waits says, the
                                  default; the caller sets it) */
    uint32_t natural_deferred; /* launches it has waited so */
    uint64_t renew;     /* with natural: launches at which the first epoch of
                           renewed natural samples starts (TD_CHOOSE_RENEW;
                           0: none; the caller sets it) */
    uint64_t launches;  /* the kernel's launches seen, all classes */
    uint64_t epoch_end; /* launches at which the next epoch starts (0: the first;
                           past renew once an epoch started) */
    uint32_t epoch_samples[TD_CHOOSE_MAX_GROUPS]; /* each group's samples this epoch */
    uint32_t heavy_pct; /* with natural: a size class of this percent or more
                           of the kernel's threads owes each group once
                           (TD_CHOOSE_HEAVY_PCT; 0: none; the caller sets it) */
    uint32_t deferred; /* launches a sample waited for the rotation to reach its group */
    uint32_t moves; /* samples that moved from the configured group */
    int moved;      /* the last sample did (td_choose_dropped undoes it) */
} td_choose_kernel;

typedef struct td_choice {
    int measure;  /* 1: measure this launch */
    int group;    /* with this counter group */
    int coverage; /* the kernel had never measured it: not for the budget to refuse */
    int natural;  /* ... or had it only from a replay (natural coverage) */
} td_choice;

/* Counts the launch and decides. n_groups: the context's counter groups
 * (0: none, never measure); active: the group configured now (-1: none);
 * every: measure every launch (no budget), still balancing the groups.
 * A choice the caller then cannot carry out (the budget, a failure) is
 * undone with td_choose_dropped. */
td_choice td_choose(td_choose_kernel *k, unsigned size_class, size_t n_groups, int active,
                    int every);

/* 1: a natural sample may move the rotation: the configured group served
 * no owed sample (and the rotation did not move) in the last `idle`
 * launches (TD_CHOOSE_NATURAL_IDLE; 0: always); served_at: the launch it
 * last did. */
int td_choose_natural_may_move(uint64_t launches, uint64_t served_at, uint64_t idle);

/* The launch chosen was not measured after all: its group is counted as
 * not taken, so the next sample of the class takes it again. */
void td_choose_dropped(td_choose_kernel *k, unsigned size_class, int group);

void td_choose_free(td_choose_kernel *k);

#endif
