/* Batches of profiled launches under one configuration of the Range
 * Profiler (kernel replay of the full set, or user replay of one counter
 * group): selecting the configuration, adding a launch, closing the batch
 * (stop, decode, write, re-arm) and what failures do; also what the
 * rotation shares with them (close_window, wait_for_gpu, stop_profiling). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/inject/debug.h"
#include "topdown/inject/pcsampling.h"
#include "topdown/inject/probe.h"
#include "topdown/inject/inject_state.h"
#include "topdown/inject/spool_writer.h"

/* ---- batches of profiled launches --------------------------------------- */

void close_configs(ctx_state *c)
{
    for (size_t i = 0; i < c->groups.n; i++)
        td_rp_config_free(&c->group_cfg[i]);
    c->n_group_cfg = 0;
    if (c->has_rotation)
        td_rp_config_free(&c->rotation);
    c->has_rotation = 0;
    if (c->has_full)
        td_rp_config_free(&c->full);
    c->has_full = 0;
}

void stop_profiling(ctx_state *c, const char *why)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    td_sw_error("profiler_failed", "context %u: %s (%s); later launches are timed only",
                c->uid, why, what);
    close_configs(c);
    td_rp_close(&c->rp);
    c->profiling = 0;
}

/* Waits for the context's queued work; the wait is the app's GPU time,
 * not profiling cost, so the budget leaves it out. */
void wait_for_gpu(void)
{
    double t0 = now_s();
    unsigned long long since = td_probe_now();
    cuCtxSynchronize();
    td_probe_count(TD_SPAN_WAIT, since);
    td_g.waited_s += now_s() - t0;
}

/* A replayed launch failed (the app's kernel cannot be replayed
 * faithfully, or CUPTI failed): its kernels are measured without replay
 * from now on, and the profiler starts over with a fresh object. */
static void replay_failed(ctx_state *c)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    for (size_t i = 0; i < c->n_window; i++) {
        td_kernel *k = c->window[i].kernel;
        if (!k || k->no_replay)
            continue;
        k->no_replay = 1;
        td_g.replay_failures++;
        td_sw_warning("kernel %s (launch %llu) failed under kernel replay (%s); its launches "
                      "are measured without replay from now on", k->name,
                      (unsigned long long)c->window[i].id, what);
    }
    if (td_rp_reset(&c->rp) != 0)
        stop_profiling(c, "restarting the profiler after a failed replay failed");
}

/* A replay-free launch failed to decode: start over, give up after a few. */
void group_failed(ctx_state *c)
{
    if (++c->failures > 8) {
        stop_profiling(c, "decoding the counters failed repeatedly");
        return;
    }
    if (td_rp_reset(&c->rp) != 0)
        stop_profiling(c, "restarting the profiler after a failed decode failed");
}

/* A kernel's measurements on this context (each device rotates and covers
 * its kernels on its own); a blank entry when out of memory. */
td_kernel_progress *progress_of(ctx_state *c, const td_kernel *k)
{
    static td_kernel_progress blank;
    td_kernel_progress *p = td_progress_of(&c->progress, k->ordinal, k->matches);
    if (p)
        return p;
    memset(&blank, 0, sizeof blank);
    return &blank;
}

/* What a measured launch adds to its kernel's progress. */
void count_measurement(ctx_state *c, const launch_rec *l)
{
    if (l->kernel)
        td_progress_measured(progress_of(c, l->kernel), l->group);
}

/* Stops the profiler, decodes the batch, writes its launches in launch
 * order (ranges come in the same order), and re-arms the image. */
static void close_batch(ctx_state *c)
{
    if (!c->rp.started && c->n_window == 0)
        return;
    size_t ranges = 0, dropped = 0, expected = 0;
    /* The user range must hold the whole kernel: wait for it. */
    if (c->rp.active && c->rp.active->user_replay && c->rp.started)
        wait_for_gpu();
    int decoded = td_rp_pop(&c->rp) == 0 && td_rp_stop(&c->rp, &ranges, &dropped) == 0;
    for (size_t i = 0; i < c->n_window; i++)
        expected += !c->window[i].failed;
    if (decoded && (ranges != expected || dropped) && !c->warned_mismatch) {
        c->warned_mismatch = 1;
        td_sw_warning("context %u: CUPTI decoded %zu ranges (%zu dropped) for %zu launches; "
                      "counters were matched to launches in order", c->uid, ranges, dropped,
                      expected);
    }
    if (td_debug_on())
        emit_batch_debug(c, decoded, ranges, dropped, expected);
    double values[MAX_METRICS];
    size_t range = 0;
    for (size_t i = 0; i < c->n_window; i++) {
        const launch_rec *l = &c->window[i];
        if (l->failed)
            continue;
        int have = decoded && range < ranges && td_rp_eval(&c->rp, range, values) == 0;
        range++;
        emit_launch(c, l, have ? values : NULL);
        if (have)
            count_measurement(c, l);
    }
    if (!decoded && c->window_group == TD_GROUP_ALL)
        replay_failed(c);
    else if (!decoded)
        group_failed(c);
    else if (td_rp_rearm(&c->rp) != 0)
        stop_profiling(c, "re-arming the counter-data image failed");
    c->n_window = 0;
}

