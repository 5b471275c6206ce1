#include "report/pm_timeline.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/kname.h"
#include "report/output.h"
#include "report/wrap.h"

#define BIN_SLOTS 16 /* kernels tracked per bin while overlapping launches */
#define PLOT_LABELS 24

long td_pm_next_device(const td_result *res, size_t from)
{
    for (size_t d = from; d < res->n_devices; d++)
        if (res->devices[d].pm && res->devices[d].pm->n > 0)
            return (long)d;
    return -1;
}

typedef struct slot {
    const char *kernel;
    double ns;
} slot;

typedef struct bin_kernels {
    slot s[BIN_SLOTS];
    size_t n, dropped;
} bin_kernels;

static void add_overlap(bin_kernels *k, const char *kernel, double ns)
{
    for (size_t i = 0; i < k->n; i++)
        if (k->s[i].kernel == kernel) { /* interned: equal names, equal pointers */
            k->s[i].ns += ns;
            return;
        }
    if (k->n == BIN_SLOTS) {
        k->dropped++;
        return;
    }
    k->s[k->n++] = (slot){kernel, ns};
}

static int by_ns_desc(const void *a, const void *b)
{
    double x = ((const slot *)a)->ns, y = ((const slot *)b)->ns;
    return (x < y) - (x > y);
}

/* First bin that ends after t (bins are in time order). */
static size_t first_bin_after(const td_pm_timeline *t, uint64_t at)
{
    size_t lo = 0, hi = t->n_bins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->bins[mid].end_ns <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Each timed launch adds its overlap with the bins it spans. */
static int overlay_kernels(td_pm_timeline *t, td_error *err)
{
    bin_kernels *k = calloc(t->n_bins, sizeof *k);
    if (!k)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < t->dev->n_launches; i++) {
        const td_launch *l = &t->dev->launches[i];
        if (l->start_ns == 0 || !(l->duration_ns > 0))
            continue; /* not timed */
        uint64_t s = l->start_ns, e = l->start_ns + (uint64_t)l->duration_ns;
        for (size_t b = first_bin_after(t, s); b < t->n_bins && t->bins[b].start_ns < e; b++) {
            uint64_t lo = s > t->bins[b].start_ns ? s : t->bins[b].start_ns;
            uint64_t hi = e < t->bins[b].end_ns ? e : t->bins[b].end_ns;
            if (hi > lo)
                add_overlap(&k[b], l->kernel, (double)(hi - lo));
        }
    }
    for (size_t b = 0; b < t->n_bins; b++) {
        qsort(k[b].s, k[b].n, sizeof *k[b].s, by_ns_desc);
        td_pm_bin *bin = &t->bins[b];
        for (size_t i = 0; i < k[b].n && i < TD_PM_BIN_KERNELS; i++) {
            bin->kernel[i] = k[b].s[i].kernel;
            bin->kernel_ns[i] = k[b].s[i].ns;
        }
        bin->other_kernels = (k[b].n > TD_PM_BIN_KERNELS ? k[b].n - TD_PM_BIN_KERNELS : 0) +
                             k[b].dropped;
    }
    free(k);
    return 0;
}

static void fill_bins(td_pm_timeline *t, const td_pm_samples *pm, double *sum)
{
    for (size_t b = 0; b < t->n_bins; b++) {
        size_t first = b * t->rows_per_bin, last = first + t->rows_per_bin;
        if (last > pm->n)
            last = pm->n;
        memset(sum, 0, pm->n_metrics * sizeof *sum);
        for (size_t r = first; r < last; r++)
            for (size_t m = 0; m < pm->n_metrics; m++)
                sum[m] += td_pm_row(pm, r)[m];
        td_pm_bin *bin = &t->bins[b];
        bin->start_ns = pm->start_ns[first];
        bin->end_ns = pm->end_ns[last - 1];
        bin->rows = last - first;
        td_pm_model_point(&t->model, sum, last - first, &bin->p);
    }
}

