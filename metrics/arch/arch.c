#include "metrics/arch/arch.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/file_text.h"
#include "metrics/json_field.h"
#include "metrics/result/pcsamp.h"
#include "metrics/strcopy.h"

/* Fields are read with the reader results and spools use (json_field.h). */
static int get_string(const cJSON *obj, const char *key, int required,
                      char **out, const char *path, td_error *err)
{
    td_jctx c = {path, err};
    const char *value = NULL;
    *out = NULL;
    if (td_json_string(&c, obj, key, required, &value))
        return -1;
    if (!value)
        return 0;
    if (!value[0])
        return td_fail(err, "%s: \"%s\" must be a non-empty string", path, key);
    *out = td_strdup(value);
    return *out ? 0 : td_fail(err, "out of memory");
}

static int get_string_array(const cJSON *obj, const char *key, char ***out,
                            size_t *count, const char *path, td_error *err)
{
    /* key NULL: obj is the array itself */
    const cJSON *arr = key ? cJSON_GetObjectItemCaseSensitive(obj, key) : obj;
    if (!key)
        key = "groups";
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return td_fail(err, "%s: \"%s\" must be a non-empty array of strings",
                       path, key);
    size_t n = (size_t)cJSON_GetArraySize(arr);
    *out = calloc(n, sizeof **out);
    if (!*out)
        return td_fail(err, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, arr) {
        if (!cJSON_IsString(item) || !item->valuestring[0])
            return td_fail(err, "%s: \"%s\" must hold only non-empty strings",
                           path, key);
        (*out)[(*count)++] = td_strdup(item->valuestring);
    }
    return 0;
}

static int parse_counters(const cJSON *root, td_arch *arch, const char *path,
                          td_error *err)
{
    const cJSON *counters = cJSON_GetObjectItemCaseSensitive(root, "counters");
    if (!cJSON_IsObject(counters))
        return td_fail(err, "%s: missing object \"counters\"", path);
    const cJSON *item;
    cJSON_ArrayForEach(item, counters) {
        int found = td_counter_find(item->string);
        if (found < 0)
            return td_fail(err, "%s: unknown counter \"%s\" in \"counters\"",
                           path, item->string);
        if (!cJSON_IsString(item) || !item->valuestring[0])
            return td_fail(err, "%s: counter \"%s\" must name a metric", path,
                           item->string);
        if (arch->counter[found])
            return td_fail(err, "%s: counter \"%s\" listed twice in \"counters\"", path,
                           item->string);
        arch->counter[found] = td_strdup(item->valuestring);
    }
    const td_backend_info *backend = td_backend_get(arch->source);
    for (size_t i = 0; i < backend->n_needs; i++)
        if (!arch->counter[backend->needs[i].counter])
            return td_fail(err, "%s: \"counters\" lacks \"%s\"", path,
                           td_counter_key(backend->needs[i].counter));
    return 0;
}

/* A metric counted twice (two stall reasons, or a counter and a stall
 * reason) would be double-counted by the model. */
static int check_metric_once(const td_arch *arch, const td_stall_map *s, const char *path,
                             td_error *err)
{
    for (size_t j = 0; j + 1 < arch->n_stalls; j++)
        if (strcmp(arch->stalls[j].metric, s->metric) == 0)
            return td_fail(err, "%s: metric \"%s\" is listed under stall reasons \"%s\" (%s) "
                           "and \"%s\" (%s): it would be counted twice; list each metric once",
                           path, s->metric, arch->stalls[j].reason, arch->stalls[j].node,
                           s->reason, s->node);
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        if (arch->counter[c] && strcmp(arch->counter[c], s->metric) == 0)
            return td_fail(err, "%s: metric \"%s\" is both counter \"%s\" and stall reason "
                           "\"%s\"; list each metric once", path, s->metric, td_counter_key((td_counter)c),
                           s->reason);
    return 0;
}

