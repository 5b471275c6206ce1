#include "report/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "levels/estimate.h" /* TD_EST_KIND_GAP */
#include "levels/spread.h"
#include "report/columns.h"
#include "report/comm.h"
#include "report/copies.h"
#include "report/kname.h"
#include "report/launch_report.h"
#include "report/select.h"
#include "report/throughput.h"
#include "report/wrap.h"

/* How far below the GPU's clock a kernel's median measured clock is said. */
#define TD_CLOCK_LOW 0.10

#define NAME_WIDTH 52
/* A tree line's columns but its name's: area, "% Slots", the share, a
 * spread and the bottleneck mark. */
#define TREE_LINE_REST 35

/* The node column: NAME_WIDTH, narrower on a narrow terminal (not under
 * --wide), so that a tree line stays one line. */
static int name_width(const td_report_options *o)
{
    int fit = td_text_width() - TREE_LINE_REST;
    return o->wide || fit >= NAME_WIDTH ? NAME_WIDTH : fit;
}
#define MAX_DESCRIBED 256

void td_report_options_init(td_report_options *o)
{
    memset(o, 0, sizeof *o);
    o->level = 1;
    o->max_kernels = 10;
    o->spread_threshold = TD_SPREAD_THRESHOLD_DEFAULT;
}

/* The nodes whose description the report printed: each once. */
typedef struct described_set {
    const char *paths[MAX_DESCRIBED];
    int n;
} described_set;

typedef struct tree_ctx {
    FILE *out;
    const td_model *model;
    const td_breakdown *b;
    const td_breakdown *spread;
    const td_verdict *v;
    const td_report_options *o;
    described_set *described;
    const char *fix;   /* the bottleneck's advice in place of its node's
                          (communication kernels'); NULL: the node's */
    const double *throughput; /* each memory unit's % of peak (NAN: not measured):
                                 a level-5 source's Fix reads its unit's */
} tree_ctx;

/* 1 the first time a path is asked about. */
static int first_time(described_set *d, const char *path)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->paths[i], path) == 0)
            return 0;
    if (d->n < MAX_DESCRIBED)
        d->paths[d->n++] = path;
    return 1;
}

/* The "Fix: ..." advice of a node's record (a stall reason: its node's). */
static const char *node_fix(const td_model *m, int node)
{
    while (node >= 0 && !m->tree[node].record)
        node = m->tree[node].parent;
    const char *text = node >= 0 ? m->tree[node].record->long_desc : NULL;
    return text ? strstr(text, "Fix: ") : NULL;
}

/* The node's 95% interval (" +-1.1", " +1.1-0.4") where it reaches
 * farther than the threshold (0: always). */
static void print_spread(const tree_ctx *t, int node)
{
    double value = t->b->value[node];
    td_interval in = td_spread_interval(value, t->spread->value[node]);
    char text[64];
    if (t->o->spread_threshold <= 0 || td_interval_reach(value, in) > t->o->spread_threshold)
        fprintf(t->out, " %s", td_interval_text(value, in, text, sizeof text));
}

static void print_line(const tree_ctx *t, int node, int below)
{
    const td_tree_node *n = &t->model->tree[node];
    int bottleneck = td_verdict_names_node(t->v, t->o->level, node);
    if (!td_node_known(t->model, t->b, node)) {
        /* a stall split that was not made (n/m), an interval too wide to
         * give a number (n/k): no value, never a guess; marked where it
         * leads its siblings whatever its value (td_breakdown.leads) */
        fprintf(t->out, "  %-4s  %-*s  %% Slots %6s%s\n", n->area, name_width(t->o), n->path,
                td_node_measured(t->model, t->b, node) ? TD_NOT_KNOWN : TD_NOT_MEASURED,
                bottleneck ? "  <==" : "");
        return;
    }
    /* coloured on a terminal: the bottleneck, the other losses over their threshold */
    const char *mark = bottleneck ? TD_MARK_ALERT
                       : td_kind_is_loss(n->kind) && t->v->over[node] && !below ? TD_MARK_NOTE
                                                                                : "";
    fprintf(t->out, "  %s%-4s  %-*s  %% Slots %6.1f", mark, n->area, name_width(t->o), n->path,
            100.0 * t->b->value[node]);
    print_spread(t, node);
    fputs(below ? " <" : "", t->out);
    fputs(bottleneck ? "  <==" : "", t->out);
    fputs(*mark ? TD_MARK_END "\n" : "\n", t->out);
    if (t->o->no_desc)
        return;
    if (t->o->desc || (bottleneck && first_time(t->described, n->path))) {
        if (n->stall_map)
            fprintf(t->out, "        Stall reason %s (%s).\n", n->stall_map->reason,
                    n->stall_map->metric);
        else if (n->source_map && n->source_map->desc)
            fprintf(t->out, "        %s's waits on %s (%s), %.0f cycles each.\n",
                    t->model->tree[n->parent].name, n->source_map->desc, n->source_map->metric,
                    n->source_map->latency_cycles);
        else if (n->source_map)
            fprintf(t->out, "        %s's waits on the loads %s counts, by sectors x latency "
                    "(%.0f cycles).\n", t->model->tree[n->parent].name, n->source_map->metric,
                    n->source_map->latency_cycles);
        else
            fprintf(t->out, "        %s\n", n->record->desc);
    }
    char sol_fix[400];
    const char *fix = !bottleneck ? NULL
                      : t->fix    ? t->fix
                      : td_source_fix(t->model, node, t->throughput, sol_fix, sizeof sol_fix)
                          ? sol_fix
                      : n->source_map && n->source_map->fix ? n->source_map->fix
                                                            : node_fix(t->model, node);
    if (fix)
        fprintf(t->out, "        %s\n", fix);
}

