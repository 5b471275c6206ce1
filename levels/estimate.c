#include "levels/estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "levels/spread.h"
#include "metrics/arch/groups.h"
#include "metrics/xorshift.h"

#define MAX_L1 (TD_MAX_NODES + 3) /* formula nodes, then ipc, ipc_issued, warp_eff */
#define BOOT_CAP 4000             /* launches a pool resamples from at most */
#define MIN_CELL 3 /* launches a stratum needs of a quantity to stand alone; fewer
                      vary too much, and the stratum borrows its whole class */

/* What one profiled launch says, per pass. */
typedef struct sample {
    size_t stratum;
    size_t pool;     /* 0: the full set, 1 + g: counter group g */
    double weight;   /* its duration */
    int has_l1;
    double l1[MAX_L1];
    double *reason;  /* n_stalls values, NAN where its pass did not measure it */
    double *aside;   /* n_stalls values set aside (set_aside_cold), else NAN */
    double *replayed; /* n_stalls values of a replay set aside (set_aside_replayed) */
    int l1_set_aside; /* a replay's level 1 set aside (has_l1 0, l1 kept) */
    int l1_cold;      /* its level 1 set aside as cold (set_aside_cold) */
    unsigned size;    /* td_launch_size_class of its launch (a short kernel's
                         replay times about twice its natural duration, H200:
                         its size, not its duration, is the same) */
    int opens_session, opens_context, cold_level1; /* td_est_launch's */
    int slowed; /* weighed below its measured duration (launch_weights.h):
                   it outlasted every like launch that opened no session */
    size_t turn; /* counts the kernel's group launches' changes of group up
                    to this one: launches of one turn came together */
} sample;

/* Duration-weighted sums per stratum: level 1 [s * n_l1 + k], each reason
 * [s * n_stalls + r]. */
typedef struct cells {
    double *w1, *n1;
    double *samples; /* profiled launches of each stratum */
    double *f;
    double *wr, *nr, *v;
} cells;

typedef struct work {
    const td_model *m;
    size_t n_stalls, n_l1;
    int formula[TD_MAX_NODES]; /* tree index of each formula node */
    size_t n_formula;
    /* The duration classes the kernel's launches fall in, ascending; stratum
     * s is class s / TD_EST_TIME_BINS, third s % TD_EST_TIME_BINS. */
    double *class_lo; /* each class's shortest launch, ns */
    double *class_hi; /* and its longest */
    size_t n_classes, n_strata;
    double *stratum_ns;
    double total_ns;
    uint64_t *class_sizes; /* per class, the size classes of its launches (bits) */
    uint64_t level1_sizes; /* size classes of launches that measured level 1 */
    double level1_lo, level1_hi; /* the shortest and longest class_lo of the
                                    classes with a launch that measured level 1
                                    (INFINITY, 0: none) */
    sample *samples;
    size_t n_samples;
    size_t n_aside;  /* samples with a reason set aside */
    cells cells;
    int split_measured;
} work;

static double weight_of(const td_est_launch *l)
{
    return l->duration_ns > 0 ? l->duration_ns : 1.0;
}

/* The octave of a duration: floor(log2(ns)). */
static int octave_of(double ns)
{
    return ns >= 1.0 ? ilogb(ns) : 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The kernel's duration classes, ascending by their shortest launch: an
 * octave of duration, split where the kernel's durations leave a gap of
 * more than TD_EST_CLASS_GAP with TD_EST_CLASS_MIN launches or more on
 * each side (phases that share an octave). */
static int find_classes(work *w, const td_est_launch *ls, size_t n, td_error *err)
{
    double *sorted = malloc(n * sizeof *sorted);
    w->class_lo = malloc(n * sizeof *w->class_lo);
    w->class_hi = malloc(n * sizeof *w->class_hi);
    if (!sorted || !w->class_lo || !w->class_hi) {
        free(sorted);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = weight_of(&ls[i]);
    qsort(sorted, n, sizeof *sorted, by_value);
    size_t start = 0, octave_end = 0; /* the class's first launch, its octave's end */
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || octave_of(sorted[i]) != octave_of(sorted[i - 1])) {
            for (octave_end = i; octave_end < n && octave_of(sorted[octave_end]) ==
                                                     octave_of(sorted[i]); octave_end++)
                ;
        } else if (!(sorted[i] > sorted[i - 1] * (1.0 + TD_EST_CLASS_GAP) &&
                     i - start >= TD_EST_CLASS_MIN && octave_end - i >= TD_EST_CLASS_MIN))
            continue;
        start = i;
        if (w->n_classes)
            w->class_hi[w->n_classes - 1] = sorted[i - 1];
        w->class_lo[w->n_classes++] = sorted[i];
    }
    if (w->n_classes)
        w->class_hi[w->n_classes - 1] = sorted[n - 1];
    free(sorted);
    w->n_strata = w->n_classes * TD_EST_TIME_BINS;
    return 0;
}

/* The class of a launch of this duration: the last that starts at or
 * below it. */
static size_t class_of(const work *w, double ns)
{
    size_t lo = 0, hi = w->n_classes;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->class_lo[mid] <= ns)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static double counter(const td_launch *l, const td_binding *b, td_counter c)
{
    return l->counters[b->counter[c]];
}

/* The level-1 values of a launch that measured the issue counters. */
static void level1_of(const work *w, const td_binding *b, const td_launch *l, double *out)
{
    td_breakdown tree;
    td_model_counters(w->m, b, l->counters, &tree);
    for (size_t k = 0; k < w->n_formula; k++)
        out[k] = tree.value[w->formula[k]];
    out[w->n_formula] = tree.ipc;
    out[w->n_formula + 1] = tree.ipc_issued;
    out[w->n_formula + 2] = tree.warp_eff;
}

static int has_level1(const td_device *dev, const td_binding *b, const td_launch *l)
{
    static const td_counter needed[] = {TD_C_INST_EXECUTED, TD_C_INST_ISSUED,
                                        TD_C_THREAD_INST_EXECUTED};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
        if (!td_launch_measured(dev, l, b->counter[needed[i]]))
            return 0;
    return 1;
}

/* Stall reasons per warp active when every launch that measured a reason
 * also measured its pass's warps; else per active cycle. */
static int per_warp(const td_est_launch *ls, size_t n, const td_binding *bindings,
                    const td_device *devices, size_t n_stalls)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const td_launch *l = ls[i].launch;
        const td_device *dev = &devices[ls[i].dev];
        const td_binding *b = &bindings[ls[i].dev];
        if (!l->profiled || !l->counters)
            continue;
        for (size_t r = 0; r < n_stalls; r++)
            if (td_launch_measured(dev, l, b->stall[r])) {
                if (!td_launch_measured(dev, l, b->counter[TD_C_WARPS_ACTIVE]) ||
                    !(counter(l, b, TD_C_WARPS_ACTIVE) > 0))
                    return 0;
                any = 1;
                break;
            }
    }
    return any;
}

static void find_formula_nodes(work *w)
{
    w->n_formula = 0;
    for (int n = 0; n < w->m->nodes->count && w->n_formula < TD_MAX_NODES; n++)
        if (w->m->nodes->nodes[n].formula)
            w->formula[w->n_formula++] = n;
    w->n_l1 = w->n_formula + 3;
}

/* Whether tree node n's value comes from the issue counters alone. */
static int issue_node(const td_model *m, int n)
{
    return n < m->n_tree && m->tree[n].kind != TD_KIND_STALL_SPLIT &&
           m->tree[n].kind != TD_KIND_STALL && m->tree[n].kind != TD_KIND_SOURCE;
}

/* Sample x's reasons under tree node `node` (-1: none) into x->aside; 1 if
 * it had any. */
static int set_aside(work *w, sample *x, int node)
{
    int set = 0;
    for (size_t r = 0; node >= 0 && r < w->n_stalls; r++)
        if (w->m->stall_node[r] == node && !isnan(x->reason[r])) {
            x->aside[r] = x->reason[r];
            x->reason[r] = NAN;
            set = 1;
        }
    return set;
}

/* 1: some sample other than x, and not itself cold in the same way,
 * measured a reason of the node. */
