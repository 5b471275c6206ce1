/* libtopdown_inject.so: loaded into the app by the CUDA driver through
 * CUDA_INJECTION64_PATH. It sees every kernel launch through CUPTI driver
 * callbacks, profiles the chosen ones with the Range Profiler (one profiler
 * per context), times all of them with the activity API, and writes what it
 * learns to the spool named by TOPDOWN_SPOOL (docs/COLLECTION.md). It never
 * stops the app: problems become error records in the spool. */
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "topdown/inject/activity.h"
#include "topdown/inject/debug.h"
#include "metrics/arch/arch.h"
#include "topdown/inject/budget.h"
#include "topdown/inject/cache_flush.h"
#include "topdown/inject/choose.h"
#include "topdown/inject/collect_opts.h"
#include "metrics/arch/groups.h"
#include "topdown/inject/kernels.h"
#include "topdown/inject/nvtx.h"
#include "topdown/inject/pcsampling.h"
#include "topdown/inject/progress.h"
#include "topdown/inject/pmsampling.h"
#include "topdown/inject/range_profiler.h"
#include "metrics/spool/spool.h"
#include "topdown/inject/spool_writer.h"

#define TD_EXPORT __attribute__((visibility("default")))
/* DEFAULT_BATCH: kernel-replay launches per profiler session. With 64,
 * td_phases2 died in libcupti's own thread at exit (H100, CUPTI 13.0, also
 * at 1eb6641); with one a session it never did. The likely cause, a batch
 * decoded at exit after libnvperf_host's destructors, is what
 * register_exit_after_cupti removes; one a session stays the default until
 * a GPU run shows more is safe. TOPDOWN_BATCH raises it. */
enum { MAX_METRICS = 128, DEFAULT_BATCH = 1, MAX_BATCH = 4096 };
/* Ranges of the rotation's image: its samples and one pad a pass at most,
 * decoded when the last pass ends or the image is full. */
enum { ROTATION_RANGES = 128 };

/* One launch waiting in a context's open batch for its counters. */
typedef struct launch_rec {
    uint64_t id;
    uint32_t corr;
    td_kernel *kernel;
    unsigned grid[3], block[3];
    uint32_t stream;
    int group;  /* counter group it is measured with, TD_GROUP_ALL: replay */
    uint32_t graph; /* a whole CUDA graph launch: the graph's CUPTI id */
    int failed; /* the launch call returned an error: it made no range */
    const char *region; /* NVTX region (nvtx.h), NULL: none */
} launch_rec;

typedef struct ctx_state {
    CUcontext ctx;
    uint32_t uid;         /* CUPTI's context id, also in activity records */
    char chip[64];
    int profiling;        /* the Range Profiler is set up on it */
    td_rp rp;
    const char *metrics[MAX_METRICS]; /* the full set: the device's metrics */
    size_t n_metrics;
    const char *duration_metric; /* metric giving duration_ns, NULL if none */
    td_rp_config full;    /* the full set, kernel replay */
    int has_full;
    size_t full_passes;   /* replay passes of the full set */
    td_groups groups;     /* replay-free groups, one pass each */
    size_t group_metric[TD_MAX_GROUPS][TD_MAX_GROUP_METRICS]; /* into metrics */
    td_rp_config group_cfg[TD_MAX_GROUPS];
    size_t n_group_cfg;   /* 0: no replay-free collection here */
    td_rp_config rotation; /* the groups as passes of one configuration */
    int has_rotation;     /* group samples go through it (else group_cfg) */
    const char *rotation_metrics[MAX_METRICS]; /* the groups' union */
    size_t rotation_index[TD_MAX_GROUPS][TD_MAX_GROUP_METRICS]; /* into it */
    size_t session_ranges; /* ranges of the rotation's open session */
    int rotation_warm;    /* its first session was started (set-up paid) */
    launch_rec *window;   /* launches of the open batch, in launch order */
    size_t n_window;
    int window_group;     /* configuration of the open batch */
    int failures;         /* failed decodes of replay-free launches */
    td_progress progress; /* what each kernel measured on this context */
    int warned_mismatch;
    td_flush flush;       /* --cache-control all: ready when it can flush */
    int flush_failed_said;
    struct ctx_state *next;
} ctx_state;

static struct {
    pthread_mutex_t lock;     /* recursive; held from launch enter to exit */
    int initialized;
    pid_t pid;
    td_collect_opts opts;     /* the TOPDOWN_* variables, read once at injection and
                                 kept for the life of the process */
    CUpti_SubscriberHandle subscriber;
    td_arch_set archs;
    int archs_tried;
    td_filter filter;
    size_t batch;
    ctx_state *contexts;
    launch_rec current;       /* the launch between its enter and exit */
    ctx_state *current_ctx;
    int current_profiled;
    atomic_uint_fast64_t next_id;
    long launches;
    long profiled;
    uint64_t t0;
    td_replay_mode mode;      /* --replay-mode (collect_opts.h) */
    td_budget budget;         /* --overhead (budget.c): what sampling spent (spent_s:
                                 launches, decoding; one-time set-up is setup_s),
                                 against the app's own time since start_s */
    int budgeted;             /* the budget decides (no explicit counts asked) */
    double launch_t0;         /* when the profiled launch in flight entered */
    td_kernel *launch_kernel; /* and its kernel, which its cost is charged to */
    int in_profiled_launch;
    double waited_s;          /* of the launch in flight: waiting for the app's
                                 own GPU work, which is not profiling cost */
    double excluded_in_launch_s; /* and what it paid once (in setup_s or coverage_s) */
    int launch_covers;        /* it is a kernel's coverage (its first full
                                 measurement): paid once per kernel, in coverage_s */
    double coverage_s;        /* what coverage cost, outside the budget */
    long budget_skipped;      /* launches left timed-only by the budget */
    long new_kernel_launch;   /* g.launches when a kernel was last seen first */
    double setup_s, switch_s, decode_s; /* where profiling time goes */
    long switches;
    int device_heap;          /* a loaded module uses the device heap */
    int heap_said;
    int graph_view;           /* --graph-profiling graph */
    int flush_caches;         /* --cache-control all */
    long replay_failures;
    uint64_t pm_interval_ns;  /* --pm-interval: PM sampling instead of the Range Profiler */
    int pm_said;
    td_sample_every sample;   /* --sample-every (topdown/inject/sample_policy.h) */
    int no_rotation;          /* TOPDOWN_ROTATION=0: a profiler object per group */
    char sample_error[sizeof ((td_error *)0)->msg]; /* a bad TOPDOWN_SAMPLE_EVERY, said
                                                      after the start record */
} g;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Set while this thread runs our code or holds g.lock through a launch:
 * a signal arriving then must not flush (the state is mid-change). */
static _Thread_local int in_our_code;
static _Thread_local int holding_launch;

static uint64_t next_launch_id(void)
{
    return atomic_fetch_add(&g.next_id, 1);
}

/* ---- records ------------------------------------------------------------ */

static cJSON *dims_json(const unsigned v[3])
{
    int ints[3] = {(int)v[0], (int)v[1], (int)v[2]};
    return cJSON_CreateIntArray(ints, 3);
}

static int all_finite(const double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(values[i] >= 0 && values[i] <= 1e300))
            return 0;
    return 1;
}

/* The index of metric in the configuration a launch was measured with. */
static int config_index(const ctx_state *c, int group, const char *metric)
{
    if (!metric)
        return -1;
    size_t n = group == TD_GROUP_ALL ? c->n_metrics : c->groups.size[group];
    for (size_t i = 0; i < n; i++) {
        const char *name = group == TD_GROUP_ALL ? c->metrics[i] : c->groups.metric[group][i];
        if (strcmp(name, metric) == 0)
            return (int)i;
    }
    return -1;
}

/* The kernel's k in this process's launch records: its kernel record is
 * written the first time; -1 when it could not be (the launch then names
 * its kernel itself). */
static int kernel_ref(td_kernel *k, uint64_t *out)
{
    if (!k)
        return -1;
    if (k->spooled_pid != td_sw_pid()) {
        if (td_sw_emit_kernel(k->ordinal, k->name, k->mangled) != 0)
            return -1;
        k->spooled_pid = td_sw_pid();
    }
    *out = k->ordinal;
    return 0;
}

