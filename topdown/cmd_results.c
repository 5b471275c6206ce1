/* topdown report, import-nvprof, plot and diff: the commands that read result files. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "levels/aggregate.h"
#include "metrics/arch/arch.h"
#include "metrics/arch/nvprof.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"
#include "report/csv.h"
#include "metrics/kmatch.h"
#include "report/diff.h"
#include "report/fail_if.h"
#include "report/json.h"
#include "report/output.h"
#include "report/plot.h"
#include "report/copies.h"
#include "report/pm_timeline.h"
#include "report/raw.h"
#include "report/text.h"
#include "report/region.h"
#include "report/select.h"
#include "report/summary.h"
#include "report/timeline.h"
#include "topdown/cli.h"
#include "topdown/commands.h"

int cmd_per_kernel_lines(const cli *c)
{
    return (c->print_summary && strcmp(c->print_summary, "per-kernel") == 0) || c->separator;
}

/* The summary an output shows: every kernel, or those -k names (a copy of
 * the kernel list; the application row stays the whole run's). */
typedef struct shown_kernels {
    td_summary s;
    td_kernel_summary *owned; /* the copy, NULL when every kernel is shown */
} shown_kernels;

/* -k's choice: per kernel of s, whether it is shown (*keep NULL without
 * -k; else free it). */
static int kept_kernels(const td_result *res, const td_summary *s, const char *selector,
                        int name_base, unsigned char **keep, td_error *err)
{
    *keep = NULL;
    if (!selector)
        return 0;
    size_t n_kept = 0;
    *keep = malloc(s->n_kernels ? s->n_kernels : 1);
    if (!*keep)
        return td_fail(err, "out of memory");
    if (td_kernel_select(s, res, selector, (td_name_base)name_base, *keep, &n_kept, err) == 0)
        return 0;
    free(*keep);
    *keep = NULL;
    return TD_USAGE_ERROR;
}

static int shown_select(const td_result *res, const td_summary *s, const char *selector,
                        int name_base, shown_kernels *out, td_error *err)
{
    out->s = *s;
    out->owned = NULL;
    if (!selector)
        return 0;
    size_t n = s->n_kernels ? s->n_kernels : 1;
    unsigned char *keep = NULL;
    out->owned = malloc(n * sizeof *out->owned);
    int rc = out->owned ? 0 : td_fail(err, "out of memory");
    if (rc == 0)
        rc = kept_kernels(res, s, selector, name_base, &keep, err);
    out->s.n_kernels = 0;
    for (size_t k = 0; rc == 0 && k < s->n_kernels; k++)
        if (keep[k])
            out->owned[out->s.n_kernels++] = s->kernels[k];
    out->s.kernels = out->owned;
    free(keep);
    if (rc) {
        free(out->owned);
        out->owned = NULL;
    }
    return rc;
}

static void shown_free(shown_kernels *k)
{
    free(k->owned);
    k->owned = NULL;
}

static int shown_has(const shown_kernels *k, const char *name)
{
    for (size_t i = 0; i < k->s.n_kernels; i++)
        if (strcmp(k->s.kernels[i].name, name) == 0)
            return 1;
    return 0;
}

/* The result as --csv-launches sees it under -k: the launches of the
 * kernels shown (copies of the device records, the launches borrowed);
 * the result itself without -k. Free with launches_view_free. */
static int launches_view(const td_result *res, const shown_kernels *k, td_result *view,
                         td_error *err)
{
    *view = *res;
    if (!k->owned)
        return 0;
    view->devices = calloc(res->n_devices ? res->n_devices : 1, sizeof *view->devices);
    if (!view->devices)
        return td_fail(err, "out of memory");
    for (size_t d = 0; d < res->n_devices; d++) {
        td_device *dev = &view->devices[d];
        *dev = res->devices[d];
        dev->launches = malloc((dev->n_launches ? dev->n_launches : 1) * sizeof *dev->launches);
        dev->n_launches = 0;
        if (!dev->launches) {
            view->n_devices = d;
            return td_fail(err, "out of memory");
        }
        for (size_t i = 0; i < res->devices[d].n_launches; i++)
            if (shown_has(k, res->devices[d].launches[i].kernel))
                dev->launches[dev->n_launches++] = res->devices[d].launches[i];
    }
    return 0;
}