static int parse_stalls(const cJSON *root, td_arch *arch, const char *path,
                        td_error *err)
{
    const cJSON *stalls = cJSON_GetObjectItemCaseSensitive(root, "stalls");
    if (!cJSON_IsArray(stalls) || cJSON_GetArraySize(stalls) == 0)
        return td_fail(err, "%s: \"stalls\" must be a non-empty array", path);
    size_t n = (size_t)cJSON_GetArraySize(stalls);
    if (n > TD_MAX_STALLS)
        return td_fail(err, "%s: %zu stall reasons, at most %d supported", path,
                       n, TD_MAX_STALLS);
    arch->stalls = calloc(n, sizeof *arch->stalls);
    if (!arch->stalls)
        return td_fail(err, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, stalls) {
        td_stall_map *s = &arch->stalls[arch->n_stalls++];
        if (!cJSON_IsObject(item))
            return td_fail(err, "%s: each entry of \"stalls\" must be an object",
                           path);
        if (get_string(item, "reason", 1, &s->reason, path, err) ||
            get_string(item, "metric", 1, &s->metric, path, err) ||
            get_string(item, "node", 1, &s->node, path, err))
            return -1;
        for (size_t j = 0; j + 1 < arch->n_stalls; j++)
            if (strcmp(arch->stalls[j].reason, s->reason) == 0)
                return td_fail(err, "%s: stall reason \"%s\" listed twice",
                               path, s->reason);
        if (check_metric_once(arch, s, path, err))
            return -1;
    }
    return 0;
}

/* A metric the table names: a counter, a stall reason's, or the memory
 * section's. */
static int table_uses(const td_arch *arch, const char *metric)
{
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        if (arch->counter[c] && strcmp(arch->counter[c], metric) == 0)
            return 1;
    for (size_t i = 0; i < arch->n_stalls; i++)
        if (strcmp(arch->stalls[i].metric, metric) == 0)
            return 1;
    return td_arch_memory_uses(&arch->memory, metric);
}

/* The metric of stall reason `reason`; NULL: not a reason of the table. */
static const char *stall_metric(const td_arch *arch, const char *reason)
{
    for (size_t i = 0; reason && i < arch->n_stalls; i++)
        if (strcmp(arch->stalls[i].reason, reason) == 0)
            return arch->stalls[i].metric;
    return NULL;
}

/* Each source of the "memory" section splits a stall reason of the table. */
static int parse_memory(const cJSON *root, td_arch *arch, const char *path, td_error *err)
{
    td_arch_memory *m = &arch->memory;
    if (td_arch_memory_parse(cJSON_GetObjectItemCaseSensitive(root, "memory"), m, path, err))
        return -1;
    for (size_t s = 0; s < m->n_sources; s++)
        if (!stall_metric(arch, m->sources[s].split))
            return td_fail(err, "%s: \"memory\" splits \"%s\", which is not a stall reason of "
                           "the table", path, m->sources[s].split);
    return 0;
}

/* An optional count of passes: a positive whole number, 0 when absent. */
static int passes_of(const cJSON *root, const char *key, int *out, const char *path,
                     td_error *err)
{
    const cJSON *passes = cJSON_GetObjectItemCaseSensitive(root, key);
    if (passes && (!cJSON_IsNumber(passes) || passes->valuedouble < 1 ||
                   passes->valuedouble != (int)passes->valuedouble))
        return td_fail(err, "%s: \"%s\" must be a positive whole number", path, key);
    *out = passes ? (int)passes->valuedouble : 0;
    return 0;
}

/* The group holding metric, or -1. */
static int group_of(const td_arch *arch, const char *metric)
{
    for (size_t g = 0; g < arch->n_groups; g++)
        for (size_t i = 0; i < arch->groups[g].n; i++)
            if (strcmp(arch->groups[g].metrics[i], metric) == 0)
                return (int)g;
    return -1;
}

/* Whether every group holding `with` holds metric too (and one does). */
static int in_group_of(const td_arch *arch, const char *metric, const char *with)
{
    int found = 0;
    for (size_t g = 0; g < arch->n_groups; g++) {
        int has_with = 0, has_metric = 0;
        for (size_t i = 0; i < arch->groups[g].n; i++) {
            has_with |= strcmp(arch->groups[g].metrics[i], with) == 0;
            has_metric |= strcmp(arch->groups[g].metrics[i], metric) == 0;
        }
        if (has_with && !has_metric)
            return 0;
        found |= has_with;
    }
    return found;
}

/* Where the table has groups, what is computed together is measured
 * together: the split reason with every source (its shares are taken
 * launch by launch against it), and each unit's work, peak and cycles. */
