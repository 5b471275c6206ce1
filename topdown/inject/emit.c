/* The launch records: a launch with its counters (or timed only) in the
 * context's configuration's order, and TOPDOWN_DEBUG's batch records. */
#include <string.h>

#include "topdown/inject/emit.h"
#include "topdown/inject/spool_writer.h"

/* ---- records ------------------------------------------------------------ */

static cJSON *dims_json(const unsigned v[3])
{
    int ints[3] = {(int)v[0], (int)v[1], (int)v[2]};
    return cJSON_CreateIntArray(ints, 3);
}

static int all_finite(const double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(values[i] >= 0 && values[i] <= 1e300))
            return 0;
    return 1;
}

/* The index of metric in the configuration a launch was measured with. */
static int config_index(const ctx_state *c, int group, const char *metric)
{
    if (!metric)
        return -1;
    size_t n = group == TD_GROUP_ALL ? c->n_full : c->groups.size[group];
    for (size_t i = 0; i < n; i++) {
        const char *name = group == TD_GROUP_ALL ? c->metrics[i] : c->groups.metric[group][i];
        if (strcmp(name, metric) == 0)
            return (int)i;
    }
    return -1;
}

/* The kernel's k in this process's launch records: its kernel record is
 * written the first time; -1 when it could not be (the launch then names
 * its kernel itself). */
static int kernel_ref(td_kernel *k, uint64_t *out)
{
    if (!k)
        return -1;
    if (k->spooled_pid != td_sw_pid()) {
        if (td_sw_emit_kernel(k->ordinal, k->name, k->mangled) != 0)
            return -1;
        k->spooled_pid = td_sw_pid();
    }
    *out = k->ordinal;
    return 0;
}

/* values: the launch's configuration's metrics (all, or its group's), or
 * NULL for a launch that was only timed. The common case, timed with no
 * region, is formatted without allocating. */
void emit_launch(const ctx_state *c, const launch_rec *l, const double *values)
{
    uint64_t k = 0;
    int have_k = kernel_ref(l->kernel, &k) == 0;
    if (have_k && !values && !l->region) {
        td_sw_launch line = {.context = c->uid, .id = l->id, .corr = l->corr, .k = k,
                             .stream = l->stream};
        memcpy(line.grid, l->grid, sizeof line.grid);
        memcpy(line.block, l->block, sizeof line.block);
        td_sw_emit_launch(&line);
        return;
    }
    cJSON *rec = td_sw_record("launch");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "context", c->uid);
    cJSON_AddNumberToObject(rec, "id", (double)l->id);
    cJSON_AddNumberToObject(rec, "corr", l->corr);
    if (have_k) {
        cJSON_AddNumberToObject(rec, "k", (double)k);
    } else {
        cJSON_AddStringToObject(rec, "kernel", l->kernel ? l->kernel->name : "?");
        if (l->kernel)
            cJSON_AddStringToObject(rec, "mangled", l->kernel->mangled);
    }
    cJSON_AddItemToObject(rec, "grid", dims_json(l->grid));
    cJSON_AddItemToObject(rec, "block", dims_json(l->block));
    cJSON_AddNumberToObject(rec, "stream", l->stream);
    if (l->region)
        cJSON_AddStringToObject(rec, "region", l->region);
    size_t n_values = l->group == TD_GROUP_ALL ? c->n_full : c->groups.size[l->group];
    if (values && !all_finite(values, n_values)) {
        td_sw_warning("launch %llu (%s): CUPTI gave a value that is not a count; its "
                      "counters are left out", (unsigned long long)l->id,
                      l->kernel ? l->kernel->name : "?");
        values = NULL;
    }
    if (values) {
        /* A graph's time is its kernels' (their own activity records). */
        int duration = l->graph ? -1 : config_index(c, l->group, c->duration_metric);
        if (duration >= 0)
            cJSON_AddNumberToObject(rec, "duration_ns", values[duration]);
        if (duration >= 0 && l->kernel) { /* --sample-every T's estimate */
            l->kernel->duration_sum += values[duration];
            l->kernel->durations++;
            l->kernel->thread_sum += td_launch_threads(l->grid, l->block);
        }
        if (l->group != TD_GROUP_ALL)
            cJSON_AddNumberToObject(rec, "group", l->group);
        if (l->graph)
            cJSON_AddNumberToObject(rec, "graph", l->graph);
        cJSON_AddItemToObject(rec, "counters", cJSON_CreateDoubleArray(values, (int)n_values));
        td_g.profiled++;
    }
    td_sw_emit(rec);
}

/* TOPDOWN_DEBUG: what CUPTI decoded for each batch, to check that ranges
 * and launches pair up. */
void emit_batch_debug(ctx_state *c, int decoded, size_t ranges, size_t dropped,
                             size_t expected)
{
    cJSON *rec = td_sw_record("debug");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "context", c->uid);
    cJSON_AddBoolToObject(rec, "decoded", decoded);
    cJSON_AddNumberToObject(rec, "ranges", (double)ranges);
    cJSON_AddNumberToObject(rec, "dropped", (double)dropped);
    cJSON_AddNumberToObject(rec, "launches", (double)expected);
    cJSON *names = cJSON_AddArrayToObject(rec, "range_names");
    for (size_t r = 0; decoded && r < ranges && r < 16; r++) {
        const char *name = td_rp_range_name(&c->rp, r);
        cJSON_AddItemToArray(names, cJSON_CreateString(name ? name : "?"));
    }
    cJSON *ids = cJSON_AddArrayToObject(rec, "launch_ids");
    for (size_t i = 0; i < c->n_window && i < 16; i++)
        cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)c->window[i].id));
    td_sw_emit(rec);
}
