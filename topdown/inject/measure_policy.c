/* What each launch measures: replay of the full set, a counter group
 * (group_sampler.h) under the budget (budget.h) or --sample-every's points, or
 * nothing; and the device-heap check that turns replay off. */
#include <stdlib.h>
#include <string.h>

#include "metrics/result/result.h" /* TD_EST_NATURAL_MIN */
#include "topdown/inject/debug.h"
#include "topdown/inject/group_sampler.h"
#include "topdown/inject/kernel_times.h"
#include "topdown/inject/measure_policy.h"
#include "topdown/inject/spool_writer.h"

/* ---- the device heap ------------------------------------------------------ */

/* GPU code that calls malloc/free (device_heap.h) changes the device heap,
 * which kernel replay does not restore: a replayed create_world<<<1,1>>>
 * leaves later kernels with bad pointers. A module whose cubin links
 * malloc or free therefore turns replay off for the process. */
static void say_no_replay_for_heap(void)
{
    if (td_g.heap_said++)
        return;
    td_sw_warning("the app's GPU code allocates from the device heap (malloc, free, new or "
                  "delete in a kernel), which kernel replay cannot repeat faithfully: no "
                  "launch is replayed%s", td_g.mode == TD_REPLAY_KERNEL
                  ? ", and --replay-mode kernel leaves its launches timed only; use "
                    "--replay-mode auto or none" : "; kernels launched too few times for "
                    "every counter group show the stall reasons they measured");
}

/* ---- what to measure ---------------------------------------------------- */

/* Which configuration measures a launch. A kernel the mode wants replayed
 * (auto: its first launch; kernel: every launch) takes the full set; else
 * the choice (group_sampler.h) spreads each kernel's counter groups over its size
 * classes and its whole run, for the estimator (levels/estimate.h). */
static int wants_replay(ctx_state *c, const td_kernel *k)
{
    if (!c->has_full || k->no_replay)
        return 0;
    if (td_g.device_heap) {
        say_no_replay_for_heap();
        return 0;
    }
    return td_g.mode == TD_REPLAY_KERNEL || c->n_group_cfg == 0 ||
           (td_g.mode == TD_REPLAY_AUTO && !progress_of(c, k)->full_measured);
}

/* Launches without a new kernel after which the context leaves the
 * replay's profiler object for the rotation. */
#define TD_RETURN_AFTER 16
/* A kernel's launches replayed as coverage while the context stays on the
 * replay's object (TOPDOWN_COVER_LAUNCHES sets it). Tried on the H100:
 * only launches of 0.5 ms or more (PyTorch, 87 replays -> 46, 2 s less),
 * but td_bfs, td_stencil and td_manykernels then missed the truth bar (28,
 * 3.7 and 7.4 points). */
#define TD_COVER_LAUNCHES 4

static long cover_launches(void)
{
    return td_g.opts.cover_launches >= 0 ? td_g.opts.cover_launches : TD_COVER_LAUNCHES;
}

/* Counter-group samples of each group a kernel covered by replay still
 * takes (group_sampler.h, natural coverage): TD_EST_NATURAL_MIN, what the
 * estimator needs to set the replay's quantity aside; TOPDOWN_NATURAL_MIN
 * sets it (0: none, as before). */
static uint32_t natural_min(void)
{
    long n = td_g.opts.natural_min >= 0 ? td_g.opts.natural_min : TD_EST_NATURAL_MIN;
    return n > 1000 ? 1000 : (uint32_t)n;
}

static double kernel_gpu_s(const td_kernel *k);

/* What the kernel owes (TOPDOWN_NATURAL's rule, collect_opts.h): outside
 * the budget only a kernel of TD_BUDGET_SLACK_SHARE of the GPU time or more
 * (or whose share is not known yet) owes it; natural coverage of every
 * kernel took td_manykernels' 85 kernels 730 samples, 2.7 s (H200). */
static uint32_t natural_owed(const td_kernel *k)
{
    if (td_g.opts.natural_rule != TD_NATURAL_SHARE || !(td_g.budget.share_gpu_s > 0))
        return natural_min();
    return kernel_gpu_s(k) / td_g.budget.share_gpu_s >= TD_BUDGET_SLACK_SHARE ? natural_min()
                                                                             : 0;
}

/* Refusals the debug log tells, before it stops telling them. */
#define TD_BUDGET_DEBUG_LINES 1000