/* values: the launch's configuration's metrics (all, or its group's), or
 * NULL for a launch that was only timed. The common case, timed with no
 * region, is formatted without allocating. */
static double launch_threads(const launch_rec *l)
{
    double threads = 1;
    for (int i = 0; i < 3; i++)
        threads *= (double)(l->grid[i] ? l->grid[i] : 1) * (double)(l->block[i] ? l->block[i] : 1);
    return threads;
}

static void emit_launch(const ctx_state *c, const launch_rec *l, const double *values)
{
    uint64_t k = 0;
    int have_k = kernel_ref(l->kernel, &k) == 0;
    if (have_k && !values && !l->region) {
        td_sw_launch line = {.context = c->uid, .id = l->id, .corr = l->corr, .k = k,
                             .stream = l->stream};
        memcpy(line.grid, l->grid, sizeof line.grid);
        memcpy(line.block, l->block, sizeof line.block);
        td_sw_emit_launch(&line);
        return;
    }
    cJSON *rec = td_sw_record("launch");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "context", c->uid);
    cJSON_AddNumberToObject(rec, "id", (double)l->id);
    cJSON_AddNumberToObject(rec, "corr", l->corr);
    if (have_k) {
        cJSON_AddNumberToObject(rec, "k", (double)k);
    } else {
        cJSON_AddStringToObject(rec, "kernel", l->kernel ? l->kernel->name : "?");
        if (l->kernel)
            cJSON_AddStringToObject(rec, "mangled", l->kernel->mangled);
    }
    cJSON_AddItemToObject(rec, "grid", dims_json(l->grid));
    cJSON_AddItemToObject(rec, "block", dims_json(l->block));
    cJSON_AddNumberToObject(rec, "stream", l->stream);
    if (l->region)
        cJSON_AddStringToObject(rec, "region", l->region);
    size_t n_values = l->group == TD_GROUP_ALL ? c->n_metrics : c->groups.size[l->group];
    if (values && !all_finite(values, n_values)) {
        td_sw_warning("launch %llu (%s): CUPTI gave a value that is not a count; its "
                      "counters are left out", (unsigned long long)l->id,
                      l->kernel ? l->kernel->name : "?");
        values = NULL;
    }
    if (values) {
        /* A graph's time is its kernels' (their own activity records). */
        int duration = l->graph ? -1 : config_index(c, l->group, c->duration_metric);
        if (duration >= 0)
            cJSON_AddNumberToObject(rec, "duration_ns", values[duration]);
        if (duration >= 0 && l->kernel) { /* --sample-every T's estimate */
            l->kernel->duration_sum += values[duration];
            l->kernel->durations++;
            l->kernel->thread_sum += launch_threads(l);
        }
        if (l->group != TD_GROUP_ALL)
            cJSON_AddNumberToObject(rec, "group", l->group);
        if (l->graph)
            cJSON_AddNumberToObject(rec, "graph", l->graph);
        cJSON_AddItemToObject(rec, "counters", cJSON_CreateDoubleArray(values, (int)n_values));
        g.profiled++;
    }
    td_sw_emit(rec);
}

/* ---- batches of profiled launches --------------------------------------- */

static void close_configs(ctx_state *c)
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

static void stop_profiling(ctx_state *c, const char *why)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    td_sw_error("profiler_failed", "context %u: %s (%s); later launches are timed only",
                c->uid, why, what);
    close_configs(c);
    td_rp_close(&c->rp);
    c->profiling = 0;
}

/* TOPDOWN_DEBUG: what CUPTI decoded for each batch, to check that ranges
 * and launches pair up. */
static void emit_batch_debug(ctx_state *c, int decoded, size_t ranges, size_t dropped,
                             size_t expected)
{
    cJSON *rec = td_sw_record("debug");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "context", c->uid);
    cJSON_AddBoolToObject(rec, "decoded", decoded);
    cJSON_AddNumberToObject(rec, "ranges", (double)ranges);
    cJSON_AddNumberToObject(rec, "dropped", (double)dropped);
    cJSON_AddNumberToObject(rec, "launches", (double)expected);
    cJSON *names = cJSON_AddArrayToObject(rec, "range_names");
    for (size_t r = 0; decoded && r < ranges && r < 16; r++) {
        const char *name = td_rp_range_name(&c->rp, r);
        cJSON_AddItemToArray(names, cJSON_CreateString(name ? name : "?"));
    }
    cJSON *ids = cJSON_AddArrayToObject(rec, "launch_ids");
    for (size_t i = 0; i < c->n_window && i < 16; i++)
        cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)c->window[i].id));
    td_sw_emit(rec);
}

/* Waits for the context's queued work; the wait is the app's GPU time,
 * not profiling cost, so the budget leaves it out. */
static void wait_for_gpu(void)
{
    double t0 = now_s();
    cuCtxSynchronize();
    g.waited_s += now_s() - t0;
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
        g.replay_failures++;
        td_sw_warning("kernel %s (launch %llu) failed under kernel replay (%s); its launches "
                      "are measured without replay from now on", k->name,
                      (unsigned long long)c->window[i].id, what);
    }
    if (td_rp_reset(&c->rp) != 0)
        stop_profiling(c, "restarting the profiler after a failed replay failed");
}

/* A replay-free launch failed to decode: start over, give up after a few. */
static void group_failed(ctx_state *c)
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
static td_kernel_progress *progress_of(ctx_state *c, const td_kernel *k)
{
    static td_kernel_progress blank;
    td_kernel_progress *p = td_progress_of(&c->progress, k->ordinal, k->matches);
    if (p)
        return p;
    memset(&blank, 0, sizeof blank);
    return &blank;
}

/* What a measured launch adds to its kernel's progress. */
static void count_measurement(ctx_state *c, const launch_rec *l)
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

/* ---- the rotation ----------------------------------------------------------
 * One configuration whose passes are the counter groups (pass_groups.h):
 * a session (Start..Stop) measures one pass, the next session the next;
 * each sampled launch is a user range named after its launch id in the
 * session of its group's pass, and the image is decoded once the last
 * pass ended. Moving to another group costs a Stop and a Start (about
 * 5-13 ms on the H100) where a configuration of its own costs a fresh
 * profiler object (150-250 ms at its first Start). */

static int rotating(const ctx_state *c)
{
    return c->has_rotation && c->rp.active == &c->rotation;
}

/* Ends the open session (one pad range if it holds none: a pass is
 * measured only by a session with a range in it). */
static int end_session(ctx_state *c, int *cycle_done)
{
    *cycle_done = 0;
    if (!c->rp.started && td_rp_start(&c->rp) != 0)
        return -1;
    if (c->session_ranges == 0 && (td_rp_push(&c->rp, "pad") != 0 || td_rp_pop(&c->rp) != 0))
        return -1;
    c->session_ranges = 0;
    return td_rp_end_pass(&c->rp, cycle_done);
}

/* The window's launch a range was named after, from *next on (ranges
 * come in push order); NULL for a pad. */
static launch_rec *launch_of_range(ctx_state *c, size_t range, size_t *next)
{
    const char *name = td_rp_range_name(&c->rp, range);
    char *end = NULL;
    unsigned long long id = name ? strtoull(name, &end, 10) : 0;
    if (!name || end == name || *end)
        return NULL;
    for (size_t i = 0; i < c->n_window; i++) {
        size_t at = (*next + i) % c->n_window;
        if (c->window[at].id == id) {
            *next = at + 1;
            return &c->window[at];
        }
    }
    return NULL;
}

/* Writes the decoded cycle's launches: each its group's counters, in the
 * group's order; launches without a range are timed only. */
static void emit_cycle(ctx_state *c, int decoded, size_t ranges)
{
    double all[MAX_METRICS], values[TD_MAX_GROUP_METRICS];
    size_t next = 0;
    for (size_t r = 0; decoded && r < ranges; r++) {
        launch_rec *l = launch_of_range(c, r, &next);
        if (!l || l->failed || l->group < 0 || td_rp_eval(&c->rp, r, all) != 0)
            continue;
        for (size_t i = 0; i < c->groups.size[l->group]; i++)
            values[i] = all[c->rotation_index[l->group][i]];
        emit_launch(c, l, values);
        count_measurement(c, l);
        l->failed = 1; /* written */
    }
    for (size_t i = 0; i < c->n_window; i++)
        if (!c->window[i].failed)
            emit_launch(c, &c->window[i], NULL);
}

