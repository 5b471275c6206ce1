/* The launches of a "topdown-result/2" file (docs/RESULT_FORMAT.md): each
 * kernel name once per file, each launch configuration (kernel, grid,
 * block, stream) once per device section, launches as columns of numbers
 * and counters only for profiled launches, only their group's values. */
#include "metrics/result/result_io.h"
#include "metrics/result/section.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAUNCHES 4e9 /* per device section */

/* ---- writing ------------------------------------------------------------ */

/* A distinct launch configuration of a device, names compared by pointer:
 * the device's interned names make equal names equal pointers (a name set
 * by hand at worst gives a second, equal configuration). */
typedef struct config_key {
    const char *kernel, *mangled;
    uint64_t stream;
    unsigned grid[3], block[3];
    td_launch_resources resources;
} config_key;

/* The file's kernel table: names interned once more, file-wide. */
typedef struct kernel_table {
    td_names names;
    td_keyset pairs; /* {kernel, mangled} pointers into names */
} kernel_table;

static long file_kernel(kernel_table *t, const char *kernel, const char *mangled)
{
    const char *pair[2] = {td_names_intern(&t->names, kernel),
                           mangled ? td_names_intern(&t->names, mangled) : NULL};
    if (!pair[0] || (mangled && !pair[1]))
        return -1;
    int added;
    return td_keyset_add(&t->pairs, pair, &added);
}

/* Adds item (NULL: it could not be made) to an object or array; on
 * failure the item is freed and -1 returned, so no file is written with a
 * value missing. */
static int attach(cJSON *to, const char *key, cJSON *item)
{
    cJSON_bool ok = item && (key ? cJSON_AddItemToObject(to, key, item)
                                 : cJSON_AddItemToArray(to, item));
    if (ok)
        return 0;
    cJSON_Delete(item);
    return -1;
}

