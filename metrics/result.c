#include "result.h"

#include "file_text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *td_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s) + 1;
    char *copy = malloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

/* ---- building ---------------------------------------------------------- */

td_device *td_result_add_device(td_result *res, td_error *err)
{
    td_device *bigger = realloc(res->devices, (res->n_devices + 1) * sizeof *bigger);
    if (!bigger) {
        td_fail(err, "out of memory");
        return NULL;
    }
    res->devices = bigger;
    td_device *dev = &res->devices[res->n_devices++];
    memset(dev, 0, sizeof *dev);
    return dev;
}

int td_device_set_metrics(td_device *dev, const char *const *names, size_t n,
                          td_error *err)
{
    if (dev->n_launches)
        return td_fail(err, "metrics of a device section are fixed once launches exist");
    for (size_t i = 0; i < dev->n_metrics; i++)
        free(dev->metrics[i]);
    free(dev->metrics);
    dev->n_metrics = 0;
    dev->metrics = calloc(n ? n : 1, sizeof *dev->metrics);
    if (!dev->metrics)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        dev->metrics[i] = td_strdup(names[i]);
        if (!dev->metrics[i])
            return td_fail(err, "out of memory");
        dev->n_metrics++;
    }
    return 0;
}

td_launch *td_device_add_launch(td_device *dev, const char *kernel,
                                const double *counters, td_error *err)
{
    if (dev->n_launches == dev->cap_launches) {
        size_t cap = dev->cap_launches ? dev->cap_launches * 2 : 64;
        td_launch *bigger = realloc(dev->launches, cap * sizeof *bigger);
        if (!bigger) {
            td_fail(err, "out of memory");
            return NULL;
        }
        dev->launches = bigger;
        dev->cap_launches = cap;
    }
    td_launch *l = &dev->launches[dev->n_launches];
    memset(l, 0, sizeof *l);
    l->group = TD_GROUP_ALL;
    l->kernel = td_strdup(kernel ? kernel : "?");
    if (!l->kernel) {
        td_fail(err, "out of memory");
        return NULL;
    }
    if (counters) {
        l->counters = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *l->counters);
        if (!l->counters) {
            free(l->kernel);
            td_fail(err, "out of memory");
            return NULL;
        }
        memcpy(l->counters, counters, dev->n_metrics * sizeof *l->counters);
        l->profiled = 1;
    }
    dev->n_launches++;
    return l;
}

int td_device_metric_index(const td_device *dev, const char *name)
{
    for (size_t i = 0; i < dev->n_metrics; i++)
        if (strcmp(dev->metrics[i], name) == 0)
            return (int)i;
    return -1;
}

int td_device_set_groups(td_device *dev, const td_counter_group *groups, size_t n,
                         td_error *err)
{
    td_counter_group *copy = calloc(n ? n : 1, sizeof *copy);
    if (!copy)
        return td_fail(err, "out of memory");
    for (size_t g = 0; g < n; g++) {
        copy[g].metrics = malloc((groups[g].n ? groups[g].n : 1) * sizeof *copy[g].metrics);
        if (!copy[g].metrics) {
            for (size_t j = 0; j < g; j++)
                free(copy[j].metrics);
            free(copy);
            return td_fail(err, "out of memory");
        }
        copy[g].n = groups[g].n;
        for (size_t i = 0; i < groups[g].n; i++) {
            if (groups[g].metrics[i] >= dev->n_metrics) {
                for (size_t j = 0; j <= g; j++)
                    free(copy[j].metrics);
                free(copy);
                return td_fail(err, "counter group %zu names metric %zu of %zu", g,
                               groups[g].metrics[i], dev->n_metrics);
            }
            copy[g].metrics[i] = groups[g].metrics[i];
        }
    }
    for (size_t g = 0; g < dev->n_groups; g++)
        free(dev->groups[g].metrics);
    free(dev->groups);
    dev->groups = copy;
    dev->n_groups = n;
    return 0;
}

/* ---- freeing ----------------------------------------------------------- */

