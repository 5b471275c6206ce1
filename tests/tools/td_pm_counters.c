/* td_pm_counters TABLE.json...: which of a table's model counters CUPTI's
 * PM sampling can read in one pass, on every chip of the table (profiler
 * host API, no GPU, no counter availability image). Prints, per chip, the
 * passes of each counter alone and the largest set of one pass found by
 * adding counters in the model's order of need (cycles_active,
 * inst_executed, inst_issued, thread_inst_executed, then the stall
 * reasons), as the table's "pm_sampling" value. Used to write archs/
 * (data); tests/cupti/test_pm_sampling checks the tables' sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/arch/arch.h"
#include "metrics/arch/catalog.h"

enum { MAX_NAMES = TD_COUNTER_COUNT + TD_MAX_STALLS };

/* The model's counters in order of need; duration is not a PM-sampling
 * input (each sample has its own start and end time). */
static size_t model_order(const td_arch *t, const char **names)
{
    static const td_counter order[] = {TD_C_CYCLES_ACTIVE, TD_C_INST_EXECUTED,
                                       TD_C_INST_ISSUED, TD_C_THREAD_INST_EXECUTED};
    size_t n = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (t->counter[order[i]])
            names[n++] = t->counter[order[i]];
    for (size_t i = 0; i < t->n_stalls; i++)
        names[n++] = t->stalls[i].metric;
    return n;
}

/* Adds names in order, keeping each that leaves the set one pass. */
static size_t greedy(td_catalog *cat, const char *const *names, size_t n, const char **fit)
{
    size_t n_fit = 0, passes = 0;
    td_error err;
    for (size_t i = 0; i < n; i++) {
        fit[n_fit] = names[i];
        if (td_catalog_has_metric(cat, names[i]) &&
            td_catalog_passes(cat, fit, n_fit + 1, &passes, &err) == 0 && passes == 1)
            n_fit++;
    }
    return n_fit;
}

static void print_set(const char *label, const char *const *fit, size_t n_fit)
{
    printf("  %s (%zu): \"pm_sampling\": {\"metrics\": [", label, n_fit);
    for (size_t i = 0; i < n_fit; i++)
        printf("%s\"%s\"", i ? ", " : "", fit[i]);
    printf("]}\n");
}

static int one_chip(const td_arch *t, const char *chip)
{
    td_catalog *cat = NULL;
    td_error err;
    if (td_catalog_open_pm_sampling(&cat, chip, &err) != 0) {
        fprintf(stderr, "td_pm_counters: %s\n", err.msg);
        return 1;
    }
    const char *names[MAX_NAMES], *fit[MAX_NAMES], *rev[MAX_NAMES], *fit2[MAX_NAMES];
    size_t n = model_order(t, names), alone_one = 0;
    printf("%s %s:\n", t->name, chip);
    for (size_t i = 0; i < n; i++) {
        size_t passes = 0;
        if (!td_catalog_has_metric(cat, names[i])) {
            printf("  %-52s not in the PM-sampling catalog\n", names[i]);
            continue;
        }
        if (td_catalog_passes(cat, &names[i], 1, &passes, &err) != 0) {
            printf("  %-52s error: %s\n", names[i], err.msg);
            continue;
        }
        printf("  %-52s %zu pass%s alone\n", names[i], passes, passes == 1 ? "" : "es");
        if (passes != 1)
            continue;
        alone_one++;
    }
    printf("  one pass alone: %zu of %zu\n", alone_one, n);
    /* Model order first (level 1 needs the instruction counters), then
     * stall reasons first (Frontend/Backend need all of them). */
    size_t n_fit = greedy(cat, names, n, fit);
    size_t first_stall = n - t->n_stalls;
    for (size_t i = 0; i < n; i++)
        rev[i] = names[(first_stall + i) % n];
    size_t n_fit2 = greedy(cat, rev, n, fit2);
    print_set("largest one-pass set, instruction counters first", fit, n_fit);
    print_set("largest one-pass set, stall reasons first", fit2, n_fit2);
    td_catalog_close(cat);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: td_pm_counters TABLE.json...\n");
        return 2;
    }
    int rc = 0;
    for (int a = 1; a < argc; a++) {
        td_arch t;
        td_error err;
        if (td_arch_load_file(argv[a], &t, &err) != 0) {
            fprintf(stderr, "td_pm_counters: %s\n", err.msg);
            rc = 1;
            continue;
        }
        if (t.source != TD_BACKEND_RANGE_PROFILER) {
            printf("%s: nvprof table, no PM sampling (CC < 7.5)\n", t.name);
        } else {
            for (size_t c = 0; c < t.n_chips; c++)
                rc |= one_chip(&t, t.chips[c]);
        }
        td_arch_free(&t);
    }
    return rc;
}