static void launches_view_free(td_result *view, const td_result *res)
{
    if (view->devices == res->devices)
        return;
    for (size_t d = 0; d < view->n_devices; d++)
        free(view->devices[d].launches);
    free(view->devices);
}

/* --csv-launches: the launches of the kernels shown. */
static int write_launches(const char *path, const td_result *res, const td_summary *s,
                          const shown_kernels *k, int level, const char *nodes, td_error *err)
{
    td_result view;
    int rc = launches_view(res, k, &view, err);
    if (rc == 0)
        rc = td_csv_launches_file(path, &view, s, level, nodes, err);
    launches_view_free(&view, res);
    return rc;
}

static int print_timeline(const td_result *res, const td_summary *s, const cli *c,
                          td_error *err)
{
    const char *name = NULL;
    if (td_kernel_lookup(s, res, c->timeline, (td_name_base)c->report.name_base, &name, err))
        return -1;
    td_timeline t;
    if (td_timeline_build(res, s, name, &t, err))
        return -1;
    int rc = c->json ? td_timeline_json(stdout, &t, s, c->report.level, c->phase_threshold, err)
                     : td_timeline_text_with(stdout, &t, s, c->report.level, c->phase_threshold,
                                             c->report.wide, err);
    td_timeline_free(&t);
    return rc;
}

/* --page details named: each kernel's Launch, Resources and Occupancy lines
 * (ncu's Launch Statistics and Occupancy) under its line in the tree. */
static int details_page(const cli *c)
{
    return c->page && strcmp(c->page, "details") == 0;
}

/* --by-region: --csv per region and kernel, then one tree per region. */
static int write_region_outputs(const char *path, const td_result *res, const td_summary *s,
                                const td_arch_set *archs, const cli *c, td_error *err)
{
    if (c->timeline || c->json)
        return td_fail(err, "--by-region prints one tree per NVTX region; leave out --%s, or "
                       "--by-region", c->timeline ? "timeline" : "json");
    td_region_set set;
    if (td_region_set_build(res, archs, c->arch, &set, err))
        return -1;
    int level = c->report.level, rc = 0;
    if (c->csv)
        rc = td_csv_kernels_by_region_file(c->csv, set.summaries, set.names, set.n, level,
                                           c->report.nodes, err);
    if (rc == 0 && c->csv_launches)
        rc = td_csv_launches_file(c->csv_launches, res, s, level, c->report.nodes, err);
    int to_stdout = (c->csv && strcmp(c->csv, "-") == 0) ||
                    (c->csv_launches && strcmp(c->csv_launches, "-") == 0);
    if (rc == 0 && !to_stdout) {
        td_report_options o = c->report;
        o.origin = path;
        o.details = details_page(c);
        rc = td_report_by_region(stdout, res, s, &set, &o, err);
    }
    td_region_set_free(&set);
    return rc;
}

/* The CSV files asked for, then the tree, the timeline or the JSON,
 * unless a CSV went to stdout: stdout holds one format. */
