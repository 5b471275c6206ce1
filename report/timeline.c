#include "report/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "levels/combine.h"
#include "levels/spread.h"
#include "report/columns.h"
#include "report/select.h"
#include "report/wrap.h"

#define LISTED_CANDIDATES 6

/* The kernels m matches: how many, the first LISTED_CANDIDATES of them in
 * which, the last in *name. */
static size_t matching_kernels(const td_summary *s, const td_result *res, const td_kmatch *m,
                               size_t *which, const char **name)
{
    size_t matches = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        if (!td_kernel_matches(s, res, k, m))
            continue;
        if (matches < LISTED_CANDIDATES)
            which[matches] = k;
        matches++;
        *name = s->kernels[k].name;
    }
    return matches;
}

/* The kernels pattern names as a whole (td_kernel_by_name), counted and
 * listed as matching_kernels does. */
static int whole_name(const td_summary *s, const td_result *res, const char *pattern,
                      size_t *which, const char **name, size_t *matches, td_error *err)
{
    unsigned char *keep = malloc(s->n_kernels ? s->n_kernels : 1);
    size_t n = 0;
    if (!keep)
        return td_fail(err, "out of memory");
    int rc = td_kernel_by_name(s, res, pattern, keep, &n, err);
    for (size_t k = 0; rc == 0 && k < s->n_kernels; k++) {
        if (!keep[k])
            continue;
        if (*matches < LISTED_CANDIDATES)
            which[*matches] = k;
        (*matches)++;
        *name = s->kernels[k].name;
    }
    free(keep);
    return rc;
}

int td_kernel_lookup(const td_summary *s, const td_result *res, const char *pattern,
                     td_name_base base, const char **name, td_error *err)
{
    size_t which[LISTED_CANDIDATES], index = 0;
    int ranked = td_kernel_rank(s, pattern, &index, err);
    if (ranked < 0)
        return -1;
    if (ranked) {
        *name = s->kernels[index].name;
        return 0;
    }
    size_t matches = 0;
    if (whole_name(s, res, pattern, which, name, &matches, err))
        return -1;
    if (matches == 0) {
        td_kmatch *m = NULL;
        if (td_kmatch_compile(pattern, base, &m, err))
            return -1;
        matches = matching_kernels(s, res, m, which, name);
        td_kmatch_free(m);
    }
    if (matches == 1)
        return 0;
    *name = NULL;
    char listed[900] = "";
    if (matches > 1) {
        td_kernel_candidates(s, which, LISTED_CANDIDATES < matches ? LISTED_CANDIDATES : matches,
                             listed, sizeof listed);
        return td_fail(err, "kernel \"%s\" is ambiguous: %zu kernels match it (%s%s); give "
                       "more of the name, or its rank: --timeline '#%zu'", pattern, matches,
                       listed, matches > LISTED_CANDIDATES ? ", ..." : "", which[0] + 1);
    }
    return td_kernel_no_match(s, res, pattern, base, err);
}

static int add_point(td_timeline *t, size_t *cap, const td_timeline_point *p, td_error *err)
{
    if (t->n_points == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        td_timeline_point *bigger = realloc(t->points, *cap * sizeof *bigger);
        if (!bigger)
            return td_fail(err, "out of memory");
        t->points = bigger;
    }
    t->points[t->n_points++] = *p;
    return 0;
}

/* The counter-group launches of the point being gathered. */
typedef struct gather {
    td_combine acc;
    td_boot_set boot;
    unsigned long long groups; /* bit g: group g measured */
    size_t dev, launches;
    td_timeline_point first;
    double duration_sum;
} gather;

static void gather_reset(gather *g)
{
    td_boot_set_free(&g->boot);
    memset(g, 0, sizeof *g);
}

static int all_groups(const gather *g, const td_device *dev)
{
    size_t n = dev->n_groups < 64 ? dev->n_groups : 64;
    return n > 0 && g->groups == (n == 64 ? ~0ull : (1ull << n) - 1);
}