/* Decodes a cycle whose last pass has ended, writes it, re-arms. */
static void decode_cycle(ctx_state *c)
{
    size_t ranges = 0, dropped = 0;
    int decoded = td_rp_decode(&c->rp, &ranges, &dropped) == 0;
    if (td_debug_on())
        emit_batch_debug(c, decoded, ranges, dropped, c->n_window);
    emit_cycle(c, decoded, ranges);
    c->n_window = 0;
    if (!decoded)
        group_failed(c);
    else if (td_rp_rearm(&c->rp) != 0)
        stop_profiling(c, "re-arming the counter-data image failed");
}

/* Moves the rotation on to the pass of group; a cycle completed on the way
 * is decoded. */
static int move_to_pass(ctx_state *c, int group)
{
    for (size_t steps = 0; c->rp.pass != (size_t)group; steps++) {
        int cycle_done = 0;
        if (steps > c->rotation.passes || end_session(c, &cycle_done) != 0)
            return -1;
        if (cycle_done)
            decode_cycle(c);
        if (!c->profiling || !rotating(c))
            return -1;
    }
    return 0;
}

/* Ends the cycle: the open session, pads for the passes left, the decode. */
static void finish_cycle(ctx_state *c)
{
    if (!c->rp.started && c->n_window == 0 && c->rp.pass == 0)
        return;
    if (c->rp.pushed) {
        wait_for_gpu();
        td_rp_pop(&c->rp);
        c->session_ranges++;
    }
    int cycle_done = 0;
    for (size_t steps = 0; !cycle_done; steps++)
        if (steps > c->rotation.passes || end_session(c, &cycle_done) != 0) {
            emit_cycle(c, 0, 0);
            c->n_window = 0;
            c->session_ranges = 0; /* the failed session's ranges are gone */
            group_failed(c);
            return;
        }
    decode_cycle(c);
}

/* After a sampled launch: its range ends with the kernel; the cycle is
 * decoded when the image could not hold another pass's worth. */
static void end_sample(ctx_state *c)
{
    wait_for_gpu();
    if (td_rp_pop(&c->rp) != 0) {
        finish_cycle(c);
        return;
    }
    c->session_ranges++;
    if (c->n_window + c->rotation.passes + 1 >= ROTATION_RANGES)
        finish_cycle(c);
}

/* Writes what the profiler holds: the open batch, or the rotation's cycle. */
static void close_window(ctx_state *c)
{
    if (!c->profiling)
        return;
    double t0 = now_s();
    /* At exit or on a signal the context may not be current here. */
    int pushed = cuCtxPushCurrent(c->ctx) == CUDA_SUCCESS;
    if (rotating(c))
        finish_cycle(c);
    else
        close_batch(c);
    g.decode_s += now_s() - t0;
    if (!g.in_profiled_launch) {
        g.budget.spent_s += now_s() - t0 - g.waited_s;
        g.waited_s = 0;
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
    return group == TD_GROUP_ALL && g.mode == TD_REPLAY_KERNEL && !g.flush_caches ? g.batch : 1;
}

/* --cache-control all: the app's queued work drained (it would refill the
 * L2), then the flush, before the session starts (so the flush is in no
 * range). Under kernel replay CUPTI's own save of device memory still runs
 * between this flush and the first pass (docs/COLLECTION.md). */
static void flush_before_pass(ctx_state *c)
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

static void at_exit(void);

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
        g.switches++;
        g.switch_s += now_s() - t0;
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

/* A sampled launch in the rotation: in the session of its group's pass,
 * a user range named after it. */
static int add_to_rotation(ctx_state *c, const launch_rec *l)
{
    if (move_to_pass(c, l->group) != 0) {
        if (c->profiling && rotating(c))
            finish_cycle(c);
        return 0;
    }
    /* A user range counts everything that runs on the context: drain the
     * work queued before it (its launch is then the only one running). */
    wait_for_gpu();
    flush_before_pass(c);
    char name[24];
    snprintf(name, sizeof name, "%llu", (unsigned long long)l->id);
    if (td_rp_start(&c->rp) != 0 || td_rp_push(&c->rp, name) != 0) {
        finish_cycle(c);
        return 0;
    }
    c->window_group = l->group;
    c->window[c->n_window++] = *l;
    return 1;
}

static int add_to_window(ctx_state *c, const launch_rec *l)
{
    if (c->rp.active && c->rp.active != config_of(c, l->group))
        close_window(c); /* another configuration: what the active one holds first */
    else if (c->n_window > 0 && !rotating(c) &&
             (c->window_group != l->group || c->n_window >= window_capacity(c->window_group)))
        close_window(c);
    double t0 = now_s(), waited0 = g.waited_s;
    int from_replay = c->rp.active == &c->full && l->group != TD_GROUP_ALL;
    if (!c->profiling || select_config(c, l) != 0)
        return 0;
    if (rotating(c)) {
        int added = add_to_rotation(c, l);
        /* The rotation's first object (building it, its first Start:
         * 150-250 ms, H100) is set-up; a fresh one after replays is their
         * cost, coverage: neither is the budget's. */
        if (!c->rotation_warm || from_replay) {
            double once = now_s() - t0 - (g.waited_s - waited0);
            *(c->rotation_warm ? &g.coverage_s : &g.setup_s) += once;
            g.excluded_in_launch_s += once;
            c->rotation_warm = 1;
        }
        return added;
    }
    /* A user range counts everything that runs on the context: drain the
     * work queued before it (its launch is then the only one running). */
    if (l->group != TD_GROUP_ALL)
        wait_for_gpu();
    flush_before_pass(c);
    if (td_rp_start(&c->rp) != 0 || td_rp_push(&c->rp, "launch") != 0) {
        stop_profiling(c, "starting the profiler failed");
        return 0;
    }
    c->window_group = l->group;
    c->window[c->n_window++] = *l;
    return 1;
}

/* ---- the device heap ------------------------------------------------------ */

/* GPU code that calls malloc/free (device-side new and delete compile to
 * them) changes the device heap, which kernel replay does not restore: a
 * replayed create_world<<<1,1>>> leaves later kernels with bad pointers.
 * A module whose cubin links malloc or free therefore turns replay off for
 * the process (a cubin's string table names the functions it calls). */
static int cubin_uses_device_heap(const char *cubin, size_t size)
{
    static const char *const calls[] = {"malloc", "free"};
    for (size_t c = 0; cubin && c < sizeof calls / sizeof *calls; c++) {
        size_t len = strlen(calls[c]);
        for (size_t i = 0; i + len + 2 <= size; i++)
            if (cubin[i] == '\0' && cubin[i + len + 1] == '\0' &&
                memcmp(cubin + i + 1, calls[c], len) == 0)
                return 1;
    }
    return 0;
}

static void say_no_replay_for_heap(void)
{
    if (g.heap_said++)
        return;
    td_sw_warning("the app's GPU code allocates from the device heap (malloc, free, new or "
                  "delete in a kernel), which kernel replay cannot repeat faithfully: no "
                  "launch is replayed%s", g.mode == TD_REPLAY_KERNEL
                  ? ", and --replay-mode kernel leaves its launches timed only; use "
                    "--replay-mode auto or none" : "; kernels launched too few times for "
                    "every counter group show the stall reasons they measured");
}

/* ---- what to measure ---------------------------------------------------- */

/* Which configuration measures a launch. A kernel the mode wants replayed
 * (auto: its first launch; kernel: every launch) takes the full set; else
 * the choice (choose.h) spreads each kernel's counter groups over its size
 * classes and its whole run, for the estimator (levels/estimate.h). */
static int wants_replay(ctx_state *c, const td_kernel *k)
{
    if (!c->has_full || k->no_replay)
        return 0;
    if (g.device_heap) {
        say_no_replay_for_heap();
        return 0;
    }
    return g.mode == TD_REPLAY_KERNEL || c->n_group_cfg == 0 ||
           (g.mode == TD_REPLAY_AUTO && !progress_of(c, k)->full_measured);
}

/* Launches without a new kernel after which the context leaves the
 * replay's profiler object for the rotation. */
#define TD_RETURN_AFTER 16
/* A kernel's launches replayed as coverage while the context stays on the
 * replay's object. */
#define TD_COVER_LAUNCHES 4

/* The cost budget (budget.c): profile while the time spent sampling stays
 * within --overhead of the app's own time so far. Set-up and each kernel's
 * coverage are paid once whatever is sampled, so they are on neither side
 * (issue 23: in-loop slowdown). */
static int budget_allows(const td_kernel *k)
{
    if (!g.budgeted)
        return 1;
    g.budget.once_s = g.setup_s + g.coverage_s;
    double now = now_s();
    int allowed = td_budget_kernel_allows(&g.budget, now, k->budget_spent_s, k->gpu_est_s);
    if (td_debug_on() && g.budget_skipped < 1000)
        td_debug("inject", "budget at launch %ld: %s; spent %.4f s of %.4f s (native %.4f s, "
                 "at the first launch %.4f s; once %.4f s, at %.4f s); %s: spent %.4f s, "
                 "GPU %.4f s of %.4f s", g.launches, allowed ? "sample" : "no",
                 g.budget.spent_s, td_budget_allowance(&g.budget, now),
                 td_budget_native(&g.budget, now), g.budget.gpu_from_s, g.budget.once_s,
                 now - g.budget.start_s, k->name, k->budget_spent_s, k->gpu_est_s,
                 g.budget.gpu_s);
    if (allowed) {
        g.budget.samples++;
        return 1;
    }
    g.budget_skipped++;
    return 0;
}

/* 1: the profiler holds the replay's object and new kernels keep coming.
 * A group's sample would need a fresh rotation object (coverage's cost,
 * ~0.2 s), and the next new kernel the replay's again: PyTorch's first
 * step paid 46 such round trips, 9.6 s (H200). */
static int staying_on_replay(const ctx_state *c)
{
    return c->has_rotation && c->rp.active == &c->full &&
           g.launches - g.new_kernel_launch < TD_RETURN_AFTER;
}

/* A launch was queued: the budget counts its GPU time, estimated by its
 * kernel's measured time per thread launched (0 until one was measured):
 * a kernel's launches can differ a thousandfold (td_bfs: 2 us to 2 ms,
 * with the frontier), and its first launches are often its smallest. */
static void budget_count_launch(const launch_rec *l)
{
    td_kernel *k = l->kernel;
    double est_s = k && k->durations && k->thread_sum > 0
                       ? k->duration_sum / k->thread_sum * launch_threads(l) * 1e-9 : 0;
    if (k)
        k->gpu_est_s += est_s;
    g.budget.once_s = g.setup_s + g.coverage_s;
    td_budget_launched(&g.budget, now_s(), est_s);
}

/* The counter group the context's profiler is configured for, -1: none. */
static int active_group(const ctx_state *c)
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
    if (!td_sample_decide(&g.sample, &k->sample, c->n_group_cfg, active_group(c), est_ns,
                          &wanted))
        return 0;
    *group = wants_replay(c, k) ? TD_GROUP_ALL : wanted;
    if (*group != TD_GROUP_ALL && c->n_group_cfg == 0)
        return 0;
    td_sample_taken(&k->sample, c->n_group_cfg, *group);
    return 1;
}