static int write_outputs(const char *path, const td_result *res, const td_summary *s,
                         const td_arch_set *archs, const cli *c, td_error *err)
{
    if (c->report.by_region)
        return write_region_outputs(path, res, s, archs, c, err);
    int level = c->report.level;
    /* stdout holds one format: a CSV to '-' replaces the tree, the
     * timeline, the JSON and the per-kernel lines */
    int csv_out = (c->csv && strcmp(c->csv, "-") == 0) ||
                  (c->csv_launches && strcmp(c->csv_launches, "-") == 0);
    shown_kernels shown; /* -k: the kernels of the CSVs, the JSON and the lines */
    int rc = shown_select(res, s, c->report.kernels_shown, c->report.name_base, &shown, err);
    const char *page = c->page ? c->page : "details";
    if (rc == 0 && c->csv && strcmp(page, "raw") == 0)
        rc = td_report_raw_file(c->csv, res, &shown.s, err);
    else if (rc == 0 && c->csv)
        rc = td_csv_kernels_file(c->csv, &shown.s, level, c->report.nodes, err);
    if (rc == 0 && c->csv_launches)
        rc = write_launches(c->csv_launches, res, s, &shown, level, c->report.nodes, err);
    if (rc == 0 && csv_out)
        rc = 1;
    else if (rc == 0 && strcmp(page, "raw") == 0)
        rc = td_report_raw(stdout, res, &shown.s, 0, c->report.wide, err) ? -1 : 1;
    else if (rc == 0 && strcmp(page, "session") == 0) {
        td_report_options o = c->report;
        o.origin = path;
        rc = td_report_session(stdout, res, s, &o, err) ? -1 : 1;
    } else if (rc == 0 && c->timeline)
        rc = print_timeline(res, s, c, err) ? -1 : 1;
    else if (rc == 0 && c->pm_timeline)
        rc = td_pm_timeline_report(stdout, res, s, err) ? -1 : 1;
    else if (rc == 0 && c->json)
        rc = td_report_json(stdout, &shown.s, level, path, &res->conditions, &res->cost,
                            c->report.nodes, err) ? -1 : 1;
    else if (rc == 0 && cmd_per_kernel_lines(c))
        rc = td_report_per_kernel(stdout, res, &shown.s, c->separator, c->report.nodes, level,
                                  c->report.name_base, err) ? -1 : 1;
    shown_free(&shown);
    if (rc)
        return rc == 1 ? 0 : rc; /* 1: done, no tree */
    td_report_options o = c->report;
    o.origin = path;
    o.details = details_page(c);
    /* several device sections: a tree each, modelled on their own */
    td_summary *device_sums = NULL;
    if (td_device_summaries(res, archs, c->arch, &device_sums, &o.n_device_sums, err))
        return -1;
    o.device_sums = device_sums;
    rc = td_report_text(stdout, res, s, &o, err);
    td_device_summaries_free(device_sums, o.n_device_sums);
    return rc;
}

int cmd_check_inputs(const char *const *files, size_t n, td_error *err)
{
    int stdin_seen = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (files[i] && strcmp(files[i], "-") == 0 && stdin_seen++)
            return td_usage_fail(err, "standard input (-) can be read once; give the other "
                                 "result as a file");
        if (!files[i] || strcmp(files[i], "-") == 0)
            continue;
        if (stat(files[i], &st) != 0 || access(files[i], R_OK) != 0)
            return td_usage_fail(err, "%s: %s", files[i], strerror(errno));
        if (S_ISDIR(st.st_mode))
            return td_usage_fail(err, "%s is a folder, not a file", files[i]);
    }
    return 0;
}

int cmd_load_archs(td_arch_set *archs, const char *arch, td_error *err)
{
    if (td_cli_load_archs(archs, err))
        return -1;
    if (!arch || td_arch_find(archs, arch))
        return 0;
    td_arch_set_free(archs);
    return td_usage_fail(err, "--arch %s: no such arch table; `topdown list-archs` lists them",
                         arch);
}

/* -k and --timeline name kernels of the result: one that names none is a
 * bad value of the command line. */
static int check_selectors(const td_result *res, const td_summary *s, const cli *c,
                           td_error *err)
{
    td_name_base base = (td_name_base)c->report.name_base;
    if (c->report.kernels_shown) {
        unsigned char *keep = malloc(s->n_kernels ? s->n_kernels : 1);
        size_t n_kept = 0;
        if (!keep)
            return td_fail(err, "out of memory");
        int rc = td_kernel_select(s, res, c->report.kernels_shown, base, keep, &n_kept, err);
        free(keep);
        if (rc)
            return TD_USAGE_ERROR;
    }
    const char *name = NULL;
    if (c->timeline && td_kernel_lookup(s, res, c->timeline, base, &name, err))
        return TD_USAGE_ERROR;
    return 0;
}

int cmd_check_outputs(const char *const *outputs, size_t n_outputs, int force,
                      const char *const *inputs, size_t n_inputs, td_error *err)
{
    for (size_t i = 0; i < n_outputs; i++)
        if (outputs[i] && td_output_check(outputs[i], force, inputs, n_inputs, err))
            return TD_USAGE_ERROR;
    return td_output_check_distinct(outputs, n_outputs, err) ? TD_USAGE_ERROR : 0;
}