/* Adds a group launch; a complete point is modelled into *point (1). */
static int gather_add(gather *g, const td_result *res, const td_summary *s,
                      const td_timeline_point *p, const td_launch *l, td_timeline_point *point,
                      td_error *err)
{
    if (g->launches && g->dev != p->dev)
        gather_reset(g); /* a point stays on one device section */
    const td_device *dev = &res->devices[p->dev];
    if (g->launches == 0) {
        g->first = *p;
        g->dev = p->dev;
    }
    td_combine_add(&g->acc, &s->models[p->dev], &s->bindings[p->dev], dev, l);
    if (td_boot_set_add(&g->boot, l, p->dev, err))
        return -1;
    if (l->group >= 0 && l->group < 64)
        g->groups |= 1ull << l->group;
    g->launches++;
    g->duration_sum += l->duration_ns;
    if (!all_groups(g, dev))
        return 0;
    size_t d = g->dev, missing = 0;
    *point = g->first;
    point->samples = g->launches;
    point->duration_ns = g->duration_sum / (double)g->launches;
    int rc = td_combine_model(&g->acc, &s->models[d], &s->bindings[d], dev, &point->b,
                              &missing, err);
    if (rc == 0)
        rc = td_spread_bootstrap(&g->boot, s->models, s->bindings, res->devices, d,
                                 &point->spread, &point->has_spread, err);
    if (rc == 0 && point->has_spread)
        td_spread_mark(&s->models[d], &point->b, &point->spread);
    gather_reset(g);
    return rc ? -1 : 1;
}

/* One launch of the kernel: a point of its own (full set), part of a
 * combined point (one counter group), or nothing (not profiled). */
static int add_launch_point(td_timeline *out, size_t *cap, gather *gat, const td_result *res,
                            const td_summary *s, const td_launch_ref *ref, td_error *err)
{
    const td_launch *l = &res->devices[ref->dev].launches[ref->index];
    td_timeline_point p = {.invocation = ref->invocation, .launch_id = l->id, .dev = ref->dev,
                           .start_ns = l->start_ns, .duration_ns = l->duration_ns,
                           .samples = 1};
    char what[200];
    snprintf(what, sizeof what, "launch %llu of kernel %.150s", (unsigned long long)l->id,
             l->kernel);
    if (!isfinite(l->duration_ns))
        return td_fail(err, "%s: its duration is %g ns, not a number that can be printed; "
                       "check the file", what, l->duration_ns);
    if (l->group != TD_GROUP_ALL) {
        int done = gather_add(gat, res, s, &p, l, &p, err);
        if (done <= 0)
            return done;
        out->combined++;
    } else if (td_summary_launch(s, res, ref->dev, ref->index, &p.b, err)) {
        return -1;
    }
    if (td_breakdown_printable(&s->models[ref->dev], &p.b, what, err))
        return -1;
    return p.b.has_slots ? add_point(out, cap, &p, err) : 0;
}

int td_timeline_build(const td_result *res, const td_summary *s, const char *kernel,
                      td_timeline *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    out->kernel = kernel;
    td_launch_ref *refs = NULL;
    size_t n = 0, cap = 0;
    if (td_launches_in_order(res, &refs, &n, err))
        return -1;
    gather gat;
    memset(&gat, 0, sizeof gat);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const td_launch *l = &res->devices[refs[i].dev].launches[refs[i].index];
        if (strcmp(l->kernel, kernel) != 0)
            continue;
        out->invocations++;
        if (l->profiled)
            rc = add_launch_point(out, &cap, &gat, res, s, &refs[i], err);
    }
    out->leftover = gat.launches;
    gather_reset(&gat);
    free(refs);
    if (rc == 0 && out->invocations == 0)
        rc = td_fail(err, "the result has no launch of kernel \"%s\"", kernel);
    if (rc)
        td_timeline_free(out);
    return rc;
}

void td_timeline_free(td_timeline *t)
{
    free(t->points);
    memset(t, 0, sizeof *t);
}

/* The level-1 nodes' names, then "Unattributed": the phase columns. */
void td_level1_names(const char *names[TD_PHASE_WIDTH])
{
    const td_node_set *set = td_nodes_builtin();
    size_t j = 0;
    for (int n = 0; n < set->count && j + 1 < TD_PHASE_WIDTH; n++)
        if (set->nodes[n].parent < 0)
            names[j++] = set->nodes[n].name;
    names[j] = "Unattributed";
}

