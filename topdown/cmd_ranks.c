/* topdown merge, imbalance and trace: results of several processes
 * (ranks) and a timeline of a result's kernels (report/ranks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levels/aggregate.h"
#include "metrics/result/result.h"
#include "report/output.h"
#include "report/ranks.h"
#include "report/select.h"
#include "topdown/cli.h"
#include "topdown/commands.h"

#define MAX_INPUTS 4096

static void free_results(td_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        td_result_free(&res[i]);
    free(res);
}

/* Loads the n files and merges them into *out (force: of different jobs too). */
static int load_merged(const char *const *files, size_t n, int force, td_result *out,
                       td_error *err)
{
    td_result *inputs = calloc(n, sizeof *inputs);
    if (!inputs)
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (td_result_load(files[i], &inputs[i], err)) {
            free_results(inputs, i);
            return -1;
        }
    int rc = td_results_merge(inputs, files, n, force, out, err);
    free_results(inputs, n);
    return rc;
}

/* Each rank's file once: one given twice would count its data twice. */
static int check_distinct(const char *const *files, int n, td_error *err)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (td_same_file(files[i], files[j])) {
                int other = strcmp(files[i], files[j]) != 0;
                return td_usage_fail(err, "%s is given twice%s%s%s: give each rank's result "
                                     "once", files[j], other ? " (also as " : "",
                                     other ? files[i] : "", other ? ")" : "");
            }
    return 0;
}

static const char **file_list(int argc)
{
    return calloc((size_t)argc + 1, sizeof(const char *));
}

int cmd_merge(int argc, char **argv, td_error *err)
{
    cli c;
    int n = 0;
    const char **files = file_list(argc);
    if (!files)
        return td_fail(err, "out of memory");
    int rc = td_cli_parse_command(argc, argv, TD_CMD_MERGE, &c, files, MAX_INPUTS, &n, err);
    const char *output = c.profile.output;
    if (rc == 0 && n < 1)
        rc = td_usage_fail(err, "merge needs the results to merge: topdown merge A.json "
                           "B.json ... -o ALL.json [-f]");
    if (rc == 0 && !output)
        rc = td_usage_fail(err, "merge needs -o ALL.json, the file to write: topdown merge "
                           "%s%s -o ALL.json [-f]", files[0], n > 1 ? " ..." : "");
    if (rc == 0)
        rc = cmd_check_inputs(files, (size_t)n, err);
    if (rc == 0)
        rc = check_distinct(files, n, err);
    if (rc == 0)
        rc = cmd_check_outputs(&output, 1, c.profile.force, files, (size_t)n, err);
    td_result merged;
    if (rc == 0 && (rc = load_merged(files, (size_t)n, c.profile.force, &merged, err)) == 0) {
        rc = td_result_save(output, &merged, err);
        if (rc == 0)
            fprintf(stderr, "topdown: wrote %s (%zu device sections from %d results); "
                    "topdown imbalance %s compares them\n", output, merged.n_devices, n,
                    output);
        td_result_free(&merged);
    }
    free(files);
    return rc == 1 ? 0 : rc;
}

/* imbalance compares ranks: one is a usage error. */
static int one_rank(const char *const *files, int n, td_error *err)
{
    return td_usage_fail(err, "%s%s hold%s one rank: imbalance compares ranks; give each "
                         "rank's result (topdown imbalance A.json B.json ...) or one merged "
                         "from them (topdown merge A.json B.json -o all.json)", files[0],
                         n > 1 ? " and the others" : "", n > 1 ? "" : "s");
}

