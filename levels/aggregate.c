#include "levels/aggregate.h"

#include "levels/cold_ranges.h"
#include "levels/estimate.h"
#include "levels/launch_weights.h"
#include "levels/spread.h"
#include "metrics/intern.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Kernel names -> summary index: open addressing, so 100,000+ launches of
 * thousands of kernels stay linear. Launches point into their device's
 * name table, so the names last looked up are remembered by pointer too:
 * a launch of a kernel seen before hashes no name. */
enum { RECENT_NAMES = 64 };

typedef struct name_index {
    size_t *slots; /* summary index + 1, 0 = empty */
    size_t cap;
    const char *recent_name[RECENT_NAMES]; /* by pointer hash */
    int recent_kernel[RECENT_NAMES];
} name_index;

static int find_or_add_kernel(td_summary *s, name_index *idx, const char *name,
                              int model, td_error *err)
{
    if ((s->n_kernels + 1) * 2 > idx->cap) {
        size_t cap = idx->cap ? idx->cap * 2 : 256;
        size_t *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return td_fail(err, "out of memory");
        for (size_t k = 0; k < s->n_kernels; k++) {
            const char *known = s->kernels[k].name;
            size_t h = td_hash_bytes(known, strlen(known)) & (cap - 1);
            while (slots[h])
                h = (h + 1) & (cap - 1);
            slots[h] = k + 1;
        }
        free(idx->slots);
        idx->slots = slots;
        idx->cap = cap;
        td_kernel_summary *bigger = realloc(s->kernels, cap / 2 * sizeof *bigger);
        if (!bigger)
            return td_fail(err, "out of memory");
        s->kernels = bigger;
    }
    size_t h = td_hash_bytes(name, strlen(name)) & (idx->cap - 1);
    while (idx->slots[h]) {
        if (strcmp(s->kernels[idx->slots[h] - 1].name, name) == 0)
            return (int)(idx->slots[h] - 1);
        h = (h + 1) & (idx->cap - 1);
    }
    td_kernel_summary *k = &s->kernels[s->n_kernels];
    memset(k, 0, sizeof *k);
    k->name = name;
    k->model = model;
    idx->slots[h] = ++s->n_kernels;
    return (int)(s->n_kernels - 1);
}

/* find_or_add_kernel, remembering name's answer by its pointer. */
static int kernel_of_name(td_summary *s, name_index *idx, const char *name, int model,
                          td_error *err)
{
    size_t slot = (size_t)(((uintptr_t)name >> 4) * 0x9e3779b97f4a7c15ull >> 58);
    if (name && idx->recent_name[slot] == name)
        return idx->recent_kernel[slot];
    int k = find_or_add_kernel(s, idx, name, model, err);
    if (k >= 0) {
        idx->recent_name[slot] = name;
        idx->recent_kernel[slot] = k;
    }
    return k;
}

static int has_profiled_launch(const td_device *dev)
{
    for (size_t i = 0; i < dev->n_launches; i++)
        if (dev->launches[i].profiled)
            return 1;
    return 0;
}

static int init_models(td_summary *s, const td_result *res, const td_arch_set *archs,
                       const char *arch_override, const td_node_set *nodes, td_error *err)
{
    s->n_models = res->n_devices;
    s->models = calloc(res->n_devices ? res->n_devices : 1, sizeof *s->models);
    s->bindings = calloc(res->n_devices ? res->n_devices : 1, sizeof *s->bindings);
    if (!s->models || !s->bindings)
        return td_fail(err, "out of memory");
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        const char *name = arch_override ? arch_override : dev->arch;
        const td_arch *arch = td_arch_find(archs, name);
        if (!arch)
            return td_fail(err, "unknown arch table \"%s\" (device %d); see `topdown list-archs`",
                           name, dev->index);
        if (td_model_init_nodes(&s->models[d], arch, nodes, err))
            return -1;
        /* A section whose launches were only timed (the profiler was busy
         * or failed there) has no counters to bind. */
        if (has_profiled_launch(dev) && td_model_bind(&s->models[d], dev, &s->bindings[d], err))
            return -1;
        if (d > 0 && s->models[d].arch != s->models[0].arch)
            s->mixed_arch = 1;
    }
    return 0;
}