static cJSON *configs_json(const td_keyset *configs, kernel_table *kernels)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < configs->count; i++) {
        const config_key *k = td_keyset_key(configs, i);
        long kernel = file_kernel(kernels, k->kernel, k->mangled);
        double row[8] = {(double)kernel, k->grid[0],  k->grid[1],  k->grid[2],
                         k->block[0],    k->block[1], k->block[2], (double)k->stream};
        if (kernel < 0 || attach(arr, NULL, td_json_exact_numbers(row, 8))) {
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    return arr;
}

/* Whether some configuration holds recorded registers and shared memory. */
static int any_resources(const td_keyset *configs)
{
    for (size_t i = 0; i < configs->count; i++)
        if (((const config_key *)td_keyset_key(configs, i))->resources.recorded)
            return 1;
    return 0;
}

/* "config_resources": one row per configuration, [registers, static
 * shared, dynamic shared, shared config], or null where not recorded. */
static cJSON *config_resources_json(const td_keyset *configs)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < configs->count; i++) {
        const td_launch_resources *r = &((const config_key *)td_keyset_key(configs, i))->resources;
        double row[4] = {r->registers, r->static_shared, r->dynamic_shared, r->shared_config};
        if (attach(arr, NULL, r->recorded ? td_json_exact_numbers(row, 4) : cJSON_CreateNull())) {
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    return arr;
}

/* Runs of consecutive ids: [[first, count], ...]. */
static cJSON *id_runs_json(const td_device *dev)
{
    cJSON *runs = cJSON_CreateArray();
    size_t i = 0;
    while (runs && i < dev->n_launches) {
        size_t j = i + 1;
        while (j < dev->n_launches && dev->launches[j - 1].id != UINT64_MAX &&
               dev->launches[j].id == dev->launches[j - 1].id + 1)
            j++;
        double run[2] = {(double)dev->launches[i].id, (double)(j - i)};
        if (attach(runs, NULL, td_json_exact_numbers(run, 2))) {
            cJSON_Delete(runs);
            runs = NULL;
        }
        i = j;
    }
    return runs;
}

/* One column of n_launches numbers; an optional one is left out when all
 * its values are 0. */
typedef double (*launch_field)(const td_launch *l);
static double f_start(const td_launch *l) { return (double)l->start_ns; }
static double f_duration(const td_launch *l) { return l->duration_ns; }
static double f_graph(const td_launch *l) { return (double)l->graph_id; }
static double f_graph_node(const td_launch *l) { return (double)l->graph_node; }

static int add_column(cJSON *obj, const char *key, const td_device *dev, launch_field f,
                      int optional, double *scratch)
{
    int any = 0;
    for (size_t i = 0; i < dev->n_launches; i++)
        any |= (scratch[i] = f(&dev->launches[i])) != 0;
    if (optional && !any)
        return 0;
    return attach(obj, key, td_json_exact_numbers(scratch, dev->n_launches));
}

/* The values a profiled launch measured: its group's, in group order. */
static size_t measured(const td_device *dev, const td_launch *l, double *values)
{
    if (l->group == TD_GROUP_ALL) {
        memcpy(values, l->counters, td_device_full_set(dev) * sizeof *values);
        return td_device_full_set(dev);
    }
    const td_counter_group *g = &dev->groups[l->group];
    for (size_t j = 0; j < g->n; j++)
        values[j] = l->counters[g->metrics[j]];
    return g->n;
}

static int add_profiled_rows(cJSON *rows, cJSON *groups, cJSON *counters, const td_device *dev,
                             double *values)
{
    for (size_t i = 0; i < dev->n_launches; i++) {
        const td_launch *l = &dev->launches[i];
        if (!l->profiled || !l->counters)
            continue;
        size_t n = measured(dev, l, values);
        if (attach(rows, NULL, td_json_exact_number((double)i)) ||
            (groups && attach(groups, NULL, cJSON_CreateNumber(l->group))) ||
            attach(counters, NULL, td_json_exact_numbers(values, n)))
            return -1;
    }
    return 0;
}

static cJSON *profiled_json(const td_device *dev)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON *rows = cJSON_AddArrayToObject(obj, "launch");
    cJSON *groups = dev->n_groups ? cJSON_AddArrayToObject(obj, "group") : NULL;
    cJSON *counters = cJSON_AddArrayToObject(obj, "counters");
    double *values = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *values);
    if (!rows || !counters || (dev->n_groups && !groups) || !values ||
        add_profiled_rows(rows, groups, counters, dev, values)) {
        cJSON_Delete(obj);
        obj = NULL;
    }
    free(values);
    return obj;
}

/* "regions": the device's distinct NVTX regions, and "region": each
 * launch's, 1 + its index there (0: none); both left out when no launch
 * has one. */
static int add_regions(cJSON *dev_obj, cJSON *launches, const td_device *dev, double *scratch)
{
    td_keyset seen;
    td_keyset_init(&seen, sizeof(const char *));
    int any = 0, rc = 0;
    for (size_t i = 0; i < dev->n_launches && rc == 0; i++) {
        const char *region = dev->launches[i].region;
        int added;
        long k = region && region[0] ? td_keyset_add(&seen, &region, &added) : -1;
        if (region && region[0] && k < 0)
            rc = -1;
        scratch[i] = (double)(k + 1);
        any |= k >= 0;
    }
    cJSON *names = rc == 0 && any ? cJSON_CreateArray() : NULL;
    for (size_t k = 0; names && k < seen.count; k++) {
        const char *const *name = td_keyset_key(&seen, k);
        if (attach(names, NULL, cJSON_CreateString(*name))) {
            cJSON_Delete(names);
            names = NULL;
        }
    }
    td_keyset_free(&seen);
    if (rc || !any)
        return rc;
    return attach(dev_obj, "regions", names) ||
           attach(launches, "region", td_json_exact_numbers(scratch, dev->n_launches));
}

