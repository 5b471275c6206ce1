/* topdown merge and topdown imbalance (ranks.h). */
#include "report/ranks.h"

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/columns.h"
#include "report/json.h"
#include "report/kname.h"

/* ---- merge ----------------------------------------------------------------- */

static const char *label_of(const td_device *dev, const char *label)
{
    return dev->origin ? dev->origin : label;
}

/* Two sections of one chip measured with different arch tables. */
static int check_tables(const td_result *inputs, const char *const *labels, size_t n,
                        td_error *err)
{
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < inputs[i].n_devices; d++)
            for (size_t j = 0; j <= i; j++)
                for (size_t e = 0; e < inputs[j].n_devices && (j < i || e < d); e++) {
                    const td_device *a = &inputs[j].devices[e], *b = &inputs[i].devices[d];
                    if (!a->chip || !b->chip || strcmp(a->chip, b->chip) != 0 ||
                        strcmp(a->arch, b->arch) == 0)
                        continue;
                    return td_fail(err, "%s and %s: the same chip (%s) measured with "
                                   "different arch tables (%s, %s): merge results of one "
                                   "table (profile both with --arch %s)",
                                   label_of(a, labels[j]), label_of(b, labels[i]), a->chip,
                                   a->arch, b->arch, a->arch);
                }
    return 0;
}

/* The inputs' conditions when they all recorded the same, else none. */
static int merge_conditions(const td_result *inputs, size_t n, td_result *out)
{
    for (size_t i = 1; i < n; i++)
        if (!td_conditions_recorded(&inputs[i].conditions) ||
            td_conditions_differ(&inputs[0].conditions, &inputs[i].conditions))
            return 0;
    return td_conditions_copy(&out->conditions, &inputs[0].conditions);
}

static int merge_header(const td_result *inputs, const char *const *labels, size_t n,
                        td_result *out)
{
    const td_result *first = &inputs[0];
    const char *status = "complete", *replay = first->replay_mode;
    size_t note_len = 64;
    for (size_t i = 0; i < n; i++) {
        out->synthetic |= inputs[i].synthetic;
        if (inputs[i].status && strcmp(inputs[i].status, "complete") != 0)
            status = inputs[i].status;
        if (!out->exit_code)
            out->exit_code = inputs[i].exit_code, out->term_signal = inputs[i].term_signal;
        if (!replay || !inputs[i].replay_mode || strcmp(replay, inputs[i].replay_mode) != 0)
            replay = NULL;
        note_len += strlen(labels[i]) + 2;
    }
    out->tool_version = td_strdup(first->tool_version);
    out->created = td_strdup(first->created);
    out->status = td_strdup(status);
    out->replay_mode = td_strdup(replay);
    out->overhead_pct = first->overhead_pct;
    for (size_t i = 0; i < n; i++) /* each input's processes */
        td_cost_add(&out->cost, &inputs[i].cost);
    out->note = malloc(note_len);
    if (merge_conditions(inputs, n, out) || !out->note || !out->status || (first->created && !out->created))
        return -1;
    snprintf(out->note, note_len, "merged from %zu results:", n);
    for (size_t i = 0; i < n; i++)
        snprintf(out->note + strlen(out->note), note_len - strlen(out->note), " %s%s",
                 labels[i], i + 1 < n ? "," : "");
    out->argv = calloc(first->argc ? first->argc : 1, sizeof *out->argv);
    for (size_t i = 0; out->argv && i < first->argc; i++)
        if ((out->argv[out->argc++] = td_strdup(first->argv[i])) == NULL)
            return -1;
    return out->argv ? 0 : -1;
}

int td_results_merge(td_result *inputs, const char *const *labels, size_t n, td_result *out,
                     td_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return td_fail(err, "merge needs at least one result");
    if (check_tables(inputs, labels, n, err))
        return -1;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += inputs[i].n_devices;
    out->devices = calloc(total ? total : 1, sizeof *out->devices);
    if (!out->devices || merge_header(inputs, labels, n, out)) {
        td_result_free(out);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t d = 0; d < inputs[i].n_devices; d++) {
            td_device *dev = &out->devices[out->n_devices++];
            *dev = inputs[i].devices[d]; /* moved: the input no longer owns it */
            if (!dev->origin && !(dev->origin = td_strdup(labels[i]))) {
                inputs[i].n_devices -= d + 1;
                memmove(inputs[i].devices, inputs[i].devices + d + 1,
                        inputs[i].n_devices * sizeof *dev);
                td_result_free(out);
                return td_fail(err, "out of memory");
            }
        }
        inputs[i].n_devices = 0;
    }
    return 0;
}

/* ---- imbalance --------------------------------------------------------------- */

/* One rank: its device sections as a result of their own (borrowed). */
typedef struct rank {
    const char *origin;
    td_result view;
    td_summary sum;
    int summarized;
} rank;

typedef struct kernel_row {
    const char *name;
    size_t *at;        /* per rank: index into its summary's kernels + 1; 0: absent */
    double max, mean;  /* GPU time over the ranks */
    size_t slowest;
} kernel_row;

