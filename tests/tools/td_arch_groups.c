/* td_arch_groups TABLE.json [TRIES]: searches the fewest one-pass counter
 * groups for an arch table on its first chip (CUPTI host API, no GPU) and
 * prints them as the table's "groups" value. Used to write archs/ (data);
 * tests/cupti/test_catalog checks the result on every chip.
 *
 * td_arch_groups --shuffle SEED TABLE.json: another valid grouping, first
 * fit over the stall reasons in an order shuffled by SEED (each group one
 * pass, cycles in all): benchmarks/grouping_invariance.sh measures the same
 * kernels with it and with the table's own groups.
 * td_arch_groups --check TABLE.json: exit 0 when the table's groups are one
 * pass each and cover its metrics, else 1 and the problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/arch/catalog.h"
#include "metrics/arch/groups.h"
#include "metrics/xorshift.h"

static int count_with_catalog(void *ctx, const char *const *metrics, size_t n, size_t *passes,
                              td_error *err)
{
    return td_catalog_passes(ctx, metrics, n, passes, err);
}

static void print_groups(const td_groups *groups)
{
    printf("[\n");
    for (size_t g = 0; g < groups->n; g++) {
        printf("    [");
        for (size_t i = 0; i < groups->size[g]; i++)
            printf("%s\"%s\"", i ? ", " : "", groups->metric[g][i]);
        printf("]%s\n", g + 1 < groups->n ? "," : "");
    }
    printf("]\n");
}

/* The stall metrics in an order shuffled by seed (Fisher-Yates). */
static void shuffled_stalls(const td_arch *arch, uint32_t seed, const char **order)
{
    uint32_t state = seed ? seed : 1;
    for (size_t i = 0; i < arch->n_stalls; i++)
        order[i] = arch->stalls[i].metric;
    for (size_t i = arch->n_stalls; i > 1; i--) {
        size_t j = td_xorshift32(&state) % i;
        const char *t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

int main(int argc, char **argv)
{
    int shuffle = argc > 3 && strcmp(argv[1], "--shuffle") == 0;
    int check = argc > 2 && strcmp(argv[1], "--check") == 0;
    const char *table = shuffle ? argv[3] : check ? argv[2] : argv[1];
    if (argc < 2 || (!shuffle && !check && argv[1][0] == '-')) {
        fprintf(stderr, "usage: td_arch_groups TABLE.json [TRIES] | --shuffle SEED TABLE.json "
                        "| --check TABLE.json\n");
        return 2;
    }
    td_arch arch;
    td_error err;
    td_catalog *cat = NULL;
    td_groups groups;
    const char *order[TD_MAX_STALLS];
    unsigned tries = !shuffle && !check && argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 200;
    if (td_arch_load_file(table, &arch, &err) || td_catalog_open(&cat, arch.chips[0], &err)) {
        fprintf(stderr, "td_arch_groups: %s\n", err.msg);
        return 1;
    }
    int rc;
    if (check) {
        td_groups_from_table(&arch, &groups);
        rc = groups.n ? td_groups_check(&arch, &groups, count_with_catalog, cat, &err)
                      : td_fail(&err, "%s lists no groups", table);
    } else if (shuffle) {
        shuffled_stalls(&arch, (uint32_t)strtoul(argv[2], NULL, 10), order);
        rc = td_groups_derive(&arch, order, count_with_catalog, cat, &groups, &err);
    } else {
        rc = td_groups_search(&arch, tries, count_with_catalog, cat, &groups, &err);
    }
    if (rc)
        fprintf(stderr, "td_arch_groups: %s\n", err.msg);
    else if (check)
        printf("%s: %zu groups, one pass each\n", table, groups.n);
    else
        print_groups(&groups);
    td_catalog_close(cat);
    td_arch_free(&arch);
    return rc ? 1 : 0;
}