static int measured_warm(const work *w, const sample *x, int node)
{
    for (size_t i = 0; i < w->n_samples; i++) {
        const sample *y = &w->samples[i];
        if (y == x || y->opens_context)
            continue;
        for (size_t r = 0; r < w->n_stalls; r++)
            if (w->m->stall_node[r] == node && !isnan(y->reason[r]))
                return 1;
    }
    return 0;
}

/* 1: TD_EST_NATURAL_MIN samples or more (one where x ran slow as a whole,
 * TD_EST_SLOWED), not cold, measured level 1
 * without replay on launches of x's size in its stratum (duration class
 * and third of the run): so that setting x's aside leaves no stratum
 * without it (td_stencil's heat_boundary, whose slowest launches a cold
 * range alone measured, then counted as a class that could be anything,
 * 0.8 -> 3.5 points; td_bench's bench_retire, a third of its run) nor one
 * sample to say how launches vary. */
static int level1_warm(const work *w, const sample *x)
{
    size_t warm = 0, need = x->slowed ? 1 : TD_EST_NATURAL_MIN;
    for (size_t i = 0; i < w->n_samples; i++) {
        const sample *y = &w->samples[i];
        warm += y != x && !y->cold_level1 && y->pool > 0 && y->has_l1 && y->size == x->size &&
                y->stratum == x->stratum;
    }
    return warm >= need;
}

/* Ranges that ran a cache cold (td_est_launch): a session's first range
 * its instruction fetch, where the kernel has later samples of that
 * group; a range cold_ranges.h names cold its level 1 (more cycles for
 * its instructions: td_manykernels' gemm_tiled read Retire 3-5 points low
 * in every run from one such range), where warm ranges of its size in its
 * stratum measured it; the context's first launch its constant cache,
 * where other launches of the kernel measured it. */
static void set_aside_cold(work *w)
{
    int fetch = td_model_find(w->m, "Frontend.Fetch.Instruction_Fetch");
    int constant = td_model_find(w->m, "Backend.Memory_Bound.Constant_Memory");
    size_t later[TD_MAX_GROUPS + 1] = {0}; /* by pool: group + 1 */
    for (size_t i = 0; i < w->n_samples; i++) {
        const sample *x = &w->samples[i];
        if (!x->opens_session && x->pool > 0 && x->pool <= TD_MAX_GROUPS)
            later[x->pool]++;
    }
    for (size_t i = 0; i < w->n_samples; i++) {
        sample *x = &w->samples[i];
        int set = 0;
        if (x->opens_session && x->pool > 0 && x->pool <= TD_MAX_GROUPS && later[x->pool])
            set |= set_aside(w, x, fetch);
        if (x->opens_context && measured_warm(w, x, constant))
            set |= set_aside(w, x, constant);
        if (x->cold_level1 && x->has_l1 && level1_warm(w, x)) {
            x->l1_cold = 1;
            x->has_l1 = 0;
            set = 1;
        }
        w->n_aside += (size_t)set;
    }
}

/* Natural conditions first (issue 39: the truth is the natural run, every
 * launch ranged in the app's own run). A replayed launch (the full set,
 * kernel replay) and the counter groups' launches (one pass each, no
 * replay) measure under different conditions: td_tiny's replays said
 * MIO_Bound 15.6 points off its natural run. So a replay's quantity (level
 * 1, a stall reason) is set aside where TD_EST_NATURAL_MIN counter-group
 * launches like it measured it: of the same size, and within
 * TD_EST_CONDITIONS_REACH octaves of its duration (a short kernel's
 * replay measures about twice its natural duration, H200; a launch of the
 * same size can do a thousandfold more work, td_bfs's frontier). It stays
 * where fewer did, the only measurement of that launch (td_bfs's first,
 * smallest launches: dropping replays kernel-wide put bfs_topdown 35.7
 * points off). How far the two ways disagree stays in the spread
 * (conditions). */
static int alike(const sample *replay, const sample *natural)
{
    return replay->size == natural->size &&
           fabs(log2(replay->weight / natural->weight)) <= TD_EST_CONDITIONS_REACH;
}

static void set_aside_one(work *w, sample *x)
{
    size_t l1 = 0, reason[TD_MAX_STALLS] = {0};
    for (size_t i = 0; i < w->n_samples; i++) {
        const sample *y = &w->samples[i];
        if (y->pool == 0 || !alike(x, y))
            continue;
        l1 += (size_t)y->has_l1;
        for (size_t r = 0; r < w->n_stalls; r++)
            reason[r] += !isnan(y->reason[r]);
    }
    if (x->has_l1 && l1 >= TD_EST_NATURAL_MIN) {
        x->l1_set_aside = 1;
        x->has_l1 = 0;
    }
    for (size_t r = 0; r < w->n_stalls; r++)
        if (!isnan(x->reason[r]) && reason[r] >= TD_EST_NATURAL_MIN) {
            x->replayed[r] = x->reason[r];
            x->reason[r] = NAN;
        }
}

/* Each replay against every group launch: a kernel has both only in
 * auto mode, where its replays are a few (TOPDOWN_COVER_LAUNCHES);
 * --replay-mode kernel replays every launch and has no group launch. */
static void set_aside_replayed(work *w)
{
    int groups = 0;
    for (size_t i = 0; i < w->n_samples && !groups; i++)
        groups = w->samples[i].pool != 0;
    for (size_t i = 0; groups && i < w->n_samples; i++)
        if (w->samples[i].pool == 0)
            set_aside_one(w, &w->samples[i]);
}

/* 1: some replay's quantity (level 1, a reason) is still in the estimate,
 * not set aside for the groups' (set_aside_replayed): only then does the
 * estimate mix the two ways of measuring (MODEL.md section 6). */
static int replays_in_use(const work *w)
{
    for (size_t i = 0; i < w->n_samples; i++) {
        const sample *x = &w->samples[i];
        if (x->pool != 0)
            continue;
        if (x->has_l1)
            return 1;
        for (size_t r = 0; r < w->n_stalls; r++)
            if (!isnan(x->reason[r]))
                return 1;
    }
    return 0;
}

/* The replays' set-aside quantities back in (keep) or out. */
static void use_replayed(work *w, int keep)
{
    for (size_t i = 0; i < w->n_samples; i++) {
        sample *x = &w->samples[i];
        if (x->l1_set_aside)
            x->has_l1 = keep;
        for (size_t r = 0; r < w->n_stalls; r++)
            if (!isnan(x->replayed[r]))
                x->reason[r] = keep ? x->replayed[r] : NAN;
    }
}

/* The samples (profiled launches with active cycles), and every launch's
 * duration into its stratum. */
static int gather(work *w, const td_est_launch *ls, size_t n, const td_binding *bindings,
                  const td_device *devices, int warps, td_error *err)
{
    size_t per = n ? n : 1, stalls = w->n_stalls ? w->n_stalls : 1;
    w->samples = calloc(per, sizeof *w->samples);
    double *reasons = calloc(3 * per * stalls, sizeof *reasons);
    if (!w->samples || !reasons) {
        free(reasons);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const td_launch *l = ls[i].launch;
        size_t s = class_of(w, weight_of(&ls[i])) * TD_EST_TIME_BINS + i * TD_EST_TIME_BINS / n;
        w->stratum_ns[s] += weight_of(&ls[i]);
        w->total_ns += weight_of(&ls[i]);
        w->class_sizes[s / TD_EST_TIME_BINS] |= (uint64_t)1 << td_launch_size_class(l->grid, l->block);
        const td_device *dev = &devices[ls[i].dev];
        const td_binding *b = &bindings[ls[i].dev];
        int cycles = b->counter[TD_C_CYCLES_ACTIVE];
        if (!l->profiled || !l->counters || !td_launch_measured(dev, l, cycles) ||
            !(l->counters[cycles] > 0))
            continue;
        sample *x = &w->samples[w->n_samples];
        x->reason = reasons + w->n_samples * w->n_stalls;
        x->aside = reasons + (per + w->n_samples) * w->n_stalls;
        x->replayed = reasons + (2 * per + w->n_samples) * w->n_stalls;
        w->n_samples++;
        x->stratum = s;
        x->size = td_launch_size_class(l->grid, l->block);
        x->pool = l->group == TD_GROUP_ALL ? 0 : (size_t)l->group + 1;
        x->weight = weight_of(&ls[i]);
        x->opens_session = ls[i].opens_session;
        x->opens_context = ls[i].opens_context;
        x->cold_level1 = ls[i].cold_level1;
        x->slowed = ls[i].duration_ns > 0 && ls[i].duration_ns < l->duration_ns * TD_EST_SLOWED;
        x->has_l1 = has_level1(dev, b, l);
        if (x->has_l1) { /* before set_aside_replayed: a replay measured its class */
            w->level1_sizes |= (uint64_t)1 << x->size;
            w->level1_lo = fmin(w->level1_lo, w->class_lo[s / TD_EST_TIME_BINS]);
            w->level1_hi = fmax(w->level1_hi, w->class_lo[s / TD_EST_TIME_BINS]);
        }
        if (x->has_l1)
            level1_of(w, b, l, x->l1);
        double norm = warps ? counter(l, b, TD_C_WARPS_ACTIVE) : l->counters[cycles];
        for (size_t r = 0; r < w->n_stalls; r++) {
            x->reason[r] = td_launch_measured(dev, l, b->stall[r]) ? l->counters[b->stall[r]] / norm : NAN;
            x->aside[r] = NAN;
            x->replayed[r] = NAN;
        }
    }
    size_t turn = 0, last_group = 0;
    for (size_t i = 0; i < w->n_samples; i++) {
        sample *x = &w->samples[i];
        if (x->pool != 0 && x->pool != last_group) {
            turn++;
            last_group = x->pool;
        }
        x->turn = x->pool ? turn : SIZE_MAX - i; /* a replay is a turn of its own */
    }
    set_aside_cold(w);
    set_aside_replayed(w);
    if (w->n_samples == 0)
        free(reasons);
    return 0;
}

