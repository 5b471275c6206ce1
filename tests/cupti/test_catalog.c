/* Every arch table against CUPTI's own metric catalog (profiler host API:
 * libcupti, no GPU). For each range-profiler table and each chip it lists:
 * the chip is supported, every metric name exists, every stall reason the
 * chip has is in the table, and the table's metric order costs no more
 * replay passes than a search finds. Every table binds to the model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/model.h"
#include "metrics/arch/arch.h"
#include "metrics/arch/catalog.h"
#include "metrics/arch/groups.h"

/* Shuffled orders tried per table when looking for fewer passes. */
#define ORDER_TRIES 200

/* MODEL.md section 4: the leaf of every stall reason it lists. */
static const char *const model_leaf[][2] = {
    {"no_instruction", "Frontend.Fetch.Instruction_Fetch"},
    {"branch_resolving", "Frontend.Fetch.Branch_Resolving"},
    {"barrier", "Frontend.Fetch.Synchronization"},
    {"membar", "Frontend.Fetch.Synchronization"},
    {"sleeping", "Frontend.Fetch.Synchronization"},
    {"dispatch_stall", "Frontend.Decode.Dispatch"},
    {"misc", "Frontend.Decode.Misc"},
    {"long_scoreboard", "Backend.Memory_Bound.L1_Bound"},
    {"lg_throttle", "Backend.Memory_Bound.L1_Bound"},
    {"tex_throttle", "Backend.Memory_Bound.L1_Bound"},
    {"mio_throttle", "Backend.Memory_Bound.MIO_Bound"},
    {"short_scoreboard", "Backend.Memory_Bound.MIO_Bound"},
    {"imc_miss", "Backend.Memory_Bound.Constant_Memory"},
    {"drain", "Backend.Memory_Bound.Drain"},
    {"math_pipe_throttle", "Backend.Core_Bound.Math_Pipe"},
    {"wait", "Backend.Core_Bound.Dependency_Wait"},
    {"gmma", "Backend.Core_Bound.Tensor"},
};

static const char *spec_leaf(const char *reason)
{
    for (size_t i = 0; i < sizeof model_leaf / sizeof *model_leaf; i++)
        if (strcmp(model_leaf[i][0], reason) == 0)
            return model_leaf[i][1];
    return NULL;
}

