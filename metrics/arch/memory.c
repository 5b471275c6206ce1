#include "metrics/arch/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/json_field.h"

/* Cycles no load takes: a DRAM miss is some hundreds. */
#define TD_MEM_MAX_LATENCY 1e5

static int source_of(const cJSON *item, size_t i, td_mem_source *s, const char *path,
                     td_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s: \"memory\" source %zu", path, i);
    td_jctx c = {where, err};
    if (!cJSON_IsObject(item))
        return td_fail(err, "%s must be an object", where);
    s->per_sector = 1;
    s->unit = -1;
    const cJSON *replay_only = cJSON_GetObjectItemCaseSensitive(item, "replay_only");
    if (replay_only && !cJSON_IsBool(replay_only))
        return td_fail(err, "%s: \"replay_only\" must be true or false", where);
    s->replay_only = cJSON_IsTrue(replay_only);
    if (td_json_string_dup(&c, item, "name", 1, &s->name) ||
        td_json_string_dup(&c, item, "split", 0, &s->split) ||
        td_json_string_dup(&c, item, "desc", 0, &s->desc) ||
        td_json_string_dup(&c, item, "fix", 0, &s->fix) ||
        td_json_string_dup(&c, item, "metric", 1, &s->metric) ||
        td_json_number(&c, item, "per_sector", 0, 1, 1024, &s->per_sector) ||
        td_json_number(&c, item, "latency_cycles", 1, 1, TD_MEM_MAX_LATENCY, &s->latency_cycles))
        return -1;
    return 0;
}

/* A source's optional "unit" names a throughput unit of the section. */
static int link_units(const cJSON *sources, td_arch_memory *m, const char *path, td_error *err)
{
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, sources) {
        const cJSON *unit = cJSON_GetObjectItemCaseSensitive(item, "unit");
        td_mem_source *s = &m->sources[i++];
        if (!unit)
            continue;
        for (size_t u = 0; cJSON_IsString(unit) && u < m->n_units && s->unit < 0; u++)
            if (strcmp(m->units[u].name, unit->valuestring) == 0)
                s->unit = (int)u;
        if (s->unit < 0)
            return td_fail(err, "%s: \"memory\" source %s: \"unit\" must name a unit of "
                           "\"throughput\"", path, s->name);
    }
    return 0;
}

static int unit_of(const cJSON *item, size_t i, td_mem_unit *u, const char *path, td_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s: \"memory\" throughput %zu", path, i);
    td_jctx c = {where, err};
    if (!cJSON_IsObject(item))
        return td_fail(err, "%s must be an object", where);
    const cJSON *work = NULL;
    size_t n = 0;
    if (td_json_string_dup(&c, item, "unit", 1, &u->name) ||
        td_json_array(&c, item, "work", 1, &work, &n) ||
        td_json_string_dup(&c, item, "peak", 1, &u->peak) ||
        td_json_string_dup(&c, item, "cycles", 1, &u->cycles))
        return -1;
    if (n == 0 || n > TD_MEM_MAX_COUNTS)
        return td_fail(err, "%s: \"work\" must name 1 to %d metrics", where, TD_MEM_MAX_COUNTS);
    const cJSON *m;
    cJSON_ArrayForEach(m, work) {
        if (!cJSON_IsString(m) || !m->valuestring[0])
            return td_fail(err, "%s: \"work\" must hold metric names", where);
        if (!(u->work[u->n_work++] = strdup(m->valuestring)))
            return td_fail(err, "out of memory");
    }
    return 0;
}

int td_mem_same_split(const td_arch_memory *m, size_t a, size_t b)
{
    return strcmp(m->sources[a].split, m->sources[b].split) == 0;
}

/* Each source's stall: its own "split", else the section's. */
static int inherit_split(td_arch_memory *m)
{
    for (size_t i = 0; i < m->n_sources; i++)
        if (!m->sources[i].split && !(m->sources[i].split = strdup(m->split)))
            return -1;
    return 0;
}

/* Two sources of one name under one stall would be two nodes of one
 * path; a stall split by one source alone is no split. */
static int check_names(const td_arch_memory *m, const char *path, td_error *err)
{
    for (size_t i = 0; i < m->n_sources; i++) {
        size_t same_split = 0;
        for (size_t j = 0; j < m->n_sources; j++) {
            if (!td_mem_same_split(m, i, j))
                continue;
            same_split++;
            if (j < i && strcmp(m->sources[i].name, m->sources[j].name) == 0)
                return td_fail(err, "%s: \"memory\" names source %s of %s twice", path,
                               m->sources[i].name, m->sources[i].split);
            if (m->sources[i].replay_only != m->sources[j].replay_only)
                return td_fail(err, "%s: \"memory\" sources %s and %s split %s, and only one "
                               "is replay_only; a split is measured together or not at all",
                               path, m->sources[i].name, m->sources[j].name,
                               m->sources[i].split);
        }
        if (same_split < 2)
            return td_fail(err, "%s: \"memory\" splits %s by one source (%s); a split needs "
                           "two or more", path, m->sources[i].split, m->sources[i].name);
    }
    return 0;
}