static int add_launches(cJSON *dev_obj, const td_device *dev, const long *config_of)
{
    cJSON *obj = cJSON_AddObjectToObject(dev_obj, "launches");
    double *scratch = malloc((dev->n_launches ? dev->n_launches : 1) * sizeof *scratch);
    int rc = obj && scratch && attach(obj, "count", td_json_exact_number((double)dev->n_launches)) == 0
                 ? attach(obj, "id_runs", id_runs_json(dev))
                 : -1;
    for (size_t i = 0; rc == 0 && i < dev->n_launches; i++)
        scratch[i] = (double)config_of[i];
    if (rc == 0)
        rc = attach(obj, "config", td_json_exact_numbers(scratch, dev->n_launches)) ||
             add_column(obj, "start_ns", dev, f_start, 1, scratch) ||
             add_column(obj, "duration_ns", dev, f_duration, 0, scratch) ||
             add_column(obj, "graph", dev, f_graph, 1, scratch) ||
             add_column(obj, "graph_node", dev, f_graph_node, 1, scratch) ||
             add_regions(dev_obj, obj, dev, scratch);
    free(scratch);
    return rc;
}

/* config_of[i]: the configuration of launch i, numbered in configs. */
static int index_configs(const td_device *dev, td_keyset *configs, long *config_of)
{
    for (size_t i = 0; i < dev->n_launches; i++) {
        const td_launch *l = &dev->launches[i];
        config_key key;
        memset(&key, 0, sizeof key);
        key.kernel = l->kernel && l->kernel[0] ? l->kernel : "?";
        key.mangled = l->mangled && l->mangled[0] ? l->mangled : NULL;
        key.stream = l->stream;
        memcpy(key.grid, l->grid, sizeof key.grid);
        memcpy(key.block, l->block, sizeof key.block);
        if (l->resources.recorded)
            key.resources = l->resources;
        int added;
        if ((config_of[i] = td_keyset_add(configs, &key, &added)) < 0)
            return -1;
    }
    return 0;
}

static cJSON *device_json(const td_device *dev, kernel_table *kernels)
{
    td_keyset configs;
    td_keyset_init(&configs, sizeof(config_key));
    long *config_of = malloc((dev->n_launches ? dev->n_launches : 1) * sizeof *config_of);
    cJSON *obj = NULL;
    if (config_of && index_configs(dev, &configs, config_of) == 0)
        obj = td_result_device_head_json(dev);
    int rc = !obj || attach(obj, "configs", configs_json(&configs, kernels)) ||
             (any_resources(&configs) &&
              attach(obj, "config_resources", config_resources_json(&configs))) ||
             add_launches(obj, dev, config_of) || attach(obj, "profiled", profiled_json(dev));
    for (const td_section *const *s = td_sections; !rc && *s; s++)
        rc = (*s)->write_device && (*s)->write_device(obj, dev);
    if (rc) {
        cJSON_Delete(obj);
        obj = NULL;
    }
    td_keyset_free(&configs);
    free(config_of);
    return obj;
}