int td_pm_timeline_build(const td_result *res, const td_summary *s, size_t dev,
                         size_t max_bins, td_pm_timeline *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    const td_device *d = &res->devices[dev];
    const td_pm_samples *pm = d->pm;
    if (!pm || pm->n == 0)
        return td_fail(err, "device section %zu has no PM samples", dev);
    if (dev >= s->n_models || !s->models[dev].arch)
        return td_fail(err, "device section %zu has no arch table", dev);
    if (td_pm_model_init(&out->model, s->models[dev].arch, pm, err))
        return td_fail_context(err, "device section %zu", dev);
    out->dev = d;
    out->dev_index = dev;
    if (max_bins == 0)
        max_bins = 1;
    out->rows_per_bin = (pm->n + max_bins - 1) / max_bins;
    out->n_bins = (pm->n + out->rows_per_bin - 1) / out->rows_per_bin;
    out->bins = calloc(out->n_bins, sizeof *out->bins);
    double *sum = malloc(pm->n_metrics * sizeof *sum);
    if (!out->bins || !sum) {
        free(sum);
        td_pm_timeline_free(out);
        return td_fail(err, "out of memory");
    }
    fill_bins(out, pm, sum);
    free(sum);
    if (overlay_kernels(out, err)) {
        td_pm_timeline_free(out);
        return -1;
    }
    return 0;
}

void td_pm_timeline_free(td_pm_timeline *t)
{
    free(t->bins);
    memset(t, 0, sizeof *t);
}

/* ---- text ----------------------------------------------------------------- */

/* A kernel's base function name (report/kname.h), at most max characters. */
static void short_name(const char *name, char *buf, size_t size, size_t max)
{
    td_kernel_base_name(name, buf, size);
    if (strlen(buf) > max)
        buf[max] = '\0';
}

/* The row's kernels in at most room columns: the names that fit, then
 * "+N" for the others. */
static void print_kernels(FILE *out, const td_pm_bin *b, size_t room)
{
    char name[64];
    if (!b->kernel[0]) {
        fputs("-", out);
        return;
    }
    size_t used = 0, shown = 0, n = 0;
    while (n < TD_PM_BIN_KERNELS && b->kernel[n])
        n++;
    for (size_t i = 0; i < n; i++) {
        short_name(b->kernel[i], name, sizeof name, room > 44 ? 40 : room - 4);
        size_t left = n - i - 1 + b->other_kernels;
        size_t need = (shown ? 2 : 0) + strlen(name) + (left ? 4 : 0);
        if (shown && used + need > room)
            break;
        used += (size_t)fprintf(out, "%s%s", shown ? ", " : "", name);
        shown++;
    }
    if (n - shown + b->other_kernels)
        fprintf(out, " +%zu", n - shown + b->other_kernels);
}

static void print_head(FILE *out, const td_pm_timeline *t)
{
    const td_device *d = t->dev;
    const td_pm_samples *pm = d->pm;
    fprintf(out, "PM-sampling timeline, device %d: %s (%s), arch table %s\n", d->index,
            d->name ? d->name : "?", d->chip ? d->chip : "?", t->model.model.arch->name);
    fprintf(out, "  interval %.1f us; %s samples in %s rows", (double)pm->interval_ns / 1e3,
            TD_COUNT(pm->samples), TD_COUNT(pm->n));
    if (pm->merges)
        fprintf(out, " (up to %zu samples a row: rows merge to bound memory)",
                (size_t)1 << pm->merges);
    fprintf(out, ", shown as %zu rows of %zu\n", t->n_bins, t->rows_per_bin);
    if (pm->overflows)
        fprintf(out, "  warning: samples were lost, the hardware buffer overflowed %llu "
                "time%s (a longer --pm-interval keeps up)\n",
                (unsigned long long)pm->overflows, pm->overflows == 1 ? "" : "s");
    fputs("  sampled:", out);
    for (size_t m = 0; m < pm->n_metrics; m++)
        fprintf(out, " %s", pm->metrics[m]);
    fputc('\n', out);
    char unsplit[1024];
    if (td_pm_model_unsplit(&t->model, unsplit, sizeof unsplit) > 0) {
        fputs("  cannot split with these counters:\n", out);
        for (char *line = unsplit, *nl; *line; line = nl + 1) {
            nl = strchr(line, '\n');
            fprintf(out, "    - %.*s\n", (int)(nl - line), line);
        }
    }
}