void td_level1_shares(const td_breakdown *b, double shares[TD_PHASE_WIDTH])
{
    const td_node_set *set = td_nodes_builtin();
    size_t j = 0;
    for (int n = 0; n < set->count && j + 1 < TD_PHASE_WIDTH; n++)
        if (set->nodes[n].parent < 0)
            shares[j++] = 100.0 * b->value[n];
    shares[j] = 100.0 * b->unattributed;
}

size_t td_phase_split(const double *series, size_t n, size_t width, double threshold,
                      size_t *starts)
{
    size_t phases = 0;
    for (size_t i = 0; i < n; i++) {
        int jump = i == 0;
        for (size_t j = 0; j < width && !jump; j++)
            jump = fabs(series[i * width + j] - series[(i - 1) * width + j]) > threshold;
        if (jump)
            starts[phases++] = i;
    }
    return phases;
}

static void phase_mean(const td_timeline *t, td_phase *p)
{
    double weights = 0;
    memset(&p->mean, 0, sizeof p->mean);
    p->total_ns = 0;
    for (size_t i = p->first; i <= p->last; i++) {
        double w = t->points[i].duration_ns > 0 ? t->points[i].duration_ns : 1.0;
        td_breakdown_accumulate(&p->mean, &t->points[i].b, w);
        weights += w;
        p->total_ns += t->points[i].duration_ns;
    }
    td_breakdown_scale(&p->mean, 1.0 / weights);
}

int td_timeline_phases(const td_timeline *t, double threshold, td_phase **out, size_t *n,
                       td_error *err)
{
    *out = NULL;
    *n = 0;
    if (t->n_points == 0)
        return 0;
    double *series = malloc(t->n_points * TD_PHASE_WIDTH * sizeof *series);
    size_t *starts = malloc(t->n_points * sizeof *starts);
    *out = calloc(t->n_points, sizeof **out);
    if (!series || !starts || !*out) {
        free(series);
        free(starts);
        free(*out);
        *out = NULL;
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < t->n_points; i++)
        td_level1_shares(&t->points[i].b, &series[i * TD_PHASE_WIDTH]);
    *n = td_phase_split(series, t->n_points, TD_PHASE_WIDTH, threshold, starts);
    for (size_t p = 0; p < *n; p++) {
        (*out)[p].first = starts[p];
        (*out)[p].last = p + 1 < *n ? starts[p + 1] - 1 : t->n_points - 1;
        phase_mean(t, &(*out)[p]);
    }
    free(series);
    free(starts);
    return 0;
}

/* ---- text ------------------------------------------------------------------ */

size_t td_timeline_models(const td_timeline *t, const td_summary *s, const td_model **models)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_points; i++) {
        const td_model *m = &s->models[t->points[i].dev];
        int seen = 0;
        for (size_t j = 0; j < n; j++)
            seen |= models[j] == m;
        if (!seen)
            models[n++] = m;
    }
    return n;
}

static const char *column_label(const td_column *c)
{
    return c->name;
}

static int any_unattributed(const td_timeline *t)
{
    for (size_t i = 0; i < t->n_points; i++)
        if (t->points[i].b.unattributed > 0.0005)
            return 1;
    return 0;
}

/* Leaves zero in every invocation only widen the table: left out. */
static size_t drop_unused(td_columns *cols, const td_timeline *t, const td_summary *s)
{
    size_t kept = 0;
    for (size_t c = 0; c < cols->count; c++) {
        int used = 0;
        for (size_t i = 0; i < t->n_points && !used; i++) {
            double v = td_column_value(&cols->items[c], &s->models[t->points[i].dev],
                                       &t->points[i].b);
            used = !isnan(v) && v >= 0.0005;
        }
        if (used)
            cols->items[kept++] = cols->items[c];
    }
    size_t dropped = cols->count - kept;
    cols->count = kept;
    return dropped;
}

/* A combined point's interval that reaches farthest among the shown
 * nodes with a value ("+-1.1", "+1.1-0.4"); "" where none has one. */
