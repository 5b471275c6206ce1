/* Makes a collection spool of N launches as the injection library would
 * write it (its own writer, topdown/inject/spool_writer.c, and the records
 * of inject.c), for measuring the end of a run without a GPU
 * (benchmarks/end_of_run.sh): the kernels, launch configurations,
 * durations, counter groups and counters of a real recording (TEMPLATE,
 * a topdown-result/2 file) in its order, one launch in P profiled with
 * its group's counters, every launch timed by a kernel_time record.
 *
 *   td_gen_spool TEMPLATE.json N OUT.spool [--profile-every P]   (P: 100)
 *
 * OUT.spool is replaced. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics/result/result.h"
#include "topdown/inject/spool_writer.h"

enum { TIMES_BATCH = 1000 }; /* kernel_time records come in activity buffers */

typedef struct gen_opts {
    const char *template_path, *out;
    size_t launches, every;
} gen_opts;

/* The template's kernels, numbered in order of first launch as the
 * library numbers them (k), by their interned name pointer. */
typedef struct kernel_refs {
    const char **names;
    size_t n;
} kernel_refs;

static int parse_args(int argc, char **argv, gen_opts *o)
{
    if (argc < 4)
        return -1;
    *o = (gen_opts){argv[1], argv[3], strtoul(argv[2], NULL, 10), 100};
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--profile-every") == 0 && i + 1 < argc)
            o->every = strtoul(argv[++i], NULL, 10);
        else
            return -1;
    }
    return o->launches && o->every ? 0 : -1;
}

static void emit_start(void)
{
    cJSON *rec = td_sw_record("start");
    cJSON_AddStringToObject(rec, "format", "topdown-spool/2");
    cJSON_AddStringToObject(rec, "tool_version", TOPDOWN_VERSION);
    cJSON_AddStringToObject(rec, "replay_mode", "auto");
    cJSON_AddStringToObject(rec, "cache_control", "none");
    cJSON_AddNumberToObject(rec, "overhead_pct", 40);
    td_sw_emit(rec);
}

/* inject.c's emit_device. */
static void emit_device(const td_device *dev)
{
    cJSON *rec = td_sw_record("device");
    int cc[2] = {dev->cc_major, dev->cc_minor};
    cJSON_AddNumberToObject(rec, "context", 1);
    cJSON_AddNumberToObject(rec, "device", 0);
    cJSON_AddStringToObject(rec, "name", dev->name);
    cJSON_AddStringToObject(rec, "chip", dev->chip);
    cJSON_AddItemToObject(rec, "cc", cJSON_CreateIntArray(cc, 2));
    cJSON_AddNumberToObject(rec, "sm_count", dev->sm_count);
    cJSON_AddStringToObject(rec, "arch", dev->arch);
    cJSON_AddNumberToObject(rec, "passes", dev->passes);
    cJSON_AddNumberToObject(rec, "batch", 64);
    cJSON_AddItemToObject(rec, "metrics", cJSON_CreateStringArray((const char *const *)dev->metrics,
                                                                   (int)dev->n_metrics));
    cJSON *groups = cJSON_AddArrayToObject(rec, "groups");
    for (size_t g = 0; g < dev->n_groups; g++) {
        int ints[64];
        size_t n = dev->groups[g].n < 64 ? dev->groups[g].n : 64;
        for (size_t i = 0; i < n; i++)
            ints[i] = (int)dev->groups[g].metrics[i];
        cJSON_AddItemToArray(groups, cJSON_CreateIntArray(ints, (int)n));
    }
    td_sw_emit(rec);
}

/* The launch's k, its kernel record written at its first launch. */
static uint64_t kernel_ref(kernel_refs *refs, const td_launch *l)
{
    for (size_t k = 0; k < refs->n; k++)
        if (refs->names[k] == l->kernel)
            return k;
    refs->names[refs->n] = l->kernel;
    td_sw_emit_kernel(refs->n, l->kernel, l->mangled);
    return refs->n++;
}

static int metric_in_group(const td_device *dev, int group, size_t metric)
{
    const td_counter_group *g = &dev->groups[group];
    for (size_t i = 0; i < g->n; i++)
        if (g->metrics[i] == metric)
            return (int)i;
    return -1;
}

