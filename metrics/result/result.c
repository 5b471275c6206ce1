/* The result file: building and freeing results, the parts both schemas
 * share (header, device identity), loading and atomic saving. The launch
 * tables are in result_v1.c (read only) and result_v2.c. */
#include "metrics/result/result.h"

#include "metrics/result/compress.h"
#include "metrics/file_text.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/result_io.h"
#include "metrics/result/pm_samples.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    for (size_t i = 0; i < n; i++)
        if (!names[i] || !names[i][0])
            return td_fail(err, "metric %zu of the device section has no name", i);
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

const char *td_device_intern(td_device *dev, const char *name)
{
    return td_names_intern(&dev->names, name);
}

/* Room for need launches in all. */
static int reserve_launches(td_device *dev, size_t need, td_error *err)
{
    if (need <= dev->cap_launches)
        return 0;
    size_t cap = dev->cap_launches ? dev->cap_launches * 2 : 64;
    if (cap < need)
        cap = need;
    td_launch *bigger = realloc(dev->launches, cap * sizeof *bigger);
    if (!bigger)
        return td_fail(err, "out of memory");
    dev->launches = bigger;
    dev->cap_launches = cap;
    return 0;
}

int td_device_reserve_launches(td_device *dev, size_t n, td_error *err)
{
    return reserve_launches(dev, dev->n_launches + n, err);
}

td_launch *td_device_add_launch(td_device *dev, const char *kernel,
                                const double *counters, td_error *err)
{
    const char *name = td_device_intern(dev, kernel && kernel[0] ? kernel : "?");
    if (!name) {
        td_fail(err, "out of memory");
        return NULL;
    }
    return td_device_append_launch(dev, name, counters, err);
}

td_launch *td_device_append_launch(td_device *dev, const char *interned_kernel,
                                   const double *counters, td_error *err)
{
    if (reserve_launches(dev, dev->n_launches + 1, err))
        return NULL;
    td_launch *l = &dev->launches[dev->n_launches];
    memset(l, 0, sizeof *l);
    l->group = TD_GROUP_ALL;
    l->kernel = interned_kernel;
    if (counters) {
        l->counters = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *l->counters);
        if (!l->counters) {
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

static void free_groups(td_counter_group *groups, size_t n)
{
    for (size_t g = 0; g < n; g++)
        free(groups[g].metrics);
    free(groups);
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
            free_groups(copy, g);
            return td_fail(err, "out of memory");
        }
        copy[g].n = groups[g].n;
        for (size_t i = 0; i < groups[g].n; i++) {
            if (groups[g].metrics[i] >= dev->n_metrics) {
                free_groups(copy, g + 1);
                return td_fail(err, "counter group %zu names metric %zu of %zu", g,
                               groups[g].metrics[i], dev->n_metrics);
            }
            copy[g].metrics[i] = groups[g].metrics[i];
        }
    }
    free_groups(dev->groups, dev->n_groups);
    dev->groups = copy;
    dev->n_groups = n;
    return 0;
}

/* ---- freeing ----------------------------------------------------------- */

static void free_device(td_device *dev)
{
    for (size_t i = 0; i < dev->n_launches; i++)
        free(dev->launches[i].counters);
    free(dev->launches);
    free(dev->copies);
    td_names_free(&dev->names);
    for (size_t i = 0; i < dev->n_metrics; i++)
        free(dev->metrics[i]);
    free(dev->metrics);
    free_groups(dev->groups, dev->n_groups);
    free(dev->name);
    free(dev->chip);
    free(dev->arch);
    free(dev->source);
    td_pcsamp_free(dev->pcsamp);
    td_pm_free(dev->pm);
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
    td_conditions_free(&res->conditions);
    memset(res, 0, sizeof *res);
}

/* ---- loading: the device section's identity ------------------------------ */

static int read_metric_names(const cJSON *obj, td_device *dev, const td_jctx *c)
{
    const cJSON *metrics;
    size_t n;
    if (td_json_array(c, obj, "metrics", 1, &metrics, &n))
        return -1;
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return td_fail(c->err, "out of memory");
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, metrics) {
        if (!cJSON_IsString(item) || !item->valuestring[0]) {
            free(names);
            return td_fail(c->err, "%s: \"metrics\" must hold metric names", c->where);
        }
        names[i++] = item->valuestring;
    }
    int rc = td_device_set_metrics(dev, names, n, c->err);
    free(names);
    return rc;
}

