/* topdown source FILE KERNEL: a kernel's PC samples by source line
 * (report/source.h, docs/SOURCE.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levels/aggregate.h"
#include "levels/tree.h"
#include "metrics/kernel_base.h"
#include "metrics/result/result.h"
#include "report/output.h"
#include "report/select.h"
#include "report/source.h"
#include "topdown/cli.h"
#include "topdown/commands.h"

#define SOURCE_USAGE "topdown source FILE KERNEL [-n N] [--node NODE] [--sass] [--csv FILE]"

/* Whether kernel k is exactly what the selector names: its full name or
 * its base function name. */
static int names_exactly(const td_summary *s, size_t k, const char *selector)
{
    char base[1024];
    td_kernel_base_name(s->kernels[k].name, base, sizeof base);
    return strcmp(s->kernels[k].name, selector) == 0 || strcmp(base, selector) == 0;
}

/* The one kernel the selector names (report -k's rules: "#N" or a regex
 * on the base function name); several matches are fine when one of them
 * is exactly the selector. */
static int pick_kernel(const td_summary *s, const td_result *res, const char *selector,
                       size_t *k, td_error *err)
{
    unsigned char *keep = malloc(s->n_kernels ? s->n_kernels : 1);
    size_t n_kept = 0, which[6], n_which = 0;
    if (!keep)
        return td_fail(err, "out of memory");
    int rc = td_kernel_select(s, res, selector, TD_NAME_FUNCTION, keep, &n_kept, err);
    for (size_t i = 0; rc == 0 && i < s->n_kernels; i++) {
        if (!keep[i])
            continue;
        if (n_kept == 1 || names_exactly(s, i, selector)) {
            *k = i;
            n_which = 0;
            break;
        }
        if (n_which < sizeof which / sizeof *which)
            which[n_which++] = i;
    }
    free(keep);
    if (rc == 0 && n_which) {
        char listed[700] = "";
        td_kernel_candidates(s, which, n_which, listed, sizeof listed);
        rc = td_fail(err, "kernel '%s' matches %zu kernels (%s%s): give one, by its rank "
                     "(#%zu) or more of its name", selector, n_kept, listed,
                     n_kept > n_which ? ", ..." : "", which[0] + 1);
    }
    return rc;
}

static int print_table(const td_source_table *t, const cli *c, td_error *err)
{
    if (!c->csv)
        return td_source_text(stdout, t, c->lines, err);
    td_output o;
    if (td_output_open(&o, c->csv, err))
        return -1;
    if (td_source_csv(o.f, t, c->lines, err)) {
        td_output_discard(&o);
        return -1;
    }
    if (td_output_commit(&o, err))
        return -1;
    return strcmp(c->csv, "-") == 0 ? 0 : td_source_text(stdout, t, c->lines, err);
}

static int run(const char *file, const char *selector, const cli *c, td_error *err)
{
    td_arch_set archs;
    int rc = cmd_load_archs(&archs, c->arch, err);
    if (rc)
        return rc;
    td_result res;
    if (td_result_load(file, &res, err)) {
        td_arch_set_free(&archs);
        return -1;
    }
    td_summary s;
    rc = td_summarize(&res, &archs, c->arch, &s, err);
    if (rc == 0) {
        size_t k = 0;
        td_source_table t;
        rc = pick_kernel(&s, &res, selector, &k, err) ? TD_USAGE_ERROR : 0;
        if (rc == 0)
            rc = td_source_build(&res, &s, k, c->node, c->sass, file, &t, err);
        if (rc == 0) {
            rc = print_table(&t, c, err);
            td_source_free(&t);
        }
        td_summary_free(&s);
    }
    if (rc)
        td_fail_context(err, "%s", file);
    td_result_free(&res);
    td_arch_set_free(&archs);
    return rc == TD_USAGE_ERROR ? rc : rc ? -1 : 0;
}

/* --node names no fixed node: a stall reason below one (level 4), or nothing. */
static int bad_node(const char *node, td_error *err)
{
    char parent[256];
    snprintf(parent, sizeof parent, "%s", node);
    char *dot = strrchr(parent, '.');
    if (dot)
        *dot = '\0';
    if (dot && td_node_find(parent) >= 0)
        return td_usage_fail(err, "--node %s: PC samples reach the model's leaves (level 3); "
                             "give a node of level 1 to 3, such as %s", node, parent);
    return td_usage_fail(err, "--node %s is not a node of the model (topdown list-nodes -l 3 "
                         "lists them)", node);
}

int cmd_source(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[2] = {NULL, NULL};
    int n = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_SOURCE, &c, files, 2, &n, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (n < 2)
        return td_usage_fail(err, "topdown source needs a result file and a kernel: %s",
                             SOURCE_USAGE);
    if (c.node && td_node_find(c.node) < 0)
        return bad_node(c.node, err);
    if ((rc = cmd_check_kernel_name(files[1], TD_NAME_FUNCTION, 1, err)))
        return rc;
    if ((rc = cmd_check_inputs(files, 1, err)))
        return rc;
    const char *outputs[] = {c.csv};
    if ((rc = cmd_check_outputs(outputs, 1, c.profile.force, files, 1, err)))
        return rc;
    return run(files[0], files[1], &c, err);
}
