#include "model.h"

#include <math.h>
#include <string.h>

/* ---- binding a table to the model ---------------------------------------- */

static int stall_leaf_ok(const td_arch *arch, int node)
{
    const td_node_info *info = td_node_get(node);
    if (node == TD_N_RETIRE || info->parent < 0 ||
        td_node_get(info->parent)->parent == TD_N_DIVERGENCE ||
        info->parent == TD_N_DIVERGENCE)
        return 0; /* stalls split only Frontend and Backend */
    /* Range-profiler tables fill level 3; nvprof tables stop at level 2. */
    return arch->source == TD_SOURCE_NVPROF ? info->level == 2 : info->level == 3;
}

static int init_thresholds(td_model *m, const td_arch *arch, td_error *err)
{
    for (int n = 0; n < TD_NODE_COUNT; n++)
        m->threshold[n] = td_arch_threshold(arch, td_node_get(n)->path,
                                            td_node_get(n)->threshold);
    for (size_t i = 0; i < arch->n_stalls; i++)
        m->stall_threshold[i] = td_arch_threshold(arch, arch->stalls[i].reason, 0.10);
    for (size_t t = 0; t < arch->n_thresholds; t++) {
        const char *key = arch->thresholds[t].node;
        int known = td_node_find(key) >= 0 &&
                    strcmp(td_node_get(td_node_find(key))->path, key) == 0;
        for (size_t i = 0; i < arch->n_stalls && !known; i++)
            known = strcmp(arch->stalls[i].reason, key) == 0;
        if (!known)
            return td_fail(err, "%s: threshold for unknown node \"%s\" (use a node path such as \"Backend.Memory_Bound\" or a stall reason)",
                           arch->path ? arch->path : arch->name, key);
    }
    return 0;
}

int td_model_init(td_model *m, const td_arch *arch, td_error *err)
{
    memset(m, 0, sizeof *m);
    m->arch = arch;
    m->depth = arch->source == TD_SOURCE_NVPROF ? 2 : 3;
    if (arch->n_stalls > TD_MAX_STALLS)
        return td_fail(err, "%s: too many stall reasons", arch->name);
    for (size_t i = 0; i < arch->n_stalls; i++) {
        const td_stall_map *s = &arch->stalls[i];
        int node = td_node_find(s->node);
        if (node < 0 || strcmp(td_node_get(node)->path, s->node) != 0)
            return td_fail(err, "%s: stall reason \"%s\" maps to unknown node \"%s\"; use a node path of `topdown list-nodes`",
                           arch->path ? arch->path : arch->name, s->reason, s->node);
        if (!stall_leaf_ok(arch, node))
            return td_fail(err, "%s: stall reason \"%s\" maps to \"%s\", which is not a level-%d node under Frontend or Backend",
                           arch->path ? arch->path : arch->name, s->reason, s->node, m->depth);
        m->stall_node[i] = node;
    }
    return init_thresholds(m, arch, err);
}

static const td_counter range_profiler_needs[] = {
    TD_C_INST_EXECUTED, TD_C_INST_ISSUED, TD_C_THREAD_INST_EXECUTED, TD_C_CYCLES_ACTIVE};
static const td_counter nvprof_needs[] = {TD_C_IPC, TD_C_ISSUED_IPC, TD_C_WARP_EFF};

int td_model_bind(const td_model *m, const td_device *dev, td_binding *b,
                  td_error *err)
{
    const td_arch *arch = m->arch;
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        b->counter[c] = arch->counter[c] ? td_device_metric_index(dev, arch->counter[c]) : -1;
    const td_counter *needs = range_profiler_needs;
    size_t n_needs = sizeof range_profiler_needs / sizeof *needs;
    if (arch->source == TD_SOURCE_NVPROF) {
        needs = nvprof_needs;
        n_needs = sizeof nvprof_needs / sizeof *needs;
    }
    for (size_t i = 0; i < n_needs; i++)
        if (b->counter[needs[i]] < 0)
            return td_fail(err, "device %d: missing counter %s (%s) needed by arch table %s; re-collect, or pick the table it was collected with (--arch)",
                           dev->index, arch->counter[needs[i]], td_counter_key(needs[i]), arch->name);
    for (size_t i = 0; i < arch->n_stalls; i++) {
        b->stall[i] = td_device_metric_index(dev, arch->stalls[i].metric);
        if (b->stall[i] < 0)
            return td_fail(err, "device %d: missing counter %s (stall reason %s) needed by arch table %s; re-collect, or pick the table it was collected with (--arch)",
                           dev->index, arch->stalls[i].metric, arch->stalls[i].reason, arch->name);
    }
    return 0;
}

