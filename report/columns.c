#include "columns.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

typedef struct builder {
    td_columns *cols;
    size_t cap;
    const td_model *const *models;
    size_t n_models;
    int level;
    int max_node_level;
    td_error *err;
} builder;

static td_column *push(builder *b, td_error *err)
{
    if (b->cols->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        td_column *bigger = realloc(b->cols->items, cap * sizeof *bigger);
        if (!bigger)
            return td_fail(err, "out of memory"), NULL;
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

/* The stall reasons of every model that sit under node, without repeats. */
static int add_stalls(builder *b, int node)
{
    for (size_t m = 0; m < b->n_models; m++) {
        const td_arch *arch = b->models[m]->arch;
        for (size_t i = 0; i < arch->n_stalls; i++) {
            if (b->models[m]->stall_node[i] != node)
                continue;
            char path[sizeof b->cols->items[0].path];
            snprintf(path, sizeof path, "%s.%s", td_node_get(node)->path,
                     arch->stalls[i].reason);
            if (has_column(b->cols, path))
                continue;
            td_column *c = push(b, b->err);
            if (!c)
                return -1;
            memcpy(c->path, path, sizeof path);
            c->node = node;
            c->reason = arch->stalls[i].reason;
            c->level = 4;
        }
    }
    return 0;
}

/* Pre-order: the node, its child nodes with their subtrees, its stalls. */
static int add_subtree(builder *b, int node)
{
    const td_node_info *info = td_node_get(node);
    if (info->level > b->level || info->level > b->max_node_level)
        return 0;
    td_column *c = push(b, b->err);
    if (!c)
        return -1;
    snprintf(c->path, sizeof c->path, "%s", info->path);
    c->node = node;
    c->level = info->level;
    for (int child = 0; child < TD_NODE_COUNT; child++)
        if (td_node_get(child)->parent == node && add_subtree(b, child))
            return -1;
    return b->level >= 4 ? add_stalls(b, node) : 0;
}

static void mark_leaves(td_columns *cols)
{
    for (size_t i = 0; i < cols->count; i++) {
        const td_column *c = &cols->items[i];
        int parent = c->reason ? c->node : td_node_get(c->node)->parent;
        if (parent < 0)
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
    builder b = {out, 0, models, n_models, level, max_node_level, err};
    for (int n = 0; n < TD_NODE_COUNT; n++)
        if (td_node_get(n)->parent < 0 && add_subtree(&b, n)) {
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
    if (level == 4 && !same_depth(models, n_models))
        level = 3;
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

double td_column_value(const td_column *c, const td_model *m, const td_breakdown *b)
{
    if (!b->has_slots)
        return NAN;
    if (!c->reason)
        return td_report_node_measured(m, c->node) ? b->node[c->node] : NAN;
    for (size_t i = 0; i < m->arch->n_stalls && i < b->n_stalls; i++)
        if (m->stall_node[i] == c->node && strcmp(m->arch->stalls[i].reason, c->reason) == 0)
            return b->stall[i];
    return NAN;
}

int td_models_min_depth(const td_model *const *models, size_t n_models)
{
    int depth = 3;
    for (size_t m = 0; m < n_models; m++)
        if (models[m]->depth < depth)
            depth = models[m]->depth;
    return depth;
}

const char *td_bottleneck_path(const td_model *m, int bottleneck, char *buf, size_t size)
{
    if (bottleneck < 0)
        snprintf(buf, size, "%s", "");
    else if (bottleneck < TD_NODE_COUNT)
        snprintf(buf, size, "%s", td_node_get(bottleneck)->path);
    else {
        size_t i = (size_t)(bottleneck - TD_NODE_COUNT);
        snprintf(buf, size, "%s.%s", td_node_get(m->stall_node[i])->path,
                 m->arch->stalls[i].reason);
    }
    return buf;
}

/* The first value of b that is not a finite number, or NULL. */
static const char *first_non_finite(const td_breakdown *b, double *value)
{
    for (int n = 0; n < TD_NODE_COUNT; n++)
        if (!isfinite(b->node[n]))
            return *value = b->node[n], td_node_get(n)->path;
    for (size_t i = 0; i < b->n_stalls && i < TD_MAX_STALLS; i++)
        if (!isfinite(b->stall[i]))
            return *value = b->stall[i], "a stall reason";
    const double values[] = {b->ipc, b->ipc_issued, b->warp_eff, b->unattributed};
    const char *const names[] = {"IPC", "issued IPC", "warp efficiency", "Unattributed"};
    for (size_t i = 0; i < 4; i++)
        if (!isfinite(values[i]))
            return *value = values[i], names[i];
    return NULL;
}

int td_breakdown_printable(const td_breakdown *b, const char *what, td_error *err)
{
    if (!b->has_slots)
        return 0;
    double value = 0;
    const char *bad = first_non_finite(b, &value);
    if (bad)
        return td_fail(err, "%s: %s is %g, not a number that can be printed: the result's "
                       "counters are out of range (corrupt, or too large for the model); "
                       "check the file", what, bad, value);
    double level1 = b->node[TD_N_RETIRE] + b->node[TD_N_DIVERGENCE] +
                    b->node[TD_N_FRONTEND] + b->node[TD_N_BACKEND] + b->unattributed;
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
    if (s->app_has_data && td_breakdown_printable(&s->app, "the application", err))
        return -1;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        char what[200];
        snprintf(what, sizeof what, "kernel %.150s", ks->name);
        if (!isfinite(ks->total_ns))
            return td_fail(err, "%s: its GPU time is %g ns, not a number that can be "
                           "printed; check the file", what, ks->total_ns);
        if (ks->has_data && td_breakdown_printable(&ks->mean, what, err))
            return -1;
    }
    return 0;
}

int td_c_numeric_begin(td_c_numeric *state, td_error *err)
{
    state->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (state->c_locale == (locale_t)0)
        return td_fail(err, "cannot create the C locale: %s", strerror(errno));
    state->previous = uselocale(state->c_locale);
    return 0;
}

void td_c_numeric_end(td_c_numeric *state)
{
    uselocale(state->previous);
    freelocale(state->c_locale);
    state->c_locale = (locale_t)0;
}

typedef struct sort_item {
    const char *kernel;
    uint64_t id;
    td_launch_ref ref;
} sort_item;

static int by_launch_order(const sort_item *x, const sort_item *y)
{
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->ref.dev != y->ref.dev)
        return x->ref.dev < y->ref.dev ? -1 : 1;
    return x->ref.index < y->ref.index ? -1 : (x->ref.index > y->ref.index);
}

static int by_order(const void *a, const void *b)
{
    return by_launch_order(a, b);
}

static int by_kernel_then_order(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    int c = strcmp(x->kernel, y->kernel);
    return c ? c : by_launch_order(x, y);
}

int td_launches_in_order(const td_result *res, td_launch_ref **out, size_t *n,
                         td_error *err)
{
    size_t total = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        total += res->devices[d].n_launches;
    sort_item *items = malloc((total ? total : 1) * sizeof *items);
    *out = malloc((total ? total : 1) * sizeof **out);
    if (!items || !*out) {
        free(items);
        free(*out);
        *out = NULL;
        return td_fail(err, "out of memory");
    }
    size_t k = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            items[k++] = (sort_item){l->kernel, l->id, {d, i, 0}};
        }
    /* Invocation numbers: launch order within each kernel. */
    qsort(items, total, sizeof *items, by_kernel_then_order);
    for (size_t i = 0; i < total; i++)
        items[i].ref.invocation =
            i > 0 && strcmp(items[i].kernel, items[i - 1].kernel) == 0
                ? items[i - 1].ref.invocation + 1 : 0;
    qsort(items, total, sizeof *items, by_order);
    for (size_t i = 0; i < total; i++)
        (*out)[i] = items[i].ref;
    free(items);
    *n = total;
    return 0;
}
