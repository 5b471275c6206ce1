/* topdown trace: the Chrome trace-event format (ranks.h, docs/OUTPUTS.md),
 * written event by event with cJSON so a million launches never sit in
 * one JSON tree. */
#include "report/ranks.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/result/compress.h"
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

static const td_kernel_summary *kernel_of(const td_summary *s, const char *name)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (s->kernels[k].name == name || strcmp(s->kernels[k].name, name) == 0)
            return &s->kernels[k];
    return NULL;
}

/* Whether -k keeps the launch's kernel. */
static int launch_wanted(const td_summary *s, const td_trace_options *o, const td_launch *l)
{
    if (!o->keep)
        return 1;
    const td_kernel_summary *k = kernel_of(s, l->kernel);
    return k && o->keep[k - s->kernels];
}

/* Whether an event overlaps the window (ms from t0). */
static int in_window(const td_trace_options *o, uint64_t t0, uint64_t start, double dur_ns)
{
    double from = (double)(start - t0) / 1e6, to = from + dur_ns / 1e6;
    return to >= o->from_ms && (o->to_ms < 0 || from <= o->to_ms);
}

/* An event's time into the bounds: the earliest start (0: none yet) and
 * the latest end. */
static void widen(uint64_t start, double duration_ns, uint64_t *first, uint64_t *end)
{
    if (!start)
        return;
    uint64_t stop = start + (uint64_t)duration_ns;
    *first = !*first || start < *first ? start : *first;
    *end = stop > *end ? stop : *end;
}

/* The first start of a launch or copy (0 when none has one) and the last
 * end. */
static void time_bounds(const td_result *res, uint64_t *first, uint64_t *end)
{
    *first = *end = 0;
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        for (size_t i = 0; i < dev->n_launches; i++)
            widen(dev->launches[i].start_ns, dev->launches[i].duration_ns, first, end);
        for (size_t i = 0; i < dev->n_copies; i++)
            widen(dev->copies[i].start_ns, dev->copies[i].duration_ns, first, end);
    }
}

static uint64_t first_start(const td_result *res)
{
    uint64_t first, end;
    time_bounds(res, &first, &end);
    return first;
}

/* From the first start to the last end, in ms. */
static double span_ms(const td_result *res)
{
    uint64_t first, end;
    time_bounds(res, &first, &end);
    return (double)(end - first) / 1e6;
}

/* The launches and copies of the trace (a start time, -k, the window), in
 * start order; counts the launches without a start time. */
static int events_by_start(const td_result *res, const td_summary *s,
                           const td_trace_options *o, timed **out, size_t *n,
                           td_trace_counts *counts, td_error *err)
{
    size_t total = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        total += res->devices[d].n_launches + res->devices[d].n_copies;
    *out = malloc((total ? total : 1) * sizeof **out);
    *n = 0;
    if (!*out)
        return td_fail(err, "out of memory");
    uint64_t t0 = first_start(res);
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            if (!launch_wanted(s, o, l))
                continue;
            counts->untimed += l->start_ns == 0;
            if (l->start_ns && in_window(o, t0, l->start_ns, l->duration_ns))
                (*out)[(*n)++] = (timed){d, i, l->start_ns, 0};
        }
    for (size_t d = 0; !o->keep && d < res->n_devices; d++) /* -k: kernels only */
        for (size_t i = 0; i < res->devices[d].n_copies; i++) {
            const td_copy *c = &res->devices[d].copies[i];
            if (c->start_ns && in_window(o, t0, c->start_ns, c->duration_ns))
                (*out)[(*n)++] = (timed){d, i, c->start_ns, 1};
        }
    qsort(*out, *n, sizeof **out, by_start);
    counts->events = *n;
    return 0;
}

/* Chrome's reserved colour names, by level-1 bottleneck; grey where level
 * 1 was not all measured (a stall split not made: Frontend, Backend n/m)
 * or its largest loss is not known (n/k). */
