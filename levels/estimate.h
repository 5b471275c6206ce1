/* A kernel's tree from a sample of its launches (MODEL.md section 6,
 * docs/COLLECTION.md "The estimator"). Pure: no CUPTI, tested on simulated
 * launch streams (tests/unit/test_estimate.c).
 *
 * Every launch of the kernel is timed, a few are profiled: with the full
 * counter set (kernel replay) or with one counter group. The target is what
 * profiling every launch with the full set would give: the duration-weighted
 * mean of the launches' trees.
 *  - Strata. The kernel's launches are post-stratified by duration class
 *    (octaves of their own duration, split where the durations leave a
 *    gap, TD_EST_CLASS_GAP) and by when they ran (first,
 *    middle, last third of the kernel's launches). Each stratum weighs its
 *    launches' total duration, which is known: every launch is timed.
 *  - Per pass. Each profiled launch gives what its own pass can say: the
 *    level-1 shares (from the issue counters, one pass) and, for each stall
 *    reason it measured, that reason's warp-cycles over the same pass's
 *    warps active (over its active cycles where the table names no warps
 *    counter). Counts of different passes are never mixed.
 *  - In a stratum, each quantity is the duration-weighted mean over the
 *    stratum's launches that measured it; an empty stratum borrows from the
 *    same duration class at any time, then from the nearest class. The
 *    stratum's stalled slots are split in proportion to its reasons'
 *    shares; the kernel's tree is the strata's trees weighted by duration.
 *  - Spread: the half-width of a 95% interval, from a bootstrap over the
 *    profiled launches (resampled within each counter group's strata, or
 *    its duration class where a stratum holds one launch of the group)
 *    times Student's t, with the finite-population correction of the
 *    share of launches measured, a bound on what unmeasured strata can
 *    add (how far the measured ones lie apart where two thirds of the run
 *    were measured; else anything for a launch size never measured, or
 *    where the sample shows no variance, one launch to a bucket), how far the
 *    quantities a stratum borrowed from other thirds of its class swing
 *    between those thirds, how far the full set's launches (kernel
 *    replay) and the groups' (without replay) of like duration disagree
 *    (where both measured a quantity the groups' is taken: natural
 *    conditions first, TD_EST_NATURAL_MIN),
 *    and how far the cold samples' reasons, set aside (td_est_launch),
 *    would move the tree.
 *  - Nothing unmeasured is renormalised: when a stall reason was measured by
 *    no launch, the stall split is not made (split_measured = 0) and the
 *    stalled slots stay unattributed. */
#ifndef TD_ESTIMATE_H
#define TD_ESTIMATE_H

#include "levels/model.h"

#define TD_EST_RESAMPLES 64
#define TD_EST_SEED 2463534242u
#define TD_EST_TIME_BINS 3
/* A gap between a kernel's launch durations, as a share, that splits its
 * octave into two duration classes: td_phases2's compute and memory
 * phases, 318 and 280 us on the H100, share an octave, and octave-wide
 * classes mixed them in the proportion the samples fell in. */
#define TD_EST_CLASS_GAP 0.05
/* ... when each side holds this many launches: a kernel's few first
 * launches (replayed, cold) keep the class of the launches like them. */
#define TD_EST_CLASS_MIN 16
/* A gap in a kernel's durations wider than this parts kinds of work: a
 * class with no level 1 of its own borrows it (within the spread) only
 * from classes it reaches without such a gap. td_phases2's phases, one
 * launch size, run 280 and 318 us apart by 13.6% (H100), 197 and 321 us
 * (H200); td_devheap's heap_new, one kind of work whose time varies with
 * the heap's contention, left gaps of up to 5.1% over 13.3-28.9 ms. */
#define TD_EST_KIND_GAP 0.10
/* The least spread of any kernel's node, what no resampling of launches
 * can show: the counters' own repeatability from run to run (up to 0.60
 * points on td_stencil's heat_stencil, H200) and between a tree from
 * counter groups and one from kernel replay of the same launches (0.41
 * points at most, H200). */
#define TD_EST_FLOOR 0.0075
/* Unmeasured strata (extrapolation): their error bound is this many times
 * the farthest measured stratum's distance from the kernel's value, when
 * launches were measured in at least TD_EST_EXTRAP_THIRDS thirds of the
 * run (docs/COLLECTION.md: chosen on the H200 truth recordings). */
#define TD_EST_EXTRAP_K 2.0
/* Conditions: where the full set (kernel replay) measured a kernel, the
 * counter groups' values (without replay) from launches up to this many
 * octaves of duration away are set against it; their difference is added
 * to the spread where some replay's quantity stays in the estimate
 * (docs/COLLECTION.md: 1 octave left td_manykernels' short kernels on the
 * H100 93% covered, 2 covered 98%; farther, launches that differ in size,
 * not in conditions, are compared). */
#define TD_EST_CONDITIONS_REACH 2.0
#define TD_EST_EXTRAP_THIRDS 2
/* Natural conditions first: a replayed launch's quantity gives way to the
 * counter groups' (without replay) where this many launches of its size
 * and duration (within TD_EST_CONDITIONS_REACH octaves) measured it.
 * Against application replay on the H200's runs of 2026-11-29 one launch
 * took PyTorch 4.17 -> 1.90 points but put td_bfs's frontier_compact 9.4
 * points off kernel replay on an older run (one launch of a launch-varying
 * kernel stands for too little); two kept most of PyTorch's gain (2.21)
 * and td_bfs within 0.9 (docs/COLLECTION.md, "The estimator").
 * TD_EST_NATURAL_MIN is defined in metrics/result/result.h: the collector
 * takes as many (natural coverage, topdown/inject/group_sampler.h). */