static cJSON *kernels_json(const kernel_table *t)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; arr && k < t->pairs.count; k++) {
        const char *const *pair = td_keyset_key(&t->pairs, k);
        cJSON *row = cJSON_CreateArray();
        int bad = !row || attach(row, NULL, cJSON_CreateString(pair[0])) ||
                  (pair[1] && attach(row, NULL, cJSON_CreateString(pair[1])));
        if (bad)
            cJSON_Delete(row);
        if (bad || attach(arr, NULL, row)) {
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    return arr;
}

int td_result_write_v2(cJSON *root, const td_result *res, td_error *err)
{
    kernel_table kernels = {0};
    td_keyset_init(&kernels.pairs, 2 * sizeof(const char *));
    cJSON *devices = cJSON_CreateArray();
    for (size_t d = 0; devices && d < res->n_devices; d++) {
        if (attach(devices, NULL, device_json(&res->devices[d], &kernels))) {
            cJSON_Delete(devices);
            devices = NULL;
        }
    }
    cJSON *table = devices ? kernels_json(&kernels) : NULL;
    td_names_free(&kernels.names);
    td_keyset_free(&kernels.pairs);
    /* The kernel table goes before the devices that refer to it. */
    if (!table || attach(root, "kernels", table)) {
        cJSON_Delete(devices);
        return td_fail(err, "out of memory");
    }
    if (attach(root, "devices", devices))
        return td_fail(err, "out of memory");
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

/* The file's kernel table, borrowed from the tree. */
typedef struct kernel_names {
    const char **name, **mangled;
    size_t n;
} kernel_names;

static int read_kernel_row(const cJSON *row, size_t k, kernel_names *t, const td_jctx *c)
{
    int n = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : 0;
    const cJSON *name = n ? cJSON_GetArrayItem(row, 0) : NULL;
    const cJSON *mangled = n == 2 ? cJSON_GetArrayItem(row, 1) : NULL;
    if (n < 1 || n > 2 || !cJSON_IsString(name) || !name->valuestring[0] ||
        (mangled && !cJSON_IsString(mangled) && !cJSON_IsNull(mangled)))
        return td_fail(c->err, "%s: \"kernels\"[%zu] must be [name] or [name, mangled name], the name not empty",
                       c->where, k);
    t->name[k] = name->valuestring;
    t->mangled[k] = cJSON_IsString(mangled) && mangled->valuestring[0] ? mangled->valuestring
                                                                         : NULL;
    return 0;
}

static int read_kernels(const cJSON *root, kernel_names *t, const td_jctx *c)
{
    const cJSON *arr;
    if (td_json_array(c, root, "kernels", 1, &arr, &t->n))
        return -1;
    t->name = calloc(t->n ? t->n : 1, sizeof *t->name);
    t->mangled = calloc(t->n ? t->n : 1, sizeof *t->mangled);
    if (!t->name || !t->mangled)
        return td_fail(c->err, "out of memory");
    size_t k = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, arr) {
        if (read_kernel_row(row, k, t, c))
            return -1;
        k++;
    }
    return 0;
}

/* A launch configuration, its names interned in the device. */
typedef struct config {
    const char *kernel, *mangled;
    unsigned grid[3], block[3];
    uint64_t stream;
    td_launch_resources resources;
} config;

static int read_config(const cJSON *row, size_t i, const kernel_names *kernels,
                       td_device *dev, config *out, const td_jctx *c)
{
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != 8)
        return td_fail(c->err, "%s: \"configs\"[%zu] must be [kernel, grid x, y, z, block x, y, z, stream]",
                       c->where, i);
    uint64_t v[8];
    double max[8] = {(double)kernels->n - 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                     UINT32_MAX, UINT32_MAX, TD_JSON_MAX_UINT64};
    int j = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, row) {
        if (td_json_uint_value(c, item, "\"configs\" value", (long)i, max[j], &v[j]))
            return -1;
        j++;
    }
    out->kernel = td_device_intern(dev, kernels->name[v[0]]);
    out->mangled = kernels->mangled[v[0]] ? td_device_intern(dev, kernels->mangled[v[0]]) : NULL;
    if (!out->kernel || (kernels->mangled[v[0]] && !out->mangled))
        return td_fail(c->err, "out of memory");
    for (int d = 0; d < 3; d++) {
        out->grid[d] = (unsigned)v[1 + d];
        out->block[d] = (unsigned)v[4 + d];
    }
    out->stream = v[7];
    return 0;
}

static int read_configs(const cJSON *obj, const kernel_names *kernels, td_device *dev,
                        config **out, size_t *n, const td_jctx *c)
{
    const cJSON *arr;
    if (td_json_array(c, obj, "configs", 1, &arr, n))
        return -1;
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out)
        return td_fail(c->err, "out of memory");
    size_t i = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, arr) {
        if (read_config(row, i, kernels, dev, &(*out)[i], c))
            return -1;
        i++;
    }
    return 0;
}

