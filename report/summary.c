#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/columns.h"
#include "report/kname.h"
#include "report/output.h"
#include "report/wrap.h"

#define NAME_WIDTH 40

typedef struct line_fields {
    const char *name;
    size_t rank;           /* the kernel's, shown where its name is cut; 0: none */
    double time_pct;
    const td_model *model;
    const td_breakdown *b; /* NULL: no counters */
    const td_verdict *verdict;
} line_fields;

/* A node column as wide as its name, 10 at least. */
static int column_width(const td_column *c)
{
    size_t n = strlen(c->path);
    return n > 10 ? (int)n : 10;
}

static void print_field(FILE *out, const char *sep, int width, const char *text)
{
    if (sep)
        fprintf(out, "%s%s", sep, text);
    else
        fprintf(out, " %*s", width, text);
}

/* The name in NAME_WIDTH characters: whole, or elided in the middle with
 * its rank (" #K": names alike at both ends stay apart). */
static void fit_name(const line_fields *f, char *out, size_t size)
{
    char rank[32] = "";
    if (strlen(f->name) <= NAME_WIDTH || !f->rank) {
        td_elide_middle(f->name, NAME_WIDTH, out, size);
        return;
    }
    int r = snprintf(rank, sizeof rank, " #%zu", f->rank);
    td_elide_middle(f->name, NAME_WIDTH - (size_t)r, out, size);
    snprintf(out + strlen(out), size - strlen(out), "%s", rank);
}

static void print_line(FILE *out, const td_columns *cols, const line_fields *f, const char *sep,
                       int level)
{
    char name[NAME_WIDTH + 1], num[32], path[2 * TD_PATH_MAX + 8];
    if (sep && strpbrk(f->name, "\"") == NULL && strstr(f->name, sep) == NULL) {
        fputs(f->name, out);
    } else if (sep) { /* quoted as CSV quotes: "" for a quote */
        fputc('"', out);
        for (const char *p = f->name; *p; p++) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fit_name(f, name, sizeof name);
        fprintf(out, "%-*s", NAME_WIDTH, name);
    }
    snprintf(num, sizeof num, "%.1f", f->time_pct);
    print_field(out, sep, 6, num);
    for (size_t i = 0; i < cols->count; i++) {
        double v = f->b ? 100.0 * td_column_value(&cols->items[i], f->model, f->b) : NAN;
        /* -x lines are for machines: empty, as the CSV */
        int not_known = f->b && td_column_not_known(&cols->items[i], f->model, f->b);
        if (isnan(v))
            snprintf(num, sizeof num, "%s", sep ? "" : not_known ? TD_NOT_KNOWN : TD_NOT_MEASURED);
        else
            snprintf(num, sizeof num, "%.1f", v);
        print_field(out, sep, column_width(&cols->items[i]), num);
    }
    const char *bottleneck = f->b ? td_verdict_names(f->model, f->verdict, level, path, sizeof path)
                             : sep ? "" : TD_NOT_MEASURED;
    if (sep)
        fprintf(out, "%s%s\n", sep, *bottleneck || !f->b ? bottleneck : "none");
    else
        fprintf(out, "  %s\n", *bottleneck ? bottleneck : td_verdict_none(f->verdict));
}

static void print_header(FILE *out, const td_columns *cols, const char *sep)
{
    if (sep)
        fputs("kernel", out);
    else
        fprintf(out, "%-*s", NAME_WIDTH, "kernel");
    print_field(out, sep, 6, "time%");
    for (size_t i = 0; i < cols->count; i++)
        print_field(out, sep, column_width(&cols->items[i]), cols->items[i].path);
    fprintf(out, sep ? "%sbottleneck\n" : "  %sbottleneck\n", sep ? sep : "");
}

/* The columns: level 1, or the nodes --nodes lists (in tree order). */
static int line_columns(const td_model *model, const char *nodes, td_columns *cols,
                        td_error *err)
{
    const td_model *models[1] = {model};
    if (td_columns_build(cols, models, 1, nodes ? 3 : 1, nodes ? 3 : 1, err))
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < cols->count; i++)
        if (!nodes || td_node_listed(nodes, cols->items[i].path))
            cols->items[kept++] = cols->items[i];
    cols->count = kept;
    return 0;
}

int td_report_per_kernel(FILE *out, const td_result *res, const td_summary *s, const char *sep,
                         const char *nodes, int level, int name_base, td_error *err)
{
    level = level < 3 ? 3 : level > TD_MAX_LEVEL ? TD_MAX_LEVEL : level;
    const td_model *models[1] = {td_summary_model(s)};
    td_columns cols;
    if (line_columns(models[0], nodes, &cols, err))
        return -1;
    const char **names = calloc(s->n_kernels + 1, sizeof *names);
    char **labels = NULL;
    int rc = names ? 0 : td_fail(err, "out of memory");
    for (size_t k = 0; rc == 0 && k < s->n_kernels; k++)
        names[k] = s->kernels[k].name;
    if (rc == 0)
        rc = td_kernel_labels(names, s->n_kernels, (td_name_base)name_base, res, &labels, err);
    if (rc == 0) {
        print_header(out, &cols, sep);
        for (size_t k = 0; k < s->n_kernels; k++) {
            const td_kernel_summary *ks = &s->kernels[k];
            line_fields f = {sep ? ks->name : labels[k], k + 1,
                             s->total_ns > 0 ? 100.0 * ks->total_ns / s->total_ns : 0,
                             &s->models[ks->model], ks->has_data ? &ks->mean : NULL, &ks->verdict};
            print_line(out, &cols, &f, sep, level);
        }
        line_fields app = {TD_APP_ROW, 0, 100.0, models[0], s->app_has_data ? &s->app : NULL,
                           &s->app_verdict};
        print_line(out, &cols, &app, sep, level);
        td_kernel_labels_free(labels, s->n_kernels);
    }
    free(names);
    td_columns_free(&cols);
    return rc;
}