/* The choice for a launch of this size (a graph launch: size class 0),
 * under the budget; a kernel lacking a group is measured whatever the
 * budget (coverage first). */
static int choose_group(ctx_state *c, td_kernel *k, unsigned size_class, int *group)
{
    td_kernel_progress *progress = progress_of(c, k);
    td_choose_kernel *state = &progress->choose;
    state->covered = progress->full_measured;
    /* no budget (--overhead unlimited, or counts asked): every launch */
    td_choice ch = td_choose(state, size_class, c->n_group_cfg, active_group(c), !g.budgeted);
    if (!ch.measure)
        return 0;
    if (ch.coverage) {
        g.launch_covers = 1;
        *group = ch.group;
        return 1;
    }
    int staying = staying_on_replay(c);
    if (staying && !k->no_replay && !g.device_heap && progress->profiled < TD_COVER_LAUNCHES) {
        /* a kernel's first launches, while new kernels keep coming: replayed
         * as coverage (td_bench, td_few: every launch, as the truth) */
        td_choose_dropped(state, size_class, ch.group);
        g.launch_covers = 1;
        *group = TD_GROUP_ALL;
        return 1;
    }
    /* Later launches wait for the rotation: a budgeted replay costs 25 ms
     * (td_stencil, H200), 20 samples in the rotation. Without a budget
     * they are replayed. */
    if ((staying && g.budgeted) || !budget_allows(k)) {
        td_choose_dropped(state, size_class, ch.group);
        return 0;
    }
    if (staying) {
        td_choose_dropped(state, size_class, ch.group);
        if (k->no_replay || g.device_heap)
            return 0;
        *group = TD_GROUP_ALL;
        return 1;
    }
    *group = ch.group;
    return 1;
}

/* 1 and the configuration if this launch is to be profiled. */
static int choose_config(ctx_state *c, td_kernel *k, const launch_rec *l, int *group)
{
    if (g.sample.unit != TD_SAMPLE_OFF)
        return choose_sampled(c, k, group);
    if (wants_replay(c, k)) {
        *group = TD_GROUP_ALL;
        g.launch_covers = 1; /* coverage: a kernel's one replay is not budgeted */
        return 1;
    }
    if (c->n_group_cfg == 0)
        return 0;
    return choose_group(c, k, td_choose_size_class(l->grid, l->block), group);
}

/* ---- contexts ----------------------------------------------------------- */

static const td_arch *choose_arch(const char *chip, int major, int minor)
{
    if (!g.archs_tried) {
        g.archs_tried = 1;
        char dir[4096];
        td_error err = {{0}};
        if (g.opts.archs)
            snprintf(dir, sizeof dir, "%s", g.opts.archs);
        else if (td_arch_default_dir(dir, sizeof dir, &err) != 0)
            dir[0] = '\0';
        if (!dir[0] || td_arch_load_dir(dir, &g.archs, &err) != 0)
            td_sw_error("arch_tables", "cannot load the arch tables: %s", err.msg);
    }
    if (g.opts.arch)
        return td_arch_find(&g.archs, g.opts.arch);
    const td_arch *arch = td_arch_for_chip(&g.archs, chip);
    return arch ? arch : td_arch_for_cc(&g.archs, major, minor);
}

