#include "levels/model.h"

#include <stdio.h>
#include <string.h>

/* ---- resolving a table against the node records ---------------------------- */

static const char *table_name(const td_arch *arch)
{
    return arch->path ? arch->path : arch->name;
}

static void add_fixed_node(td_model *m, const td_node_info *info)
{
    td_tree_node *t = &m->tree[m->n_tree++];
    snprintf(t->path, sizeof t->path, "%s", info->path);
    t->name = info->name;
    t->record = info;
    t->area = info->area;
    t->kind = info->kind;
    t->parent = info->parent;
    t->level = info->level;
    t->threshold = td_arch_threshold(m->arch, info->path, info->threshold);
    t->stall = -1;
    t->source = -1;
    /* Computed nodes come from the issue rates; the others from stalls. */
    t->measured = info->kind != TD_KIND_STALL_SPLIT;
}

static int add_stall_node(td_model *m, size_t i, td_error *err)
{
    const td_stall_map *s = &m->arch->stalls[i];
    int node = td_node_set_find(m->nodes, s->node);
    if (node < 0 || strcmp(m->nodes->nodes[node].path, s->node) != 0)
        return td_fail(err, "%s: stall reason \"%s\" maps to unknown node \"%s\"; use a node path of `topdown list-nodes`",
                       table_name(m->arch), s->reason, s->node);
    const td_node_info *info = &m->nodes->nodes[node];
    if (!td_kind_takes_stalls(info->kind) || info->level != m->depth)
        return td_fail(err, "%s: stall reason \"%s\" maps to \"%s\", which is not a level-%d node under Frontend or Backend",
                       table_name(m->arch), s->reason, s->node, m->depth);
    m->stall_node[i] = node;
    td_tree_node *t = &m->tree[m->n_tree++];
    snprintf(t->path, sizeof t->path, "%s.%s", info->path, s->reason);
    t->name = s->reason;
    t->stall_map = s;
    t->area = info->area;
    t->kind = TD_KIND_STALL;
    t->parent = node;
    t->level = info->level + 1;
    t->threshold = td_arch_threshold(m->arch, s->reason, TD_STALL_THRESHOLD_DEFAULT);
    t->stall = (int)i;
    t->source = -1;
    t->measured = 1;
    for (int n = node; n >= 0; n = m->tree[n].parent)
        m->tree[n].measured = 1;
    if (t->level > m->max_level)
        m->max_level = t->level;
    return 0;
}

/* The memory section's sources as level-5 children of the stall reason
 * each splits (levels/memory.h gives their values). */
static void add_source_nodes(td_model *m)
{
    const td_arch_memory *mem = &m->arch->memory;
    for (size_t s = 0; s < mem->n_sources; s++) {
        m->source_stall[s] = -1;
        for (size_t i = 0; i < m->arch->n_stalls; i++)
            if (strcmp(m->arch->stalls[i].reason, mem->sources[s].split) == 0)
                m->source_stall[s] = (int)i;
        if (m->source_stall[s] < 0)
            continue; /* arch.c refuses such a table */
        int parent = td_model_stall_index(m, (size_t)m->source_stall[s]);
        char parent_path[TD_PATH_MAX];
        snprintf(parent_path, sizeof parent_path, "%s", m->tree[parent].path);
        td_tree_node *t = &m->tree[m->n_tree++];
        /* a stall path is under 64 characters, a source name a few */
        snprintf(t->path, sizeof t->path, "%.100s.%.40s", parent_path, mem->sources[s].name);
        t->name = mem->sources[s].name;
        t->source_map = &mem->sources[s];
        t->area = m->tree[parent].area;
        t->kind = TD_KIND_SOURCE;
        t->parent = parent;
        t->level = m->tree[parent].level + 1;
        t->threshold = td_arch_threshold(m->arch, t->name, TD_STALL_THRESHOLD_DEFAULT);
        t->stall = -1;
        t->source = (int)s;
        t->measured = 1;
        if (t->level > m->max_level)
            m->max_level = t->level;
    }
}