/* inject.c's emit_launch for a profiled launch: its group's values. */
static void emit_profiled(const td_device *dev, const td_launch *l, uint64_t id, uint32_t corr,
                          uint64_t k)
{
    double values[256];
    size_t n = 0;
    int duration = -1;
    int gpu_time = td_device_metric_index(dev, "gpu__time_duration.sum");
    if (l->group == TD_GROUP_ALL) {
        for (; n < dev->n_metrics && n < 256; n++)
            values[n] = l->counters[n];
        duration = gpu_time;
    } else {
        const td_counter_group *g = &dev->groups[l->group];
        for (; n < g->n && n < 256; n++)
            values[n] = l->counters[g->metrics[n]];
        duration = gpu_time < 0 ? -1 : metric_in_group(dev, l->group, (size_t)gpu_time);
    }
    cJSON *rec = td_sw_record("launch");
    cJSON_AddNumberToObject(rec, "context", 1);
    cJSON_AddNumberToObject(rec, "id", (double)id);
    cJSON_AddNumberToObject(rec, "corr", corr);
    cJSON_AddNumberToObject(rec, "k", (double)k);
    int grid[3] = {(int)l->grid[0], (int)l->grid[1], (int)l->grid[2]};
    int block[3] = {(int)l->block[0], (int)l->block[1], (int)l->block[2]};
    cJSON_AddItemToObject(rec, "grid", cJSON_CreateIntArray(grid, 3));
    cJSON_AddItemToObject(rec, "block", cJSON_CreateIntArray(block, 3));
    cJSON_AddNumberToObject(rec, "stream", (double)l->stream);
    if (duration >= 0)
        cJSON_AddNumberToObject(rec, "duration_ns", values[duration]);
    if (l->group != TD_GROUP_ALL)
        cJSON_AddNumberToObject(rec, "group", l->group);
    cJSON_AddItemToObject(rec, "counters", cJSON_CreateDoubleArray(values, (int)n));
    td_sw_emit(rec);
}

static void emit_timed(const td_launch *l, uint64_t id, uint32_t corr, uint64_t k)
{
    td_sw_launch line = {.context = 1, .id = id, .corr = corr, .k = k,
                         .stream = (uint32_t)l->stream};
    memcpy(line.grid, l->grid, sizeof line.grid);
    memcpy(line.block, l->block, sizeof line.block);
    td_sw_emit_launch(&line);
}

static void emit_end(size_t launches, size_t profiled)
{
    cJSON *rec = td_sw_record("end");
    cJSON_AddNumberToObject(rec, "launches", (double)launches);
    cJSON_AddNumberToObject(rec, "profiled", (double)profiled);
    td_sw_emit(rec);
}

/* Launch i is the template's launch i (cycling), or for every P-th one
 * the next profiled launch of the template. */
static void generate(const td_device *dev, const size_t *profiled, size_t n_profiled,
                     const gen_opts *o, kernel_refs *refs)
{
    size_t n_prof = 0, timed_from = 0;
    emit_start();
    emit_device(dev);
    for (size_t i = 0; i < o->launches; i++) {
        int measure = i % o->every == 0;
        const td_launch *l = measure ? &dev->launches[profiled[(i / o->every) % n_profiled]]
                                     : &dev->launches[i % dev->n_launches];
        uint32_t corr = (uint32_t)(3 + 2 * i);
        uint64_t k = kernel_ref(refs, l);
        if (measure) {
            emit_profiled(dev, l, i, corr, k);
            n_prof++;
        } else {
            emit_timed(l, i, corr, k);
        }
        if ((i + 1) % TIMES_BATCH && i + 1 < o->launches)
            continue;
        for (size_t t = timed_from; t <= i; t++) {
            const td_launch *src = &dev->launches[t % dev->n_launches];
            td_sw_emit_kernel_time(1, (uint32_t)(3 + 2 * t), 861945892ull + t * 25000ull,
                                   (uint64_t)(src->duration_ns > 0 ? src->duration_ns : 1000),
                                   NULL);
        }
        timed_from = i + 1;
    }
    emit_end(o->launches, n_prof);
}

static int run(const gen_opts *o, const td_result *tpl, td_error *err)
{
    const td_device *dev = &tpl->devices[0];
    size_t *profiled = calloc(dev->n_launches + 1, sizeof *profiled);
    kernel_refs refs = {calloc(dev->n_launches + 1, sizeof *refs.names), 0};
    size_t n_profiled = 0;
    for (size_t i = 0; profiled && i < dev->n_launches; i++)
        if (dev->launches[i].profiled)
            profiled[n_profiled++] = i;
    int rc = 0;
    if (!profiled || !refs.names)
        rc = td_fail(err, "out of memory");
    else if (!n_profiled || !dev->n_groups)
        rc = td_fail(err, "%s: the template needs profiled launches and counter groups",
                     o->template_path);
    else if (unlink(o->out) != 0 && access(o->out, F_OK) == 0)
        rc = td_fail(err, "cannot replace %s", o->out);
    else if (td_sw_open(o->out) != 0)
        rc = td_fail(err, "cannot create %s", o->out);
    if (rc == 0) {
        generate(dev, profiled, n_profiled, o, &refs);
        td_sw_flush();
    }
    free(profiled);
    free(refs.names);
    return rc;
}

int main(int argc, char **argv)
{
    gen_opts o;
    if (parse_args(argc, argv, &o)) {
        fprintf(stderr, "usage: td_gen_spool TEMPLATE.json N OUT.spool [--profile-every P]\n");
        return 2;
    }
    td_error err = {{0}};
    td_result tpl;
    if (td_result_load(o.template_path, &tpl, &err)) {
        fprintf(stderr, "td_gen_spool: %s\n", err.msg);
        return 1;
    }
    int rc = tpl.n_devices && tpl.devices[0].n_launches
                 ? run(&o, &tpl, &err)
                 : td_fail(&err, "%s has no launches", o.template_path);
    if (rc)
        fprintf(stderr, "td_gen_spool: %s\n", err.msg);
    td_result_free(&tpl);
    return rc ? 1 : 0;
}