static const char *support_problem(CUdevice dev)
{
    CUpti_Profiler_DeviceSupported_Params p = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (cuptiProfilerDeviceSupported(&p) != CUPTI_SUCCESS ||
        p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return NULL;
    if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return "profiling is disabled on this vGPU (ask the host's admin to enable it)";
    if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "this vGPU does not support profiling";
    if (p.confidentialCompute == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "profiling is not possible with confidential computing on";
    if (p.cmp == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "crypto-mining processors (CMP) cannot be profiled";
    if (p.sli == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "profiling is not possible with SLI on";
    if (p.wsl == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "this WSL setup does not support profiling";
    if (p.architecture == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        return "the Range Profiler does not support this GPU";
    return NULL;
}

static void report_open_failure(const ctx_state *c, const char *gpu)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    if (c->rp.failure == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        td_sw_error("insufficient_privileges",
                    "reading GPU performance counters is restricted to administrators on "
                    "this machine (%s): run topdown as root, or load the nvidia module with "
                    "NVreg_RestrictProfilingToAdminUsers=0 "
                    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)", what);
    else
        td_sw_error("profiler_failed", "cannot profile %s, context %u (%s); its launches "
                    "are timed only", gpu, c->uid, what);
}

/* The table's groups if CUPTI takes each in one pass on this device, else
 * groups derived here; n_group_cfg = 0 when there are none. */
static void choose_groups(ctx_state *c, const td_arch *arch)
{
    td_error err = {{0}};
    td_groups_from_table(arch, &c->groups);
    /* One pass each is checked against CUPTI when a group is first used
     * (and for every chip by tests/cupti/test_catalog): here only that
     * the groups cover the table. */
    if (c->groups.n && td_groups_check(arch, &c->groups, NULL, NULL, &err) == 0)
        return;
    char why[sizeof err.msg];
    snprintf(why, sizeof why, "%s", c->groups.n ? err.msg : "the table lists none");
    if (td_groups_derive(arch, NULL, td_rp_count_passes, &c->rp, &c->groups, &err) != 0) {
        td_sw_warning("no replay-free counter groups for %s (%s; %s): profiled launches "
                      "are replayed", arch->name, why, err.msg);
        c->groups.n = 0;
        return;
    }
    td_sw_warning("counter groups of %s derived on this device (%s): %zu groups", arch->name,
                  why, c->groups.n);
}

static int metric_index(const ctx_state *c, const char *name)
{
    for (size_t i = 0; name && i < c->n_metrics; i++)
        if (strcmp(c->metrics[i], name) == 0)
            return (int)i;
    return -1;
}

/* The groups' metrics, each once, and where each group's are among them. */
static size_t union_of_groups(ctx_state *c)
{
    size_t n = 0;
    for (size_t gi = 0; gi < c->groups.n; gi++)
        for (size_t i = 0; i < c->groups.size[gi]; i++) {
            const char *name = c->groups.metric[gi][i];
            size_t at = 0;
            while (at < n && strcmp(c->rotation_metrics[at], name) != 0)
                at++;
            if (at == n && n == MAX_METRICS)
                return 0;
            if (at == n)
                c->rotation_metrics[n++] = name;
            c->rotation_index[gi][i] = at;
        }
    return n;
}

/* One user-replay configuration per group (one Start/Stop and a fresh
 * profiler object each), and the rotation, which is tried first. */
static void prepare_group_configs(ctx_state *c)
{
    for (size_t gi = 0; gi < c->groups.n; gi++) {
        for (size_t i = 0; i < c->groups.size[gi]; i++)
            c->group_metric[gi][i] = (size_t)metric_index(c, c->groups.metric[gi][i]);
        td_rp_config_prepare(&c->group_cfg[gi], c->groups.metric[gi], c->groups.size[gi], 1, 1);
    }
    c->n_group_cfg = c->groups.n;
    size_t n_union = g.no_rotation || c->groups.n < 2 ? 0 : union_of_groups(c);
    if (n_union > 0) {
        td_rp_config_prepare_rotation(&c->rotation, c->rotation_metrics, n_union, &c->groups,
                                      ROTATION_RANGES);
        c->has_rotation = 1;
    }
}

/* Sets the Range Profiler up with the configurations the mode needs. */
static int open_profiler(ctx_state *c, const td_arch *arch)
{
    if (td_rp_open(&c->rp, c->ctx, c->chip) != 0)
        return -1;
    if (g.mode != TD_REPLAY_KERNEL) {
        choose_groups(c, arch);
        prepare_group_configs(c);
    }
    if (g.mode != TD_REPLAY_NONE) {
        td_rp_config_prepare(&c->full, c->metrics, c->n_metrics,
                             g.mode == TD_REPLAY_KERNEL ? g.batch : 1, 0);
        c->has_full = 1;
    }
    c->full_passes = arch->passes > 0 ? (size_t)arch->passes : 0;
    if (!c->has_full && c->n_group_cfg == 0) {
        td_sw_error("profiler_failed", "context %u: --replay-mode none needs counter groups "
                    "of one pass, and there are none; use --replay-mode auto", c->uid);
        return -1;
    }
    return 0;
}

/* Picks the arch table and sets the Range Profiler up; problems are error
 * records, and the context's launches are then only timed. */
static const td_arch *setup_profiler(ctx_state *c, CUdevice dev, const char *gpu,
                                     const char *chip, int major, int minor)
{
    if (major * 10 + minor < 75) {
        td_sw_error("unsupported_gpu", "%s is CC %d.%d: the CUPTI Range Profiler needs Turing "
                    "(CC 7.5) or newer; profile with nvprof and read its CSV with "
                    "`topdown import-nvprof` (legacy tables, MODEL.md section 5)", gpu,
                    major, minor);
        return NULL;
    }
    const td_arch *arch = choose_arch(chip, major, minor);
    const char *forced = g.opts.arch;
    if (!arch) {
        td_sw_error("no_arch_table", forced
                    ? "no arch table named '%s': `topdown list-archs` shows them"
                    : "no arch table for chip %s (CC %d.%d): add one to archs/ "
                    "(docs/ARCH_TABLES.md) or force one with --arch",
                    forced ? forced : chip, major, minor);
        return NULL;
    }
    if (arch->source != TD_SOURCE_RANGE_PROFILER) {
        td_sw_error("no_arch_table", "arch table %s holds nvprof metrics, which the Range "
                    "Profiler cannot collect; choose a CC >= 7.5 table", arch->name);
        return NULL;
    }
    const char *problem = support_problem(dev);
    if (problem) {
        td_sw_error("unsupported_gpu", "cannot profile %s: %s", gpu, problem);
        return arch;
    }
    if (td_pcs_only())
        return arch; /* --source-only: the table names the device, no counters */
    c->n_metrics = td_arch_metrics(arch, c->metrics, MAX_METRICS);
    c->duration_metric = arch->counter[TD_C_DURATION_NS];
    snprintf(c->chip, sizeof c->chip, "%s", chip);
    c->window = calloc(g.batch > ROTATION_RANGES ? g.batch : ROTATION_RANGES, sizeof *c->window);
    if (!c->window || open_profiler(c, arch) != 0) {
        report_open_failure(c, gpu);
        close_configs(c);
        td_rp_close(&c->rp);
        c->n_metrics = 0;
        return arch;
    }
    c->profiling = 1;
    return arch;
}

/* --pm-interval: the device's PM sampler instead of the context's Range
 * Profiler. Both program the same counters and CUPTI documents no way to
 * run them together, so launches are only timed (said once). */
static const td_arch *setup_pm_sampling(ctx_state *c, uint32_t device, const char *chip,
                                        int major, int minor)
{
    if (!g.pm_said) {
        g.pm_said = 1;
        td_sw_warning("--pm-interval: PM sampling and per-launch counters (the Range "
                      "Profiler) share the GPU's counters, so launches are only timed; the "
                      "level-1 split is in the PM timeline (topdown report FILE --pm-timeline)");
    }
    const td_arch *arch = choose_arch(chip, major, minor);
    if (!arch || arch->source != TD_SOURCE_RANGE_PROFILER || arch->n_pm_metrics == 0) {
        td_sw_error("no_arch_table", "no arch table with a \"pm_sampling\" set for chip %s "
                    "(CC %d.%d): no PM timeline (docs/ARCH_TABLES.md)", chip, major, minor);
        return arch;
    }
    snprintf(c->chip, sizeof c->chip, "%s", chip);
    td_pms_start(device, c->uid, chip, arch, g.pm_interval_ns, g.t0);
    return arch;
}

static void emit_device(const ctx_state *c, uint32_t device, const char *gpu,
                        const char *chip, int major, int minor, int sms, const td_arch *arch)
{
    cJSON *rec = td_sw_record("device");
    if (!rec)
        return;
    int cc[2] = {major, minor};
    cJSON_AddNumberToObject(rec, "context", c->uid);
    cJSON_AddNumberToObject(rec, "device", device);
    cJSON_AddStringToObject(rec, "name", gpu);
    cJSON_AddStringToObject(rec, "chip", chip);
    cJSON_AddItemToObject(rec, "cc", cJSON_CreateIntArray(cc, 2));
    cJSON_AddNumberToObject(rec, "sm_count", sms);
    cJSON_AddStringToObject(rec, "arch", arch ? arch->name : "none");
    cJSON_AddNumberToObject(rec, "passes", c->profiling ? (double)c->full_passes : 0);
    cJSON_AddNumberToObject(rec, "batch", (double)g.batch);
    if (g.flush_caches && c->profiling)
        cJSON_AddStringToObject(rec, "cache_control", c->flush.ready ? "all" : "none");
    cJSON_AddItemToObject(rec, "metrics", cJSON_CreateStringArray(c->metrics,
                                                                   (int)c->n_metrics));
    if (c->profiling && c->n_group_cfg) {
        cJSON *groups = cJSON_AddArrayToObject(rec, "groups");
        for (size_t gi = 0; gi < c->n_group_cfg; gi++) {
            int ints[TD_MAX_GROUP_METRICS];
            for (size_t i = 0; i < c->groups.size[gi]; i++)
                ints[i] = (int)c->group_metric[gi][i];
            cJSON_AddItemToArray(groups, cJSON_CreateIntArray(ints, (int)c->groups.size[gi]));
        }
    }
    td_sw_emit(rec);
}

/* --cache-control all: where it cannot be set up, the context's launches
 * are measured unflushed, and the device record and a warning say so. */
static void setup_flush(ctx_state *c, CUdevice dev)
{
    char why[256];
    if (!g.flush_caches || !c->profiling || td_flush_open(&c->flush, dev, why, sizeof why) == 0)
        return;
    td_sw_warning("--cache-control all: cannot flush the caches of context %u (%s); its "
                  "launches are measured with the caches as the app left them", c->uid, why);
}

static void setup_context(ctx_state *c)
{
    uint32_t device = 0;
    CUdevice dev = 0;
    char gpu[256] = "unknown GPU";
    int major = 0, minor = 0, sms = 0;
    cuptiGetDeviceId(c->ctx, &device);
    cuDeviceGet(&dev, (int)device);
    cuDeviceGetName(gpu, sizeof gpu, dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = device;
    if (cuptiDeviceGetChipName(&chip) != CUPTI_SUCCESS || !chip.pChipName)
        chip.pChipName = "unknown";
    double t0 = now_s();
    const td_arch *arch = g.pm_interval_ns
                              ? setup_pm_sampling(c, device, chip.pChipName, major, minor)
                              : setup_profiler(c, dev, gpu, chip.pChipName, major, minor);
    setup_flush(c, dev);
    emit_device(c, device, gpu, chip.pChipName, major, minor, sms, arch);
    td_pcs_context_start(c->ctx, c->uid); /* --source; after the profiler is set up */
    g.setup_s += now_s() - t0;
}

static ctx_state *context_for(CUcontext ctx, uint32_t uid)
{
    for (ctx_state *c = g.contexts; c; c = c->next)
        if (c->uid == uid)
            return c;
    ctx_state *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ctx = ctx;
    c->uid = uid;
    setup_context(c);
    c->next = g.contexts;
    g.contexts = c;
    return c;
}

static void forget_context(uint32_t uid)
{
    for (ctx_state **p = &g.contexts; *p; p = &(*p)->next) {
        ctx_state *c = *p;
        if (c->uid != uid)
            continue;
        close_window(c);
        td_pcs_context_end(c->ctx, uid);
        close_configs(c);
        td_rp_close(&c->rp);
        td_pms_context_ending(uid);
        if (c->flush.ready && cuCtxPushCurrent(c->ctx) == CUDA_SUCCESS) {
            CUcontext popped;
            td_flush_close(&c->flush);
            cuCtxPopCurrent(&popped);
        }
        td_progress_free(&c->progress);
        *p = c->next;
        free(c->window);
        free(c);
        return;
    }
}

/* ---- launches ----------------------------------------------------------- */

static int is_per_thread(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
}

/* Grid, block and stream from the launch call's parameters. The _ptsz
 * variants have the same layout as the plain ones. */
static CUfunction read_shape(CUpti_CallbackId cbid, const void *params, launch_rec *l,
                             CUstream *stream)
{
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        const cuLaunchKernelEx_params *p = params;
        const CUlaunchConfig *cfg = p->config;
        if (cfg) {
            unsigned grid[3] = {cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ};
            unsigned block[3] = {cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ};
            memcpy(l->grid, grid, sizeof grid);
            memcpy(l->block, block, sizeof block);
            *stream = cfg->hStream;
        }
        return p->f;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
        const cuLaunchCooperativeKernel_params *p = params;
        unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
        unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
        memcpy(l->grid, grid, sizeof grid);
        memcpy(l->block, block, sizeof block);
        *stream = p->hStream;
        return p->f;
    }
    const cuLaunchKernel_params *p = params;
    unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
    unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    memcpy(l->grid, grid, sizeof grid);
    memcpy(l->block, block, sizeof block);
    *stream = p->hStream;
    return p->f;
}

/* A launch into a stream being captured only adds a node to a CUDA graph:
 * nothing runs now, so it is neither a launch nor a range. */
static int is_captured(CUstream stream, int per_thread)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!stream && per_thread)
        stream = CU_STREAM_PER_THREAD;
    if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return 0;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* A launch (or graph launch) is being profiled: count it, and time what it
 * costs from t0, its enter callback, to its exit callback. */
static void begin_profiled_launch(ctx_state *c, const launch_rec *l, double t0)
{
    td_filter_count_profiled(&g.filter);
    progress_of(c, l->kernel)->profiled++;
    g.in_profiled_launch = 1;
    g.launch_t0 = t0;
}

/* Its cost, less the waits for the app's own GPU work. */
static void end_profiled_launch(void)
{
    double cost = now_s() - g.launch_t0 - g.waited_s - g.excluded_in_launch_s;
    if (g.launch_covers) {
        g.coverage_s += cost;
    } else {
        g.budget.spent_s += cost;
        if (g.launch_kernel)
            g.launch_kernel->budget_spent_s += cost;
    }
    g.launch_kernel = NULL;
    g.waited_s = 0;
    g.excluded_in_launch_s = 0;
    g.launch_covers = 0;
    g.in_profiled_launch = 0;
}

/* Measures a chosen launch. Its clock runs from t0, its enter callback:
 * what setting it up spends (the batch before it written, another
 * configuration) is its cost, also when it then could not be measured. */
static int profile_launch(ctx_state *c, launch_rec *l, double t0)
{
    g.in_profiled_launch = 1; /* close_window: the launch pays */
    g.launch_t0 = t0;
    g.launch_kernel = l->kernel;
    if (add_to_window(c, l)) {
        begin_profiled_launch(c, l, t0);
        return 1;
    }
    end_profiled_launch();
    return 0;
}

/* Loads the module of a kernel about to be launched for the first time (the
 * runtime passes a CUkernel where the driver API takes a CUfunction). */
static void load_module_of(CUfunction f)
{
    if (cuFuncLoad(f) != CUDA_ERROR_INVALID_HANDLE)
        return;
    CUfunction in_context = NULL;
    if (cuKernelGetFunction(&in_context, (CUkernel)f) == CUDA_SUCCESS)
        cuFuncLoad(in_context);
}

static void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    pthread_mutex_lock(&g.lock);
    holding_launch = 1;
    in_our_code = 1;
    launch_rec l = {.corr = cb->correlationId, .group = TD_GROUP_ALL};
    CUstream stream = NULL;
    CUfunction f = read_shape(cbid, cb->functionParams, &l, &stream);
    g.current_ctx = NULL;
    if (is_captured(stream, is_per_thread(cbid))) {
        in_our_code = 0;
        return; /* its kernels show up as graph launches when the graph runs */
    }
    ctx_state *c = context_for(cb->context, cb->contextUid);
    l.id = next_launch_id();
    cuptiGetStreamIdEx(cb->context, stream, (uint8_t)is_per_thread(cbid), &l.stream);
    const char *mangled = cb->symbolName;
    if (!mangled && f)
        cuFuncGetName(&mangled, f);
    l.kernel = td_kernel_get(mangled, &g.filter);
    /* Lazy loading: load the kernel's module now, so that a module using
     * the device heap is known before its first launch is replayed. */
    if (l.kernel && l.kernel->launches == 0 && f)
        load_module_of(f);
    if (l.kernel && l.kernel->launches == 0)
        g.new_kernel_launch = g.launches;
    int profile = 0, nvtx_allows = 1;
    l.region = td_nvtx_launch_region(&nvtx_allows);
    if (c && c->profiling && l.kernel && !nvtx_allows) {
        l.kernel->launches++; /* outside --nvtx-include/--nvtx-exclude: timed only */
    } else if (c && c->profiling && l.kernel) {
        double t0 = now_s();
        g.waited_s = 0;
        g.excluded_in_launch_s = 0;
        g.launch_covers = 0;
        if (td_filter_allows(&g.filter, l.kernel, progress_of(c, l.kernel)->profiled) &&
            choose_config(c, l.kernel, &l, &l.group))
            profile = profile_launch(c, &l, t0);
    } else if (l.kernel) {
        l.kernel->launches++;
    }
    budget_count_launch(&l);
    if (c && !profile && !rotating(c))
        close_window(c); /* this launch must not become a range */
    g.current = l;
    g.current_ctx = c;
    g.current_profiled = profile;
    in_our_code = 0;
    /* g.lock stays held until the exit callback of this launch, so no
     * other thread can stop the profiler while this kernel is launched. */
}

static void launch_exit(const CUpti_CallbackData *cb)
{
    if (!holding_launch)
        return;
    in_our_code = 1;
    ctx_state *c = g.current_ctx;
    const CUresult *ret = cb->functionReturnValue;
    int ok = !ret || *ret == CUDA_SUCCESS;
    if (c && g.current_profiled) {
        if (!ok && c->n_window > 0)
            c->window[c->n_window - 1].failed = 1;
        if (rotating(c))
            end_sample(c);
        else if (c->n_window >= window_capacity(c->window_group))
            close_window(c);
        end_profiled_launch();
    } else if (c && ok) {
        emit_launch(c, &g.current, NULL);
    }
    g.launches += c && ok;
    if (c)
        td_pcs_tick(c->ctx, c->uid);
    g.current_ctx = NULL;
    in_our_code = 0;
    holding_launch = 0;
    pthread_mutex_unlock(&g.lock);
}

/* ---- CUDA graphs --------------------------------------------------------

 * The Range Profiler makes no range of a graph's kernel nodes (measured on
 * the H200, benchmarks/rp_modes.cu RP_GRAPH: auto range gives 0 ranges
 * with kernel replay and CUPTI_ERROR_UNKNOWN with user replay), but a user
 * range around the whole graph launch reads its counters exactly (4 nodes:
 * 4x one node's instructions). So a sampled graph launch is measured as a
 * whole, with the counter group the choice gives, as a pseudo-kernel "CUDA graph
 * N"; its kernels' times come from their activity records, and the model
 * gives them the graph's tree (levels/aggregate.c). */

static int graph_note_said;

/* The CUPTI id of a graph exec, which its kernels' records carry too. */
static uint32_t graph_exec_id(const CUpti_CallbackData *cb)
{
    const cuGraphLaunch_params *p = cb->functionParams;
    uint32_t id = 0;
    if (!p || cuptiGetGraphExecId(p->hGraph, &id) != CUPTI_SUCCESS)
        return 0;
    td_activity_graph_launch(cb->correlationId, id);
    return id;
}

/* A sampled graph launch's counter group (a graph is measured in one user
 * range, never replayed): --sample-every's points, else the choice's group
 * under the budget. A graph's own duration is not measured, so a time
 * period (--sample-every 5ms) gives a graph only its first point. */
static int graph_config(ctx_state *c, td_kernel *k, int *group)
{
    if (g.sample.unit == TD_SAMPLE_OFF)
        return choose_group(c, k, 0, group);
    if (!td_sample_decide(&g.sample, &k->sample, c->n_group_cfg, active_group(c), 0, group))
        return 0;
    td_sample_taken(&k->sample, c->n_group_cfg, *group);
    return 1;
}

static void say_graph_view(void)
{
    if (graph_note_said++)
        return;
    td_sw_warning("CUDA graphs: the range profiler gives no range per kernel node of a graph "
                  "launch, so each sampled graph launch is measured as a whole and its "
                  "kernels get the graph's tree (%s)",
                  g.graph_view ? "--graph-profiling graph"
                               : "--graph-profiling node is not possible here");
}

/* A graph launch runs kernels no launch callback sees: they must not fall
 * into an open batch. A sampled one is measured as a whole. */
static void graph_enter(const CUpti_CallbackData *cb)
{
    pthread_mutex_lock(&g.lock);
    holding_launch = 1;
    in_our_code = 1;
    ctx_state *c = context_for(cb->context, cb->contextUid);
    if (c && !rotating(c))
        close_window(c);
    launch_rec l = {.group = TD_GROUP_ALL, .grid = {1, 1, 1}, .block = {1, 1, 1},
                    .graph = graph_exec_id(cb)};
    int profile = 0, nvtx_allows = 1;
    l.region = td_nvtx_launch_region(&nvtx_allows);
    if (c && c->profiling && c->n_group_cfg && l.graph && nvtx_allows) {
        char name[64];
        snprintf(name, sizeof name, "CUDA graph %u", l.graph);
        l.kernel = td_kernel_get(name, &g.filter);
        double t0 = now_s();
        g.waited_s = 0;
        g.excluded_in_launch_s = 0;
        g.launch_covers = 0;
        say_graph_view();
        if (l.kernel && td_filter_allows(&g.filter, l.kernel, progress_of(c, l.kernel)->profiled) &&
            graph_config(c, l.kernel, &l.group)) {
            l.id = next_launch_id();
            profile = profile_launch(c, &l, t0);
        }
    }
    g.current = l;
    g.current_ctx = c;
    g.current_profiled = profile;
    in_our_code = 0;
}

static void graph_exit(void)
{
    if (!holding_launch)
        return;
    in_our_code = 1;
    ctx_state *c = g.current_ctx;
    if (c && g.current_profiled) {
        if (rotating(c))
            end_sample(c);
        else
            close_window(c);
        end_profiled_launch();
    }
    g.current_ctx = NULL;
    in_our_code = 0;
    holding_launch = 0;
    pthread_mutex_unlock(&g.lock);
}

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            graph_enter(cb);
        else
            graph_exit();
        return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER)
        launch_enter(cbid, cb);
    else
        launch_exit(cb);
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        const CUpti_ModuleResourceData *module = rd->resourceDescriptor;
        if (module && cubin_uses_device_heap(module->pCubin, module->cubinSize))
            g.device_heap = 1;
        if (module && td_pcs_enabled()) {
            pthread_mutex_lock(&g.lock); /* recursive: a launch may load it */
            td_pcs_module_loaded(module->pCubin, module->cubinSize);
            pthread_mutex_unlock(&g.lock);
        }
        return;
    }
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
        /* Continuous PC sampling must be read before a module goes: its
         * PCs may be reused by the next one. */
        uint32_t uid = 0;
        if (cuptiGetContextId(rd->context, &uid) == CUPTI_SUCCESS) {
            pthread_mutex_lock(&g.lock);
            td_pcs_collect(rd->context, uid);
            pthread_mutex_unlock(&g.lock);
        }
        return;
    }
    if (cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
        return;
    uint32_t uid = 0;
    if (cuptiGetContextId(rd->context, &uid) != CUPTI_SUCCESS)
        return;
    pthread_mutex_lock(&g.lock);
    in_our_code = 1;
    forget_context(uid);
    td_activity_flush();
    in_our_code = 0;
    pthread_mutex_unlock(&g.lock);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (td_flush_active)
        return; /* topdown's own cache flush, not the app's */
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        on_driver(cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
        on_resource(cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_NVTX)
        td_nvtx_callback(cbid, data);
}

/* ---- flushing at exit and on signals ------------------------------------ */

static void flush_all(void)
{
    for (ctx_state *c = g.contexts; c; c = c->next)
        close_window(c);
    td_pms_stop_all();
    td_activity_flush();
}

static void emit_end(void)
{
    cJSON *rec = td_sw_record("end");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "launches", (double)g.launches);
    cJSON_AddNumberToObject(rec, "profiled", (double)g.profiled);
    cJSON_AddNumberToObject(rec, "budget_skipped", (double)g.budget_skipped);
    cJSON_AddNumberToObject(rec, "replay_failures", (double)g.replay_failures);
    cJSON_AddNumberToObject(rec, "profiling_s", g.budget.spent_s);
    cJSON_AddNumberToObject(rec, "setup_s", g.setup_s);
    cJSON_AddNumberToObject(rec, "coverage_s", g.coverage_s);
    cJSON_AddNumberToObject(rec, "switch_s", g.switch_s);
    cJSON_AddNumberToObject(rec, "switches", (double)g.switches);
    cJSON_AddNumberToObject(rec, "decode_s", g.decode_s);
    cJSON_AddNumberToObject(rec, "elapsed_s", now_s() - g.budget.start_s);
    td_sw_emit(rec);
}

static void at_exit(void)
{
    static int done;
    if (getpid() != g.pid || done++)
        return; /* a fork()ed child: the parent flushes its own state */
    pthread_mutex_lock(&g.lock);
    in_our_code = 1;
    flush_all();
    td_pcs_end_all();
    emit_end();
    td_sw_unbuffer(); /* the end record out; any later record goes straight out */
    in_our_code = 0;
    pthread_mutex_unlock(&g.lock);
}

static const int handled_signals[] = {SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction previous[65];

/* The process is about to die of sig: keep what was measured. Not every
 * call here is async-signal-safe, so batches are closed only when no thread
 * is inside topdown's code; the spool's buffer is written unless this
 * thread was inside the writer; an alarm ends the process if it hangs. */
static void flush_before_dying(int sig)
{
    alarm(10);
    if (!in_our_code && getpid() == g.pid && pthread_mutex_trylock(&g.lock) == 0) {
        in_our_code = 1;
        flush_all();
        cJSON *rec = td_sw_record("signal");
        if (rec) {
            cJSON_AddNumberToObject(rec, "signal", sig);
            td_sw_emit(rec);
        }
        in_our_code = 0;
        pthread_mutex_unlock(&g.lock);
    }
    td_sw_flush(); /* the lines buffered so far, whatever the state */
    alarm(0);
}

/* TOPDOWN_DEBUG: where a crash happened, on stderr (the process dies
 * anyway; backtrace() was warmed up at start, so it does not allocate). */
static int backtrace_on_crash;

static void say_backtrace(int sig)
{
    if (!backtrace_on_crash || (sig != SIGSEGV && sig != SIGBUS && sig != SIGABRT))
        return;
    void *frames[48];
    int n = backtrace(frames, 48);
    static const char head[] = "topdown-debug: crash backtrace:\n";
    if (write(2, head, sizeof head - 1) > 0)
        backtrace_symbols_fd(frames, n, 2);
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved_errno = errno;
    say_backtrace(sig);
    struct sigaction *prev = &previous[sig];
    if (prev->sa_handler != SIG_DFL)
        td_sw_flush(); /* the app's handler may _exit */
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, info, uctx); /* the app handles it */
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
    } else if (prev->sa_handler == SIG_DFL) {
        flush_before_dying(sig);
        sigaction(sig, prev, NULL); /* die as the app would have */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
    }
    errno = saved_errno;
}

