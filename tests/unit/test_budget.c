/* The cost budget (topdown/inject/budget.c) with the choice of launches
 * (group_sampler.c) against a simulated GPU: the host queues launches (5 us
 * each, up to a queue of 1,024), the GPU runs them in order, and a sample
 * drains the queue, costs its profiling time, and waits for its launch.
 * A short GPU-bound run of one kernel (1,000 launches of 0.28 ms, as
 * td_phases2 on the H100) must get samples in every fifth of the run,
 * within the budget; the host's clock alone (inject.c before the GPU time
 * was counted) leaves its last third unsampled, as measured on the H100.
 * Whole runs of td_manykernels, td_bfs, td_phases2 and two kernels, with
 * measure_policy.c's decisions (sim_collect.h), before and after issue 22's
 * budget for moves: within the budget, samples in every third of the
 * heaviest kernels' runs. */
#include <string.h>

#include "../check.h"
#include "topdown/inject/budget.h"
#include "topdown/inject/group_sampler.h"
#include "metrics/xorshift.h"
#include "sim_collect.h"
#include "sim_queue.h"

enum { LAUNCHES = 1000, QUEUE = 1024, GROUPS = 5 };
#define KERNEL_S 0.28e-3
#define QUEUE_S 5e-6
#define SAMPLE_S 1.3e-3 /* a sample in an open session (H100) */
#define MOVE_S 12e-3    /* moving to another group's pass */
#define OVERHEAD 0.4
#define APP_START_S 0.2 /* the app's and CUDA's start before its first launch */

typedef struct run {
    sim_queue q;
    double finish[LAUNCHES];
    size_t samples, late; /* samples, and those in the last third */
    size_t per_fifth[5];  /* samples in each fifth of the run */
} run;

static void start_run(run *r)
{
    memset(r, 0, sizeof *r);
    r->q = (sim_queue){.host_s = APP_START_S, .gpu_free = APP_START_S, .finish = r->finish,
                       .depth = QUEUE, .queue_s = QUEUE_S};
}

/* One run; gpu_clock: the budget also counts the launches' GPU time. */
static double simulate(int gpu_clock, run *r)
{
    start_run(r);
    td_budget b = {.overhead = OVERHEAD};
    td_choose_kernel k;
    memset(&k, 0, sizeof k);
    k.covered = 1; /* replayed first, as in auto mode */
    int active = -1, known = 0;
    for (size_t i = 0; i < LAUNCHES; i++) {
        td_choice c = td_choose(&k, 10, GROUPS, active, 0);
        if (c.measure && !td_budget_allows(&b, r->q.host_s)) {
            td_choose_dropped(&k, 10, c.group);
            c.measure = 0;
        }
        if (gpu_clock)
            td_budget_launched(&b, r->q.host_s, known ? KERNEL_S : 0, known ? KERNEL_S : 0);
        if (!c.measure) {
            sim_queue_launch(&r->q, i, KERNEL_S);
            continue;
        }
        double cost = SAMPLE_S + (c.group != active ? MOVE_S : 0);
        b.spent_s += cost;
        sim_queue_sample(&r->q, i, KERNEL_S, cost);
        active = c.group;
        known = 1;
        r->samples++;
        r->late += i >= 2 * LAUNCHES / 3;
        r->per_fifth[i * 5 / LAUNCHES]++;
    }
    sim_queue_wait(&r->q, r->q.gpu_free); /* the app's final synchronisation */
    td_choose_free(&k);
    return r->q.host_s;
}

/* Two kernels, as td_manykernels' nbody_forces among short kernels: a
 * light one (5 us) launched nine times for every launch of a heavy one
 * (2 ms, 90% of the GPU time), each with its own choice state, charged
 * its own samples (td_budget_kernel_allows). The heavy kernel must get
 * samples in every third of its run, and the light one spend no more than
 * its share of the allowance and a sample; against the whole allowance
 * alone (as inject.c before the shares), the light kernel takes most. */