/* ---- the model ------------------------------------------------------------- */

typedef struct issue_rates {
    double ipc, ipc_issued, warp_eff;
    int has_slots;
} issue_rates;

static double safe_ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

static double clamp01(double x)
{
    return x < 0 ? 0 : (x > 1 ? 1 : x);
}

static issue_rates rates_range_profiler(const td_binding *b, const double *c)
{
    double cycles = c[b->counter[TD_C_CYCLES_ACTIVE]];
    double inst = c[b->counter[TD_C_INST_EXECUTED]];
    double issued = c[b->counter[TD_C_INST_ISSUED]];
    double threads = c[b->counter[TD_C_THREAD_INST_EXECUTED]];
    issue_rates r = {
        .ipc = safe_ratio(inst, cycles),
        .ipc_issued = safe_ratio(issued, cycles),
        /* No instruction executed: no thread was idle either. */
        .warp_eff = inst > 0 ? clamp01(threads / (32.0 * inst)) : 1.0,
        .has_slots = cycles > 0,
    };
    return r;
}

static issue_rates rates_nvprof(const td_binding *b, const double *c)
{
    issue_rates r = {
        .ipc = c[b->counter[TD_C_IPC]],
        .ipc_issued = c[b->counter[TD_C_ISSUED_IPC]],
        .warp_eff = clamp01(c[b->counter[TD_C_WARP_EFF]] / 100.0),
        .has_slots = 1,
    };
    return r;
}

/* Sums every node from the level-4 values upwards. */
static void roll_up(const td_model *m, td_breakdown *out)
{
    for (size_t i = 0; i < out->n_stalls; i++)
        out->node[m->stall_node[i]] += out->stall[i];
    for (int level = 3; level >= 2; level--)
        for (int n = 0; n < TD_NODE_COUNT; n++) {
            const td_node_info *info = td_node_get(n);
            if (info->level == level && info->parent != TD_N_DIVERGENCE)
                out->node[info->parent] += out->node[n];
        }
}

int td_model_launch(const td_model *m, const td_binding *b,
                    const td_launch *launch, td_breakdown *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    out->n_stalls = m->arch->n_stalls;
    if (!launch->profiled || !launch->counters)
        return td_fail(err, "launch %llu of %s has no counters",
                       (unsigned long long)launch->id, launch->kernel);
    const double *c = launch->counters;
    issue_rates r = m->arch->source == TD_SOURCE_NVPROF ? rates_nvprof(b, c)
                                                        : rates_range_profiler(b, c);
    out->ipc = r.ipc;
    out->ipc_issued = r.ipc_issued;
    out->warp_eff = r.warp_eff;
    out->has_slots = r.has_slots;
    if (!r.has_slots)
        return 0;
    double ipc_max = m->arch->ipc_max;
    double retire = r.ipc * r.warp_eff / ipc_max;
    double branch = r.ipc * (1.0 - r.warp_eff) / ipc_max;
    double replay = fmax(0.0, r.ipc_issued - r.ipc) / ipc_max;
    /* Counter skew can push issued slots past 100%; scale so level 1 holds. */
    double used = retire + branch + replay;
    if (used > 1.0) {
        retire /= used;
        branch /= used;
        replay /= used;
        used = 1.0;
    }
    double stalled = 1.0 - used;
    double stall_sum = 0;
    for (size_t i = 0; i < out->n_stalls; i++)
        stall_sum += c[b->stall[i]];
    for (size_t i = 0; i < out->n_stalls; i++)
        out->stall[i] = stall_sum > 0 ? stalled * c[b->stall[i]] / stall_sum : 0.0;
    out->unattributed = stall_sum > 0 ? 0.0 : stalled;
    out->node[TD_N_RETIRE] = retire;
    out->node[TD_N_BRANCH] = branch;
    out->node[TD_N_REPLAY] = replay;
    out->node[TD_N_DIVERGENCE] = branch + replay;
    roll_up(m, out);
    return 0;
}