/* The level-1 columns this model shows. */
static size_t shown_columns(const td_pm_model *m, int *cols)
{
    size_t n = 0;
    cols[n++] = TD_PM_RETIRE;
    cols[n++] = TD_PM_DIVERGENCE;
    if (m->split_stalls) {
        cols[n++] = TD_PM_FRONTEND;
        cols[n++] = TD_PM_BACKEND;
    } else {
        cols[n++] = TD_PM_STALLED;
    }
    return n;
}

/* The memory units this model shows, by table index. */
static size_t shown_units(const td_pm_model *m, size_t *units)
{
    size_t n = 0;
    for (size_t u = 0; u < m->model.arch->memory.n_units; u++)
        if (td_pm_model_shows_unit(m, u))
            units[n++] = u;
    return n;
}

/* The columns left to a row's kernels after its times and n_cols shares. */
static size_t kernels_room(size_t n_cols)
{
    int room = td_text_width() - (10 + 1 + 10 + 11 * (int)n_cols + 3);
    return room > 20 ? (size_t)room : 20;
}

int td_pm_timeline_text(FILE *out, const td_pm_timeline *t, td_error *err)
{
    (void)err;
    td_c_numeric numeric;
    if (td_c_numeric_begin(&numeric, err))
        return -1;
    print_head(out, t);
    int cols[TD_PM_COLUMNS];
    size_t n_cols = shown_columns(&t->model, cols);
    size_t units[TD_MEM_MAX_UNITS], n_units = shown_units(&t->model, units);
    fprintf(out, "  level 1, %% of issue slots%s:\n\n  start ms    span ms",
            n_units ? "; then units' throughput, % of peak" : "");
    for (size_t c = 0; c < n_cols; c++)
        fprintf(out, " %10s", td_pm_column_names[cols[c]]);
    for (size_t u = 0; u < n_units; u++)
        fprintf(out, " %9s%%", t->model.model.arch->memory.units[units[u]].name);
    fputs(n_units ? "   kernels\n" : "   kernels (longest first)\n", out);
    for (size_t b = 0; b < t->n_bins; b++) {
        const td_pm_bin *bin = &t->bins[b];
        fprintf(out, "%10.3f %10.3f", (double)bin->start_ns / 1e6,
                (double)(bin->end_ns - bin->start_ns) / 1e6);
        if (bin->p.busy)
            for (size_t c = 0; c < n_cols; c++)
                fprintf(out, " %10.1f", bin->p.share[cols[c]]);
        else
            fprintf(out, " %-*s", (int)(11 * n_cols - 1), "      idle");
        for (size_t u = 0; u < n_units; u++) {
            double pct = bin->p.unit_pct[units[u]];
            if (isnan(pct))
                fprintf(out, " %10s", "-");
            else
                fprintf(out, " %10.1f", pct);
        }
        fputs("   ", out);
        print_kernels(out, bin, kernels_room(n_cols + n_units));
        fputc('\n', out);
    }
    td_c_numeric_end(&numeric);
    return 0;
}

static int write_text(FILE *out, const void *ctx, td_error *err)
{
    return td_pm_timeline_text(out, ctx, err);
}