static const char *widest_spread(const td_timeline_point *p, const td_summary *s,
                                 const td_columns *cols, char *buf, size_t size)
{
    const td_model *m = &s->models[p->dev];
    double widest = -1;
    buf[0] = '\0';
    for (size_t c = 0; c < cols->count; c++) {
        double v = td_column_value(&cols->items[c], m, &p->b);
        td_interval in;
        if (isnan(v) || !td_column_interval(&cols->items[c], m, &p->b, &p->spread, &in) ||
            !(td_interval_reach(v, in) > widest))
            continue;
        widest = td_interval_reach(v, in);
        td_interval_text(v, in, buf, size);
    }
    return buf;
}

/* The width of column c's cells. */
static int column_width(const td_column *c)
{
    int width = (int)strlen(column_label(c));
    return width < 7 ? 7 : width;
}

/* The node columns first..last-1, after the invocation's own; the
 * unattributed and spread columns with the last block. */
static void print_block(FILE *out, const td_timeline *t, const td_summary *s,
                        const td_columns *cols, size_t first, size_t last)
{
    int unattributed = any_unattributed(t) && last == cols->count;
    int combined = t->combined > 0;
    int spread = combined && last == cols->count;
    fprintf(out, "  %6s %9s %12s", "inv", "launch", "time_us");
    if (combined)
        fprintf(out, " %7s", "samples");
    for (size_t c = first; c < last; c++)
        fprintf(out, " %*s", column_width(&cols->items[c]), column_label(&cols->items[c]));
    fprintf(out, "%s%s\n", unattributed ? " Unattributed" : "", spread ? "  spread" : "");
    for (size_t i = 0; i < t->n_points; i++) {
        const td_timeline_point *p = &t->points[i];
        fprintf(out, "  %6zu %9llu %12.3f", p->invocation, (unsigned long long)p->launch_id,
                p->duration_ns / 1e3);
        if (combined)
            fprintf(out, " %7zu", p->samples);
        for (size_t c = first; c < last; c++) {
            const td_column *col = &cols->items[c];
            double v = td_column_value(col, &s->models[p->dev], &p->b);
            if (isnan(v))
                fprintf(out, " %*s", column_width(col),
                        td_column_not_known(col, &s->models[p->dev], &p->b) ? TD_NOT_KNOWN
                                                                          : TD_NOT_MEASURED);
            else
                fprintf(out, " %*.1f", column_width(col), 100.0 * v);
        }
        if (unattributed)
            fprintf(out, " %12.1f", 100.0 * p->b.unattributed);
        char widest[64];
        if (spread && p->has_spread) /* one sample a group: none to show (as in --json) */
            fprintf(out, "  %s", widest_spread(p, s, cols, widest, sizeof widest));
        fputc('\n', out);
    }
}

/* The table; unless wide, its node columns split over blocks of at most
 * TD_TEXT_WIDTH columns, each repeating the invocation's columns. */
static void print_table(FILE *out, const td_timeline *t, const td_summary *s,
                        const td_columns *cols, int wide)
{
    int fixed = 31 + (t->combined > 0 ? 8 : 0);
    int tail = (any_unattributed(t) ? 13 : 0) + (t->combined > 0 ? 10 : 0);
    size_t first = 0;
    do {
        size_t last = first;
        int used = fixed;
        while (last < cols->count) {
            int w = 1 + column_width(&cols->items[last]);
            int end = last + 1 == cols->count ? tail : 0;
            if (!wide && last > first && used + w + end > TD_TEXT_WIDTH)
                break;
            used += w;
            last++;
        }
        if (first > 0)
            fputc('\n', out);
        print_block(out, t, s, cols, first, last);
        first = last;
    } while (first < cols->count);
}