static void free_device(td_device *dev)
{
    for (size_t i = 0; i < dev->n_launches; i++) {
        free(dev->launches[i].kernel);
        free(dev->launches[i].mangled);
        free(dev->launches[i].counters);
    }
    free(dev->launches);
    for (size_t i = 0; i < dev->n_metrics; i++)
        free(dev->metrics[i]);
    free(dev->metrics);
    for (size_t g = 0; g < dev->n_groups; g++)
        free(dev->groups[g].metrics);
    free(dev->groups);
    free(dev->name);
    free(dev->chip);
    free(dev->arch);
}

void td_result_free(td_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->n_devices; i++)
        free_device(&res->devices[i]);
    free(res->devices);
    for (size_t i = 0; i < res->argc; i++)
        free(res->argv[i]);
    free(res->argv);
    free(res->tool_version);
    free(res->created);
    free(res->note);
    free(res->status);
    free(res->replay_mode);
    memset(res, 0, sizeof *res);
}

/* ---- loading ----------------------------------------------------------- */

typedef struct parse_ctx {
    const char *name; /* file name, for messages */
    td_error *err;
} parse_ctx;

static int number_field(const cJSON *obj, const char *key, int required,
                        double *out, const parse_ctx *ctx, const char *where)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) {
        if (required)
            return td_fail(ctx->err, "%s: %s lacks \"%s\"; the file is incomplete or not a topdown result",
                           ctx->name, where, key);
        return 0;
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return td_fail(ctx->err, "%s: %s: \"%s\" is not a number", ctx->name,
                       where, key);
    if (item->valuedouble < 0)
        return td_fail(ctx->err, "%s: %s: \"%s\" is negative (%g); counters and durations cannot be",
                       ctx->name, where, key, item->valuedouble);
    *out = item->valuedouble;
    return 0;
}

static int string_field(const cJSON *obj, const char *key, int required,
                        char **out, const parse_ctx *ctx, const char *where)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item || cJSON_IsNull(item)) {
        if (required)
            return td_fail(ctx->err, "%s: %s lacks \"%s\"", ctx->name, where, key);
        return 0;
    }
    if (!cJSON_IsString(item))
        return td_fail(ctx->err, "%s: %s: \"%s\" is not a string", ctx->name,
                       where, key);
    *out = td_strdup(item->valuestring);
    return *out ? 0 : td_fail(ctx->err, "out of memory");
}

static int dim3_field(const cJSON *obj, const char *key, unsigned out[3],
                      const parse_ctx *ctx, const char *where)
{
    out[0] = out[1] = out[2] = 1;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 3)
        return td_fail(ctx->err, "%s: %s: \"%s\" must be [x, y, z]", ctx->name,
                       where, key);
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(arr, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > UINT_MAX)
            return td_fail(ctx->err, "%s: %s: \"%s\" must hold 3 non-negative integers",
                           ctx->name, where, key);
        out[i] = (unsigned)v->valuedouble;
    }
    return 0;
}

/* Which counter group a launch measured: TD_GROUP_ALL when it has none. */
static int parse_group(const cJSON *obj, const td_device *dev, int *group,
                       const parse_ctx *ctx, const char *where)
{
    double value = 0;
    *group = TD_GROUP_ALL;
    if (!cJSON_GetObjectItemCaseSensitive(obj, "group"))
        return 0;
    if (number_field(obj, "group", 1, &value, ctx, where))
        return -1;
    if (value != (double)(size_t)value || value >= (double)dev->n_groups)
        return td_fail(ctx->err, "%s: %s: \"group\" %g is not one of the device's %zu "
                       "counter groups", ctx->name, where, value, dev->n_groups);
    *group = (int)value;
    return 0;
}

static int parse_counters(const cJSON *obj, const td_device *dev, int group, double *values,
                          const parse_ctx *ctx, const char *where)
{
    const cJSON *counters = cJSON_GetObjectItemCaseSensitive(obj, "counters");
    if (!cJSON_IsObject(counters))
        return td_fail(ctx->err, "%s: %s is marked profiled but has no \"counters\" object",
                       ctx->name, where);
    memset(values, 0, (dev->n_metrics ? dev->n_metrics : 1) * sizeof *values);
    size_t n = group == TD_GROUP_ALL ? dev->n_metrics : dev->groups[group].n;
    for (size_t i = 0; i < n; i++) {
        size_t m = group == TD_GROUP_ALL ? i : dev->groups[group].metrics[i];
        if (number_field(counters, dev->metrics[m], 1, &values[m], ctx, where))
            return td_fail_context(ctx->err, "missing or bad counter %s", dev->metrics[m]);
    }
    return 0;
}