static int check_memory_groups(const td_arch *arch, const char *path, td_error *err)
{
    const td_arch_memory *m = &arch->memory;
    if (!arch->n_groups)
        return 0;
    for (size_t s = 0; s < m->n_sources; s++) {
        if (m->sources[s].replay_only)
            continue;
        const char *split = stall_metric(arch, m->sources[s].split);
        if (!in_group_of(arch, m->sources[s].metric, split))
            return td_fail(err, "%s: \"memory\" source %s (%s) must be in every group of %s",
                           path, m->sources[s].name, m->sources[s].metric, split);
    }
    for (size_t u = 0; u < m->n_units; u++) {
        const td_mem_unit *unit = &m->units[u];
        int g = group_of(arch, unit->peak);
        int same = g >= 0 && group_of(arch, unit->cycles) == g;
        for (size_t w = 0; w < unit->n_work; w++)
            same = same && group_of(arch, unit->work[w]) == g;
        if (!same)
            return td_fail(err, "%s: \"memory\" unit %s: its work, peak and cycles must be in "
                           "one group", path, unit->name);
    }
    return 0;
}

/* Optional "groups": one-pass counter groups of replay-free collection,
 * each a list of metrics the table names (metrics/arch/groups.h). Whether each
 * is one pass is CUPTI's to say: tests/cupti/test_catalog checks it. */
static int parse_groups(const cJSON *root, td_arch *arch, const char *path, td_error *err)
{
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(root, "groups");
    if (!groups)
        return 0;
    if (!cJSON_IsArray(groups) || cJSON_GetArraySize(groups) == 0)
        return td_fail(err, "%s: \"groups\" must be a non-empty array of metric lists", path);
    size_t n = (size_t)cJSON_GetArraySize(groups);
    arch->groups = calloc(n, sizeof *arch->groups);
    if (!arch->groups)
        return td_fail(err, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, groups) {
        td_arch_group *g = &arch->groups[arch->n_groups++];
        if (get_string_array(item, NULL, &g->metrics, &g->n, path, err))
            return -1;
        for (size_t i = 0; i < g->n; i++)
            if (!table_uses(arch, g->metrics[i]))
                return td_fail(err, "%s: group %zu names %s, which is neither a counter nor "
                               "a stall metric of the table", path, arch->n_groups - 1,
                               g->metrics[i]);
    }
    return 0;
}

/* Optional "pm_sampling": {"metrics": [...], "thread_inst_executed": M},
 * the table's metrics that PM sampling reads in one pass
 * (tests/cupti/test_pm_sampling checks), and which of them, if any, stands
 * in for thread_inst_executed (CUPTI 13.0 samples that one in two passes
 * on GH100, which PM sampling refuses). */
static int parse_pm_sampling(const cJSON *root, td_arch *arch, const char *path, td_error *err)
{
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(root, "pm_sampling");
    if (!pm)
        return 0;
    if (!cJSON_IsObject(pm))
        return td_fail(err, "%s: \"pm_sampling\" must be an object with \"metrics\"", path);
    if (get_string_array(pm, "metrics", &arch->pm_metrics, &arch->n_pm_metrics, path, err))
        return -1;
    const cJSON *thread = cJSON_GetObjectItemCaseSensitive(pm, "thread_inst_executed");
    if (thread && (!cJSON_IsString(thread) || !thread->valuestring[0]))
        return td_fail(err, "%s: \"pm_sampling\"'s \"thread_inst_executed\" must be a "
                       "metric name", path);
    int thread_listed = 0;
    for (size_t i = 0; i < arch->n_pm_metrics; i++) {
        int stand_in = thread && strcmp(arch->pm_metrics[i], thread->valuestring) == 0;
        thread_listed |= stand_in;
        if (!stand_in && !table_uses(arch, arch->pm_metrics[i]))
            return td_fail(err, "%s: \"pm_sampling\" names %s, which is neither a counter nor "
                           "a stall metric of the table", path, arch->pm_metrics[i]);
    }
    if (thread && !thread_listed)
        return td_fail(err, "%s: \"pm_sampling\"'s \"thread_inst_executed\" %s is not one "
                       "of its \"metrics\"", path, thread->valuestring);
    if (thread && !(arch->pm_thread_inst = td_strdup(thread->valuestring)))
        return td_fail(err, "out of memory");
    return 0;
}

static int parse_thresholds(const cJSON *root, td_arch *arch, const char *path,
                            td_error *err)
{
    const cJSON *thresholds = cJSON_GetObjectItemCaseSensitive(root, "thresholds");
    if (!thresholds)
        return 0;
    if (!cJSON_IsObject(thresholds))
        return td_fail(err, "%s: \"thresholds\" must be an object", path);
    size_t n = (size_t)cJSON_GetArraySize(thresholds);
    arch->thresholds = calloc(n ? n : 1, sizeof *arch->thresholds);
    if (!arch->thresholds)
        return td_fail(err, "out of memory");
    const cJSON *item;
    td_jctx c = {path, err};
    cJSON_ArrayForEach(item, thresholds) {
        double value = 0;
        if (td_json_number_value(&c, item, item->string, -1, 0, 1, &value))
            return -1; /* "PATH: Frontend is 2, out of range (at most 1)" */
        td_threshold *t = &arch->thresholds[arch->n_thresholds++];
        t->node = td_strdup(item->string);
        t->value = value;
    }
    return 0;
}