/* Writes what the profiler holds: the open batch, or the rotation's cycle. */
void close_window(ctx_state *c)
{
    if (!c->profiling)
        return;
    double t0 = now_s();
    /* At exit or on a signal the context may not be current here. */
    int pushed = cuCtxPushCurrent(c->ctx) == CUDA_SUCCESS;
    collector_of(c)->flush(c);
    td_g.decode_s += now_s() - t0;
    if (!td_g.in_profiled_launch) {
        td_g.budget.spent_s += now_s() - t0 - td_g.waited_s;
        td_g.waited_s = 0;
    }
    if (pushed) {
        CUcontext popped;
        cuCtxPopCurrent(&popped);
    }
}

/* Launches a batch of this configuration holds: one in user replay (one
 * Start/Stop session makes one range) and for a replay in auto mode (so a
 * failing replay is pinned on its kernel), the batch size otherwise. */
static size_t window_capacity(int group)
{
    /* --cache-control all: a flush before each launch, so one per session. */
    return group == TD_GROUP_ALL && td_g.mode == TD_REPLAY_KERNEL && !td_g.flush_caches
               ? td_g.batch : 1;
}

/* --cache-control all: the app's queued work drained (it would refill the
 * L2), then the flush, before the session starts (so the flush is in no
 * range). Under kernel replay CUPTI's own save of device memory still runs
 * between this flush and the first pass (docs/COLLECTION.md). */
void flush_before_pass(ctx_state *c)
{
    if (!c->flush.ready)
        return;
    wait_for_gpu();
    if (td_flush_run(&c->flush) != 0 && !c->flush_failed_said++)
        td_sw_warning("--cache-control all: the cache flush failed in context %u; launches "
                      "are measured with the caches as they were", c->uid);
}

static td_rp_config *config_of(ctx_state *c, int group)
{
    if (group == TD_GROUP_ALL)
        return &c->full;
    return c->has_rotation ? &c->rotation : &c->group_cfg[group];
}

/* exit() runs atexit handlers in the reverse order of their registration,
 * and CUPTI loads libnvperf_host (whose destructors free what a decode
 * needs) only at its first profiler host call, after InitializeInjection
 * registered at_exit: a decode at exit then corrupted the heap (issue 24,
 * the PM sampler's; a batch left open at exit, the Range Profiler's). So
 * at_exit is registered again once a configuration was built; it runs
 * once. */
static void register_exit_after_cupti(void)
{
    static int registered;
    if (!registered++)
        atexit(at_exit);
}

/* Makes the launch's configuration active (a fresh profiler object when
 * it is another one); 0 when it is. A rotation CUPTI cannot build gives
 * way to a configuration per group. */
static int select_config(ctx_state *c, const launch_rec *l)
{
    double t0 = now_s();
    int switching = c->rp.active != config_of(c, l->group);
    int selected = td_rp_select(&c->rp, config_of(c, l->group));
    if (selected != 0 && l->group != TD_GROUP_ALL && c->has_rotation) {
        char what[256];
        td_rp_describe(&c->rp, what, sizeof what);
        if (td_debug_on())
            td_debug("inject", "the counter groups as passes of one configuration failed "
                     "(%s): a configuration per group", what);
        td_rp_config_free(&c->rotation);
        c->has_rotation = 0;
        selected = td_rp_reset(&c->rp) == 0 ? td_rp_select(&c->rp, config_of(c, l->group)) : -1;
    }
    if (switching) {
        td_g.switches++;
        td_g.switch_s += now_s() - t0;
    }
    if (selected != 0 && l->group != TD_GROUP_ALL && c->has_full) {
        char what[256];
        td_rp_describe(&c->rp, what, sizeof what);
        td_sw_warning("counter group %d cannot be collected without replay on this device "
                      "(%s): profiled launches are replayed from now on", l->group, what);
        c->n_group_cfg = 0;
        return -1;
    }
    if (selected != 0) {
        stop_profiling(c, "setting the counter configuration failed");
        return -1;
    }
    register_exit_after_cupti();
    return 0;
}

