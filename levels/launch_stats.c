#include "levels/launch_stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/intern.h"

/* ---- each launch's kernel ---------------------------------------------- */

typedef struct named {
    const char *name;
    size_t index;
} named;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* Names are looked up once per pointer: each device section interns its
 * own copy of a name, which its launches share; the pointers last seen
 * are remembered in a few slots, so a launch of a kernel seen before
 * hashes nothing. */
enum { RECENT = 64 };

typedef struct kernel_lookup {
    named *sorted;
    size_t n;
    td_keyset pointers; /* const char * of the launches */
    long *kernel;       /* per pointer: the kernel's index, -1 for none */
    size_t cap;
    const char *recent_name[RECENT];
    long recent_kernel[RECENT];
} kernel_lookup;

static long lookup_name(const kernel_lookup *t, const char *name)
{
    named key = {name, 0};
    const named *hit = bsearch(&key, t->sorted, t->n, sizeof *t->sorted, by_name);
    return hit ? (long)hit->index : -1;
}

/* The kernel index of name, -1 for none, -2 when out of memory. */
static long kernel_of(kernel_lookup *t, const char *name)
{
    size_t slot = (size_t)(((uintptr_t)name >> 4) * 0x9e3779b97f4a7c15ull >> 58);
    if (t->recent_name[slot] == name)
        return t->recent_kernel[slot];
    int added;
    long p = td_keyset_add(&t->pointers, &name, &added);
    if (p < 0)
        return -2;
    if (added) {
        if ((size_t)p >= t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 64;
            long *bigger = realloc(t->kernel, cap * sizeof *bigger);
            if (!bigger)
                return -2;
            t->kernel = bigger;
            t->cap = cap;
        }
        t->kernel[p] = lookup_name(t, name);
    }
    t->recent_name[slot] = name;
    t->recent_kernel[slot] = t->kernel[p];
    return t->kernel[p];
}

/* ---- what is gathered ----------------------------------------------------- */

typedef struct config_key {
    size_t kernel;
    unsigned grid[3], block[3];
    td_launch_resources resources;
} config_key;

typedef struct gathered {
    long *kernel_of_launch;  /* per launch of the result, in device order */
    size_t *count;           /* per kernel: launches */
    long *last_config;       /* per kernel: its last launch's configuration, -1: none */
    td_keyset configs;       /* config_key */
    size_t *config_count, *config_dev, cap_configs;
    double *warps, *cycles;  /* per kernel: achieved occupancy's sums */
    size_t *measured;        /* per kernel: the launches behind them */
} gathered;

static int note_config(gathered *g, size_t k, const td_launch *l, size_t dev)
{
    config_key key;
    memset(&key, 0, sizeof key);
    key.kernel = k;
    memcpy(key.grid, l->grid, sizeof key.grid);
    memcpy(key.block, l->block, sizeof key.block);
    if (l->resources.recorded)
        key.resources = l->resources;
    long last = g->last_config[k];
    if (last >= 0 && memcmp(td_keyset_key(&g->configs, (size_t)last), &key, sizeof key) == 0) {
        g->config_count[last]++; /* the launch before's: no hash */
        return 0;
    }
    int added;
    long c = td_keyset_add(&g->configs, &key, &added);
    if (c < 0)
        return -1;
    g->last_config[k] = c;
    if ((size_t)c >= g->cap_configs) {
        size_t cap = g->cap_configs ? 2 * g->cap_configs : 64;
        size_t *count = realloc(g->config_count, cap * sizeof *count);
        if (count)
            g->config_count = count;
        size_t *dev_of = count ? realloc(g->config_dev, cap * sizeof *dev_of) : NULL;
        if (!dev_of)
            return -1;
        g->config_dev = dev_of;
        g->cap_configs = cap;
    }
    if (added) {
        g->config_count[c] = 0;
        g->config_dev[c] = dev;
    }
    g->config_count[c]++;
    return 0;
}