/* The optional "config_resources": one row per configuration. */
static int read_config_resources(const cJSON *obj, config *configs, size_t n_configs,
                                 const td_jctx *c)
{
    const cJSON *arr, *row;
    size_t n;
    if (td_json_array(c, obj, "config_resources", 0, &arr, &n))
        return -1;
    if (!arr)
        return 0;
    if (n != n_configs)
        return td_fail(c->err, "%s: \"config_resources\" holds %zu rows for %zu configurations",
                       c->where, n, n_configs);
    size_t i = 0;
    cJSON_ArrayForEach(row, arr) {
        if (!cJSON_IsNull(row) && td_result_read_resources(row, "\"config_resources\"", (long)i,
                                                            &configs[i].resources, c))
            return -1;
        i++;
    }
    return 0;
}

/* A column of the launch table: an array of exactly n values. */
static int column(const cJSON *obj, const char *key, int required, size_t n,
                  const cJSON **out, const td_jctx *c)
{
    size_t len;
    if (td_json_array(c, obj, key, required, out, &len))
        return -1;
    if (*out && len != n)
        return td_fail(c->err, "%s: \"%s\" holds %zu values for %zu launches", c->where, key,
                       len, n);
    return 0;
}

static int read_id_runs(const cJSON *obj, td_device *dev, const td_jctx *c)
{
    const cJSON *runs;
    size_t n_runs, i = 0, r = 0;
    if (td_json_array(c, obj, "id_runs", 1, &runs, &n_runs))
        return -1;
    const cJSON *run;
    cJSON_ArrayForEach(run, runs) {
        uint64_t first, count;
        if (!cJSON_IsArray(run) || cJSON_GetArraySize(run) != 2)
            return td_fail(c->err, "%s: \"id_runs\"[%zu] must be [first id, count]", c->where, r);
        if (td_json_uint_value(c, run->child, "\"id_runs\" first id", (long)r,
                               TD_JSON_MAX_UINT64, &first) ||
            td_json_uint_value(c, run->child->next, "\"id_runs\" count", (long)r,
                               (double)(dev->n_launches - i), &count))
            return -1;
        if (count == 0 || first > UINT64_MAX - (count - 1))
            return td_fail(c->err, "%s: \"id_runs\"[%zu] is empty or runs past 2^64", c->where, r);
        for (uint64_t k = 0; k < count; k++)
            dev->launches[i++].id = first + k;
        r++;
    }
    if (i != dev->n_launches)
        return td_fail(c->err, "%s: \"id_runs\" count %zu ids for %zu launches", c->where, i,
                       dev->n_launches);
    return 0;
}

/* col: the "config" column, its length checked. */
static int read_config_column(const cJSON *col, td_device *dev, const config *configs,
                              size_t n_configs, const td_jctx *c)
{
    const cJSON *v;
    size_t i = 0;
    cJSON_ArrayForEach(v, col) {
        uint64_t k;
        if (td_json_uint_value(c, v, "\"config\"", (long)i, (double)n_configs - 1, &k))
            return -1;
        td_launch *l = &dev->launches[i++];
        l->kernel = configs[k].kernel;
        l->mangled = configs[k].mangled;
        memcpy(l->grid, configs[k].grid, sizeof l->grid);
        memcpy(l->block, configs[k].block, sizeof l->block);
        l->stream = configs[k].stream;
        l->resources = configs[k].resources;
    }
    return 0;
}

/* start_ns, graph, graph_node: optional integer columns. */
static int read_uint_column(const cJSON *obj, const char *key, td_device *dev,
                            size_t field_offset, const td_jctx *c)
{
    const cJSON *col, *v;
    if (column(obj, key, 0, dev->n_launches, &col, c))
        return -1;
    if (!col)
        return 0;
    char what[64];
    snprintf(what, sizeof what, "\"%s\"", key);
    size_t i = 0;
    cJSON_ArrayForEach(v, col) {
        uint64_t x;
        if (td_json_uint_value(c, v, what, (long)i, TD_JSON_MAX_UINT64, &x))
            return -1;
        memcpy((char *)&dev->launches[i++] + field_offset, &x, sizeof x);
    }
    return 0;
}

