/* The identity of a device section, which both layouts share: index,
 * context, names, compute capability, passes, metrics and counter groups;
 * read, checked before writing as the reader would, and written. Also a
 * launch's registers and shared memory, which the file and the spool
 * write alike. */
#include "metrics/result/conditions.h"
#include "metrics/result/result_io.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ------------------------------------------------------------- */

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

/* "groups": [[metric indices], ...] (optional), and "full_set": how many
 * of the metrics, the first, a full-set launch measured (optional: all). */
int td_result_read_groups(const cJSON *obj, td_device *dev, const td_jctx *c)
{
    const cJSON *groups;
    size_t n;
    uint64_t full = 0;
    if (td_json_uint(c, obj, "full_set", 0, (double)dev->n_metrics, &full))
        return -1;
    if (cJSON_HasObjectItem(obj, "full_set") && full == 0)
        return td_fail(c->err, "%s: \"full_set\" must be 1 to %zu", c->where, dev->n_metrics);
    dev->n_full = (size_t)full;
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
        td_counter_groups_free(read, n);
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
    long ordinal = 0, sm_count = 0, passes = 0, clock = 0;
    uint64_t context = 0;
    const char *cc = NULL;
    if (td_json_int(c, obj, "index", 0, 0, INT_MAX, &ordinal) ||
        td_json_uint(c, obj, "context", 0, UINT32_MAX, &context) ||
        td_json_int(c, obj, "sm_count", 0, 0, TD_MAX_SM_COUNT, &sm_count) ||
        td_json_int(c, obj, "clock_mhz", 0, 0, TD_MAX_CLOCK_MHZ, &clock) ||
        td_json_int(c, obj, "passes", 0, 0, TD_MAX_PASSES, &passes) ||
        td_json_string_dup(c, obj, "name", 0, &dev->name) ||
        td_json_string_dup(c, obj, "chip", 0, &dev->chip) ||
        td_json_string_dup(c, obj, "arch", 1, &dev->arch) ||
        td_json_string_dup(c, obj, "source", 0, &dev->origin) ||
        td_json_string(c, obj, "compute_capability", 0, &cc) ||
        read_metric_names(obj, dev, c) || td_result_read_groups(obj, dev, c))
        return -1;
    dev->index = (int)ordinal;
    dev->context = (uint32_t)context;
    dev->sm_count = (int)sm_count;
    dev->clock_mhz = (int)clock;
    dev->passes = (int)passes;
    if (cc && parse_cc(cc, &dev->cc_major, &dev->cc_minor))
        return td_fail(c->err, "%s: \"compute_capability\" must look like \"9.0\"", c->where);
    return 0;
}

int td_result_read_group_counters(const cJSON *arr, const td_device *dev, int group,
                                  double *out, const td_jctx *c, const char *what,
                                  long index)
{
    size_t n = group == TD_GROUP_ALL ? td_device_full_set(dev) : dev->groups[group].n;
    if (!cJSON_IsArray(arr) || (size_t)cJSON_GetArraySize(arr) != n) {
        char which[64] = "one per metric of the full set";
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

/* ---- writing ------------------------------------------------------------- */

int td_result_read_resources(const cJSON *row, const char *what, long index,
                             td_launch_resources *out, const td_jctx *c)
{
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != 4) {
        char at[32] = "";
        if (index >= 0)
            snprintf(at, sizeof at, "[%ld]", index);
        return td_fail(c->err, "%s: %s%s must be [registers, static shared, dynamic shared, "
                       "shared config]", c->where, what, at);
    }
    uint64_t v[4];
    int j = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, row) {
        if (td_json_uint_value(c, item, what, index, UINT32_MAX, &v[j]))
            return -1;
        j++;
    }
    *out = (td_launch_resources){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2],
                                 (uint32_t)v[3], 1};
    return 0;
}

int td_result_check_device_head(const td_device *dev, size_t d, td_error *err)
{
    if (dev->index < 0 || dev->sm_count < 0 || dev->sm_count > TD_MAX_SM_COUNT ||
        dev->clock_mhz < 0 || dev->clock_mhz > TD_MAX_CLOCK_MHZ ||
        dev->passes < 0 || dev->passes > TD_MAX_PASSES || dev->cc_major < 0 ||
        dev->cc_major > TD_MAX_CC || dev->cc_minor < 0 || dev->cc_minor > TD_MAX_CC)
        return td_fail(err, "device section %zu: index, sm_count, clock_mhz, passes or compute "
                       "capability out of range",
                       d);
    for (size_t m = 0; m < dev->n_metrics; m++)
        if (!dev->metrics[m] || !dev->metrics[m][0])
            return td_fail(err, "device section %zu: metric %zu has no name", d, m);
    for (size_t g = 0; g < dev->n_groups; g++)
        if (dev->groups[g].n == 0)
            return td_fail(err, "device section %zu: counter group %zu is empty", d, g);
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
    if (dev->clock_mhz > 0)
        cJSON_AddNumberToObject(obj, "clock_mhz", dev->clock_mhz);
    cJSON_AddStringToObject(obj, "arch", dev->arch ? dev->arch : "unknown");
    cJSON_AddNumberToObject(obj, "passes", dev->passes);
    if (dev->origin)
        cJSON_AddStringToObject(obj, "source", dev->origin);
    cJSON *metrics = cJSON_AddArrayToObject(obj, "metrics");
    for (size_t m = 0; m < dev->n_metrics; m++)
        cJSON_AddItemToArray(metrics, cJSON_CreateString(dev->metrics[m]));
    if (td_device_full_set(dev) < dev->n_metrics)
        cJSON_AddNumberToObject(obj, "full_set", (double)dev->n_full);
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
