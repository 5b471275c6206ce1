/* topdown trace: the Chrome trace-event format (ranks.h, docs/OUTPUTS.md),
 * written event by event with cJSON so a million launches never sit in
 * one JSON tree. */
#include "report/ranks.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/columns.h"
#include "report/copies.h"
#include "report/kname.h"
#include "report/output.h"

typedef struct timed {
    size_t dev, index;
    uint64_t start;
    int copy; /* index is into the section's copies, else its launches */
} timed;

static int by_start(const void *pa, const void *pb)
{
    const timed *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->copy != b->copy)
        return a->copy < b->copy ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The launches and copies with a start time, in start order. */
static int events_by_start(const td_result *res, timed **out, size_t *n, td_error *err)
{
    size_t total = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        total += res->devices[d].n_launches + res->devices[d].n_copies;
    *out = malloc((total ? total : 1) * sizeof **out);
    *n = 0;
    if (!*out)
        return td_fail(err, "out of memory");
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++)
            if (res->devices[d].launches[i].start_ns)
                (*out)[(*n)++] = (timed){d, i, res->devices[d].launches[i].start_ns, 0};
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_copies; i++)
            if (res->devices[d].copies[i].start_ns)
                (*out)[(*n)++] = (timed){d, i, res->devices[d].copies[i].start_ns, 1};
    qsort(*out, *n, sizeof **out, by_start);
    return 0;
}

static const td_kernel_summary *kernel_of(const td_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (s->kernels[k].name == name || strcmp(s->kernels[k].name, name) == 0)
            return &s->kernels[k];
    return NULL;
}

/* Chrome's reserved colour names, by level-1 bottleneck; grey where level
 * 1 was not all measured (a stall split not made: Frontend, Backend n/m). */
static const char *colour_of(const td_kernel_summary *k)
{
    if (!k || !k->has_data || k->mean.reasons_missing)
        return "grey";
    switch (k->verdict.bottleneck[1]) {
    case -1: /* no loss over its threshold: retiring */
    case TD_N_RETIRE: return "good";
    case TD_N_DIVERGENCE: return "yellow";
    case TD_N_FRONTEND: return "rail_response";
    default: return "terrible";
    }
}

static cJSON *kernel_args(const td_summary *s, const td_kernel_summary *k, const td_launch *l)
{
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "kernel", l->kernel);
    cJSON_AddNumberToObject(args, "launch_id", (double)l->id);
    cJSON_AddNumberToObject(args, "duration_ns", l->duration_ns);
    if (!k || !k->has_data) {
        cJSON_AddStringToObject(args, "bottleneck", "no data");
        return args;
    }
    static const struct { const char *name; int node; } level1[] = {
        {"Retire", TD_N_RETIRE}, {"Divergence", TD_N_DIVERGENCE},
        {"Frontend", TD_N_FRONTEND}, {"Backend", TD_N_BACKEND}};
    const td_model *m = &s->models[k->model];
    for (size_t i = 0; i < sizeof level1 / sizeof level1[0]; i++)
        if (td_node_measured(m, &k->mean, level1[i].node)) /* n/m: null, never 0 */
            cJSON_AddNumberToObject(args, level1[i].name, 100 * k->mean.node[level1[i].node]);
        else
            cJSON_AddNullToObject(args, level1[i].name);
    char path[TD_PATH_MAX];
    td_bottleneck_path(m, k->verdict.bottleneck[1], path, sizeof path);
    if (path[0])
        cJSON_AddStringToObject(args, "bottleneck", path);
    else if (k->mean.reasons_missing) /* no verdict over what was not measured */
        cJSON_AddNullToObject(args, "bottleneck");
    else
        cJSON_AddStringToObject(args, "bottleneck", "none");
    return args;
}

static cJSON *kernel_event(const td_result *res, const td_summary *s, const timed *t,
                           uint64_t t0)
{
    const td_launch *l = &res->devices[t->dev].launches[t->index];
    const td_kernel_summary *k = kernel_of(s, l->kernel);
    char name[256];
    td_kernel_base_name(l->kernel, name, sizeof name);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "cat", "kernel");
    cJSON_AddStringToObject(e, "ph", "X");
    cJSON_AddNumberToObject(e, "ts", (double)(l->start_ns - t0) / 1e3);
    cJSON_AddNumberToObject(e, "dur", l->duration_ns / 1e3);
    cJSON_AddNumberToObject(e, "pid", (double)t->dev);
    cJSON_AddNumberToObject(e, "tid", (double)l->stream);
    cJSON_AddStringToObject(e, "cname", colour_of(k));
    cJSON_AddItemToObject(e, "args", kernel_args(s, k, l));
    return e;
}

/* "memcpy HtoD", "memset", "peer copy 0->1". */
static void copy_name(const td_copy *c, char *out, size_t size)
{
    if (c->kind == TD_COPY_PEER)
        snprintf(out, size, "peer copy %d->%d", (int)c->src_device, (int)c->dst_device);
    else if (c->kind == TD_COPY_MEMSET)
        snprintf(out, size, "memset");
    else
        snprintf(out, size, "memcpy %s", td_copy_direction_name(c->direction));
}

