#include "metrics/arch/nvprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/csv_read.h"
#include "metrics/file_text.h"

/* Each kernel becomes Invocations launches in memory (about 200 bytes
 * each); a file claims that number in a few bytes, so the total is bounded
 * (nvprof replays every kernel for its metrics: real files stay far below). */
#define MAX_IMPORTED_LAUNCHES 1000000L

typedef struct nv_kernel {
    char *device;      /* "Tesla P100-PCIE-16GB (0)" */
    char *name;
    long invocations;
    double *values;    /* per table metric, NAN-free: seen[] says which */
    unsigned char *seen;
    double total_ns;
} nv_kernel;

typedef struct nv_import {
    const td_arch *arch;
    const char *metric_names[2 * TD_MAX_STALLS];
    size_t n_metrics;
    nv_kernel *kernels;
    size_t n_kernels;
} nv_import;

static int metric_slot(const nv_import *im, const char *name)
{
    for (size_t i = 0; i < im->n_metrics; i++)
        if (strcmp(im->metric_names[i], name) == 0)
            return (int)i;
    return -1;
}

static nv_kernel *find_kernel(nv_import *im, const char *device, const char *name,
                              int add, td_error *err)
{
    for (size_t i = 0; i < im->n_kernels; i++)
        if (strcmp(im->kernels[i].name, name) == 0 &&
            (!device || strcmp(im->kernels[i].device, device) == 0))
            return &im->kernels[i];
    if (!add)
        return NULL;
    nv_kernel *bigger = realloc(im->kernels, (im->n_kernels + 1) * sizeof *bigger);
    if (!bigger) {
        td_fail(err, "out of memory");
        return NULL;
    }
    im->kernels = bigger;
    nv_kernel *k = &im->kernels[im->n_kernels++];
    memset(k, 0, sizeof *k);
    k->device = td_strdup(device);
    k->name = td_strdup(name);
    k->values = calloc(im->n_metrics, sizeof *k->values);
    k->seen = calloc(im->n_metrics, 1);
    if (!k->device || !k->name || !k->values || !k->seen) {
        td_fail(err, "out of memory");
        return NULL;
    }
    return k;
}

/* nvprof's Invocations: a whole number from 1 to MAX_IMPORTED_LAUNCHES. */
static int parse_invocations(const char *text, long *out)
{
    char *end = NULL;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || end == text || *end || n < 1 || n > MAX_IMPORTED_LAUNCHES)
        return -1;
    *out = n;
    return 0;
}

/* "85.3%", "1.2345", "12.5GB/s": the number in front. */
static int parse_value(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    return errno == 0 && end != text && *out >= 0;
}

static int read_metric_rows(nv_import *im, FILE *f, const char *path, td_error *err)
{
    td_csv_record rec = {0};
    int in_table = 0, rows = 0, rc = 0;
    while (rc == 0 && td_csv_next(f, &rec)) {
        long line = rec.line;
        if (!in_table) {
            in_table = rec.count >= 8 && strcmp(rec.fields[0], "Device") == 0 &&
                       strcmp(rec.fields[3], "Metric Name") == 0;
            continue;
        }
        if (rec.count < 8)
            continue; /* banners, blank lines */
        int slot = metric_slot(im, rec.fields[3]);
        if (slot < 0)
            continue; /* a metric the table does not use */
        double avg;
        if (!parse_value(rec.fields[7], &avg)) {
            rc = td_fail(err, "%s:%ld: metric %s has a non-numeric or negative Avg \"%s\"",
                         path, line, rec.fields[3], rec.fields[7]);
            break;
        }
        long invocations = 0;
        if (parse_invocations(rec.fields[2], &invocations)) {
            rc = td_fail(err, "%s:%ld: Invocations \"%s\" of kernel %s is not a count from 1 "
                         "to %ld", path, line, rec.fields[2], rec.fields[1],
                         MAX_IMPORTED_LAUNCHES);
            break;
        }
        nv_kernel *k = find_kernel(im, rec.fields[0], rec.fields[1], 1, err);
        if (!k) {
            rc = -1;
            break;
        }
        if (k->invocations && k->invocations != invocations) {
            rc = td_fail(err, "%s:%ld: kernel %s has %ld Invocations here and %ld on an "
                         "earlier row; the file is not one nvprof run", path, line,
                         rec.fields[1], invocations, k->invocations);
            break;
        }
        k->invocations = invocations;
        k->values[slot] = avg;
        k->seen[slot] = 1;
        rows++;
    }
    td_csv_free(&rec);
    if (rc == 0 && !in_table)
        rc = td_fail(err, "%s: no nvprof metric table (\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",...); record it with nvprof --csv --metrics ...",
                     path);
    else if (rc == 0 && rows == 0)
        rc = td_fail(err, "%s: none of arch table %s's metrics is in the file; collect them with nvprof --metrics %s,...",
                     path, im->arch->name, im->metric_names[0]);
    return rc;
}

static double time_unit_ns(const char *unit)
{
    if (strcmp(unit, "s") == 0) return 1e9;
    if (strcmp(unit, "ms") == 0) return 1e6;
    if (strcmp(unit, "us") == 0) return 1e3;
    if (strcmp(unit, "ns") == 0) return 1;
    return 0;
}

/* "Type","Time(%)","Time","Calls","Avg","Min","Max","Name", then a row of
 * units, then one row per activity. */
