#include "report/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/csv.h"
#include "report/json.h"
#include "report/kname.h"
#include "report/output.h"
#include "report/select.h"
#include "report/wrap.h"

#define PATH_WIDTH 48
/* The longest node path a row shows whole: a row (its name, three
 * numbers of 9 columns and " ~") fits TD_TEXT_WIDTH columns. */
#define ROW_NAME_MAX (TD_TEXT_WIDTH - 2 - 27 - 2)

/* ---- matching ---------------------------------------------------------------- */

static int by_name(const void *x, const void *y)
{
    const td_kernel_summary *const *a = x, *const *b = y;
    return strcmp((*a)->name, (*b)->name);
}

int td_diff_match(const td_summary *a, const td_summary *b, td_diff *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    size_t total = a->n_kernels + b->n_kernels;
    const td_kernel_summary **sorted_b = malloc((b->n_kernels + 1) * sizeof *sorted_b);
    char *matched_b = calloc(b->n_kernels + 1, 1);
    out->rows = calloc(total + 1, sizeof *out->rows);
    if (!sorted_b || !matched_b || !out->rows) {
        free(sorted_b);
        free(matched_b);
        td_diff_free(out);
        return td_fail(err, "out of memory");
    }
    for (size_t k = 0; k < b->n_kernels; k++)
        sorted_b[k] = &b->kernels[k];
    qsort(sorted_b, b->n_kernels, sizeof *sorted_b, by_name);
    td_diff_row *only_a = calloc(a->n_kernels + 1, sizeof *only_a);
    if (!only_a) {
        free(sorted_b);
        free(matched_b);
        td_diff_free(out);
        return td_fail(err, "out of memory");
    }
    for (size_t k = 0; k < a->n_kernels; k++) {
        const td_kernel_summary *key = &a->kernels[k];
        const td_kernel_summary **hit =
            bsearch(&key, sorted_b, b->n_kernels, sizeof *sorted_b, by_name);
        if (hit) {
            matched_b[*hit - b->kernels] = 1;
            out->rows[out->n_both++] = (td_diff_row){key->name, key, *hit};
        } else {
            only_a[out->n_only_a++] = (td_diff_row){key->name, key, NULL};
        }
    }
    memcpy(out->rows + out->n_both, only_a, out->n_only_a * sizeof *only_a);
    out->n_rows = out->n_both + out->n_only_a;
    for (size_t k = 0; k < b->n_kernels; k++)
        if (!matched_b[k]) {
            out->rows[out->n_rows++] = (td_diff_row){b->kernels[k].name, NULL, &b->kernels[k]};
            out->n_only_b++;
        }
    free(only_a);
    free(sorted_b);
    free(matched_b);
    return 0;
}

double td_diff_kernel_launch_ns(const td_kernel_summary *k)
{
    return k->launch.durations.count ? k->launch.durations.median_ns : NAN;
}

double td_diff_app_launch_ns(const td_summary *s)
{
    return s->launches ? s->total_ns / (double)s->launches : NAN;
}

void td_diff_free(td_diff *d)
{
    free(d->rows);
    memset(d, 0, sizeof *d);
}

int td_diff_columns(const td_diff_side *a, const td_diff_side *b, int level,
                    td_columns *out, td_error *err)
{
    size_t n = a->s->n_models + b->s->n_models;
    const td_model **models = malloc((n ? n : 1) * sizeof *models);
    if (!models)
        return td_fail(err, "out of memory");
    for (size_t m = 0; m < a->s->n_models; m++)
        models[m] = &a->s->models[m];
    for (size_t m = 0; m < b->s->n_models; m++)
        models[a->s->n_models + m] = &b->s->models[m];
    int rc = td_columns_build(out, models, n, level, td_backend_max_depth(), err);
    free(models);
    return rc;
}

/* ---- one side's values ------------------------------------------------------- */

/* A kernel (or the app) as seen from one side; absent when present == 0. */
typedef struct side_view {
    int present, has_data;
    const td_model *model;
    const td_breakdown *b;
    const td_breakdown *spread; /* each node's half-width (levels/spread.h) */
    const td_verdict *verdict;
    size_t launches;
    double total_ns, share_pct;
    double launch_ns;        /* the time of a launch diff compares (TD_DIFF_*_PER_LAUNCH) */
    const char *per_launch;  /* which: "median" or "mean" */
    const td_duration_stats *durations; /* a kernel's; NULL: the application */
} side_view;

