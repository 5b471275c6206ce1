/* CUDA graph launches: the open batch closed before one, a sampled one
 * measured as a whole in one user range. */
#include <stdio.h>

#include "topdown/inject/graphs.h"

#include "topdown/inject/activity.h"
#include "topdown/inject/contexts.h"
#include "topdown/inject/launch_gate.h"
#include "topdown/inject/measure_policy.h"
#include "topdown/inject/measured_launch.h"
#include "topdown/inject/nvtx.h"
#include "topdown/inject/spool_writer.h"
#include "topdown/inject/state.h"
#include "topdown/inject/window.h"

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
    if (td_g.sample.unit == TD_SAMPLE_OFF)
        return choose_group(c, k, 0, group);
    if (!td_sample_decide(&td_g.sample, &k->sample, c->n_group_cfg, active_group(c), 0, group))
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
                  td_g.graph_view ? "--graph-profiling graph"
                               : "--graph-profiling node is not possible here");
}

/* A graph launch runs kernels no launch callback sees: they must not fall
 * into an open batch. A sampled one is measured as a whole. */
void graph_enter(const CUpti_CallbackData *cb)
{
    td_gate_enter_exclusive(); /* a graph's kernels are no launch of ours to trace */
    pthread_mutex_lock(&td_g.lock);
    holding_launch = 1;
    in_our_code = 1;
    ctx_state *c = context_for(cb->context, cb->contextUid);
    if (c)
        collector_of(c)->unmeasured(c);
    launch_rec l = {.group = TD_GROUP_ALL, .grid = {1, 1, 1}, .block = {1, 1, 1},
                    .graph = graph_exec_id(cb)};
    int profile = 0, nvtx_allows = 1;
    l.region = td_nvtx_launch_region(&nvtx_allows);
    if (c && c->profiling && c->n_group_cfg && l.graph && nvtx_allows) {
        char name[64];
        snprintf(name, sizeof name, "CUDA graph %u", l.graph);
        l.kernel = td_kernel_get(name, &td_g.filter);
        double t0 = now_s();
        td_g.waited_s = 0;
        td_g.excluded_in_launch_s = 0;
        td_g.launch_covers = 0;
        say_graph_view();
        if (l.kernel &&
            td_filter_allows(&td_g.filter, l.kernel, progress_of(c, l.kernel)->profiled) &&
            graph_config(c, l.kernel, &l.group)) {
            l.id = next_launch_id();
            profile = profile_launch(c, &l, t0);
        }
    }
    td_current = l;
    td_current_ctx = c;
    td_current_profiled = profile;
    in_our_code = 0;
}

void graph_exit(void)
{
    if (!holding_launch)
        return;
    in_our_code = 1;
    ctx_state *c = td_current_ctx;
    if (c && td_current_profiled) {
        collector_of(c)->graph_end(c);
        end_profiled_launch();
    }
    td_gate_leave_launch();
}
