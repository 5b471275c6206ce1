#include "levels/attribute.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/result/pcsamp.h"
#include "metrics/result/pm_samples.h"

/* The counters a PM sample gives a launch, in this order. */
enum { PM_CYCLES, PM_INST, PM_ISSUED, PM_THREAD, PM_ROLES };
static const td_counter pm_role_counter[PM_ROLES] = {
    TD_C_CYCLES_ACTIVE, TD_C_INST_EXECUTED, TD_C_INST_ISSUED, TD_C_THREAD_INST_EXECUTED};

typedef struct overlap {
    size_t sample, launch;
    double ns;
} overlap;

typedef struct work {
    td_device *dev;
    const td_arch *arch;
    const td_pm_samples *pm;
    size_t *kernel_of;     /* per launch: kernel id */
    size_t n_kernels;
    overlap *ov;           /* by sample, then launch */
    size_t n_ov, cap_ov;
    size_t *first_ov;      /* per sample: its first overlap; n_ov where none */
    size_t *n_ov_of;       /* per sample: its overlaps */
    double *covered;       /* per launch: ns inside samples */
    int col[PM_ROLES];     /* PM column of each role, -1: none */
    /* the memory section's throughput counters the samples carry */
    const char *mem_name[TD_MEM_MAX_METRICS];
    int mem_col[TD_MEM_MAX_METRICS];
    int mem_kind[TD_MEM_MAX_METRICS]; /* MEM_WORK, MEM_PEAK, MEM_CYCLES */
    size_t n_mem;
} work;

/* How a throughput counter goes to the launches of a sample: work like
 * the level-1 counts (overlap x fitted rate); a peak per cycle whole to
 * each (a constant of the unit); elapsed cycles by overlap time alone
 * (they run on through idle time and through every concurrent kernel, so
 * a kernel's are those of its own time). */
enum { MEM_WORK, MEM_PEAK, MEM_CYCLES };

/* ---- kernels and overlaps ------------------------------------------------- */

static const td_launch *sort_launches; /* qsort has no context argument */

static int by_kernel_name(const void *a, const void *b)
{
    /* interned: one pointer per name, compared as numbers */
    uintptr_t x = (uintptr_t)sort_launches[*(const size_t *)a].kernel;
    uintptr_t y = (uintptr_t)sort_launches[*(const size_t *)b].kernel;
    return (x > y) - (x < y);
}

static int number_kernels(work *w, td_error *err)
{
    size_t n = w->dev->n_launches;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    w->kernel_of = malloc((n ? n : 1) * sizeof *w->kernel_of);
    if (!order || !w->kernel_of) {
        free(order);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_launches = w->dev->launches;
    qsort(order, n, sizeof *order, by_kernel_name);
    w->n_kernels = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && w->dev->launches[order[i]].kernel != w->dev->launches[order[i - 1]].kernel)
            w->n_kernels++;
        w->kernel_of[order[i]] = w->n_kernels;
    }
    w->n_kernels += n > 0;
    free(order);
    return 0;
}

static int add_overlap(work *w, size_t sample, size_t launch, double ns, td_error *err)
{
    if (w->n_ov == w->cap_ov) {
        size_t cap = w->cap_ov ? 2 * w->cap_ov : 1024;
        overlap *grown = realloc(w->ov, cap * sizeof *grown);
        if (!grown)
            return td_fail(err, "out of memory");
        w->ov = grown;
        w->cap_ov = cap;
    }
    w->ov[w->n_ov++] = (overlap){sample, launch, ns};
    return 0;
}

/* The first sample whose end is past t (samples are in time order and do
 * not overlap, so their ends are sorted too). */