/* td_summarize, with an --arch that cannot model the result (its counters
 * are not there) a bad value of the command line: TD_USAGE_ERROR. */
static int summarize(const td_result *res, const td_arch_set *archs, const char *arch,
                     td_summary *s, td_error *err)
{
    if (arch && td_arch_fits(res, archs, arch, err)) {
        td_fail_context(err, "--arch %s does not fit this result", arch);
        return TD_USAGE_ERROR;
    }
    return td_summarize(res, archs, arch, s, err);
}

/* Models and prints res, the result of path. */
static int print_result(const char *path, const td_result *res, const td_arch_set *archs,
                        const cli *c, int *has_data, td_error *err)
{
    td_summary summary;
    int rc = summarize(res, archs, c->arch, &summary, err);
    if (rc == 0 && has_data)
        *has_data = summary.app_has_data;
    if (rc == 0) {
        rc = check_selectors(res, &summary, c, err);
        if (rc == 0)
            rc = write_outputs(path, res, &summary, archs, c, err);
        td_summary_free(&summary);
    }
    if (rc)
        td_fail_context(err, "%s", path);
    return rc;
}

/* Loads, models and prints one result file. */
int cmd_print_result_file(const char *path, const cli *c, int *has_data, td_error *err)
{
    td_arch_set archs;
    int rc = cmd_load_archs(&archs, c->arch, err);
    if (rc)
        return rc;
    td_result res;
    if (td_result_load(path, &res, err)) {
        td_arch_set_free(&archs);
        return -1;
    }
    rc = print_result(path, &res, &archs, c, has_data, err);
    td_result_free(&res);
    td_arch_set_free(&archs);
    return rc;
}

int cmd_print_result(const char *path, const td_result *res, const cli *c, int *has_data,
                     td_error *err)
{
    td_arch_set archs;
    int rc = cmd_load_archs(&archs, c->arch, err);
    if (rc)
        return rc;
    rc = print_result(path, res, &archs, c, has_data, err);
    td_arch_set_free(&archs);
    return rc;
}

int cmd_check_kernel_name(const char *selector, int name_base, int ranks, td_error *err)
{
    if (selector[0] == '#' && selector[1] >= '0' && selector[1] <= '9')
        return ranks ? 0 : td_usage_fail(err, "-k '%s' names a kernel by its rank in a result "
                                         "(topdown report FILE -k '%s'); profiling takes a "
                                         "name regex", selector, selector);
    td_kmatch *m = NULL;
    if (td_kmatch_compile(selector, (td_name_base)name_base, &m, err))
        return TD_USAGE_ERROR; /* the message is kmatch's */
    td_kmatch_free(m);
    return 0;
}

int cmd_report(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1] = {NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_REPORT, &c, files, 1, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    const char *file = files[0];
    if (!file)
        return td_usage_fail(err, "topdown report needs a result file: topdown report FILE [-l N]");
    if (c.pm_timeline && (c.timeline || c.report.by_region))
        return td_usage_fail(err, "--pm-timeline is a report of its own; give it without %s",
                             c.timeline ? "--timeline KERNEL" : "--by-region");
    if ((rc = cmd_check_inputs(&file, 1, err)))
        return rc;
    const char *outputs[] = {c.csv, c.csv_launches};
    if ((rc = cmd_check_outputs(outputs, 2, c.profile.force, &file, 1, err)))
        return rc;
    c.report.kernels_shown = c.profile.kernel_filter; /* report -k: the kernels shown */
    if (c.report.kernels_shown && (rc = cmd_check_kernel_name(c.report.kernels_shown,
                                                                 c.report.name_base, 1, err)))
        return rc;
    if (c.timeline && (rc = cmd_check_kernel_name(c.timeline, c.report.name_base, 1, err)))
        return rc;
    int to_stdout = (c.csv && strcmp(c.csv, "-") == 0) ||
                    (c.csv_launches && strcmp(c.csv_launches, "-") == 0);
    if (to_stdout && c.json) /* standard output holds one format */
        return td_usage_fail(err, "--json and a CSV to standard output (-) cannot share it; "
                             "give the CSV a file name");
    int has_data = 0;
    if ((rc = cmd_print_result_file(file, &c, &has_data, err)))
        return rc;
    int details = !c.page || strcmp(c.page, "details") == 0;
    if (details && !c.json && !c.timeline && !c.pm_timeline && !to_stdout &&
        !cmd_per_kernel_lines(&c))
        cmd_print_hint(file, &c, has_data);
    return 0;
}