static int in_list(char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* A table's stall metric must be TD_STALL_PREFIX<reason>.<rollup>. */
static int metric_names_reason(const td_stall_map *s)
{
    size_t plen = strlen(TD_STALL_PREFIX), rlen = strlen(s->reason);
    return strncmp(s->metric, TD_STALL_PREFIX, plen) == 0 &&
           strncmp(s->metric + plen, s->reason, rlen) == 0 &&
           s->metric[plen + rlen] == '.';
}

static void check_mapping(const td_arch *t, const char *doc)
{
    for (size_t i = 0; i < t->n_stalls; i++) {
        const td_stall_map *s = &t->stalls[i];
        const char *leaf = spec_leaf(s->reason);
        if (leaf) {
            if (strcmp(leaf, s->node) != 0)
                fprintf(stderr, "%s: %s maps to %s, MODEL.md says %s\n", t->name,
                        s->reason, s->node, leaf);
            CHECK(strcmp(leaf, s->node) == 0);
        } else {
            /* A reason MODEL.md does not list needs a written decision. */
            int documented = doc && strstr(doc, s->reason) != NULL;
            if (!documented)
                fprintf(stderr, "%s: reason %s is not in MODEL.md section 4 and not in docs/ARCH_TABLES.md\n",
                        t->name, s->reason);
            CHECK(documented);
        }
        if (!metric_names_reason(s))
            fprintf(stderr, "%s: reason %s has metric %s\n", t->name, s->reason, s->metric);
        CHECK(metric_names_reason(s));
    }
}

static void check_names(const td_arch *t, td_catalog *cat)
{
    const char *names[TD_COUNTER_COUNT + TD_MAX_STALLS];
    size_t n = td_arch_metrics(t, names, sizeof names / sizeof *names);
    for (size_t i = 0; i < n; i++) {
        int known = td_catalog_has_metric(cat, names[i]);
        if (!known)
            fprintf(stderr, "%s: metric %s is not in the catalog of chip %s\n", t->name,
                    names[i], td_catalog_chip(cat));
        CHECK(known);
    }
}

/* Every stall reason CUPTI knows for the chip is in the table, and the
 * table lists nothing that is not a stall reason. */
static void check_reasons(const td_arch *t, td_catalog *cat)
{
    char **bases = NULL, **reasons = NULL;
    size_t n_bases = 0, n_reasons = 0;
    td_error err;
    int rc = td_catalog_stall_reasons(cat, &reasons, &n_reasons, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == 0);
    CHECK(n_reasons > 0);
    printf("  %s reasons (%zu):", td_catalog_chip(cat), n_reasons);
    for (size_t i = 0; i < n_reasons; i++) {
        int listed = 0;
        for (size_t j = 0; j < t->n_stalls; j++)
            listed |= strcmp(t->stalls[j].reason, reasons[i]) == 0;
        if (!listed)
            fprintf(stderr, "%s: chip %s has stall reason %s, which the table lacks\n",
                    t->name, td_catalog_chip(cat), reasons[i]);
        CHECK(listed);
        printf(" %s", reasons[i]);
    }
    printf("\n");
    for (size_t j = 0; j < t->n_stalls; j++) {
        int real = in_list(reasons, n_reasons, t->stalls[j].reason);
        if (!real)
            fprintf(stderr, "%s: %s is not a stall reason of chip %s\n", t->name,
                    t->stalls[j].reason, td_catalog_chip(cat));
        CHECK(real);
    }
    /* What was left out, and why: visible in the test log. */
    if (td_catalog_base_metrics(cat, TD_STALL_PREFIX, &bases, &n_bases, &err) == 0) {
        size_t plen = strlen(TD_STALL_PREFIX);
        for (size_t i = 0; i < n_bases; i++)
            memmove(bases[i], bases[i] + plen, strlen(bases[i] + plen) + 1);
        for (size_t i = 0; i < n_bases; i++) {
            const char *why = td_stall_not_a_reason(bases[i], bases, n_bases);
            if (why)
                printf("    skipped %s: %s\n", bases[i], why);
        }
    }
    td_catalog_free_names(bases, n_bases);
    td_catalog_free_names(reasons, n_reasons);
}

/* The table's order (counters, then stalls) against a seeded search. */
static void check_passes(const td_arch *t, td_catalog *cat, int search)
{
    const char *names[TD_COUNTER_COUNT + TD_MAX_STALLS];
    size_t n = td_arch_metrics(t, names, sizeof names / sizeof *names);
    size_t passes = 0, best = 0;
    td_error err;
    int rc = td_catalog_passes(cat, names, n, &passes, &err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", t->name, err.msg);
    CHECK(rc == 0 && passes >= 1);
    printf("  %s: %zu metrics, %zu passes in table order", td_catalog_chip(cat), n, passes);
    if (search && rc == 0) {
        size_t keep = n - t->n_stalls;
        rc = td_catalog_fewest_passes(cat, names, n, keep, ORDER_TRIES, &best, &err);
        CHECK(rc == 0);
        printf(", best of %d stall orders: %zu", ORDER_TRIES, best);
        if (rc == 0 && best < passes) {
            fprintf(stderr, "%s: stall order costs %zu passes on %s; this order costs %zu:",
                    t->name, passes, td_catalog_chip(cat), best);
            for (size_t i = keep; i < n; i++)
                fprintf(stderr, " %s", names[i] + strlen(TD_STALL_PREFIX));
            fprintf(stderr, "\n");
        }
        CHECK(rc != 0 || passes <= best);
    }
    printf("\n");
}

static int count_with_catalog(void *ctx, const char *const *metrics, size_t n, size_t *passes,
                               td_error *err)
{
    return td_catalog_passes(ctx, metrics, n, passes, err);
}

/* The table's replay-free groups: one pass each on this chip, every metric
 * covered, and no more groups than first fit finds. */
static void check_groups(const td_arch *t, td_catalog *cat)
{
    td_groups table, derived;
    td_error err;
    td_groups_from_table(t, &table);
    if (table.n == 0)
        fprintf(stderr, "%s: no \"groups\" (make them with build/tests/td_arch_groups)\n",
                t->name);
    CHECK(table.n > 0);
    int rc = td_groups_check(t, &table, count_with_catalog, cat, &err);
    if (rc != 0)
        fprintf(stderr, "%s on %s: %s\n", t->name, td_catalog_chip(cat), err.msg);
    CHECK(rc == 0);
    rc = td_groups_derive(t, NULL, count_with_catalog, cat, &derived, &err);
    CHECK(rc == 0);
    CHECK(rc != 0 || td_groups_check(t, &derived, count_with_catalog, cat, &err) == 0);
    CHECK(rc != 0 || table.n <= derived.n);
    printf("  %s: %zu counter groups of one pass (first fit: %zu)\n", td_catalog_chip(cat),
           table.n, derived.n);
}

static void check_range_profiler_table(const td_arch *t, char *const *chips,
                                       size_t n_chips)
{
    printf("%s (%s):\n", t->name, t->family);
    for (size_t c = 0; c < t->n_chips; c++) {
        int supported = in_list(chips, n_chips, t->chips[c]);
        if (!supported)
            fprintf(stderr, "%s: chip %s is not supported by this CUPTI\n", t->name,
                    t->chips[c]);
        CHECK(supported);
        td_catalog *cat = NULL;
        td_error err;
        int rc = td_catalog_open(&cat, t->chips[c], &err);
        if (rc != 0)
            fprintf(stderr, "%s: %s\n", t->name, err.msg);
        CHECK(rc == 0);
        if (rc != 0)
            continue;
        check_names(t, cat);
        check_reasons(t, cat);
        check_passes(t, cat, c == 0);
        check_groups(t, cat);
        td_catalog_close(cat);
    }
}

/* A chip or compute capability in two tables would make lookups ambiguous. */
static void check_unique(const td_arch_set *set)
{
    for (size_t a = 0; a < set->count; a++)
        for (size_t b = a + 1; b < set->count; b++) {
            const td_arch *x = &set->items[a], *y = &set->items[b];
            for (size_t i = 0; i < x->n_chips; i++) {
                int twice = in_list(y->chips, y->n_chips, x->chips[i]);
                if (twice)
                    fprintf(stderr, "chip %s is in %s and %s\n", x->chips[i], x->name, y->name);
                CHECK(!twice);
            }
            for (size_t i = 0; i < x->n_ccs; i++) {
                int twice = in_list(y->ccs, y->n_ccs, x->ccs[i]);
                if (twice)
                    fprintf(stderr, "CC %s is in %s and %s\n", x->ccs[i], x->name, y->name);
                CHECK(!twice);
            }
        }
}

/* Chips CUPTI supports that no range-profiler table claims: candidates
 * for a new table (docs/ARCH_TABLES.md). Informational. */
static void print_uncovered(const td_arch_set *set, char *const *chips, size_t n)
{
    printf("CUPTI chips without a range-profiler table:");
    for (size_t i = 0; i < n; i++) {
        const td_arch *t = td_arch_for_chip(set, chips[i]);
        if (!t || t->source != TD_BACKEND_RANGE_PROFILER)
            printf(" %s%s%s", chips[i], t ? " (nvprof table " : "", t ? t->name : "");
        if (t && t->source != TD_BACKEND_RANGE_PROFILER)
            printf(")");
    }
    printf("\n");
}

/* The checks above must be able to fail: wrong names are caught. */
static void check_negative(const char *chip)
{
    td_catalog *cat = NULL;
    td_error err;
    CHECK(td_catalog_open(&cat, chip, &err) == 0);
    if (!cat)
        return;
    CHECK(td_catalog_has_metric(cat, "smsp__warps_issue_stalled_long_scoreboard.sum") == 1);
    CHECK(td_catalog_has_metric(cat, "smsp__warps_issue_stalled_long_scorebord.sum") == 0);
    CHECK(td_catalog_has_metric(cat, "smsp__warps_issue_stalled_long_scoreboard.summ") == 0);
    CHECK(td_catalog_has_metric(cat, "smsp__warps_issue_stalled_long_scoreboard") == 0);
    CHECK(td_catalog_has_metric(cat, "") == 0);
    const char *bad[] = {"smsp__inst_executed.sum", "smsp__warps_issue_stalled_long_scorebord.sum"};
    size_t passes = 0;
    CHECK(td_catalog_passes(cat, bad, 2, &passes, &err) == -1);
    CHECK(strstr(err.msg, "long_scorebord") != NULL);
    td_catalog_close(cat);
    td_catalog *none = NULL;
    CHECK(td_catalog_open(&none, "NOSUCHCHIP", &err) == -1 && none == NULL);
    CHECK(strstr(err.msg, "NOSUCHCHIP") != NULL);

    char *all[] = {"long_scoreboard", "long_scoreboard_pipe_l1tex", "selected",
                   "not_selected", "wait_pred_on", "mio_pipe_x"};
    CHECK(td_stall_not_a_reason("long_scoreboard", all, 6) == NULL);
    CHECK(td_stall_not_a_reason("long_scoreboard_pipe_l1tex", all, 6) != NULL);
    CHECK(td_stall_not_a_reason("selected", all, 6) != NULL);
    CHECK(td_stall_not_a_reason("not_selected", all, 6) != NULL);
    CHECK(td_stall_not_a_reason("wait_pred_on", all, 6) != NULL);
    /* _pipe_ with no parent reason is a reason of its own. */
    CHECK(td_stall_not_a_reason("mio_pipe_x", all, 6) == NULL);
}

int main(void)
{
    const char *dir = getenv("TOPDOWN_ARCHS");
    const char *src = getenv("TOPDOWN_REPO_DIR");
    CHECK(dir != NULL);
    if (!dir)
        return td_check_summary();
    char doc_path[4096];
    snprintf(doc_path, sizeof doc_path, "%s/docs/ARCH_TABLES.md", src ? src : ".");
    const char *doc = read_text(doc_path);

    td_arch_set set;
    td_error err;
    int rc = td_arch_load_dir(dir, &set, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == 0);
    if (rc != 0)
        return td_check_summary();
    char **chips = NULL;
    size_t n_chips = 0;
    rc = td_catalog_chips(&chips, &n_chips, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == 0 && n_chips > 0);

    size_t range_tables = 0;
    for (size_t i = 0; i < set.count; i++) {
        const td_arch *t = &set.items[i];
        td_model model;
        rc = td_model_init(&model, t, &err);
        if (rc != 0)
            fprintf(stderr, "%s\n", err.msg);
        CHECK(rc == 0);
        if (t->source != TD_BACKEND_RANGE_PROFILER)
            continue; /* nvprof names: no catalog to check against */
        range_tables++;
        check_mapping(t, doc);
        check_range_profiler_table(t, chips, n_chips);
    }
    CHECK(range_tables > 0);
    check_unique(&set);
    print_uncovered(&set, chips, n_chips);
    check_negative("GH100");
    td_catalog_free_names(chips, n_chips);
    td_arch_set_free(&set);
    return td_check_summary();
}