static side_view kernel_view(const td_summary *s, const td_kernel_summary *ks)
{
    side_view v = {0};
    if (!ks)
        return v;
    v.present = 1;
    v.has_data = ks->has_data;
    v.model = &s->models[ks->model];
    v.b = &ks->mean;
    v.spread = &ks->spread;
    v.verdict = &ks->verdict;
    v.launches = ks->launches;
    v.total_ns = ks->total_ns;
    v.share_pct = s->total_ns > 0 ? 100.0 * (ks->total_ns / s->total_ns) : 0;
    v.launch_ns = td_diff_kernel_launch_ns(ks);
    v.per_launch = TD_DIFF_KERNEL_PER_LAUNCH;
    v.durations = &ks->launch.durations;
    return v;
}

static side_view app_view(const td_summary *s)
{
    side_view v = {1, s->app_has_data, td_summary_model(s), &s->app, &s->app_spread,
                   &s->app_verdict, s->launches, s->total_ns, 100.0,
                   td_diff_app_launch_ns(s), TD_DIFF_APP_PER_LAUNCH, NULL};
    return v;
}

static double view_value(const side_view *v, const td_column *c)
{
    return v->present && v->has_data ? 100.0 * td_column_value(c, v->model, v->b) : NAN;
}

/* What the text prints for a column without a value: n/k where it was
 * measured but not known, else n/m. */
static const char *view_none(const side_view *v, const td_column *c)
{
    return v->present && v->has_data && td_column_not_known(c, v->model, v->b) ? TD_NOT_KNOWN
                                                                             : TD_NOT_MEASURED;
}

/* How far a column's 95% interval reaches from its value, in points,
 * upward (up) or downward; NAN without a known value. */
static double view_reach(const side_view *v, const td_column *c, int up)
{
    td_interval in;
    double value = view_value(v, c) / 100.0;
    if (isnan(value) || !td_column_interval(c, v->model, v->b, v->spread, &in))
        return NAN;
    return 100.0 * (up ? in.hi - value : value - in.lo);
}

static double view_unattributed(const side_view *v)
{
    return v->present && v->has_data ? 100.0 * v->b->unattributed : NAN;
}

static double view_ipc(const side_view *v)
{
    return v->present && v->has_data ? v->b->ipc : NAN;
}

/* A side's mean and median time per launch: NAN where absent; the
 * application has no median. */
static double view_mean_ns(const side_view *v)
{
    return v->present && v->launches ? v->total_ns / (double)v->launches : NAN;
}

static double view_median_ns(const side_view *v)
{
    return v->present && v->durations && v->durations->count ? v->durations->median_ns : NAN;
}

static const char *view_bottleneck(const side_view *v, int level, char *buf, size_t size)
{
    if (!v->present || !v->has_data)
        return "";
    return td_verdict_names(v->model, v->verdict, level, buf, size);
}

/* ---- text ---------------------------------------------------------------- */

/* v, or none (n/m, n/k) where it is NAN. */
static void print_value(FILE *out, double v, const char *none, int width, int decimals)
{
    if (isnan(v))
        fprintf(out, " %*s", width, none);
    else
        fprintf(out, " %*.*f", width, decimals, v);
}

static void print_number(FILE *out, double v, int width, int decimals)
{
    print_value(out, v, TD_NOT_MEASURED, width, decimals);
}

/* B-A with its sign ("+0.2", "-0.2"); one that rounds to 0 is "0.0", never "-0.0". */
static void print_change(FILE *out, double d, int width, int decimals)
{
    if (!isnan(d) && fabs(d) < 0.5 * pow(10, -decimals))
        print_number(out, 0, width, decimals);
    else if (isnan(d))
        print_number(out, d, width, decimals);
    else
        fprintf(out, " %+*.*f", width, decimals, d);
}

/* A row's two values and what each side prints without one. */
typedef struct row_values {
    double a, b;
    const char *a_none, *b_none;
} row_values;

/* One row; within: B-A lies within the spread of A and B (marked '~'). B-A
 * of a side not known is not known. */
