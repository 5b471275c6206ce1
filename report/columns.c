#include "report/columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wrap.h"

typedef struct builder {
    td_columns *cols;
    size_t cap;
    const td_model *const *models;
    size_t n_models;
    int level;
    int max_node_level;
    td_error *err;
} builder;

static td_column *push(builder *b)
{
    if (b->cols->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        td_column *bigger = realloc(b->cols->items, cap * sizeof *bigger);
        if (!bigger)
            return td_fail(b->err, "out of memory"), NULL;
        b->cols->items = bigger;
        b->cap = cap;
    }
    td_column *c = &b->cols->items[b->cols->count++];
    memset(c, 0, sizeof *c);
    c->leaf = 1;
    return c;
}

static int has_column(const td_columns *cols, const char *path)
{
    for (size_t i = 0; i < cols->count; i++)
        if (strcmp(cols->items[i].path, path) == 0)
            return 1;
    return 0;
}

/* A column for tree node t of model, read at fixed node `node` (t itself,
 * or the node its stall reason sits under) as stall reason `reason` and
 * its source `source` (NULL: none). */
static int push_node(builder *b, const td_model *model, const td_tree_node *t, int node,
                      const char *reason, const char *source, int level)
{
    td_column *c = push(b);
    if (!c)
        return -1;
    memcpy(c->path, t->path, sizeof c->path);
    c->name = t->name;
    c->node = node;
    c->record = model->tree[node].record;
    c->reason = reason;
    c->source = source;
    c->level = level;
    return 0;
}

/* The sources of every model below stall column `at`, without repeats. */
static int add_sources(builder *b, size_t at)
{
    for (size_t m = 0; m < b->n_models; m++) {
        const td_model *model = b->models[m];
        int stall = td_model_find(model, b->cols->items[at].path);
        for (int n = stall < 0 ? -1 : td_model_next_child(model, stall, -1); n >= 0;
             n = td_model_next_child(model, stall, n)) {
            const td_tree_node *t = &model->tree[n];
            if (has_column(b->cols, t->path))
                continue;
            if (push_node(b, model, t, b->cols->items[at].node, b->cols->items[at].reason,
                           t->name, TD_SOURCE_LEVEL))
                return -1;
        }
    }
    return 0;
}

/* The stall reasons of every model that sit under node, without repeats,
 * each followed by its sources at level 5. */
static int add_stalls(builder *b, int node)
{
    for (size_t m = 0; m < b->n_models; m++) {
        const td_model *model = b->models[m];
        for (int n = td_model_next_child(model, node, -1); n >= 0;
             n = td_model_next_child(model, node, n)) {
            const td_tree_node *t = &model->tree[n];
            if (t->stall < 0 || has_column(b->cols, t->path))
                continue;
            if (push_node(b, model, t, node, t->name, NULL, TD_STALL_LEVEL) ||
                (b->level >= TD_SOURCE_LEVEL && add_sources(b, b->cols->count - 1)))
                return -1;
        }
    }
    return 0;
}

/* Pre-order: the node, its child nodes with their subtrees, its stalls. */
static int add_subtree(builder *b, int node)
{
    const td_model *model = b->models[0];
    const td_tree_node *t = &model->tree[node];
    if (t->level > b->level || t->level > b->max_node_level)
        return 0;
    if (push_node(b, model, t, node, NULL, NULL, t->level))
        return -1;
    for (int n = td_model_next_child(model, node, -1); n >= 0;
         n = td_model_next_child(model, node, n))
        if (model->tree[n].stall < 0 && add_subtree(b, n))
            return -1;
    return b->level >= TD_STALL_LEVEL ? add_stalls(b, node) : 0;
}

static void mark_leaves(td_columns *cols)
{
    for (size_t i = 0; i < cols->count; i++) {
        const td_column *c = &cols->items[i];
        int parent = c->reason ? c->node : c->record->parent;
        if (parent < 0 || c->source)
            continue;
        for (size_t j = 0; j < cols->count; j++)
            if (!cols->items[j].reason && cols->items[j].node == parent)
                cols->items[j].leaf = 0;
    }
}

int td_columns_build(td_columns *out, const td_model *const *models, size_t n_models,
                     int level, int max_node_level, td_error *err)
{
    memset(out, 0, sizeof *out);
    if (level < 1 || level > TD_MAX_LEVEL)
        return td_fail(err, "level %d does not exist; use -l 1 to -l %d", level, TD_MAX_LEVEL);
    if (n_models == 0)
        return 0;
    builder b = {out, 0, models, n_models, level, max_node_level, err};
    for (int n = td_model_next_child(models[0], -1, -1); n >= 0;
         n = td_model_next_child(models[0], -1, n))
        if (add_subtree(&b, n)) {
            td_columns_free(out);
            return -1;
        }
    mark_leaves(out);
    return 0;
}