/* "groups": [[metric indices], ...] of replay-free collection. */
static int parse_groups(const cJSON *obj, td_device *dev, const parse_ctx *ctx,
                        const char *where)
{
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(obj, "groups");
    if (!groups)
        return 0;
    size_t n = cJSON_IsArray(groups) ? (size_t)cJSON_GetArraySize(groups) : 0;
    td_counter_group *list = calloc(n ? n : 1, sizeof *list);
    size_t *indices = calloc(n * dev->n_metrics + 1, sizeof *indices);
    int rc = list && indices ? 0 : td_fail(ctx->err, "out of memory");
    size_t used = 0, g = 0;
    const cJSON *group;
    if (rc == 0 && (!cJSON_IsArray(groups) || n == 0))
        rc = td_fail(ctx->err, "%s: %s: \"groups\" must be a list of metric index lists",
                     ctx->name, where);
    const cJSON *walked = rc == 0 ? groups : NULL;
    cJSON_ArrayForEach(group, walked) {
        list[g].metrics = indices + used;
        const cJSON *index;
        cJSON_ArrayForEach(index, group) {
            if (!cJSON_IsNumber(index) || index->valuedouble < 0 ||
                index->valuedouble >= (double)dev->n_metrics || list[g].n >= dev->n_metrics) {
                rc = td_fail(ctx->err, "%s: %s: counter group %zu holds a bad metric index",
                             ctx->name, where, g);
                break;
            }
            list[g].metrics[list[g].n++] = (size_t)index->valuedouble;
        }
        if (rc == 0 && (!cJSON_IsArray(group) || list[g].n == 0))
            rc = td_fail(ctx->err, "%s: %s: counter group %zu is empty", ctx->name, where, g);
        if (rc)
            break;
        used += list[g].n;
        g++;
    }
    if (rc == 0)
        rc = td_device_set_groups(dev, list, n, ctx->err);
    free(list);
    free(indices);
    return rc;
}

static int parse_launch(const cJSON *obj, td_device *dev, size_t index,
                        double *scratch, const parse_ctx *ctx)
{
    char where[64];
    snprintf(where, sizeof where, "launch %zu of device %d", index, dev->index);
    if (!cJSON_IsObject(obj))
        return td_fail(ctx->err, "%s: %s is not an object", ctx->name, where);
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(obj, "kernel");
    if (!cJSON_IsString(kernel) || !kernel->valuestring[0])
        return td_fail(ctx->err, "%s: %s has no \"kernel\" name", ctx->name, where);
    const cJSON *profiled = cJSON_GetObjectItemCaseSensitive(obj, "profiled");
    int is_profiled = profiled ? cJSON_IsTrue(profiled) : 1;
    if (profiled && !cJSON_IsBool(profiled))
        return td_fail(ctx->err, "%s: %s: \"profiled\" must be true or false", ctx->name, where);
    int group = TD_GROUP_ALL;
    if (is_profiled && (parse_group(obj, dev, &group, ctx, where) ||
                        parse_counters(obj, dev, group, scratch, ctx, where)))
        return -1;
    td_launch *l = td_device_add_launch(dev, kernel->valuestring,
                                        is_profiled ? scratch : NULL, ctx->err);
    if (!l)
        return -1;
    l->group = group;
    double id = (double)index, stream = 0, start = 0;
    if (number_field(obj, "id", 0, &id, ctx, where) ||
        number_field(obj, "stream", 0, &stream, ctx, where) ||
        number_field(obj, "start_ns", 0, &start, ctx, where) ||
        number_field(obj, "duration_ns", 1, &l->duration_ns, ctx, where) ||
        string_field(obj, "mangled", 0, &l->mangled, ctx, where) ||
        dim3_field(obj, "grid", l->grid, ctx, where) ||
        dim3_field(obj, "block", l->block, ctx, where))
        return -1;
    l->id = (uint64_t)id;
    l->stream = (uint64_t)stream;
    l->start_ns = (uint64_t)start;
    return 0;
}