static void print_row(FILE *out, const char *name, row_values r, int decimals, int within)
{
    char shown[TD_TEXT_WIDTH];
    td_elide_middle(name, ROW_NAME_MAX, shown, sizeof shown);
    fprintf(out, "  %-*s", PATH_WIDTH, shown);
    print_value(out, r.a, r.a_none, 8, decimals);
    print_value(out, r.b, r.b_none, 8, decimals);
    if ((isnan(r.a) && strcmp(r.a_none, TD_NOT_KNOWN) == 0) ||
        (isnan(r.b) && strcmp(r.b_none, TD_NOT_KNOWN) == 0))
        print_value(out, NAN, TD_NOT_KNOWN, 8, decimals);
    else
        print_change(out, r.b - r.a, 8, decimals);
    fputs(within ? " ~\n" : "\n", out);
}

/* A node moved when B-A shows as a non-zero change, or one side has no value. */
static int moved(double a, double b)
{
    return isnan(a) != isnan(b) || (!isnan(a) && fabs(b - a) >= 0.05);
}

/* Whether B-A lies within the reach of A's and B's intervals towards
 * each other (the root of the sum of their squares). */
static int within_spread(const side_view *a, const side_view *b, const td_column *c)
{
    double d = view_value(b, c) - view_value(a, c);
    double ra = view_reach(a, c, d > 0), rb = view_reach(b, c, !(d > 0));
    double s = isnan(ra) || isnan(rb) ? NAN : sqrt(ra * ra + rb * rb);
    return !isnan(d) && s > 0 && fabs(d) <= s;
}

static void print_views(FILE *out, const side_view *a, const side_view *b,
                        const td_columns *cols, int level, int all_nodes)
{
    fprintf(out, "  %-*s %8s %8s %8s\n", PATH_WIDTH, "% of issue slots", "A", "B", "B-A");
    size_t hidden = 0, marked = 0;
    for (size_t i = 0; i < cols->count; i++) {
        const td_column *c = &cols->items[i];
        double va = view_value(a, c), vb = view_value(b, c);
        if (!all_nodes && !moved(va, vb)) {
            hidden += !isnan(va) || !isnan(vb);
            continue;
        }
        int within = within_spread(a, b, c);
        marked += within;
        print_row(out, c->path, (row_values){va, vb, view_none(a, c), view_none(b, c)}, 1,
                  within);
    }
    double ua = view_unattributed(a), ub = view_unattributed(b);
    if ((!isnan(ua) && ua >= 0.05) || (!isnan(ub) && ub >= 0.05))
        print_row(out, "Unattributed", (row_values){ua, ub, TD_NOT_MEASURED, TD_NOT_MEASURED},
                  1, 0);
    print_row(out, "IPC", (row_values){view_ipc(a), view_ipc(b), TD_NOT_MEASURED,
                                       TD_NOT_MEASURED}, 2, 0);
    if (hidden)
        fprintf(out, "  (%zu node%s moved less than 0.05 points; -v lists every node)\n", hidden,
                hidden == 1 ? "" : "s");
    if (marked)
        fprintf(out, "  (~: B-A within the spread of A and B over their launches)\n");
    char pa[420], pb[420];
    const char *ba = view_bottleneck(a, level, pa, sizeof pa);
    const char *bb = view_bottleneck(b, level, pb, sizeof pb);
    fprintf(out, "  Bottleneck  A: %s\n              B: %s%s\n",
            a->present && a->has_data ? (*ba ? ba : td_verdict_none(a->verdict)) : TD_NOT_MEASURED,
            b->present && b->has_data ? (*bb ? bb : td_verdict_none(b->verdict)) : TD_NOT_MEASURED,
            a->has_data && b->has_data && strcmp(ba, bb) != 0 ? "   (differs)" : "");
}

static void print_side_header(FILE *out, const char *tag, const td_diff_side *side)
{
    const td_result *res = side->res;
    fprintf(out, "%s: %s\n", tag, side->label);
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        const td_model *m = &side->s->models[d];
        fprintf(out, "   %s (%s, CC %d.%d), arch table %s (%s)", dev->name ? dev->name : "unknown",
                dev->chip ? dev->chip : "?", dev->cc_major, dev->cc_minor, m->arch->name,
                m->arch->family);
        if (m->depth < td_backend_max_depth())
            fprintf(out, ", legacy: no level %d", m->depth + 1);
        fputc('\n', out);
    }
    fprintf(out, "   %s kernels, %s launches (%s profiled), GPU time %s ms%s\n",
            TD_COUNT(side->s->n_kernels), TD_COUNT(side->s->launches),
            TD_COUNT(side->s->profiled), TD_MS(side->s->total_ns),
            res->synthetic ? ", SYNTHETIC (not measured)" : "");
}

