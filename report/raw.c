/* report --page raw: the raw counter values behind each tree. */
#include "report/raw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/output.h"
#include "report/wrap.h"

/* One metric's sums for one kernel (or the application). */
typedef struct raw_value {
    const char *metric; /* borrowed from a device section */
    double sum, weight;
    size_t launches;
} raw_value;

typedef struct raw_row {
    raw_value *v;
    size_t n, cap;
} raw_row;

static raw_value *row_value(raw_row *r, const char *metric)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].metric, metric) == 0)
            return &r->v[i];
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        raw_value *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n] = (raw_value){metric, 0, 0, 0};
    return &r->v[r->n++];
}

/* Sums the launches of kernel (NULL: every kernel) over every section,
 * metrics in the sections' order. */
static int row_build(const td_result *res, const char *kernel, raw_row *r, td_error *err)
{
    memset(r, 0, sizeof *r);
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        int used = 0;
        for (size_t i = 0; i < dev->n_launches && !used; i++)
            used = dev->launches[i].profiled && dev->launches[i].counters &&
                   (!kernel || strcmp(dev->launches[i].kernel, kernel) == 0);
        size_t *at = used ? malloc(dev->n_metrics * sizeof *at + 1) : NULL;
        if (used && !at)
            return td_fail(err, "out of memory");
        for (size_t m = 0; used && m < dev->n_metrics; m++) {
            raw_value *v = row_value(r, dev->metrics[m]);
            if (!v) {
                free(at);
                return td_fail(err, "out of memory");
            }
            at[m] = (size_t)(v - r->v);
        }
        for (size_t i = 0; used && i < dev->n_launches; i++) {
            const td_launch *l = &dev->launches[i];
            if (!l->profiled || !l->counters || (kernel && strcmp(l->kernel, kernel) != 0))
                continue;
            double w = l->duration_ns > 0 ? l->duration_ns : 1.0;
            for (size_t m = 0; m < dev->n_metrics; m++) {
                if (!td_launch_measured(dev, l, (int)m))
                    continue;
                raw_value *v = &r->v[at[m]];
                v->sum += w * l->counters[m];
                v->weight += w;
                v->launches++;
            }
        }
        free(at);
    }
    return 0;
}

/* What a metric counts, by a part of its name: the first row that
 * matches. A scale of 0: a percentage or a ratio, printed as it is. */
static const struct metric_unit {
    const char *part, *unit;
    int scale;
} metric_units[] = {
    {"gpu__time_duration", "s", 1}, /* ns: scaled to ns, us, ms, s */
    {"warp_execution_efficiency", "%", 0},
    {"stall_", "%", 0}, /* nvprof's stall reasons */
    {"ipc", "", 0},
    {"cycles", "cycles", 1},
    {"warps_issue_stalled", "warps", 1},
    {"inst_", "inst", 1},
    {"bytes", "B", 1},
    {"", "", 1}, /* anything else: a count */
};

static const struct metric_unit *unit_of(const char *metric)
{
    size_t i = 0;
    while (!strstr(metric, metric_units[i].part))
        i++;
    return &metric_units[i];
}

/* A time in ns as "4.56 ms". */
static void format_time(double ns, char *buf, size_t size)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    size_t u = 0;
    for (; u < 3 && fabs(ns) >= 1000; u++)
        ns /= 1000;
    snprintf(buf, size, "%.2f %s", ns, units[u]);
}

void td_raw_format_value(const char *metric, double value, char *buf, size_t size)
{
    static const char prefixes[] = " kMGTPE";
    const struct metric_unit *m = unit_of(metric);
    if (!m->scale) {
        snprintf(buf, size, "%.4g%s%s", value, *m->unit == '%' ? " " : "", m->unit);
        return;
    }
    if (*m->unit == 's') {
        format_time(value, buf, size);
        return;
    }
    size_t p = 0;
    for (; p + 1 < sizeof prefixes - 1 && fabs(value) >= 1000; p++)
        value /= 1000;
    if (p == 0)
        snprintf(buf, size, "%.4g%s%s", value, *m->unit ? " " : "", m->unit);
    else
        snprintf(buf, size, "%.2f %c%s%s", value, prefixes[p], *m->unit ? " " : "", m->unit);
}