static void check_shares(int shares)
{
    enum { STEPS = 3000 };
    static double finish[STEPS];
    sim_queue q = {.host_s = APP_START_S, .gpu_free = APP_START_S, .finish = finish,
                   .depth = QUEUE, .queue_s = QUEUE_S};
    td_budget b = {.overhead = OVERHEAD};
    td_choose_kernel k[2];
    memset(k, 0, sizeof k);
    k[0].covered = k[1].covered = 1;
    double spent[2] = {0, 0}, gpu[2] = {0, 0};
    size_t thirds[2][3] = {{0}}, samples[2] = {0, 0};
    int active = -1;
    for (size_t i = 0; i < STEPS; i++) {
        int heavy = i % 10 == 9;
        double run_s = heavy ? 2e-3 : 5e-6;
        td_choice c = td_choose(&k[heavy], 10, GROUPS, active, 0);
        int ok = c.measure && (shares ? td_budget_kernel_allows(&b, q.host_s, spent[heavy],
                                                                gpu[heavy])
                                      : td_budget_allows(&b, q.host_s));
        if (c.measure && !ok)
            td_choose_dropped(&k[heavy], 10, c.group);
        gpu[heavy] += i >= 10 ? run_s : 0; /* known after each kernel's first launch */
        td_budget_launched(&b, q.host_s, i >= 10 ? run_s : 0, i >= 10 ? run_s : 0);
        if (!ok) {
            sim_queue_launch(&q, i, run_s);
            continue;
        }
        double cost = SAMPLE_S + (c.group != active ? MOVE_S : 0);
        b.spent_s += cost;
        b.samples++;
        spent[heavy] += cost;
        sim_queue_sample(&q, i, run_s, cost);
        active = c.group;
        samples[heavy]++;
        thirds[heavy][i * 3 / STEPS]++;
    }
    double allowance = td_budget_allowance(&b, q.host_s);
    printf("two kernels, %s: heavy %zu samples (thirds %zu %zu %zu), light %zu; light spent "
           "%.3f s of an allowance of %.3f s\n", shares ? "each its share" : "the whole budget",
           samples[1], thirds[1][0], thirds[1][1], thirds[1][2], samples[0], spent[0], allowance);
    if (shares) {
        for (int t = 0; t < 3; t++)
            CHECK(thirds[1][t] >= 3);
        CHECK(spent[0] <= 0.1 * allowance + SAMPLE_S + MOVE_S + TD_BUDGET_SAMPLE_S);
        CHECK(samples[1] > samples[0]);
    } else {
        CHECK(samples[0] > samples[1]); /* what the shares are for */
    }
    td_choose_free(&k[0]);
    td_choose_free(&k[1]);
}

/* ---- whole runs (sim_collect.h) ------------------------------------------ */

static uint32_t sim_rng = 1;

/* A factor in [1 - spread, 1 + spread]. */
static double jitter(double spread)
{
    return 1.0 + spread * ((double)(td_xorshift32(&sim_rng) % 2001) / 1000.0 - 1.0);
}

static size_t add_launch(sim_launch *ls, size_t n, unsigned kernel, double gpu_s, double threads,
                         double host_s)
{
    ls[n] = (sim_launch){kernel, gpu_s, threads, host_s, 0};
    return n + 1;
}

/* As td_manykernels --steps 20 --rare-every 10 on the H200: 1,635 launches
 * of 85 kernels, 7 ms of GPU time, ~12 ms of host time in the loop, 0.56 s
 * of start-up. Kernel 4: nbody_forces (20 launches, 56% of the GPU time),
 * 5 and 6: the tiled GEMMs (40 launches each, 6%), 7: the fp64 GEMM (60,
 * 2.5%), 8: adam (20), 70: bitonic_global (72 launches, in the rare
 * passes); the others ~1.3 us. A kernel's first launch loads its module
 * (50 us of the app's host time); each step ends reading its losses. */