/* The kernel's GPU time for its share of the budget: its queued launches'
 * estimate, or, while that is 0 (its launches came before its first
 * measured duration: the replay), one launch of its mean measured
 * duration. With 0, the launch after each kernel's replay was sampled
 * against the whole allowance (test_budget's td_manykernels). */
static double kernel_gpu_s(const td_kernel *k)
{
    if (k->gpu_est_s > 0 || k->durations <= 0)
        return k->gpu_est_s;
    return k->duration_sum / (double)k->durations * 1e-9;
}

/* The cost budget (budget.c): profile while the time spent sampling stays
 * within --overhead of the app's own time so far. Set-up and each kernel's
 * coverage are paid once whatever is sampled, so they are on neither side
 * (issue 23: in-loop slowdown). */
static int budget_allows(const td_kernel *k)
{
    if (!td_g.budgeted)
        return 1;
    double now = now_s(), gpu = kernel_gpu_s(k);
    int allowed = td_budget_kernel_allows(&td_g.budget, now, k->budget_spent_s, gpu);
    if (td_debug_on() && td_g.budget_skipped < TD_BUDGET_DEBUG_LINES)
        td_debug("inject", "budget at launch %ld: %s; spent %.4f s of %.4f s (native %.4f s, "
                 "at the first launch %.4f s; once %.4f s, at %.4f s); %s: spent %.4f s, "
                 "GPU %.4f s of %.4f s (%s; %llu records in all)", td_g.launches,
                 allowed ? "sample" : "no",
                 td_budget_spent(&td_g.budget), td_budget_allowance(&td_g.budget, now),
                 td_budget_native(&td_g.budget, now), td_g.budget.gpu_from_s, td_g.budget.once_s,
                 now - td_g.budget.start_s, k->name, k->budget_spent_s, gpu,
                 td_g.budget.share_gpu_s, k->times ? "from its records" : "no record of it yet",
                 (unsigned long long)td_ktimes_records());
    if (allowed) {
        td_g.budget.samples++;
        return 1;
    }
    td_g.budget_skipped++;
    return 0;
}

/* A one-time cost (set-up: *where is setup_s; a kernel's coverage:
 * coverage_s), kept apart for the result and left out of the budget. */
void pay_once(double *where, double s)
{
    *where += s;
    td_g.budget.once_s += s;
}

/* 1: the profiler holds the replay's object and new kernels keep coming.
 * A group's sample would need a fresh rotation object (coverage's cost,
 * ~0.2 s), and the next new kernel the replay's again: PyTorch's first
 * step paid 46 such round trips, 9.6 s (H200). */
static int staying_on_replay(const ctx_state *c)
{
    return c->has_rotation && c->rp.active == &c->full &&
           td_g.launches - td_g.new_kernel_launch < TD_RETURN_AFTER;
}

/* One launch of the kernel of `threads`, ns (0: not known yet), from its
 * profiled launches, whose ranges hold their own cost (td_tiny on the
 * H200: 1.10 s of GPU time counted for 96 ms run), scaled by
 * td_launch_scaled_ns (full: 0, per thread; else in waves of full
 * threads): before its activity records came, or always with
 * TOPDOWN_BUDGET_RANGES (for comparisons); with TOPDOWN_BUDGET_PER_THREAD,
 * at the records' time per thread. */
static double launch_est_ns(const td_kernel *k, double threads, double full)
{
    if (td_g.opts.budget_per_thread && !td_g.opts.budget_ranges) {
        double from_records = td_ktimes_ns_per_thread(k->times);
        if (from_records > 0)
            return from_records * threads;
    }
    if (!k->durations || !(k->thread_sum > 0))
        return 0;
    double each = (double)k->durations;
    return td_launch_scaled_ns(k->duration_sum / each, k->thread_sum / each, threads, full);
}

/* The GPU time of a kernel's launches queued: per thread (its share) and
 * in waves (the app's time). */
typedef struct queued_est {
    double per_thread_s, waves_s;
} queued_est;