/* As toplev: level 1 is the whole split and always shown; a deeper node
 * is hidden unless -v when it or an ancestor is under its threshold, and
 * with -v such nodes are marked '<'. */
static void print_subtree(const tree_ctx *t, int node, int ancestor_below)
{
    const td_tree_node *n = &t->model->tree[node];
    if (n->level > t->o->level || !n->measured || !td_node_present(t->model, t->b, node) ||
        !td_node_selected(t->o->nodes, n->path))
        return;
    int below = ancestor_below || (td_kind_is_loss(n->kind) && !t->v->over[node]);
    if (below && n->level > 1 && !t->o->verbose)
        return;
    print_line(t, node, below && t->o->verbose);
    for (int child = td_model_next_child(t->model, node, -1); child >= 0;
         child = td_model_next_child(t->model, node, child))
        print_subtree(t, child, below);
}

/* Without a bottleneck, why: most slots unattributed (too little data),
 * the largest level-1 node is Retire (the slots are used), or no loss is
 * over its threshold. */
static void print_no_bottleneck(const tree_ctx *t)
{
    if (t->v->bottleneck[t->o->level] >= 0 || !t->b->has_slots)
        return;
    if (t->v->not_known) {
        fputs("        No verdict: its level-1 shares are not known (n/k)\n", t->out);
        return;
    }
    if (t->v->not_enough_data) {
        fprintf(t->out, "        Not enough data: %.1f%% of slots Unattributed, no verdict; "
                "--overhead unlimited\n        measures more launches, --replay-mode kernel "
                "every stall reason of each launch\n", 100.0 * t->b->unattributed);
        return;
    }
    int largest = -1;
    for (int n = td_model_next_child(t->model, -1, -1); n >= 0;
         n = td_model_next_child(t->model, -1, n))
        if (largest < 0 || t->b->value[n] > t->b->value[largest])
            largest = n;
    if (largest >= 0 && !td_kind_is_loss(t->model->tree[largest].kind))
        fprintf(t->out, "        %s-bound (%.1f%% of slots): no loss over its threshold, "
                "no bottleneck\n", t->model->tree[largest].path,
                100.0 * t->b->value[largest]);
    else
        fputs("        No bottleneck: no loss over its threshold\n", t->out);
}

static void print_tree(FILE *out, const td_model *m, const td_breakdown *b,
                       const td_breakdown *spread, const td_verdict *v,
                       const td_report_options *o, described_set *d, const char *fix,
                       const double *throughput)
{
    tree_ctx t = {out, m, b, spread, v, o, d, fix, throughput};
    for (int n = td_model_next_child(m, -1, -1); n >= 0; n = td_model_next_child(m, -1, n))
        print_subtree(&t, n, 0);
    print_no_bottleneck(&t);
    if (b->unattributed <= 0.0005)
        return;
    fprintf(out, "  %-4s  %-*s  %% Slots %6.1f\n", "--", name_width(o), "Unattributed",
            100.0 * b->unattributed);
    if (o->no_desc)
        fputs("        \n", out);
    else if (o->desc || first_time(d, "Unattributed"))
        fputs("        Stalled slots not split: launches that recorded no stall sample, or\n"
              "        kernels whose stall reasons were not all measured.\n", out);
}

/* Profiled launches that measured one counter group. */
static size_t groups_used(const td_result *res)
{
    size_t n = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++)
            n += res->devices[d].launches[i].profiled && res->devices[d].launches[i].group >= 0;
    return n;
}

/* A kernel's share of the GPU time in percent; 0 when it is no finite
 * number (durations near the double's limit). */
static double time_share_pct(const td_summary *s, const td_kernel_summary *ks)
{
    double pct = s->total_ns > 0 ? 100.0 * (ks->total_ns / s->total_ns) : 0;
    return isfinite(pct) ? pct : 0;
}

/* The kernels of 1% of GPU time or more whose stall split was not made,
 * and what completes them. */
static void print_incomplete(FILE *out, const td_summary *s)
{
    size_t listed = 0, others = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        if (!ks->mean.reasons_missing)
            continue;
        if (time_share_pct(s, ks) < 1.0 || listed == 5) {
            others++;
            continue;
        }
        fprintf(out, "%s#%zu (%.1f%%)", listed ? ", " : "NOTE:     stall split not measured "
                "(too few launches for every counter group): kernel ", k + 1,
                time_share_pct(s, ks));
        listed++;
    }
    if (listed)
        fprintf(out, "%s; --replay-mode kernel completes them, or --replay-mode application "
                "where kernel replay cannot (device heap, CUDA graphs)\n",
                others ? ", and others under 1% of GPU time" : "");
}

/* Level-1 spread, in points, past which a kernel is listed as unsure. */
#define TD_SPREAD_UNSURE 10.0