/* A threshold override must name a fixed node's path or a stall reason. */
static int check_threshold_keys(const td_model *m, td_error *err)
{
    const td_arch *arch = m->arch;
    for (size_t t = 0; t < arch->n_thresholds; t++) {
        const char *key = arch->thresholds[t].node;
        int known = 0;
        for (int n = 0; n < m->n_tree && !known; n++)
            known = strcmp(m->tree[n].stall < 0 && m->tree[n].source < 0 ? m->tree[n].path
                                                                          : m->tree[n].name,
                           key) == 0;
        if (!known)
            return td_fail(err, "%s: threshold for unknown node \"%s\" (use a node path such as \"Backend.Memory_Bound\" or a stall reason)",
                           table_name(arch), key);
    }
    return 0;
}

int td_model_init_nodes(td_model *m, const td_arch *arch, const td_node_set *nodes,
                        td_error *err)
{
    memset(m, 0, sizeof *m);
    m->arch = arch;
    m->nodes = nodes;
    m->backend = td_backend_get(arch->source);
    if (!m->backend)
        return td_fail(err, "%s: unknown counter source", table_name(arch));
    m->depth = m->backend->depth;
    if (nodes->count > TD_MAX_NODES)
        return td_fail(err, "%d model nodes, at most %d supported", nodes->count, TD_MAX_NODES);
    if (arch->n_stalls > TD_MAX_STALLS)
        return td_fail(err, "%s: too many stall reasons", arch->name);
    for (int n = 0; n < nodes->count; n++) {
        add_fixed_node(m, &nodes->nodes[n]);
        if (nodes->nodes[n].level > m->max_level)
            m->max_level = nodes->nodes[n].level;
    }
    for (size_t i = 0; i < arch->n_stalls; i++)
        if (add_stall_node(m, i, err))
            return -1;
    add_source_nodes(m);
    return check_threshold_keys(m, err);
}

int td_model_init(td_model *m, const td_arch *arch, td_error *err)
{
    return td_model_init_nodes(m, arch, td_nodes_builtin(), err);
}

int td_model_find(const td_model *m, const char *path)
{
    for (int n = 0; n < m->n_tree; n++)
        if (strcmp(m->tree[n].path, path) == 0)
            return n;
    return td_node_set_find(m->nodes, path);
}

int td_model_next_child(const td_model *m, int parent, int after)
{
    for (int n = after + 1; n < m->n_tree; n++)
        if (m->tree[n].parent == parent)
            return n;
    return -1;
}

/* The memory section's metrics, where the result recorded them: they are
 * optional (a result collected before the section, or with another table,
 * has none, and is modelled without level 5 and throughput). */
static void bind_memory(const td_arch *arch, const td_device *dev, td_mem_binding *b)
{
    const td_arch_memory *mem = &arch->memory;
    memset(b, 0, sizeof *b);
    for (size_t s = 0; s < mem->n_sources; s++)
        b->source[s] = td_device_metric_index(dev, mem->sources[s].metric);
    for (size_t s = 0; s < mem->n_sources; s++) {
        b->source_ok[s] = 1;
        for (size_t o = 0; o < mem->n_sources; o++)
            if (td_mem_same_split(mem, s, o) && b->source[o] < 0)
                b->source_ok[s] = 0;
    }
    for (size_t u = 0; u < mem->n_units; u++) {
        const td_mem_unit *unit = &mem->units[u];
        b->peak[u] = td_device_metric_index(dev, unit->peak);
        b->cycles[u] = td_device_metric_index(dev, unit->cycles);
        b->unit_ok[u] = b->peak[u] >= 0 && b->cycles[u] >= 0;
        for (size_t w = 0; w < unit->n_work; w++) {
            b->work[u][w] = td_device_metric_index(dev, unit->work[w]);
            b->unit_ok[u] = b->unit_ok[u] && b->work[u][w] >= 0;
        }
    }
}