static int read_times(nv_import *im, FILE *f, const char *path, td_error *err)
{
    td_csv_record rec = {0};
    int state = 0, matched = 0;
    double unit = 0;
    while (td_csv_next(f, &rec)) {
        if (state == 0) {
            if (rec.count >= 8 && strcmp(rec.fields[0], "Type") == 0 &&
                strcmp(rec.fields[2], "Time") == 0)
                state = 1;
        } else if (state == 1) {
            unit = rec.count >= 3 ? time_unit_ns(rec.fields[2]) : 0;
            state = 2;
        } else if (rec.count >= 8 && strcmp(rec.fields[0], "GPU activities") == 0) {
            double time;
            nv_kernel *k = find_kernel(im, NULL, rec.fields[7], 0, err);
            if (k && parse_value(rec.fields[2], &time)) {
                k->total_ns = time * unit;
                matched++;
            }
        }
    }
    td_csv_free(&rec);
    if (state < 2 || unit == 0)
        return td_fail(err, "%s: no nvprof GPU-activities summary with a time unit row; record it with nvprof --csv --log-file FILE app",
                       path);
    if (matched == 0)
        return td_fail(err, "%s: no kernel of the metrics file appears in the times file; were both recorded from the same app?",
                       path);
    return 0;
}

static int check_complete(const nv_import *im, td_error *err)
{
    long total = 0;
    for (size_t i = 0; i < im->n_kernels; i++) {
        total += im->kernels[i].invocations;
        if (total > MAX_IMPORTED_LAUNCHES)
            return td_fail(err, "the kernels claim more than %ld invocations in all; topdown "
                           "imports at most that many launches (profile fewer with nvprof "
                           "--kernels or a shorter run)", MAX_IMPORTED_LAUNCHES);
    }
    for (size_t i = 0; i < im->n_kernels; i++)
        for (size_t m = 0; m < im->n_metrics; m++)
            if (!im->kernels[i].seen[m])
                return td_fail(err, "kernel %s lacks metric %s; collect every metric of arch table %s",
                               im->kernels[i].name, im->metric_names[m], im->arch->name);
    return 0;
}

/* One device section per nvprof device, Invocations launches per kernel. */
static int build_result(const nv_import *im, int have_times, td_result *out,
                        td_error *err)
{
    out->status = td_strdup("complete");
    if (!have_times)
        out->note = td_strdup("imported from nvprof without a times file: kernels weigh equally");
    for (size_t i = 0; i < im->n_kernels; i++) {
        const nv_kernel *k = &im->kernels[i];
        td_device *dev = NULL;
        for (size_t d = 0; d < out->n_devices; d++)
            if (strcmp(out->devices[d].name, k->device) == 0)
                dev = &out->devices[d];
        if (!dev) {
            if (!(dev = td_result_add_device(out, err)))
                return -1;
            dev->index = (int)out->n_devices - 1;
            dev->name = td_strdup(k->device);
            dev->chip = td_strdup(im->arch->chips[0]);
            dev->arch = td_strdup(im->arch->name);
            sscanf(im->arch->ccs[0], "%d.%d", &dev->cc_major, &dev->cc_minor);
            if (td_device_set_metrics(dev, im->metric_names, im->n_metrics, err))
                return -1;
        }
        long n = k->invocations > 0 ? k->invocations : 1;
        for (long j = 0; j < n; j++) {
            td_launch *l = td_device_add_launch(dev, k->name, k->values, err);
            if (!l)
                return -1;
            l->id = dev->n_launches - 1;
            l->duration_ns = have_times ? k->total_ns / (double)n : 0;
        }
    }
    return 0;
}

static void free_import(nv_import *im)
{
    for (size_t i = 0; i < im->n_kernels; i++) {
        free(im->kernels[i].device);
        free(im->kernels[i].name);
        free(im->kernels[i].values);
        free(im->kernels[i].seen);
    }
    free(im->kernels);
}

typedef int (*csv_reader)(nv_import *, FILE *, const char *, td_error *);

static int read_text_with(nv_import *im, const char *text, size_t len, const char *name,
                          csv_reader reader, td_error *err)
{
    if (len == 0)
        return td_fail(err, "%s is empty; give the CSV nvprof wrote", name);
    FILE *f = fmemopen((void *)text, len, "r");
    if (!f)
        return td_fail(err, "cannot read %s: %s", name, strerror(errno));
    int rc = reader(im, f, name, err);
    fclose(f);
    return rc;
}

int td_nvprof_import_text(const char *metrics, size_t metrics_len, const char *metrics_name,
                          const char *times, size_t times_len, const char *times_name,
                          const td_arch *arch, td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    if (arch->source != TD_BACKEND_NVPROF)
        return td_fail(err, "arch table %s is for the CUPTI range profiler; pick an nvprof table (see topdown list-archs)",
                       arch->name);
    nv_import im = {.arch = arch};
    im.n_metrics = td_arch_metrics(arch, im.metric_names, 2 * TD_MAX_STALLS);
    int rc = read_text_with(&im, metrics, metrics_len, metrics_name, read_metric_rows, err);
    if (rc == 0 && times)
        rc = read_text_with(&im, times, times_len, times_name, read_times, err);
    if (rc == 0)
        rc = check_complete(&im, err);
    if (rc == 0)
        rc = build_result(&im, times != NULL, out, err);
    free_import(&im);
    if (rc)
        td_result_free(out);
    return rc;
}

int td_nvprof_import(const char *metrics_csv, const char *times_csv,
                     const td_arch *arch, td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    char *metrics = NULL, *times = NULL;
    size_t metrics_len = 0, times_len = 0;
    int rc = td_read_text_file(metrics_csv, &metrics, &metrics_len, err);
    if (rc == 0 && times_csv)
        rc = td_read_text_file(times_csv, &times, &times_len, err);
    if (rc == 0)
        rc = td_nvprof_import_text(metrics, metrics_len, metrics_csv, times, times_len,
                                   times_csv, arch, out, err);
    free(metrics);
    free(times);
    return rc;
}