/* Legacy GPUs: nvprof's CSV becomes a result file like any other. */
int cmd_import_nvprof(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1] = {NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_IMPORT_NVPROF, &c, files, 1, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    const char *metrics = files[0], *times = c.times, *arch_name = c.arch;
    const char *output = c.profile.output;
    int force = c.profile.force;
    if (!metrics || !arch_name || !output)
        return td_usage_fail(err, "usage: topdown import-nvprof METRICS.csv [--times TIMES.csv] --arch NAME -o OUT.json (NAME: an nvprof table of topdown list-archs)");
    const char *inputs[] = {metrics, times};
    if ((rc = cmd_check_inputs(inputs, 2, err)))
        return rc;
    if ((rc = cmd_check_outputs(&output, 1, force, inputs, 2, err)))
        return rc;
    td_arch_set archs;
    if ((rc = cmd_load_archs(&archs, arch_name, err)))
        return rc;
    td_result res;
    rc = td_nvprof_import(metrics, times, td_arch_find(&archs, arch_name), &res, err);
    if (rc == 0) {
        rc = td_result_save(output, &res, err);
        td_result_free(&res);
    }
    td_arch_set_free(&archs);
    if (rc == 0)
        fprintf(stderr, "topdown: wrote %s; topdown report %s -l 2 prints it\n", output, output);
    return rc;
}

/* A run whose result could not be saved keeps its spool: this makes the
 * result from it (the app's command line and exit code are not in it). */
static int spool_to_result(const char *spool, td_result *res, td_error *err)
{
    td_spool_summary sum;
    memset(res, 0, sizeof *res);
    if (td_spool_load(spool, res, &sum, err)) {
        td_result_free(res);
        return -1;
    }
    res->tool_version = td_strdup(TOPDOWN_VERSION);
    res->status = td_strdup(td_spool_complete(&sum) && !sum.truncated ? "complete" : "partial");
    res->exit_code = 0;
    const char *recovered = "made from a collection spool by topdown import-spool "
                            "(the app's command line and exit code were not recorded)";
    size_t len = strlen(recovered) + (sum.errors ? strlen(sum.errors) + 2 : 0) +
                 (sum.warnings ? strlen(sum.warnings) + 2 : 0) + 1;
    res->note = malloc(len);
    if (res->note)
        snprintf(res->note, len, "%s%s%s%s%s", recovered, sum.errors ? "; " : "",
                 sum.errors ? sum.errors : "", sum.warnings ? "; " : "",
                 sum.warnings ? sum.warnings : "");
    td_spool_summary_free(&sum);
    if (!res->tool_version || !res->status || !res->note) {
        td_result_free(res);
        return td_fail(err, "out of memory");
    }
    return 0;
}

