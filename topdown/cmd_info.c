/* topdown list-archs, list-nodes and describe: the arch tables and the model's nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "levels/model.h"
#include "metrics/arch.h"
#include "topdown/cli.h"
#include "topdown/commands.h"

int cmd_list_archs(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1];
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_LIST_ARCHS, &c, files, 0, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
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
    const char *files[1];
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_LIST_NODES, &c, files, 0, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    int max_level = c.report.level > 1 ? c.report.level : 3;
    const td_node_set *set = td_nodes_builtin();
    printf("%-4s %-3s %-42s %-13s %s\n", "area", "lvl", "node", "threshold", "description");
    for (int n = 0; n < set->count; n++) {
        const td_node_info *info = &set->nodes[n];
        if (info->level > max_level)
            continue;
        char threshold[32] = "-";
        if (td_kind_is_loss(info->kind))
            snprintf(threshold, sizeof threshold, "%.0f%% of %s", 100.0 * info->threshold,
                     info->level == 1 ? "all" : "parent");
        printf("%-4s %-3d %-42s %-13s %s\n", info->area, info->level, info->path, threshold,
               info->desc);
    }
    printf("Threshold: a node counts (shown, can be the bottleneck <==) when its share of issue "
           "slots is over that %% of all slots (\"of all\", level 1) or of its parent's share "
           "(\"of parent\"); -v shows the others. An arch table may override them.\n");
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

/* Case-insensitive: a node's path, else its name; -1 if none. */
static int find_node_nocase(const char *word)
{
    const td_node_set *set = td_nodes_builtin();
    for (int n = 0; n < set->count; n++)
        if (strcasecmp(set->nodes[n].path, word) == 0)
            return n;
    for (int n = 0; n < set->count; n++)
        if (strcasecmp(set->nodes[n].name, word) == 0)
            return n;
    return -1;
}

typedef struct suggestions {
    const char *words[3];
    size_t dist[3];
} suggestions;

/* Keeps the three closest words within reach of what was typed. */
static void consider(suggestions *s, const char *typed, const char *word)
{
    size_t d = td_edit_distance(typed, word), reach = strlen(typed) / 3 + 1;
    if (d > reach || d == 0)
        return;
    for (int i = 0; i < 3; i++) {
        if (s->words[i] && strcmp(s->words[i], word) == 0)
            return;
        if (!s->words[i] || d < s->dist[i]) {
            for (int j = 2; j > i; j--) {
                s->words[j] = s->words[j - 1];
                s->dist[j] = s->dist[j - 1];
            }
            s->words[i] = word;
            s->dist[i] = d;
            return;
        }
    }
}

static int unknown_word(const char *word, const td_arch_set *archs, td_error *err)
{
    suggestions s = {{NULL}, {0}};
    const td_node_set *set = td_nodes_builtin();
    for (int n = 0; n < set->count; n++) {
        consider(&s, word, set->nodes[n].name);
        consider(&s, word, set->nodes[n].path);
    }
    for (size_t a = 0; a < archs->count; a++)
        for (size_t i = 0; i < archs->items[a].n_stalls; i++)
            consider(&s, word, archs->items[a].stalls[i].reason);
    if (!s.words[0])
        return td_usage_fail(err, "unknown node or stall reason \"%s\"; `topdown list-nodes -l 4` "
                       "lists them", word);
    return td_usage_fail(err, "unknown node or stall reason \"%s\"; did you mean %s%s%s%s%s? "
                   "(`topdown list-nodes -l 4` lists them)", word, s.words[0],
                   s.words[1] ? (s.words[2] ? ", " : " or ") : "", s.words[1] ? s.words[1] : "",
                   s.words[2] ? " or " : "", s.words[2] ? s.words[2] : "");
}

static void print_fix(const td_node_info *info)
{
    const char *fix = info->long_desc ? strstr(info->long_desc, "Fix: ") : NULL;
    if (fix)
        printf("  %s\n", fix);
}

/* A stall reason of the arch tables: its counter and node in each table. */
static int describe_stall(const char *word, const td_arch_set *archs)
{
    const char *reason = NULL;
    int node = -1;
    for (size_t a = 0; a < archs->count; a++)
        for (size_t i = 0; i < archs->items[a].n_stalls; i++) {
            const td_stall_map *st = &archs->items[a].stalls[i];
            if (strcasecmp(st->reason, word) != 0)
                continue;
            if (!reason) {
                reason = st->reason;
                node = td_node_find(st->node);
                printf("%s (stall reason, level 4)\n", reason);
                if (node >= 0)
                    printf("  Warps stalled for this reason count under %s: %s\n",
                           td_node_get(node)->path, td_node_get(node)->desc);
                printf("  Counter, node, per arch table:\n");
            }
            printf("    %s: %s under %s\n", archs->items[a].name, st->metric, st->node);
        }
    if (reason && node >= 0)
        print_fix(td_node_get(node));
    return reason ? 0 : -1;
}

static void describe_node(int node, const td_arch_set *archs)
{
    const td_node_info *info = td_node_get(node);
    printf("%s (level %d, area %s)\n  %s\n  %s\n", info->path, info->level, info->area,
           info->desc, info->long_desc);
    if (td_kind_is_loss(info->kind))
        printf("  Threshold: %.0f%% of %s\n", 100.0 * info->threshold,
               info->level == 1 ? "all issue slots" : "its parent");
    if (td_kind_takes_stalls(info->kind))
        printf("  Stall reasons under it, per arch table:\n");
    for (size_t i = 0; i < archs->count; i++)
        print_stalls_below(&archs->items[i], node);
}

int cmd_describe(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1] = {NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_DESCRIBE, &c, files, 1, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (n_files != 1)
        return td_usage_fail(err, "usage: topdown describe NODE (a name or path of `topdown "
                             "list-nodes`, or a stall reason)");
    td_arch_set archs;
    if (td_cli_load_archs(&archs, err))
        return -1;
    int node = td_node_find(files[0]);
    if (node < 0)
        node = find_node_nocase(files[0]);
    if (node >= 0)
        describe_node(node, &archs);
    else if (describe_stall(files[0], &archs) != 0)
        rc = unknown_word(files[0], &archs, err);
    td_arch_set_free(&archs);
    return rc;
}
