/* The timeline as JSON: what td_timeline_text prints, for programs. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "report/columns.h"
#include "report/output.h"
#include "report/timeline.h"

#define TD_TIMELINE_SCHEMA "topdown-timeline/1"

/* value in % of issue slots, or null where the table has no counter. */
static int add_pct(cJSON *obj, const char *key, double fraction)
{
    if (isnan(fraction))
        return cJSON_AddNullToObject(obj, key) != NULL;
    return cJSON_AddNumberToObject(obj, key, 100.0 * fraction) != NULL;
}

/* One point: its invocation, launch, time, and each column's share. */
static cJSON *point_object(const td_timeline_point *p, const td_summary *s,
                           const td_columns *cols)
{
    const td_model *m = &s->models[p->dev];
    cJSON *obj = cJSON_CreateObject(), *nodes = NULL, *lo = NULL, *hi = NULL, *unknown = NULL;
    int ok = obj && cJSON_AddNumberToObject(obj, "invocation", (double)p->invocation) &&
             cJSON_AddNumberToObject(obj, "launch_id", (double)p->launch_id) &&
             cJSON_AddNumberToObject(obj, "device_section", (double)p->dev) &&
             cJSON_AddNumberToObject(obj, "duration_ns", p->duration_ns) &&
             cJSON_AddNumberToObject(obj, "samples", (double)p->samples) &&
             cJSON_AddNumberToObject(obj, "unattributed_pct", 100.0 * p->b.unattributed) &&
             (nodes = cJSON_AddObjectToObject(obj, "pct_slots")) != NULL;
    if (ok && p->has_spread)
        ok = (lo = cJSON_AddObjectToObject(obj, "lo")) != NULL &&
             (hi = cJSON_AddObjectToObject(obj, "hi")) != NULL &&
             (unknown = cJSON_AddArrayToObject(obj, "not_known")) != NULL;
    for (size_t c = 0; ok && c < cols->count; c++) {
        const td_column *col = &cols->items[c];
        td_interval in;
        int has = td_column_interval(col, m, &p->b, &p->spread, &in);
        ok = add_pct(nodes, col->path, td_column_value(col, m, &p->b)) &&
             (!lo || (add_pct(lo, col->path, has ? in.lo : NAN) &&
                      add_pct(hi, col->path, has ? in.hi : NAN))) &&
             (!unknown || !td_column_not_known(col, m, &p->b) ||
              cJSON_AddItemToArray(unknown, cJSON_CreateString(col->path)));
    }
    if (!ok) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

/* One phase: its invocations, time, level-1 shares and bottleneck. */
static cJSON *phase_object(const td_timeline *t, const td_summary *s, const td_phase *ph,
                           int level)
{
    const td_model *m = &s->models[t->points[ph->first].dev];
    const char *names[TD_PHASE_WIDTH];
    double shares[TD_PHASE_WIDTH];
    td_level1_names(names);
    td_level1_shares(&ph->mean, shares);
    td_verdict v;
    td_model_judge(m, &ph->mean, &v);
    char path[420];
    td_verdict_names(m, &v, level, path, sizeof path);
    cJSON *obj = cJSON_CreateObject(), *level1 = NULL;
    int ok = obj &&
             cJSON_AddNumberToObject(obj, "first_invocation",
                                     (double)t->points[ph->first].invocation) &&
             cJSON_AddNumberToObject(obj, "last_invocation",
                                     (double)t->points[ph->last].invocation) &&
             cJSON_AddNumberToObject(obj, "points", (double)(ph->last - ph->first + 1)) &&
             cJSON_AddNumberToObject(obj, "total_ns", ph->total_ns) &&
             (path[0] ? cJSON_AddStringToObject(obj, "bottleneck", path) != NULL
                      : cJSON_AddNullToObject(obj, "bottleneck") != NULL) &&
             (level1 = cJSON_AddObjectToObject(obj, "level1_pct")) != NULL;
    for (int j = 0; ok && j < TD_PHASE_WIDTH; j++)
        ok = cJSON_AddNumberToObject(level1, names[j], shares[j]) != NULL;
    if (!ok) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

static cJSON *timeline_object(const td_timeline *t, const td_summary *s, int level,
                              double threshold, const td_columns *cols,
                              const td_phase *phases, size_t n_phases)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *points = NULL, *list = NULL;
    int ok = root && cJSON_AddStringToObject(root, "schema", TD_TIMELINE_SCHEMA) &&
             cJSON_AddStringToObject(root, "tool_version", TOPDOWN_VERSION) &&
             cJSON_AddStringToObject(root, "kernel", t->kernel) &&
             cJSON_AddNumberToObject(root, "level", level) &&
             cJSON_AddNumberToObject(root, "invocations", (double)t->invocations) &&
             cJSON_AddNumberToObject(root, "combined_points", (double)t->combined) &&
             cJSON_AddNumberToObject(root, "phase_threshold", threshold) &&
             (points = cJSON_AddArrayToObject(root, "points")) != NULL &&
             (list = cJSON_AddArrayToObject(root, "phases")) != NULL;
    for (size_t i = 0; ok && i < t->n_points; i++) {
        cJSON *p = point_object(&t->points[i], s, cols);
        ok = p && cJSON_AddItemToArray(points, p);
        if (!ok)
            cJSON_Delete(p);
    }
    for (size_t i = 0; ok && i < n_phases; i++) {
        cJSON *p = phase_object(t, s, &phases[i], level);
        ok = p && cJSON_AddItemToArray(list, p);
        if (!ok)
            cJSON_Delete(p);
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int td_timeline_json(FILE *out, const td_timeline *t, const td_summary *s, int level,
                     double threshold, td_error *err)
{
    const td_model **models = malloc((t->n_points ? t->n_points : 1) * sizeof *models);
    if (!models)
        return td_fail(err, "out of memory");
    td_columns cols = {NULL, 0};
    td_phase *phases = NULL;
    size_t n_phases = 0, n_models = td_timeline_models(t, s, models);
    int rc = n_models ? td_columns_segments(&cols, models, n_models, level, err) : 0;
    free(models);
    if (rc == 0 && t->n_points)
        rc = td_timeline_phases(t, threshold, &phases, &n_phases, err);
    td_c_numeric numeric;
    if (rc == 0)
        rc = td_c_numeric_begin(&numeric, err);
    if (rc == 0) {
        cJSON *root = timeline_object(t, s, level, threshold, &cols, phases, n_phases);
        char *text = root ? cJSON_Print(root) : NULL;
        td_c_numeric_end(&numeric);
        cJSON_Delete(root);
        if (text) {
            fputs(text, out);
            fputc('\n', out);
        } else {
            rc = td_fail(err, "out of memory");
        }
        free(text);
    }
    free(phases);
    td_columns_free(&cols);
    return rc;
}
