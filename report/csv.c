#include "report/csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/columns.h"
#include "report/kname.h"

#define PCT_DECIMALS 4

static void write_names(FILE *out, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        td_csv_field(out, names[i]);
    }
}

/* A kernel's per-launch durations after its intervals (levels/durations.h). */
static const char *const duration_columns = ",mean_ns,min_ns,median_ns,max_ns,std_ns";

/* The header; per_kernel (the kernel tables) appends "<node>_lo" and
 * "<node>_hi" columns per node (its 95% interval) and the per-launch
 * durations, with_region a last "region" column (NVTX regions). */
static void write_header(FILE *out, const char *const *fixed, size_t n_fixed,
                         const td_columns *cols, int per_kernel, int with_region)
{
    write_names(out, fixed, n_fixed);
    for (size_t i = 0; i < cols->count; i++) {
        fputc(',', out);
        td_csv_field(out, cols->items[i].path);
    }
    fputs(",unattributed,bottleneck,kernel_function", out);
    for (size_t i = 0; per_kernel && i < cols->count; i++)
        for (int end = 0; end < 2; end++) {
            char name[TD_PATH_MAX + 16];
            snprintf(name, sizeof name, "%s_%s", cols->items[i].path, end ? "hi" : "lo");
            fputc(',', out);
            td_csv_field(out, name);
        }
    if (per_kernel)
        fputs(duration_columns, out);
    fputs(with_region ? ",region\n" : "\n", out);
}

/* The last column of a row in a file with regions ("" : none). */
static void write_region(FILE *out, int with_region, const char *region)
{
    if (!with_region)
        return;
    fputc(',', out);
    if (region && region[0])
        td_csv_field(out, region);
}

/* Each node's 95% interval (levels/spread.h), its two ends, after the
 * tree: kernel rows end. Empty where the node has no measured value; a
 * node not known (its value empty) keeps its wide interval. */
static void write_spread(FILE *out, const td_columns *cols, const td_model *m,
                         const td_breakdown *mean, const td_breakdown *spread, int has_data)
{
    for (size_t i = 0; i < cols->count; i++) {
        td_interval in;
        int has = has_data && td_column_interval(&cols->items[i], m, mean, spread, &in);
        fputc(',', out);
        if (has)
            td_csv_number(out, 100.0 * in.lo, PCT_DECIMALS);
        fputc(',', out);
        if (has)
            td_csv_number(out, 100.0 * in.hi, PCT_DECIMALS);
    }
}

/* The duration figures of a kernel row; the application's are empty. */
static void write_durations(FILE *out, const td_duration_stats *d)
{
    const double figures[] = {d ? d->mean_ns : 0, d ? d->min_ns : 0, d ? d->median_ns : 0,
                              d ? d->max_ns : 0, d ? d->std_ns : 0};
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
        fputc(',', out);
        if (d && d->count)
            td_csv_number(out, figures[i], 0);
    }
}

/* Node columns, unattributed, bottleneck and the kernel's base function
 * name (empty for the application); a kernel row goes on with spreads. */
static void write_tree(FILE *out, const td_columns *cols, const td_model *m,
                       const td_breakdown *b, const td_verdict *v, int has_data, int level,
                       const char *kernel)
{
    for (size_t i = 0; i < cols->count; i++) {
        fputc(',', out);
        if (has_data)
            td_csv_number(out, 100.0 * td_column_value(&cols->items[i], m, b), PCT_DECIMALS);
    }
    fputc(',', out);
    if (has_data)
        td_csv_number(out, 100.0 * b->unattributed, PCT_DECIMALS);
    fputc(',', out);
    char path[420];
    if (has_data)
        td_csv_field(out, td_verdict_names(m, v, level, path, sizeof path));
    fputc(',', out);
    if (kernel) {
        char base[512];
        td_kernel_base_name(kernel, base, sizeof base);
        td_csv_field(out, base);
    }
}

/* The node columns down to level; --nodes' selection (NULL: all). */
static int summary_columns(const td_summary *s, int level, const char *nodes, td_columns *cols,
                           td_error *err)
{
    const td_model **models = malloc((s->n_models ? s->n_models : 1) * sizeof *models);
    if (!models)
        return td_fail(err, "out of memory");
    for (size_t m = 0; m < s->n_models; m++)
        models[m] = &s->models[m];
    int rc = td_columns_build(cols, models, s->n_models, level, td_backend_max_depth(), err);
    free(models);
    if (rc == 0)
        td_columns_select(cols, nodes);
    return rc;
}