int td_diff_conditions_warning(const td_result *a, const td_result *b, char *buf,
                               size_t size)
{
    buf[0] = '\0';
    if (!td_conditions_differ(&a->conditions, &b->conditions))
        return 0;
    char da[256], db[256];
    td_conditions_describe(&a->conditions, 0, da, sizeof da);
    td_conditions_describe(&b->conditions, 0, db, sizeof db);
    snprintf(buf, size, "A and B were measured under different conditions (A: %s; B: %s); "
             "that alone can move a node by tens of points", da, db);
    return 1;
}

static void print_size(FILE *out, const char *tag, const side_view *v)
{
    fprintf(out, "%s%s%s launch%s, %s ms", tag, *tag ? " " : "", TD_COUNT(v->launches),
            v->launches == 1 ? "" : "es", TD_MS(v->total_ns));
    if (v->share_pct < 99.95)
        fprintf(out, " (%.1f%% of GPU time)", v->share_pct);
}

/* B's speedup over A per launch (A's time over B's); NAN where B took none. */
static double speedup(const side_view *a, const side_view *b)
{
    return a->present && b->present && b->launch_ns > 0 ? a->launch_ns / b->launch_ns : NAN;
}

/* Time per launch on each side (the median or mean, said) and B's speedup
 * over A: sides of different launch counts compare per launch, not in total. */
static void print_per_launch(FILE *out, const side_view *a, const side_view *b)
{
    double na = a->launch_ns, nb = b->launch_ns;
    if (isnan(na) || isnan(nb))
        return;
    fprintf(out, "  per launch (%s): A %.3f ms, B %.3f ms, speedup ", a->per_launch, na / 1e6,
            nb / 1e6);
    if (nb > 0)
        fprintf(out, "%.2fx (A/B)\n", na / nb);
    else
        fputs("- (B took no time)\n", out);
}

/* Kernels of both whose launch counts differ. */
static size_t launch_counts_differ(const td_diff *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_both; i++)
        n += d->rows[i].a->launches != d->rows[i].b->launches;
    return n;
}

/* Warnings on what a diff compares: launch counts (times are then per
 * launch) and arch tables (the GPUs differ as well as the code). */
static void print_compare_warnings(FILE *out, const td_diff_side *a, const td_diff_side *b,
                                   const td_diff *d)
{
    size_t kernels = launch_counts_differ(d);
    if (a->s->launches != b->s->launches || kernels)
        fprintf(out, "WARNING: the launch counts differ (A %s, B %s; %zu of the %zu kernels "
                "in both): times are compared per launch\n", TD_COUNT(a->s->launches),
                TD_COUNT(b->s->launches),
                kernels, d->n_both);
    for (size_t i = 0; i < a->s->n_models; i++)
        for (size_t j = 0; j < b->s->n_models; j++) {
            const td_arch *x = a->s->models[i].arch, *y = b->s->models[j].arch;
            if (strcmp(x->name, y->name) == 0)
                continue;
            fprintf(out, "WARNING: A and B ran on different architectures (A %s (%s), B %s "
                    "(%s)): times compare the GPUs as well as the code\n", x->name, x->family,
                    y->name, y->family);
            return;
        }
}

static void print_only(FILE *out, const char *tag, const td_diff *d, size_t first, size_t n,
                       const td_summary *s, char **labels, int wide)
{
    if (n == 0)
        return;
    fprintf(out, "\nOnly in %s (%zu kernel%s):\n", tag, n, n == 1 ? "" : "s");
    for (size_t i = first; i < first + n; i++) {
        const td_diff_row *r = &d->rows[i];
        side_view v = kernel_view(s, r->a ? r->a : r->b);
        char name[TD_TEXT_WIDTH];
        td_elide_middle(labels[i], TD_TEXT_WIDTH / 2, name, sizeof name);
        fprintf(out, "  %s  (", wide ? labels[i] : name);
        print_size(out, "", &v);
        fprintf(out, ")\n");
    }
}

static int diff_prepare(const td_diff_side *a, const td_diff_side *b, int level,
                        td_diff *d, td_columns *cols, td_error *err)
{
    if (td_summary_printable(a->s, err))
        return td_fail_context(err, "A (%s)", a->label);
    if (td_summary_printable(b->s, err))
        return td_fail_context(err, "B (%s)", b->label);
    if (td_diff_match(a->s, b->s, d, err))
        return -1;
    if (td_diff_columns(a, b, level, cols, err)) {
        td_diff_free(d);
        return -1;
    }
    return 0;
}