static size_t manykernels(sim_launch *ls)
{
    size_t n = 0;
    for (unsigned k = 0; k < 16; k++)
        n = add_launch(ls, n, k % 4, 2e-6, 65536, k < 4 ? 5e-5 : 5e-6);
    for (int step = 0; step < 20; step++) {
        double load = step == 0 ? 5e-5 : 0;
        n = add_launch(ls, n, 4, 195e-6 * jitter(0.05), 8192, 2e-6 + load);
        for (int rep = 0; rep < 2; rep++) {
            n = add_launch(ls, n, 5, 11.6e-6 * jitter(0.05), 65536, 2e-6 + (rep ? 0 : load));
            n = add_launch(ls, n, 6, 10.7e-6 * jitter(0.05), 65536, 2e-6 + (rep ? 0 : load));
        }
        for (int rep = 0; rep < 3; rep++)
            n = add_launch(ls, n, 7, 2.9e-6 * jitter(0.1), 16384, 2e-6 + (rep ? 0 : load));
        n = add_launch(ls, n, 8, 5.3e-6 * jitter(0.1), 65536, 2e-6 + load);
        for (unsigned k = 9; k < 70; k++) /* 61 kernels, 66 launches */
            for (int rep = 0; rep < (k < 14 ? 2 : 1); rep++)
                n = add_launch(ls, n, k, 1.3e-6 * jitter(0.2), 4096, 2e-6 + (rep ? 0 : load));
        ls[n - 1].sync = 1;
        if ((step + 1) % 10 == 0) /* the rare pass: 36 bitonic passes, 11 more kernels */
            for (int j = 0; j < 66; j++) {
                unsigned k = j < 36 ? 70 : 71 + (unsigned)(j - 36) % 11;
                int first = step == 9 && (j == 0 || (j >= 36 && j < 47));
                n = add_launch(ls, n, k, 1.3e-6 * jitter(0.2), 16384, 2e-6 + (first ? 5e-5 : 0));
            }
    }
    for (unsigned j = 0; j < 7; j++)
        n = add_launch(ls, n, 82 + j % 3, 1.5e-6, 4096, j < 3 ? 5e-5 : 2e-6);
    ls[n - 1].sync = 1;
    return n;
}

/* As td_bfs: 24 searches of 7 levels after a 1.5 s graph build, each level
 * bfs_topdown (kernel 0: one warp per frontier vertex, 1.3 us to 2.2 ms,
 * 90% of the GPU time) and frontier_compact (kernel 1: 7 to 160 us), then
 * the frontier's size read back (the host waits). On the H200 the samples
 * of launches 17-72 came one after another, as if the allowance then held
 * about half the run's: 0.1 s of the app's time after the second search's
 * first level stands for it. A sample costs 4 ms (H200: 0.42 s of sampling
 * for 53 group samples, 11 of them moves). With the rules before, the run
 * gives 0.41 s of sampling, 66 samples, bfs_topdown's thirds 42, 12, 8
 * (H200: 32, 8, 1). */
static size_t bfs(sim_launch *ls)
{
    static const double frontier[7] = {1e-6, 1e-4, 0.02, 0.6, 1.0, 0.08, 1e-3};
    static const double compact_us[7] = {7.4, 8, 40, 160, 160, 40, 8};
    size_t n = 0;
    for (int src = 0; src < 24; src++)
        for (int lvl = 0; lvl < 7; lvl++) {
            double f = frontier[lvl] * jitter(0.5);
            n = add_launch(ls, n, 0, 1.3e-6 + 2.2e-3 * f, 32.0 * (1.0 + 2e6 * f), 10e-6);
            n = add_launch(ls, n, 1, compact_us[lvl] * 1e-6 * jitter(0.1), 1056 * 256, 2e-6);
            ls[n - 1].sync = 1;
            if (src == 1 && lvl == 0)
                ls[n - 1].host_s += 0.1;
        }
    return n;
}

/* As td_phases2: 1,000 launches of one kernel alternating a compute phase
 * (0.24 ms) and a memory phase (0.32 ms) every 50 launches, after 0.2 s. */
static size_t phases(sim_launch *ls)
{
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        n = add_launch(ls, n, 0, ((i / 50) % 2 ? 0.32e-3 : 0.24e-3) * jitter(0.02), 1 << 20, 0);
    return n;
}

/* As check_shares: a light kernel (5 us) launched nine times for every
 * launch of a heavy one (2 ms). */
static size_t two_kernels(sim_launch *ls)
{
    size_t n = 0;
    for (int i = 0; i < 3000; i++)
        n = add_launch(ls, n, i % 10 == 9, i % 10 == 9 ? 2e-3 : 5e-6, 1024, 0);
    return n;
}

enum { SEEDS = 8, MAX_SHOWN = 6 };