static void install_signal_handlers(void)
{
    if ((backtrace_on_crash = td_debug_on())) {
        void *warm[2];
        backtrace(warm, 2); /* loads libgcc now, not in the handler */
    }
    for (size_t i = 0; i < sizeof handled_signals / sizeof *handled_signals; i++) {
        int sig = handled_signals[i];
        if (sigaction(sig, NULL, &previous[sig]) != 0 || previous[sig].sa_handler == SIG_IGN)
            continue; /* an ignored signal stays ignored */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
}

/* ---- initialisation ----------------------------------------------------- */

static const CUpti_CallbackId launch_callbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

static void emit_start(void)
{
    cJSON *rec = td_sw_record("start");
    if (!rec)
        return;
    cJSON_AddStringToObject(rec, "format", TD_SPOOL_FORMAT);
    cJSON_AddStringToObject(rec, "tool_version", TOPDOWN_VERSION);
    cJSON_AddStringToObject(rec, "replay_mode", td_replay_mode_word(g.mode));
    cJSON_AddStringToObject(rec, "cache_control", g.flush_caches ? "all" : "none");
    cJSON_AddNumberToObject(rec, "overhead_pct", g.budget.overhead * 100);
    td_sw_emit(rec);
}

static size_t batch_of(const td_collect_opts *o)
{
    long v = o->batch;
    if (v <= 0)
        return DEFAULT_BATCH;
    return v > MAX_BATCH ? MAX_BATCH : (size_t)v;
}

/* The replay mode, the budget (TOPDOWN_OVERHEAD in %; 0: none) and the
 * other ways of collecting. */
static void collection_from_opts(const td_collect_opts *o)
{
    g.mode = o->replay_mode;
    double pct = o->overhead_pct;
    g.budget.overhead = pct > 0 ? pct / 100 : 0;
    g.graph_view = o->graph_view;
    g.pm_interval_ns = o->pm_interval_ns;
    g.flush_caches = o->flush_caches;
    g.no_rotation = o->no_rotation; /* for comparisons */
    td_error err = {{0}};
    if (td_sample_every_parse(o->sample_every, &g.sample, &err) != 0)
        snprintf(g.sample_error, sizeof g.sample_error, "%s", err.msg); /* after start */
    /* Explicit counts and periods are the user's cost decision: no budget
     * on top. */
    g.budgeted = g.budget.overhead > 0 && g.filter.per_kernel < 0 && g.filter.launch_count < 0 &&
                 g.sample.unit == TD_SAMPLE_OFF;
}

/* --source: PC samples are kept for the kernels -k selects. */
static int pcs_selected(const char *function)
{
    td_kernel *k = td_kernel_get(function, &g.filter);
    return k && k->matches;
}

static int subscribe(void)
{
    CUptiResult res = cuptiSubscribe(&g.subscriber, on_callback, NULL);
    if (res == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        td_sw_error("multiple_subscribers",
                    "another profiler is already attached to this process "
                    "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): run topdown on its own, "
                    "not under ncu, nsys or another CUPTI-based tool");
        return -1;
    }
    if (res != CUPTI_SUCCESS) {
        const char *name = "?";
        cuptiGetResultString(res, &name);
        td_sw_error("cupti_failed", "CUPTI could not attach to the app (cuptiSubscribe: %s)",
                    name);
        return -1;
    }
    cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_MODULE_LOADED);
    if (td_pcs_enabled())
        cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
    for (size_t i = 0; i < sizeof launch_callbacks / sizeof *launch_callbacks; i++)
        cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, launch_callbacks[i]);
    td_nvtx_enable(g.subscriber);
    return 0;
}

