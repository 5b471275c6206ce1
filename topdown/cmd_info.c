/* topdown list-archs, list-nodes and describe: the arch tables and the model's nodes. */
#include <stdio.h>
#include <string.h>

#include "../levels/tree.h"
#include "../metrics/arch.h"
#include "cli.h"
#include "commands.h"

int cmd_list_archs(td_error *err)
{
    td_arch_set archs;
    if (td_cli_load_archs(&archs, err))
        return -1;
    printf("%-8s %-14s %-16s %-7s %-7s %-7s %s\n", "table", "family", "CC", "IPC_MAX",
           "source", "stalls", "chips");
    for (size_t i = 0; i < archs.count; i++) {
        const td_arch *a = &archs.items[i];
        char ccs[64] = "", chips[256] = "";
        for (size_t j = 0; j < a->n_ccs; j++)
            snprintf(ccs + strlen(ccs), sizeof ccs - strlen(ccs), "%s%s", j ? "," : "", a->ccs[j]);
        for (size_t j = 0; j < a->n_chips; j++)
            snprintf(chips + strlen(chips), sizeof chips - strlen(chips), "%s%s", j ? " " : "",
                     a->chips[j]);
        printf("%-8s %-14s %-16s %-7g %-7s %-7zu %s\n", a->name, a->family, ccs, a->ipc_max,
               a->source == TD_SOURCE_NVPROF ? "nvprof" : "cupti", a->n_stalls, chips);
    }
    printf("(%zu tables in %s)\n", archs.count, archs.dir);
    td_arch_set_free(&archs);
    return 0;
}

int cmd_list_nodes(int argc, char **argv, td_error *err)
{
    cli c;
    if (td_cli_parse_options(argc, argv, &c, err))
        return -1;
    int max_level = c.report.level > 1 ? c.report.level : 3;
    printf("%-4s %-3s %-42s %-9s %s\n", "area", "lvl", "node", "threshold", "description");
    for (int n = 0; n < TD_NODE_COUNT; n++) {
        const td_node_info *info = td_node_get(n);
        if (info->level > max_level)
            continue;
        char threshold[32] = "-";
        if (n != TD_N_RETIRE)
            snprintf(threshold, sizeof threshold, "%s%.0f%%", info->level == 1 ? "" : "p*",
                     100.0 * info->threshold);
        printf("%-4s %-3d %-42s %-9s %s\n", info->area, info->level, info->path, threshold,
               info->desc);
    }
    if (max_level >= 4)
        printf("Level 4: the stall reasons of each arch table, under their level-3 node (topdown describe NODE).\n");
    return 0;
}

int cmd_describe(int argc, char **argv, td_error *err)
{
    if (argc != 2)
        return td_fail(err, "usage: topdown describe NODE (a name or path of `topdown list-nodes`)");
    int node = td_node_find(argv[1]);
    if (node < 0)
        return td_fail(err, "unknown node \"%s\"; `topdown list-nodes` lists them", argv[1]);
    const td_node_info *info = td_node_get(node);
    printf("%s (level %d, area %s)\n  %s\n  %s\n", info->path, info->level, info->area,
           info->desc, td_node_long_desc(node));
    if (node != TD_N_RETIRE)
        printf("  Threshold: %.0f%% of %s\n", 100.0 * info->threshold,
               info->level == 1 ? "all issue slots" : "its parent");
    td_arch_set archs;
    if (td_cli_load_archs(&archs, err))
        return -1;
    if (node != TD_N_RETIRE && node != TD_N_DIVERGENCE && info->parent != TD_N_DIVERGENCE)
        printf("  Stall reasons under it, per arch table:\n");
    for (size_t i = 0; i < archs.count; i++) {
        const td_arch *a = &archs.items[i];
        int printed = 0;
        for (size_t s = 0; s < a->n_stalls; s++) {
            int n = td_node_find(a->stalls[s].node);
            while (n >= 0 && n != node)
                n = td_node_get(n)->parent;
            if (n != node)
                continue;
            printf("%s%s", printed ? ", " : "    ", printed ? "" : a->name);
            printf("%s%s", printed ? "" : ": ", a->stalls[s].reason);
            printed = 1;
        }
        if (printed)
            putchar('\n');
    }
    td_arch_set_free(&archs);
    return 0;
}