static void cells_clear(work *w)
{
    size_t n = w->n_strata;
    memset(w->cells.w1, 0, n * sizeof *w->cells.w1);
    memset(w->cells.n1, 0, n * sizeof *w->cells.n1);
    memset(w->cells.samples, 0, n * sizeof *w->cells.samples);
    memset(w->cells.nr, 0, n * w->n_stalls * sizeof *w->cells.nr);
    memset(w->cells.f, 0, n * w->n_l1 * sizeof *w->cells.f);
    memset(w->cells.wr, 0, n * w->n_stalls * sizeof *w->cells.wr);
    memset(w->cells.v, 0, n * w->n_stalls * sizeof *w->cells.v);
}

static int cells_alloc(work *w, td_error *err)
{
    size_t n = w->n_strata, stalls = w->n_stalls ? w->n_stalls : 1;
    cells *c = &w->cells;
    c->w1 = calloc(n, sizeof *c->w1);
    c->n1 = calloc(n, sizeof *c->n1);
    c->samples = calloc(n, sizeof *c->samples);
    c->f = calloc(n * w->n_l1, sizeof *c->f);
    c->wr = calloc(n * stalls, sizeof *c->wr);
    c->nr = calloc(n * stalls, sizeof *c->nr);
    c->v = calloc(n * stalls, sizeof *c->v);
    w->stratum_ns = calloc(n, sizeof *w->stratum_ns);
    w->class_sizes = calloc(w->n_classes ? w->n_classes : 1, sizeof *w->class_sizes);
    if (!w->class_sizes || !c->w1 || !c->n1 || !c->samples || !c->f || !c->wr || !c->nr ||
        !c->v || !w->stratum_ns)
        return td_fail(err, "out of memory");
    return 0;
}

static void cells_add(work *w, const sample *x)
{
    cells *c = &w->cells;
    c->samples[x->stratum]++;
    if (x->has_l1) {
        c->w1[x->stratum] += x->weight;
        c->n1[x->stratum]++;
        for (size_t k = 0; k < w->n_l1; k++)
            c->f[x->stratum * w->n_l1 + k] += x->weight * x->l1[k];
    }
    for (size_t r = 0; r < w->n_stalls; r++)
        if (!isnan(x->reason[r])) {
            c->wr[x->stratum * w->n_stalls + r] += x->weight;
            c->nr[x->stratum * w->n_stalls + r]++;
            c->v[x->stratum * w->n_stalls + r] += x->weight * x->reason[r];
        }
}

/* A quantity's cell: weights wt[(s * stride + off)], values
 * val[(s * stride + off) * width + k]. */
typedef struct quantity {
    const double *wt, *cnt, *val;
    size_t stride, off, width;
} quantity;

static double sum_class(const quantity *q, size_t cls, double *acc)
{
    double weight = 0;
    for (size_t t = 0; t < TD_EST_TIME_BINS; t++) {
        size_t at = (cls * TD_EST_TIME_BINS + t) * q->stride + q->off;
        weight += q->wt[at];
        for (size_t k = 0; k < q->width; k++)
            acc[k] += q->val[at * q->width + k];
    }
    return weight;
}

/* The duration-weighted mean of quantity q in stratum s, borrowed from
 * the same duration class at any time, then from the nearest classes (the
 * two at the same distance together) up to `reach` octaves away, when s
 * has fewer than MIN_CELL launches that measured it. 0: no launch measured
 * it. */
static int stratum_mean(const work *w, const quantity *q, size_t s, double reach, double *out)
{
    size_t at = s * q->stride + q->off;
    if (q->cnt[at] >= MIN_CELL) {
        for (size_t k = 0; k < q->width; k++)
            out[k] = q->val[at * q->width + k] / q->wt[at];
        return 1;
    }
    const double *lo_ns = w->class_lo;
    size_t cls = s / TD_EST_TIME_BINS, lo = cls, hi = cls + 1; /* next: lo - 1 and hi */
    memset(out, 0, q->width * sizeof *out);
    double weight = sum_class(q, cls, out);
    while (!(weight > 0) && (lo > 0 || hi < w->n_classes)) {
        double down = lo > 0 ? log2(lo_ns[cls] / lo_ns[lo - 1]) : -1;
        double up = hi < w->n_classes ? log2(lo_ns[hi] / lo_ns[cls]) : -1;
        double d = down < 0 ? up : up < 0 || down < up ? down : up;
        if (d > reach)
            break;
        if (down == d)
            weight += sum_class(q, --lo, out);
        if (up == d)
            weight += sum_class(q, hi++, out);
    }
    if (!(weight > 0))
        return 0;
    for (size_t k = 0; k < q->width; k++)
        out[k] /= weight;
    return 1;
}

/* 1 when some launch measured a quantity (cell counts cnt[(stratum *
 * stride + off)]) in stratum s's third within its octave of duration. A
 * neighbouring class of the same octave stands for s as the octave-wide
 * classes did before they were split (TD_EST_CLASS_GAP); the classes are
 * ascending, so those of an octave are neighbours. */
static int measured_near(const work *w, const double *cnt, size_t stride, size_t off, size_t s)
{
    size_t cls = s / TD_EST_TIME_BINS, third = s % TD_EST_TIME_BINS;
    int octave = octave_of(w->class_lo[cls]);
    for (size_t c = cls; c < w->n_classes && octave_of(w->class_lo[c]) == octave; c++)
        if (cnt[(c * TD_EST_TIME_BINS + third) * stride + off] > 0)
            return 1;
    for (size_t c = cls; c-- > 0 && octave_of(w->class_lo[c]) == octave;)
        if (cnt[(c * TD_EST_TIME_BINS + third) * stride + off] > 0)
            return 1;
    return 0;
}

/* 1 when a quantity that some launch of the kernel measured was measured
 * by none in stratum s's third within its octave. */
static int quantity_elsewhere(const work *w, const double *cnt, size_t stride, size_t off,
                              size_t s)
{
    int anywhere = 0;
    for (size_t c = 0; c < w->n_strata; c++)
        anywhere |= cnt[c * stride + off] > 0;
    return anywhere && !measured_near(w, cnt, stride, off, s);
}

/* The share of stratum s's quantities (level 1, each stall reason some
 * launch measured) that no launch measured in its third within its octave:
 * those come from another time or a class unlike it. */
static double partly_elsewhere(const work *w, size_t s)
{
    double borrowed = quantity_elsewhere(w, w->cells.n1, 1, 0, s);
    for (size_t r = 0; r < w->n_stalls; r++)
        borrowed += quantity_elsewhere(w, w->cells.nr, w->n_stalls, r, s);
    return borrowed / (double)(1 + w->n_stalls);
}

/* Whether some third of the duration class starting at stratum first
 * measured a quantity (cell counts cnt[(stratum * stride + off)]). */
