#include "report/fail_if.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "levels/model.h"

/* time>+P% / time<-P%: B's GPU time per launch against A's, in % of A's. */
static int parse_time_limit(td_fail_rule *r, const char *number, td_error *err)
{
    char *end = NULL;
    errno = 0;
    r->time = 1;
    r->relative = 1;
    r->limit = strtod(number, &end);
    if ((*number != '+' && *number != '-') || errno || end == number || strcmp(end, "%") != 0 ||
        !isfinite(r->limit) || fabs(r->limit) > 1e6)
        return td_fail(err, "--fail-if '%s': a time rule is time>+P%% or time<-P%% (B's GPU "
                       "time per launch against A's, e.g. 'time>+10%%')", r->text);
    return 0;
}

static int parse_rule(const char *text, size_t len, td_fail_rule *r, td_error *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->text, sizeof r->text, "%.*s", (int)len, text);
    size_t at = strcspn(r->text, "<>");
    if (at == 0 || at >= strlen(r->text) || at >= sizeof r->node)
        return td_fail(err, "--fail-if '%s': a rule is NODE>+P, NODE<-P, NODE>P, NODE<P or "
                       "time>+P%% (e.g. 'Backend.Memory_Bound>+5')", r->text);
    snprintf(r->node, sizeof r->node, "%.*s", (int)at, r->text);
    r->op = r->text[at];
    const char *number = r->text + at + 1;
    if (strcmp(r->node, "time") == 0)
        return parse_time_limit(r, number, err);
    r->relative = *number == '+' || *number == '-';
    char *end = NULL;
    errno = 0;
    r->limit = strtod(number, &end);
    if (errno || end == number || *end || !isfinite(r->limit) || fabs(r->limit) > 100)
        return td_fail(err, "--fail-if '%s': \"%s\" is not points from -100 to 100 (+5: B-A "
                       "in points, 30: B's share in %%)", r->text, number);
    return 0;
}

int td_fail_rules_parse(const char *text, td_fail_rule **rules, size_t *n, td_error *err)
{
    size_t count = 1;
    for (const char *p = text; *p; p++)
        count += *p == ',';
    *n = 0;
    *rules = calloc(count, sizeof **rules);
    if (!*rules)
        return td_fail(err, "out of memory");
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        if (parse_rule(p, len, &(*rules)[*n], err)) {
            free(*rules);
            *rules = NULL;
            *n = 0;
            return -1;
        }
        (*n)++;
        p += len;
        if (!*p)
            return 0;
    }
}

/* A share of a node in %, or NAN when there is no value. */
static double share_pct(const td_model *m, const td_breakdown *value, const char *node)
{
    int i = td_model_find(m, node);
    if (i < 0 || !m->tree[i].measured || !td_node_present(m, value, i))
        return NAN;
    return 100.0 * value->value[i];
}

static int node_known(const td_summary *s, const char *node)
{
    for (size_t i = 0; i < s->n_models; i++)
        if (td_model_find(&s->models[i], node) >= 0)
            return 1;
    return 0;
}

static int breaks(const td_fail_rule *r, double change, double b)
{
    double value = r->relative ? change : b;
    return r->op == '>' ? value > r->limit : value < r->limit;
}

static int by_change(const void *x, const void *y)
{
    const td_fail_hit *p = x, *q = y;
    double dp = fabs(p->change), dq = fabs(q->change);
    return dp < dq ? 1 : dp > dq ? -1 : strcmp(p->kernel, q->kernel);
}

int td_fail_rules_check_nodes(const td_diff_side *a, const td_diff_side *b,
                              const td_fail_rule *rules, size_t n_rules, td_error *err)
{
    for (size_t r = 0; r < n_rules; r++)
        if (!rules[r].time && !node_known(a->s, rules[r].node) &&
            !node_known(b->s, rules[r].node))
            return td_fail(err, "--fail-if '%s': no node \"%s\" in either result's tables "
                           "(`topdown list-nodes -l 4` lists the paths)", rules[r].text,
                           rules[r].node);
    return 0;
}