typedef struct whole {
    const char *what;
    size_t (*stream)(sim_launch *ls);
    double start_s, sample_s;
    unsigned shown[MAX_SHOWN]; /* the kernels printed */
    size_t n_shown, n_checked; /* the first n_checked: >= min_third samples in each third */
    size_t min_third;
    int all_groups; /* the first kernel: every group in each duration class */
} whole;

typedef struct outcome {
    size_t min_third[MAX_SHOWN], empty[MAX_SHOWN], missing, samples, moves;
    double unsampled[MAX_SHOWN], over; /* the most spent over the allowance */
    int within;                        /* every seed within the budget */
} outcome;

/* SEEDS runs of w's stream, before (the rules before) or after; the first
 * seed's kernels printed. */
static outcome run_whole(const whole *w, int before)
{
    static sim_launch ls[4096];
    static signed char measured[4096];
    outcome o;
    memset(&o, 0, sizeof o);
    o.within = 1;
    for (size_t h = 0; h < MAX_SHOWN; h++)
        o.min_third[h] = (size_t)-1;
    for (uint32_t seed = 1; seed <= SEEDS; seed++) {
        sim_rng = seed * 2654435761u;
        sim_run r = {.launches = ls, .n = w->stream(ls), .start_s = w->start_s,
                     .overhead = OVERHEAD, .sample_s = w->sample_s, .before = before,
                     .measured = measured};
        sim_collect(&r);
        double over = r.spent_s / r.allowance_s;
        o.over = over > o.over ? over : o.over;
        o.within &= r.spent_s <= 1.1 * r.allowance_s + r.sample_s + SIM_SAMPLE_S + SIM_MOVE_S &&
                    r.wall_s - r.once_s <= r.native_s * (1 + OVERHEAD) * 1.1;
        o.samples += r.samples;
        o.moves += r.moves;
        if (seed == 1)
            printf("%s, %s: %zu samples (%zu moves), sampling %.4f s of an allowance of %.4f s\n",
                   w->what, before ? "before" : "after", r.samples, r.moves, r.spent_s,
                   r.allowance_s);
        for (size_t h = 0; h < w->n_shown; h++) {
            sim_thirds t = sim_kernel_thirds(&r, w->shown[h]);
            for (int th = 0; th < 3; th++) {
                o.min_third[h] = t.per_third[th] < o.min_third[h] ? t.per_third[th]
                                                                   : o.min_third[h];
                o.empty[h] += t.per_third[th] == 0;
            }
            o.unsampled[h] += t.unsampled / SEEDS;
            o.missing += h == 0 ? t.missing : 0;
            if (seed == 1)
                printf("  kernel %u (%.1f%% of the GPU time, %zu launches): measured per third "
                       "%zu %zu %zu, per group %zu %zu %zu %zu %zu; %.0f%% of its time in "
                       "strata without one\n", w->shown[h], 100 * t.share, t.launches,
                       t.per_third[0], t.per_third[1], t.per_third[2], t.per_group[0],
                       t.per_group[1], t.per_group[2], t.per_group[3], t.per_group[4],
                       100 * t.unsampled);
        }
    }
    printf("  %d seeds: %zu samples, %zu moves; sampling at most %.2fx the allowance; "
           "(class, group) pairs unmeasured %.1f; per kernel the fewest in a third, empty "
           "thirds, time unsampled:", SEEDS, o.samples / SEEDS, o.moves / SEEDS, o.over,
           (double)o.missing / SEEDS);
    for (size_t h = 0; h < w->n_shown; h++)
        printf(" %u: %zu, %zu, %.0f%%;", w->shown[h], o.min_third[h], o.empty[h],
               100 * o.unsampled[h]);
    printf("\n");
    return o;
}

/* Whole runs of the apps issue 22 measured, before and after the budget
 * paid moves from a quarter of each kernel's share and held all kernels
 * to the allowance: each run stays within its budget, the heaviest kernels
 * get samples in every third of their runs, and td_phases2 every counter
 * group in both phases. */