static int read_durations(const cJSON *obj, td_device *dev, const td_jctx *c)
{
    const cJSON *col, *v;
    if (column(obj, "duration_ns", 1, dev->n_launches, &col, c))
        return -1;
    size_t i = 0;
    cJSON_ArrayForEach(v, col) {
        if (td_json_amount_value(c, v, "\"duration_ns\"", (long)i, TD_JSON_MAX_DURATION_NS,
                                 &dev->launches[i].duration_ns))
            return -1;
        i++;
    }
    return 0;
}

/* The optional "regions" names and "region" column (add_regions). */
static int read_regions(const cJSON *dev_obj, const cJSON *obj, td_device *dev,
                        const td_jctx *c)
{
    const cJSON *names, *col, *v;
    size_t n_names;
    if (td_json_array(c, dev_obj, "regions", 0, &names, &n_names) ||
        column(obj, "region", 0, dev->n_launches, &col, c))
        return -1;
    if (!col)
        return 0;
    if (!names)
        return td_fail(c->err, "%s: a \"region\" column without \"regions\"", c->where);
    const char **interned = calloc(n_names ? n_names : 1, sizeof *interned);
    if (!interned)
        return td_fail(c->err, "out of memory");
    size_t k = 0, i = 0;
    int rc = 0;
    cJSON_ArrayForEach(v, names) {
        if (!cJSON_IsString(v) || !v->valuestring[0]) {
            rc = td_fail(c->err, "%s: \"regions\"[%zu] must be a non-empty string", c->where, k);
            break;
        }
        if (!(interned[k++] = td_device_intern(dev, v->valuestring))) {
            rc = td_fail(c->err, "out of memory");
            break;
        }
    }
    cJSON_ArrayForEach(v, col) {
        uint64_t x;
        if (rc || (rc = td_json_uint_value(c, v, "\"region\"", (long)i, (double)n_names, &x)))
            break;
        dev->launches[i++].region = x ? interned[x - 1] : NULL;
    }
    free(interned);
    return rc ? -1 : 0;
}

static int read_launch_table(const cJSON *dev_obj, td_device *dev, const config *configs,
                             size_t n_configs, const td_jctx *c)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(dev_obj, "launches");
    if (!cJSON_IsObject(obj))
        return td_fail(c->err, "%s: \"launches\" is missing or not an object", c->where);
    uint64_t count;
    const cJSON *config_col;
    /* The count is checked against a column before anything is allocated
     * for it: a file cannot ask for more launches than it holds. */
    if (td_json_uint(c, obj, "count", 1, MAX_LAUNCHES, &count) ||
        column(obj, "config", 1, (size_t)count, &config_col, c) ||
        td_device_reserve_launches(dev, (size_t)count, c->err))
        return -1;
    if (count) /* none reserved: launches is NULL, and memset(NULL, 0, 0) is undefined */
        memset(dev->launches, 0, (size_t)count * sizeof *dev->launches);
    for (size_t i = 0; i < (size_t)count; i++)
        dev->launches[i].group = TD_GROUP_ALL;
    dev->n_launches = (size_t)count;
    return read_id_runs(obj, dev, c) || read_config_column(config_col, dev, configs, n_configs, c) ||
                   read_uint_column(obj, "start_ns", dev, offsetof(td_launch, start_ns), c) ||
                   read_durations(obj, dev, c) ||
                   read_uint_column(obj, "graph", dev, offsetof(td_launch, graph_id), c) ||
                   read_uint_column(obj, "graph_node", dev, offsetof(td_launch, graph_node), c) ||
                   read_regions(dev_obj, obj, dev, c)
               ? -1
               : 0;
}