/* The GPU time of the kernel's launches queued so far, this one included:
 * from its activity records once they came (td_ktimes_queued_ns, by
 * launch size), else the running sum of each launch's estimate from its
 * kernel's profiled launches (0 until one was known): a kernel's
 * launches can differ a thousandfold (td_bfs: 2 us to 2 ms, with the
 * frontier), and its first launches are often its smallest.
 *
 * Two prices. The app's GPU time, which sets the allowance, is priced in
 * waves of the device: per thread, td_sort's 240 launches counted 15.1 s
 * for a 0.06 s run and allowed 6.3 s of sampling (H200), as no activity
 * record comes back before exit on CUDA 13.0's CUPTI (2026-11-29, tenth
 * session). The kernels' shares stay priced per thread: in waves, the
 * shares of PyTorch's kernels of big tensors fell, and its worst node
 * against application replay went from 1.9-2.4 points to 6.2-11.7 in
 * three runs each (benchmarks/results/waves_NVIDIA_H200_2026-11-29/). */
static queued_est kernel_queued(td_kernel *k, const launch_rec *l)
{
    double threads = td_launch_threads(l->grid, l->block);
    if (!k->times) {
        size_t recorded = td_ktimes_kernels();
        if (k->times_looked != recorded) {
            k->times_looked = recorded;
            k->times = td_ktimes_find(k->mangled);
        }
    }
    queued_est running = {k->gpu_est_s + launch_est_ns(k, threads, 0) * 1e-9,
                          k->gpu_wave_s + launch_est_ns(k, threads, td_g.full_threads) * 1e-9};
    if (td_g.opts.budget_ranges || td_g.opts.budget_per_thread)
        return running;
    if (!k->queued)
        k->queued = calloc(TD_KTIME_CLASSES, sizeof *k->queued);
    if (!k->queued)
        return running;
    td_kqueued *cls = &k->queued[td_threads_size_class(threads) % TD_KTIME_CLASSES];
    cls->launches++;
    cls->threads += threads;
    double per_thread = td_ktimes_queued_ns(k->times, k->queued, 0) * 1e-9;
    double waves = td_ktimes_queued_ns(k->times, k->queued, td_g.full_threads) * 1e-9;
    return (queued_est){per_thread > 0 ? per_thread : running.per_thread_s,
                        waves > 0 ? waves : running.waves_s};
}

/* A launch was queued: the budget counts its kernel's GPU time queued, the
 * change in its estimate. */
void budget_count_launch(const launch_rec *l)
{
    td_kernel *k = l->kernel;
    double grew = 0, share_grew = 0;
    if (k) {
        queued_est now = kernel_queued(k, l);
        grew = now.waves_s - k->gpu_wave_s;
        share_grew = now.per_thread_s - k->gpu_est_s;
        k->gpu_wave_s = now.waves_s;
        k->gpu_est_s = now.per_thread_s;
    }
    td_budget_launched(&td_g.budget, now_s(), grew, share_grew);
}

/* The counter group the context's profiler is configured for, -1: none. */
int active_group(const ctx_state *c)
{
    if (rotating(c))
        return (int)c->rp.pass;
    for (size_t gi = 0; gi < c->n_group_cfg; gi++)
        if (c->rp.active == &c->group_cfg[gi])
            return (int)gi;
    return -1;
}

/* --sample-every: the kernel's periodic points decide (sample_policy.h),
 * each a burst of consecutive launches covering every counter group, or
 * one replayed launch of the full set. */
static int choose_sampled(ctx_state *c, td_kernel *k, int *group)
{
    double est_ns = k->durations ? k->duration_sum / (double)k->durations : 0;
    int wanted;
    if (!td_sample_decide(&td_g.sample, &k->sample, c->n_group_cfg, active_group(c), est_ns,
                          &wanted))
        return 0;
    *group = wants_replay(c, k) ? TD_GROUP_ALL : wanted;
    if (*group != TD_GROUP_ALL && c->n_group_cfg == 0)
        return 0;
    td_sample_taken(&k->sample, c->n_group_cfg, *group);
    return 1;
}

/* A run of --replay-mode application measures every launch (a graph
 * launch too) with its one group; the launcher joins the runs. */
static int app_pass_group(const ctx_state *c, int *group)
{
    *group = (int)td_g.opts.app_pass;
    return (size_t)td_g.opts.app_pass < c->n_group_cfg;
}

/* TOPDOWN_NATURAL_IDLE, else TD_CHOOSE_NATURAL_IDLE (group_sampler.h). */
static uint64_t natural_idle(void)
{
    long idle = td_g.opts.natural_idle;
    return idle >= 0 ? (uint64_t)idle : TD_CHOOSE_NATURAL_IDLE;
}