int td_model_bind(const td_model *m, const td_device *dev, td_binding *b,
                  td_error *err)
{
    const td_arch *arch = m->arch;
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        b->counter[c] = arch->counter[c] ? td_device_metric_index(dev, arch->counter[c]) : -1;
    for (size_t i = 0; i < m->backend->n_needs; i++) {
        td_counter c = m->backend->needs[i].counter;
        if (m->backend->needs[i].in_result && b->counter[c] < 0)
            return td_fail(err, "device %d: missing counter %s (%s) needed by arch table %s; re-collect, or pick the table it was collected with (--arch)",
                           dev->index, arch->counter[c], td_counter_key(c), arch->name);
    }
    for (size_t i = 0; i < arch->n_stalls; i++) {
        b->stall[i] = td_device_metric_index(dev, arch->stalls[i].metric);
        if (b->stall[i] < 0)
            return td_fail(err, "device %d: missing counter %s (stall reason %s) needed by arch table %s; re-collect, or pick the table it was collected with (--arch)",
                           dev->index, arch->stalls[i].metric, arch->stalls[i].reason, arch->name);
    }
    bind_memory(arch, dev, &b->mem);
    return 0;
}

/* ---- the model ------------------------------------------------------------- */

/* The nodes with a formula (MODEL.md section 3); returns the slots they
 * use. Counter skew can push them past 100%: scaled so level 1 holds. */
static double issued_shares(const td_model *m, const td_issue_rates *r, td_breakdown *out)
{
    double used = 0;
    for (int n = 0; n < m->nodes->count; n++) {
        const td_node_info *info = &m->nodes->nodes[n];
        if (!info->formula)
            continue;
        out->value[n] = info->formula(r, m->arch->ipc_max);
        used += out->value[n];
    }
    if (used > 1.0) {
        for (int n = 0; n < m->nodes->count; n++)
            if (m->nodes->nodes[n].formula)
                out->value[n] /= used;
        used = 1.0;
    }
    return used;
}

/* The unused slots split in proportion to the stall samples (section 3). */
static void stall_shares(const td_model *m, const td_binding *b, const double *c,
                         double stalled, td_breakdown *out)
{
    double stall_sum = 0;
    for (size_t i = 0; i < out->n_stalls; i++)
        stall_sum += c[b->stall[i]];
    for (size_t i = 0; i < out->n_stalls; i++)
        out->value[td_model_stall_index(m, i)] =
            stall_sum > 0 ? stalled * c[b->stall[i]] / stall_sum : 0.0;
    out->unattributed = stall_sum > 0 ? 0.0 : stalled;
}

void td_model_roll_up(const td_model *m, td_breakdown *out)
{
    for (int level = m->max_level; level >= 2; level--)
        for (int n = 0; n < m->n_tree; n++) {
            const td_tree_node *t = &m->tree[n];
            const td_tree_node *parent = t->parent >= 0 ? &m->tree[t->parent] : NULL;
            if (t->level == level && parent && t->kind != TD_KIND_SOURCE &&
                !(parent->record && parent->record->formula))
                out->value[t->parent] += out->value[n];
        }
}

void td_model_counters(const td_model *m, const td_binding *b, const double *counters,
                       td_breakdown *out)
{
    memset(out, 0, sizeof *out);
    out->n_stalls = m->arch->n_stalls;
    td_issue_rates r = m->backend->rates(counters, b->counter);
    out->ipc = r.ipc;
    out->ipc_issued = r.ipc_issued;
    out->warp_eff = r.warp_eff;
    out->has_slots = r.has_slots;
    if (!r.has_slots)
        return;
    double used = issued_shares(m, &r, out);
    stall_shares(m, b, counters, 1.0 - used, out);
    td_model_roll_up(m, out);
}

int td_model_launch(const td_model *m, const td_binding *b,
                    const td_launch *launch, td_breakdown *out, td_error *err)
{
    if (!launch->profiled || !launch->counters) {
        memset(out, 0, sizeof *out);
        out->n_stalls = m->arch->n_stalls;
        return td_fail(err, "launch %llu of %s has no counters",
                       (unsigned long long)launch->id, launch->kernel);
    }
    td_model_counters(m, b, launch->counters, out);
    return 0;
}

