#include "report/json.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "report/columns.h"
#include "report/launch_report.h"
#include "report/output.h"
#include "report/throughput.h"

/* One modelled breakdown (a kernel's mean or the application's) and what
 * describes it. */
typedef struct json_view {
    const char *name;
    size_t launches, profiled;
    double total_ns, share_pct;
    int has_data;
    const td_model *model;
    const td_breakdown *b;
    const td_breakdown *spread; /* each node's spread (levels/spread.h) */
    const td_verdict *v;
    const char *nodes;  /* --nodes: the nodes listed (td_node_selected); NULL: all */
    const td_launch_stats *launch; /* a kernel's launch statistics; NULL: the application */
    double throughput[TD_MEM_MAX_UNITS]; /* each memory unit's % of peak (NAN: none) */
} json_view;

/* key: value where has, else null. */
static int add_number(cJSON *obj, const char *key, int has, double value)
{
    return (has ? cJSON_AddNumberToObject(obj, key, value) : cJSON_AddNullToObject(obj, key)) !=
           NULL;
}

static int add_node(cJSON *nodes, const json_view *view, int node, int level)
{
    const td_tree_node *t = &view->model->tree[node];
    cJSON *item = cJSON_CreateObject();
    if (!item || !cJSON_AddItemToArray(nodes, item))
        return cJSON_Delete(item), -1;
    /* a node of a stall split that was not made: null, never a guess; one
     * not known: null, with its (wide) interval */
    int measured = td_node_measured(view->model, view->b, node);
    int known = td_node_known(view->model, view->b, node);
    double value = view->b->value[node];
    td_interval in = td_spread_interval(value, view->spread->value[node]);
    int ok = cJSON_AddStringToObject(item, "path", t->path) &&
             cJSON_AddStringToObject(item, "name", t->name) &&
             cJSON_AddNumberToObject(item, "level", t->level) &&
             cJSON_AddStringToObject(item, "kind", td_kind_name(t->kind)) &&
             add_number(item, "pct_slots", known, 100.0 * value) &&
             add_number(item, "lo", measured, 100.0 * in.lo) &&
             add_number(item, "hi", measured, 100.0 * in.hi) &&
             cJSON_AddBoolToObject(item, "not_known", measured && !known) &&
             cJSON_AddBoolToObject(item, "over_threshold", view->v->over[node]) &&
             cJSON_AddBoolToObject(item, "bottleneck", td_verdict_names_node(view->v, level, node));
    return ok ? 0 : -1;
}

/* Pre-order: a node, then its children; nodes without counters under the
 * table, or deeper than level, are left out. */
static int add_subtree(cJSON *nodes, const json_view *view, int node, int level)
{
    const td_model *m = view->model;
    const td_tree_node *t = &m->tree[node];
    if (t->level > level || !t->measured || !td_node_present(m, view->b, node) ||
        !td_node_selected(view->nodes, t->path))
        return 0;
    if (add_node(nodes, view, node, level))
        return -1;
    for (int child = td_model_next_child(m, node, -1); child >= 0;
         child = td_model_next_child(m, node, child))
        if (add_subtree(nodes, view, child, level))
            return -1;
    return 0;
}

static int add_tree(cJSON *obj, const json_view *view, int level)
{
    cJSON *nodes = cJSON_AddArrayToObject(obj, "nodes");
    if (!nodes)
        return -1;
    if (!view->has_data)
        return 0;
    const td_model *m = view->model;
    for (int n = td_model_next_child(m, -1, -1); n >= 0; n = td_model_next_child(m, -1, n))
        if (add_subtree(nodes, view, n, level))
            return -1;
    return 0;
}