static const char *colour_of(const td_kernel_summary *k)
{
    if (!k || !k->has_data || k->mean.reasons_missing || k->verdict.not_known)
        return "grey";
    switch (k->verdict.bottleneck[1]) {
    case -1: /* no loss over its threshold: retiring */
    case TD_N_RETIRE: return "good";
    case TD_N_DIVERGENCE: return "yellow";
    case TD_N_FRONTEND: return "rail_response";
    default: return "terrible";
    }
}

/* A level-1 node's share (null where not measured or not known) and its
 * interval's ends as NAME_lo and NAME_hi (null where not measured). */
static void add_level1(cJSON *args, const td_summary *s, const td_kernel_summary *k,
                       const char *name, int node)
{
    const td_model *m = k && k->has_data ? &s->models[k->model] : NULL;
    int measured = m && td_node_measured(m, &k->mean, node);
    double value = m ? k->mean.node[node] : 0;
    td_interval in = td_spread_interval(value, m ? k->spread.value[node] : INFINITY);
    char key[64];
    if (m && td_node_known(m, &k->mean, node))
        cJSON_AddNumberToObject(args, name, 100 * value);
    else
        cJSON_AddNullToObject(args, name);
    for (int end = 0; end < 2; end++) {
        snprintf(key, sizeof key, "%s_%s", name, end ? "hi" : "lo");
        if (measured)
            cJSON_AddNumberToObject(args, key, 100 * (end ? in.hi : in.lo));
        else
            cJSON_AddNullToObject(args, key);
    }
}

static cJSON *kernel_args(const td_summary *s, const td_kernel_summary *k, const td_launch *l)
{
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "kernel", l->kernel);
    cJSON_AddNumberToObject(args, "launch_id", (double)l->id);
    cJSON_AddNumberToObject(args, "duration_ns", l->duration_ns);
    if (l->region)
        cJSON_AddStringToObject(args, "region", l->region);
    static const struct { const char *name; int node; } level1[] = {
        {"Retire", TD_N_RETIRE}, {"Divergence", TD_N_DIVERGENCE},
        {"Frontend", TD_N_FRONTEND}, {"Backend", TD_N_BACKEND}};
    /* not measured (no profiled launch, a stall split not made) or not
     * known: null; the 95% interval's ends (levels/spread.h) where measured */
    for (size_t i = 0; i < sizeof level1 / sizeof *level1; i++)
        add_level1(args, s, k, level1[i].name, level1[i].node);
    if (!k || !k->has_data) {
        cJSON_AddNullToObject(args, "bottleneck");
        return args;
    }
    const td_model *m = &s->models[k->model];
    char path[2 * TD_PATH_MAX + 8];
    td_verdict_names(m, &k->verdict, 1, path, sizeof path);
    if (path[0])
        cJSON_AddStringToObject(args, "bottleneck", path);
    else if (k->mean.reasons_missing || k->verdict.not_known) /* no verdict over what was not
                                                                 measured, or is not known */
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

static uint64_t stream_of(const td_result *res, const timed *t)
{
    const td_device *dev = &res->devices[t->dev];
    return t->copy ? dev->copies[t->index].stream : dev->launches[t->index].stream;
}

/* A process name per device section, then a thread name per stream of
 * device d that the trace's events use. */
static int name_streams(FILE *f, const td_result *res, size_t d, const timed *t, size_t n,
                        int *first)
{
    uint64_t *streams = malloc((n ? n : 1) * sizeof *streams);
    size_t seen = 0;
    int rc = streams ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint64_t st = stream_of(res, &t[i]);
        if (t[i].dev != d || stream_seen(streams, seen, st))
            continue;
        streams[seen++] = st;
        char name[64];
        snprintf(name, sizeof name, "stream %llu", (unsigned long long)st);
        rc = put(f, name_event("thread_name", d, st, name), first);
    }
    free(streams);
    return rc;
}

static int name_tracks(FILE *f, const td_result *res, const timed *t, size_t n, int *first)
{
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        char name[512];
        snprintf(name, sizeof name, "%s%sGPU %d (%s), context %u", dev->origin ? dev->origin : "",
                 dev->origin ? ": " : "", dev->index, dev->name ? dev->name : "?",
                 (unsigned)dev->context);
        if (put(f, name_event("process_name", d, 0, name), first) ||
            name_streams(f, res, d, t, n, first))
            return -1;
    }
    return 0;
}