static int class_has(const work *w, const double *cnt, size_t stride, size_t off, size_t first)
{
    (void)w;
    for (size_t t = 0; t < TD_EST_TIME_BINS; t++)
        if (cnt[(first + t) * stride + off] > 0)
            return 1;
    return 0;
}

/* Whether stratum s's duration class measured, at some time, what the
 * issue counters' nodes need (issue: level 1) or the stall split's (level
 * 1 and every stall reason some launch of the kernel measured). */
static int class_measured(const work *w, size_t s, int issue)
{
    size_t first = s / TD_EST_TIME_BINS * TD_EST_TIME_BINS;
    if (!class_has(w, w->cells.n1, 1, 0, first))
        return 0;
    for (size_t r = 0; !issue && r < w->n_stalls; r++) {
        int anywhere = 0;
        for (size_t c = 0; c < w->n_strata && !anywhere; c++)
            anywhere = w->cells.nr[c * w->n_stalls + r] > 0;
        if (anywhere && !class_has(w, w->cells.nr, w->n_stalls, r, first))
            return 0;
    }
    return 1;
}

/* 1 when no launch was measured in stratum s's third within its octave
 * of duration: its values come from another time or a class unlike it. */
static int measured_elsewhere(const work *w, size_t s)
{
    return !measured_near(w, w->cells.samples, 1, 0, s);
}

/* What a stratum's tree is made of: its level 1 and its reasons' shares. */
typedef struct stratum_values {
    int has_l1;
    double l1[MAX_L1];
    unsigned char has[TD_MAX_STALLS];
    double share[TD_MAX_STALLS];
} stratum_values;

/* Stratum s's quantities from the cells, borrowed up to `reach` octaves. */
static void lookup(const work *w, size_t s, double reach, stratum_values *v)
{
    quantity q1 = {w->cells.w1, w->cells.n1, w->cells.f, 1, 0, w->n_l1};
    v->has_l1 = stratum_mean(w, &q1, s, reach, v->l1);
    for (size_t r = 0; r < w->n_stalls; r++) {
        quantity qr = {w->cells.wr, w->cells.nr, w->cells.v, w->n_stalls, r, 1};
        v->share[r] = 0;
        v->has[r] = (unsigned char)stratum_mean(w, &qr, s, reach, &v->share[r]);
    }
}

/* A stratum's tree, without the roll-up, added to acc with weight. */
static void accumulate(const work *w, const stratum_values *v, double weight, td_breakdown *acc)
{
    double used = 0;
    for (size_t k = 0; k < w->n_formula; k++) {
        acc->value[w->formula[k]] += weight * v->l1[k];
        used += v->l1[k];
    }
    acc->ipc += weight * v->l1[w->n_formula];
    acc->ipc_issued += weight * v->l1[w->n_formula + 1];
    acc->warp_eff += weight * v->l1[w->n_formula + 2];
    double stalled = used < 1.0 ? 1.0 - used : 0.0, total = 0;
    for (size_t r = 0; r < w->n_stalls && w->split_measured; r++)
        total += v->share[r];
    if (!(total > 0)) {
        acc->unattributed += weight * stalled;
        return;
    }
    for (size_t r = 0; r < w->n_stalls; r++)
        acc->value[td_model_stall_index(w->m, r)] += weight * stalled * v->share[r] / total;
}

/* One stratum's tree, without the roll-up, added to acc with weight; 1
 * when no launch of the stratum was measured (all of it came from another
 * time or duration class). */
static int add_stratum(const work *w, size_t s, double weight, td_breakdown *acc)
{
    stratum_values v;
    lookup(w, s, INFINITY, &v);
    if (!v.has_l1)
        return 0;
    accumulate(w, &v, weight, acc);
    return measured_elsewhere(w, s);
}

/* The kernel's tree from the cells as they are. */
static void estimate(const work *w, td_breakdown *out)
{
    memset(out, 0, sizeof *out);
    out->n_stalls = w->n_stalls;
    for (size_t s = 0; s < w->n_strata; s++)
        if (w->stratum_ns[s] > 0)
            (void)add_stratum(w, s, w->stratum_ns[s] / w->total_ns, out);
    out->has_slots = 1;
    td_model_roll_up(w->m, out);
}

/* The cold samples' set-aside reasons, and their level 1, back in (keep)
 * or out. */
static void use_aside(work *w, int keep_reasons, int keep_level1)
{
    for (size_t i = 0; i < w->n_samples; i++) {
        sample *x = &w->samples[i];
        if (x->l1_cold)
            x->has_l1 = keep_level1;
        for (size_t r = 0; r < w->n_stalls; r++)
            if (!isnan(x->aside[r]))
                x->reason[r] = keep_reasons ? x->aside[r] : NAN;
    }
}

/* The cells from every sample, with the set-aside reasons kept or not. */
static void refill_cells(work *w, int keep_reasons)
{
    use_aside(w, keep_reasons, 0);
    cells_clear(w);
    for (size_t i = 0; i < w->n_samples; i++)
        cells_add(w, &w->samples[i]);
}

/* How far the tree moves if the cold samples' reasons were kept: setting
 * them aside is a correction the bundled runs suggest, not a measurement
 * of this run, so the spread holds it. Not their level 1: against
 * application replay (H200, 2026-11-29) setting it aside moved
 * td_tiny's Retire 1.92 -> 2.47 (truth 2.49) and td_manykernels'
 * bitonic_global 12.1 -> 17.0 (16.6), and holding the difference widened
 * td_stencil's heat_boundary 0.8 -> 3.5 points where the value moved 0.04. */
static void cold_term(work *w, const td_breakdown *mean, td_breakdown *term)
{
    memset(term, 0, sizeof *term);
    if (w->n_aside == 0)
        return;
    td_breakdown kept;
    refill_cells(w, 1);
    estimate(w, &kept);
    refill_cells(w, 0);
    for (int k = 0; k < TD_TREE_MAX; k++)
        term->value[k] = fabs(kept.value[k] - mean->value[k]);
}

/* Stratum s's tree (weight 1, rolled up) with the quantities it borrowed
 * taken instead from third t of its own class where that third measured
 * them; 0 when it measured none of them. */
static int tree_from_third(const work *w, size_t s, size_t t, td_breakdown *out)
{
    stratum_values v;
    lookup(w, s, INFINITY, &v);
    size_t at = s / TD_EST_TIME_BINS * TD_EST_TIME_BINS + t;
    const cells *c = &w->cells;
    int changed = 0;
    if (v.has_l1 && quantity_elsewhere(w, c->n1, 1, 0, s) && c->n1[at] > 0) {
        for (size_t k = 0; k < w->n_l1; k++)
            v.l1[k] = c->f[at * w->n_l1 + k] / c->w1[at];
        changed = 1;
    }
    for (size_t r = 0; r < w->n_stalls; r++)
        if (quantity_elsewhere(w, c->nr, w->n_stalls, r, s) && c->nr[at * w->n_stalls + r] > 0) {
            v.share[r] = c->v[at * w->n_stalls + r] / c->wr[at * w->n_stalls + r];
            v.has[r] = 1;
            changed = 1;
        }
    if (!changed || !v.has_l1)
        return 0;
    memset(out, 0, sizeof *out);
    out->n_stalls = w->n_stalls;
    accumulate(w, &v, 1.0, out);
    out->has_slots = 1;
    td_model_roll_up(w->m, out);
    return 1;
}

/* How far a stratum that borrowed some quantities from other thirds of its
 * class moves when they come from each of those thirds alone (per node,
 * into far); 0 when no other third measured them. */
static int borrowed_swing(const work *w, size_t s, const td_breakdown *one, double *far)
{
    int seen = 0;
    for (size_t t = 0; t < TD_EST_TIME_BINS; t++) {
        td_breakdown alt;
        if (t == s % TD_EST_TIME_BINS || !tree_from_third(w, s, t, &alt))
            continue;
        seen = 1;
        for (int n = 0; n < TD_TREE_MAX; n++)
            far[n] = fmax(far[n], fabs(alt.value[n] - one->value[n]));
    }
    return seen;
}