static const char *const kernel_fixed[] = {
    "kernel", "launches", "profiled_launches", "total_ns", "gpu_time_pct", "ipc"};

static void write_kernel_row(FILE *out, const td_summary *s, const td_columns *cols,
                             const td_kernel_summary *ks, int level, int with_region,
                             const char *region)
{
    const td_model *m = &s->models[ks->model];
    td_csv_field(out, ks->name);
    fprintf(out, ",%zu,%zu,", ks->launches, ks->profiled);
    td_csv_number(out, ks->total_ns, 0);
    fputc(',', out);
    td_csv_number(out, s->total_ns > 0 ? 100.0 * (ks->total_ns / s->total_ns) : 0, PCT_DECIMALS);
    fputc(',', out);
    if (ks->has_data)
        td_csv_number(out, ks->mean.ipc, PCT_DECIMALS);
    write_tree(out, cols, m, &ks->mean, &ks->verdict, ks->has_data, level, ks->name);
    write_spread(out, cols, m, &ks->mean, &ks->spread, ks->has_data);
    write_durations(out, &ks->launch.durations);
    write_region(out, with_region, region);
    fputc('\n', out);
}

static void write_app_row(FILE *out, const td_summary *s, const td_columns *cols, int level,
                          int with_region, const char *region)
{
    td_csv_field(out, TD_APP_ROW);
    fprintf(out, ",%zu,%zu,", s->launches, s->profiled);
    td_csv_number(out, s->total_ns, 0);
    fputs(",100.0000,", out);
    if (s->app_has_data)
        td_csv_number(out, s->app.ipc, PCT_DECIMALS);
    write_tree(out, cols, td_summary_model(s), &s->app, &s->app_verdict, s->app_has_data, level,
               NULL);
    write_spread(out, cols, td_summary_model(s), &s->app, &s->app_spread, s->app_has_data);
    write_durations(out, NULL);
    write_region(out, with_region, region);
    fputc('\n', out);
}

static int kernels_csv(FILE *out, const td_summary *s, int level, const char *nodes,
                       td_error *err)
{
    td_columns cols;
    if (td_summary_printable(s, err) || summary_columns(s, level, nodes, &cols, err))
        return -1;
    td_c_numeric numeric;
    if (td_c_numeric_begin(&numeric, err)) {
        td_columns_free(&cols);
        return -1;
    }
    write_header(out, kernel_fixed, sizeof kernel_fixed / sizeof *kernel_fixed, &cols, 1, 0);
    for (size_t k = 0; k < s->n_kernels; k++)
        write_kernel_row(out, s, &cols, &s->kernels[k], level, 0, NULL);
    write_app_row(out, s, &cols, level, 0, NULL);
    td_c_numeric_end(&numeric);
    td_columns_free(&cols);
    return 0;
}

int td_csv_kernels(FILE *out, const td_summary *s, int level, td_error *err)
{
    return kernels_csv(out, s, level, NULL, err);
}

static int by_region_csv(FILE *out, const td_summary *summaries, const char *const *regions,
                         size_t n, int level, const char *nodes, td_error *err)
{
    td_columns cols;
    if (n == 0)
        return td_fail(err, "the result has no launch");
    for (size_t r = 0; r < n; r++)
        if (td_summary_printable(&summaries[r], err))
            return -1;
    if (summary_columns(&summaries[0], level, nodes, &cols, err))
        return -1;
    td_c_numeric numeric;
    if (td_c_numeric_begin(&numeric, err)) {
        td_columns_free(&cols);
        return -1;
    }
    write_header(out, kernel_fixed, sizeof kernel_fixed / sizeof *kernel_fixed, &cols, 1, 1);
    for (size_t r = 0; r < n; r++) {
        const td_summary *s = &summaries[r];
        for (size_t k = 0; k < s->n_kernels; k++)
            write_kernel_row(out, s, &cols, &s->kernels[k], level, 1, regions[r]);
        write_app_row(out, s, &cols, level, 1, regions[r]);
    }
    td_c_numeric_end(&numeric);
    td_columns_free(&cols);
    return 0;
}

static const char *const launch_fixed[] = {
    "kernel", "invocation", "launch_id", "device", "start_ns", "duration_ns", "ipc"};