int td_arch_fits(const td_result *res, const td_arch_set *archs, const char *arch,
                 td_error *err)
{
    const td_arch *table = td_arch_find(archs, arch);
    if (!table)
        return td_fail(err, "unknown arch table \"%s\"; see `topdown list-archs`", arch);
    int rc = 0;
    for (size_t d = 0; d < res->n_devices && rc == 0; d++) {
        const td_device *dev = &res->devices[d];
        if (!has_profiled_launch(dev))
            continue;
        td_model model;
        td_binding binding;
        memset(&binding, 0, sizeof binding);
        rc = td_model_init(&model, table, err) || td_model_bind(&model, dev, &binding, err)
                 ? -1 : 0;
    }
    return rc;
}

/* What td_summarize gathers per kernel (by index before sorting). */
typedef struct kernel_work {
    double *weights;       /* sum of the mean's weights */
    td_est_launch **launches; /* every launch of the kernel, in order */
    size_t *n_launches, *cap_launches;
} kernel_work;

/* Every launch of kernel k under its own table, for the estimator; cold
 * holds what made its range cold (launch and dev are set here). */
static int note_launch(td_summary *s, kernel_work *w, int k, size_t d, const td_launch *l,
                       td_est_launch cold, td_error *err)
{
    td_kernel_summary *ks = &s->kernels[k];
    if (s->models[ks->model].arch != s->models[d].arch)
        return 0; /* another table: its counters mean other things */
    if (w->n_launches[k] == w->cap_launches[k]) {
        size_t cap = w->cap_launches[k] ? 2 * w->cap_launches[k] : 16;
        td_est_launch *bigger = realloc(w->launches[k], cap * sizeof *bigger);
        if (!bigger)
            return td_fail(err, "out of memory");
        w->launches[k] = bigger;
        w->cap_launches[k] = cap;
    }
    cold.launch = l;
    cold.dev = d;
    w->launches[k][w->n_launches[k]++] = cold;
    return 0;
}

/* A full-set launch's model, into its kernel's mean. */
static void add_full_launch(td_kernel_summary *ks, kernel_work *w, int k, const td_breakdown *b,
                            const td_launch *l)
{
    /* Weight by duration; launches of no recorded duration count 1 ns
     * so a kernel is never left without a mean. */
    double weight = l->duration_ns > 0 ? l->duration_ns : 1.0;
    td_breakdown_accumulate(&ks->mean, b, weight);
    w->weights[k] += weight;
    ks->has_data = 1;
}

/* Which CUDA graph a kernel's launches came from; a profiled launch with
 * a graph id is a whole graph launch (inject.c). */
static void note_graph(td_summary *s, td_kernel_summary *ks, const td_launch *l)
{
    if (l->graph_id && l->profiled) {
        ks->graph_whole = 1;
        ks->graph = l->graph_id;
        return;
    }
    if (l->graph_id && !ks->graph_whole)
        s->graph_launches++;
    if (ks->launches == 0)
        ks->graph = l->graph_id;
    else if (ks->graph != l->graph_id)
        ks->graph = 0;
}

/* Kernels of a graph without counters of their own get the tree of their
 * graph's whole launches. */
static void inherit_graph_trees(td_summary *s, double *weights)
{
    for (size_t k = 0; k < s->n_kernels; k++) {
        td_kernel_summary *ks = &s->kernels[k];
        if (ks->has_data || !ks->graph || ks->graph_whole)
            continue;
        for (size_t w = 0; w < s->n_kernels; w++) {
            const td_kernel_summary *whole = &s->kernels[w];
            if (!whole->graph_whole || whole->graph != ks->graph || !whole->has_data)
                continue;
            ks->mean = whole->mean; /* final: a combination (weight 1) */
            ks->spread = whole->spread;
            ks->has_data = 1;
            ks->graph_level = 1;
            weights[k] = 1.0;
            break;
        }
    }
}