static int parse_all(const cJSON *memory, td_arch_memory *out, const char *path, td_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s: \"memory\"", path);
    td_jctx c = {where, err};
    if (!cJSON_IsObject(memory))
        return td_fail(err, "%s must be an object", where);
    const cJSON *sources = NULL, *units = NULL;
    size_t n_sources = 0, n_units = 0;
    if (td_json_string_dup(&c, memory, "split", 0, &out->split) ||
        td_json_string_dup(&c, memory, "latency_source", 0, &out->latency_source) ||
        td_json_array(&c, memory, "sources", 0, &sources, &n_sources) ||
        td_json_array(&c, memory, "throughput", 0, &units, &n_units))
        return -1;
    if (!out->split != !n_sources)
        return td_fail(err, "%s: \"split\" and \"sources\" come together", where);
    if (n_sources > TD_MEM_MAX_SOURCES)
        return td_fail(err, "%s: \"sources\" lists at most %d places", where, TD_MEM_MAX_SOURCES);
    if (n_units > TD_MEM_MAX_UNITS)
        return td_fail(err, "%s: \"throughput\" lists at most %d units", where, TD_MEM_MAX_UNITS);
    const cJSON *item;
    cJSON_ArrayForEach(item, sources) {
        if (source_of(item, out->n_sources, &out->sources[out->n_sources], path, err))
            return -1;
        out->n_sources++;
    }
    cJSON_ArrayForEach(item, units) {
        if (unit_of(item, out->n_units, &out->units[out->n_units], path, err))
            return -1;
        out->n_units++;
    }
    if (inherit_split(out))
        return td_fail(err, "out of memory");
    return check_names(out, path, err) || link_units(sources, out, path, err) ? -1 : 0;
}

int td_arch_memory_parse(const cJSON *memory, td_arch_memory *out, const char *path,
                         td_error *err)
{
    memset(out, 0, sizeof *out);
    if (!memory)
        return 0;
    if (parse_all(memory, out, path, err)) {
        td_arch_memory_free(out);
        return -1;
    }
    return 0;
}

size_t td_arch_memory_metrics(const td_arch_memory *m, const char **names, size_t cap)
{
    size_t n = 0;
#define PUT(x)                                                                                 \
    do {                                                                                       \
        if (n < cap)                                                                           \
            names[n] = (x);                                                                    \
        n++;                                                                                   \
    } while (0)
    for (size_t i = 0; i < m->n_sources; i++)
        PUT(m->sources[i].metric);
    for (size_t u = 0; u < m->n_units; u++) {
        for (size_t w = 0; w < m->units[u].n_work; w++)
            PUT(m->units[u].work[w]);
        PUT(m->units[u].peak);
        PUT(m->units[u].cycles);
    }
#undef PUT
    return n;
}

int td_arch_memory_replay_only(const td_arch_memory *m, const char *metric)
{
    int found = 0;
    for (size_t i = 0; i < m->n_sources; i++) {
        if (strcmp(m->sources[i].metric, metric) != 0)
            continue;
        if (!m->sources[i].replay_only)
            return 0;
        found = 1;
    }
    for (size_t u = 0; found && u < m->n_units; u++) {
        int in_unit = strcmp(m->units[u].peak, metric) == 0 || strcmp(m->units[u].cycles, metric) == 0;
        for (size_t w = 0; w < m->units[u].n_work; w++)
            in_unit |= strcmp(m->units[u].work[w], metric) == 0;
        if (in_unit)
            return 0;
    }
    return found;
}

int td_arch_memory_uses(const td_arch_memory *m, const char *metric)
{
    const char *names[TD_MEM_MAX_METRICS];
    size_t n = td_arch_memory_metrics(m, names, TD_MEM_MAX_METRICS);
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], metric) == 0)
            return 1;
    return 0;
}

void td_arch_memory_free(td_arch_memory *m)
{
    free(m->split);
    free(m->latency_source);
    for (size_t i = 0; i < TD_MEM_MAX_SOURCES; i++) {
        free(m->sources[i].name);
        free(m->sources[i].split);
        free(m->sources[i].desc);
        free(m->sources[i].fix);
        free(m->sources[i].metric);
    }
    for (size_t u = 0; u < TD_MEM_MAX_UNITS; u++) {
        free(m->units[u].name);
        for (size_t w = 0; w < TD_MEM_MAX_COUNTS; w++)
            free(m->units[u].work[w]);
        free(m->units[u].peak);
        free(m->units[u].cycles);
    }
    memset(m, 0, sizeof *m);
}