static const char *origin_of(const td_device *dev, const char *fallback)
{
    return dev->origin ? dev->origin : fallback;
}

/* The ranks in order of first appearance, each with its sections. */
static int split_ranks(const td_result *res, const char *fallback, rank **out, size_t *n,
                       td_error *err)
{
    *out = calloc(res->n_devices ? res->n_devices : 1, sizeof **out);
    *n = 0;
    if (!*out)
        return td_fail(err, "out of memory");
    for (size_t d = 0; d < res->n_devices; d++) {
        const char *origin = origin_of(&res->devices[d], fallback);
        size_t r = 0;
        while (r < *n && strcmp((*out)[r].origin, origin) != 0)
            r++;
        rank *k = &(*out)[r];
        if (r == *n) {
            (*n)++;
            k->origin = origin;
            k->view = *res;
            k->view.n_devices = 0;
            k->view.devices = calloc(res->n_devices, sizeof *k->view.devices);
            if (!k->view.devices)
                return td_fail(err, "out of memory");
        }
        k->view.devices[k->view.n_devices++] = res->devices[d];
    }
    return 0;
}

static void free_ranks(rank *ranks, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        if (ranks[r].summarized)
            td_summary_free(&ranks[r].sum);
        free(ranks[r].view.devices);
    }
    free(ranks);
}

static double time_at(const rank *ranks, const kernel_row *row, size_t r)
{
    return row->at[r] ? ranks[r].sum.kernels[row->at[r] - 1].total_ns : 0;
}

static int find_row(const kernel_row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Every kernel of every rank, once, with where it is in each rank. */
static int build_rows(const rank *ranks, size_t n_ranks, kernel_row **out, size_t *n,
                      size_t **at_base, td_error *err)
{
    size_t cap = 0;
    for (size_t r = 0; r < n_ranks; r++)
        cap += ranks[r].sum.n_kernels;
    *out = calloc(cap ? cap : 1, sizeof **out);
    size_t *at = calloc((cap ? cap : 1) * n_ranks, sizeof *at);
    *at_base = at;
    *n = 0;
    if (!*out || !at)
        return td_fail(err, "out of memory");
    for (size_t r = 0; r < n_ranks; r++)
        for (size_t k = 0; k < ranks[r].sum.n_kernels; k++) {
            const char *name = ranks[r].sum.kernels[k].name;
            int i = find_row(*out, *n, name);
            if (i < 0) {
                i = (int)(*n)++;
                (*out)[i].name = name;
                (*out)[i].at = at + (size_t)i * n_ranks;
            }
            (*out)[i].at[r] = k + 1;
        }
    for (size_t i = 0; i < *n; i++) {
        kernel_row *row = &(*out)[i];
        for (size_t r = 0; r < n_ranks; r++) {
            double t = time_at(ranks, row, r);
            row->mean += t / (double)n_ranks;
            if (t > row->max)
                row->max = t, row->slowest = r;
        }
    }
    return 0;
}

static double imbalance(const kernel_row *row)
{
    return row->mean > 0 ? row->max / row->mean : 1;
}

static int by_imbalance(const void *pa, const void *pb)
{
    const kernel_row *a = pa, *b = pb;
    double ia = imbalance(a), ib = imbalance(b);
    if (ia != ib)
        return ia > ib ? -1 : 1;
    if (a->max != b->max)
        return a->max > b->max ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void print_rank_line(FILE *out, const rank *rk, size_t r, const kernel_row *row)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", rk->origin);
    fprintf(out, "  r%-3zu %c %-28.28s", r, r == row->slowest ? '*' : ' ',
            basename(copy)); /* libgen.h, on a copy */
    if (!row->at[r]) {
        fputs("  (not launched)\n", out);
        return;
    }
    const td_kernel_summary *k = &rk->sum.kernels[row->at[r] - 1];
    fprintf(out, " %8zu %12.3f", k->launches, k->total_ns / 1e6);
    if (!k->has_data) {
        fprintf(out, " %10s %10s %10s %10s  (no profiled launch)\n", "-", "-", "-", "-");
        return;
    }
    const td_breakdown *b = &k->mean;
    const td_model *m = &rk->sum.models[k->model];
    char path[TD_PATH_MAX];
    fprintf(out, " %10.1f %10.1f", 100 * b->node[TD_N_RETIRE], 100 * b->node[TD_N_DIVERGENCE]);
    if (b->reasons_missing) /* a stall split that was not made: no value */
        fprintf(out, " %10s %10s", "n/m", "n/m");
    else
        fprintf(out, " %10.1f %10.1f", 100 * b->node[TD_N_FRONTEND], 100 * b->node[TD_N_BACKEND]);
    fprintf(out, "  %s\n", td_bottleneck_path(m, k->verdict.bottleneck[1], path, sizeof path));
}

static void print_rows(FILE *out, const rank *ranks, size_t n_ranks, const kernel_row *rows,
                       size_t n_rows, size_t max_kernels)
{
    fprintf(out, "Imbalance across %zu rank%s: per kernel (matched by name), heaviest "
            "imbalance (max/mean GPU time) first; * the slowest rank\n", n_ranks,
            n_ranks == 1 ? "" : "s");
    size_t shown = max_kernels && max_kernels < n_rows ? max_kernels : n_rows;
    for (size_t i = 0; i < shown; i++) {
        char base[256];
        td_kernel_base_name(rows[i].name, base, sizeof base);
        fprintf(out, "\nKernel %zu/%zu: %s  max/mean %.2f, slowest r%zu (%s)\n", i + 1, n_rows,
                base, imbalance(&rows[i]), rows[i].slowest, ranks[rows[i].slowest].origin);
        fprintf(out, "  %-6s %-28s %8s %12s %10s %10s %10s %10s  %s\n", "rank", "source",
                "launches", "GPU ms", "Retire", "Divergence", "Frontend", "Backend",
                "bottleneck");
        for (size_t r = 0; r < n_ranks; r++)
            print_rank_line(out, &ranks[r], r, &rows[i]);
    }
    if (shown < n_rows)
        fprintf(out, "\n(%zu more kernel%s: --kernels 0 lists all)\n", n_rows - shown,
                n_rows - shown == 1 ? "" : "s");
}

/* One rank's line of a kernel as JSON (null shares without counters). */
static cJSON *json_rank(const rank *rk, size_t r, const kernel_row *row)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", (double)r);
    cJSON_AddStringToObject(o, "source", rk->origin);
    cJSON_AddBoolToObject(o, "slowest", r == row->slowest);
    const td_kernel_summary *k = row->at[r] ? &rk->sum.kernels[row->at[r] - 1] : NULL;
    cJSON_AddNumberToObject(o, "launches", k ? (double)k->launches : 0);
    cJSON_AddNumberToObject(o, "total_ns", k ? k->total_ns : 0);
    static const char *const names[] = {"Retire", "Divergence", "Frontend", "Backend"};
    static const int nodes[] = {TD_N_RETIRE, TD_N_DIVERGENCE, TD_N_FRONTEND, TD_N_BACKEND};
    char path[TD_PATH_MAX];
    for (size_t i = 0; i < 4; i++) /* null: no data, or a split that was not made */
        if (k && k->has_data && td_node_measured(&rk->sum.models[k->model], &k->mean, nodes[i]))
            cJSON_AddNumberToObject(o, names[i], 100 * k->mean.node[nodes[i]]);
        else
            cJSON_AddNullToObject(o, names[i]);
    if (k && k->has_data)
        cJSON_AddStringToObject(o, "bottleneck",
                                td_bottleneck_path(&rk->sum.models[k->model],
                                                   k->verdict.bottleneck[1], path, sizeof path));
    else
        cJSON_AddNullToObject(o, "bottleneck");
    return o;
}