static int read_group(const cJSON *arr, const td_device *dev, size_t g,
                      td_counter_group *out, char *seen, const td_jctx *c)
{
    size_t n = cJSON_IsArray(arr) ? (size_t)cJSON_GetArraySize(arr) : 0;
    if (n == 0)
        return td_fail(c->err, "%s: counter group %zu must be a non-empty list of metric indices",
                       c->where, g);
    out->metrics = malloc(n * sizeof *out->metrics);
    if (!out->metrics)
        return td_fail(c->err, "out of memory");
    memset(seen, 0, dev->n_metrics ? dev->n_metrics : 1);
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) {
        uint64_t m;
        if (td_json_uint_value(c, v, "\"groups\"", (long)g, (double)dev->n_metrics - 1, &m))
            return -1;
        if (seen[m]++)
            return td_fail(c->err, "%s: counter group %zu names metric %llu twice", c->where,
                           g, (unsigned long long)m);
        out->metrics[out->n++] = (size_t)m;
    }
    return 0;
}

/* "groups": [[metric indices], ...] (optional) */
int td_result_read_groups(const cJSON *obj, td_device *dev, const td_jctx *c)
{
    const cJSON *groups;
    size_t n;
    if (td_json_array(c, obj, "groups", 0, &groups, &n))
        return -1;
    if (!groups)
        return 0;
    if (n && !dev->n_metrics)
        return td_fail(c->err, "%s: counter groups but no metrics", c->where);
    td_counter_group *read = calloc(n ? n : 1, sizeof *read);
    char *seen = malloc(dev->n_metrics ? dev->n_metrics : 1);
    int rc = (read && seen) ? 0 : td_fail(c->err, "out of memory");
    size_t g = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, groups) {
        if (rc || (rc = read_group(item, dev, g, &read[g], seen, c)) != 0)
            break;
        g++;
    }
    if (rc == 0)
        rc = td_device_set_groups(dev, read, n, c->err);
    if (read)
        free_groups(read, n);
    free(seen);
    return rc;
}

/* "9.0": two integers, each in [0, TD_MAX_CC]; no sscanf (%d overflows). */
static int parse_cc(const char *cc, int *major, int *minor)
{
    char *end;
    errno = 0;
    long a = strtol(cc, &end, 10);
    if (end == cc || *end != '.' || errno || a < 0 || a > TD_MAX_CC)
        return -1;
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end || errno || b < 0 || b > TD_MAX_CC)
        return -1;
    *major = (int)a;
    *minor = (int)b;
    return 0;
}

int td_result_read_device_head(const cJSON *obj, td_device *dev, const td_jctx *c)
{
    long ordinal = 0, sm_count = 0, passes = 0;
    uint64_t context = 0;
    const char *cc = NULL;
    if (td_json_int(c, obj, "index", 0, 0, INT_MAX, &ordinal) ||
        td_json_uint(c, obj, "context", 0, UINT32_MAX, &context) ||
        td_json_int(c, obj, "sm_count", 0, 0, TD_MAX_SM_COUNT, &sm_count) ||
        td_json_int(c, obj, "passes", 0, 0, TD_MAX_PASSES, &passes) ||
        td_json_string_dup(c, obj, "name", 0, &dev->name) ||
        td_json_string_dup(c, obj, "chip", 0, &dev->chip) ||
        td_json_string_dup(c, obj, "arch", 1, &dev->arch) ||
        td_json_string_dup(c, obj, "source", 0, &dev->source) ||
        td_json_string(c, obj, "compute_capability", 0, &cc) ||
        read_metric_names(obj, dev, c) || td_result_read_groups(obj, dev, c))
        return -1;
    dev->index = (int)ordinal;
    dev->context = (uint32_t)context;
    dev->sm_count = (int)sm_count;
    dev->passes = (int)passes;
    if (cc && parse_cc(cc, &dev->cc_major, &dev->cc_minor))
        return td_fail(c->err, "%s: \"compute_capability\" must look like \"9.0\"", c->where);
    return 0;
}

int td_result_read_group_counters(const cJSON *arr, const td_device *dev, int group,
                                  double *out, const td_jctx *c, const char *what,
                                  long index)
{
    size_t n = group == TD_GROUP_ALL ? dev->n_metrics : dev->groups[group].n;
    if (!cJSON_IsArray(arr) || (size_t)cJSON_GetArraySize(arr) != n) {
        char which[64] = "one per metric";
        if (group != TD_GROUP_ALL)
            snprintf(which, sizeof which, "one per metric of group %d", group);
        char name[128];
        if (index >= 0)
            snprintf(name, sizeof name, "%s[%ld]", what, index);
        else
            snprintf(name, sizeof name, "%s", what);
        return td_fail(c->err, "%s: %s must be a list of %zu numbers, %s", c->where, name, n,
                       which);
    }
    memset(out, 0, dev->n_metrics * sizeof *out);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) {
        size_t m = group == TD_GROUP_ALL ? i : dev->groups[group].metrics[i];
        if (td_json_amount_value(c, v, dev->metrics[m], index, TD_JSON_MAX_COUNT, &out[m]))
            return -1;
        i++;
    }
    return 0;
}