static cJSON *view_object(const json_view *view, int level)
{
    cJSON *obj = cJSON_CreateObject();
    char names[420] = "";
    if (view->has_data)
        td_verdict_names(view->model, view->v, level, names, sizeof names);
    int ok = obj && cJSON_AddStringToObject(obj, "name", view->name) &&
             cJSON_AddStringToObject(obj, "arch", view->model->arch->name) &&
             cJSON_AddNumberToObject(obj, "launches", (double)view->launches) &&
             cJSON_AddNumberToObject(obj, "profiled_launches", (double)view->profiled) &&
             cJSON_AddNumberToObject(obj, "total_ns", view->total_ns) &&
             cJSON_AddNumberToObject(obj, "gpu_time_pct", view->share_pct) &&
             cJSON_AddBoolToObject(obj, "has_data", view->has_data);
    if (ok && view->has_data)
        ok = cJSON_AddNumberToObject(obj, "ipc", view->b->ipc) &&
             cJSON_AddNumberToObject(obj, "unattributed_pct", 100.0 * view->b->unattributed);
    if (ok)
        ok = names[0] ? cJSON_AddStringToObject(obj, "bottleneck", names) != NULL
                      : cJSON_AddNullToObject(obj, "bottleneck") != NULL;
    if (!ok || (view->launch && td_launch_stats_add_json(obj, view->launch)) ||
        td_throughput_add_json(obj, view->model, view->throughput) || add_tree(obj, view, level)) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

static json_view app_view(const td_summary *s, const char *nodes)
{
    json_view v = {TD_APP_ROW, s->launches, s->profiled, s->total_ns, 100.0, s->app_has_data,
                   td_summary_model(s), &s->app, &s->app_spread, &s->app_verdict, nodes, NULL,
                   {0}};
    memcpy(v.throughput, s->app_throughput, sizeof v.throughput);
    return v;
}

static json_view kernel_view(const td_summary *s, const td_kernel_summary *ks,
                             const char *nodes)
{
    json_view v = {ks->name, ks->launches, ks->profiled, ks->total_ns,
                   s->total_ns > 0 ? 100.0 * ks->total_ns / s->total_ns : 0, ks->has_data,
                   &s->models[ks->model], &ks->mean, &ks->spread, &ks->verdict, nodes,
                   &ks->launch, {0}};
    td_kernel_throughput(v.model, ks, v.throughput);
    return v;
}

static cJSON *summary_object(const td_summary *s, int level, const char *origin,
                             const td_conditions *conditions, const td_cost *cost,
                             const char *nodes)
{
    cJSON *root = cJSON_CreateObject();
    int ok = root && cJSON_AddStringToObject(root, "schema", TD_TREE_SCHEMA) &&
             cJSON_AddStringToObject(root, "tool_version", TOPDOWN_VERSION) &&
             (origin ? cJSON_AddStringToObject(root, "source", origin) != NULL
                     : cJSON_AddNullToObject(root, "source") != NULL) &&
             cJSON_AddNumberToObject(root, "level", level) &&
             (!conditions || td_conditions_add_json(root, conditions) == 0) &&
             (!cost || td_cost_add_json(root, cost, 1) == 0);
    json_view app = app_view(s, nodes);
    cJSON *app_obj = ok ? view_object(&app, level) : NULL;
    ok = app_obj && cJSON_AddItemToObject(root, "application", app_obj);
    if (!ok)
        cJSON_Delete(app_obj);
    cJSON *kernels = ok ? cJSON_AddArrayToObject(root, "kernels") : NULL;
    for (size_t k = 0; kernels && k < s->n_kernels; k++) {
        json_view view = kernel_view(s, &s->kernels[k], nodes);
        cJSON *obj = view_object(&view, level);
        if (!obj || !cJSON_AddItemToArray(kernels, obj)) {
            cJSON_Delete(obj);
            kernels = NULL;
        }
    }
    if (!kernels) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int td_report_json(FILE *out, const td_summary *s, int level, const char *origin,
                   const td_conditions *conditions, const td_cost *cost, const char *nodes,
                   td_error *err)
{
    if (level < 1 || level > TD_MAX_LEVEL)
        return td_fail(err, "level %d does not exist; use -l 1 to -l %d", level, TD_MAX_LEVEL);
    if (td_summary_printable(s, err)) /* never null for a nan or inf */
        return -1;
    return td_json_print(out, summary_object(s, level, origin, conditions, cost, nodes), err);
}

int td_json_print(FILE *out, cJSON *root, td_error *err)
{
    td_c_numeric numeric;
    if (td_c_numeric_begin(&numeric, err)) {
        cJSON_Delete(root);
        return -1;
    }
    char *text = root ? cJSON_Print(root) : NULL;
    td_c_numeric_end(&numeric);
    cJSON_Delete(root);
    if (!text)
        return td_fail(err, "out of memory");
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return 0;
}