static int parse_metric_names(const cJSON *obj, td_device *dev, const parse_ctx *ctx,
                              const char *where)
{
    const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(obj, "metrics");
    if (!cJSON_IsArray(metrics))
        return td_fail(ctx->err, "%s: %s lacks the \"metrics\" array", ctx->name, where);
    size_t n = (size_t)cJSON_GetArraySize(metrics);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return td_fail(ctx->err, "out of memory");
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, metrics) {
        if (!cJSON_IsString(item) || !item->valuestring[0]) {
            free(names);
            return td_fail(ctx->err, "%s: %s: \"metrics\" must hold metric names",
                           ctx->name, where);
        }
        names[i++] = item->valuestring;
    }
    int rc = td_device_set_metrics(dev, names, n, ctx->err);
    free(names);
    return rc;
}

static int parse_device(const cJSON *obj, td_result *res, size_t index,
                        const parse_ctx *ctx)
{
    char where[64];
    snprintf(where, sizeof where, "device section %zu", index);
    if (!cJSON_IsObject(obj))
        return td_fail(ctx->err, "%s: %s is not an object", ctx->name, where);
    td_device *dev = td_result_add_device(res, ctx->err);
    if (!dev)
        return -1;
    double ordinal = 0, context = 0, sm_count = 0, passes = 0;
    char *cc = NULL;
    if (number_field(obj, "index", 0, &ordinal, ctx, where) ||
        number_field(obj, "context", 0, &context, ctx, where) ||
        number_field(obj, "sm_count", 0, &sm_count, ctx, where) ||
        number_field(obj, "passes", 0, &passes, ctx, where) ||
        string_field(obj, "name", 0, &dev->name, ctx, where) ||
        string_field(obj, "chip", 0, &dev->chip, ctx, where) ||
        string_field(obj, "arch", 1, &dev->arch, ctx, where) ||
        string_field(obj, "compute_capability", 0, &cc, ctx, where) ||
        parse_metric_names(obj, dev, ctx, where) || parse_groups(obj, dev, ctx, where))
        return free(cc), -1;
    dev->index = (int)ordinal;
    dev->context = (uint32_t)context;
    dev->sm_count = (int)sm_count;
    dev->passes = (int)passes;
    if (cc && sscanf(cc, "%d.%d", &dev->cc_major, &dev->cc_minor) != 2) {
        free(cc);
        return td_fail(ctx->err, "%s: %s: \"compute_capability\" must look like \"9.0\"",
                       ctx->name, where);
    }
    free(cc);
    const cJSON *launches = cJSON_GetObjectItemCaseSensitive(obj, "launches");
    if (!cJSON_IsArray(launches))
        return td_fail(ctx->err, "%s: %s lacks the \"launches\" array", ctx->name, where);
    double *scratch = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *scratch);
    if (!scratch)
        return td_fail(ctx->err, "out of memory");
    size_t i = 0;
    const cJSON *item;
    int rc = 0;
    cJSON_ArrayForEach(item, launches) {
        if ((rc = parse_launch(item, dev, i++, scratch, ctx)) != 0)
            break;
    }
    free(scratch);
    return rc;
}

static int parse_app(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    const cJSON *app = cJSON_GetObjectItemCaseSensitive(root, "app");
    if (!app)
        return 0;
    if (!cJSON_IsObject(app))
        return td_fail(ctx->err, "%s: \"app\" must be an object", ctx->name);
    const cJSON *argv = cJSON_GetObjectItemCaseSensitive(app, "argv");
    if (cJSON_IsArray(argv)) {
        size_t n = (size_t)cJSON_GetArraySize(argv);
        res->argv = calloc(n ? n : 1, sizeof *res->argv);
        if (!res->argv)
            return td_fail(ctx->err, "out of memory");
        const cJSON *item;
        cJSON_ArrayForEach(item, argv) {
            if (!cJSON_IsString(item))
                return td_fail(ctx->err, "%s: \"app.argv\" must hold strings", ctx->name);
            res->argv[res->argc++] = td_strdup(item->valuestring);
        }
    }
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(app, "exit_code");
    if (code && !cJSON_IsNumber(code))
        return td_fail(ctx->err, "%s: \"app.exit_code\" must be a number", ctx->name);
    res->exit_code = code ? code->valueint : 0;
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(app, "signal");
    res->term_signal = cJSON_IsNumber(sig) ? sig->valueint : 0;
    return string_field(app, "status", 0, &res->status, ctx, "\"app\"");
}