/* Each row's label: names of A (or of B, for those only in B). */
static int row_labels(const td_diff *d, const td_diff_side *a, const td_diff_side *b,
                      int name_base, char ***labels, td_error *err)
{
    const char **names = malloc((d->n_rows ? d->n_rows : 1) * sizeof *names);
    if (!names)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < d->n_rows; i++)
        names[i] = d->rows[i].kernel;
    int rc = td_kernel_labels(names, d->n_rows, (td_name_base)name_base,
                              d->n_rows && !d->rows[0].a ? b->res : a->res, labels, err);
    free(names);
    return rc;
}

int td_diff_text(FILE *out, const td_diff_side *a, const td_diff_side *b, int level,
                 long max_kernels, td_error *err)
{
    td_diff_text_options o = {level, max_kernels, TD_NAME_FUNCTION, 1, NULL, 1};
    return td_diff_text_with(out, a, b, &o, err);
}

static int diff_text(FILE *out, const td_diff_side *a, const td_diff_side *b,
                     const td_diff_text_options *o, td_error *err)
{
    int level = o->level, name_base = o->name_base;
    long max_kernels = o->max_kernels;
    td_diff d;
    td_columns cols;
    char **labels = NULL;
    if (diff_prepare(a, b, level, &d, &cols, err))
        return -1;
    if (row_labels(&d, a, b, name_base, &labels, err)) {
        td_columns_free(&cols);
        td_diff_free(&d);
        return -1;
    }
    fprintf(out, "topdown %s diff, level %d (B-A in points of issue-slot share)\n",
            TOPDOWN_VERSION, level);
    print_side_header(out, "A", a);
    print_side_header(out, "B", b);
    char warning[768];
    if (td_diff_conditions_warning(a->res, b->res, warning, sizeof warning))
        fprintf(out, "WARNING: %s\n", warning);
    fprintf(out, "Kernels: %zu in both, %zu only in A, %zu only in B\n", d.n_both, d.n_only_a,
            d.n_only_b);
    if (o->kernels_shown)
        fprintf(out, "Kernels shown: those -k '%s' names; the application rows are the whole "
                "runs\n", o->kernels_shown);
    print_compare_warnings(out, a, b, &d);
    side_view va = app_view(a->s), vb = app_view(b->s);
    fprintf(out, "\nApplication: ");
    print_size(out, "A", &va);
    print_size(out, "; B", &vb);
    fputc('\n', out);
    print_per_launch(out, &va, &vb);
    print_views(out, &va, &vb, &cols, level, o->all_nodes);
    size_t shown = d.n_both;
    if (max_kernels > 0 && (size_t)max_kernels < shown)
        shown = (size_t)max_kernels;
    for (size_t i = 0; i < shown; i++) {
        va = kernel_view(a->s, d.rows[i].a);
        vb = kernel_view(b->s, d.rows[i].b);
        char title[TD_TEXT_WIDTH * 4];
        if (o->wide)
            snprintf(title, sizeof title, "%s", labels[i]);
        else
            td_kernel_shown(labels[i], i, d.n_both, title, sizeof title);
        fprintf(out, "\nKernel %zu/%zu: %s\n  ", i + 1, d.n_both, title);
        print_size(out, "A", &va);
        print_size(out, "; B", &vb);
        fputc('\n', out);
        print_per_launch(out, &va, &vb);
        print_views(out, &va, &vb, &cols, level, o->all_nodes);
    }
    if (shown < d.n_both)
        fprintf(out, "\n... %zu more kernel%s in both; --kernels 0 lists all\n",
                d.n_both - shown, d.n_both - shown == 1 ? "" : "s");
    print_only(out, "A", &d, d.n_both, d.n_only_a, a->s, labels, o->wide);
    print_only(out, "B", &d, d.n_both + d.n_only_a, d.n_only_b, b->s, labels, o->wide);
    td_kernel_labels_free(labels, d.n_rows);
    td_columns_free(&cols);
    td_diff_free(&d);
    return 0;
}

typedef struct diff_args {
    const td_diff_side *a, *b;
    const td_diff_text_options *o;
} diff_args;