/* A profiled launch's warps resident and active cycles, where it measured both. */
static void note_achieved(gathered *g, size_t k, const td_device *dev, const td_binding *b,
                          const td_launch *l)
{
    int w = b->counter[TD_C_WARPS_ACTIVE], c = b->counter[TD_C_CYCLES_ACTIVE];
    if (!l->profiled || !l->counters || w < 0 || c < 0 || !td_launch_measured(dev, l, w) ||
        !td_launch_measured(dev, l, c) || !(l->counters[c] > 0))
        return;
    g->warps[k] += l->counters[w];
    g->cycles[k] += l->counters[c];
    g->measured[k]++;
}

static int gather(const td_result *res, const td_binding *bindings, kernel_lookup *t,
                  gathered *g, td_error *err)
{
    size_t at = 0;
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        for (size_t i = 0; i < dev->n_launches; i++) {
            const td_launch *l = &dev->launches[i];
            long k = kernel_of(t, l->kernel);
            if (k == -2)
                return td_fail(err, "out of memory");
            g->kernel_of_launch[at++] = k;
            if (k < 0)
                continue;
            g->count[k]++;
            if (note_config(g, (size_t)k, l, d))
                return td_fail(err, "out of memory");
            note_achieved(g, (size_t)k, dev, &bindings[d], l);
        }
    }
    return 0;
}

/* ---- the figures ---------------------------------------------------------- */

/* Each kernel's launch durations, sorted into its figures. */
static int fill_durations(const td_result *res, const gathered *g, size_t n,
                          td_launch_stats *stats, size_t total, td_error *err)
{
    size_t *next = calloc(n + 1, sizeof *next);
    double *ns = malloc((total ? total : 1) * sizeof *ns);
    if (!next || !ns) {
        free(next);
        free(ns);
        return td_fail(err, "out of memory");
    }
    for (size_t k = 0; k < n; k++)
        next[k + 1] = next[k] + g->count[k];
    size_t at = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++, at++)
            if (g->kernel_of_launch[at] >= 0)
                ns[next[g->kernel_of_launch[at]]++] = res->devices[d].launches[i].duration_ns;
    for (size_t k = 0; k < n; k++) {
        size_t first = next[k] - g->count[k];
        td_duration_stats_of(ns + first, g->count[k], &stats[k].durations);
    }
    free(next);
    free(ns);
    return 0;
}

/* Each kernel's longest profiled launch, then the time of its launches
 * TD_BEYOND_MEASURED times longer than that. */
static void fill_beyond_measured(const td_result *res, const gathered *g, td_launch_stats *stats)
{
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        for (size_t d = 0; d < res->n_devices; d++)
            for (size_t i = 0; i < res->devices[d].n_launches; i++, at++) {
                const td_launch *l = &res->devices[d].launches[i];
                if (g->kernel_of_launch[at] < 0 || !(l->duration_ns > 0))
                    continue;
                td_launch_stats *s = &stats[g->kernel_of_launch[at]];
                if (pass == 0 && l->profiled && l->duration_ns > s->measured_max_ns)
                    s->measured_max_ns = l->duration_ns;
                else if (pass == 1 && !l->profiled && s->measured_max_ns > 0 &&
                         l->duration_ns > TD_BEYOND_MEASURED * s->measured_max_ns)
                    s->beyond_measured_ns += l->duration_ns;
            }
    }
}

double td_launch_beyond_share(const td_launch_stats *ls)
{
    double total = ls->durations.total_ns;
    return total > 0 ? ls->beyond_measured_ns / total : 0;
}

/* Each kernel's commonest configuration and how many it has. */
static void pick_configs(const gathered *g, td_launch_stats *stats)
{
    for (size_t c = 0; c < g->configs.count; c++) {
        const config_key *key = td_keyset_key(&g->configs, c);
        td_launch_stats *s = &stats[key->kernel];
        s->configs++;
        if (g->config_count[c] <= s->config.launches)
            continue;
        memcpy(s->config.grid, key->grid, sizeof key->grid);
        memcpy(s->config.block, key->block, sizeof key->block);
        s->config.resources = key->resources;
        s->config.launches = g->config_count[c];
        s->config.dev = g->config_dev[c];
    }
}