void td_breakdown_accumulate(td_breakdown *acc, const td_breakdown *x, double w)
{
    for (int n = 0; n < TD_NODE_COUNT; n++)
        acc->node[n] += w * x->node[n];
    if (acc->n_stalls < x->n_stalls)
        acc->n_stalls = x->n_stalls;
    for (size_t i = 0; i < x->n_stalls; i++)
        acc->stall[i] += w * x->stall[i];
    acc->ipc += w * x->ipc;
    acc->ipc_issued += w * x->ipc_issued;
    acc->warp_eff += w * x->warp_eff;
    acc->unattributed += w * x->unattributed;
    acc->has_slots |= x->has_slots;
}

void td_breakdown_scale(td_breakdown *acc, double factor)
{
    for (int n = 0; n < TD_NODE_COUNT; n++)
        acc->node[n] *= factor;
    for (size_t i = 0; i < acc->n_stalls; i++)
        acc->stall[i] *= factor;
    acc->ipc *= factor;
    acc->ipc_issued *= factor;
    acc->warp_eff *= factor;
    acc->unattributed *= factor;
}

/* ---- bottleneck ------------------------------------------------------------ */

static double node_value(const td_breakdown *b, int node)
{
    return node < TD_NODE_COUNT ? b->node[node] : b->stall[node - TD_NODE_COUNT];
}

static int node_parent(const td_model *m, int node)
{
    return node < TD_NODE_COUNT ? td_node_get(node)->parent
                                : m->stall_node[node - TD_NODE_COUNT];
}

int td_over_threshold(const td_model *m, const td_breakdown *b, int node)
{
    if (node == TD_N_RETIRE)
        return 0; /* not a loss */
    double value = node_value(b, node);
    int parent = node_parent(m, node);
    double threshold = node < TD_NODE_COUNT ? m->threshold[node]
                                            : m->stall_threshold[node - TD_NODE_COUNT];
    if (parent < 0)
        return value > threshold;
    return value > 0 && value > threshold * node_value(b, parent);
}

/* The largest child of parent (-1: level 1) over its threshold, or -1. */
static int largest_child_over(const td_model *m, const td_breakdown *b, int parent)
{
    int best = -1;
    double best_value = 0;
    for (int n = 0; n < TD_NODE_COUNT; n++)
        if (td_node_get(n)->parent == parent && td_over_threshold(m, b, n) &&
            b->node[n] > best_value) {
            best = n;
            best_value = b->node[n];
        }
    if (parent < 0 || td_node_get(parent)->level != m->depth)
        return best;
    for (size_t i = 0; i < b->n_stalls; i++) {
        int id = TD_NODE_COUNT + (int)i;
        if (m->stall_node[i] == parent && td_over_threshold(m, b, id) &&
            b->stall[i] > best_value) {
            best = id;
            best_value = b->stall[i];
        }
    }
    return best;
}

static int node_level(const td_model *m, int node)
{
    return node < TD_NODE_COUNT ? td_node_get(node)->level : m->depth + 1;
}

int td_bottleneck(const td_model *m, const td_breakdown *b, int max_level)
{
    if (!b->has_slots)
        return -1;
    int found = largest_child_over(m, b, -1);
    while (found >= 0 && found < TD_NODE_COUNT && node_level(m, found) < max_level) {
        int child = largest_child_over(m, b, found);
        if (child < 0)
            break;
        found = child;
    }
    return found;
}