static int same_depth(const td_model *const *models, size_t n_models)
{
    for (size_t m = 1; m < n_models; m++)
        if (models[m]->depth != models[0]->depth)
            return 0;
    return 1;
}

int td_columns_segments(td_columns *out, const td_model *const *models, size_t n_models,
                        int level, td_error *err)
{
    if (level > TD_STALL_LEVEL)
        level = TD_STALL_LEVEL;
    if (level == TD_STALL_LEVEL && !same_depth(models, n_models))
        level = TD_STALL_LEVEL - 1;
    if (td_columns_build(out, models, n_models, level,
                         td_models_min_depth(models, n_models), err))
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < out->count; i++)
        if (out->items[i].leaf)
            out->items[kept++] = out->items[i];
    out->count = kept;
    return 0;
}

void td_columns_free(td_columns *cols)
{
    free(cols->items);
    memset(cols, 0, sizeof *cols);
}

/* The source column c's node below stall node `stall` in b; -1: none. */
static int source_node(const td_column *c, const td_model *m, const td_breakdown *b, int stall)
{
    for (int n = td_model_next_child(m, stall, -1); n >= 0; n = td_model_next_child(m, stall, n))
        if (td_node_present(m, b, n) && strcmp(m->tree[n].name, c->source) == 0)
            return n;
    return -1;
}

/* The tree node a column reads in b: its own, the stall reason's node
 * under it, or that reason's source; -1 where b has none. */
static int column_node(const td_column *c, const td_model *m, const td_breakdown *b)
{
    if (!b->has_slots || !td_node_measured(m, b, c->node))
        return -1; /* no value, or a stall split that was not made */
    if (!c->reason)
        return m->tree[c->node].measured ? c->node : -1;
    for (int n = td_model_next_child(m, c->node, -1); n >= 0; n = td_model_next_child(m, c->node, n))
        if (m->tree[n].stall >= 0 && td_node_present(m, b, n) &&
            strcmp(m->tree[n].name, c->reason) == 0)
            return c->source ? source_node(c, m, b, n) : n;
    return -1;
}

double td_column_value(const td_column *c, const td_model *m, const td_breakdown *b)
{
    int n = column_node(c, m, b);
    return n >= 0 && td_node_known(m, b, n) ? b->value[n] : NAN;
}

int td_column_not_known(const td_column *c, const td_model *m, const td_breakdown *b)
{
    int n = column_node(c, m, b);
    return n >= 0 && !td_node_known(m, b, n);
}

double td_column_not_known_share(const td_column *c, const td_model *m, const td_breakdown *b)
{
    int n = column_node(c, m, b);
    return n >= 0 && !td_node_known(m, b, n) ? b->value[n] : 0.0;
}

int td_column_interval(const td_column *c, const td_model *m, const td_breakdown *mean,
                       const td_breakdown *spread, td_interval *out)
{
    int n = column_node(c, m, mean);
    if (n < 0)
        return 0;
    *out = td_spread_interval(mean->value[n], spread->value[n]);
    return 1;
}

const char *td_interval_text(double value, td_interval in, char *buf, size_t size)
{
    char above[32], below[32];
    if (value - in.half >= 0.0 && value + in.half <= 1.0) { /* not clipped */
        snprintf(buf, size, "+-%.1f", 100.0 * in.half);
        return buf;
    }
    snprintf(above, sizeof above, "%.1f", 100.0 * fmax(0.0, in.hi - value));
    snprintf(below, sizeof below, "%.1f", 100.0 * fmax(0.0, value - in.lo));
    if (strcmp(above, below) == 0)
        snprintf(buf, size, "+-%s", above);
    else
        snprintf(buf, size, "+%s-%s", above, below);
    return buf;
}

double td_interval_reach(double value, td_interval in)
{
    return 100.0 * fmax(0.0, fmax(in.hi - value, value - in.lo));
}

int td_models_min_depth(const td_model *const *models, size_t n_models)
{
    int depth = td_backend_max_depth();
    for (size_t m = 0; m < n_models; m++)
        if (models[m]->depth < depth)
            depth = models[m]->depth;
    return depth;
}

const char *td_verdict_none(const td_verdict *v)
{
    return v->not_known ? TD_NOT_KNOWN : "none";
}