/* Starts that may fail in a row before the context's launches are timed
 * only. Under --source the first Start can fail where a module loads at
 * that launch (cuptiRangeProfilerStart: CUPTI_ERROR_INVALID_PARAMETER,
 * H200) and a later one work: the launch is timed, the next tries again
 * (issue 22: a start failure must not lose the run). */
#define TD_START_TRIES 4

/* Why the Starts failed. Measured on the H200 (CUPTI 13.0): once a module
 * has loaded with PC sampling enabled on the context, every Start fails,
 * so under --source the first failure ends the context's profiling. */
static const char *start_failure_why(void)
{
    return td_pcs_enabled() && !td_pcs_only()
               ? "starting the profiler failed beside --source's PC sampling (CUPTI measures "
                 "no counters on a context whose kernels' modules loaded while PC sampling was "
                 "on: the tree needs a run without --source)"
               : "starting the profiler failed";
}

static void start_failed(ctx_state *c)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    td_debug("inject", "context %u: start %d failed (%s)", c->uid, c->start_failures + 1, what);
    if (++c->start_failures >= TD_START_TRIES || (td_pcs_enabled() && !td_pcs_only()))
        stop_profiling(c, start_failure_why());
}

void say_start_failures(ctx_state *c)
{
    if (!c->profiling || c->start_failures == 0)
        return;
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    td_sw_error("profiler_failed", "context %u: %s (%s) at its last %d chosen launch%s, "
                "timed only", c->uid, start_failure_why(), what, c->start_failures,
                c->start_failures == 1 ? "" : "es");
    c->start_failures = 0;
}

/* A chosen launch in the open batch of its configuration (selected). */
static int add_to_batch(ctx_state *c, const launch_rec *l)
{
    /* A user range counts everything that runs on the context: drain the
     * work queued before it (its launch is then the only one running). */
    if (l->group != TD_GROUP_ALL)
        wait_for_gpu();
    flush_before_pass(c);
    if (td_rp_start(&c->rp) != 0) {
        start_failed(c);
        return 0;
    }
    if (td_rp_push(&c->rp, "launch") != 0) {
        stop_profiling(c, "starting the profiler failed");
        return 0;
    }
    c->start_failures = 0;
    c->window_group = l->group;
    c->window[c->n_window++] = *l;
    return 1;
}

int add_to_window(ctx_state *c, const launch_rec *l)
{
    if (c->rp.active && c->rp.active != config_of(c, l->group))
        close_window(c); /* another configuration: what the active one holds first */
    else if (c->n_window > 0 && !rotating(c) &&
             (c->window_group != l->group || c->n_window >= window_capacity(c->window_group)))
        close_window(c);
    double t0 = now_s(), waited0 = td_g.waited_s;
    int from_replay = c->rp.active == &c->full && l->group != TD_GROUP_ALL;
    if (!c->profiling || select_config(c, l) != 0)
        return 0;
    int rotation = rotating(c);
    int added = collector_of(c)->launch_begin(c, l);
    /* The rotation's first object (building it, its first Start:
     * 150-250 ms, H100) is set-up; a fresh one after replays is their
     * cost, coverage: neither is the budget's. */
    if (rotation && (!c->rotation_warm || from_replay)) {
        double once = now_s() - t0 - (td_g.waited_s - waited0);
        pay_once(c->rotation_warm ? &td_g.coverage_s : &td_g.setup_s, once);
        td_g.excluded_in_launch_s += once;
        c->rotation_warm = 1;
    }
    return added;
}

/* After a measured launch: the batch is closed once full. */
static void batch_launch_end(ctx_state *c)
{
    if (c->n_window >= window_capacity(c->window_group))
        close_window(c);
}

/* The batch's collector: kernel replay of the full set, or the per-group
 * fallback (one configuration a group); a profiled launch is one range of
 * the open batch, and a launch not profiled closes it first (it must not
 * become a range). */
const td_collector td_batch_collector = {
    .name = "batch",
    .launch_begin = add_to_batch,
    .launch_end = batch_launch_end,
    .graph_end = close_window,
    .unmeasured = close_window,
    .flush = close_batch,
};