void td_breakdown_accumulate(td_breakdown *acc, const td_breakdown *x, double w)
{
    for (int n = 0; n < TD_TREE_MAX; n++)
        acc->value[n] += w * x->value[n];
    if (acc->n_stalls < x->n_stalls)
        acc->n_stalls = x->n_stalls;
    acc->sources |= x->sources;
    acc->ipc += w * x->ipc;
    acc->ipc_issued += w * x->ipc_issued;
    acc->warp_eff += w * x->warp_eff;
    acc->unattributed += w * x->unattributed;
    acc->has_slots |= x->has_slots;
}

void td_breakdown_scale(td_breakdown *acc, double factor)
{
    for (int n = 0; n < TD_TREE_MAX; n++)
        acc->value[n] *= factor;
    acc->ipc *= factor;
    acc->ipc_issued *= factor;
    acc->warp_eff *= factor;
    acc->unattributed *= factor;
}

void td_breakdown_keep_shared(const td_model *m, td_breakdown *b, int depth)
{
    b->n_stalls = 0;
    b->sources = 0;
    for (int n = 0; n < TD_TREE_MAX; n++)
        if (n >= m->nodes->count || m->tree[n].level > depth)
            b->value[n] = 0;
}

int td_node_measured(const td_model *m, const td_breakdown *b, int node)
{
    td_node_kind kind = m->tree[node].kind;
    return !b->reasons_missing ||
           (kind != TD_KIND_STALL_SPLIT && kind != TD_KIND_STALL && kind != TD_KIND_SOURCE);
}

int td_node_known(const td_model *m, const td_breakdown *b, int node)
{
    return td_node_measured(m, b, node) && !b->not_known[node];
}

int td_node_present(const td_model *m, const td_breakdown *b, int node)
{
    int stall = m->tree[node].stall, source = m->tree[node].source;
    if (source >= 0)
        return source < 32 && (b->sources >> source & 1u) &&
               (size_t)m->source_stall[source] < b->n_stalls;
    return stall < 0 || (size_t)stall < b->n_stalls;
}

/* ---- bottleneck ------------------------------------------------------------ */

int td_over_threshold(const td_model *m, const td_breakdown *b, int node)
{
    const td_tree_node *t = &m->tree[node];
    if (!td_kind_is_loss(t->kind))
        return 0;
    double value = b->value[node];
    if (t->parent < 0)
        return value > t->threshold;
    return value > 0 && value > t->threshold * b->value[t->parent];
}

/* The largest child of parent (-1: level 1) over its threshold, or -1. */
static int largest_child_over(const td_model *m, const td_breakdown *b, int parent)
{
    int best = -1;
    double best_value = 0;
    for (int n = td_model_next_child(m, parent, -1); n >= 0; n = td_model_next_child(m, parent, n))
        if (td_node_present(m, b, n) && td_node_measured(m, b, n) && td_over_threshold(m, b, n) &&
            b->value[n] > best_value) {
            best = n;
            best_value = b->value[n];
        }
    return best;
}

int td_bottleneck(const td_model *m, const td_breakdown *b, int max_level)
{
    if (!b->has_slots)
        return -1;
    int found = largest_child_over(m, b, -1);
    while (found >= 0 && m->tree[found].level < max_level) {
        int child = largest_child_over(m, b, found);
        if (child < 0)
            break;
        found = child;
    }
    return found;
}

/* The search's node with the path above it cut at its first node not
 * known: its parent then (-1 at level 1). A node not known whose interval
 * lies above each sibling's (b->leads) leads them whatever its value:
 * PyTorch's bfloat16_copy, L1_Bound 60-91 of the slots against its
 * siblings' 12 at most, is named, as application replay names it (H200). */
static int cut_at_not_known(const td_model *m, const td_breakdown *b, int node)
{
    int cut = node;
    for (int n = node; n >= 0; n = m->tree[n].parent)
        if (b->not_known[n] && !b->leads[n])
            cut = m->tree[n].parent;
    return cut;
}

/* The largest child of parent (-1: level 1) over its threshold and known,
 * other than but; -1 when none. */