/* The widest of b's level-1 nodes the kernel measured, in points. */
static double widest_level1(const td_summary *s, const td_kernel_summary *ks,
                            const td_breakdown *b)
{
    const td_model *m = &s->models[ks->model];
    double widest = 0;
    for (int n = td_model_next_child(m, -1, -1); n >= 0; n = td_model_next_child(m, -1, n))
        if (td_node_measured(m, &ks->mean, n) && 100.0 * b->value[n] > widest)
            widest = 100.0 * b->value[n];
    return widest;
}

/* The widest spread of a kernel's level-1 nodes, in points. */
static double widest_level1_spread(const td_summary *s, const td_kernel_summary *ks)
{
    return widest_level1(s, ks, &ks->spread);
}

/* Whether most of the kernel's level-1 spread is kernel replay and the
 * counter groups disagreeing: measuring more launches would not narrow it. */
static int conditions_dominate(const td_summary *s, const td_kernel_summary *ks)
{
    return widest_level1(s, ks, &ks->conditions) >= 0.5 * widest_level1_spread(s, ks);
}

/* A kernel's level-1 width in points, over TD_SPREAD_UNSURE to be listed. */
typedef double (*level1_width_fn)(const td_summary *s, const td_kernel_summary *ks);

/* Lists, after head, the first 5 kernels of 1% of GPU time or more whose
 * width is over TD_SPREAD_UNSURE; the number listed, and the widest finite
 * width in *widest. */
static size_t list_wide_kernels(FILE *out, const td_summary *s, level1_width_fn width,
                                const char *head, double *widest)
{
    size_t listed = 0;
    *widest = 0;
    for (size_t k = 0; k < s->n_kernels && listed < 5; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        double w = ks->has_data ? width(s, ks) : 0;
        if (!(w > TD_SPREAD_UNSURE) || time_share_pct(s, ks) < 1.0)
            continue;
        fprintf(out, "%s#%zu (%.1f%%)", listed ? ", " : head, k + 1, time_share_pct(s, ks));
        if (isfinite(w) && w > *widest)
            *widest = w;
        listed++;
    }
    return listed;
}

/* Whether some node of b down to level is not known (n/k). */
static int some_not_known(const td_model *m, const td_breakdown *b, int level)
{
    for (int n = 0; n < m->n_tree; n++)
        if (m->tree[n].level <= level && td_node_present(m, b, n) &&
            td_node_measured(m, b, n) && !td_node_known(m, b, n))
            return 1;
    return 0;
}

/* The kernels of 1% of GPU time or more with nodes down to level not
 * known (their 95% interval wider than TD_SPREAD_KNOWN_MAX); each
 * kernel's own NOTE says why and what measures it. */
static void print_not_known(FILE *out, const td_summary *s, int level)
{
    size_t listed = 0, others = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        if (!ks->has_data || !some_not_known(&s->models[ks->model], &ks->mean, level))
            continue;
        if (time_share_pct(s, ks) < 1.0 || listed == 5) {
            others++;
            continue;
        }
        if (!listed)
            fprintf(out, "NOTE:     not known (n/k: a 95%% interval wider than %.0f points): "
                    "kernel ", 100.0 * TD_SPREAD_KNOWN_MAX);
        fprintf(out, "%s#%zu (%.1f%%)", listed ? ", " : "", k + 1, time_share_pct(s, ks));
        listed++;
    }
    if (listed)
        fprintf(out, "%s; each kernel's NOTE says why and what measures it\n",
                others ? ", and others under 1% of GPU time" : "");
}

/* The kernels of 1% of GPU time or more whose measured launches were all
 * far shorter than much of their time (launch_stats.h, TD_BEYOND_NOTE). */
static void print_beyond_measured(FILE *out, const td_summary *s)
{
    size_t listed = 0;
    for (size_t k = 0; k < s->n_kernels && listed < 5; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        double beyond = td_launch_beyond_share(&ks->launch);
        if (time_share_pct(s, ks) < 1.0 || beyond < TD_BEYOND_NOTE)
            continue;
        if (!listed)
            fprintf(out, "NOTE:     most of a kernel's time in launches over %.0fx longer than any "
                    "it measured (its tree stands for its shorter launches): kernel ",
                    TD_BEYOND_MEASURED);
        fprintf(out, "%s#%zu (%.1f%% of GPU time, %.0f%% of its own)", listed ? ", " : "", k + 1,
                time_share_pct(s, ks), 100.0 * beyond);
        listed++;
    }
    if (listed)
        fputs("; --overhead unlimited measures every launch\n", out);
}