static cJSON *copy_event(const td_result *res, const timed *t, uint64_t t0)
{
    const td_copy *c = &res->devices[t->dev].copies[t->index];
    char name[64];
    copy_name(c, name, sizeof name);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "cat", td_copy_kind_name(c->kind));
    cJSON_AddStringToObject(e, "ph", "X");
    cJSON_AddNumberToObject(e, "ts", (double)(c->start_ns - t0) / 1e3);
    cJSON_AddNumberToObject(e, "dur", c->duration_ns / 1e3);
    cJSON_AddNumberToObject(e, "pid", (double)t->dev);
    cJSON_AddNumberToObject(e, "tid", (double)c->stream);
    cJSON_AddStringToObject(e, "cname", c->kind == TD_COPY_MEMSET ? "generic_work" : "olive");
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddStringToObject(args, "kind", td_copy_kind_name(c->kind));
    cJSON_AddStringToObject(args, "direction", td_copy_direction_name(c->direction));
    cJSON_AddNumberToObject(args, "bytes", (double)c->bytes);
    cJSON_AddNumberToObject(args, "duration_ns", c->duration_ns);
    cJSON_AddNumberToObject(args, "bandwidth_GBps", td_copy_gbps(c));
    if (c->src_device >= 0)
        cJSON_AddNumberToObject(args, "src_device", c->src_device);
    if (c->dst_device >= 0)
        cJSON_AddNumberToObject(args, "dst_device", c->dst_device);
    return e;
}

static cJSON *name_event(const char *what, size_t pid, uint64_t tid, const char *name)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", what);
    cJSON_AddStringToObject(e, "ph", "M");
    cJSON_AddNumberToObject(e, "pid", (double)pid);
    cJSON_AddNumberToObject(e, "tid", (double)tid);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddStringToObject(args, "name", name);
    return e;
}

/* Writes one event (and frees it); -1 when out of memory. */
static int put(FILE *f, cJSON *e, int *first)
{
    char *text = e ? cJSON_PrintUnformatted(e) : NULL;
    cJSON_Delete(e);
    if (!text)
        return -1;
    fprintf(f, "%s\n%s", *first ? "" : ",", text);
    *first = 0;
    cJSON_free(text);
    return 0;
}

static int stream_seen(const uint64_t *streams, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++)
        if (streams[i] == s)
            return 1;
    return 0;
}

/* Names a stream's track the first time it is seen; -1 when out of memory. */
static int name_stream(FILE *f, size_t d, uint64_t s, uint64_t *streams, size_t *n, int *first)
{
    if (stream_seen(streams, *n, s))
        return 0;
    streams[(*n)++] = s;
    char name[64];
    snprintf(name, sizeof name, "stream %llu", (unsigned long long)s);
    return put(f, name_event("thread_name", d, s, name), first);
}

/* A process name per device section, a thread name per stream it used. */
static int name_tracks(FILE *f, const td_result *res, int *first)
{
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        char name[512];
        snprintf(name, sizeof name, "%s%sGPU %d (%s), context %u", dev->origin ? dev->origin : "",
                 dev->origin ? ": " : "", dev->index, dev->name ? dev->name : "?",
                 (unsigned)dev->context);
        if (put(f, name_event("process_name", d, 0, name), first))
            return -1;
        size_t events = dev->n_launches + dev->n_copies;
        uint64_t *streams = malloc((events ? events : 1) * sizeof *streams);
        size_t n = 0;
        int rc = streams ? 0 : -1;
        for (size_t i = 0; rc == 0 && i < dev->n_launches; i++)
            if (dev->launches[i].start_ns)
                rc = name_stream(f, d, dev->launches[i].stream, streams, &n, first);
        for (size_t i = 0; rc == 0 && i < dev->n_copies; i++)
            if (dev->copies[i].start_ns)
                rc = name_stream(f, d, dev->copies[i].stream, streams, &n, first);
        free(streams);
        if (rc)
            return -1;
    }
    return 0;
}

static int write_events(FILE *f, const td_result *res, const td_summary *s, const timed *t,
                        size_t n)
{
    int first = 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    if (name_tracks(f, res, &first))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (put(f, t[i].copy ? copy_event(res, &t[i], t[0].start)
                             : kernel_event(res, s, &t[i], t[0].start),
                &first))
            return -1;
    fputs("\n]}\n", f);
    return 0;
}

int td_trace_write(const char *path, const td_result *res, const td_summary *s,
                   td_error *err)
{
    timed *t = NULL;
    size_t n = 0;
    if (events_by_start(res, &t, &n, err))
        return -1;
    if (n == 0) {
        free(t);
        return td_fail(err, "no launch or copy of the result has a start time (a result of kernel "
                       "replay, or from before start times were kept): nothing to put on a "
                       "timeline; a run profiled by this version (replay-free, the default) "
                       "has them, and `topdown report` still reads this one");
    }
    td_output o;
    if (td_output_open(&o, path, err)) {
        free(t);
        return -1;
    }
    int rc = write_events(o.f, res, s, t, n);
    free(t);
    if (rc) {
        td_output_discard(&o);
        return td_fail(err, "out of memory writing %s", path);
    }
    return td_output_commit(&o, err);
}