const char *td_bottleneck_path(const td_model *m, int bottleneck, char *buf, size_t size)
{
    snprintf(buf, size, "%s", bottleneck < 0 ? "" : m->tree[bottleneck].path);
    return buf;
}

/* The first value of b that is not a finite number, or NULL. */
static const char *first_non_finite(const td_model *m, const td_breakdown *b, double *value)
{
    for (int n = 0; n < m->n_tree && n < TD_TREE_MAX; n++)
        if (!isfinite(b->value[n]))
            return *value = b->value[n], m->tree[n].path;
    const double values[] = {b->ipc, b->ipc_issued, b->warp_eff, b->unattributed};
    const char *const names[] = {"IPC", "issued IPC", "warp efficiency", "Unattributed"};
    for (size_t i = 0; i < 4; i++)
        if (!isfinite(values[i]))
            return *value = values[i], names[i];
    return NULL;
}

int td_breakdown_printable(const td_model *m, const td_breakdown *b, const char *what,
                           td_error *err)
{
    if (!b->has_slots)
        return 0;
    double value = 0;
    const char *bad = first_non_finite(m, b, &value);
    if (bad)
        return td_fail(err, "%s: %s is %g, not a number that can be printed: the result's "
                       "counters are out of range (corrupt, or too large for the model); "
                       "check the file", what, bad, value);
    double level1 = b->unattributed;
    for (int n = td_model_next_child(m, -1, -1); n >= 0; n = td_model_next_child(m, -1, n))
        level1 += b->value[n];
    if (fabs(level1 - 1.0) > 1e-6)
        return td_fail(err, "%s: level 1 sums to %.4g%% of the issue slots, not 100%%: the "
                       "result's counters are out of range (corrupt, or too large for the "
                       "model); check the file", what, 100.0 * level1);
    return 0;
}

int td_summary_printable(const td_summary *s, td_error *err)
{
    if (!isfinite(s->total_ns) || !isfinite(s->covered_ns))
        return td_fail(err, "the total GPU time is %g ns, not a number that can be printed: "
                       "the result's durations are out of range; check the file", s->total_ns);
    if (s->app_has_data &&
        td_breakdown_printable(td_summary_model(s), &s->app, "the application", err))
        return -1;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        char what[200];
        snprintf(what, sizeof what, "kernel %.150s", ks->name);
        if (!isfinite(ks->total_ns))
            return td_fail(err, "%s: its GPU time is %g ns, not a number that can be "
                           "printed; check the file", what, ks->total_ns);
        if (ks->has_data &&
            td_breakdown_printable(&s->models[ks->model], &ks->mean, what, err))
            return -1;
    }
    return 0;
}

/* The item's node path (a bare name resolved), into buf. */
static const char *item_path(const char *item, size_t len, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s", (int)len, item);
    int node = td_node_find(buf);
    if (node >= 0)
        snprintf(buf, size, "%s", td_node_get(node)->path);
    return buf;
}

/* Whether a lies below b in the tree ("b.x...") */
static int below(const char *a, const char *b)
{
    size_t n = strlen(b);
    return strncmp(a, b, n) == 0 && a[n] == '.';
}

int td_node_selected(const char *selection, const char *path)
{
    if (!selection)
        return 1;
    for (const char *p = selection; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        char item[TD_PATH_MAX];
        item_path(p, len, item, sizeof item);
        if (strcmp(path, item) == 0 || below(path, item) || below(item, path))
            return 1;
        p += len;
    }
    return 0;
}

void td_columns_select(td_columns *cols, const char *selection)
{
    size_t kept = 0;
    for (size_t i = 0; i < cols->count; i++)
        if (td_node_selected(selection, cols->items[i].path))
            cols->items[kept++] = cols->items[i];
    cols->count = kept;
}

int td_node_listed(const char *selection, const char *path)
{
    for (const char *p = selection; p && *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        char item[TD_PATH_MAX];
        if (strcmp(path, item_path(p, len, item, sizeof item)) == 0)
            return 1;
        p += len;
    }
    return 0;
}

int td_nodes_check(const char *selection, td_error *err)
{
    if (!selection[0])
        return td_fail(err, "--nodes is empty: name a node or more (paths or names of "
                       "topdown list-nodes, e.g. --nodes Backend.Memory_Bound,Frontend)");
    for (const char *p = selection; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        char item[TD_PATH_MAX];
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (td_node_find(item) < 0)
            return td_fail(err, "--nodes: \"%s\" is no node of the model (a path or name of "
                           "topdown list-nodes, e.g. --nodes Backend.Memory_Bound,Frontend)",
                           item);
        p += len;
    }
    return 0;
}