/* Why a kernel's nodes are not known, and what makes them known. */
static void print_kernel_not_known(FILE *out, const td_summary *s, const td_kernel_summary *ks,
                                   int level)
{
    if (!some_not_known(&s->models[ks->model], &ks->mean, level))
        return;
    fprintf(out, "  NOTE: not known (n/k): a 95%% interval wider than %.0f points (%s of %s "
            "launch%s measured", 100.0 * TD_SPREAD_KNOWN_MAX, TD_COUNT(ks->profiled),
            TD_COUNT(ks->launches), ks->launches == 1 ? "" : "es");
    if (conditions_dominate(s, ks))
        fputs(", kernel replay and the counter groups disagreeing); --replay-mode kernel or "
              "application measures it one way\n", out);
    else if (ks->level1_elsewhere >= TD_SPREAD_KNOWN_MAX) /* enough alone for n/k */
        fprintf(out, "; %.0f%% of its time in launches of a size whose issue counters no "
                "launch measured); --overhead unlimited measures every size, --replay-mode "
                "kernel every counter group of each launch\n", 100.0 * ks->level1_elsewhere);
    else if (ks->level1_other_kind >= TD_SPREAD_KNOWN_MAX)
        fprintf(out, "; %.0f%% of its time in launches over %.0f%% shorter or longer than any "
                "that measured its issue counters); --overhead unlimited measures more "
                "launches, --replay-mode kernel every counter group of each launch\n",
                100.0 * ks->level1_other_kind, 100.0 * TD_EST_KIND_GAP);
    else if (ks->group_launches)
        fputs(", each with one counter group); --overhead unlimited measures more launches, "
              "--replay-mode kernel every counter group of each\n", out);
    else
        fputs("); --overhead unlimited measures every launch\n", out);
}

/* The SM clock of the kernel's measured launches; a warning when they
 * ran at clocks more than 15% apart (their counters are not comparable),
 * and one when their median is TD_CLOCK_LOW below the GPU's own clock
 * (peak_mhz, its device record's; 0: unknown): power or heat held it
 * down, or it idled between short launches, and a kernel's memory stalls
 * grow as the SM clock falls. */
static void print_clock(FILE *out, const td_kernel_summary *ks, int peak_mhz)
{
    if (ks->clocks_unreal)
        fprintf(out, "  SM clock: %zu measured launch%s left out (more elapsed cycles than "
                "%.0f MHz over %s duration: a profiled range longer than the launch)\n",
                ks->clocks_unreal, ks->clocks_unreal == 1 ? "" : "es", TD_SM_CLOCK_MAX_MHZ,
                ks->clocks_unreal == 1 ? "its" : "their");
    if (!ks->clocks)
        return;
    fprintf(out, "  SM clock %.0f MHz (median of %s measured launch%s, %.0f-%.0f)\n",
            ks->clock_median_mhz, TD_COUNT(ks->clocks), ks->clocks == 1 ? "" : "es", ks->clock_min_mhz,
            ks->clock_max_mhz);
    if (ks->clock_max_mhz > 1.15 * ks->clock_min_mhz)
        fprintf(out, "  WARNING: its launches were measured at clocks %.0f%% apart; "
                "--clock-control base locks them\n",
                100.0 * (ks->clock_max_mhz / ks->clock_min_mhz - 1.0));
    if (peak_mhz > 0 && ks->clock_median_mhz < (1.0 - TD_CLOCK_LOW) * peak_mhz)
        fprintf(out, "  WARNING: its launches ran %.0f%% below the GPU's %d MHz (power or heat "
                "limits, or the clock idling between short launches): memory stalls grow as the "
                "SM clock falls; --clock-control base locks it\n",
                100.0 * (1.0 - ks->clock_median_mhz / peak_mhz), peak_mhz);
}

/* Launches measured in each counter group (none: no line). */
static void print_group_counts(FILE *out, const td_result *res, size_t groups)
{
    size_t count[64] = {0};
    if (groups == 0 || groups > 64 || groups_used(res) == 0)
        return;
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            if (l->profiled && l->group >= 0 && (size_t)l->group < groups)
                count[l->group]++;
        }
    fprintf(out, "            launches per counter group:");
    for (size_t g = 0; g < groups; g++)
        fprintf(out, " %s", TD_COUNT(count[g]));
    fputc('\n', out);
}

/* How the counters were collected: replay mode, budget, coverage. */
static void print_collection(FILE *out, const td_result *res, const td_summary *s)
{
    if (!res->replay_mode) {
        /* an older result: every profiled launch was replayed */
        int passes = 0;
        for (size_t d = 0; d < res->n_devices; d++)
            passes = res->devices[d].passes > passes ? res->devices[d].passes : passes;
        if (passes > 0)
            fprintf(out, "Collection: kernel replay, %d passes per profiled launch for the full "
                    "counter set\n", passes);
        return;
    }
    size_t groups = td_result_most_groups(res);
    if (strcmp(res->replay_mode, "application") == 0) {
        /* every launch measured in each run of the app, one group a run */
        fprintf(out, "Collection: replay mode application (the app run once per counter group, "
                "%zu groups); %s launch%s with the full set from every run, %s with one "
                "group (not matched in every run)\n", groups,
                TD_COUNT(s->profiled - s->group_launches),
                s->profiled - s->group_launches == 1 ? "" : "es", TD_COUNT(s->group_launches));
        return;
    }
    if (strcmp(res->replay_mode, "time-sampled") == 0) {
        /* levels/attribute.h: no range, no replay; the note has the details */
        fprintf(out, "Collection: time-sampled, no range and no replay: %s launch%s with "
                "counters from PM samples by time, stalled slots split by the PC samples "
                "of a second run\n", TD_COUNT(s->profiled), s->profiled == 1 ? "" : "es");
        return;
    }
    fprintf(out, "Collection: replay mode %s, ", res->replay_mode);
    if (res->overhead_pct > 0)
        fprintf(out, "budget %g%% of native time", res->overhead_pct);
    else
        fprintf(out, "no budget");
    fprintf(out, "; %s launch%s with kernel replay (full set)",
            TD_COUNT(s->profiled - s->group_launches), s->profiled - s->group_launches == 1 ? "" : "es");
    /* none in counter groups: nothing to say of them */
    if (s->group_launches)
        fprintf(out, ", %s without replay (one of %zu counter groups each)",
                TD_COUNT(s->group_launches), groups);
    fputc('\n', out);
    print_group_counts(out, res, groups);
    if (s->graph_launches)
        fprintf(out, "Graphs:   %s kernel launch%s from CUDA graphs: no range per graph node is "
                "possible, so their trees are their graph's whole launches\n",
                TD_COUNT(s->graph_launches), s->graph_launches == 1 ? "" : "es");
}