/* What the bootstrap cannot see: strata of the kernel's time in which no
 * launch was measured (a third of the run, a duration class) take the
 * values of other launches, which may not hold there. A node's error
 * there is bounded by TD_EST_EXTRAP_K times the farthest a measured
 * stratum lies from the kernel's value when launches were measured in
 * TD_EST_EXTRAP_THIRDS thirds of the run or more (so how the kernel moves
 * over its run was seen), and their share of the time times that bound
 * is added to the spread in quadrature. Measured in fewer thirds, a
 * stratum whose duration class was measured at another time is taken
 * to run as its sample did where the sample shows how much launches vary
 * (two in some bucket): its spread is its sample's (it was the node's
 * whole range, max(v, 1 - v): five alike launches of 25, all in the
 * first third, said Backend 78.7 +-50.4; issue 39); where the sample
 * cannot show it (blind: one launch to a bucket), or the stratum's launch
 * size was never measured, it can be anything (max(v, 1 - v); td_phases2
 * on the host clock, one phase measured: 41 points off).
 * A measured stratum may still borrow some quantities (a counter group's
 * stall reasons) from other thirds of its class: its share of the time
 * times how far its tree moves when they come from each of those thirds
 * alone is added too (the bootstrap resamples within the thirds, so a
 * reason that drifts over the run looked certain: the H100's
 * td_manykernels in truth_h100_variants/ had 93-94% of its nodes
 * covered, 96% with this); quantities no other third of the class
 * measured count as unmeasured for their share of the stratum. It is
 * computed before the bootstrap, which leaves its last resample in the
 * cells. */
/* The kernel's time whose values come from elsewhere, as shares of it,
 * by kind of node ([0] the stall split's, [1] the issue counters' alone):
 * of strata no launch measured whose class measured what the nodes need
 * at another time (time); of those whose class never did, or that
 * borrowed level 1 or stall reasons from another class (unseen); and all
 * of it, a stratum's borrowed quantities weighed by their count (any, the
 * bound of a run seen in two thirds). */
typedef struct elsewhere_time {
    double time[2], unseen[2], any;
    double class_unseen[2]; /* of unseen: strata whose class never measured the kind */
    double level1_far; /* of class_unseen[1]: strata whose level 1 is another
                          launch size's (level1_far) */
} elsewhere_time;

/* Octaves of duration from stratum s's class to the range of the classes
 * in which some launch measured level 1 (a replay's set aside for natural
 * conditions first counts: it measured its class): 0 inside it
 * (interpolated: td_bfs's frontier, whose sizes between measured ones
 * behave as their neighbours), INFINITY when none did. */
static double to_level1_classes(const work *w, size_t s)
{
    double lo = w->level1_lo, hi = w->level1_hi, at = w->class_lo[s / TD_EST_TIME_BINS];
    if (lo == INFINITY)
        return INFINITY;
    return at < lo ? log2(lo / at) : at > hi ? log2(at / hi) : 0;
}

/* 1: stratum s's class is another launch size than any launch that
 * measured level 1, and over TD_EST_CONDITIONS_REACH octaves of duration
 * outside their classes: its level 1 is extrapolated to other work
 * (td_sort's radix_histogram: its 32768-block launches, 73 us and most
 * of its time, from its 1-256-block ones of 2 us). A launch of a measured
 * size that ran longer (heat_boundary's few 80 us launches of its 4 us
 * grid) is the same work under other conditions, left to the bounds
 * above. */
static int level1_far(const work *w, size_t s)
{
    return !(w->class_sizes[s / TD_EST_TIME_BINS] & w->level1_sizes) &&
           to_level1_classes(w, s) > TD_EST_CONDITIONS_REACH;
}

/* Stratum s's share ws into class_unseen (and level1_far) for a kind its
 * class never measured. */
static void note_class_unseen(const work *w, size_t s, int issue, double ws, elsewhere_time *e)
{
    e->class_unseen[issue] += ws;
    if (issue && level1_far(w, s))
        e->level1_far += ws;
}

/* The duration classes that measured level 1. */
static size_t level1_classes(const work *w)
{
    size_t count = 0;
    for (size_t c = 0; c < w->n_classes; c++)
        count += (size_t)class_measured(w, c * TD_EST_TIME_BINS, 1);
    return count;
}

/* 1 when a gap wider than TD_EST_KIND_GAP parts class c from the class
 * below it. */
static int kind_gap_below(const work *w, size_t c)
{
    return c > 0 && w->class_lo[c] > w->class_hi[c - 1] * (1.0 + TD_EST_KIND_GAP);
}

/* 1 when class cls or a class reached from it without a gap wider than
 * TD_EST_KIND_GAP in the kernel's durations measured level 1: durations
 * that run on across classes are taken as one kind of work whose time
 * varies (td_devheap's heap_malloc, 13.8-30.4 ms over two octaves, H100),
 * where a gap parts kinds of work that share a launch size (td_phases2's
 * two phases, 197 and 321 us, H200). */
static int level1_without_gap(const work *w, size_t cls)
{
    for (size_t c = cls;; c--) {
        if (class_measured(w, c * TD_EST_TIME_BINS, 1))
            return 1;
        if (c == 0 || kind_gap_below(w, c))
            break;
    }
    for (size_t c = cls + 1; c < w->n_classes && !kind_gap_below(w, c); c++)
        if (class_measured(w, c * TD_EST_TIME_BINS, 1))
            return 1;
    return 0;
}

/* Stratum s's share ws into unseen (and class_unseen) for each kind of
 * node its class did not measure (seen[kind] 0). */
static void note_class_lacks(const work *w, size_t s, double ws, const int seen[2],
                             elsewhere_time *e)
{
    for (int issue = 0; issue < 2; issue++) {
        e->unseen[issue] += seen[issue] ? 0 : ws;
        if (!seen[issue])
            note_class_unseen(w, s, issue, ws, e);
    }
}

/* Stratum s (share ws of the time), measured (by its own class or one of
 * its octave), which its class never measured at all for a kind of node
 * (seen[kind] 0: an octave's neighbour stood for it), or which borrowed
 * some quantities from another class: level 1 leaves every node unseen,
 * stall reasons the stall split's. */
static void note_borrowed(const work *w, size_t s, double ws, elsewhere_time *e)
{
    int seen[2] = {class_measured(w, s, 0), class_measured(w, s, 1)};
    note_class_lacks(w, s, ws, seen, e);
    double part = partly_elsewhere(w, s);
    if (!(part > 0))
        return;
    e->any += part * ws;
    if (quantity_elsewhere(w, w->cells.n1, 1, 0, s)) {
        for (int issue = 0; issue < 2; issue++)
            e->unseen[issue] += seen[issue] ? ws : 0;
    } else if (w->n_stalls && seen[0]) {
        e->unseen[0] += ws * part * (double)(1 + w->n_stalls) / (double)w->n_stalls;
    }
}