/* ---- NVTX regions: a track per device section ------------------------------ */

/* A run of launches of one region on one device section, in start order. */
typedef struct region_span {
    const char *region;
    uint64_t start, end;
} region_span;

static cJSON *region_event(size_t d, const region_span *r, uint64_t end, uint64_t t0)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", r->region);
    cJSON_AddStringToObject(e, "cat", "nvtx");
    cJSON_AddStringToObject(e, "ph", "X");
    cJSON_AddNumberToObject(e, "ts", (double)(r->start - t0) / 1e3);
    cJSON_AddNumberToObject(e, "dur", (double)(end - r->start) / 1e3);
    cJSON_AddNumberToObject(e, "pid", (double)d);
    cJSON_AddNumberToObject(e, "tid", TD_TRACE_NVTX_TID);
    cJSON_AddStringToObject(e, "cname", "generic_work");
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddStringToObject(args, "region", r->region);
    return e;
}

/* Puts track tid of device section d above its streams. */
static cJSON *sort_first_event(size_t d, uint64_t tid)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", "thread_sort_index");
    cJSON_AddStringToObject(e, "ph", "M");
    cJSON_AddNumberToObject(e, "pid", (double)d);
    cJSON_AddNumberToObject(e, "tid", (double)tid);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(e, "args"), "sort_index", -1);
    return e;
}

/* Writes the span, cut at the next one's start (one track: no overlap). */
static int put_span(FILE *f, size_t d, const region_span *r, uint64_t next, uint64_t t0,
                    int *first, size_t *written)
{
    if (!r->region)
        return 0;
    if (*written == 0 &&
        (put(f, name_event("thread_name", d, TD_TRACE_NVTX_TID, "NVTX regions"), first) ||
         put(f, sort_first_event(d, TD_TRACE_NVTX_TID), first)))
        return -1;
    (*written)++;
    return put(f, region_event(d, r, next && next < r->end ? next : r->end, t0), first);
}

/* Device section d's launches in the trace (t, in start order) grouped
 * into runs of one region each; *spans counts the spans written. */
static int put_regions(FILE *f, const td_result *res, size_t d, const timed *t, size_t n,
                       uint64_t t0, int *first, size_t *spans)
{
    region_span cur = {NULL, 0, 0};
    size_t written = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].dev != d || t[i].copy)
            continue;
        const td_launch *l = &res->devices[d].launches[t[i].index];
        uint64_t end = l->start_ns + (uint64_t)l->duration_ns;
        int same = cur.region && l->region && strcmp(cur.region, l->region) == 0;
        if (same) {
            cur.end = end > cur.end ? end : cur.end;
            continue;
        }
        if (put_span(f, d, &cur, l->start_ns, t0, first, &written))
            return -1;
        cur = (region_span){l->region, l->start_ns, end};
    }
    if (put_span(f, d, &cur, 0, t0, first, &written))
        return -1;
    *spans += written;
    return 0;
}

/* What the trace left out and why, in Chrome's "otherData". */
static void put_other_data(FILE *f, const td_trace_options *o, const td_trace_counts *c)
{
    fprintf(f, "\n],\"otherData\":{\"launches_without_start_time\":%zu", c->untimed);
    if (o->kernels) {
        cJSON *k = cJSON_CreateString(o->kernels);
        char *text = k ? cJSON_PrintUnformatted(k) : NULL;
        fprintf(f, ",\"kernel_filter\":%s", text ? text : "null");
        cJSON_free(text);
        cJSON_Delete(k);
    }
    if (o->from_ms > 0 || o->to_ms >= 0)
        fprintf(f, ",\"window_ms\":[%.17g,%.17g]", o->from_ms, o->to_ms >= 0 ? o->to_ms : -1.0);
    fputs("}}\n", f);
}

/* What a trace is written from. */
typedef struct trace {
    const td_result *res;
    const td_summary *s;
    const td_trace_options *o;
    timed *t; /* its launches and copies, in start order */
    size_t n;
    timed *all; /* the NVTX spans' launches: t's, -k aside */
    size_t n_all;
    td_trace_counts *counts;
} trace;