static int write_launch_row(FILE *out, const td_result *res, const td_summary *s,
                            const td_columns *cols, const td_launch_ref *ref, int level,
                            int with_region, td_error *err)
{
    const td_device *dev = &res->devices[ref->dev];
    const td_launch *l = &dev->launches[ref->index];
    const td_model *m = &s->models[ref->dev];
    td_breakdown b;
    td_verdict v;
    char what[200];
    snprintf(what, sizeof what, "launch %llu of kernel %.150s", (unsigned long long)l->id,
             l->kernel);
    if (td_summary_launch(s, res, ref->dev, ref->index, &b, err) ||
        td_breakdown_printable(m, &b, what, err))
        return -1;
    if (!isfinite(l->duration_ns))
        return td_fail(err, "%s: its duration is %g ns, not a number that can be printed; "
                       "check the file", what, l->duration_ns);
    td_model_judge(m, &b, &v);
    td_csv_field(out, l->kernel);
    fprintf(out, ",%zu,%llu,%d,%llu,", ref->invocation, (unsigned long long)l->id,
            dev->index, (unsigned long long)l->start_ns);
    td_csv_number(out, l->duration_ns, 0);
    fputc(',', out);
    if (b.has_slots)
        td_csv_number(out, b.ipc, PCT_DECIMALS);
    write_tree(out, cols, m, &b, &v, b.has_slots, level, l->kernel);
    write_region(out, with_region, l->region);
    fputc('\n', out);
    return 0;
}

/* 1 when some launch has an NVTX region: the launch CSV gets its column. */
static int any_region(const td_result *res)
{
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++)
            if (res->devices[d].launches[i].region)
                return 1;
    return 0;
}

int td_csv_kernels_by_region(FILE *out, const td_summary *summaries, const char *const *regions,
                             size_t n, int level, td_error *err)
{
    return by_region_csv(out, summaries, regions, n, level, NULL, err);
}

static int launches_csv(FILE *out, const td_result *res, const td_summary *s, int level,
                        const char *nodes, td_error *err)
{
    td_columns cols;
    td_launch_ref *refs = NULL;
    size_t n = 0;
    if (td_summary_printable(s, err) || summary_columns(s, level, nodes, &cols, err))
        return -1;
    td_c_numeric numeric;
    if (td_launches_in_order(res, &refs, &n, err) || td_c_numeric_begin(&numeric, err)) {
        free(refs);
        td_columns_free(&cols);
        return -1;
    }
    int with_region = any_region(res);
    write_header(out, launch_fixed, sizeof launch_fixed / sizeof *launch_fixed, &cols, 0,
                 with_region);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (res->devices[refs[i].dev].launches[refs[i].index].profiled)
            rc = write_launch_row(out, res, s, &cols, &refs[i], level, with_region, err);
    td_c_numeric_end(&numeric);
    free(refs);
    td_columns_free(&cols);
    return rc;
}

int td_csv_launches(FILE *out, const td_result *res, const td_summary *s, int level,
                    td_error *err)
{
    return launches_csv(out, res, s, level, NULL, err);
}

int td_csv_kernels_file(const char *path, const td_summary *s, int level, const char *nodes,
                        td_error *err)
{
    td_output o;
    if (td_output_open(&o, path, err))
        return -1;
    int rc = kernels_csv(o.f, s, level, nodes, err);
    if (rc) {
        td_output_discard(&o);
        return -1;
    }
    return td_output_commit(&o, err);
}

int td_csv_launches_file(const char *path, const td_result *res, const td_summary *s,
                         int level, const char *nodes, td_error *err)
{
    td_output o;
    if (td_output_open(&o, path, err))
        return -1;
    int rc = launches_csv(o.f, res, s, level, nodes, err);
    if (rc) {
        td_output_discard(&o);
        return -1;
    }
    return td_output_commit(&o, err);
}

int td_csv_kernels_by_region_file(const char *path, const td_summary *summaries,
                                  const char *const *regions, size_t n, int level,
                                  const char *nodes, td_error *err)
{
    td_output o;
    if (td_output_open(&o, path, err))
        return -1;
    if (by_region_csv(o.f, summaries, regions, n, level, nodes, err)) {
        td_output_discard(&o);
        return -1;
    }
    return td_output_commit(&o, err);
}
