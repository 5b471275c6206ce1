#include "report/fail_if.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "levels/model.h"

static int parse_rule(const char *text, size_t len, td_fail_rule *r, td_error *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->text, sizeof r->text, "%.*s", (int)len, text);
    size_t at = strcspn(r->text, "<>");
    if (at == 0 || at >= strlen(r->text) || at >= sizeof r->node)
        return td_fail(err, "--fail-if '%s': a rule is NODE>+P, NODE<-P, NODE>P or NODE<P "
                       "(e.g. 'Backend.Memory_Bound>+5')", r->text);
    snprintf(r->node, sizeof r->node, "%.*s", (int)at, r->text);
    r->op = r->text[at];
    const char *number = r->text + at + 1;
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

/* A kernel's share of a node in %, or NAN when its side has no value. */
static double node_pct(const td_summary *s, const td_kernel_summary *k, const char *node)
{
    if (!k->has_data)
        return NAN;
    const td_model *m = &s->models[k->model];
    int i = td_model_find(m, node);
    if (i < 0 || !m->tree[i].measured || !td_node_present(m, &k->mean, i))
        return NAN;
    return 100.0 * k->mean.value[i];
}

static int node_known(const td_summary *s, const char *node)
{
    for (size_t i = 0; i < s->n_models; i++)
        if (td_model_find(&s->models[i], node) >= 0)
            return 1;
    return 0;
}

static int breaks(const td_fail_rule *r, double a, double b)
{
    double value = r->relative ? b - a : b;
    return r->op == '>' ? value > r->limit : value < r->limit;
}

static int by_change(const void *x, const void *y)
{
    const td_fail_hit *p = x, *q = y;
    double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
    return dp < dq ? 1 : dp > dq ? -1 : strcmp(p->kernel, q->kernel);
}

int td_fail_rules_check_nodes(const td_diff_side *a, const td_diff_side *b,
                              const td_fail_rule *rules, size_t n_rules, td_error *err)
{
    for (size_t r = 0; r < n_rules; r++)
        if (!node_known(a->s, rules[r].node) && !node_known(b->s, rules[r].node))
            return td_fail(err, "--fail-if '%s': no node \"%s\" in either result's tables "
                           "(`topdown list-nodes -l 4` lists the paths)", rules[r].text,
                           rules[r].node);
    return 0;
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
    *hits = calloc(d.n_both * n_rules + 1, sizeof **hits);
    if (!*hits) {
        td_diff_free(&d);
        return td_fail(err, "out of memory");
    }
    for (size_t i = 0; i < d.n_rows; i++) {
        const td_diff_row *row = &d.rows[i];
        if (!row->a || !row->b)
            continue;
        for (size_t r = 0; r < n_rules; r++) {
            double va = node_pct(a->s, row->a, rules[r].node);
            double vb = node_pct(b->s, row->b, rules[r].node);
            if (!isnan(va) && !isnan(vb) && breaks(&rules[r], va, vb))
                (*hits)[(*n_hits)++] = (td_fail_hit){row->kernel, r, va, vb};
        }
    }
    td_diff_free(&d);
    qsort(*hits, *n_hits, sizeof **hits, by_change);
    return 0;
}

void td_fail_if_print(FILE *out, const td_fail_rule *rules, const td_fail_hit *hits,
                      size_t n_hits)
{
    for (size_t i = 0; i < n_hits; i++)
        fprintf(out, "  %-28s B-A %+6.1f (A %5.1f, B %5.1f)  %s\n", rules[hits[i].rule].text,
                hits[i].b - hits[i].a, hits[i].a, hits[i].b, hits[i].kernel);
}