int cmd_imbalance(int argc, char **argv, td_error *err)
{
    cli c;
    int n = 0;
    const char **files = file_list(argc);
    if (!files)
        return td_fail(err, "out of memory");
    int rc = td_cli_parse_command(argc, argv, TD_CMD_IMBALANCE, &c, files, MAX_INPUTS, &n, err);
    if (rc == 0 && n < 1)
        rc = td_usage_fail(err, "usage: topdown imbalance ALL.json | A.json B.json ...");
    if (rc == 0)
        rc = cmd_check_inputs(files, (size_t)n, err);
    if (rc == 0)
        rc = check_distinct(files, n, err);
    td_arch_set archs;
    td_result merged;
    if (rc == 0 && (rc = cmd_load_archs(&archs, c.arch, err)) == 0) {
        /* two runs compared side by side need not be one job's ranks */
        if ((rc = load_merged(files, (size_t)n, 1, &merged, err)) == 0) {
            rc = td_result_ranks(&merged) < 2
                     ? one_rank(files, n, err)
                     : td_imbalance_text(stdout, &merged, &archs, c.arch, files[0],
                                         (size_t)c.report.max_kernels, c.json, err);
            td_result_free(&merged);
        }
        td_arch_set_free(&archs);
    }
    free(files);
    return rc == 1 ? 0 : rc;
}

/* -k's kernels of s (NULL: none given); a usage error when it names none. */
static int trace_kernels(const td_result *res, const td_summary *s, const cli *c,
                         unsigned char **keep, td_error *err)
{
    *keep = NULL;
    if (!c->profile.kernel_filter)
        return 0;
    size_t n_kept = 0;
    *keep = malloc(s->n_kernels ? s->n_kernels : 1);
    if (!*keep)
        return td_fail(err, "out of memory");
    if (td_kernel_select(s, res, c->profile.kernel_filter, (td_name_base)c->report.name_base,
                         *keep, &n_kept, err) == 0)
        return 0;
    free(*keep);
    *keep = NULL;
    return TD_USAGE_ERROR;
}

/* On stderr: what the trace holds, and the launches it could not place. */
static void trace_said(const char *output, const td_trace_counts *n)
{
    if (n->untimed)
        fprintf(stderr, "topdown: %zu launch%s without a start time (replayed for their "
                "counters) %s not in the trace\n", n->untimed, n->untimed == 1 ? "" : "es",
                n->untimed == 1 ? "is" : "are");
    fprintf(stderr, "topdown: wrote %s (%zu launches and copies, %zu NVTX region spans); "
            "open it in https://ui.perfetto.dev or chrome://tracing\n", output, n->events,
            n->regions);
}

static int trace_file(const char *file, const char *output, const cli *c, td_error *err)
{
    td_arch_set archs;
    int rc = cmd_load_archs(&archs, c->arch, err);
    if (rc)
        return rc;
    td_result res;
    td_summary s;
    unsigned char *keep = NULL;
    td_trace_counts counts;
    if ((rc = td_result_load(file, &res, err)) == 0) {
        if ((rc = td_summarize(&res, &archs, c->arch, &s, err)) == 0) {
            if ((rc = trace_kernels(&res, &s, c, &keep, err)) == 0) {
                td_trace_options o = {keep, c->profile.kernel_filter, c->from_ms, c->to_ms};
                rc = td_trace_write(output, &res, &s, &o, &counts, err);
                rc = rc == TD_TRACE_EMPTY ? TD_USAGE_ERROR : rc;
                if (rc)
                    td_fail_context(err, "%s", file);
            }
            free(keep);
            td_summary_free(&s);
        }
        td_result_free(&res);
    }
    td_arch_set_free(&archs);
    if (rc == 0)
        trace_said(output, &counts);
    return rc;
}

int cmd_trace(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1] = {NULL};
    int n = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_TRACE, &c, files, 1, &n, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    const char *output = c.profile.output;
    if (!files[0] || !output)
        return td_usage_fail(err, "usage: topdown trace FILE -o TRACE.json [-k K] [--from MS] "
                             "[--to MS] [-f]");
    if (c.to_ms >= 0 && c.to_ms < c.from_ms)
        return td_usage_fail(err, "--to %g ms is before --from %g ms: give the window's start "
                             "first", c.to_ms, c.from_ms);
    if (c.profile.kernel_filter &&
        (rc = cmd_check_kernel_name(c.profile.kernel_filter, c.report.name_base, 1, err)))
        return rc;
    if ((rc = cmd_check_inputs(files, 1, err)))
        return rc;
    if ((rc = cmd_check_outputs(&output, 1, c.profile.force, files, 1, err)))
        return rc;
    return trace_file(files[0], output, &c, err);
}