static void extrapolation(const work *w, const td_breakdown *mean, const int blind[2],
                          td_breakdown *term)
{
    memset(term, 0, sizeof *term);
    elsewhere_time e = {{0, 0}, {0, 0}, 0, {0, 0}, 0};
    double far[TD_TREE_MAX] = {0}, borrowed[TD_TREE_MAX] = {0};
    unsigned char third_measured[TD_EST_TIME_BINS] = {0};
    for (size_t s = 0; s < w->n_strata; s++) {
        if (!(w->stratum_ns[s] > 0))
            continue;
        double ws = w->stratum_ns[s] / w->total_ns;
        td_breakdown one;
        memset(&one, 0, sizeof one);
        int elsewhere = add_stratum(w, s, 1.0, &one);
        td_model_roll_up(w->m, &one);
        if (elsewhere) {
            e.any += ws;
            for (int issue = 0; issue < 2; issue++) {
                int seen = class_measured(w, s, issue);
                *(seen ? &e.time[issue] : &e.unseen[issue]) += ws;
                if (!seen)
                    note_class_unseen(w, s, issue, ws, &e);
            }
            continue;
        }
        double swing[TD_TREE_MAX] = {0};
        if (partly_elsewhere(w, s) > 0 && borrowed_swing(w, s, &one, swing)) {
            for (int n = 0; n < TD_TREE_MAX; n++)
                borrowed[n] += ws * swing[n];
            /* the swing is over the class's own thirds: level 1 that
             * no class within reach without a gap measured still comes
             * from other work (td_phases2, H200: Retire 93.3 +-0.75
             * where application replay gave 60.2) */
            size_t cls = s / TD_EST_TIME_BINS;
            int seen[2] = {1, level1_without_gap(w, cls)};
            note_class_lacks(w, s, ws, seen, &e);
        } else {
            note_borrowed(w, s, ws, &e);
        }
        third_measured[s % TD_EST_TIME_BINS] = 1;
        for (int n = 0; n < TD_TREE_MAX; n++)
            far[n] = fmax(far[n], fabs(one.value[n] - mean->value[n]));
    }
    size_t thirds = 0;
    for (size_t t = 0; t < TD_EST_TIME_BINS; t++)
        thirds += third_measured[t];
    size_t with_level1 = level1_classes(w);
    for (int n = 0; n < TD_TREE_MAX; n++) {
        double anything = fmax(mean->value[n], 1.0 - mean->value[n]);
        int issue = issue_node(w->m, n);
        term->value[n] = borrowed[n];
        if (thirds >= TD_EST_EXTRAP_THIRDS)
            /* a run seen in two thirds bounds how its time moves, not
             * how another launch size behaves: where level 1 was
             * measured in one duration class alone, the classes that
             * never measured it can be anything
             * (td_sort's radix_scatter, H200: level 1 measured only on
             * its 1-block launches said Divergence 4.3 [3.0, 5.5] where
             * every launch measured gave 26.7), and so can a class
             * whose level 1 is another launch size's (level1_far:
             * td_sort's radix_histogram, its 73 us launches, most of
             * its time, borrowed level 1 from its 2 us ones, Retire 9.8
             * +-7.4 where application replay gave 26.5) */
            term->value[n] += fmin(anything, e.any * fmin(TD_EST_EXTRAP_K * far[n], anything) +
                                                 fmin(1.0, fmax(with_level1 < 2
                                                                    ? e.class_unseen[1] : 0,
                                                                e.level1_far)) *
                                                     anything);
        else
            term->value[n] += fmin(1.0, e.unseen[issue] + (blind[issue] ? e.time[issue] : 0)) *
                              anything;
    }
}

/* Fills the cells with the full set's samples (full 1) or the counter
 * groups' (full 0). */
static void cells_of_pool(work *w, int full)
{
    cells_clear(w);
    for (size_t i = 0; i < w->n_samples; i++)
        if ((w->samples[i].pool == 0) == full)
            cells_add(w, &w->samples[i]);
}

double td_est_replay_only(double v)
{
    v = fmin(fmax(v, 0.0), 1.0);
    return TD_EST_REPLAY_ONLY * sqrt(v * (1.0 - v));
}

/* natural[r]: 1 where some counter-group launch measured reason r (kept
 * or set aside as cold). */
static void measured_naturally(const work *w, unsigned char *natural)
{
    memset(natural, 0, TD_MAX_STALLS);
    for (size_t i = 0; i < w->n_samples; i++)
        for (size_t r = 0; w->samples[i].pool != 0 && r < w->n_stalls; r++)
            natural[r] |= !isnan(w->samples[i].reason[r]) || !isnan(w->samples[i].aside[r]);
}

/* How far the groups' share of a reason parts from the replays': the log
 * of their ratio, at most log 2; 0 where either share is under
 * TD_EST_PART_MIN (noise) or the replays did not measure it. */
static double parted(double grouped, double replayed, int replay_has)
{
    if (!replay_has || grouped < TD_EST_PART_MIN || replayed < TD_EST_PART_MIN)
        return 0;
    return fmin(fabs(log(grouped / replayed)), log(2.0));
}

/* The reasons replay alone measured (no counter-group launch did) may be
 * off by as much as replay and groups part on the reasons both measured
 * (`part`, a log factor): how far the tree of the full set's strata moves,
 * node by node, with them scaled by that factor up or down, against
 * `grouped_tree` (td_manykernels' bitonic_global, H200: the rotation never
 * brought one of its groups, and its replays' short_scoreboard was 0.6x
 * its natural launches'). */
static void replay_only_swing(const work *w, const stratum_values *grouped, const size_t *full,
                              size_t n_full, double full_ns, const unsigned char *natural,
                              double part, const td_breakdown *grouped_tree, td_breakdown *swing)
{
    td_breakdown up, down;
    memset(&up, 0, sizeof up);
    memset(&down, 0, sizeof down);
    up.n_stalls = down.n_stalls = w->n_stalls;
    for (size_t i = 0; i < n_full; i++) {
        stratum_values hi = grouped[i], lo = grouped[i];
        for (size_t r = 0; r < w->n_stalls; r++) {
            if (grouped[i].has[r] || natural[r])
                continue;
            hi.share[r] *= exp(part);
            lo.share[r] *= exp(-part);
        }
        accumulate(w, &hi, w->stratum_ns[full[i]] / full_ns, &up);
        accumulate(w, &lo, w->stratum_ns[full[i]] / full_ns, &down);
    }
    up.has_slots = down.has_slots = 1;
    td_model_roll_up(w->m, &up);
    td_model_roll_up(w->m, &down);
    for (int n = 0; n < TD_TREE_MAX; n++)
        swing->value[n] = fmax(fabs(up.value[n] - grouped_tree->value[n]),
                               fabs(down.value[n] - grouped_tree->value[n]));
}

/* What the bootstrap cannot see either: the full set's launches (kernel
 * replay) and the counter groups' (one pass each, without replay) measure
 * a kernel under different conditions. Short kernels differ most: replay's
 * later passes find the caches warm (td_manykernels' bitonic_global on the
 * H100: Instruction_Fetch 31 without replay, 5 by replay). In the strata
 * the full set measured, each quantity the groups measured within
 * TD_EST_CONDITIONS_REACH octaves of duration is taken from them instead:
 * the two trees differ by this much, node by node (term); and where replay
 * alone measured some reason, swing holds how far that reason, off by the
 * factor the two part by elsewhere, moves the tree (replay_only_swing; 0
 * where none). Leaves the groups' samples in the cells. */
static int conditions(work *w, td_breakdown *term, td_breakdown *swing, td_error *err)
{
    memset(term, 0, sizeof *term);
    memset(swing, 0, sizeof *swing);
    size_t n_full = 0, groups = 0, *full = malloc(w->n_strata * sizeof *full);
    stratum_values *replayed = malloc(w->n_strata * sizeof *replayed);
    if (!full || !replayed) {
        free(full);
        free(replayed);
        return td_fail(err, "out of memory");
    }
    cells_of_pool(w, 1);
    double full_ns = 0; /* the time of the strata the full set measured */
    for (size_t s = 0; s < w->n_strata; s++) {
        if (!(w->cells.samples[s] > 0))
            continue;
        lookup(w, s, INFINITY, &replayed[n_full]);
        if (!replayed[n_full].has_l1)
            continue; /* no level 1 came back from its replays */
        full_ns += w->stratum_ns[s];
        full[n_full++] = s;
    }
    for (size_t i = 0; i < w->n_samples; i++)
        groups += w->samples[i].pool != 0;
    if (n_full && groups && w->split_measured) {
        td_breakdown a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        a.n_stalls = b.n_stalls = w->n_stalls;
        cells_of_pool(w, 0);
        unsigned char natural[TD_MAX_STALLS];
        measured_naturally(w, natural);
        stratum_values *grouped = malloc(n_full * sizeof *grouped);
        if (!grouped) {
            free(full);
            free(replayed);
            return td_fail(err, "out of memory");
        }
        double part = 0; /* the largest factor between replay and groups, as its log */
        int replay_only = 0;
        for (size_t i = 0; i < n_full; i++) {
            stratum_values *g = &grouped[i];
            lookup(w, full[i], TD_EST_CONDITIONS_REACH, g);
            if (!g->has_l1)
                memcpy(g->l1, replayed[i].l1, sizeof g->l1);
            for (size_t r = 0; r < w->n_stalls; r++) {
                if (g->has[r])
                    part = fmax(part, parted(g->share[r], replayed[i].share[r], replayed[i].has[r]));
                else
                    g->share[r] = replayed[i].share[r];
                replay_only |= !natural[r] && replayed[i].has[r] && replayed[i].share[r] > 0;
            }
            accumulate(w, &replayed[i], w->stratum_ns[full[i]] / full_ns, &a);
            accumulate(w, g, w->stratum_ns[full[i]] / full_ns, &b);
        }
        a.has_slots = b.has_slots = 1;
        td_model_roll_up(w->m, &a);
        td_model_roll_up(w->m, &b);
        for (int n = 0; n < TD_TREE_MAX; n++)
            term->value[n] = fabs(a.value[n] - b.value[n]);
        if (replay_only && part > 0)
            replay_only_swing(w, grouped, full, n_full, full_ns, natural, part, &b, swing);
        free(grouped);
    }
    free(full);
    free(replayed);
    return 0;
}