/* Each device's table, its head's long lines wrapped (the rows fit). */
int td_pm_timeline_report(FILE *out, const td_result *res, const td_summary *s,
                          td_error *err)
{
    long d = td_pm_next_device(res, 0);
    if (d < 0)
        return td_fail(err, "the result has no PM samples; record them with "
                       "`topdown --pm-interval USEC -- APP`");
    for (int first = 1; d >= 0; d = td_pm_next_device(res, (size_t)d + 1), first = 0) {
        td_pm_timeline t;
        if (td_pm_timeline_build(res, s, (size_t)d, TD_PM_TEXT_BINS, &t, err))
            return -1;
        if (!first)
            fputc('\n', out);
        int rc = td_write_wrapped(out, 0, write_text, &t, err);
        td_pm_timeline_free(&t);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- plot ------------------------------------------------------------------ */

static const char *column_colour(int col)
{
    static const char *const path[TD_PM_COLUMNS] = {"Retire", "Divergence", "Frontend",
                                                    "Backend", NULL};
    return path[col] ? td_plot_colour(path[col]) : "#9e9e9e";
}

static int write_data(FILE *f, const td_pm_timeline *t)
{
    fputs("time_ms", f);
    for (int c = 0; c < TD_PM_COLUMNS; c++)
        fprintf(f, "\t%s", td_pm_column_names[c]);
    fputs("\tbusy\tkernel\n", f);
    char name[64];
    for (size_t b = 0; b < t->n_bins; b++) {
        const td_pm_bin *bin = &t->bins[b];
        fprintf(f, "%.6f", (double)(bin->start_ns + bin->end_ns) / 2e6);
        for (int c = 0; c < TD_PM_COLUMNS; c++)
            fprintf(f, "\t%.3f", bin->p.share[c]);
        short_name(bin->kernel[0] ? bin->kernel[0] : "-", name, sizeof name, 40);
        for (char *p = name; *p; p++)
            if (*p == '\t' || *p == '#' || *p == '"')
                *p = ' ';
        fprintf(f, "\t%d\t%s\n", bin->p.busy, name);
    }
    return ferror(f) ? -1 : 0;
}

/* A label needs this share of the x range to itself: rotated labels of
 * font 8 on the 1300-pixel plot are about 12 pixels wide. */
#define LABEL_SPACING 0.02

/* The kernel's rank in the report ("#4": same-named kernels apart), 0 when
 * it is not among s's kernels. */
static size_t kernel_rank(const td_summary *s, const char *kernel)
{
    for (size_t k = 0; k < s->n_kernels; k++)
        if (strcmp(s->kernels[k].name, kernel) == 0)
            return k + 1;
    return 0;
}

/* Where bin b's longest-running kernel stops being it: the next change's
 * start, or the last bin's end. */
static uint64_t span_end(const td_pm_timeline *t, size_t b)
{
    for (size_t i = b + 1; i < t->n_bins; i++)
        if (t->bins[i].kernel[0] != t->bins[b].kernel[0])
            return t->bins[i].start_ns;
    return t->bins[t->n_bins - 1].end_ns;
}

static void put_label(FILE *f, const td_summary *s, const char *kernel, double x, size_t n)
{
    char name[64], label[sizeof name + 24]; /* the name, " #" and a rank's digits */
    short_name(kernel, name, sizeof name, 32);
    size_t rank = kernel_rank(s, kernel);
    if (rank)
        snprintf(label, sizeof label, "%s #%zu", name, rank);
    else
        snprintf(label, sizeof label, "%s", name);
    fprintf(f, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2 lc rgb '#606060'\n",
            x, x);
    fprintf(f, "set label %zu ", n);
    td_plot_gp_string(f, label);
    fprintf(f, " at %.6f, graph 0.98 rotate by 90 right font ',8' front\n", x);
}

/* A change of the longest-running kernel: where, for how long, which. */
typedef struct change {
    double x_ns, width_ns;
    const char *kernel;
} change;

static int by_width_desc(const void *pa, const void *pb)
{
    const change *a = pa, *b = pb;
    return (a->width_ns < b->width_ns) - (a->width_ns > b->width_ns);
}

static int by_x(const void *pa, const void *pb)
{
    const change *a = pa, *b = pb;
    return (a->x_ns > b->x_ns) - (a->x_ns < b->x_ns);
}

/* The changes of t (malloc'd, *n of them; NULL when out of memory). */
static change *kernel_changes(const td_pm_timeline *t, size_t *n)
{
    change *c = malloc((t->n_bins ? t->n_bins : 1) * sizeof *c);
    const char *prev = NULL;
    *n = 0;
    for (size_t b = 0; c && b < t->n_bins; b++) {
        const char *k = t->bins[b].kernel[0];
        if (!k || k == prev)
            continue;
        prev = k;
        c[(*n)++] = (change){(double)t->bins[b].start_ns,
                             (double)(span_end(t, b) - t->bins[b].start_ns), k};
    }
    return c;
}

/* Keeps the widest changes, each at least min_ns from those kept, at most
 * PLOT_LABELS; sorts the kept ones by time. Returns how many. */
static size_t thin_changes(change *c, size_t n, double min_ns)
{
    qsort(c, n, sizeof *c, by_width_desc);
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < PLOT_LABELS; i++) {
        int near = 0;
        for (size_t j = 0; j < kept && !near; j++)
            near = fabs(c[j].x_ns - c[i].x_ns) < min_ns;
        if (!near)
            c[kept++] = c[i];
    }
    qsort(c, kept, sizeof *c, by_x);
    return kept;
}

/* Dashed lines and names where the longest-running kernel changes: the
 * longest spans first, none nearer another label than LABEL_SPACING of
 * the axis, so that names never run into one another. */
static void kernel_labels(FILE *f, const td_pm_timeline *t, const td_summary *s,
                          double range_ns)
{
    size_t n = 0;
    change *c = kernel_changes(t, &n);
    size_t kept = c ? thin_changes(c, n, LABEL_SPACING * range_ns) : 0;
    for (size_t i = 0; i < kept; i++)
        put_label(f, s, c[i].kernel, c[i].x_ns / 1e6, i + 1);
    if (n > kept)
        fprintf(f, "# %zu further kernel changes are not labelled (shorter spans, too near "
                "a label)\n", n - kept);
    free(c);
}

static int write_script(FILE *f, const td_pm_timeline *t, const td_summary *s,
                        const td_plot_options *o, const char *image, const char *data,
                        const char *script, int svg)
{
    fprintf(f, "# topdown %s: PM-sampling timeline, level 1. Restyle freely, then run in "
            "this folder:\n#   gnuplot %s\n# Data: %s (tab-separated, %% of issue slots over "
            "time; first line names the columns).\n", TOPDOWN_VERSION, script, data);
    if (svg)
        fputs("set terminal svg size 1300,600 dynamic font 'Sans,11' noenhanced background rgb 'white'\n", f);
    else
        fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
              "    set terminal pngcairo size 1300,600 font 'Sans,10' noenhanced\n"
              "} else {\n    set terminal png size 1300,600 noenhanced\n}\n", f);
    fputs("set output ", f);
    td_plot_gp_string(f, image);
    fputs("\nset datafile separator '\\t'\nset title ", f);
    char title[700];
    snprintf(title, sizeof title, "%s - PM-sampling timeline, device %d (level 1)",
             o->title ? o->title : "topdown", t->dev->index);
    td_plot_gp_string(f, title);
    fputs(" noenhanced\nset xlabel 'time since the run started (ms)'\n"
          "set ylabel '% of issue slots'\nset yrange [0:100]\nset ytics 10\n"
          "set grid ytics lc rgb '#dddddd'\n"
          "set key outside right top invert noenhanced\n"
          "set style fill solid 0.9 noborder\n", f);
    char unsplit[1024], line[1100] = "not split: ";
    if (td_pm_model_unsplit(&t->model, unsplit, sizeof unsplit) > 0) {
        /* One line under the x label: the sentences joined with "; ". */
        for (char *p = unsplit, *nl; *p; p = nl + 1) {
            nl = strchr(p, '\n');
            snprintf(line + strlen(line), sizeof line - strlen(line), "%s%.*s",
                     p == unsplit ? "" : "; ", (int)(nl - p), p);
        }
        fputs("set bmargin 6\nset label 900 ", f);
        td_plot_gp_string(f, line);
        fputs(" at screen 0.01, screen 0.02 font ',8'\n", f);
    }
    /* the data's own range: gnuplot would round it out to its tics */
    double from = (double)t->bins[0].start_ns, to = (double)t->bins[t->n_bins - 1].end_ns;
    fprintf(f, "set xrange [%.6f:%.6f]\n", from / 1e6, (to > from ? to : from + 1e6) / 1e6);
    kernel_labels(f, t, s, to - from);
    int cols[TD_PM_COLUMNS];
    size_t n = shown_columns(&t->model, cols);
    fputs("plot ", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", \\\n     " : "", f);
        td_plot_gp_string(f, data);
        /* Filled between the columns below and those plus this one (column
         * c + 2 in the file: time is column 1). */
        fputs(" using 1:(", f);
        for (size_t j = 0; j < i; j++)
            fprintf(f, "%s$%d", j ? "+" : "", cols[j] + 2);
        fprintf(f, "%s):(", i ? "" : "0");
        for (size_t j = 0; j <= i; j++)
            fprintf(f, "%s$%d", j ? "+" : "", cols[j] + 2);
        fputs(") with filledcurves title ", f);
        td_plot_gp_string(f, td_pm_column_names[cols[i]]);
        fprintf(f, " lc rgb '%s'", column_colour(cols[i]));
    }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* What the two files are written from. */