/* ---- loading: the header -------------------------------------------------- */

static int parse_argv(const cJSON *app, td_result *res, const parse_ctx *ctx)
{
    const cJSON *argv = cJSON_GetObjectItemCaseSensitive(app, "argv");
    if (!argv)
        return 0;
    if (!cJSON_IsArray(argv))
        return td_fail(ctx->err, "%s: \"app.argv\" must be a list of strings", ctx->name);
    size_t n = (size_t)cJSON_GetArraySize(argv);
    res->argv = calloc(n ? n : 1, sizeof *res->argv);
    if (!res->argv)
        return td_fail(ctx->err, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, argv) {
        if (!cJSON_IsString(item))
            return td_fail(ctx->err, "%s: \"app.argv\" must hold strings", ctx->name);
        if (!(res->argv[res->argc] = td_strdup(item->valuestring)))
            return td_fail(ctx->err, "out of memory");
        res->argc++;
    }
    return 0;
}

static int parse_app(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    const cJSON *app = cJSON_GetObjectItemCaseSensitive(root, "app");
    if (!app)
        return 0;
    if (!cJSON_IsObject(app))
        return td_fail(ctx->err, "%s: \"app\" must be an object", ctx->name);
    char where[600];
    snprintf(where, sizeof where, "%s: \"app\"", ctx->name);
    td_jctx c = {where, ctx->err};
    long code = 0, sig = 0;
    if (parse_argv(app, res, ctx) ||
        td_json_int(&c, app, "exit_code", 0, INT_MIN, INT_MAX, &code) ||
        td_json_int(&c, app, "signal", 0, 0, TD_MAX_SIGNAL, &sig) ||
        td_json_string_dup(&c, app, "status", 0, &res->status))
        return -1;
    res->exit_code = (int)code;
    res->term_signal = (int)sig;
    return 0;
}

static int parse_header(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    char where[600];
    snprintf(where, sizeof where, "%s", ctx->name);
    td_jctx c = {where, ctx->err};
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(root, "tool");
    if (cJSON_IsObject(tool) &&
        td_json_string_dup(&c, tool, "version", 0, &res->tool_version))
        return -1;
    res->synthetic = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "synthetic"));
    if (td_json_string_dup(&c, root, "created", 0, &res->created) ||
        td_json_string_dup(&c, root, "note", 0, &res->note) ||
        td_json_string_dup(&c, root, "replay_mode", 0, &res->replay_mode) ||
        td_json_number(&c, root, "overhead_pct", 0, 0, TD_MAX_OVERHEAD_PCT,
                       &res->overhead_pct))
        return -1;
    if (res->replay_mode && !res->replay_mode[0])
        return td_fail(ctx->err, "%s: \"replay_mode\" is empty", ctx->name);
    if (td_conditions_read(root, &res->conditions, ctx->name, ctx->err))
        return -1;
    return parse_app(root, res, ctx);
}

/* ---- loading: the file ------------------------------------------------- */

static int parse_v1_devices(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    const cJSON *devices = cJSON_GetObjectItemCaseSensitive(root, "devices");
    if (!cJSON_IsArray(devices))
        return td_fail(ctx->err, "%s: no \"devices\" array; the file is incomplete",
                       ctx->name);
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, devices) {
        char where[600];
        snprintf(where, sizeof where, "%s: device section %zu", ctx->name, i);
        td_jctx c = {where, ctx->err};
        if (!cJSON_IsObject(item))
            return td_fail(ctx->err, "%s is not an object", where);
        td_device *dev = td_result_add_device(res, ctx->err);
        if (!dev || td_result_read_device_head(item, dev, &c) ||
            td_result_read_v1_launches(item, dev, i, ctx))
            return -1;
        i++;
    }
    return 0;
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
    int v1 = strcmp(schema->valuestring, TD_RESULT_SCHEMA_V1) == 0;
    if (!v1 && strcmp(schema->valuestring, TD_RESULT_SCHEMA) != 0)
        return td_fail(ctx->err, "%s: schema \"%s\" is not supported (this topdown reads \"%s\" and \"%s\"); use a matching topdown version",
                       ctx->name, schema->valuestring, TD_RESULT_SCHEMA, TD_RESULT_SCHEMA_V1);
    if (parse_header(root, res, ctx))
        return -1;
    return v1 ? parse_v1_devices(root, res, ctx) : td_result_read_v2(root, res, ctx);
}