static void print_row(FILE *out, const char *name, const raw_row *r, int csv, int wide)
{
    size_t width = 0;
    for (size_t i = 0; i < r->n; i++)
        width = strlen(r->v[i].metric) > width ? strlen(r->v[i].metric) : width;
    if (!csv) {
        char shown[TD_TEXT_WIDTH + 1];
        if (!wide)
            td_elide_middle(name, TD_TEXT_WIDTH - 1, shown, sizeof shown);
        fprintf(out, "\n%s:\n", wide ? name : shown);
        if (r->n == 0) {
            fputs("  no profiled launch: no counters\n", out);
            return;
        }
        if (!wide && width > TD_TEXT_WIDTH - 34)
            width = TD_TEXT_WIDTH - 34;
        fprintf(out, "  %-*s  %18s  %8s\n", (int)width, "metric", "value", "launches");
    }
    for (size_t i = 0; i < r->n; i++) {
        const raw_value *v = &r->v[i];
        double mean = v->launches ? v->sum / v->weight : NAN;
        int known = isfinite(mean); /* never "nan" or "inf" */
        if (csv) {
            td_csv_field(out, name);
            fputc(',', out);
            td_csv_field(out, v->metric);
            fputc(',', out);
            if (known)
                fprintf(out, "%.15g", mean);
            fprintf(out, ",%zu\n", v->launches);
            continue;
        }
        char metric[TD_TEXT_WIDTH + 1];
        if (!wide)
            td_elide_middle(v->metric, width, metric, sizeof metric);
        fprintf(out, "  %-*s  ", (int)width, wide ? v->metric : metric);
        char value[64] = "n/m";
        if (known)
            td_raw_format_value(v->metric, mean, value, sizeof value);
        fprintf(out, "%18s", value);
        fprintf(out, "  %8s\n", TD_COUNT(v->launches));
    }
}

int td_report_raw(FILE *out, const td_result *res, const td_summary *s, int csv, int wide,
                  td_error *err)
{
    td_c_numeric num;
    if (td_c_numeric_begin(&num, err))
        return -1;
    if (csv)
        fputs("kernel,metric,value,launches\n", out);
    else
        fputs("Raw counters: per kernel and the application, each metric's duration-weighted\n"
              "mean per launch over the profiled launches that measured it (launches), with\n"
              "its unit (k, M, G: thousand, million, billion; --csv: the values whole;\n"
              "n/m: not measured).\n", out);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k <= s->n_kernels; k++) {
        const char *kernel = k < s->n_kernels ? s->kernels[k].name : NULL;
        raw_row r;
        rc = row_build(res, kernel, &r, err);
        if (rc == 0)
            print_row(out, kernel ? kernel : TD_APP_ROW, &r, csv, wide);
        free(r.v);
    }
    td_c_numeric_end(&num);
    return rc;
}

int td_report_raw_file(const char *path, const td_result *res, const td_summary *s,
                       td_error *err)
{
    td_output o;
    if (td_output_open(&o, path, err))
        return -1;
    if (td_report_raw(o.f, res, s, 1, 1, err)) {
        td_output_discard(&o);
        return -1;
    }
    return td_output_commit(&o, err);
}

typedef struct session_args {
    const td_result *res;
    const td_summary *s;
    const td_report_options *o;
} session_args;

static int write_session(FILE *out, const void *ctx, td_error *err)
{
    (void)err;
    const session_args *a = ctx;
    td_report_header(out, a->res, a->s, a->o);
    return 0;
}

int td_report_session(FILE *out, const td_result *res, const td_summary *s,
                      const td_report_options *o, td_error *err)
{
    session_args a = {res, s, o};
    return td_write_wrapped(out, o->wide, write_session, &a, err);
}