typedef struct plot_ctx {
    const td_pm_timeline *t;
    const td_summary *s;
    const td_plot_options *o;
    const char *paths[3]; /* image, data, script */
    int svg;
} plot_ctx;

typedef int (*writer)(FILE *f, const plot_ctx *c);

static int write_data_file(FILE *f, const plot_ctx *c)
{
    return write_data(f, c->t);
}

static int write_script_file(FILE *f, const plot_ctx *c)
{
    return write_script(f, c->t, c->s, c->o, base_name(c->paths[0]), base_name(c->paths[1]),
                        base_name(c->paths[2]), c->svg);
}

static int write_one(const char *path, writer fn, const plot_ctx *c, td_error *err)
{
    td_output out;
    td_c_numeric numeric;
    if (td_output_open(&out, path, err))
        return -1;
    if (td_c_numeric_begin(&numeric, err)) {
        td_output_discard(&out);
        return -1;
    }
    int rc = fn(out.f, c);
    td_c_numeric_end(&numeric);
    if (rc) {
        td_output_discard(&out);
        return td_fail(err, "cannot write %s", path);
    }
    return td_output_commit(&out, err);
}

int td_pm_timeline_plot(const td_result *res, const td_summary *s, const td_plot_options *o,
                        td_error *err)
{
    long d = td_pm_next_device(res, 0);
    if (d < 0)
        return td_fail(err, "the result has no PM samples; record them with "
                       "`topdown --pm-interval USEC -- APP`");
    char data[PATH_MAX], script[PATH_MAX];
    if (td_plot_output_files(o->output, data, script, sizeof data, err))
        return -1;
    size_t len = strlen(o->output);
    int svg = len > 4 && strcmp(o->output + len - 4, ".svg") == 0;
    td_pm_timeline t;
    if (td_pm_timeline_build(res, s, (size_t)d, TD_PM_PLOT_BINS, &t, err))
        return -1;
    plot_ctx c = {&t, s, o, {o->output, data, script}, svg};
    int rc = write_one(data, write_data_file, &c, err) ||
             write_one(script, write_script_file, &c, err);
    td_pm_timeline_free(&t);
    if (rc == 0 && !o->no_run)
        rc = td_gnuplot_run(script, o->gnuplot, err);
    return rc ? -1 : 0;
}