/* "pc_sampling": {"reason": "node path" or null, ...}; optional. */
static int parse_pc_reasons(const cJSON *root, td_arch *arch, const char *path,
                            td_error *err)
{
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "pc_sampling");
    if (!map)
        return 0;
    if (!cJSON_IsObject(map))
        return td_fail(err, "%s: \"pc_sampling\" must be an object (reason -> node)", path);
    size_t n = (size_t)cJSON_GetArraySize(map);
    arch->pc_reasons = calloc(n ? n : 1, sizeof *arch->pc_reasons);
    if (!arch->pc_reasons)
        return td_fail(err, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, map) {
        if (!cJSON_IsNull(item) && !(cJSON_IsString(item) && item->valuestring[0]))
            return td_fail(err, "%s: \"pc_sampling\": \"%s\" must name a node or be null",
                           path, item->string);
        if (strncmp(item->string, TD_PCSAMP_PREFIX, strlen(TD_PCSAMP_PREFIX)) == 0)
            return td_fail(err, "%s: \"pc_sampling\": write \"%s\" without the prefix %s",
                           path, item->string, TD_PCSAMP_PREFIX);
        if (td_arch_pc_reason(arch, item->string))
            return td_fail(err, "%s: \"pc_sampling\" lists \"%s\" twice", path, item->string);
        td_pc_map *m = &arch->pc_reasons[arch->n_pc_reasons++];
        m->reason = td_strdup(item->string);
        m->node = cJSON_IsString(item) ? td_strdup(item->valuestring) : NULL;
        if (!m->reason || (cJSON_IsString(item) && !m->node))
            return td_fail(err, "out of memory");
    }
    return 0;
}

const td_pc_map *td_arch_pc_reason(const td_arch *arch, const char *name)
{
    size_t plen = strlen(TD_PCSAMP_PREFIX);
    if (strncmp(name, TD_PCSAMP_PREFIX, plen) == 0)
        name += plen;
    for (size_t i = 0; i < arch->n_pc_reasons; i++)
        if (strcmp(arch->pc_reasons[i].reason, name) == 0)
            return &arch->pc_reasons[i];
    return NULL;
}

/* The table's "source" key names its counter backend. */
static int parse_backend(const cJSON *root, td_arch *arch, const char *path,
                         td_error *err)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(root, "source");
    if (!cJSON_IsString(key))
        return td_fail(err, "%s: missing \"source\" (%s)", path, td_backend_keys());
    const td_backend_info *info = td_backend_find(key->valuestring);
    if (!info)
        return td_fail(err, "%s: unknown source \"%s\" (use %s)", path,
                       key->valuestring, td_backend_keys());
    arch->source = info->id;
    return 0;
}

static int parse_arch(const cJSON *root, td_arch *arch, const char *path,
                      td_error *err)
{
    if (!cJSON_IsObject(root))
        return td_fail(err, "%s: not a JSON object", path);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, TD_ARCH_SCHEMA) != 0)
        return td_fail(err, "%s: \"schema\" must be \"%s\"", path, TD_ARCH_SCHEMA);
    if (get_string(root, "name", 1, &arch->name, path, err) ||
        get_string(root, "family", 1, &arch->family, path, err) ||
        get_string(root, "description", 0, &arch->description, path, err) ||
        get_string_array(root, "compute_capabilities", &arch->ccs, &arch->n_ccs,
                         path, err) ||
        get_string_array(root, "chips", &arch->chips, &arch->n_chips, path, err) ||
        parse_backend(root, arch, path, err))
        return -1;
    td_jctx c = {path, err};
    if (td_json_number(&c, root, "ipc_max", 1, 0, 64, &arch->ipc_max))
        return -1;
    if (!(arch->ipc_max > 0))
        return td_fail(err, "%s: \"ipc_max\" must be a positive number", path);
    if (passes_of(root, "passes", &arch->passes, path, err) ||
        passes_of(root, "model_passes", &arch->model_passes, path, err))
        return -1;
    if (!arch->model_passes)
        arch->model_passes = arch->passes;
    return parse_counters(root, arch, path, err) ||
                   parse_stalls(root, arch, path, err) ||
                   parse_memory(root, arch, path, err) ||
                   parse_thresholds(root, arch, path, err) ||
                   parse_groups(root, arch, path, err) ||
                   check_memory_groups(arch, path, err) ||
                   parse_pc_reasons(root, arch, path, err) ||
                   parse_pm_sampling(root, arch, path, err) ||
                   td_sm_limits_parse(cJSON_GetObjectItemCaseSensitive(root, "occupancy"),
                                      arch->ccs, arch->n_ccs, &arch->sm_limits,
                                      &arch->n_sm_limits, path, err)
               ? -1
               : 0;
}