static int write_diff(FILE *out, const void *ctx, td_error *err)
{
    const diff_args *d = ctx;
    return diff_text(out, d->a, d->b, d->o, err);
}

int td_diff_text_with(FILE *out, const td_diff_side *a, const td_diff_side *b,
                      const td_diff_text_options *o, td_error *err)
{
    diff_args d = {a, b, o};
    return td_write_wrapped(out, o->wide, write_diff, &d, err);
}

/* ---- CSV ------------------------------------------------------------------ */

static const char *const csv_fixed[] = {
    "kernel", "in", "a_launches", "b_launches", "a_total_ns", "b_total_ns",
    "a_gpu_time_pct", "b_gpu_time_pct", "a_ipc", "b_ipc"};

static void csv_header(FILE *out, const td_columns *cols)
{
    for (size_t i = 0; i < sizeof csv_fixed / sizeof *csv_fixed; i++)
        fprintf(out, "%s%s", i ? "," : "", csv_fixed[i]);
    static const char *const prefixes[] = {"a:", "b:", "diff:"};
    for (size_t i = 0; i < cols->count; i++)
        for (int p = 0; p < 3; p++) {
            fprintf(out, ",%s", prefixes[p]);
            td_csv_field(out, cols->items[i].path);
        }
    fputs(",a:unattributed,b:unattributed,diff:unattributed,a_bottleneck,b_bottleneck,"
          "kernel_function,a_mean_ns,b_mean_ns,a_median_ns,b_median_ns,speedup,"
          "speedup_per_launch\n", out);
}

static void csv_pair(FILE *out, double a, double b, int decimals)
{
    fputc(',', out);
    td_csv_number(out, a, decimals);
    fputc(',', out);
    td_csv_number(out, b, decimals);
}

static void csv_triple(FILE *out, double a, double b)
{
    fputc(',', out);
    td_csv_number(out, a, 4);
    fputc(',', out);
    td_csv_number(out, b, 4);
    fputc(',', out);
    double d = b - a;
    td_csv_number(out, !isnan(d) && fabs(d) < 0.00005 ? 0 : d, 4); /* never "-0.0000" */
}


/* Per-launch times and the speedup diff gives, and which figure it compares. */
static void csv_per_launch(FILE *out, const side_view *a, const side_view *b)
{
    csv_pair(out, view_mean_ns(a), view_mean_ns(b), 0);
    csv_pair(out, view_median_ns(a), view_median_ns(b), 0);
    double x = speedup(a, b);
    fputc(',', out);
    td_csv_number(out, x, 4);
    fputc(',', out);
    if (!isnan(x))
        fputs(a->per_launch, out);
}

static void csv_row(FILE *out, const char *name, const side_view *a, const side_view *b,
                    const td_columns *cols, int level)
{
    td_csv_field(out, name);
    fputs(a->present && b->present ? ",both" : (a->present ? ",a" : ",b"), out);
    csv_pair(out, a->present ? (double)a->launches : NAN, b->present ? (double)b->launches : NAN, 0);
    csv_pair(out, a->present ? a->total_ns : NAN, b->present ? b->total_ns : NAN, 0);
    csv_pair(out, a->present ? a->share_pct : NAN, b->present ? b->share_pct : NAN, 4);
    csv_pair(out, view_ipc(a), view_ipc(b), 4);
    for (size_t i = 0; i < cols->count; i++)
        csv_triple(out, view_value(a, &cols->items[i]), view_value(b, &cols->items[i]));
    csv_triple(out, view_unattributed(a), view_unattributed(b));
    char pa[420], pb[420];
    fputc(',', out);
    td_csv_field(out, view_bottleneck(a, level, pa, sizeof pa));
    fputc(',', out);
    td_csv_field(out, view_bottleneck(b, level, pb, sizeof pb));
    fputc(',', out);
    if (strcmp(name, TD_APP_ROW) != 0) {
        char base[512];
        td_kernel_base_name(name, base, sizeof base);
        td_csv_field(out, base);
    }
    csv_per_launch(out, a, b);
    fputc('\n', out);
}

