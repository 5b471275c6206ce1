/* topdown imbalance (ranks.h): per kernel, its time and level 1 on each
 * rank, kernels ranked by the time the slowest rank loses. */
#include "report/ranks.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/columns.h"
#include "report/comm.h"
#include "report/json.h"
#include "report/kname.h"
#include "report/select.h"
#include "report/wrap.h"

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
    double max, mean;  /* GPU time over the ranks (absent: 0) */
    size_t slowest;
} kernel_row;

static const char *origin_of(const td_device *dev, const char *fallback)
{
    return dev->origin ? dev->origin : fallback;
}

size_t td_result_ranks(const td_result *res)
{
    size_t n = 0;
    for (size_t d = 0; d < res->n_devices; d++) {
        const char *origin = origin_of(&res->devices[d], "");
        size_t e = 0;
        while (e < d && strcmp(origin_of(&res->devices[e], ""), origin) != 0)
            e++;
        n += e == d;
    }
    return n;
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

/* The time lost to the kernel's imbalance: the slowest rank's GPU time
 * minus the mean over the ranks (what each rank waits for it, on average,
 * where they meet after it). */
static double lost_ns(const kernel_row *row)
{
    return row->max - row->mean;
}

static double max_over_mean(const kernel_row *row)
{
    return row->mean > 0 ? row->max / row->mean : 1;
}

static int by_time_lost(const void *pa, const void *pb)
{
    const kernel_row *a = pa, *b = pb;
    double la = lost_ns(a), lb = lost_ns(b);
    if (la != lb)
        return la > lb ? -1 : 1;
    if (a->max != b->max)
        return a->max > b->max ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* A rank's kernels, launches and GPU time, communication apart. */
typedef struct rank_totals {
    size_t kernels, launches;
    double ns, comm_ns;
} rank_totals;

static void totals_of(const rank *rk, rank_totals *t)
{
    td_comm_totals comm;
    td_comm_totals_of(&rk->sum, &comm);
    t->kernels = rk->sum.n_kernels;
    t->launches = rk->sum.launches;
    t->ns = rk->sum.total_ns;
    t->comm_ns = comm.ns;
}

/* The rank of the most GPU time. */
static size_t busiest(const rank *ranks, size_t n_ranks)
{
    size_t most = 0;
    for (size_t r = 1; r < n_ranks; r++)
        if (ranks[r].sum.total_ns > ranks[most].sum.total_ns)
            most = r;
    return most;
}

/* Each rank's totals, and its source, once (elided in the middle to the
 * line's last columns). */
#define TOTALS_PREFIX 64 /* "  r0   *" and the numbers */
static void print_rank_totals(FILE *out, const rank *ranks, size_t n_ranks)
{
    size_t most = busiest(ranks, n_ranks);
    fprintf(out, "\nPer rank (* the most GPU time):\n  %-6s %7s %9s %11s %11s %11s  %s\n",
            "rank", "kernels", "launches", "GPU ms", "comms ms", "compute ms", "source");
    for (size_t r = 0; r < n_ranks; r++) {
        rank_totals t;
        totals_of(&ranks[r], &t);
        char source[TD_TEXT_WIDTH];
        td_elide_middle(ranks[r].origin, TD_TEXT_WIDTH - TOTALS_PREFIX, source, sizeof source);
        fprintf(out, "  r%-3zu %c %7zu %9zu %11.3f %11.3f %11.3f  %s\n", r,
                r == most ? '*' : ' ', t.kernels, t.launches, t.ns / 1e6, t.comm_ns / 1e6,
                (t.ns - t.comm_ns) / 1e6, source);
    }
}

static void print_rank_line(FILE *out, const rank *rk, size_t r, const kernel_row *row)
{
    fprintf(out, "  r%-3zu %c", r, r == row->slowest ? '*' : ' ');
    if (!row->at[r]) {
        fputs("  (not launched)\n", out);
        return;
    }
    const td_kernel_summary *k = &rk->sum.kernels[row->at[r] - 1];
    fprintf(out, " %8zu %12.3f", k->launches, k->total_ns / 1e6);
    if (!k->has_data) {
        fprintf(out, " %10s %10s %10s %10s  (no profiled launch)\n", TD_NOT_MEASURED,
                TD_NOT_MEASURED, TD_NOT_MEASURED, TD_NOT_MEASURED);
        return;
    }
    const td_breakdown *b = &k->mean;
    const td_model *m = &rk->sum.models[k->model];
    char path[2 * TD_PATH_MAX + 8];
    static const int level1[] = {TD_N_RETIRE, TD_N_DIVERGENCE, TD_N_FRONTEND, TD_N_BACKEND};
    for (size_t i = 0; i < 4; i++) /* a split not made (n/m), an interval too wide (n/k) */
        if (td_node_known(m, b, level1[i]))
            fprintf(out, " %10.1f", 100 * b->node[level1[i]]);
        else
            fprintf(out, " %10s", td_node_measured(m, b, level1[i]) ? TD_NOT_KNOWN : TD_NOT_MEASURED);
    const char *bottleneck = td_verdict_names(m, &k->verdict, 1, path, sizeof path);
    if (!bottleneck[0] && k->verdict.not_known)
        bottleneck = TD_NOT_KNOWN;
    fprintf(out, "%s%s\n", bottleneck[0] ? "  " : "", bottleneck);
}

static void print_kernel(FILE *out, const rank *ranks, size_t n_ranks, const kernel_row *row,
                         size_t i, size_t n_rows)
{
    char base[1024], shown[TD_TEXT_WIDTH + 1];
    td_kernel_base_name(row->name, base, sizeof base);
    td_kernel_shown(base, i, n_rows, shown, sizeof shown);
    fprintf(out, "\nKernel %zu/%zu: %s\n", i + 1, n_rows, shown);
    fprintf(out, "  lost %.3f ms: slowest r%zu %.3f ms, mean %.3f ms (max/mean %.2f)%s\n",
            lost_ns(row) / 1e6, row->slowest, row->max / 1e6, row->mean / 1e6,
            max_over_mean(row), td_comm_library(row->name) ? "; communication" : "");
    fprintf(out, "  %-6s %8s %12s %10s %10s %10s %10s  %s\n", "rank", "launches", "GPU ms",
            "Retire", "Divergence", "Frontend", "Backend", "bottleneck");
    for (size_t r = 0; r < n_ranks; r++)
        print_rank_line(out, &ranks[r], r, row);
}

static void print_rows(FILE *out, const rank *ranks, size_t n_ranks, const kernel_row *rows,
                       size_t n_rows, size_t max_kernels)
{
    fprintf(out, "Imbalance across %zu ranks, per kernel (matched by name), most time lost "
            "first; * the slowest rank\nTime lost: the slowest rank's GPU time minus the mean "
            "over the ranks\n", n_ranks);
    print_rank_totals(out, ranks, n_ranks);
    size_t shown = max_kernels && max_kernels < n_rows ? max_kernels : n_rows;
    for (size_t i = 0; i < shown; i++)
        print_kernel(out, ranks, n_ranks, &rows[i], i, n_rows);
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
    char path[2 * TD_PATH_MAX + 8];
    for (size_t i = 0; i < 4; i++) /* null: no data, a split that was not made, not known */
        if (k && k->has_data && td_node_known(&rk->sum.models[k->model], &k->mean, nodes[i]))
            cJSON_AddNumberToObject(o, names[i], 100 * k->mean.node[nodes[i]]);
        else
            cJSON_AddNullToObject(o, names[i]);
    if (k && k->has_data)
        cJSON_AddStringToObject(o, "bottleneck", td_verdict_names(&rk->sum.models[k->model],
                                                                  &k->verdict, 1, path,
                                                                  sizeof path));
    else
        cJSON_AddNullToObject(o, "bottleneck");
    return o;
}

static cJSON *json_rank_totals(const rank *ranks, size_t n_ranks)
{
    cJSON *list = cJSON_CreateArray();
    for (size_t r = 0; r < n_ranks; r++) {
        rank_totals t;
        totals_of(&ranks[r], &t);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", (double)r);
        cJSON_AddStringToObject(o, "source", ranks[r].origin);
        cJSON_AddNumberToObject(o, "kernels", (double)t.kernels);
        cJSON_AddNumberToObject(o, "launches", (double)t.launches);
        cJSON_AddNumberToObject(o, "total_ns", t.ns);
        cJSON_AddNumberToObject(o, "comm_ns", t.comm_ns);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

static int json_rows(FILE *out, const rank *ranks, size_t n_ranks, const kernel_row *rows,
                     size_t n_rows, size_t max_kernels, td_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "topdown-imbalance/1");
    cJSON_AddNumberToObject(root, "ranks", (double)n_ranks);
    cJSON_AddItemToObject(root, "rank_totals", json_rank_totals(ranks, n_ranks));
    cJSON *kernels = cJSON_AddArrayToObject(root, "kernels");
    size_t shown = max_kernels && max_kernels < n_rows ? max_kernels : n_rows;
    for (size_t i = 0; i < shown; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddStringToObject(k, "name", rows[i].name);
        cJSON_AddNumberToObject(k, "lost_ns", lost_ns(&rows[i]));
        cJSON_AddNumberToObject(k, "imbalance", max_over_mean(&rows[i]));
        cJSON_AddNumberToObject(k, "slowest_rank", (double)rows[i].slowest);
        cJSON_AddBoolToObject(k, "communication", td_comm_library(rows[i].name) != NULL);
        cJSON *per_rank = cJSON_AddArrayToObject(k, "per_rank");
        for (size_t r = 0; r < n_ranks; r++)
            cJSON_AddItemToArray(per_rank, json_rank(&ranks[r], r, &rows[i]));
        cJSON_AddItemToArray(kernels, k);
    }
    return td_json_print(out, root, err);
}

typedef struct imbalance_args {
    const rank *ranks;
    size_t n_ranks;
    const kernel_row *rows;
    size_t n_rows, max_kernels;
} imbalance_args;

static int write_rows(FILE *out, const void *ctx, td_error *err)
{
    (void)err;
    const imbalance_args *a = ctx;
    print_rows(out, a->ranks, a->n_ranks, a->rows, a->n_rows, a->max_kernels);
    return 0;
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
        qsort(rows, n_rows, sizeof *rows, by_time_lost);
        imbalance_args a = {ranks, n_ranks, rows, n_rows, max_kernels};
        rc = json ? json_rows(out, ranks, n_ranks, rows, n_rows, max_kernels, err)
                  : td_write_wrapped(out, 0, write_rows, &a, err);
    }
    free(at);
    free(rows);
    free_ranks(ranks, n_ranks);
    return rc;
}