static void whole_runs(void)
{
    static const whole runs[] = {
        {"two kernels", two_kernels, APP_START_S, 0, {1}, 1, 1, 3, 0},
        {"td_manykernels", manykernels, 0.56, 0, {4, 70, 5, 6, 7, 8}, 6, 1, 2, 0},
        {"td_bfs", bfs, 1.5, 4e-3, {0, 1}, 2, 2, 1, 0},
        {"td_phases2", phases, APP_START_S, 0, {0}, 1, 1, 2, 1},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        const whole *w = &runs[i];
        outcome before = run_whole(w, 1), after = run_whole(w, 0);
        size_t empty_before = 0, empty_after = 0;
        for (size_t h = 0; h < w->n_shown; h++)
            empty_before += before.empty[h], empty_after += after.empty[h];
        CHECK(after.within);
        for (size_t h = 0; h < w->n_checked; h++)
            CHECK(after.min_third[h] >= w->min_third);
        CHECK(!w->all_groups || after.missing == 0);
        CHECK(empty_after <= empty_before);
        if (i == 1) /* the kernels' slack spent past the allowance, their thirds empty
                       (half as many since the choice moves the rotation forward only) */
            CHECK(!before.within && empty_after < empty_before);
    }
}

/* td_budget_launched takes the change in the GPU time queued: a
 * correction from the activity records (kernel_times.h) shrinks it, never
 * below 0. */
static void check_gpu_corrections(void)
{
    td_budget b = {.overhead = OVERHEAD};
    td_budget_launched(&b, 1.0, 2.0, 4.0);
    td_budget_launched(&b, 1.0, -1.5, -1.0);
    CHECK_NEAR(b.gpu_s, 0.5, 1e-12);
    td_budget_launched(&b, 1.0, -10.0, -10.0);
    CHECK(b.gpu_s == 0);
    td_budget_launched(&b, 1.0, 0.0 / 0.0, 0.0 / 0.0); /* not a number: ignored */
    CHECK(b.gpu_s == 0);
    CHECK(b.share_gpu_s == 0);
}

/* The app's GPU time (gpu_s, in waves) sets the allowance; a kernel's
 * share is of share_gpu_s (per thread): 5 s of 10 is half, whatever
 * gpu_s says. */
static void check_share_of_share_gpu(void)
{
    td_budget b = {.overhead = OVERHEAD};
    td_budget_launched(&b, 0.0, 0.0, 0.0);
    td_budget_launched(&b, 0.0, 0.1, 10.0);
    CHECK_NEAR(b.gpu_s, 0.1, 1e-12);
    CHECK_NEAR(b.share_gpu_s, 10.0, 1e-12);
    double now = 100.0, allowance = td_budget_allowance(&b, now);
    CHECK(allowance > 1.0);
    CHECK(td_budget_kernel_allows(&b, now, 0.4 * allowance, 5.0));
    CHECK(!td_budget_kernel_allows(&b, now, 0.6 * allowance, 5.0)); /* of gpu_s: 50x, allowed */
}