TD_EXPORT int InitializeInjection(void)
{
    if (g.initialized)
        return 1;
    g.initialized = 1;
    g.pid = getpid();
    g.budget.start_s = now_s();
    char msg[512];
    int opts_ok = td_collect_opts_read(&g.opts, td_collect_getenv, msg, sizeof msg) == 0;
    td_debug_init(g.opts.debug);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g.lock, &attr);
    pthread_mutexattr_destroy(&attr);

    if (!g.opts.spool || td_sw_open(g.opts.spool) != 0)
        return 1; /* nowhere to report: stay out of the app's way */
    atexit(at_exit);
    /* the options' refusals are the filter's (collect_opts.h) */
    int filter_ok = td_filter_from_opts(&g.filter, &g.opts, msg, sizeof msg) == 0 && opts_ok;
    g.batch = batch_of(&g.opts);
    collection_from_opts(&g.opts);
    td_pcs_init(pcs_selected, &g.opts);
    emit_start();
    if (!filter_ok)
        td_sw_error("bad_option", "%s; every launch is profiled", msg);
    if (g.sample_error[0])
        td_sw_error("bad_option", "%s; profiled as without it", g.sample_error);
    if (td_nvtx_setup(g.opts.nvtx_include, g.opts.nvtx_exclude, msg, sizeof msg) != 0)
        td_sw_error("bad_option", "%s; no NVTX filter is applied", msg);
    free(td_demangle("_Z4warmv")); /* load the demangler before threads race */
    cuptiGetTimestamp(&g.t0);
    if (subscribe() != 0)
        return 1;
    if (!g.opts.no_timing && td_activity_start(g.t0, next_launch_id, !g.opts.no_copies) != 0)
        td_sw_warning("CUPTI kernel timing is unavailable: unprofiled launches have no "
                      "duration");
    install_signal_handlers();
    return 1;
}
