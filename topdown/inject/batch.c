/* Batches of profiled launches under one configuration of the Range
 * Profiler (kernel replay of the full set, or user replay of one counter
 * group): adding a launch, closing the batch (stop, decode, write,
 * re-arm) and what failures do. The configuration is selected for it
 * (window.c); what the rotation shares with it is in collector.c. */
#include "topdown/inject/batch.h"

#include "topdown/inject/debug.h"
#include "topdown/inject/emit.h"
#include "topdown/inject/pcsampling.h"
#include "topdown/inject/spool_writer.h"

/* ---- batches of profiled launches --------------------------------------- */

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

/* A batch is open: a session started or launches held. */
static int batch_open(const ctx_state *c)
{
    return c->rp.started || c->n_window > 0;
}

/* Stops the profiler, decodes the batch, writes its launches in launch
 * order (ranges come in the same order), and re-arms the image. */
static void close_batch(ctx_state *c)
{
    if (!batch_open(c))
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

/* Launches a batch of this configuration holds: one in user replay (one
 * Start/Stop session makes one range) and for a replay in auto mode (so a
 * failing replay is pinned on its kernel), the batch size otherwise. */
size_t window_capacity(int group)
{
    /* --cache-control all: a flush before each launch, so one per session. */
    return group == TD_GROUP_ALL && td_g.mode == TD_REPLAY_KERNEL && !td_g.flush_caches
               ? td_g.batch : 1;
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

/* Writes the open batch (close_window when the batch is the collector in
 * use, which it is wherever the batch's own functions run). */
static void close_batch_window(ctx_state *c)
{
    /* Each launch not measured comes here: with nothing open, the context
     * push and pop around close_batch cost 0.15-0.3 us a traced launch
     * (H200, TOPDOWN_DEBUG's probe). */
    if (batch_open(c))
        close_window_with(c, close_batch);
}

/* After a measured launch: the batch is closed once full. */
static void batch_launch_end(ctx_state *c)
{
    if (c->n_window >= window_capacity(c->window_group))
        close_batch_window(c);
}

/* The batch's collector: kernel replay of the full set, or the per-group
 * fallback (one configuration a group); a profiled launch is one range of
 * the open batch, and a launch not profiled closes it first (it must not
 * become a range). */
const td_collector td_batch_collector = {
    .name = "batch",
    .launch_begin = add_to_batch,
    .launch_end = batch_launch_end,
    .graph_end = close_batch_window,
    .unmeasured = close_batch_window,
    .flush = close_batch,
};