static int json_rows(FILE *out, const rank *ranks, size_t n_ranks, const kernel_row *rows,
                     size_t n_rows, size_t max_kernels, td_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "topdown-imbalance/1");
    cJSON_AddNumberToObject(root, "ranks", (double)n_ranks);
    cJSON *kernels = cJSON_AddArrayToObject(root, "kernels");
    size_t shown = max_kernels && max_kernels < n_rows ? max_kernels : n_rows;
    for (size_t i = 0; i < shown; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddStringToObject(k, "name", rows[i].name);
        cJSON_AddNumberToObject(k, "imbalance", imbalance(&rows[i]));
        cJSON_AddNumberToObject(k, "slowest_rank", (double)rows[i].slowest);
        cJSON *per_rank = cJSON_AddArrayToObject(k, "per_rank");
        for (size_t r = 0; r < n_ranks; r++)
            cJSON_AddItemToArray(per_rank, json_rank(&ranks[r], r, &rows[i]));
        cJSON_AddItemToArray(kernels, k);
    }
    return td_json_print(out, root, err);
}

int td_imbalance_text(FILE *out, const td_result *res, const td_arch_set *archs,
                      const char *arch_override, const char *default_origin,
                      size_t max_kernels, int json, td_error *err)
{
    rank *ranks = NULL;
    size_t n_ranks = 0, n_rows = 0;
    kernel_row *rows = NULL;
    size_t *at = NULL;
    int rc = split_ranks(res, default_origin, &ranks, &n_ranks, err);
    for (size_t r = 0; rc == 0 && r < n_ranks; r++) {
        rc = td_summarize(&ranks[r].view, archs, arch_override, &ranks[r].sum, err);
        ranks[r].summarized = rc == 0;
        if (rc == 0 && (rc = td_summary_printable(&ranks[r].sum, err)))
            td_fail_context(err, "%s", ranks[r].origin);
    }
    if (rc == 0)
        rc = build_rows(ranks, n_ranks, &rows, &n_rows, &at, err);
    if (rc == 0) {
        qsort(rows, n_rows, sizeof *rows, by_imbalance);
        if (json)
            rc = json_rows(out, ranks, n_ranks, rows, n_rows, max_kernels, err);
        else
            print_rows(out, ranks, n_ranks, rows, n_rows, max_kernels);
    }
    free(at);
    free(rows);
    free_ranks(ranks, n_ranks);
    return rc;
}