/* One row of both results: a kernel, or the application. */
typedef struct gate_row {
    const char *name;
    const td_model *model[2];
    const td_breakdown *value[2]; /* NULL: no counters on that side */
    double ns[2]; /* GPU time of a launch: a kernel's median, the application's mean */
} gate_row;

static void check_row(const gate_row *row, const td_fail_rule *rules, size_t n_rules,
                      td_fail_hit *hits, size_t *n_hits)
{
    for (size_t r = 0; r < n_rules; r++) {
        double va, vb, change;
        if (rules[r].time) {
            va = row->ns[0], vb = row->ns[1];
            change = va > 0 ? 100.0 * (vb - va) / va : NAN;
        } else if (row->value[0] && row->value[1]) {
            va = share_pct(row->model[0], row->value[0], rules[r].node);
            vb = share_pct(row->model[1], row->value[1], rules[r].node);
            change = vb - va;
        } else {
            continue;
        }
        if (!isnan(va) && !isnan(vb) && !isnan(change) && breaks(&rules[r], change, vb))
            hits[(*n_hits)++] = (td_fail_hit){row->name, r, va, vb, change};
    }
}

static void kernel_row(const td_summary *s, const td_kernel_summary *k, int side, gate_row *row)
{
    row->model[side] = &s->models[k->model];
    row->value[side] = k->has_data ? &k->mean : NULL;
    row->ns[side] = td_diff_kernel_launch_ns(k);
}

static void app_row(const td_summary *s, int side, gate_row *row)
{
    row->model[side] = td_summary_model(s);
    row->value[side] = s->app_has_data && row->model[side] ? &s->app : NULL;
    row->ns[side] = td_diff_app_launch_ns(s);
}

int td_fail_if_check(const td_diff_side *a, const td_diff_side *b, const td_fail_rule *rules,
                     size_t n_rules, td_fail_hit **hits, size_t *n_hits, size_t *compared,
                     td_error *err)
{
    *hits = NULL;
    *n_hits = 0;
    *compared = 0;
    td_diff d;
    if (td_diff_match(a->s, b->s, &d, err))
        return -1;
    *compared = d.n_both;
    *hits = calloc((d.n_both + 1) * n_rules + 1, sizeof **hits);
    if (!*hits) {
        td_diff_free(&d);
        return td_fail(err, "out of memory");
    }
    gate_row app = {TD_FAIL_IF_APP, {NULL, NULL}, {NULL, NULL}, {0, 0}};
    app_row(a->s, 0, &app);
    app_row(b->s, 1, &app);
    check_row(&app, rules, n_rules, *hits, n_hits);
    for (size_t i = 0; i < d.n_rows; i++) {
        const td_diff_row *row = &d.rows[i];
        if (!row->a || !row->b)
            continue;
        gate_row k = {row->kernel, {NULL, NULL}, {NULL, NULL}, {0, 0}};
        kernel_row(a->s, row->a, 0, &k);
        kernel_row(b->s, row->b, 1, &k);
        check_row(&k, rules, n_rules, *hits, n_hits);
    }
    td_diff_free(&d);
    qsort(*hits, *n_hits, sizeof **hits, by_change);
    return 0;
}

void td_fail_if_print(FILE *out, const td_fail_rule *rules, const td_fail_hit *hits,
                      size_t n_hits)
{
    for (size_t i = 0; i < n_hits; i++) {
        const td_fail_hit *h = &hits[i];
        if (rules[h->rule].time)
            fprintf(out, "  %-28s B/A %+6.1f%% (A %.3f ms, B %.3f ms per launch, %s)  %s\n",
                    rules[h->rule].text, h->change, h->a / 1e6, h->b / 1e6,
                    strcmp(h->kernel, TD_FAIL_IF_APP) == 0 ? TD_DIFF_APP_PER_LAUNCH
                                                            : TD_DIFF_KERNEL_PER_LAUNCH,
                    h->kernel);
        else
            fprintf(out, "  %-28s B-A %+6.1f (A %5.1f, B %5.1f)  %s\n", rules[h->rule].text,
                    h->change, h->a, h->b, h->kernel);
    }
}