static size_t first_ending_after(const td_pm_samples *pm, uint64_t t)
{
    size_t lo = 0, hi = pm->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pm->end_ns[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int by_sample(const void *a, const void *b)
{
    const overlap *x = a, *y = b;
    if (x->sample != y->sample)
        return (x->sample > y->sample) - (x->sample < y->sample);
    return (x->launch > y->launch) - (x->launch < y->launch);
}

static int find_overlaps(work *w, td_error *err)
{
    const td_pm_samples *pm = w->pm;
    size_t n = w->dev->n_launches;
    for (size_t s = 1; s < pm->n; s++)
        if (pm->start_ns[s] < pm->end_ns[s - 1] || pm->end_ns[s] < pm->start_ns[s])
            return td_fail(err, "device %d: PM sample %zu overlaps the one before it or ends "
                           "before it starts; samples must be in time order",
                           w->dev->index, s);
    w->covered = calloc(n ? n : 1, sizeof *w->covered);
    w->first_ov = malloc((pm->n ? pm->n : 1) * sizeof *w->first_ov);
    w->n_ov_of = calloc(pm->n ? pm->n : 1, sizeof *w->n_ov_of);
    if (!w->covered || !w->first_ov || !w->n_ov_of)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const td_launch *l = &w->dev->launches[i];
        if (l->start_ns == 0 || !(l->duration_ns > 0))
            continue;
        uint64_t a = l->start_ns, b = l->start_ns + (uint64_t)llround(l->duration_ns);
        for (size_t s = first_ending_after(pm, a); s < pm->n && pm->start_ns[s] < b; s++) {
            uint64_t lo = pm->start_ns[s] > a ? pm->start_ns[s] : a;
            uint64_t hi = pm->end_ns[s] < b ? pm->end_ns[s] : b;
            if (hi <= lo)
                continue;
            if (add_overlap(w, s, i, (double)(hi - lo), err))
                return -1;
            w->covered[i] += (double)(hi - lo);
        }
    }
    qsort(w->ov, w->n_ov, sizeof *w->ov, by_sample);
    for (size_t s = 0; s < pm->n; s++)
        w->first_ov[s] = w->n_ov;
    for (size_t o = w->n_ov; o-- > 0;) {
        w->first_ov[w->ov[o].sample] = o;
        w->n_ov_of[w->ov[o].sample]++;
    }
    return 0;
}

/* ---- the fit ------------------------------------------------------------------ */

void td_attrib_nnls(const double *G, const double *b, size_t k, double *x)
{
    for (int sweep = 0; sweep < 2000; sweep++) {
        double moved = 0, largest = 0;
        for (size_t i = 0; i < k; i++) {
            double gii = G[i * k + i];
            if (!(gii > 0))
                continue;
            double r = b[i];
            for (size_t j = 0; j < k; j++)
                r -= G[i * k + j] * x[j];
            double next = x[i] + r / gii;
            if (next < 0)
                next = 0;
            moved = fmax(moved, fabs(next - x[i]));
            x[i] = next;
            largest = fmax(largest, next);
        }
        if (moved <= 1e-12 * largest || moved == 0)
            return;
    }
}

/* Each kernel's overlap ns in sample s, into per[] (kernel id, ns): at most
 * cap kernels, the count returned. */
typedef struct kernel_ns {
    size_t kernel;
    double ns;
} kernel_ns;

static size_t kernels_in(const work *w, size_t s, kernel_ns *per, size_t cap)
{
    size_t n = 0;
    for (size_t o = w->first_ov[s]; o < w->first_ov[s] + w->n_ov_of[s]; o++) {
        size_t k = w->kernel_of[w->ov[o].launch], j = 0;
        while (j < n && per[j].kernel != k)
            j++;
        if (j == n) {
            if (n == cap)
                continue;
            per[n++] = (kernel_ns){k, 0};
        }
        per[j].ns += w->ov[o].ns;
    }
    return n;
}

#define MAX_KERNELS_IN_SAMPLE 64

/* Marks the kernels that share some sample (fit[k] = its index among them,
 * SIZE_MAX otherwise) and those alone in some sample (holding at least
 * TD_ATTRIB_ALONE_SHARE of its launch time); the count that share. */
static size_t mark_shared(const work *w, size_t *fit, int *alone)
{
    kernel_ns per[MAX_KERNELS_IN_SAMPLE];
    for (size_t k = 0; k < w->n_kernels; k++)
        fit[k] = SIZE_MAX;
    size_t n_fit = 0;
    for (size_t s = 0; s < w->pm->n; s++) {
        size_t n = kernels_in(w, s, per, MAX_KERNELS_IN_SAMPLE);
        double total = 0;
        for (size_t j = 0; j < n; j++)
            total += per[j].ns;
        for (size_t j = 0; j < n; j++) {
            if (per[j].ns >= TD_ATTRIB_ALONE_SHARE * total)
                alone[per[j].kernel] = 1;
            if (n > 1 && fit[per[j].kernel] == SIZE_MAX)
                fit[per[j].kernel] = n_fit++;
        }
    }
    return n_fit;
}

/* The normal matrix of the fit, the same for every counter: the kernels
 * that share samples (fit[k], n of them), their overlaps' products (G) and
 * each one's overlap in all (ns). n is 0 where nothing is fitted (no
 * shared sample, or more than TD_ATTRIB_MAX_FIT_KERNELS kernels: rate 1
 * for all, shared samples split by overlap time). */
typedef struct fit_system {
    size_t n;
    double *G, *ns;
} fit_system;

static int fit_prepare(const work *w, const size_t *fit, size_t n_fit, fit_system *fs,
                       td_error *err)
{
    memset(fs, 0, sizeof *fs);
    if (n_fit == 0 || n_fit > TD_ATTRIB_MAX_FIT_KERNELS)
        return 0;
    fs->G = calloc(n_fit * n_fit, sizeof *fs->G);
    fs->ns = calloc(n_fit, sizeof *fs->ns);
    if (!fs->G || !fs->ns) {
        free(fs->G), free(fs->ns);
        return td_fail(err, "out of memory");
    }
    fs->n = n_fit;
    kernel_ns per[MAX_KERNELS_IN_SAMPLE];
    for (size_t s = 0; s < w->pm->n; s++) {
        size_t n = kernels_in(w, s, per, MAX_KERNELS_IN_SAMPLE);
        for (size_t a = 0; a < n; a++) {
            size_t i = fit[per[a].kernel];
            if (i == SIZE_MAX)
                continue;
            fs->ns[i] += per[a].ns;
            for (size_t c = 0; c < n; c++) {
                size_t j = fit[per[c].kernel];
                if (j != SIZE_MAX)
                    fs->G[i * n_fit + j] += per[a].ns * per[c].ns;
            }
        }
    }
    return 0;
}

/* Rates (counts per ns of overlap) of the kernels that share samples, for
 * PM column col, into rate[] (indexed by kernel; 1 for the others, whose
 * samples have no other kernel to split with). */
static int fit_rates(const work *w, const size_t *fit, const fit_system *fs, int col,
                     double *rate, td_error *err)
{
    for (size_t k = 0; k < w->n_kernels; k++)
        rate[k] = 1;
    if (fs->n == 0)
        return 0;
    double *b = calloc(fs->n, sizeof *b), *x = calloc(fs->n, sizeof *x);
    if (!b || !x) {
        free(b), free(x);
        return td_fail(err, "out of memory");
    }
    kernel_ns per[MAX_KERNELS_IN_SAMPLE];
    for (size_t s = 0; s < w->pm->n; s++) {
        size_t n = kernels_in(w, s, per, MAX_KERNELS_IN_SAMPLE);
        double v = td_pm_row(w->pm, s)[col];
        for (size_t a = 0; a < n; a++) {
            size_t i = fit[per[a].kernel];
            if (i == SIZE_MAX)
                continue;
            b[i] += per[a].ns * v;
            x[i] += v; /* the start: counts over overlap, as if alone */
        }
    }
    for (size_t i = 0; i < fs->n; i++)
        x[i] = fs->ns[i] > 0 ? x[i] / fs->ns[i] : 0;
    td_attrib_nnls(fs->G, b, fs->n, x);
    for (size_t k = 0; k < w->n_kernels; k++)
        if (fit[k] != SIZE_MAX)
            rate[k] = x[fit[k]];
    free(b), free(x);
    return 0;
}

/* Sample s's counts of column col split between its launches in
 * proportion to overlap x rate (by overlap alone where every rate is 0),
 * added to value[launch]. */
static void split_sample(const work *w, size_t s, int col, const double *rate, double *value)
{
    size_t first = w->first_ov[s], n = w->n_ov_of[s];
    double v = td_pm_row(w->pm, s)[col], weighted = 0, time = 0;
    for (size_t o = first; o < first + n; o++) {
        weighted += w->ov[o].ns * rate[w->kernel_of[w->ov[o].launch]];
        time += w->ov[o].ns;
    }
    for (size_t o = first; o < first + n; o++) {
        const overlap *x = &w->ov[o];
        double share = weighted > 0 ? x->ns * rate[w->kernel_of[x->launch]] / weighted
                                    : x->ns / time;
        value[x->launch] += v * share;
    }
}

/* ---- filling the launches ---------------------------------------------------- */

/* A memory counter the samples carry, once, unless a role has it. */
static void add_memory_column(work *w, const char *name, int kind)
{
    int col = td_pm_metric_index(w->pm, name);
    for (int r = 0; r < PM_ROLES; r++)
        if (col < 0 || w->col[r] == col)
            return;
    for (size_t i = 0; i < w->n_mem; i++)
        if (w->mem_col[i] == col)
            return;
    if (w->n_mem >= TD_MEM_MAX_METRICS)
        return;
    w->mem_name[w->n_mem] = name;
    w->mem_col[w->n_mem] = col;
    w->mem_kind[w->n_mem++] = kind;
}

/* The throughput units' work, peak and cycles (levels/memory.h): a
 * unit missing one of them is left out by the model. */
static void add_memory_columns(work *w)
{
    const td_arch_memory *mem = &w->arch->memory;
    w->n_mem = 0;
    for (size_t u = 0; u < mem->n_units; u++) {
        for (size_t k = 0; k < mem->units[u].n_work; k++)
            add_memory_column(w, mem->units[u].work[k], MEM_WORK);
        add_memory_column(w, mem->units[u].peak, MEM_PEAK);
        add_memory_column(w, mem->units[u].cycles, MEM_CYCLES);
    }
}

static int pm_columns(work *w, td_error *err)
{
    for (int r = 0; r < PM_ROLES; r++) {
        const char *name = w->arch->counter[pm_role_counter[r]];
        w->col[r] = name ? td_pm_metric_index(w->pm, name) : -1;
    }
    if (w->col[PM_THREAD] < 0 && w->arch->pm_thread_inst)
        w->col[PM_THREAD] = td_pm_metric_index(w->pm, w->arch->pm_thread_inst);
    if (w->col[PM_CYCLES] < 0 || w->col[PM_INST] < 0)
        return td_fail(err, "device %d: the PM samples lack active cycles or executed "
                       "instructions; no launch can be given counters", w->dev->index);
    add_memory_columns(w);
    return 0;
}

/* The arch table's stall of a PC-sampling reason: the one of the same
 * name, else the first of the reason's node; -1 when the reason is no
 * stall (selected, not_selected, counts). */
static int stall_of_pc_reason(const td_arch *arch, const char *cupti_name)
{
    char reason[128];
    if (td_pcsamp_short_reason(cupti_name, reason, sizeof reason) != 1)
        return -1;
    const td_pc_map *map = td_arch_pc_reason(arch, reason);
    if (!map || !map->node)
        return -1;
    int first = -1;
    for (size_t i = 0; i < arch->n_stalls; i++) {
        if (strcmp(arch->stalls[i].reason, reason) == 0)
            return (int)i;
        if (first < 0 && strcmp(arch->stalls[i].node, map->node) == 0)
            first = (int)i;
    }
    return first;
}

/* Per kernel, its PC samples of each stall (n_kernels x n_stalls). */
static int pc_counts(const work *w, double *counts, td_error *err)
{
    const td_pcsamp *pc = w->dev->pcsamp;
    if (!pc || pc->n_functions == 0)
        return 0;
    int *stall = malloc((pc->n_reasons ? pc->n_reasons : 1) * sizeof *stall);
    size_t *kernel = malloc(pc->n_functions * sizeof *kernel);
    if (!stall || !kernel) {
        free(stall), free(kernel);
        return td_fail(err, "out of memory");
    }
    for (size_t r = 0; r < pc->n_reasons; r++)
        stall[r] = stall_of_pc_reason(w->arch, pc->reasons[r]);
    for (size_t f = 0; f < pc->n_functions; f++) {
        kernel[f] = SIZE_MAX;
        for (size_t i = 0; i < w->dev->n_launches && kernel[f] == SIZE_MAX; i++) {
            const td_launch *l = &w->dev->launches[i];
            const char *name = l->mangled ? l->mangled : l->kernel;
            if (strcmp(name, pc->functions[f]) == 0 || strcmp(l->kernel, pc->functions[f]) == 0)
                kernel[f] = w->kernel_of[i];
        }
    }
    size_t n_stalls = w->arch->n_stalls;
    for (size_t i = 0; i < pc->n_records; i++) {
        const td_pc_record *rec = &pc->records[i];
        size_t k = kernel[rec->function];
        if (k == SIZE_MAX)
            continue;
        for (size_t r = 0; r < rec->n_counts && r < pc->n_reasons; r++)
            if (stall[r] >= 0)
                counts[k * n_stalls + (size_t)stall[r]] += (double)rec->counts[r];
    }
    free(stall), free(kernel);
    return 0;
}

/* The model's metrics and the memory counters the samples carry (the
 * others would read 0 in every launch). */
static int set_metrics(work *w, td_error *err)
{
    const char *names[TD_COUNTER_COUNT + TD_MAX_STALLS + TD_MEM_MAX_METRICS];
    size_t n = td_arch_model_metrics(w->arch, names, TD_COUNTER_COUNT + TD_MAX_STALLS);
    size_t n_model = n;
    for (size_t i = 0; i < w->n_mem; i++) {
        int known = 0;
        for (size_t j = 0; j < n_model; j++)
            known |= strcmp(names[j], w->mem_name[i]) == 0;
        if (!known)
            names[n++] = w->mem_name[i];
    }
    if (td_device_set_metrics(w->dev, names, n, err))
        return -1;
    td_counter_groups_free(w->dev->groups, w->dev->n_groups);
    w->dev->groups = NULL;
    w->dev->n_groups = 0;
    return 0;
}

/* Sample s's elapsed cycles of column col shared by overlap time: each
 * launch gets those of its own time in the sample. */
static void split_by_time(const work *w, size_t s, int col, double *value)
{
    double v = td_pm_row(w->pm, s)[col];
    double span = (double)(w->pm->end_ns[s] - w->pm->start_ns[s]);
    if (!(span > 0) || !isfinite(v))
        return;
    for (size_t o = w->first_ov[s]; o < w->first_ov[s] + w->n_ov_of[s]; o++)
        value[w->ov[o].launch] += v * w->ov[o].ns / span;
}

/* A peak per cycle: the first sample's value (a constant of the unit). */
static void set_constant(const work *w, int col, double *value, size_t n)
{
    double v = NAN;
    for (size_t s = 0; s < w->pm->n && !isfinite(v); s++)
        v = td_pm_row(w->pm, s)[col];
    for (size_t i = 0; i < n; i++)
        value[i] = isfinite(v) ? v : 0;
}

/* The memory counters of every launch, by their kind. */
static int memory_values(const work *w, const size_t *fit, const fit_system *fs, double *rate,
                         double **value, td_error *err)
{
    size_t n = w->dev->n_launches;
    for (size_t m = 0; m < w->n_mem; m++) {
        if (!(value[m] = calloc(n ? n : 1, sizeof *value[m])))
            return td_fail(err, "out of memory");
        int col = w->mem_col[m];
        if (w->mem_kind[m] == MEM_PEAK) {
            set_constant(w, col, value[m], n);
            continue;
        }
        if (w->mem_kind[m] == MEM_WORK && fit_rates(w, fit, fs, col, rate, err))
            return -1;
        for (size_t s = 0; s < w->pm->n; s++) {
            if (w->mem_kind[m] == MEM_WORK)
                split_sample(w, s, col, rate, value[m]);
            else
                split_by_time(w, s, col, value[m]);
        }
    }
    return 0;
}

static void fill_launch(const work *w, size_t i, double *const value[PM_ROLES],
                        double *const *mem_value, const double *pc, td_attrib_stats *st)
{
    td_device *dev = w->dev;
    td_launch *l = &dev->launches[i];
    const td_arch *arch = w->arch;
    int at;
    /* Stand-ins where PM sampling could not read a counter, leaving its
     * node at 0 (as pm_model.c does): issued = executed (Replay in the
     * stalled slots), every thread active (Branch in Retire). */
    double stand_in[PM_ROLES] = {0, 0, value[PM_INST][i], 32.0 * value[PM_INST][i]};
    for (int r = 0; r < PM_ROLES; r++)
        if ((at = td_device_metric_index(dev, arch->counter[pm_role_counter[r]])) >= 0)
            l->counters[at] = value[r] ? value[r][i] : stand_in[r];
    if ((at = td_device_metric_index(dev, arch->counter[TD_C_DURATION_NS])) >= 0)
        l->counters[at] = l->duration_ns;
    for (size_t m = 0; m < w->n_mem; m++)
        if ((at = td_device_metric_index(dev, w->mem_name[m])) >= 0)
            l->counters[at] = mem_value[m][i];
    const double *counts = pc + w->kernel_of[i] * arch->n_stalls;
    double total = 0;
    for (size_t s = 0; s < arch->n_stalls; s++)
        total += counts[s];
    double slots = value[PM_CYCLES][i] * arch->ipc_max;
    for (size_t s = 0; total > 0 && s < arch->n_stalls; s++)
        if ((at = td_device_metric_index(dev, arch->stalls[s].metric)) >= 0)
            l->counters[at] = slots * counts[s] / total;
    l->profiled = 1;
    l->group = TD_GROUP_ALL;
    st->sampled++;
}

static int fill(work *w, td_attrib_stats *st, td_error *err)
{
    size_t n = w->dev->n_launches, K = w->n_kernels;
    size_t *fit = malloc((K ? K : 1) * sizeof *fit);
    int *alone = calloc(K ? K : 1, sizeof *alone);
    double *rate = malloc((K ? K : 1) * sizeof *rate);
    double *pc = calloc((K ? K : 1) * (w->arch->n_stalls ? w->arch->n_stalls : 1), sizeof *pc);
    double *value[PM_ROLES] = {NULL}, *mem_value[TD_MEM_MAX_METRICS] = {NULL};
    int rc = !fit || !alone || !rate || !pc ? td_fail(err, "out of memory") : 0;
    size_t n_fit = rc ? 0 : mark_shared(w, fit, alone);
    fit_system fs = {0};
    if (rc == 0)
        rc = fit_prepare(w, fit, n_fit, &fs, err);
    for (int r = 0; rc == 0 && r < PM_ROLES; r++) {
        if (w->col[r] < 0)
            continue;
        if (!(value[r] = calloc(n ? n : 1, sizeof *value[r]))) {
            rc = td_fail(err, "out of memory");
            break;
        }
        rc = fit_rates(w, fit, &fs, w->col[r], rate, err);
        for (size_t s = 0; rc == 0 && s < w->pm->n; s++)
            split_sample(w, s, w->col[r], rate, value[r]);
    }
    if (rc == 0)
        rc = memory_values(w, fit, &fs, rate, mem_value, err);
    free(fs.G), free(fs.ns);
    if (rc == 0)
        rc = pc_counts(w, pc, err) || set_metrics(w, err);
    int *has_pc = rc == 0 ? calloc(K ? K : 1, sizeof *has_pc) : NULL;
    int *seen = rc == 0 ? calloc(K ? K : 1, sizeof *seen) : NULL;
    int *kernel_covered = rc == 0 ? calloc(K ? K : 1, sizeof *kernel_covered) : NULL;
    if (rc == 0 && (!has_pc || !seen || !kernel_covered))
        rc = td_fail(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        kernel_covered[w->kernel_of[i]] |= w->covered[i] > 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        td_launch *l = &w->dev->launches[i];
        st->launch_ns += l->duration_ns > 0 ? l->duration_ns : 0;
        if (!(w->covered[i] > 0))
            continue;
        if (!alone[w->kernel_of[i]]) {
            /* never alone in a sample: its counters would be its company's */
            st->unseparated_ns += l->duration_ns;
            continue;
        }
        st->covered_ns += w->covered[i];
        if (!(l->counters = calloc(w->dev->n_metrics, sizeof *l->counters))) {
            rc = td_fail(err, "out of memory");
            break;
        }
        fill_launch(w, i, value, mem_value, pc, st);
        size_t k = w->kernel_of[i];
        seen[k] = 1;
        for (size_t s = 0; s < w->arch->n_stalls; s++)
            has_pc[k] |= pc[k * w->arch->n_stalls + s] > 0;
    }
    for (size_t k = 0; rc == 0 && k < K; k++) {
        st->kernels += seen[k];
        st->unseparated += !seen[k] && kernel_covered[k];
        st->pc_kernels += seen[k] && has_pc[k];
    }
    const char *thread = w->arch->counter[TD_C_THREAD_INST_EXECUTED];
    st->thread_inst = w->col[PM_THREAD] < 0 ? 0
                      : thread && td_pm_metric_index(w->pm, thread) >= 0 ? 2 : 1;
    free(has_pc), free(seen), free(kernel_covered);
    for (int r = 0; r < PM_ROLES; r++)
        free(value[r]);
    for (size_t m = 0; m < w->n_mem; m++)
        free(mem_value[m]);
    free(fit), free(alone), free(rate), free(pc);
    return rc;
}

/* Share of the samples' active cycles that fell on launches. */
static double cycles_kept(const work *w)
{
    double all = 0, kept = 0;
    for (size_t s = 0; s < w->pm->n; s++) {
        double v = td_pm_row(w->pm, s)[w->col[PM_CYCLES]];
        all += v;
        if (w->n_ov_of[s])
            kept += v;
    }
    return all > 0 ? kept / all : 0;
}

int td_attribute_device(td_device *dev, const td_arch *arch, td_attrib_stats *stats,
                        td_error *err)
{
    memset(stats, 0, sizeof *stats);
    stats->launches = dev->n_launches;
    if (!dev->pm)
        return td_fail(err, "device %d has no PM samples to attribute", dev->index);
    for (size_t i = 0; i < dev->n_launches; i++)
        if (dev->launches[i].counters)
            return td_fail(err, "device %d: launch %zu already has counters; time-sampled "
                           "counters are only given to launches that have none",
                           dev->index, i);
    work w = {.dev = dev, .arch = arch, .pm = dev->pm};
    int rc = pm_columns(&w, err) || number_kernels(&w, err) || find_overlaps(&w, err) ||
             fill(&w, stats, err);
    if (rc == 0)
        stats->samples_kept = cycles_kept(&w);
    free(w.kernel_of), free(w.ov), free(w.first_ov), free(w.n_ov_of), free(w.covered);
    return rc ? -1 : 0;
}