static void print_phases(FILE *out, const td_timeline *t, const td_summary *s,
                         const td_phase *phases, size_t n, int level, double threshold)
{
    fprintf(out, "\nPhases: %zu (a new phase starts where a level-1 share moves more than %.1f points from the previous invocation)\n",
            n, threshold);
    const char *names[TD_PHASE_WIDTH];
    td_level1_names(names);
    for (size_t p = 0; p < n; p++) {
        const td_phase *ph = &phases[p];
        const td_model *m = &s->models[t->points[ph->first].dev];
        double shares[TD_PHASE_WIDTH];
        td_level1_shares(&ph->mean, shares);
        fprintf(out, "  phase %zu: invocations %zu..%zu (%zu, %.3f ms):", p + 1,
                t->points[ph->first].invocation, t->points[ph->last].invocation,
                ph->last - ph->first + 1, ph->total_ns / 1e6);
        for (int j = 0; j < TD_PHASE_WIDTH; j++)
            if (j < TD_PHASE_WIDTH - 1 || shares[j] >= 0.05)
                fprintf(out, " %s %.1f", names[j], shares[j]);
        td_verdict v;
        td_model_judge(m, &ph->mean, &v);
        char path[420];
        td_verdict_names(m, &v, level, path, sizeof path);
        fprintf(out, "; bottleneck %s\n", path[0] ? path : "none");
    }
}

/* The text, unwrapped but for the table's blocks. */
static int timeline_text(FILE *out, const td_timeline *t, const td_summary *s, int level,
                         double threshold, int wide, td_error *err)
{
    char name[TD_TEXT_WIDTH];
    td_elide_middle(t->kernel, TD_TEXT_WIDTH - 20, name, sizeof name);
    fprintf(out, "Timeline of kernel %s\n", wide ? t->kernel : name);
    fprintf(out, "  %zu invocation%s, %zu %s with active cycles; level %d, %% of issue slots\n",
            t->invocations, t->invocations == 1 ? "" : "s", t->n_points,
            t->combined ? (t->n_points == 1 ? "point" : "points") : "profiled", level);
    if (t->combined)
        fprintf(out, "  %zu point%s consecutive sampled invocations, one per counter "
                "group (samples); spread: the widest node's 95%% interval, in points\n",
                t->combined, t->combined == 1 ? " combines" : "s combine");
    if (t->leftover)
        fprintf(out, "  (%zu sampled invocation%s after the last complete point not shown)\n",
                t->leftover, t->leftover == 1 ? "" : "s");
    if (t->n_points == 0) {
        fprintf(out, "  no profiled invocation: nothing to show (profile more launches, e.g. --per-kernel N)\n");
        return 0;
    }
    const td_model **models = malloc(t->n_points * sizeof *models);
    if (!models)
        return td_fail(err, "out of memory");
    td_columns cols;
    td_phase *phases = NULL;
    size_t n_phases = 0;
    int rc = td_columns_segments(&cols, models, td_timeline_models(t, s, models), level, err);
    free(models);
    if (rc)
        return -1;
    if (td_timeline_phases(t, threshold, &phases, &n_phases, err) == 0) {
        size_t dropped = drop_unused(&cols, t, s);
        if (dropped)
            fprintf(out, "  (%zu node%s below 0.05%% in every invocation not shown)\n", dropped,
                    dropped == 1 ? "" : "s");
        print_table(out, t, s, &cols, wide);
        print_phases(out, t, s, phases, n_phases, level, threshold);
    } else {
        rc = -1;
    }
    free(phases);
    td_columns_free(&cols);
    return rc;
}

typedef struct timeline_args {
    const td_timeline *t;
    const td_summary *s;
    int level;
    double threshold;
} timeline_args;

static int write_timeline(FILE *out, const void *ctx, td_error *err)
{
    const timeline_args *a = ctx;
    return timeline_text(out, a->t, a->s, a->level, a->threshold, 0, err);
}

int td_timeline_text_with(FILE *out, const td_timeline *t, const td_summary *s, int level,
                          double threshold, int wide, td_error *err)
{
    if (wide)
        return timeline_text(out, t, s, level, threshold, 1, err);
    timeline_args a = {t, s, level, threshold};
    return td_write_wrapped(out, 0, write_timeline, &a, err);
}

int td_timeline_text(FILE *out, const td_timeline *t, const td_summary *s, int level,
                     double threshold, td_error *err)
{
    return td_timeline_text_with(out, t, s, level, threshold, 0, err);
}