static int add_device_launches(td_summary *s, name_index *idx, const td_device *dev, size_t d,
                               const double *weight_ns, const unsigned char *cold_range,
                               const unsigned char *opens, kernel_work *w, td_error *err)
{
    for (size_t i = 0; i < dev->n_launches; i++) {
        const td_launch *l = &dev->launches[i];
        td_est_launch cold = {
            .opens_session = opens[i],
            .opens_context = l->profiled && i == 0,
            .duration_ns = weight_ns[i],
            .cold_level1 = cold_range[i],
        };
        int k = kernel_of_name(s, idx, l->kernel, (int)d, err);
        if (k < 0)
            return -1;
        td_kernel_summary *ks = &s->kernels[k];
        if (s->models[ks->model].arch != s->models[d].arch)
            ks->mixed_arch = 1;
        note_graph(s, ks, l);
        ks->launches++;
        ks->total_ns += l->duration_ns; /* as measured; the estimate weighs by weight_ns */
        s->launches++;
        s->total_ns += l->duration_ns;
        if (note_launch(s, w, k, d, l, cold, err))
            return -1;
        if (!l->profiled)
            continue;
        ks->profiled++;
        s->profiled++;
        if (s->models[ks->model].arch == s->models[d].arch)
            td_mem_add_launch(&ks->mem, &s->models[d], &s->bindings[d], dev, l);
        if (l->group != TD_GROUP_ALL) {
            ks->group_launches++;
            s->group_launches++;
            continue;
        }
        td_breakdown b;
        if (td_model_launch(&s->models[d], &s->bindings[d], l, &b, err))
            return -1;
        if (b.has_slots)
            add_full_launch(ks, w, k, &b, l);
    }
    return 0;
}

/* Each device section's launches, weighed as launch_weights.h says, the
 * cold ranges named (cold_ranges.h). */
static int add_launches(td_summary *s, name_index *idx, const td_result *res,
                        kernel_work *w, td_error *err)
{
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        size_t n = dev->n_launches ? dev->n_launches : 1;
        double *weight_ns = malloc(n * sizeof *weight_ns);
        unsigned char *cold = malloc(n), *opens = malloc(n);
        int rc = weight_ns && cold && opens ? 0 : td_fail(err, "out of memory");
        if (rc == 0) {
            td_launch_openers(dev->launches, dev->n_launches, opens);
            rc = td_launch_weights(dev->launches, dev->n_launches, opens, weight_ns, err);
        }
        if (rc == 0)
            rc = td_cold_ranges(dev->launches, dev->n_launches, cold, err);
        if (rc == 0)
            rc = add_device_launches(s, idx, dev, d, weight_ns, cold, opens, w, err);
        free(weight_ns);
        free(cold);
        free(opens);
        if (rc)
            return -1;
    }
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The range's own duration where its pass measured it (the elapsed cycles
 * count over the profiled range, which outlasts the launch: a launch
 * measured without replay ran 1963-3571 MHz by its activity duration on
 * an H200 whose clock stops at 1980), else the launch's duration. */
static double range_ns(const td_device *dev, const td_binding *b, const td_launch *l)
{
    int at = b->counter[TD_C_DURATION_NS];
    if (at >= 0 && td_launch_measured(dev, l, at) && l->counters[at] > 0)
        return l->counters[at];
    return l->duration_ns;
}

/* The SM clock of each profiled launch that measured the elapsed cycles,
 * over its range's duration; one above TD_SM_CLOCK_MAX_MHZ is not a clock
 * but a launch whose range outlasted the duration known, and is left out. */