/* The share of the GPU time in kernels launched at least `times` times. */
static double time_in_kernels_launched(const td_summary *s, size_t times)
{
    double in = 0;
    for (size_t k = 0; k < s->n_kernels; k++)
        if (s->kernels[k].launches >= times)
            in += s->kernels[k].total_ns;
    return s->total_ns > 0 ? in / s->total_ns : 0;
}

/* Coverage cost most of the run's profiling: replaying each kernel's first
 * launches (kernel replay saves and restores the app's device memory for
 * each, 30-220 ms a replay on the H100 and H200, whatever the kernel), and
 * the counter-group samples without replay each kernel owes (natural
 * coverage, docs/COLLECTION.md), which the cost does not count apart. */
static void print_coverage_note(FILE *out, const td_result *res, const td_summary *s)
{
    size_t replays = s->profiled - s->group_launches, groups = td_result_most_groups(res);
    /* only where most of the time is in kernels that repeat enough for
     * their groups to cover them (td_few's, launched 1-3 times, do not) */
    if (!res->replay_mode || strcmp(res->replay_mode, "auto") != 0 || replays == 0 ||
        groups == 0 || !td_cost_coverage_dominates(&res->cost) ||
        time_in_kernels_launched(s, 2 * groups) < 0.8)
        return;
    fprintf(out, "NOTE:     coverage took %.2f s of the %.2f s profiling added: %s launch%s "
            "with kernel replay (kernel replay runs each once per pass, saving and restoring "
            "the app's device memory between passes), and the counter-group samples each "
            "kernel owes; where the kernels repeat, as in a training "
            "loop, --replay-mode none measures them with counter groups instead, and a kernel "
            "launched fewer than %zu times then shows only the stall reasons it measured\n",
            res->cost.coverage_s, td_cost_added_s(&res->cost), TD_COUNT(replays), replays == 1 ? "" : "es",
            groups);
}

/* How far kernel replay and the groups disagree on level 1, where that is
 * most of the kernel's level-1 spread. */
static double conditions_width(const td_summary *s, const td_kernel_summary *ks)
{
    return conditions_dominate(s, ks) ? widest_level1(s, ks, &ks->conditions) : 0;
}

/* The kernels of 1% of GPU time or more whose level 1 kernel replay and
 * the counter groups disagree on by more than TD_SPREAD_UNSURE points:
 * short kernels, whose replayed passes find the caches warm. */
static void print_conditions_differ(FILE *out, const td_summary *s)
{
    double widest;
    if (list_wide_kernels(out, s, conditions_width, "NOTE:     kernel replay and the counter "
                          "groups (without replay) disagree on level 1 by more than 10 points: "
                          "kernel ", &widest))
        fprintf(out, " (up to %.0f points; the spread holds it); short kernels differ most, "
                "replay's later passes finding the caches warm: --replay-mode kernel shows the "
                "replayed tree, --replay-mode application every launch without replay\n", widest);
}

/* The SM clock the run's launches measured: the kernels' medians weighted
 * by their measured launches, and the range of them all; 0: none measured. */
static double run_clock_mhz(const td_summary *s, double *min_mhz, double *max_mhz)
{
    double sum = 0, launches = 0;
    *min_mhz = *max_mhz = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        if (!ks->clocks)
            continue;
        if (launches == 0 || ks->clock_min_mhz < *min_mhz)
            *min_mhz = ks->clock_min_mhz;
        if (ks->clock_max_mhz > *max_mhz)
            *max_mhz = ks->clock_max_mhz;
        sum += ks->clock_median_mhz * (double)ks->clocks;
        launches += (double)ks->clocks;
    }
    return launches > 0 ? sum / launches : 0;
}

/* The Conditions line: the clock asked beside the one measured, and a
 * warning when they differ by more than TD_CLOCK_HELD_MAX. */
static void print_conditions(FILE *out, const td_result *res, const td_summary *s)
{
    double min_mhz, max_mhz, measured = run_clock_mhz(s, &min_mhz, &max_mhz);
    char conditions[320];
    td_conditions_describe(&res->conditions, measured, conditions, sizeof conditions);
    if (conditions[0])
        fprintf(out, "Conditions: %s\n", conditions);
    if (td_conditions_clock_missed(&res->conditions, measured))
        fprintf(out, "WARNING:  the clock did not hold: the launches measured %.0f MHz (%.0f-%.0f), "
                "%.0f%% %s the %g MHz asked (power or heat limits, or a lock the GPU did not "
                "apply: nvidia-smi -q -d PERFORMANCE says which); memory stalls grow as the SM "
                "clock falls\n", measured, min_mhz, max_mhz,
                100.0 * fabs(1.0 - measured / res->conditions.clock_mhz),
                measured < res->conditions.clock_mhz ? "below" : "above",
                res->conditions.clock_mhz);
}

