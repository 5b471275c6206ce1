/* Reading the launches of a "topdown-result/1" file: one object per launch,
 * counters as an object keyed by metric name. Only read: topdown writes
 * "topdown-result/2" (result_v2.c). */
#include "metrics/result/result_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_counters(const cJSON *obj, const td_device *dev, double *values,
                          const td_jctx *c)
{
    const cJSON *counters = cJSON_GetObjectItemCaseSensitive(obj, "counters");
    if (!cJSON_IsObject(counters))
        return td_fail(c->err, "%s is marked profiled but has no \"counters\" object",
                       c->where);
    for (size_t m = 0; m < dev->n_metrics; m++)
        if (td_json_amount(c, counters, dev->metrics[m], 1, TD_JSON_MAX_COUNT, &values[m]))
            return td_fail_context(c->err, "missing or bad counter %s", dev->metrics[m]);
    return 0;
}

static int parse_launch(const cJSON *obj, td_device *dev, size_t dev_index, size_t index,
                        double *scratch, const parse_ctx *ctx)
{
    char where[600];
    snprintf(where, sizeof where, "%s: launch %zu of device section %zu", ctx->name, index,
             dev_index);
    td_jctx c = {where, ctx->err};
    if (!cJSON_IsObject(obj))
        return td_fail(ctx->err, "%s is not an object", where);
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(obj, "kernel");
    if (!cJSON_IsString(kernel) || !kernel->valuestring[0])
        return td_fail(ctx->err, "%s has no \"kernel\" name", where);
    const cJSON *profiled = cJSON_GetObjectItemCaseSensitive(obj, "profiled");
    int is_profiled = profiled ? cJSON_IsTrue(profiled) : 1;
    if (profiled && !cJSON_IsBool(profiled))
        return td_fail(ctx->err, "%s: \"profiled\" must be true or false", where);
    if (is_profiled && parse_counters(obj, dev, scratch, &c))
        return -1;
    td_launch *l = td_device_add_launch(dev, kernel->valuestring,
                                        is_profiled ? scratch : NULL, ctx->err);
    if (!l)
        return -1;
    const char *mangled = NULL;
    l->id = index;
    if (td_json_uint(&c, obj, "id", 0, TD_JSON_MAX_UINT64, &l->id) ||
        td_json_uint(&c, obj, "stream", 0, TD_JSON_MAX_UINT64, &l->stream) ||
        td_json_uint(&c, obj, "start_ns", 0, TD_JSON_MAX_UINT64, &l->start_ns) ||
        td_json_amount(&c, obj, "duration_ns", 1, TD_JSON_MAX_DURATION_NS, &l->duration_ns) ||
        td_json_string(&c, obj, "mangled", 0, &mangled) ||
        td_json_dim3(&c, obj, "grid", l->grid) || td_json_dim3(&c, obj, "block", l->block))
        return -1;
    if (mangled && mangled[0] && !(l->mangled = td_device_intern(dev, mangled)))
        return td_fail(ctx->err, "out of memory");
    return 0;
}

int td_result_read_v1_launches(const cJSON *obj, td_device *dev, size_t dev_index,
                               const parse_ctx *ctx)
{
    const cJSON *launches = cJSON_GetObjectItemCaseSensitive(obj, "launches");
    if (!cJSON_IsArray(launches))
        return td_fail(ctx->err, "%s: device section %zu lacks the \"launches\" array",
                       ctx->name, dev_index);
    double *scratch = malloc((dev->n_metrics ? dev->n_metrics : 1) * sizeof *scratch);
    if (!scratch)
        return td_fail(ctx->err, "out of memory");
    size_t i = 0;
    const cJSON *item;
    int rc = 0;
    cJSON_ArrayForEach(item, launches) {
        if ((rc = parse_launch(item, dev, dev_index, i++, scratch, ctx)) != 0)
            break;
    }
    free(scratch);
    return rc;
}
