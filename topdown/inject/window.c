/* A context's window: what its Range Profiler holds, in the collector the
 * configuration in use picks (the batch or the rotation). A chosen launch
 * goes into the window of its configuration (selected here, which may
 * close the window of another first); close_window writes what the window
 * holds. */
#include <stdlib.h>

#include "topdown/inject/window.h"

#include "topdown/inject/batch.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/measure_policy.h"
#include "topdown/inject/rotation.h"
#include "topdown/inject/spool_writer.h"

/* The Range Profiler's collectors, by the configuration in use. */
enum { TD_COLLECT_BATCH, TD_COLLECT_ROTATION };
static const td_collector *const collectors[] = {
    [TD_COLLECT_BATCH] = &td_batch_collector,
    [TD_COLLECT_ROTATION] = &td_rotation_collector,
};

const td_collector *collector_of(const ctx_state *c)
{
    return collectors[rotating(c) ? TD_COLLECT_ROTATION : TD_COLLECT_BATCH];
}

/* Writes what the profiler holds: the open batch, or the rotation's cycle. */
void close_window(ctx_state *c)
{
    close_window_with(c, collector_of(c)->flush);
}

static td_rp_config *config_of(ctx_state *c, int group)
{
    if (group == TD_GROUP_ALL)
        return &c->full;
    return c->has_rotation ? &c->rotation : &c->group_cfg[group];
}

/* exit.c's at_exit, handed down by InitializeInjection (exit.c is above
 * this file: it closes the windows). */
static void (*exit_flush)(void);

void set_exit_flush(void (*at_exit)(void))
{
    exit_flush = at_exit;
}

/* exit() runs atexit handlers in the reverse order of their registration,
 * and CUPTI loads libnvperf_host (whose destructors free what a decode
 * needs) only at its first profiler host call, after InitializeInjection
 * registered at_exit: a decode at exit then corrupted the heap (issue 24,
 * the PM sampler's; a batch left open at exit, the Range Profiler's). So
 * at_exit is registered again once a configuration was built; it runs
 * once. (exit_flush is set before any callback can get here.) */
static void register_exit_after_cupti(void)
{
    static int registered;
    if (!registered++ && exit_flush)
        atexit(exit_flush);
}

/* Makes the launch's configuration active (a fresh profiler object when
 * it is another one); 0 when it is. A rotation CUPTI cannot build gives
 * way to a configuration per group. */
static int select_config(ctx_state *c, const launch_rec *l)
{
    if (!profiling_supported(c))
        return -1;
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