/* How the counters were collected (replay mode, cost budget). */
static int parse_collection(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    const cJSON *collection = cJSON_GetObjectItemCaseSensitive(root, "collection");
    if (!collection)
        return 0;
    if (!cJSON_IsObject(collection))
        return td_fail(ctx->err, "%s: \"collection\" must be an object", ctx->name);
    return string_field(collection, "replay_mode", 0, &res->replay_mode, ctx, "\"collection\"") ||
           number_field(collection, "overhead_pct", 0, &res->overhead_pct, ctx, "\"collection\"");
}

static int parse_root(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    if (!cJSON_IsObject(root))
        return td_fail(ctx->err, "%s: not a JSON object; expected a topdown result file",
                       ctx->name);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema))
        return td_fail(ctx->err, "%s: no \"schema\" field; not a topdown result file",
                       ctx->name);
    if (strcmp(schema->valuestring, TD_RESULT_SCHEMA) != 0)
        return td_fail(ctx->err, "%s: schema \"%s\" is not supported (this topdown reads \"%s\"); use a matching topdown version",
                       ctx->name, schema->valuestring, TD_RESULT_SCHEMA);
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(root, "tool");
    if (cJSON_IsObject(tool) &&
        string_field(tool, "version", 0, &res->tool_version, ctx, "\"tool\""))
        return -1;
    const cJSON *synthetic = cJSON_GetObjectItemCaseSensitive(root, "synthetic");
    res->synthetic = cJSON_IsTrue(synthetic);
    if (string_field(root, "created", 0, &res->created, ctx, "result") ||
        string_field(root, "note", 0, &res->note, ctx, "result") ||
        parse_app(root, res, ctx) || parse_collection(root, res, ctx))
        return -1;
    const cJSON *devices = cJSON_GetObjectItemCaseSensitive(root, "devices");
    if (!cJSON_IsArray(devices))
        return td_fail(ctx->err, "%s: no \"devices\" array; the file is incomplete",
                       ctx->name);
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, devices) {
        if (parse_device(item, res, i++, ctx))
            return -1;
    }
    return 0;
}

int td_result_parse(const char *text, size_t len, const char *name,
                    td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    parse_ctx ctx = {name, err};
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *stop = cJSON_GetErrorPtr();
        long offset = stop ? (long)(stop - text) : -1;
        return td_fail(err, "%s: malformed or truncated JSON near byte %ld of %zu; the file is damaged (re-run or re-export it)",
                       name, offset, len);
    }
    int rc = parse_root(root, out, &ctx);
    cJSON_Delete(root);
    if (rc)
        td_result_free(out);
    return rc;
}

int td_result_load(const char *path, td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    if (td_read_text_file(path, &text, &len, err))
        return td_fail_context(err, "result file");
    int rc = td_result_parse(text, len, path, out, err);
    free(text);
    return rc;
}

/* ---- saving ------------------------------------------------------------ */

static cJSON *dim3_json(const unsigned v[3])
{
    int ints[3] = {(int)v[0], (int)v[1], (int)v[2]};
    return cJSON_CreateIntArray(ints, 3);
}

static cJSON *launch_json(const td_device *dev, const td_launch *l)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddNumberToObject(obj, "id", (double)l->id);
    cJSON_AddStringToObject(obj, "kernel", l->kernel);
    if (l->mangled)
        cJSON_AddStringToObject(obj, "mangled", l->mangled);
    cJSON_AddItemToObject(obj, "grid", dim3_json(l->grid));
    cJSON_AddItemToObject(obj, "block", dim3_json(l->block));
    cJSON_AddNumberToObject(obj, "stream", (double)l->stream);
    if (l->start_ns)
        cJSON_AddNumberToObject(obj, "start_ns", (double)l->start_ns);
    cJSON_AddNumberToObject(obj, "duration_ns", l->duration_ns);
    cJSON_AddBoolToObject(obj, "profiled", l->profiled);
    if (l->profiled && l->counters) {
        int group = l->group;
        if (group != TD_GROUP_ALL)
            cJSON_AddNumberToObject(obj, "group", group);
        size_t n = group == TD_GROUP_ALL ? dev->n_metrics : dev->groups[group].n;
        cJSON *counters = cJSON_AddObjectToObject(obj, "counters");
        for (size_t i = 0; i < n; i++) {
            size_t m = group == TD_GROUP_ALL ? i : dev->groups[group].metrics[i];
            cJSON_AddNumberToObject(counters, dev->metrics[m], l->counters[m]);
        }
    }
    return obj;
}