/* ---- the spread ------------------------------------------------------------ */

/* Each pool's samples (at most BOOT_CAP, taken evenly over the run),
 * ordered into buckets: the launches of one stratum when it holds two or
 * more of the pool's, else those of the stratum's duration class (what
 * the estimate borrows from). The bootstrap resamples within buckets: the
 * collector chose how many launches each stratum got, chance chose only
 * which. */
typedef struct pools {
    size_t *items[TD_MAX_GROUPS + 1];
    size_t *bucket_end[TD_MAX_GROUPS + 1];
    size_t *turn_end[TD_MAX_GROUPS + 1];   /* each turn's end in items, bucket by bucket */
    size_t *bucket_turns[TD_MAX_GROUPS + 1]; /* each bucket's end in turn_end */
    size_t n[TD_MAX_GROUPS + 1], all[TD_MAX_GROUPS + 1], buckets[TD_MAX_GROUPS + 1];
    unsigned char level1[TD_MAX_GROUPS + 1]; /* some launch of the pool measured level 1 */
} pools;

typedef struct keyed {
    size_t key, item;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->item > y->item) - (x->item < y->item);
}

static int pool_buckets(const work *w, pools *p, size_t k, td_error *err)
{
    size_t n = p->n[k], *count = calloc(w->n_strata, sizeof *count);
    keyed *order = malloc(n * sizeof *order);
    p->bucket_end[k] = malloc(n * sizeof *p->bucket_end[k]);
    if (!count || !order || !p->bucket_end[k]) {
        free(count);
        free(order);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        count[w->samples[p->items[k][i]].stratum]++;
    for (size_t i = 0; i < n; i++) {
        size_t s = w->samples[p->items[k][i]].stratum;
        order[i].key = count[s] >= 2 ? s : w->n_strata + s / TD_EST_TIME_BINS;
        order[i].item = p->items[k][i];
    }
    free(count);
    qsort(order, n, sizeof *order, by_key);
    p->turn_end[k] = malloc(n * sizeof *p->turn_end[k]);
    p->bucket_turns[k] = malloc(n * sizeof *p->bucket_turns[k]);
    if (!p->turn_end[k] || !p->bucket_turns[k]) {
        free(order);
        return td_fail(err, "out of memory");
    }
    size_t turns = 0;
    for (size_t i = 0; i < n; i++) {
        p->items[k][i] = order[i].item;
        int bucket_ends = i + 1 == n || order[i + 1].key != order[i].key;
        if (bucket_ends || w->samples[order[i + 1].item].turn != w->samples[order[i].item].turn)
            p->turn_end[k][turns++] = i + 1;
        if (bucket_ends) {
            p->bucket_turns[k][p->buckets[k]] = turns;
            p->bucket_end[k][p->buckets[k]++] = i + 1;
        }
    }
    free(order);
    return 0;
}

static int pools_build(const work *w, pools *p, td_error *err)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < w->n_samples; i++)
        if (w->samples[i].pool <= TD_MAX_GROUPS) {
            p->all[w->samples[i].pool]++;
            p->level1[w->samples[i].pool] |= (unsigned char)w->samples[i].has_l1;
        }
    for (size_t k = 0; k <= TD_MAX_GROUPS; k++) {
        if (!p->all[k])
            continue;
        size_t keep = p->all[k] < BOOT_CAP ? p->all[k] : BOOT_CAP;
        if (!(p->items[k] = malloc(keep * sizeof *p->items[k])))
            return td_fail(err, "out of memory");
        size_t seen = 0;
        for (size_t i = 0; i < w->n_samples; i++) {
            if (w->samples[i].pool != k)
                continue;
            /* every (all/keep)-th, so the kept ones span the whole run */
            if (p->n[k] < keep && seen * keep / p->all[k] == p->n[k])
                p->items[k][p->n[k]++] = i;
            seen++;
        }
        if (pool_buckets(w, p, k, err))
            return -1;
    }
    return 0;
}

static void pools_free(pools *p)
{
    for (size_t k = 0; k <= TD_MAX_GROUPS; k++) {
        free(p->items[k]);
        free(p->bucket_end[k]);
        free(p->turn_end[k]);
        free(p->bucket_turns[k]);
    }
}

/* Share of the kernel's launch-passes that were measured: a full-set
 * launch is every pass of its launch, a group launch one of n_pools - 1. */
static double measured_fraction(const pools *p, size_t n_launches)
{
    size_t groups = 0;
    for (size_t k = 1; k <= TD_MAX_GROUPS; k++)
        groups += p->all[k] > 0;
    double passes = (double)p->all[0];
    for (size_t k = 1; k <= TD_MAX_GROUPS; k++)
        passes += groups ? (double)p->all[k] / (double)groups : 0;
    double f = passes / (double)n_launches;
    return f > 1 ? 1 : f;
}

/* What the bootstrap resamples in pool k: a bucket's turns where it holds
 * two or more, else its launches (resample_bucket). */
static size_t pool_units(const pools *p, size_t k)
{
    size_t units = 0;
    for (size_t j = 0; j < p->buckets[k]; j++) {
        size_t turns = p->bucket_turns[k][j] - (j ? p->bucket_turns[k][j - 1] : 0);
        units += turns >= 2 ? turns : p->bucket_end[k][j] - (j ? p->bucket_end[k][j - 1] : 0);
    }
    return units;
}

/* The bootstrap's SD under-states the spread of a mean of few units (by
 * sqrt((n-1)/n), n the units resampled per bucket: turns or launches) and
 * z under-states its tail: the 95% half-width is t(df) x sqrt(n/(n-1)) x
 * SD, with df the launches less the buckets; below 1 (one launch a
 * bucket) no variance can be estimated and the factor is infinite: not
 * known. A group's quantities come from its own launches and the full-set
 * ones (pool 0), so each group counts both; the group with the fewest sets
 * the factor (pool 0 alone when no launch measured one group). */
static double pool_df(const pools *p, size_t k)
{
    return (double)(p->n[k] + (k ? p->n[0] : 0)) - (double)(p->buckets[k] + (k ? p->buckets[0] : 0));
}

/* t(df) over the launches, and sqrt(n/(n-1)) over what was resampled (n
 * units a bucket): a bootstrap of n turns under-states their variance by
 * (n-1)/n. Counting the turns in df too (t(1) = 12.7 for two turns) left
 * td_bench's replay-free kernels, alike launch to launch, not known on
 * the H200 (test_bottlenecks, fifteenth session). */
static double pool_factor(const pools *p, size_t k)
{
    double units = (double)(pool_units(p, k) + (k ? pool_units(p, 0) : 0));
    double per = units / (double)(p->buckets[k] + (k ? p->buckets[0] : 0));
    if (per < 2)
        per = 2;
    /* one launch a bucket shows no variance (the bootstrap's is 0): what
     * that leaves unmeasured, the extrapolation bounds (blind_spots) */
    return td_spread_t975(fmax(pool_df(p, k), 1.0)) * sqrt(per / (per - 1));
}

/* The factor of the group with the fewest launches, among those that
 * measured level 1 (level1: for the nodes of the issue counters alone)
 * or all of them (the stall split's nodes, which every group feeds). */
static double small_sample_factor(const pools *p, int level1)
{
    double worst = 0;
    for (size_t k = 1; k <= TD_MAX_GROUPS; k++)
        if (p->all[k] && (!level1 || p->level1[k]))
            worst = fmax(worst, pool_factor(p, k));
    return worst > 0 ? worst : pool_factor(p, 0);
}

/* The fewest degrees of freedom among the same groups. */
static double least_df(const pools *p, int level1)
{
    double least = INFINITY;
    for (size_t k = 1; k <= TD_MAX_GROUPS; k++)
        if (p->all[k] && (!level1 || p->level1[k]))
            least = fmin(least, pool_df(p, k));
    return least < INFINITY ? least : pool_df(p, 0);
}