int td_diff_csv(FILE *out, const td_diff_side *a, const td_diff_side *b, int level,
                td_error *err)
{
    td_diff d;
    td_columns cols;
    if (diff_prepare(a, b, level, &d, &cols, err))
        return -1;
    td_c_numeric numeric;
    int rc = td_c_numeric_begin(&numeric, err);
    if (rc == 0) {
        csv_header(out, &cols);
        for (size_t i = 0; i < d.n_rows; i++) {
            side_view va = kernel_view(a->s, d.rows[i].a);
            side_view vb = kernel_view(b->s, d.rows[i].b);
            csv_row(out, d.rows[i].kernel, &va, &vb, &cols, level);
        }
        side_view va = app_view(a->s), vb = app_view(b->s);
        csv_row(out, TD_APP_ROW, &va, &vb, &cols, level);
        td_c_numeric_end(&numeric);
    }
    td_columns_free(&cols);
    td_diff_free(&d);
    return rc;
}

int td_diff_csv_file(const char *path, const td_diff_side *a, const td_diff_side *b,
                     int level, td_error *err)
{
    td_output o;
    if (td_output_open(&o, path, err))
        return -1;
    int rc = td_diff_csv(o.f, a, b, level, err);
    if (rc) {
        td_output_discard(&o);
        return -1;
    }
    return td_output_commit(&o, err);
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_number(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

/* One side's sizes, or null where the kernel is absent. */
static void json_side(cJSON *o, const char *key, const side_view *v, int level)
{
    if (!v->present) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    char path[420];
    cJSON *s = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(s, "launches", (double)v->launches);
    cJSON_AddNumberToObject(s, "total_ns", v->total_ns);
    cJSON_AddNumberToObject(s, "gpu_time_pct", v->share_pct);
    json_number(s, "ipc", view_ipc(v));
    json_number(s, "mean_ns", view_mean_ns(v));
    json_number(s, "median_ns", view_median_ns(v));
    const char *bottleneck = view_bottleneck(v, level, path, sizeof path);
    if (v->has_data)
        cJSON_AddStringToObject(s, "bottleneck", bottleneck);
    else
        cJSON_AddNullToObject(s, "bottleneck");
}

static cJSON *json_row(const char *name, const char *in, const side_view *a, const side_view *b,
                       const td_columns *cols, int level)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "in", in);
    json_side(o, "a", a, level);
    json_side(o, "b", b, level);
    double x = speedup(a, b);
    json_number(o, "speedup", x);
    if (isnan(x))
        cJSON_AddNullToObject(o, "speedup_per_launch");
    else
        cJSON_AddStringToObject(o, "speedup_per_launch", a->per_launch);
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (size_t i = 0; i < cols->count; i++) {
        const td_column *c = &cols->items[i];
        double va = view_value(a, c), vb = view_value(b, c), d = vb - va;
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "path", c->path);
        json_number(n, "a_pct", va);
        json_number(n, "b_pct", vb);
        json_number(n, "diff", !isnan(d) && fabs(d) < 0.00005 ? 0 : d);
        cJSON_AddBoolToObject(n, "within_spread", within_spread(a, b, c));
        cJSON_AddItemToArray(nodes, n);
    }
    return o;
}

int td_diff_json(FILE *out, const td_diff_side *a, const td_diff_side *b, int level,
                 td_error *err)
{
    td_diff d;
    td_columns cols;
    if (diff_prepare(a, b, level, &d, &cols, err))
        return -1;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", TD_DIFF_SCHEMA);
    cJSON_AddStringToObject(root, "tool_version", TOPDOWN_VERSION);
    cJSON_AddNumberToObject(root, "level", level);
    cJSON_AddStringToObject(root, "a", a->label);
    cJSON_AddStringToObject(root, "b", b->label);
    char warning[768];
    if (td_diff_conditions_warning(a->res, b->res, warning, sizeof warning))
        cJSON_AddStringToObject(root, "warning", warning);
    side_view va = app_view(a->s), vb = app_view(b->s);
    cJSON_AddItemToObject(root, "application", json_row(TD_APP_ROW, "both", &va, &vb, &cols, level));
    cJSON *kernels = cJSON_AddArrayToObject(root, "kernels");
    for (size_t i = 0; i < d.n_rows; i++) {
        va = kernel_view(a->s, d.rows[i].a);
        vb = kernel_view(b->s, d.rows[i].b);
        const char *in = va.present && vb.present ? "both" : va.present ? "a" : "b";
        cJSON_AddItemToArray(kernels, json_row(d.rows[i].kernel, in, &va, &vb, &cols, level));
    }
    td_columns_free(&cols);
    td_diff_free(&d);
    return td_json_print(out, root, err);
}