static int largest_other_child(const td_model *m, const td_breakdown *b, int parent, int but)
{
    int best = -1;
    for (int n = td_model_next_child(m, parent, -1); n >= 0; n = td_model_next_child(m, parent, n))
        if (n != but && td_node_present(m, b, n) && td_node_known(m, b, n) &&
            td_over_threshold(m, b, n) && (best < 0 || b->value[n] > b->value[best]))
            best = n;
    return best;
}

/* The node the search reaches from node down to level, as td_bottleneck
 * descends, stopping above a node not known. */
static int descend(const td_model *m, const td_breakdown *b, int node, int level)
{
    while (m->tree[node].level < level) {
        int child = largest_other_child(m, b, node, -1);
        if (child < 0)
            break;
        node = child;
    }
    return node;
}

/* The search's closest call: at the step where the bottleneck's path led
 * the best other node over its threshold by the least, if by
 * TD_BOTTLENECK_TIE or less, where the search would have gone from that
 * other node down to the bottleneck's level; else -1. */
static int runner_up(const td_model *m, const td_breakdown *b, int bottleneck)
{
    int closest = -1;
    double least = TD_BOTTLENECK_TIE + 1e-12; /* a hair over 5 points of rounding is 5 */
    for (int n = bottleneck; n >= 0; n = m->tree[n].parent) {
        int other = largest_other_child(m, b, m->tree[n].parent, n);
        if (other >= 0 && b->value[n] - b->value[other] <= least) {
            least = b->value[n] - b->value[other];
            closest = other;
        }
    }
    return closest < 0 ? -1 : descend(m, b, closest, m->tree[bottleneck].level);
}

/* Whether node leads its siblings though not known, under a path of
 * nodes each known or leading: over its threshold as its value says. */
static int leads_from_known(const td_model *m, const td_breakdown *b, int node)
{
    if (!b->leads[node])
        return 0;
    for (int n = m->tree[node].parent; n >= 0; n = m->tree[n].parent)
        if (!td_node_known(m, b, n) && !b->leads[n])
            return 0;
    return 1;
}

/* Whether some level-1 node of b was measured but is not known. */
static int level1_not_known(const td_model *m, const td_breakdown *b)
{
    for (int n = td_model_next_child(m, -1, -1); n >= 0; n = td_model_next_child(m, -1, n))
        if (td_node_present(m, b, n) && td_node_measured(m, b, n) && !td_node_known(m, b, n))
            return 1;
    return 0;
}

void td_model_judge(const td_model *m, const td_breakdown *b, td_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->bottleneck[0] = out->runner_up[0] = -1;
    out->not_enough_data = b->has_slots && b->unattributed > TD_UNATTRIBUTED_MAX;
    /* level 1 not known: the search has nothing to start from */
    out->not_known = !out->not_enough_data && b->has_slots && level1_not_known(m, b);
    for (int level = 1; level <= TD_MAX_LEVEL; level++) {
        int found = out->not_enough_data || out->not_known ? -1 : td_bottleneck(m, b, level);
        out->bottleneck[level] = cut_at_not_known(m, b, found);
        out->runner_up[level] = runner_up(m, b, out->bottleneck[level]);
    }
    for (int n = 0; n < m->n_tree; n++)
        out->over[n] = (unsigned char)(td_node_present(m, b, n) &&
                                       (td_node_known(m, b, n) ||
                                        (!out->not_known && leads_from_known(m, b, n))) &&
                                       td_over_threshold(m, b, n));
}

const char *td_verdict_names(const td_model *m, const td_verdict *v, int level, char *buf,
                             size_t size)
{
    int top = v->bottleneck[level], second = v->runner_up[level];
    if (top < 0)
        snprintf(buf, size, "%s", "");
    else if (second < 0)
        snprintf(buf, size, "%s", m->tree[top].path);
    else
        snprintf(buf, size, "%s or %s", m->tree[top].path, m->tree[second].path);
    return buf;
}

int td_verdict_names_node(const td_verdict *v, int level, int node)
{
    return node >= 0 && (node == v->bottleneck[level] || node == v->runner_up[level]);
}