int cmd_import_spool(int argc, char **argv, td_error *err)
{
    const char *usage = "usage: topdown import-spool SPOOL -o OUT.json [-f]";
    cli c;
    const char *files[1] = {NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_IMPORT_SPOOL, &c, files, 1, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    const char *spool = files[0], *output = c.profile.output;
    int force = c.profile.force;
    if (!spool || !output)
        return td_usage_fail(err, "%s", usage);
    if ((rc = cmd_check_inputs(&spool, 1, err)))
        return rc;
    if ((rc = cmd_check_outputs(&output, 1, force, &spool, 1, err)))
        return rc;
    td_result res;
    if (spool_to_result(spool, &res, err))
        return -1;
    rc = td_result_save(output, &res, err);
    td_result_free(&res);
    if (rc == 0)
        fprintf(stderr, "topdown: wrote %s; topdown report %s prints it\n", output, output);
    return rc;
}

/* ---- plot and diff (docs/OUTPUTS.md) ---- */

/* Loads a result file and models it with its recorded arch table (or arch). */
static int load_result(const char *path, const char *arch, const td_arch_set *archs,
                       td_result *res, td_summary *s, td_error *err)
{
    if (td_result_load(path, res, err))
        return -1;
    int rc = summarize(res, archs, arch, s, err);
    if (rc) {
        td_result_free(res);
        td_fail_context(err, "%s", path);
    }
    return rc;
}

/* "file.json (GPU name)": how plots and diffs name a result. */
static void result_label(const char *path, const td_result *res, char *buf, size_t size)
{
    const char *gpu = res->n_devices && res->devices[0].name ? res->devices[0].name : NULL;
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(buf, size, "%s%s%s%s", basename(copy), gpu ? " (" : "", gpu ? gpu : "",
             gpu ? ")" : "");
}

/* FILE.json (or .json.xz, .json.gz) -> FILE<suffix>, next to it. */
static void default_output(const char *file, const char *suffix, char *buf, size_t size)
{
    size_t len = strlen(file);
    if (len > 3 && (strcmp(file + len - 3, ".xz") == 0 || strcmp(file + len - 3, ".gz") == 0))
        len -= 3;
    if (len > 5 && strncmp(file + len - 5, ".json", 5) == 0)
        len -= 5;
    snprintf(buf, size, "%.*s%s", (int)len, file, suffix);
}

static int plot_one(const char *file, const cli *c, td_plot_options *o,
                    const td_arch_set *archs, td_error *err)
{
    td_result res;
    td_summary s;
    int loaded = load_result(file, c->arch, archs, &res, &s, err);
    if (loaded)
        return loaded;
    char title[512];
    result_label(file, &res, title, sizeof title);
    o->title = title;
    o->res = &res;
    int rc;
    if (c->pm_timeline) {
        rc = td_pm_timeline_plot(&res, &s, o, err);
    } else if (c->timeline) {
        const char *name = NULL;
        td_timeline t;
        rc = td_kernel_lookup(&s, &res, c->timeline, (td_name_base)c->report.name_base, &name,
                              err) ? TD_USAGE_ERROR : 0;
        if (rc == 0 && (rc = td_timeline_build(&res, &s, name, &t, err)) == 0) {
            rc = td_plot_timeline(&t, &s, o, err);
            td_timeline_free(&t);
        }
    } else {
        /* -k: the bars of those kernels, each with its rank and label in
         * the whole run (what -k '#N' takes) */
        unsigned char *kept = NULL;
        rc = kept_kernels(&res, &s, c->profile.kernel_filter, c->report.name_base, &kept, err);
        o->kept = kept;
        if (rc == 0)
            rc = td_plot_bars(&s, o, err);
        o->kept = NULL;
        free(kept);
    }
    td_summary_free(&s);
    td_result_free(&res);
    return rc;
}

/* Two results side by side, for `diff` and `plot --diff`. */
typedef struct result_pair {
    td_result res[2];
    td_summary sum[2];
    char label[2][512];
    td_diff_side side[2];
} result_pair;

static int load_pair(const char *const *files, const td_arch_set *archs, result_pair *p,
                     td_error *err)
{
    if (load_result(files[0], NULL, archs, &p->res[0], &p->sum[0], err))
        return -1;
    if (load_result(files[1], NULL, archs, &p->res[1], &p->sum[1], err)) {
        td_summary_free(&p->sum[0]);
        td_result_free(&p->res[0]);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        result_label(files[i], &p->res[i], p->label[i], sizeof p->label[i]);
        p->side[i] = (td_diff_side){p->label[i], &p->res[i], &p->sum[i]};
    }
    return 0;
}

static void free_pair(result_pair *p)
{
    for (int i = 0; i < 2; i++) {
        td_summary_free(&p->sum[i]);
        td_result_free(&p->res[i]);
    }
}

static int plot_two(const char *const *files, td_plot_options *o, const td_arch_set *archs,
                    td_error *err)
{
    result_pair p;
    if (load_pair(files, archs, &p, err))
        return -1;
    o->title = "topdown diff";
    int rc = td_plot_diff(&p.side[0], &p.side[1], o, err);
    free_pair(&p);
    return rc;
}

int cmd_plot(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[2] = {NULL, NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_PLOT, &c, files, 2, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    int want = c.plot_diff ? 2 : 1;
    if (n_files != want)
        return td_usage_fail(err, "%s", c.plot_diff ? "usage: topdown plot --diff A.json B.json [-l N] [-o OUT.png]"
                                              : "usage: topdown plot FILE [-l N] [-o OUT.png|OUT.svg] [--top K] [--timeline KERNEL]");
    if (c.timeline && c.pm_timeline)
        return td_usage_fail(err, "--timeline KERNEL and --pm-timeline are two different plots; give one");
    if (c.plot_diff && (c.timeline || c.pm_timeline || c.arch))
        return td_usage_fail(err, "plot --diff draws two results with their own arch tables; --timeline and --arch do not apply");
    if (c.profile.kernel_filter && (c.plot_diff || c.timeline || c.pm_timeline))
        return td_usage_fail(err, "plot -k chooses the kernels of the bars; give it without "
                             "--diff, --timeline or --pm-timeline");
    if (c.profile.kernel_filter &&
        (rc = cmd_check_kernel_name(c.profile.kernel_filter, c.report.name_base, 1, err)))
        return rc;
    char output[PATH_MAX];
    if (!c.profile.output && strcmp(files[0], "-") == 0)
        return td_usage_fail(err, "plot of standard input (-): name the plot with -o OUT.png");
    if (c.profile.output)
        snprintf(output, sizeof output, "%s", c.profile.output);
    else
        default_output(files[0], c.plot_diff ? ".diff.png"
                                   : (c.timeline ? ".timeline.png" : (c.pm_timeline ? ".pm.png" : ".png")),
                       output, sizeof output);
    char data[PATH_MAX], script[PATH_MAX];
    if ((rc = cmd_check_inputs(files, (size_t)n_files, err)))
        return rc;
    if (td_plot_output_files(output, data, script, sizeof data, err))
        return TD_USAGE_ERROR; /* -o's name: .png or .svg */
    const char *outputs[] = {output, data, script};
    if ((rc = cmd_check_outputs(outputs, 3, c.profile.force, files, (size_t)n_files, err)))
        return rc;
    td_plot_options o;
    td_plot_options_init(&o);
    o.level = c.report.level;
    o.top = c.top;
    o.phase_threshold = c.phase_threshold;
    o.name_base = c.report.name_base;
    o.output = output;
    td_arch_set archs;
    if ((rc = cmd_load_archs(&archs, c.arch, err)))
        return rc;
    rc = c.plot_diff ? plot_two(files, &o, &archs, err) : plot_one(files[0], &c, &o, &archs, err);
    td_arch_set_free(&archs);
    if (rc == 0)
        fprintf(stderr, "topdown: wrote %s (restyle: edit the .gp script next to it, data in the .dat)\n",
                output);
    return rc;
}

typedef struct fail_gate {
    td_fail_rule *rules; /* NULL: no --fail-if */
    size_t n_rules;
    td_fail_hit *hits;
    size_t n_hits, compared;
} fail_gate;

/* --fail-if, checked before any output; says what it found on stderr. */
static int gate_check(const result_pair *p, fail_gate *g, td_error *err)
{
    if (!g->rules)
        return 0;
    if (td_fail_rules_check_nodes(&p->side[0], &p->side[1], g->rules, g->n_rules, err))
        return TD_USAGE_ERROR;
    return td_fail_if_check(&p->side[0], &p->side[1], g->rules, g->n_rules, &g->hits,
                            &g->n_hits, &g->compared, err);
}

/* The verdict on stderr: exit 4 when a rule broke, or when no kernel is
 * in both results (a gate that compared no kernel must not pass). */
static int gate_report(const fail_gate *g, const char *text)
{
    if (!g->rules)
        return 0;
    char kernels[96];
    snprintf(kernels, sizeof kernels, "the application and the %zu kernel%s of both results",
             g->compared, g->compared == 1 ? "" : "s");
    if (g->n_hits == 0 && g->compared > 0) {
        fprintf(stderr, "topdown: --fail-if '%s': passed (%s)\n", text, kernels);
        return 0;
    }
    if (g->n_hits)
        fprintf(stderr, "topdown: --fail-if '%s': %zu rule break%s in %s, largest change "
                "first (exit %d):\n", text, g->n_hits, g->n_hits == 1 ? "" : "s", kernels,
                TD_EXIT_FAIL_IF);
    td_fail_if_print(stderr, g->rules, g->hits, g->n_hits);
    if (g->compared == 0)
        fprintf(stderr, "topdown: --fail-if '%s': failed: no kernel is in both results "
                "(kernels are matched by name), so only the application was compared "
                "(exit %d)\n", text, TD_EXIT_FAIL_IF);
    return TD_EXIT_FAIL_IF;
}

/* diff -k: the kernels each side shows; a side where it names none shows
 * none, both sides naming none is a usage error. */
static int shown_pair(result_pair *p, const cli *c, shown_kernels *shown, td_error *err)
{
    int none = 0;
    for (int i = 0; i < 2; i++) {
        td_error side_err;
        if (shown_select(&p->res[i], &p->sum[i], c->profile.kernel_filter, c->report.name_base,
                         &shown[i], &side_err)) {
            *err = side_err;
            none++;
            shown[i].s = p->sum[i];
            shown[i].s.n_kernels = 0;
        }
        p->side[i].s = &shown[i].s;
    }
    return none == 2 ? td_usage_fail(err, "diff -k '%s' names no kernel of either result",
                                     c->profile.kernel_filter) : 0;
}

static int diff_outputs(const char *const *files, const cli *c, const td_arch_set *archs,
                        fail_gate *gate, td_error *err)
{
    result_pair p;
    if (load_pair(files, archs, &p, err))
        return -1;
    td_diff_text_options text = {c->report.level, c->report.max_kernels, c->report.name_base,
                                 c->report.verbose, c->profile.kernel_filter,
                                 c->report.wide};
    shown_kernels shown[2] = {{.owned = NULL}, {.owned = NULL}};
    int rc = shown_pair(&p, c, shown, err);
    if (rc == 0)
        rc = gate_check(&p, gate, err);
    char warning[768];
    /* The text says it; with --csv - there is no text: stderr does. */
    if (c->csv && strcmp(c->csv, "-") == 0 &&
        td_diff_conditions_warning(&p.res[0], &p.res[1], warning, sizeof warning))
        fprintf(stderr, "topdown: warning: %s\n", warning);
    if (rc == 0 && c->csv)
        rc = td_diff_csv_file(c->csv, &p.side[0], &p.side[1], c->report.level, err);
    if (rc == 0 && c->json)
        rc = td_diff_json(stdout, &p.side[0], &p.side[1], c->report.level, err);
    else if (rc == 0 && !(c->csv && strcmp(c->csv, "-") == 0))
        rc = td_diff_text_with(stdout, &p.side[0], &p.side[1], &text, err);
    if (rc == 0) {
        fflush(stdout); /* the diff, then the verdict */
        rc = gate_report(gate, c->fail_if);
    }
    shown_free(&shown[0]);
    shown_free(&shown[1]);
    free_pair(&p);
    return rc;
}

int cmd_diff(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[2] = {NULL, NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_DIFF, &c, files, 2, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (n_files != 2)
        return td_usage_fail(err, "usage: topdown diff A.json B.json [-l N] [--csv FILE] [--kernels N] [--fail-if RULES]");
    if ((rc = cmd_check_inputs(files, 2, err)))
        return rc;
    if ((rc = cmd_check_outputs(&c.csv, 1, c.profile.force, files, 2, err)))
        return rc;
    if (c.profile.kernel_filter &&
        (rc = cmd_check_kernel_name(c.profile.kernel_filter, c.report.name_base, 1, err)))
        return rc;
    fail_gate gate = {0};
    if (c.fail_if && td_fail_rules_parse(c.fail_if, &gate.rules, &gate.n_rules, err))
        return TD_USAGE_ERROR;
    td_arch_set archs;
    if (td_cli_load_archs(&archs, err)) {
        free(gate.rules);
        return -1;
    }
    rc = diff_outputs(files, &c, &archs, &gate, err);
    td_arch_set_free(&archs);
    free(gate.rules);
    free(gate.hits);
    return rc;
}