/* TOPDOWN_NATURAL_DEFER (an arm, group_sampler.h), else 0: no limit. */
static uint32_t natural_defer(void)
{
    long defer = td_g.opts.natural_defer;
    return defer < 0 ? 0 : defer > 1000 ? 1000 : (uint32_t)defer;
}

/* TOPDOWN_HEAVY_PCT (0-100), else TD_CHOOSE_HEAVY_PCT (group_sampler.h). */
static uint32_t heavy_pct(void)
{
    long pct = td_g.opts.heavy_pct;
    return pct < 0 ? TD_CHOOSE_HEAVY_PCT : pct > 100 ? 100 : (uint32_t)pct;
}

/* TOPDOWN_RENEW, else TD_CHOOSE_RENEW (group_sampler.h). */
static uint64_t renew_launches(void)
{
    long renew = td_g.opts.renew_launches;
    return renew >= 0 ? (uint64_t)renew : TD_CHOOSE_RENEW;
}

/* The rotation's clock for natural samples (group_sampler.h): it restarts
 * when the configured group serves an owed natural sample, or when a
 * sample moves the rotation (the kernels owing the new group get their
 * turn). */
static void natural_served(ctx_state *c, td_choice ch)
{
    if (ch.natural || ch.group != active_group(c))
        c->natural_served_at = (uint64_t)td_g.launches;
}

/* The choice for a launch of this size (a graph launch: size class 0),
 * under the budget; a kernel lacking a group is measured whatever the
 * budget (coverage first). */
int choose_group(ctx_state *c, td_kernel *k, unsigned size_class, int *group)
{
    if (td_g.opts.app_pass >= 0)
        return app_pass_group(c, group);
    td_kernel_progress *progress = progress_of(c, k);
    td_choose_kernel *state = &progress->choose;
    state->covered = progress->full_measured;
    state->natural = natural_owed(k);
    state->natural_budgeted = td_g.opts.natural_rule == TD_NATURAL_BUDGET;
    state->heavy_pct = heavy_pct();
    state->renew = renew_launches();
    state->natural_defer = natural_defer();
    state->natural_waits = !td_choose_natural_may_move((uint64_t)td_g.launches,
                                                       c->natural_served_at, natural_idle());
    state->stay = td_g.budgeted && !td_budget_kernel_may_move(&td_g.budget, now_s(),
                                                             kernel_gpu_s(k), state->moves);
    /* no budget (--overhead unlimited, or counts asked): every launch */
    td_choice ch = td_choose(state, size_class, c->n_group_cfg, active_group(c), !td_g.budgeted);
    if (!ch.measure)
        return 0;
    /* natural coverage waits for the rotation: on the replay's object it
     * would cost a fresh rotation object for one sample */
    if (ch.coverage && !(ch.natural && staying_on_replay(c))) {
        td_g.launch_covers = 1;
        *group = ch.group;
        natural_served(c, ch);
        return 1;
    }
    if (staying_on_replay(c)) {
        /* The group is not measured now; it comes at a later launch. A
         * kernel's first launches, while new kernels keep coming, are
         * replayed as coverage (td_bench, td_few: every launch, as the
         * truth). Later launches wait for the rotation: a budgeted replay
         * costs 25 ms (td_stencil, H200), 20 samples in the rotation.
         * Without a budget they are replayed. */
        td_choose_dropped(state, size_class, ch.group);
        if (k->no_replay || td_g.device_heap)
            return 0;
        int covering = progress->profiled < cover_launches();
        if (!covering && td_g.budgeted)
            return 0;
        td_g.launch_covers = covering;
        *group = TD_GROUP_ALL;
        return 1;
    }
    if (!budget_allows(k)) {
        td_choose_dropped(state, size_class, ch.group);
        return 0;
    }
    *group = ch.group;
    natural_served(c, ch);
    return 1;
}

/* 1 and the configuration if this launch is to be profiled. */
int choose_config(ctx_state *c, td_kernel *k, const launch_rec *l, int *group)
{
    if (td_g.opts.app_pass >= 0)
        return app_pass_group(c, group);
    if (td_g.sample.unit != TD_SAMPLE_OFF)
        return choose_sampled(c, k, group);
    if (wants_replay(c, k)) {
        *group = TD_GROUP_ALL;
        td_g.launch_covers = 1; /* coverage: a kernel's one replay is not budgeted */
        return 1;
    }
    if (c->n_group_cfg == 0)
        return 0;
    return choose_group(c, k, td_launch_size_class(l->grid, l->block), group);
}
