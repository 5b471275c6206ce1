/* topdown list-archs, list-nodes and describe: the arch tables and the model's nodes. */
#include <stdio.h>
#include <string.h>

#include "levels/model.h"
#include "metrics/arch.h"
#include "topdown/cli.h"
#include "topdown/commands.h"

int cmd_list_archs(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1];
    int n_files = 0;
    int rc = td_cli_parse_with_files(argc, argv, &c, files, 0, &n_files, err);
    if (rc == 0 && !c.help)
        rc = td_cli_check(&c, TD_CMD_LIST_ARCHS, err);
    if (rc)
        return rc;
    if (c.help) {
        td_cli_command_usage(stdout, TD_CMD_LIST_ARCHS);
        return 0;
    }
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
               td_source_get(a->source)->label, a->n_stalls, chips);
    }
    printf("(%zu tables in %s)\n", archs.count, archs.dir);
    td_arch_set_free(&archs);
    return 0;
}

int cmd_list_nodes(int argc, char **argv, td_error *err)
{
    cli c;
    int rc = td_cli_parse_options(argc, argv, &c, err);
    if (rc)
        return rc;
    if (c.help) {
        td_cli_command_usage(stdout, TD_CMD_LIST_NODES);
        return 0;
    }
    int max_level = c.report.level > 1 ? c.report.level : 3;
    const td_node_set *set = td_nodes_builtin();
    printf("%-4s %-3s %-42s %-9s %s\n", "area", "lvl", "node", "threshold", "description");
    for (int n = 0; n < set->count; n++) {
        const td_node_info *info = &set->nodes[n];
        if (info->level > max_level)
            continue;
        char threshold[32] = "-";
        if (td_kind_is_loss(info->kind))
            snprintf(threshold, sizeof threshold, "%s%.0f%%", info->level == 1 ? "" : "p*",
                     100.0 * info->threshold);
        printf("%-4s %-3d %-42s %-9s %s\n", info->area, info->level, info->path, threshold,
               info->desc);
    }
    if (max_level >= 4)
        printf("Level 4: the stall reasons of each arch table, under their level-3 node (topdown describe NODE).\n");
    return 0;
}

/* The stall reasons of one table's resolved tree that lie below node. */
static void print_stalls_below(const td_arch *arch, int node)
{
    td_model m;
    td_error ignored;
    if (td_model_init(&m, arch, &ignored))
        return; /* a table that does not resolve has no reason under any node */
    int printed = 0;
    for (int n = td_model_stall_index(&m, 0); n < m.n_tree; n++) {
        int up = n;
        while (up >= 0 && up != node)
            up = m.tree[up].parent;
        if (up != node)
            continue;
        printf("%s%s", printed ? ", " : "    ", printed ? "" : arch->name);
        printf("%s%s", printed ? "" : ": ", m.tree[n].name);
        printed = 1;
    }
    if (printed)
        putchar('\n');
}

int cmd_describe(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1] = {NULL};
    int n_files = 0;
    int rc = td_cli_parse_with_files(argc, argv, &c, files, 1, &n_files, err);
    if (rc == 0 && !c.help)
        rc = td_cli_check(&c, TD_CMD_DESCRIBE, err);
    if (rc)
        return rc;
    if (c.help) {
        td_cli_command_usage(stdout, TD_CMD_DESCRIBE);
        return 0;
    }
    if (n_files != 1)
        return td_usage_fail(err, "usage: topdown describe NODE (a name or path of `topdown list-nodes`)");
    int node = td_node_find(files[0]);
    if (node < 0)
        return td_usage_fail(err, "unknown node \"%s\"; `topdown list-nodes` lists them", files[0]);
    const td_node_info *info = td_node_get(node);
    printf("%s (level %d, area %s)\n  %s\n  %s\n", info->path, info->level, info->area,
           info->desc, info->long_desc);
    if (td_kind_is_loss(info->kind))
        printf("  Threshold: %.0f%% of %s\n", 100.0 * info->threshold,
               info->level == 1 ? "all issue slots" : "its parent");
    td_arch_set archs;
    if (td_cli_load_archs(&archs, err))
        return -1;
    if (td_kind_takes_stalls(info->kind))
        printf("  Stall reasons under it, per arch table:\n");
    for (size_t i = 0; i < archs.count; i++)
        print_stalls_below(&archs.items[i], node);
    td_arch_set_free(&archs);
    return 0;
}