/* The table's name must be its file name, so `--arch NAME` finds it. */
static int check_name_matches_file(const td_arch *arch, const char *path,
                                   td_error *err)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    const char *base = basename(copy); /* libgen.h: on a copy, it may modify it */
    size_t len = strlen(arch->name);
    if (strncmp(base, arch->name, len) != 0 || strcmp(base + len, ".json") != 0)
        return td_fail(err, "%s: \"name\" is \"%s\" but the file must then be %s.json",
                       path, arch->name, arch->name);
    return 0;
}

int td_arch_load_file(const char *path, td_arch *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *text = NULL;
    if (td_read_text_file(path, &text, &len, err))
        return td_fail_context(err, "arch table");
    int rc = td_arch_parse(text, len, path, out, err);
    free(text);
    return rc;
}

int td_arch_parse(const char *text, size_t len, const char *path, td_arch *out,
                  td_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root = NULL;
    if (td_json_parse(text, len, path, &root, err))
        return -1;
    int rc = parse_arch(root, out, path, err);
    cJSON_Delete(root);
    if (rc == 0)
        rc = check_name_matches_file(out, path, err);
    if (rc == 0)
        out->path = td_strdup(path);
    if (rc != 0)
        td_arch_free(out);
    return rc;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_json_files(const char *dir, char ***names, size_t *count,
                           td_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return td_fail(err, "cannot open arch tables folder %s: %s (set TOPDOWN_ARCHS to the archs/ folder)",
                       dir, strerror(errno));
    size_t cap = 0;
    struct dirent *entry;
    int rc = 0;
    while ((entry = readdir(d)) != NULL) {
        size_t len = strlen(entry->d_name);
        if (len <= 5 || strcmp(entry->d_name + len - 5, ".json") != 0)
            continue;
        if (*count == cap) {
            cap = cap ? cap * 2 : 16;
            char **bigger = realloc(*names, cap * sizeof *bigger);
            if (!bigger) {
                rc = td_fail(err, "out of memory");
                break;
            }
            *names = bigger;
        }
        (*names)[(*count)++] = td_strdup(entry->d_name);
    }
    closedir(d);
    if (*count)
        qsort(*names, *count, sizeof **names, compare_strings);
    return rc;
}

/* A table that did not load: its message joins out->skipped. */
static int note_skipped(td_arch_set *out, const char *msg, td_error *err)
{
    size_t old = out->skipped ? strlen(out->skipped) : 0;
    char *joined = realloc(out->skipped, old + strlen(msg) + 3);
    if (!joined)
        return td_fail(err, "out of memory");
    snprintf(joined + old, strlen(msg) + 3, "%s%s", old ? "; " : "", msg);
    out->skipped = joined;
    return 0;
}

int td_arch_load_dir(const char *dir, td_arch_set *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    char **names = NULL;
    size_t count = 0;
    int rc = list_json_files(dir, &names, &count, err);
    if (rc == 0 && count == 0)
        rc = td_fail(err, "no arch tables (*.json) in %s (set TOPDOWN_ARCHS to the archs/ folder)",
                     dir);
    if (rc == 0) {
        out->items = calloc(count, sizeof *out->items);
        out->dir = td_strdup(dir);
        if (!out->items || !out->dir)
            rc = td_fail(err, "out of memory");
    }
    for (size_t i = 0; rc == 0 && i < count; i++) {
        char path[PATH_MAX];
        td_error bad;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (td_arch_load_file(path, &out->items[out->count], &bad) == 0)
            out->count++;
        else
            rc = note_skipped(out, bad.msg, err);
    }
    if (rc == 0 && out->count == 0)
        rc = td_fail(err, "no usable arch table in %s: %s", dir, out->skipped);
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    if (rc != 0)
        td_arch_set_free(out);
    return rc;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int td_arch_default_dir(char *buf, size_t size, td_error *err)
{
    const char *env = getenv("TOPDOWN_ARCHS");
    if (env && env[0]) {
        if (!is_dir(env))
            return td_fail(err, "TOPDOWN_ARCHS=%s is not a folder; point it at topdown's archs/",
                           env);
        snprintf(buf, size, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        const char *folder = dirname(exe); /* libgen.h; exe is a copy */
        const char *candidates[] = {"%s/archs", "%s/../share/topdown/archs"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(buf, size, candidates[i], folder);
            if (is_dir(buf))
                return 0;
        }
    }
#ifdef TOPDOWN_REPO_ARCHS
    if (is_dir(TOPDOWN_REPO_ARCHS)) {
        snprintf(buf, size, "%s", TOPDOWN_REPO_ARCHS);
        return 0;
    }
#endif
    return td_fail(err, "cannot find the arch tables (archs/); set TOPDOWN_ARCHS to that folder");
}

const td_arch *td_arch_find(const td_arch_set *set, const char *name)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return &set->items[i];
    return NULL;
}

const td_arch *td_arch_for_chip(const td_arch_set *set, const char *chip)
{
    for (size_t i = 0; i < set->count; i++)
        for (size_t j = 0; j < set->items[i].n_chips; j++)
            if (strcasecmp(set->items[i].chips[j], chip) == 0)
                return &set->items[i];
    return NULL;
}

const td_arch *td_arch_for_cc(const td_arch_set *set, int major, int minor)
{
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", major, minor);
    for (size_t i = 0; i < set->count; i++)
        for (size_t j = 0; j < set->items[i].n_ccs; j++)
            if (strcmp(set->items[i].ccs[j], cc) == 0)
                return &set->items[i];
    return NULL;
}

static size_t add_unique(const char **names, size_t count, size_t cap,
                         const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return count;
    if (count < cap)
        names[count++] = name;
    return count;
}

size_t td_arch_model_metrics(const td_arch *arch, const char **names, size_t cap)
{
    size_t count = 0;
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        if (arch->counter[c])
            count = add_unique(names, count, cap, arch->counter[c]);
    for (size_t i = 0; i < arch->n_stalls; i++)
        count = add_unique(names, count, cap, arch->stalls[i].metric);
    return count;
}

size_t td_arch_metrics(const td_arch *arch, const char **names, size_t cap)
{
    size_t count = td_arch_model_metrics(arch, names, cap);
    const char *mem[TD_MEM_MAX_METRICS];
    size_t n = td_arch_memory_metrics(&arch->memory, mem, TD_MEM_MAX_METRICS);
    for (size_t i = 0; i < n; i++)
        count = add_unique(names, count, cap, mem[i]);
    return count;
}

double td_arch_threshold(const td_arch *arch, const char *node, double fallback)
{
    for (size_t i = 0; i < arch->n_thresholds; i++)
        if (strcmp(arch->thresholds[i].node, node) == 0)
            return arch->thresholds[i].value;
    return fallback;
}

static void free_strings(char **strings, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
}

void td_arch_free(td_arch *arch)
{
    if (!arch)
        return;
    free(arch->name);
    free(arch->family);
    free(arch->description);
    free(arch->path);
    free_strings(arch->ccs, arch->n_ccs);
    free_strings(arch->chips, arch->n_chips);
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        free(arch->counter[c]);
    for (size_t i = 0; i < arch->n_stalls; i++) {
        free(arch->stalls[i].reason);
        free(arch->stalls[i].metric);
        free(arch->stalls[i].node);
    }
    free(arch->stalls);
    for (size_t i = 0; i < arch->n_thresholds; i++)
        free(arch->thresholds[i].node);
    free(arch->thresholds);
    for (size_t g = 0; g < arch->n_groups; g++)
        free_strings(arch->groups[g].metrics, arch->groups[g].n);
    free_strings(arch->pm_metrics, arch->n_pm_metrics);
    free(arch->pm_thread_inst);
    free(arch->groups);
    for (size_t i = 0; i < arch->n_pc_reasons; i++) {
        free(arch->pc_reasons[i].reason);
        free(arch->pc_reasons[i].node);
    }
    free(arch->pc_reasons);
    free(arch->sm_limits);
    td_arch_memory_free(&arch->memory);
    memset(arch, 0, sizeof *arch);
}

void td_arch_set_free(td_arch_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++)
        td_arch_free(&set->items[i]);
    free(set->items);
    free(set->dir);
    free(set->skipped);
    memset(set, 0, sizeof *set);
}