int td_result_parse(const char *text, size_t len, const char *name,
                    td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    parse_ctx ctx = {name, err};
    cJSON *root;
    if (td_json_parse(text, len, name, &root, err))
        return -1;
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
    if (td_decompress_text(path, &text, &len, err)) {
        free(text);
        return -1;
    }
    parse_ctx ctx = {path, err};
    cJSON *root;
    int rc = td_json_parse(text, len, path, &root, err);
    free(text); /* the tree holds copies: the text need not stay */
    if (rc)
        return -1;
    rc = parse_root(root, out, &ctx);
    cJSON_Delete(root);
    if (rc)
        td_result_free(out);
    return rc;
}

/* ---- saving ------------------------------------------------------------ */

/* What the reader would refuse is refused here, so every file written can
 * be read back. */
static int check_device(const td_device *dev, size_t d, td_error *err)
{
    if (dev->index < 0 || dev->sm_count < 0 || dev->sm_count > TD_MAX_SM_COUNT ||
        dev->passes < 0 || dev->passes > TD_MAX_PASSES || dev->cc_major < 0 ||
        dev->cc_major > TD_MAX_CC || dev->cc_minor < 0 || dev->cc_minor > TD_MAX_CC)
        return td_fail(err, "device section %zu: index, sm_count, passes or compute capability out of range",
                       d);
    for (size_t m = 0; m < dev->n_metrics; m++)
        if (!dev->metrics[m] || !dev->metrics[m][0])
            return td_fail(err, "device section %zu: metric %zu has no name", d, m);
    for (size_t g = 0; g < dev->n_groups; g++)
        if (dev->groups[g].n == 0)
            return td_fail(err, "device section %zu: counter group %zu is empty", d, g);
    return 0;
}

static int check_launch(const td_device *dev, const td_launch *l, size_t d, size_t i,
                        td_error *err)
{
    if (!isfinite(l->duration_ns) || l->duration_ns < 0 ||
        l->duration_ns > TD_JSON_MAX_DURATION_NS)
        return td_fail(err, "device section %zu, launch %zu: duration_ns %g is not a duration",
                       d, i, l->duration_ns);
    if ((double)l->id > TD_JSON_MAX_UINT64 || (double)l->stream > TD_JSON_MAX_UINT64 ||
        (double)l->start_ns > TD_JSON_MAX_UINT64 || (double)l->graph_id > TD_JSON_MAX_UINT64 ||
        (double)l->graph_node > TD_JSON_MAX_UINT64)
        return td_fail(err, "device section %zu, launch %zu: an id beyond 2^64 - 2048", d, i);
    if (l->group != TD_GROUP_ALL && (l->group < 0 || (size_t)l->group >= dev->n_groups))
        return td_fail(err, "device section %zu, launch %zu: group %d of %zu", d, i, l->group,
                       dev->n_groups);
    if (!l->profiled || !l->counters)
        return 0;
    for (size_t m = 0; m < dev->n_metrics; m++)
        if (!isfinite(l->counters[m]) || l->counters[m] < 0 ||
            l->counters[m] > TD_JSON_MAX_COUNT)
            return td_fail(err, "device section %zu, launch %zu: counter %s is %g, not a count",
                           d, i, dev->metrics[m], l->counters[m]);
    return 0;
}

static int check_result(const td_result *res, td_error *err)
{
    if (!isfinite(res->overhead_pct) || res->overhead_pct < 0 ||
        res->overhead_pct > TD_MAX_OVERHEAD_PCT)
        return td_fail(err, "overhead_pct %g is out of range", res->overhead_pct);
    if (res->term_signal < 0 || res->term_signal > TD_MAX_SIGNAL)
        return td_fail(err, "signal %d is out of range", res->term_signal);
    if (res->replay_mode && !res->replay_mode[0])
        return td_fail(err, "replay_mode is empty");
    if (td_conditions_check(&res->conditions, err))
        return -1;
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        if (check_device(dev, d, err) || td_result_check_copies(dev, d, err))
            return -1;
        for (size_t i = 0; i < dev->n_launches; i++)
            if (check_launch(dev, &dev->launches[i], d, i, err))
                return -1;
    }
    return 0;
}