static int kernel_clocks(td_summary *s, const td_result *res, const kernel_work *w, size_t k,
                         td_error *err)
{
    td_kernel_summary *ks = &s->kernels[k];
    double *mhz = malloc((w->n_launches[k] ? w->n_launches[k] : 1) * sizeof *mhz);
    if (!mhz)
        return td_fail(err, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < w->n_launches[k]; i++) {
        const td_launch *l = w->launches[k][i].launch;
        const td_device *dev = &res->devices[w->launches[k][i].dev];
        const td_binding *b = &s->bindings[w->launches[k][i].dev];
        int at = b->counter[TD_C_CYCLES_ELAPSED_MAX];
        if (!l->profiled || !l->counters || at < 0 || !td_launch_measured(dev, l, at) ||
            !(l->counters[at] > 0))
            continue;
        double ns = range_ns(dev, b, l);
        if (!(ns > 0))
            continue;
        double clock = l->counters[at] / ns * 1000.0;
        if (clock > TD_SM_CLOCK_MAX_MHZ)
            ks->clocks_unreal++;
        else
            mhz[n++] = clock;
    }
    if (n) {
        qsort(mhz, n, sizeof *mhz, by_value);
        ks->clocks = n;
        ks->clock_min_mhz = mhz[0];
        ks->clock_max_mhz = mhz[n - 1];
        ks->clock_median_mhz = n % 2 ? mhz[n / 2] : 0.5 * (mhz[n / 2 - 1] + mhz[n / 2]);
    }
    free(mhz);
    return 0;
}

/* Whether the run's reference is the app's own run, its replays only
 * coverage (replay mode auto): a kernel measured by replay alone then
 * carries the replay-only term (TD_EST_REPLAY_ONLY). Mode kernel is
 * ncu's, judged under ncu's conditions; files without a mode keep the
 * spread they had. */
static int natural_reference(const td_result *res)
{
    return res->replay_mode && strcmp(res->replay_mode, "auto") == 0;
}

/* A kernel whose launches were not all measured with the full set gets
 * the estimator's tree and spread (levels/estimate.h); one measured whole
 * keeps the duration-weighted mean of its launches' trees, and the spread
 * of the counters alone: nothing was left unmeasured. Either, measured by
 * replay alone against a natural reference, adds the replay-only term. */
static void add_replay_only(const td_result *res, td_kernel_summary *ks, double weight)
{
    if (ks->group_launches > 0 || !natural_reference(res))
        return;
    /* the floor is a least spread, not a term: added to only where above it */
    for (int n = 0; n < TD_TREE_MAX; n++) {
        double base = ks->spread.value[n] > TD_EST_FLOOR ? ks->spread.value[n] : 0.0;
        ks->spread.value[n] =
            fmax(TD_EST_FLOOR, hypot(base, td_est_replay_only(ks->mean.value[n] / weight)));
    }
}

static int finish_estimates(td_summary *s, const td_result *res, kernel_work *w,
                            td_error *err)
{
    for (size_t k = 0; k < s->n_kernels; k++) {
        td_kernel_summary *ks = &s->kernels[k];
        if (ks->profiled == 0)
            continue;
        if (kernel_clocks(s, res, w, k, err))
            return -1;
        if (ks->group_launches == 0 && ks->profiled == ks->launches) {
            /* measured whole: no sampling error, only the counters' own
             * repeatability (TD_EST_FLOOR) */
            for (int n = 0; n < TD_TREE_MAX; n++)
                ks->spread.value[n] = TD_EST_FLOOR;
            /* the mean is still a sum of weighted trees here */
            add_replay_only(res, ks, w->weights[k] > 0 ? w->weights[k] : 1.0);
            continue;
        }
        td_estimate est;
        if (td_estimate_kernel(w->launches[k], w->n_launches[k], s->models, s->bindings,
                               res->devices, (size_t)ks->model, &est, err))
            return -1;
        ks->multiplexed = ks->group_launches > 0;
        ks->sampled = 1;
        ks->stalls_missing = est.has_level1 ? est.reasons_total - est.reasons_measured
                                            : est.reasons_total + 1;
        ks->has_data = est.has_level1;
        w->weights[k] = est.has_level1 ? 1.0 : 0.0;
        s->incomplete += !est.has_level1 || !est.split_measured;
        if (!est.has_level1) {
            memset(&ks->mean, 0, sizeof ks->mean);
            continue;
        }
        ks->mean = est.mean;
        ks->spread = est.spread;
        add_replay_only(res, ks, 1.0);
        ks->conditions = est.conditions;
        ks->level1_elsewhere = est.level1_elsewhere;
        ks->level1_other_kind = est.level1_other_kind;
    }
    return 0;
}