int main(void)
{
    check_gpu_corrections();
    check_share_of_share_gpu();
    whole_runs();
    static run native, host, gpu;
    start_run(&native);
    for (size_t i = 0; i < LAUNCHES; i++)
        sim_queue_launch(&native.q, i, KERNEL_S);
    sim_queue_wait(&native.q, native.q.gpu_free);
    double host_s = simulate(0, &host), gpu_s = simulate(1, &gpu);
    check_shares(0);
    check_shares(1);
    printf("native %.3f s; host clock: %.3f s, %zu samples, %zu in the last third; "
           "with GPU time: %.3f s, %zu samples, %zu in the last third\n",
           native.q.host_s, host_s, host.samples, host.late, gpu_s, gpu.samples, gpu.late);
    CHECK(host.late == 0);                      /* the failure measured on the H100 */
    printf("samples per fifth of the run, with GPU time: %zu %zu %zu %zu %zu\n", gpu.per_fifth[0],
           gpu.per_fifth[1], gpu.per_fifth[2], gpu.per_fifth[3], gpu.per_fifth[4]);
    /* paced by the budget: the app's start pays at most TD_BUDGET_START_PACE
     * times as fast as the launches, so it is not all spent at once, and
     * none of the run is left out */
    for (int f = 0; f < 5; f++)
        CHECK(gpu.per_fifth[f] >= 2 && gpu.per_fifth[f] * 3 <= gpu.samples * 2);
    CHECK(gpu_s <= native.q.host_s * (1 + OVERHEAD) * 1.1);   /* within the budget */
    /* Tracing (our launch callbacks for launches not sampled) is not the
     * app's own time: with half the host time in them, the app's time is
     * the other half, and the allowance follows it. */
    td_budget traced = {.overhead = OVERHEAD, .traced_s = 0.5};
    double traced_native = td_budget_native(&traced, 1.0);
    CHECK(traced_native > 0.5 - 1e-12 && traced_native < 0.5 + 1e-12);
    CHECK(td_budget_allowance(&traced, 1.0) < OVERHEAD * 0.5 + 1e-12);
    traced.traced_s = 0;
    CHECK(td_budget_native(&traced, 1.0) > 1.0 - 1e-12);
    /* Shares: a kernel of 10% of the GPU time may spend 10% of the
     * allowance and one sample, a sample of the mean cost paid first. */
    td_budget shared = {.overhead = OVERHEAD};
    td_budget_launched(&shared, 1.0, 0, 0);
    td_budget_launched(&shared, 1.0, 1.0, 1.0); /* 1 s of GPU time queued */
    double allowance = td_budget_allowance(&shared, 1.0);
    CHECK(allowance > 0.3);
    shared.spent_s = 0.5 * allowance;
    CHECK(td_budget_kernel_allows(&shared, 1.0, 0.1 * allowance, 0.1));
    shared.samples = 10; /* a sample costs 5% of the allowance */
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0.1 * allowance, 0.1));
    CHECK(td_budget_kernel_allows(&shared, 1.0, 0.05 * allowance, 0.1));
    CHECK(td_budget_kernel_allows(&shared, 1.0, 0.8 * allowance, 0.9));
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0.9 * allowance, 0.9));
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0, 0.001)); /* < 1%: no slack */
    CHECK(td_budget_kernel_allows(&shared, 1.0, 1.0, 0)); /* its time not known yet */
    shared.spent_s = 1.1 * allowance;
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0, 0)); /* nor then past the budget */
    /* All kernels within the allowance, whatever their shares and slack. */
    shared.spent_s = allowance;
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0, 0.9));
    /* Moves: a kernel's, TD_BUDGET_MOVE_S each, within TD_BUDGET_MOVE_SHARE
     * of its share of the allowance. */
    unsigned paid = (unsigned)(TD_BUDGET_MOVE_SHARE * 0.9 * allowance / TD_BUDGET_MOVE_S);
    CHECK(paid >= 2);
    CHECK(td_budget_kernel_may_move(&shared, 1.0, 0.9, paid - 1));
    CHECK(!td_budget_kernel_may_move(&shared, 1.0, 0.9, paid));
    CHECK(!td_budget_kernel_may_move(&shared, 1.0, 0.001, 0)); /* 0.1% of the GPU time */
    CHECK(td_budget_kernel_may_move(&shared, 1.0, 0, 100));    /* its time not known yet */
    /* TOPDOWN_BUDGET_ALL: set-up, coverage and tracing spend the
     * allowance too; without it they are on neither side. */
    td_budget all = {.overhead = OVERHEAD};
    td_budget_launched(&all, 1.0, 0, 0);
    td_budget_launched(&all, 1.0, 1.0, 1.0);
    double all_allowance = td_budget_allowance(&all, 1.0);
    all.once_s = 0.8 * all_allowance;
    all.traced_s = 0.01;
    all_allowance = td_budget_allowance(&all, 1.0); /* the app's time less them */
    all.spent_s = 0.3 * all_allowance;
    CHECK(td_budget_allows(&all, 1.0) && td_budget_kernel_allows(&all, 1.0, 0, 0.5));
    CHECK_NEAR(td_budget_spent(&all), all.spent_s, 1e-12);
    all.counts_all = 1;
    CHECK_NEAR(td_budget_spent(&all), all.spent_s + all.once_s + 0.01, 1e-12);
    CHECK(!td_budget_allows(&all, 1.0) && !td_budget_kernel_allows(&all, 1.0, 0, 0.5));
    all.spent_s = 0;
    CHECK(td_budget_allows(&all, 1.0));
    /* no budget: every sample allowed */
    td_budget none = {0};
    none.spent_s = 1e9;
    CHECK(td_budget_allows(&none, 0));
    CHECK(td_budget_kernel_may_move(&none, 0, 1.0, 1000));
    return td_check_summary();
}