/* x, or the largest 32-bit count: no real block or SM comes near it. */
static unsigned at_most_32_bits(unsigned long long x)
{
    return x > 0xffffffffull ? 0xffffffffu : (unsigned)x;
}

/* The theoretical occupancy of the configuration, its waves and the
 * occupancy achieved, on its device's SM. */
static void occupancy_of(const td_result *res, const td_model *models, const gathered *g,
                         size_t k, td_launch_stats *s)
{
    s->waves = NAN;
    s->achieved_pct = NAN;
    if (s->durations.count == 0)
        return;
    const td_device *dev = &res->devices[s->config.dev];
    const td_arch *arch = models[s->config.dev].arch;
    const td_sm_limits *sm = td_sm_limits_find(arch->sm_limits, arch->n_sm_limits,
                                               dev->cc_major, dev->cc_minor);
    if (!sm)
        return;
    s->max_warps = sm->max_warps;
    s->achieved_launches = g->measured[k];
    s->achieved_pct = td_occupancy_achieved(g->warps[k], g->cycles[k], sm->max_warps);
    const td_launch_resources *r = &s->config.resources;
    if (!r->recorded)
        return;
    const unsigned *b = s->config.block;
    td_occ_launch l = {at_most_32_bits((unsigned long long)b[0] * b[1] * b[2]), r->registers,
                       at_most_32_bits((unsigned long long)r->static_shared + r->dynamic_shared),
                       r->shared_config};
    td_occupancy_theoretical(sm, &l, &s->theoretical);
    s->has_theoretical = 1;
    const unsigned *grid = s->config.grid;
    double blocks = (double)grid[0] * grid[1] * grid[2];
    if (s->theoretical.blocks > 0 && dev->sm_count > 0)
        s->waves = blocks / ((double)s->theoretical.blocks * dev->sm_count);
}

static void gathered_free(gathered *g)
{
    free(g->kernel_of_launch);
    free(g->count);
    free(g->last_config);
    td_keyset_free(&g->configs);
    free(g->config_count);
    free(g->config_dev);
    free(g->warps);
    free(g->cycles);
    free(g->measured);
}

int td_launch_stats_of(const td_result *res, const td_model *models,
                       const td_binding *bindings, const char *const *names, size_t n,
                       td_launch_stats *stats, td_error *err)
{
    memset(stats, 0, n * sizeof *stats);
    size_t total = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        total += res->devices[d].n_launches;
    kernel_lookup t = {0};
    gathered g = {0};
    td_keyset_init(&t.pointers, sizeof(const char *));
    td_keyset_init(&g.configs, sizeof(config_key));
    t.sorted = malloc((n ? n : 1) * sizeof *t.sorted);
    g.kernel_of_launch = malloc((total ? total : 1) * sizeof *g.kernel_of_launch);
    g.count = calloc(n ? n : 1, sizeof *g.count);
    g.last_config = malloc((n ? n : 1) * sizeof *g.last_config);
    g.warps = calloc(n ? n : 1, sizeof *g.warps);
    g.cycles = calloc(n ? n : 1, sizeof *g.cycles);
    g.measured = calloc(n ? n : 1, sizeof *g.measured);
    int rc = t.sorted && g.kernel_of_launch && g.count && g.last_config && g.warps && g.cycles &&
                     g.measured
                 ? 0 : td_fail(err, "out of memory");
    for (size_t k = 0; rc == 0 && k < n; k++) {
        t.sorted[k] = (named){names[k], k};
        g.last_config[k] = -1;
    }
    t.n = n;
    if (rc == 0) {
        qsort(t.sorted, n, sizeof *t.sorted, by_name);
        rc = gather(res, bindings, &t, &g, err);
    }
    if (rc == 0)
        rc = fill_durations(res, &g, n, stats, total, err);
    if (rc == 0)
        fill_beyond_measured(res, &g, stats);
    if (rc == 0) {
        pick_configs(&g, stats);
        for (size_t k = 0; k < n; k++)
            occupancy_of(res, models, &g, k, &stats[k]);
    }
    gathered_free(&g);
    free(t.sorted);
    free(t.kernel);
    td_keyset_free(&t.pointers);
    return rc;
}