/* The communication kernels' share of GPU time, apart from compute's. */
static void print_comm(FILE *out, const td_summary *s)
{
    td_comm_totals comm;
    td_comm_totals_of(s, &comm);
    if (!comm.kernels)
        return;
    double pct = s->total_ns > 0 ? 100.0 * (comm.ns / s->total_ns) : 0;
    fprintf(out, "Comms:    %zu %s kernel%s, %s launch%s, %s ms: %.1f%% of GPU time, "
            "compute %.1f%%\n", comm.kernels, comm.library, comm.kernels == 1 ? "" : "s",
            TD_COUNT(comm.launches), comm.launches == 1 ? "" : "es", TD_MS(comm.ns), pct, 100.0 - pct);
}

/* "topdown VERSION | FILE | recorded DATE": the date and any status but
 * complete (a complete result says nothing more) whole, on a line of
 * their own where the line would not fit. */
static void print_first_line(FILE *out, const td_result *res, const td_report_options *o)
{
    char head[4096], tail[192] = "";
    snprintf(head, sizeof head, "topdown %s%s%s", TOPDOWN_VERSION, o->origin ? " | " : "",
             o->origin ? o->origin : "");
    if (res->created)
        snprintf(tail, sizeof tail, "recorded %s", res->created);
    if (res->status && strcmp(res->status, "complete") != 0)
        snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "%sstatus %s",
                 tail[0] ? " | " : "", res->status);
    int fits = o->wide || strlen(head) + 3 + strlen(tail) <= (size_t)td_text_width();
    fprintf(out, "%s%s%s\n", head, !tail[0] ? "" : fits ? " | " : "\n          ", tail);
}

void td_report_header(FILE *out, const td_result *res, const td_summary *s,
                      const td_report_options *o)
{
    print_first_line(out, res, o);
    if (res->synthetic)
        fprintf(out, "NOTE: synthetic example, not measured on a GPU%s%s\n",
                res->note ? ": " : "", res->note ? res->note : "");
    if (res->argc) {
        fprintf(out, "Command:  ");
        for (size_t i = 0; i < res->argc; i++)
            fprintf(out, "%s%s", i ? " " : "", res->argv[i]);
        if (res->term_signal)
            fprintf(out, "  (killed by signal %d)\n", res->term_signal);
        else
            fprintf(out, "  (exit code %d)\n", res->exit_code);
    }
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        const td_arch *arch = s->models[d].arch;
        fprintf(out, "Device:   %s (%s, CC %d.%d, %d SMs), arch table %s (%s), IPC_MAX %g",
                dev->name ? dev->name : "unknown", dev->chip ? dev->chip : "?",
                dev->cc_major, dev->cc_minor, dev->sm_count, arch->name, arch->family,
                arch->ipc_max);
        if (dev->passes > 0)
            fprintf(out, ", %d replay pass%s", dev->passes, dev->passes == 1 ? "" : "es");
        if (res->n_devices > 1)
            fprintf(out, " [device %d, context %u]", dev->index, dev->context);
        fputc('\n', out);
    }
    fprintf(out, "Kernels:  %s kernel%s, %s launch%s (%s profiled), GPU time %s ms\n",
            TD_COUNT(s->n_kernels), s->n_kernels == 1 ? "" : "s", TD_COUNT(s->launches),
            s->launches == 1 ? "" : "es", TD_COUNT(s->profiled), TD_MS(s->total_ns));
    print_comm(out, s);
    td_copy_totals copies;
    memset(&copies, 0, sizeof copies);
    for (size_t d = 0; d < res->n_devices; d++)
        td_copy_totals_add(&copies, &res->devices[d]);
    if (copies.n) {
        fputs("Copies:   ", out);
        td_copy_totals_print(out, &copies);
        fputc('\n', out);
    }
    if (s->profiled == 0 && s->launches > 0)
        fprintf(out, "NOTE: no launch was profiled, so only times are shown%s%s\n",
                res->note ? ": " : "", res->note ? res->note : "");
    print_collection(out, res, s);
    char cost[320];
    td_cost_describe(&res->cost, cost, sizeof cost);
    if (cost[0])
        fprintf(out, "Cost:     %s\n", cost);
    char over[512];
    if (td_result_budget_exceeded(res, over, sizeof over))
        fprintf(out, "WARNING:  the cost budget was exceeded: %s\n", over);
    print_coverage_note(out, res, s);
    print_incomplete(out, s);
    print_not_known(out, s, o->level);
    print_beyond_measured(out, s);
    print_conditions_differ(out, s);
    print_conditions(out, res, s);
    /* What the collection said (an option refused, launches left timed
     * only...): said once at the run, and kept with the result for every
     * later report. The NOTEs above already carry it where they print it. */
    if (res->note && !res->synthetic && !(s->profiled == 0 && s->launches > 0))
        fprintf(out, "Note:     %s\n", res->note);
    if (s->mixed_arch && o->level >= 4)
        fprintf(out, "NOTE: devices use different arch tables; the application tree stops at level 3\n");
}