cJSON *td_result_device_head_json(const td_device *dev)
{
    cJSON *obj = cJSON_CreateObject();
    char cc[32];
    snprintf(cc, sizeof cc, "%d.%d", dev->cc_major, dev->cc_minor);
    cJSON_AddNumberToObject(obj, "index", dev->index);
    cJSON_AddNumberToObject(obj, "context", dev->context);
    cJSON_AddStringToObject(obj, "name", dev->name ? dev->name : "unknown");
    cJSON_AddStringToObject(obj, "chip", dev->chip ? dev->chip : "unknown");
    cJSON_AddStringToObject(obj, "compute_capability", cc);
    cJSON_AddNumberToObject(obj, "sm_count", dev->sm_count);
    cJSON_AddStringToObject(obj, "arch", dev->arch ? dev->arch : "unknown");
    cJSON_AddNumberToObject(obj, "passes", dev->passes);
    if (dev->source)
        cJSON_AddStringToObject(obj, "source", dev->source);
    cJSON *metrics = cJSON_AddArrayToObject(obj, "metrics");
    for (size_t m = 0; m < dev->n_metrics; m++)
        cJSON_AddItemToArray(metrics, cJSON_CreateString(dev->metrics[m]));
    if (dev->n_groups) {
        cJSON *groups = cJSON_AddArrayToObject(obj, "groups");
        for (size_t g = 0; g < dev->n_groups; g++) {
            cJSON *group = cJSON_CreateArray();
            for (size_t i = 0; i < dev->groups[g].n; i++)
                cJSON_AddItemToArray(group,
                                     cJSON_CreateNumber((double)dev->groups[g].metrics[i]));
            cJSON_AddItemToArray(groups, group);
        }
    }
    return obj;
}

static cJSON *header_json(const td_result *res)
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
    if (res->replay_mode)
        cJSON_AddStringToObject(root, "replay_mode", res->replay_mode);
    if (res->overhead_pct > 0)
        cJSON_AddItemToObject(root, "overhead_pct", td_json_exact_number(res->overhead_pct));
    td_conditions_add_json(root, &res->conditions);
    cJSON *app = cJSON_AddObjectToObject(root, "app");
    cJSON *argv = cJSON_AddArrayToObject(app, "argv");
    for (size_t i = 0; i < res->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(res->argv[i] ? res->argv[i] : ""));
    cJSON_AddNumberToObject(app, "exit_code", res->exit_code);
    cJSON_AddNumberToObject(app, "signal", res->term_signal);
    cJSON_AddStringToObject(app, "status", res->status ? res->status : "complete");
    return root;
}

static int write_atomically(const char *path, const char *text, size_t len, td_error *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return td_fail(err, "cannot write %s: %s", tmp, strerror(errno));
    int ok = fwrite(text, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return td_fail(err, "cannot write %s: %s", path, strerror(saved));
    }
    return 0;
}

int td_result_save(const char *path, const td_result *res, td_error *err)
{
    if (check_result(res, err))
        return td_fail_context(err, "refusing to write %s, it could not be read back", path);
    cJSON *root = header_json(res);
    if (!root || td_result_write_v2(root, res, err)) {
        cJSON_Delete(root);
        return td_fail(err, "out of memory writing %s", path);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    size_t len = text ? strlen(text) : 0;
    char *lined = text ? realloc(text, len + 2) : NULL;
    if (!lined) {
        free(text);
        return td_fail(err, "out of memory writing %s", path);
    }
    memcpy(lined + len, "\n", 2);
    len++;
    /* .xz or .gz: compressed as the name says (read back by its first bytes) */
    int kind = td_compression_of(path);
    char *packed = NULL;
    size_t packed_len = 0;
    int rc = kind ? td_compress_text(kind, lined, len, &packed, &packed_len, err) : 0;
    if (rc == 0)
        rc = write_atomically(path, kind ? packed : lined, kind ? packed_len : len, err);
    free(packed);
    free(lined);
    return rc;
}

int td_launch_measured(const td_device *dev, const td_launch *l, int metric)
{
    if (metric < 0)
        return 0;
    if (l->group == TD_GROUP_ALL)
        return 1;
    if (l->group < 0 || (size_t)l->group >= dev->n_groups)
        return 0;
    const td_counter_group *g = &dev->groups[l->group];
    for (size_t i = 0; i < g->n; i++)
        if (g->metrics[i] == (size_t)metric)
            return 1;
    return 0;
}