static int write_events(FILE *f, const trace *tr)
{
    int first = 1;
    uint64_t t0 = first_start(tr->res);
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    if (name_tracks(f, tr->res, tr->t, tr->n, &first))
        return -1;
    for (size_t d = 0; d < tr->res->n_devices; d++)
        if (put_regions(f, tr->res, d, tr->all, tr->n_all, t0, &first, &tr->counts->regions))
            return -1;
    for (size_t i = 0; i < tr->n; i++) {
        const timed *e = &tr->t[i];
        if (put(f, e->copy ? copy_event(tr->res, e, t0) : kernel_event(tr->res, tr->s, e, t0),
                &first))
            return -1;
    }
    put_other_data(f, tr->o, tr->counts);
    return 0;
}

/* The trace in memory, compressed as kind says (.gz, .xz), into out. */
static int write_compressed(FILE *out, int kind, const trace *tr, td_error *err)
{
    char *text = NULL, *packed = NULL;
    size_t len = 0, packed_len = 0;
    FILE *m = open_memstream(&text, &len);
    int rc = m ? write_events(m, tr) : -1;
    if (m && fclose(m) != 0)
        rc = -1;
    if (rc)
        td_fail(err, "out of memory");
    else if ((rc = td_compress_text(kind, text, len, &packed, &packed_len, err)) == 0)
        fwrite(packed, 1, packed_len, out); /* a short write: td_output_commit says it */
    free(text);
    free(packed);
    return rc;
}

static int write_file(const char *path, const trace *tr, td_error *err)
{
    td_output o;
    if (td_output_open(&o, path, err))
        return -1;
    int kind = td_compression_of(path);
    int rc = kind ? write_compressed(o.f, kind, tr, err)
                  : (write_events(o.f, tr) ? td_fail(err, "out of memory") : 0);
    if (rc) {
        td_output_discard(&o);
        return td_fail_context(err, "writing %s", path);
    }
    return td_output_commit(&o, err);
}

/* The error of a -k or window that leaves no event. */
static void nothing_chosen(const td_result *res, const td_trace_options *o, td_error *err)
{
    char window[160] = "", to[48] = "the end";
    if (o->to_ms >= 0)
        snprintf(to, sizeof to, "%.3f ms", o->to_ms);
    if (o->from_ms > 0 || o->to_ms >= 0)
        snprintf(window, sizeof window, " from %.3f ms to %s (the run's events span 0 to "
                 "%.3f ms)", o->from_ms, to, span_ms(res));
    td_fail(err, "nothing to trace: no %s with a start time%s; choose other %s",
            o->keep ? "launch of the kernels -k names" : "launch or copy", window,
            o->keep ? "kernels or times" : "times");
}

static const char no_start_times[] =
    "no launch or copy of the result has a start time (a result of kernel replay, or from "
    "before start times were kept): nothing to put on a timeline; a run profiled by this "
    "version (replay-free, the default) has them, and `topdown report` still reads this one";

int td_trace_write(const char *path, const td_result *res, const td_summary *s,
                   const td_trace_options *o, td_trace_counts *counts, td_error *err)
{
    trace tr = {res, s, o, NULL, 0, NULL, 0, counts};
    memset(counts, 0, sizeof *counts);
    if (events_by_start(res, s, o, &tr.t, &tr.n, counts, err))
        return -1;
    if (tr.n == 0) {
        free(tr.t);
        return first_start(res) == 0 ? td_fail(err, "%s", no_start_times)
                                     : (nothing_chosen(res, o, err), TD_TRACE_EMPTY);
    }
    /* -k: the spans still follow every launch, or a region's runs would
     * merge over the launches left out */
    td_trace_options every = *o;
    td_trace_counts ignored = {0, 0, 0};
    every.keep = NULL;
    int rc = 0;
    if (o->keep)
        rc = events_by_start(res, s, &every, &tr.all, &tr.n_all, &ignored, err);
    else
        tr.all = tr.t, tr.n_all = tr.n;
    if (rc == 0)
        rc = write_file(path, &tr, err);
    if (tr.all != tr.t)
        free(tr.all);
    free(tr.t);
    return rc;
}