static void print_rates(FILE *out, const td_breakdown *b, double ipc_max)
{
    fprintf(out, "IPC %.2f of %g (issued %.2f), warp efficiency %.1f%%\n", b->ipc,
            ipc_max, b->ipc_issued, 100.0 * b->warp_eff);
}

static void print_kernel(FILE *out, const td_result *res, const td_summary *s, size_t k,
                         const char *label, const td_report_options *o, described_set *d)
{
    const td_kernel_summary *ks = &s->kernels[k];
    const td_model *m = &s->models[ks->model];
    double share = s->total_ns > 0 ? 100.0 * (ks->total_ns / s->total_ns) : 0;
    int passes = res->devices[ks->model].passes;
    char shown[TD_TEXT_WIDTH + 1];
    /* elided in the middle unless --wide; report -k takes it as shown */
    td_kernel_shown(label, k, s->n_kernels, shown, sizeof shown);
    fprintf(out, "\nKernel %zu/%zu: %s\n", k + 1, s->n_kernels, o->wide ? label : shown);
    fprintf(out, "  %s launch%s (%s profiled", TD_COUNT(ks->launches),
            ks->launches == 1 ? "" : "es", TD_COUNT(ks->profiled));
    if (ks->multiplexed)
        fprintf(out, ": %s replayed, %s in counter groups",
                TD_COUNT(ks->profiled - ks->group_launches), TD_COUNT(ks->group_launches));
    else if (passes > 0 && ks->profiled > 0)
        fprintf(out, ", %d replay pass%s each", passes, passes == 1 ? "" : "es");
    fprintf(out, "), %s ms, %.1f%% of GPU time, ", TD_MS(ks->total_ns), share);
    if (!ks->has_data)
        fprintf(out, "no profiled launch with active cycles: time counted only\n");
    else
        print_rates(out, &ks->mean, m->arch->ipc_max);
    td_print_durations(out, &ks->launch.durations);
    double throughput[TD_MEM_MAX_UNITS];
    td_kernel_throughput(m, ks, throughput);
    if (o->details) {
        td_print_launch_details(out, res, ks);
        td_print_throughput(out, m, throughput);
    }
    if (!ks->has_data)
        return;
    if (ks->graph_whole)
        fprintf(out, "  whole launches of CUDA graph %llu (its kernels' time is theirs)\n",
                (unsigned long long)ks->graph);
    if (ks->graph_level)
        fprintf(out, "  NOTE: launched by CUDA graph %llu: the tree is the whole graph's\n",
                (unsigned long long)ks->graph);
    print_clock(out, ks, res->devices[ks->model].clock_mhz);
    if (ks->mean.reasons_missing)
        fprintf(out, "  NOTE: %zu of %zu stall reasons never measured: Frontend and Backend are "
                "not split (n/m), their slots are Unattributed; --replay-mode kernel measures "
                "every reason of every launch\n", ks->mean.reasons_missing, m->arch->n_stalls);
    if (ks->mixed_arch && o->level >= 3)
        fprintf(out, "  NOTE: launches under different arch tables; only the levels they share are shown\n");
    char fix[320];
    const char *library = td_comm_library(ks->name);
    print_kernel_not_known(out, s, ks, o->level);
    td_print_beyond_measured(out, &ks->launch);
    print_tree(out, m, &ks->mean, &ks->spread, &ks->verdict, o, d,
               library ? td_comm_fix(library, 1.0, fix, sizeof fix) : NULL, throughput);
}

/* Communication's advice for the app tree of s where most of its
 * bottleneck's slots are communication kernels'; NULL: the node's. */
#define TD_COMM_MOSTLY 0.5
static const char *app_fix(const td_summary *s, const td_report_options *o, char *buf,
                           size_t size)
{
    td_comm_totals comm;
    td_comm_totals_of(s, &comm);
    int node = s->app_verdict.bottleneck[o->level];
    double share = comm.kernels && node >= 0 ? td_comm_node_share(s, node) : 0;
    return share > TD_COMM_MOSTLY ? td_comm_fix(comm.library, share, buf, size) : NULL;
}

/* A tree per device section of a result of several (GPUs of one process,
 * or the ranks of a merged result); the whole is the application tree. */
static void print_devices(FILE *out, const td_result *res, const td_report_options *o,
                          described_set *d)
{
    for (size_t i = 0; i < o->n_device_sums && i < res->n_devices; i++) {
        const td_device *dev = &res->devices[i];
        const td_summary *s = &o->device_sums[i];
        fprintf(out, "\nDevice %zu/%zu: %s%sGPU %d (%s), context %u: %s launch%s, GPU time "
                "%s ms", i + 1, res->n_devices, dev->origin ? dev->origin : "",
                dev->origin ? ", " : "", dev->index, dev->name ? dev->name : "unknown",
                dev->context, TD_COUNT(s->launches), s->launches == 1 ? "" : "es",
                TD_MS(s->total_ns));
        if (dev->n_copies) {
            td_copy_totals copies;
            memset(&copies, 0, sizeof copies);
            td_copy_totals_add(&copies, dev);
            fputs(", ", out);
            td_copy_totals_print(out, &copies);
        }
        fputs("\n  ", out);
        if (!s->app_has_data) {
            fprintf(out, "no profiled launch with active cycles\n");
            continue;
        }
        const td_model *m = td_summary_model(s);
        print_rates(out, &s->app, m->arch->ipc_max);
        char fix[320];
        print_tree(out, m, &s->app, &s->app_spread, &s->app_verdict, o,
                   d, app_fix(s, o, fix, sizeof fix), s->app_throughput);
    }
}