/* "profiled": {"launch": [rows], "group": [g], "counters": [[values]]} */
static int read_profiled_row(const cJSON *row, const cJSON *group, const cJSON *values,
                             size_t p, td_device *dev, size_t *next_row, const td_jctx *c)
{
    uint64_t i;
    long g = TD_GROUP_ALL;
    if (td_json_uint_value(c, row, "\"profiled\" launch", (long)p,
                           (double)dev->n_launches - 1, &i) ||
        (group && td_json_int_value(c, group, "\"profiled\" group", (long)p, TD_GROUP_ALL,
                                    (long)dev->n_groups - 1, &g)))
        return -1;
    if (i < *next_row)
        return td_fail(c->err, "%s: \"profiled\" launch[%zu] is not after the one before",
                       c->where, p);
    *next_row = (size_t)i + 1;
    td_launch *l = &dev->launches[i];
    l->counters = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *l->counters);
    if (!l->counters)
        return td_fail(c->err, "out of memory");
    l->profiled = 1;
    l->group = (int)g;
    return td_result_read_group_counters(values, dev, l->group, l->counters, c,
                                         "\"profiled\" counters", (long)p);
}

static int read_profiled(const cJSON *dev_obj, td_device *dev, const td_jctx *c)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(dev_obj, "profiled");
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return td_fail(c->err, "%s: \"profiled\" must be an object", c->where);
    const cJSON *rows, *groups, *counters;
    size_t n, n_groups, n_counters;
    if (td_json_array(c, obj, "launch", 1, &rows, &n) ||
        td_json_array(c, obj, "group", 0, &groups, &n_groups) ||
        td_json_array(c, obj, "counters", 1, &counters, &n_counters))
        return -1;
    if ((groups && n_groups != n) || n_counters != n)
        return td_fail(c->err, "%s: \"profiled\" lists differ in length", c->where);
    const cJSON *row = rows->child, *group = groups ? groups->child : NULL;
    const cJSON *values = counters->child;
    size_t next_row = 0;
    for (size_t p = 0; p < n; p++) {
        if (read_profiled_row(row, group, values, p, dev, &next_row, c))
            return -1;
        row = row->next;
        values = values->next;
        group = group ? group->next : NULL;
    }
    return 0;
}

static int read_device(const cJSON *obj, size_t d, const kernel_names *kernels,
                       td_result *res, const parse_ctx *ctx)
{
    char where[600];
    snprintf(where, sizeof where, "%s: device section %zu", ctx->name, d);
    td_jctx c = {where, ctx->err};
    if (!cJSON_IsObject(obj))
        return td_fail(ctx->err, "%s is not an object", where);
    td_device *dev = td_result_add_device(res, ctx->err);
    config *configs = NULL;
    size_t n_configs = 0;
    int rc = !dev || td_result_read_device_head(obj, dev, &c) ||
             read_configs(obj, kernels, dev, &configs, &n_configs, &c) ||
             read_config_resources(obj, configs, n_configs, &c) ||
             read_launch_table(obj, dev, configs, n_configs, &c) || read_profiled(obj, dev, &c);
    for (const td_section *const *s = td_sections; !rc && *s; s++)
        rc = (*s)->read_device && (*s)->read_device(obj, dev, &c);
    free(configs);
    return rc ? -1 : 0;
}

int td_result_read_v2(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    td_jctx c = {ctx->name, ctx->err};
    kernel_names kernels = {0};
    const cJSON *devices;
    size_t n;
    int rc = read_kernels(root, &kernels, &c) ||
             td_json_array(&c, root, "devices", 1, &devices, &n);
    size_t d = 0;
    const cJSON *item;
    if (rc == 0)
        cJSON_ArrayForEach(item, devices) {
            if ((rc = read_device(item, d++, &kernels, res, ctx)) != 0)
                break;
        }
    free(kernels.name);
    free(kernels.mangled);
    return rc ? -1 : 0;
}