static int by_time_desc(const void *a, const void *b)
{
    const td_kernel_summary *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The deepest fixed level every device's table fills. */
static int min_model_depth(const td_summary *s)
{
    int depth = td_backend_max_depth();
    for (size_t m = 0; m < s->n_models; m++)
        if (s->models[m].depth < depth)
            depth = s->models[m].depth;
    return depth;
}

/* Each unit's throughput for the app: its kernels' (where measured)
 * weighted by their time. */
static void app_throughput(td_summary *s)
{
    const td_arch_memory *mem = &td_summary_model(s)->arch->memory;
    for (size_t u = 0; u < TD_MEM_MAX_UNITS; u++) {
        double sum = 0, time = 0;
        for (size_t k = 0; u < mem->n_units && k < s->n_kernels; k++) {
            const td_kernel_summary *ks = &s->kernels[k];
            double pct = td_mem_unit_pct(mem, &ks->mem, u);
            if (isnan(pct) || ks->mixed_arch)
                continue;
            sum += pct * ks->total_ns;
            time += ks->total_ns;
        }
        s->app_throughput[u] = time > 0 ? sum / time : NAN;
    }
}

static void finish_means(td_summary *s, const double *weights)
{
    unsigned all_split = ~0u; /* the level-5 sources every kernel with data has */
    for (size_t k = 0; k < s->n_kernels; k++) {
        td_kernel_summary *ks = &s->kernels[k];
        if (!ks->has_data)
            continue;
        td_breakdown_scale(&ks->mean, 1.0 / weights[k]);
        td_mem_split(&s->models[ks->model], &ks->mem, &ks->mean, &ks->spread);
        /* Stall i means a different reason under each table, and a legacy
         * table has no level 3: keep only what every table of the mix shares. */
        ks->spread.n_stalls = ks->mean.n_stalls;
        ks->spread.has_slots = ks->mean.has_slots;
        if (ks->mixed_arch) {
            td_breakdown_keep_shared(&s->models[ks->model], &ks->mean, min_model_depth(s));
            td_breakdown_keep_shared(&s->models[ks->model], &ks->spread, min_model_depth(s));
        }
        all_split &= ks->mean.sources;
        /* Unprofiled launches count with the kernel's mean (section 6). */
        double w = ks->total_ns > 0 ? ks->total_ns : weights[k];
        td_breakdown_accumulate(&s->app, &ks->mean, w);
        td_spread_accumulate_sq(&s->app_spread, &ks->mean, &ks->spread, w);
        td_spread_mark(&s->models[ks->model], &ks->mean, &ks->spread);
        s->covered_ns += w;
        s->app_has_data = 1;
    }
    if (s->app_has_data) {
        td_breakdown_scale(&s->app, 1.0 / s->covered_ns);
        td_breakdown_scale(&s->app_spread, 1.0 / (s->covered_ns * s->covered_ns));
        td_spread_sqrt(&s->app_spread);
        /* a kernel without a source would pull it down */
        s->app.sources &= all_split;
        s->app_spread.n_stalls = s->app.n_stalls;
        s->app_spread.sources = s->app.sources;
        s->app_spread.has_slots = s->app.has_slots;
    }
    app_throughput(s);
    if (s->mixed_arch) {
        td_breakdown_keep_shared(td_summary_model(s), &s->app, min_model_depth(s));
        td_breakdown_keep_shared(td_summary_model(s), &s->app_spread, min_model_depth(s));
    }
    if (s->app_has_data)
        td_spread_mark(td_summary_model(s), &s->app, &s->app_spread);
    td_model_judge(td_summary_model(s), &s->app, &s->app_verdict);
    for (size_t k = 0; k < s->n_kernels; k++)
        td_model_judge(&s->models[s->kernels[k].model], &s->kernels[k].mean,
                       &s->kernels[k].verdict);
    qsort(s->kernels, s->n_kernels, sizeof *s->kernels, by_time_desc);
}

/* Each kernel's launch statistics (levels/launch_stats.h), in its final place. */
static int launch_stats(td_summary *s, const td_result *res, td_error *err)
{
    const char **names = malloc((s->n_kernels ? s->n_kernels : 1) * sizeof *names);
    td_launch_stats *stats = malloc((s->n_kernels ? s->n_kernels : 1) * sizeof *stats);
    int rc = names && stats ? 0 : td_fail(err, "out of memory");
    for (size_t k = 0; rc == 0 && k < s->n_kernels; k++)
        names[k] = s->kernels[k].name;
    if (rc == 0)
        rc = td_launch_stats_of(res, s->models, s->bindings, names, s->n_kernels, stats, err);
    for (size_t k = 0; rc == 0 && k < s->n_kernels; k++)
        s->kernels[k].launch = stats[k];
    free(names);
    free(stats);
    return rc;
}

static void kernel_work_free(kernel_work *w, size_t n_kernels)
{
    for (size_t k = 0; w->launches && k < n_kernels; k++)
        free(w->launches[k]);
    free(w->launches);
    free(w->n_launches);
    free(w->cap_launches);
    free(w->weights);
}

int td_summarize(const td_result *res, const td_arch_set *archs,
                 const char *arch_override, td_summary *out, td_error *err)
{
    return td_summarize_nodes(res, archs, arch_override, td_nodes_builtin(), out, err);
}

int td_summarize_nodes(const td_result *res, const td_arch_set *archs,
                       const char *arch_override, const td_node_set *nodes,
                       td_summary *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    if (res->n_devices == 0)
        return td_fail(err, "the result holds no device section: the app launched no kernel on a GPU");
    name_index idx = {0};
    kernel_work w = {0};
    size_t total_launches = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        total_launches += res->devices[d].n_launches;
    if (total_launches == 0)
        return td_fail(err, "the result holds no kernel launch: the app launched no kernel (or the filters matched none)");
    int rc = init_models(out, res, archs, arch_override, nodes, err);
    if (rc == 0) {
        w.weights = calloc(total_launches, sizeof *w.weights);
        w.launches = calloc(total_launches, sizeof *w.launches);
        w.n_launches = calloc(total_launches, sizeof *w.n_launches);
        w.cap_launches = calloc(total_launches, sizeof *w.cap_launches);
        rc = w.weights && w.launches && w.n_launches && w.cap_launches
                 ? add_launches(out, &idx, res, &w, err)
                 : td_fail(err, "out of memory");
    }
    if (rc == 0)
        rc = finish_estimates(out, res, &w, err);
    if (rc == 0)
        inherit_graph_trees(out, w.weights);
    if (rc == 0)
        finish_means(out, w.weights);
    if (rc == 0)
        rc = launch_stats(out, res, err);
    kernel_work_free(&w, out->n_kernels);
    free(idx.slots);
    if (rc)
        td_summary_free(out);
    return rc;
}

int td_summary_launch(const td_summary *s, const td_result *res, size_t dev,
                      size_t launch, td_breakdown *out, td_error *err)
{
    if (dev >= res->n_devices || launch >= res->devices[dev].n_launches)
        return td_fail(err, "no launch %zu on device section %zu", launch, dev);
    /* One counter group alone holds no tree: it counts only in its
     * kernel's combination (levels/combine.h). */
    if (res->devices[dev].launches[launch].group != TD_GROUP_ALL) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return td_model_launch(&s->models[dev], &s->bindings[dev],
                           &res->devices[dev].launches[launch], out, err);
}

const td_model *td_summary_model(const td_summary *s)
{
    return s->n_models ? &s->models[0] : NULL;
}

void td_summary_free(td_summary *s)
{
    if (!s)
        return;
    free(s->kernels);
    free(s->models);
    free(s->bindings);
    memset(s, 0, sizeof *s);
}