/* The kernels, heaviest first, --kernels N of those -k keeps, each under its
 * label (--kernel-name-base) and with its rank among all. */
static int print_kernels(FILE *out, const td_result *res, const td_summary *s,
                         const td_report_options *o, const unsigned char *keep,
                         size_t selected, described_set *d, td_error *err)
{
    const char **names = malloc((s->n_kernels ? s->n_kernels : 1) * sizeof *names);
    if (!names)
        return td_fail(err, "out of memory");
    for (size_t k = 0; k < s->n_kernels; k++)
        names[k] = s->kernels[k].name;
    char **labels = NULL;
    int rc = td_kernel_labels_wide(names, s->n_kernels, (td_name_base)o->name_base, res,
                                   o->wide, &labels, err);
    free(names);
    if (rc)
        return -1;
    if (o->kernels_shown)
        fprintf(out, "\nKernels shown: %zu of %zu (-k '%s')\n", selected, s->n_kernels,
                o->kernels_shown);
    size_t limit = o->max_kernels > 0 ? (size_t)o->max_kernels : selected, shown = 0;
    size_t rest_n = 0;
    double rest = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        if (!keep[k])
            continue;
        if (shown < limit) {
            print_kernel(out, res, s, k, labels[k], o, d);
            shown++;
        } else {
            rest += s->kernels[k].total_ns;
            rest_n++;
        }
    }
    if (rest_n)
        fprintf(out, "\n... %zu more kernel%s (%.1f%% of GPU time); --kernels 0 lists all\n",
                rest_n, rest_n == 1 ? "" : "s",
                s->total_ns > 0 ? 100.0 * (rest / s->total_ns) : 0.0);
    td_kernel_labels_free(labels, s->n_kernels);
    return 0;
}

/* keep[k]: kernel k is shown (all, or those -k names); checked before any
 * output. */
static unsigned char *kernels_kept(const td_result *res, const td_summary *s,
                                   const td_report_options *o, size_t *selected, td_error *err)
{
    unsigned char *keep = malloc(s->n_kernels ? s->n_kernels : 1);
    if (!keep) {
        td_fail(err, "out of memory");
        return NULL;
    }
    memset(keep, 1, s->n_kernels);
    *selected = s->n_kernels;
    if (o->kernels_shown && td_kernel_select(s, res, o->kernels_shown,
                                             (td_name_base)o->name_base, keep, selected, err)) {
        free(keep);
        return NULL;
    }
    return keep;
}

static int report_text(FILE *out, const td_result *res, const td_summary *s,
                       const td_report_options *o, td_error *err)
{
    if (o->level < 1 || o->level > TD_MAX_LEVEL)
        return td_fail(err, "level %d does not exist; use -l 1 to -l %d", o->level, TD_MAX_LEVEL);
    if (td_summary_printable(s, err))
        return -1;
    size_t selected = 0;
    unsigned char *keep = kernels_kept(res, s, o, &selected, err);
    if (!keep)
        return -1;
    if (!o->no_header)
        td_report_header(out, res, s, o);
    described_set described = {{0}, 0};
    const td_model *m = td_summary_model(s);
    if (o->level > m->depth && m->depth < td_backend_max_depth())
        fprintf(out, "NOTE: arch table %s (%s) has no level-%d nodes; its stall metrics are listed under their level-%d node\n",
                m->arch->name, m->backend->key, m->depth + 1, m->depth);
    fprintf(out, "\nApplication: ");
    if (!s->app_has_data) {
        fprintf(out, "no profiled launch with active cycles\n");
    } else {
        if (s->covered_ns < s->total_ns * 0.999)
            fprintf(out, "(%.1f%% of GPU time has counters) ", 100.0 * (s->covered_ns / s->total_ns));
        print_rates(out, &s->app, m->arch->ipc_max);
        if (o->details)
            td_print_throughput(out, m, s->app_throughput);
        char fix[320];
        print_tree(out, m, &s->app, &s->app_spread, &s->app_verdict, o,
                   &described, app_fix(s, o, fix, sizeof fix), s->app_throughput);
    }
    print_devices(out, res, o, &described);
    int rc = o->app_only ? 0 : print_kernels(out, res, s, o, keep, selected, &described, err);
    free(keep);
    if (rc)
        return -1;
    return 0;
}

typedef struct text_args {
    const td_result *res;
    const td_summary *s;
    const td_report_options *o;
} text_args;

static int write_report(FILE *out, const void *ctx, td_error *err)
{
    const text_args *t = ctx;
    return report_text(out, t->res, t->s, t->o, err);
}

int td_report_text(FILE *out, const td_result *res, const td_summary *s,
                   const td_report_options *o, td_error *err)
{
    text_args t = {res, s, o};
    return td_write_wrapped(out, o->wide, write_report, &t, err);
}