/* One resample of bucket j of pool k into the cells: its turns drawn with
 * replacement where it holds two or more, else its launches. Launches of
 * one turn came together and vary together: a group measured in one
 * phase of a phased kernel says little of the next (td_phases2's
 * solver_step, H200: Math_Pipe 2.2 points off application replay, its
 * launches resampled one by one spread 0.4). */
static void resample_bucket(work *w, const pools *p, size_t k, size_t j, uint32_t *state)
{
    size_t b0 = j ? p->bucket_end[k][j - 1] : 0, size = p->bucket_end[k][j] - b0;
    size_t t0 = j ? p->bucket_turns[k][j - 1] : 0, turns = p->bucket_turns[k][j] - t0;
    if (turns < 2) {
        for (size_t i = 0; i < size; i++)
            cells_add(w, &w->samples[p->items[k][b0 + td_xorshift32(state) % size]]);
        return;
    }
    for (size_t t = 0; t < turns; t++) {
        size_t pick = t0 + td_xorshift32(state) % turns;
        size_t from = pick ? p->turn_end[k][pick - 1] : 0;
        for (size_t i = from; i < p->turn_end[k][pick]; i++)
            cells_add(w, &w->samples[p->items[k][i]]);
    }
}

static int bootstrap(work *w, size_t n_launches, td_breakdown *spread, td_error *err)
{
    pools p;
    if (pools_build(w, &p, err)) {
        pools_free(&p);
        return -1;
    }
    double fpc = 1.0 - measured_fraction(&p, n_launches);
    memset(spread, 0, sizeof *spread);
    spread->n_stalls = w->n_stalls;
    spread->has_slots = 1;
    if (fpc <= 1e-9) {
        pools_free(&p);
        return 0; /* every launch measured: nothing left to sample */
    }
    size_t kept = 0, all = 0;
    for (size_t k = 0; k <= TD_MAX_GROUPS; k++) {
        kept += p.n[k];
        all += p.all[k];
    }
    double sum[TD_TREE_MAX] = {0}, sq[TD_TREE_MAX] = {0};
    uint32_t state = TD_EST_SEED;
    for (int b = 0; b < TD_EST_RESAMPLES; b++) {
        cells_clear(w);
        for (size_t k = 0; k <= TD_MAX_GROUPS; k++)
            for (size_t j = 0; j < p.buckets[k]; j++)
                resample_bucket(w, &p, k, j, &state);
        td_breakdown one;
        estimate(w, &one);
        for (int n = 0; n < TD_TREE_MAX; n++) {
            sum[n] += one.value[n];
            sq[n] += one.value[n] * one.value[n];
        }
    }
    /* A pool thinned to BOOT_CAP launches varies as much as BOOT_CAP would. */
    double thinned = sqrt(fpc * (double)kept / (double)all);
    double factor[2] = {small_sample_factor(&p, 0), small_sample_factor(&p, 1)};
    for (int n = 0; n < TD_TREE_MAX; n++) {
        double mean = sum[n] / TD_EST_RESAMPLES;
        double var = sq[n] / TD_EST_RESAMPLES - mean * mean;
        spread->value[n] = var > 0 ? factor[issue_node(w->m, n)] * thinned * sqrt(var) : 0.0;
    }
    pools_free(&p);
    return 0;
}

/* Whether the kernel's samples show no variance, one launch to each
 * bucket, for the nodes of the stall split ([0]) and of the issue
 * counters alone ([1]): then nothing vouches for the time they left
 * unmeasured (extrapolation). */
static int blind_spots(const work *w, int blind[2], td_error *err)
{
    pools p;
    int rc = pools_build(w, &p, err);
    if (rc == 0) {
        blind[0] = least_df(&p, 0) < 1;
        blind[1] = least_df(&p, 1) < 1;
    }
    pools_free(&p);
    return rc;
}

/* ---- the whole ------------------------------------------------------------- */

/* The share of the kernel's time whose level 1 is another size's
 * (td_estimate.level1_elsewhere). */
static double level1_elsewhere(const work *w)
{
    double share = 0;
    for (size_t s = 0; s < w->n_strata; s++)
        if (w->stratum_ns[s] > 0 && !class_measured(w, s, 1) && level1_far(w, s))
            share += w->stratum_ns[s] / w->total_ns;
    return share;
}

/* td_estimate.level1_other_kind, over the classes that measured some
 * counter group (a class that measured nothing is the note on launches
 * beyond those measured). */
static double level1_other_kind(const work *w)
{
    if (level1_classes(w) != 1)
        return 0;
    double share = 0;
    for (size_t s = 0; s < w->n_strata; s++) {
        size_t cls = s / TD_EST_TIME_BINS;
        if (w->stratum_ns[s] > 0 && !level1_without_gap(w, cls) &&
            class_has(w, w->cells.samples, 1, 0, cls * TD_EST_TIME_BINS))
            share += w->stratum_ns[s] / w->total_ns;
    }
    return share;
}

static size_t reasons_measured(const work *w)
{
    size_t count = 0;
    for (size_t r = 0; r < w->n_stalls; r++) {
        int any = 0;
        for (size_t i = 0; i < w->n_samples && !any; i++)
            any = !isnan(w->samples[i].reason[r]);
        count += any;
    }
    return count;
}

static void work_free(work *w)
{
    if (w->n_samples)
        free(w->samples[0].reason);
    free(w->samples);
    free(w->class_lo);
    free(w->class_hi);
    free(w->stratum_ns);
    free(w->class_sizes);
    free(w->cells.w1);
    free(w->cells.n1);
    free(w->cells.samples);
    free(w->cells.f);
    free(w->cells.wr);
    free(w->cells.nr);
    free(w->cells.v);
}

int td_estimate_kernel(const td_est_launch *launches, size_t n, const td_model *models,
                       const td_binding *bindings, const td_device *devices, size_t kdev,
                       td_estimate *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    work w = {.m = &models[kdev], .n_stalls = models[kdev].arch->n_stalls,
              .level1_lo = INFINITY};
    out->reasons_total = w.n_stalls;
    if (n == 0)
        return 0;
    find_formula_nodes(&w);
    out->per_warp = per_warp(launches, n, bindings, devices, w.n_stalls);
    int rc = find_classes(&w, launches, n, err);
    if (rc == 0)
        rc = cells_alloc(&w, err);
    if (rc == 0)
        rc = gather(&w, launches, n, bindings, devices, out->per_warp, err);
    if (rc == 0) {
        for (size_t i = 0; i < w.n_samples; i++) {
            out->has_level1 |= w.samples[i].has_l1;
            cells_add(&w, &w.samples[i]);
        }
        out->reasons_measured = reasons_measured(&w);
        out->split_measured = w.split_measured = out->reasons_measured == w.n_stalls;
    }
    if (rc == 0 && out->has_level1) {
        estimate(&w, &out->mean);
        out->mean.reasons_missing = out->reasons_total - out->reasons_measured;
        /* before the bootstrap, which leaves its last resample in the cells */
        td_breakdown term, method, swing, cold;
        memset(&method, 0, sizeof method);
        cold_term(&w, &out->mean, &cold);
        int blind[2] = {1, 1};
        rc = blind_spots(&w, blind, err);
        extrapolation(&w, &out->mean, blind, &term);
        out->level1_elsewhere = level1_elsewhere(&w);
        out->level1_other_kind = level1_other_kind(&w);
        /* The set-aside moves the tree, it does not narrow the spread: the
         * two ways of measuring are compared as measured. */
        int mixes = replays_in_use(&w);
        use_aside(&w, 1, 1);
        use_replayed(&w, 1);
        if (rc == 0)
            rc = conditions(&w, &method, &swing, err);
        use_replayed(&w, 0);
        use_aside(&w, 0, 0);
        out->conditions = method;
        if (!mixes) /* the report still names the disagreement */
            memset(&method, 0, sizeof method);
        if (rc == 0)
            rc = bootstrap(&w, n, &out->spread, err);
        /* the swing of replay-only reasons is no disagreement the report
         * names (out->conditions): it widens the spread where larger */
        for (int k = 0; rc == 0 && k < TD_TREE_MAX; k++)
            out->spread.value[k] =
                fmax(hypot(hypot(hypot(out->spread.value[k], term.value[k]),
                                 fmax(method.value[k], swing.value[k])),
                           cold.value[k]),
                     TD_EST_FLOOR);
    }
    work_free(&w);
    return rc;
}
