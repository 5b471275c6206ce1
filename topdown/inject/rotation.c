/* The rotation: the replay-free counter groups as the passes of one
 * configuration, a sampled launch a user range in its group's session,
 * the image decoded once every pass was measured. */
#include "topdown/inject/rotation.h"

#include <stdio.h>
#include <stdlib.h>

#include "topdown/inject/debug.h"
#include "topdown/inject/emit.h"

/* ---- the rotation ----------------------------------------------------------
 * One configuration whose passes are the counter groups (pass_groups.h):
 * a session (Start..Stop) measures one pass, the next session the next;
 * each sampled launch is a user range named after its launch id in the
 * session of its group's pass, and the image is decoded once the last
 * pass ended. Moving to another group costs a Stop and a Start (about
 * 5-13 ms on the H100) where a configuration of its own costs a fresh
 * profiler object (150-250 ms at its first Start). */

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
    if (c->n_window + c->rotation.passes + 1 >= c->rotation_ranges)
        finish_cycle(c);
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

/* Nothing to close before a launch that is not sampled: it falls outside
 * the rotation's user ranges (each pushed around its own launch, with the
 * work queued before it drained). */
static void keep_cycle(ctx_state *c)
{
    (void)c;
}

/* The rotation's collector: a sampled launch (or graph launch) is a user
 * range in its group's session; the image is decoded once every pass was
 * measured or it is full. */
const td_collector td_rotation_collector = {
    .name = "rotation",
    .launch_begin = add_to_rotation,
    .launch_end = end_sample,
    .graph_end = end_sample,
    .unmeasured = keep_cycle,
    .flush = finish_cycle,
};
