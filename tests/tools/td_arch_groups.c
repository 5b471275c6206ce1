/* td_arch_groups TABLE.json [TRIES]: searches the fewest one-pass counter
 * groups for an arch table on its first chip (CUPTI host API, no GPU) and
 * prints them as the table's "groups" value. Used to write archs/ (data);
 * tests/cupti/test_catalog checks the result on every chip. */
#include <stdio.h>
#include <stdlib.h>

#include "catalog.h"
#include "groups.h"

static int count_with_catalog(void *ctx, const char *const *metrics, size_t n, size_t *passes,
                              td_error *err)
{
    return td_catalog_passes(ctx, metrics, n, passes, err);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: td_arch_groups TABLE.json [TRIES]\n");
        return 2;
    }
    td_arch arch;
    td_error err;
    td_catalog *cat = NULL;
    td_groups groups;
    unsigned tries = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 200;
    if (td_arch_load_file(argv[1], &arch, &err) ||
        td_catalog_open(&cat, arch.chips[0], &err) ||
        td_groups_search(&arch, tries, count_with_catalog, cat, &groups, &err)) {
        fprintf(stderr, "td_arch_groups: %s\n", err.msg);
        return 1;
    }
    printf("[\n");
    for (size_t g = 0; g < groups.n; g++) {
        printf("    [");
        for (size_t i = 0; i < groups.size[g]; i++)
            printf("%s\"%s\"", i ? ", " : "", groups.metric[g][i]);
        printf("]%s\n", g + 1 < groups.n ? "," : "");
    }
    printf("]\n");
    td_catalog_close(cat);
    td_arch_free(&arch);
    return 0;
}