/* A cold range (cold_ranges.h) whose launch was recorded this much of its
 * weight or less (launch_weights.h: it outlasted every like launch that
 * opened no session) ran slow as a whole: its level 1 is set aside with
 * one warm range of its size in its stratum, not two. td_manykernels'
 * bitonic_global (H200): the first group range after its replays, IPC
 * 0.31-0.39 where application replay gave 0.71-0.87, recorded 1.5-1.7x
 * its like launches, beside one warm range; Retire 3.2-6.3 points off
 * application replay in 21 stored runs, 0.1-3.0 in 15 of them with it set
 * aside, the other 6 as before (fourteenth session,
 * benchmarks/rejudge_stored.sh). */
#define TD_EST_SLOWED 0.8
/* Shares of a reason (of the warps' time) under this are left out of how
 * far replay and the counter groups part (levels/estimate.c, parted). */
#define TD_EST_PART_MIN 0.02
/* A kernel measured by kernel replay alone (no counter-group launch) has
 * no natural measurement to set against its replays: where the app's own
 * run is the reference (replay mode auto), its spread holds this many
 * times sqrt(v (1 - v)) per node of share v (levels/aggregate.c), what
 * replay and the app's own run differed by on the H200. td_libs' nineteen
 * replay-only kernels of >= 1% of GPU time, two runs against application
 * replay: 95% of node errors under 0.6, 2.0, 3.0 and 3.5 points for nodes
 * of 1-5, 5-20, 20-50 and 50-100% of the slots, up to 5.3 points, where
 * the spread was the floor's 0.75 (tenth session,
 * benchmarks/results/waves_NVIDIA_H200_2026-11-29/). */
#define TD_EST_REPLAY_ONLY 0.065
/* That term for a node of share v (0..1). */
double td_est_replay_only(double v);

/* One launch of the kernel (profiled or not) and its device section.
 * Two kinds of range run a cache cold, and the reasons that cache feeds
 * are set aside where the kernel has warm launches measuring them:
 * opens_session: a counter-group launch whose profiled predecessor on its
 * context measured another group or the full set, so it was the first
 * range of its group's session. Such a range runs its instruction fetch
 * cold: on the bundled runs it stalled on instruction fetch 0.12-0.25 of
 * its warps' time more than the same kernel's later samples of the group
 * (td_manykernels, every kernel; benchmarks/first_in_session.py). Set
 * aside where the kernel has later samples of the group; and it is
 * weighed as its like launches where its duration holds the session's
 * start (launch_weights.h).
 * opens_context: the context's first launch, profiled, which runs its
 * constant cache cold: in all 16 bundled runs where it differed from its
 * kernel's later replays, it stalled more on imc_miss (td_tiny 0.25 of its
 * warps' time, td_bfs 0.05-0.22, td_manykernels' init_uniform 0.04-0.09;
 * benchmarks/first_in_session.py --context), where a kernel's first launch
 * later in the run showed no such difference. Set aside where other
 * launches of the kernel measured it. */
typedef struct td_est_launch {
    const td_launch *launch;
    size_t dev;
    int opens_session;
    int opens_context;
    double duration_ns; /* what it is weighed by (launch_weights.h); 0: unknown */
    int cold_level1;    /* a range that ran cold as cold_ranges.h says: its level 1
                           is set aside where two warm ones of its size in its
                           stratum measured it */
} td_est_launch;

typedef struct td_estimate {
    td_breakdown mean;     /* the kernel's tree */
    td_breakdown spread;   /* half-width of the 95% interval, node by node */
    td_breakdown conditions; /* of it: how far the full set's launches and the
                                groups' disagree, node by node (0: not both) */
    int has_level1;        /* some profiled launch measured the issue counters */
    int split_measured;    /* every stall reason was measured by some launch */
    size_t reasons_measured, reasons_total;
    int per_warp;          /* stall reasons per warp active (else per active cycle) */
    double level1_elsewhere; /* share of the kernel's time whose level 1 came from
                                launches of another size, its class over
                                TD_EST_CONDITIONS_REACH octaves outside theirs:
                                its nodes can be anything there */
    double level1_other_kind; /* with level 1 from one duration class alone:
                                 share of the kernel's time in classes that
                                 measured other counter groups but not it,
                                 parted from every class that did by a gap
                                 over TD_EST_KIND_GAP (another kind of
                                 work): its nodes can be anything there */
} td_estimate;

/* The kernel of launches[0..n) (all its launches, in launch order), each
 * on device section launches[i].dev of devices, modelled with
 * models[kdev]/bindings[kdev] (launches of sections with another table are
 * left out by the caller). Fails only when out of memory. */
int td_estimate_kernel(const td_est_launch *launches, size_t n, const td_model *models,
                       const td_binding *bindings, const td_device *devices, size_t kdev,
                       td_estimate *out, td_error *err);

#endif