static cJSON *device_json(const td_device *dev)
{
    cJSON *obj = cJSON_CreateObject();
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", dev->cc_major, dev->cc_minor);
    cJSON_AddNumberToObject(obj, "index", dev->index);
    cJSON_AddNumberToObject(obj, "context", dev->context);
    cJSON_AddStringToObject(obj, "name", dev->name ? dev->name : "unknown");
    cJSON_AddStringToObject(obj, "chip", dev->chip ? dev->chip : "unknown");
    cJSON_AddStringToObject(obj, "compute_capability", cc);
    cJSON_AddNumberToObject(obj, "sm_count", dev->sm_count);
    cJSON_AddStringToObject(obj, "arch", dev->arch ? dev->arch : "unknown");
    cJSON_AddNumberToObject(obj, "passes", dev->passes);
    cJSON *metrics = cJSON_AddArrayToObject(obj, "metrics");
    for (size_t m = 0; m < dev->n_metrics; m++)
        cJSON_AddItemToArray(metrics, cJSON_CreateString(dev->metrics[m]));
    if (dev->n_groups) {
        cJSON *groups = cJSON_AddArrayToObject(obj, "groups");
        for (size_t g = 0; g < dev->n_groups; g++) {
            cJSON *group = cJSON_CreateArray();
            for (size_t i = 0; i < dev->groups[g].n; i++)
                cJSON_AddItemToArray(group, cJSON_CreateNumber((double)dev->groups[g].metrics[i]));
            cJSON_AddItemToArray(groups, group);
        }
    }
    cJSON *launches = cJSON_AddArrayToObject(obj, "launches");
    for (size_t i = 0; i < dev->n_launches; i++)
        cJSON_AddItemToArray(launches, launch_json(dev, &dev->launches[i]));
    return obj;
}

static cJSON *result_json(const td_result *res)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", TD_RESULT_SCHEMA);
    cJSON *tool = cJSON_AddObjectToObject(root, "tool");
    cJSON_AddStringToObject(tool, "name", "topdown");
    cJSON_AddStringToObject(tool, "version",
                            res->tool_version ? res->tool_version : TOPDOWN_VERSION);
    if (res->created)
        cJSON_AddStringToObject(root, "created", res->created);
    cJSON_AddBoolToObject(root, "synthetic", res->synthetic);
    if (res->note)
        cJSON_AddStringToObject(root, "note", res->note);
    cJSON *app = cJSON_AddObjectToObject(root, "app");
    cJSON *argv = cJSON_AddArrayToObject(app, "argv");
    for (size_t i = 0; i < res->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(res->argv[i]));
    cJSON_AddNumberToObject(app, "exit_code", res->exit_code);
    cJSON_AddNumberToObject(app, "signal", res->term_signal);
    cJSON_AddStringToObject(app, "status", res->status ? res->status : "complete");
    if (res->replay_mode) {
        cJSON *collection = cJSON_AddObjectToObject(root, "collection");
        cJSON_AddStringToObject(collection, "replay_mode", res->replay_mode);
        cJSON_AddNumberToObject(collection, "overhead_pct", res->overhead_pct);
    }
    cJSON *devices = cJSON_AddArrayToObject(root, "devices");
    for (size_t i = 0; i < res->n_devices; i++)
        cJSON_AddItemToArray(devices, device_json(&res->devices[i]));
    return root;
}

int td_result_save(const char *path, const td_result *res, td_error *err)
{
    cJSON *root = result_json(res);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return td_fail(err, "out of memory writing %s", path);
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(text);
        return td_fail(err, "cannot write %s: %s", tmp, strerror(errno));
    }
    size_t len = strlen(text);
    int ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return td_fail(err, "cannot write %s: %s", path, strerror(saved));
    }
    return 0;
}
