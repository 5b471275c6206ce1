/* topdown list-archs, list-nodes and describe: the arch tables and the model's nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "levels/model.h"
#include "metrics/arch/arch.h"
#include "report/json.h"
#include "report/throughput.h"
#include "report/wrap.h"
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
               td_backend_get(a->source)->label, a->n_stalls, chips);
    }
    printf("(%zu tables in %s)\n", archs.count, archs.dir);
    td_arch_set_free(&archs);
    return 0;
}

/* The arch tables resolved against the model (those that resolve). */
static td_model *resolved_tables(const td_arch_set *archs, size_t *n)
{
    td_model *models = malloc((archs->count ? archs->count : 1) * sizeof *models);
    *n = 0;
    for (size_t i = 0; models && i < archs->count; i++) {
        td_error ignored;
        if (td_model_init(&models[*n], &archs->items[i], &ignored) == 0)
            (*n)++;
    }
    return models;
}

/* Where list-nodes' description starts, after a node column of width. */
static int desc_column(int width)
{
    return 4 + 1 + 3 + 1 + width + 1 + 13 + 1;
}

/* The stall reasons under node `node` (a fixed node), or the sources
 * under it (a stall reason's path, at -l 5), over every table: each path
 * once, with the tables that have it. */
static void print_node_stalls(const td_model *models, size_t n_models, const char *node_path,
                              int width, int max_level)
{
    for (size_t t = 0; t < n_models; t++)
        for (int i = td_model_stall_index(&models[t], 0); i < models[t].n_tree; i++) {
            const td_tree_node *st = &models[t].tree[i];
            if (st->parent < 0 || strcmp(models[t].tree[st->parent].path, node_path) != 0 ||
                st->level > max_level)
                continue;
            int earlier = 0;
            for (size_t u = 0; u < t && !earlier; u++)
                earlier = td_model_find(&models[u], st->path) >= 0;
            if (earlier)
                continue;
            char threshold[32], tables[256] = "";
            snprintf(threshold, sizeof threshold, "%.0f%% of parent", 100.0 * st->threshold);
            for (size_t u = t; u < n_models; u++)
                if (td_model_find(&models[u], st->path) >= 0)
                    snprintf(tables + strlen(tables), sizeof tables - strlen(tables), "%s%s",
                             tables[0] ? " " : "", models[u].arch->name);
            char line[1024];
            snprintf(line, sizeof line, "%-4s %-3d %-*s %-13s %s (%s)", st->area, st->level,
                     width, st->path, threshold,
                     st->source_map && st->source_map->desc ? "served here (memory section)"
                     : st->source >= 0                      ? "loads served here (memory section)"
                                                            : "stall reason",
                     tables);
            td_wrap_hanging(stdout, line, desc_column(width), td_text_width());
            if (st->stall >= 0)
                print_node_stalls(models, n_models, st->path, width, max_level);
        }
}

/* A node record's fields, shared by list-nodes and describe --json. */
static cJSON *node_json(const td_node_info *info)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", info->path);
    cJSON_AddStringToObject(o, "name", info->name);
    cJSON_AddNumberToObject(o, "level", info->level);
    cJSON_AddStringToObject(o, "area", info->area);
    cJSON_AddStringToObject(o, "kind", td_kind_name(info->kind));
    if (td_kind_is_loss(info->kind)) {
        cJSON_AddNumberToObject(o, "threshold_pct", 100.0 * info->threshold);
        cJSON_AddStringToObject(o, "threshold_of", info->level == 1 ? "all" : "parent");
    } else {
        cJSON_AddNullToObject(o, "threshold_pct");
    }
    cJSON_AddStringToObject(o, "description", info->desc);
    return o;
}

/* The names of the stall reasons of one table's resolved tree that lie
 * below node (an empty array when the table does not resolve). */
static cJSON *stalls_below(const td_arch *arch, int node)
{
    cJSON *names = cJSON_CreateArray();
    td_model m;
    td_error ignored;
    if (td_model_init(&m, arch, &ignored))
        return names;
    for (int n = td_model_stall_index(&m, 0); n < m.n_tree; n++) {
        if (m.tree[n].stall < 0)
            continue; /* a source (level 5) */
        int up = n;
        while (up >= 0 && up != node)
            up = m.tree[up].parent;
        if (up == node)
            cJSON_AddItemToArray(names, cJSON_CreateString(m.tree[n].name));
    }
    return names;
}

/* With -l 5, "sources": each table's level-5 nodes, the stall reason
 * they split, their counter and latency. */
static void add_sources_json(cJSON *root, const td_arch_set *archs)
{
    cJSON *sources = cJSON_AddArrayToObject(root, "sources");
    for (size_t a = 0; a < archs->count; a++) {
        const td_arch_memory *mem = &archs->items[a].memory;
        for (size_t s = 0; s < mem->n_sources; s++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "arch", archs->items[a].name);
            cJSON_AddStringToObject(o, "source", mem->sources[s].name);
            cJSON_AddStringToObject(o, "reason", mem->sources[s].split);
            cJSON_AddStringToObject(o, "metric", mem->sources[s].metric);
            cJSON_AddNumberToObject(o, "latency_cycles", mem->sources[s].latency_cycles);
            cJSON_AddItemToArray(sources, o);
        }
    }
}

/* list-nodes --json: {"nodes": [...]}, and with -l 4 each table's stall
 * reasons under their node (with -l 5 their sources too). */
static int list_nodes_json(int max_level, td_error *err)
{
    cJSON *root = cJSON_CreateObject(), *nodes = cJSON_AddArrayToObject(root, "nodes");
    const td_node_set *set = td_nodes_builtin();
    for (int n = 0; n < set->count; n++)
        if (set->nodes[n].level <= max_level)
            cJSON_AddItemToArray(nodes, node_json(&set->nodes[n]));
    if (max_level >= 4) {
        td_arch_set archs;
        if (td_cli_load_archs(&archs, err)) {
            cJSON_Delete(root);
            return -1;
        }
        cJSON *stalls = cJSON_AddArrayToObject(root, "stall_reasons");
        for (size_t a = 0; a < archs.count; a++)
            for (size_t i = 0; i < archs.items[a].n_stalls; i++) {
                const td_stall_map *st = &archs.items[a].stalls[i];
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "arch", archs.items[a].name);
                cJSON_AddStringToObject(o, "reason", st->reason);
                cJSON_AddStringToObject(o, "node", st->node);
                cJSON_AddStringToObject(o, "metric", st->metric);
                cJSON_AddItemToArray(stalls, o);
            }
        if (max_level >= 5)
            add_sources_json(root, &archs);
        td_arch_set_free(&archs);
    }
    return td_json_print(stdout, root, err);
}

int cmd_list_nodes(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1];
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_LIST_NODES, &c, files, 0, &n_files, err);
    if (rc)
        return rc == 1 ? 0 : rc;
    /* -l N: levels 1 to N; without it, the fixed nodes (1 to 3) */
    int max_level = td_cli_given(&c, "level") ? c.report.level : 3;
    if (c.json)
        return list_nodes_json(max_level, err);
    td_arch_set archs;
    size_t n_models = 0;
    td_model *models = NULL;
    if (max_level >= 4) {
        if (td_cli_load_archs(&archs, err))
            return -1;
        models = resolved_tables(&archs, &n_models);
        if (!models) {
            td_arch_set_free(&archs);
            return td_fail(err, "out of memory");
        }
    }
    /* the node column: the longest path listed */
    const td_node_set *set = td_nodes_builtin();
    int width = 4;
    for (int n = 0; n < set->count; n++)
        if (set->nodes[n].level <= max_level && (int)strlen(set->nodes[n].path) > width)
            width = (int)strlen(set->nodes[n].path);
    for (size_t t = 0; t < n_models; t++)
        for (int i = td_model_stall_index(&models[t], 0); i < models[t].n_tree; i++)
            if (models[t].tree[i].level <= max_level &&
                (int)strlen(models[t].tree[i].path) > width)
                width = (int)strlen(models[t].tree[i].path);
    printf("%-4s %-3s %-*s %-13s %s\n", "area", "lvl", width, "node", "threshold", "description");
    for (int n = 0; n < set->count; n++) {
        const td_node_info *info = &set->nodes[n];
        if (info->level > max_level)
            continue;
        char threshold[32] = "-";
        if (td_kind_is_loss(info->kind))
            snprintf(threshold, sizeof threshold, "%.0f%% of %s", 100.0 * info->threshold,
                     info->level == 1 ? "all" : "parent");
        char line[1024];
        snprintf(line, sizeof line, "%-4s %-3d %-*s %-13s %s", info->area, info->level, width,
                 info->path, threshold, info->desc);
        td_wrap_hanging(stdout, line, desc_column(width), td_text_width());
        print_node_stalls(models, n_models, info->path, width, max_level);
    }
    td_wrap_text(stdout, "Threshold: a node counts (shown, can be the bottleneck <==) when its "
                 "share of issue slots is over that % of all slots (\"of all\", level 1) or of "
                 "its parent's share (\"of parent\"); -v shows the others. An arch table may "
                 "override them.\n", td_text_width(), 11);
    if (max_level >= 4) {
        td_wrap_text(stdout, "Level 4: the stall reasons of the arch tables (in parentheses) "
                     "under their node (level 3; level 2 on nvprof tables); topdown describe "
                     "REASON.\n", td_text_width(), 9);
        if (max_level >= 5)
            td_wrap_text(stdout, "Level 5: where the loads a stall reason waited on were served "
                         "(L1, L2, DRAM), from the tables with a memory section; measured only "
                         "where the run recorded its counters.\n", td_text_width(), 9);
        free(models);
        td_arch_set_free(&archs);
    }
    return 0;
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

/* Where typed starts in word, case-insensitive: 0 at its start, 1 inside,
 * 2 nowhere. */
static int holds(const char *word, const char *typed)
{
    size_t n = strlen(typed);
    for (const char *p = word; n && *p; p++)
        if (strncasecmp(p, typed, n) == 0)
            return p == word ? 0 : 1;
    return 2;
}

/* Keeps the three closest words within reach of what was typed; a node
 * name that holds it ranks first (Memory: Memory_Bound before membar). */
static void consider(suggestions *s, const char *typed, const char *word, int node_name)
{
    size_t d = td_edit_distance(typed, word), reach = strlen(typed) / 3 + 1;
    if (d == 0)
        return; /* the word itself: nothing to suggest */
    int at = node_name ? holds(word, typed) : 2;
    if (at < 2)
        d = (size_t)at;
    else if (d > reach)
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
        consider(&s, word, set->nodes[n].name, 1);
        consider(&s, word, set->nodes[n].path, 0);
    }
    for (size_t a = 0; a < archs->count; a++) {
        for (size_t i = 0; i < archs->items[a].n_stalls; i++)
            consider(&s, word, archs->items[a].stalls[i].reason, 0);
        for (size_t i = 0; i < archs->items[a].memory.n_sources; i++)
            consider(&s, word, archs->items[a].memory.sources[i].name, 0);
    }
    consider(&s, word, "Unattributed", 0);
    if (!s.words[0])
        return td_usage_fail(err, "unknown node or stall reason \"%s\"; `topdown list-nodes -l 4` "
                       "lists them", word);
    return td_usage_fail(err, "unknown node or stall reason \"%s\"; did you mean %s%s%s%s%s? "
                   "(`topdown list-nodes -l 4` lists them)", word, s.words[0],
                   s.words[1] ? (s.words[2] ? ", " : " or ") : "", s.words[1] ? s.words[1] : "",
                   s.words[2] ? " or " : "", s.words[2] ? s.words[2] : "");
}

static void print_fix(FILE *out, const td_node_info *info)
{
    const char *fix = info->long_desc ? strstr(info->long_desc, "Fix: ") : NULL;
    if (fix)
        fprintf(out, "  %s\n", fix);
}

/* A stall reason of the arch tables: its counter and node in each table;
 * -1 when no table knows it. */
static int describe_stall(FILE *out, const char *word, const td_arch_set *archs)
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
                fprintf(out, "%s (stall reason, level 4)\n", reason);
                if (node >= 0)
                    fprintf(out, "  Warps stalled for this reason count under %s: %s\n",
                             td_node_get(node)->path, td_node_get(node)->desc);
                fprintf(out, "  Counter, node, per arch table:\n");
            }
            fprintf(out, "    %s: %s under %s\n", archs->items[a].name, st->metric, st->node);
        }
    if (reason && node >= 0)
        print_fix(out, td_node_get(node));
    return reason ? 0 : -1;
}

/* What a source splits its stall by, in words. */
static void say_source_head(FILE *out, const td_mem_source *src)
{
    fprintf(out, "%s (level 5, below the stall reason %s)\n", src->name, src->split);
    if (src->desc)
        fprintf(out, "  The share of %s's waits on %s: its count times its cycles over every "
                "source of %s's (docs/MODEL.md section 4a).\n", src->split, src->desc, src->split);
    else
        fprintf(out, "  The share of %s's waits on loads %s served: its sectors times its "
                "latency over every source's (docs/MODEL.md section 4a).\n", src->split,
                src->name);
    if (src->replay_only)
        fputs("  Measured under --replay-mode kernel only: no counter group has room for it.\n",
              out);
    fprintf(out, "  Counter, cycles, per arch table:\n");
}

static void say_source_fix(FILE *out, const td_mem_source *src)
{
    if (src->fix)
        fprintf(out, "  %s\n", src->fix);
    else
        fprintf(out, "  Fix: by its unit's throughput (--page details): at %.0f%% of peak or "
                "more the loads are bandwidth-bound (move fewer bytes), below it they wait on "
                "latency (more loads in flight, or a nearer level).\n", TD_SOL_BOUND_PCT);
}

/* Two sources are one node: one name under one stall. */
static int same_source(const td_mem_source *a, const td_mem_source *b)
{
    return strcasecmp(a->name, b->name) == 0 && strcmp(a->split, b->split) == 0;
}

/* Whether an earlier table, or earlier in table a, has source s's node. */
static int source_seen(const td_arch_set *archs, size_t a, size_t s)
{
    const td_mem_source *src = &archs->items[a].memory.sources[s];
    for (size_t b = 0; b <= a; b++) {
        const td_arch_memory *mem = &archs->items[b].memory;
        for (size_t t = 0; t < (b < a ? mem->n_sources : s); t++)
            if (same_source(&mem->sources[t], src))
                return 1;
    }
    return 0;
}

/* A level-5 source of the arch tables' memory sections, under each stall
 * it splits: its counter and cycles in each table; -1 when no table knows
 * the word. */
static int describe_source(FILE *out, const char *word, const td_arch_set *archs)
{
    int found = 0;
    for (size_t a = 0; a < archs->count; a++) {
        const td_arch_memory *mem = &archs->items[a].memory;
        for (size_t s = 0; s < mem->n_sources; s++) {
            const td_mem_source *src = &mem->sources[s];
            if (strcasecmp(src->name, word) != 0 || source_seen(archs, a, s))
                continue;
            fputs(found++ ? "\n" : "", out);
            say_source_head(out, src);
            for (size_t b = a; b < archs->count; b++)
                for (size_t t = 0; t < archs->items[b].memory.n_sources; t++) {
                    const td_mem_source *o = &archs->items[b].memory.sources[t];
                    if (same_source(o, src))
                        fprintf(out, "    %s: %s (%g a unit), %g cycles\n", archs->items[b].name,
                                o->metric, o->per_sector, o->latency_cycles);
                }
            say_source_fix(out, src);
        }
    }
    return found ? 0 : -1;
}

typedef struct stall_args {
    const char *word;
    const td_arch_set *archs;
} stall_args;

static int write_stall(FILE *out, const void *ctx, td_error *err)
{
    (void)err;
    const stall_args *a = ctx;
    return describe_stall(out, a->word, a->archs) == 0 ||
                   describe_source(out, a->word, a->archs) == 0
               ? 0
               : -1;
}

/* describe_stall (or describe_source) in lines that fit; -1 when no table
 * knows the word. */
static int describe_stall_wrapped(const char *word, const td_arch_set *archs, td_error *err)
{
    stall_args a = {word, archs};
    return td_write_wrapped(stdout, 0, write_stall, &a, err);
}

/* The stall reason a word names: itself, or the last part of a stall
 * path of list-nodes -l 4 ("Backend.Memory_Bound.L1_Bound.long_scoreboard"). */
static const char *stall_word(const char *word)
{
    const char *dot = strrchr(word, '.');
    char node[256];
    if (!dot || (size_t)(dot - word) >= sizeof node)
        return word;
    snprintf(node, sizeof node, "%.*s", (int)(dot - word), word);
    if (find_node_nocase(node) >= 0)
        return dot + 1;
    /* a source's path: NODE.REASON.SOURCE */
    const char *reason = strrchr(node, '.');
    if (reason) {
        node[reason - node] = '\0';
        if (find_node_nocase(node) >= 0)
            return dot + 1;
    }
    return word;
}

/* A counter behind a node: what it is (a stall reason, an issue counter),
 * its metric, and the arch tables that name it so. */
typedef struct counter_row {
    const char *what, *metric;
    char tables[512];
} counter_row;

#define MAX_COUNTER_ROWS 64

/* Adds (what, metric) of table to rows, once; returns the count. */
static size_t add_counter(counter_row *rows, size_t n, const char *what, const char *metric,
                          const char *table)
{
    size_t r = 0;
    while (r < n && !(strcmp(rows[r].what, what) == 0 && strcmp(rows[r].metric, metric) == 0))
        r++;
    if (r == MAX_COUNTER_ROWS)
        return n;
    if (r == n)
        rows[n++] = (counter_row){what, metric, ""};
    size_t len = strlen(rows[r].tables);
    snprintf(rows[r].tables + len, sizeof rows[r].tables - len, "%s%s", len ? " " : "", table);
    return n;
}

/* Whether fixed node `node` is `above` or under it. */
static int node_under(int node, int above)
{
    while (node >= 0 && node != above)
        node = td_node_get(node)->parent;
    return node >= 0;
}

/* The stall reasons under node, each table's metric for each. */
static size_t stall_counters(const td_arch_set *archs, int node, counter_row *rows)
{
    size_t n = 0;
    for (size_t a = 0; a < archs->count; a++)
        for (size_t i = 0; i < archs->items[a].n_stalls; i++) {
            const td_stall_map *st = &archs->items[a].stalls[i];
            if (node_under(td_node_find(st->node), node))
                n = add_counter(rows, n, st->reason, st->metric, archs->items[a].name);
        }
    return n;
}

/* The issue counters level 1's formulas read, each table's metric for each. */
static size_t issue_counters(const td_arch_set *archs, counter_row *rows)
{
    size_t n = 0;
    for (size_t a = 0; a < archs->count; a++) {
        const td_arch *arch = &archs->items[a];
        const td_backend_info *backend = td_backend_get(arch->source);
        for (size_t i = 0; i < backend->n_needs; i++) {
            td_counter c = backend->needs[i].counter;
            if (backend->needs[i].in_result && arch->counter[c] && c != TD_C_DURATION_NS)
                n = add_counter(rows, n, td_counter_key(c), arch->counter[c], arch->name);
        }
    }
    return n;
}

static void print_counters(FILE *out, const char *head, const counter_row *rows, size_t n)
{
    if (n)
        fprintf(out, "  %s\n", head);
    for (size_t r = 0; r < n; r++)
        fprintf(out, "    %s: %s\n      in %s\n", rows[r].what, rows[r].metric, rows[r].tables);
}

/* The long description without its "Fix: ..." (printed last). */
static void print_long_desc(FILE *out, const td_node_info *info)
{
    const char *fix = strstr(info->long_desc, "Fix: ");
    int len = fix ? (int)(fix - info->long_desc) : (int)strlen(info->long_desc);
    while (len > 0 && info->long_desc[len - 1] == ' ')
        len--;
    if (len > 0)
        fprintf(out, "  %.*s\n", len, info->long_desc);
}

/* How a node's share is computed (MODEL.md section 3), and the counters
 * behind it per arch table. */
static void print_formula(FILE *out, int node, const td_arch_set *archs)
{
    const td_node_info *info = td_node_get(node);
    counter_row rows[MAX_COUNTER_ROWS];
    char own[64];
    snprintf(own, sizeof own, "S(%s)", info->name);
    if (info->kind != TD_KIND_STALL_SPLIT) {
        print_counters(out, "Counters: what IPC, IPC_issued and WarpEff come from, per arch "
                       "table:", rows, issue_counters(archs, rows));
        return;
    }
    if (!strstr(info->long_desc, own)) /* where its description does not give it */
        fprintf(out, "  Formula: %s = Stalled * S(%s) / S, where Stalled = 1 - Retire - "
                "Divergence (the unused slots), S(%s) the warp stall samples of the reasons "
                "under it and S those of every reason of the table\n", info->name, info->name,
                info->name);
    print_counters(out, "Counters: the stall reasons under it, per arch table:", rows,
                   stall_counters(archs, node, rows));
}

typedef struct describe_args {
    int node;
    const td_arch_set *archs;
} describe_args;

static int write_node(FILE *out, const void *ctx, td_error *err)
{
    (void)err;
    const describe_args *a = ctx;
    int node = a->node;
    const td_node_info *info = td_node_get(node);
    fprintf(out, "%s (level %d, area %s)\n  %s\n", info->path, info->level, info->area, info->desc);
    print_long_desc(out, info);
    if (td_kind_is_loss(info->kind))
        fprintf(out, "  Threshold: %.0f%% of %s\n", 100.0 * info->threshold,
               info->level == 1 ? "all issue slots" : "its parent");
    print_formula(out, node, a->archs);
    print_fix(out, info);
    return 0;
}

static int describe_node(int node, const td_arch_set *archs, td_error *err)
{
    describe_args a = {node, archs};
    return td_write_wrapped(stdout, 0, write_node, &a, err);
}

/* The share the reports print under the tree as "Unattributed": no node
 * of the model, the stalled slots it could not split. */
static const char unattributed_desc[] =
    "Stalled slots not split: launches that recorded no stall sample, or kernels whose stall "
    "reasons were not all measured.";
static const char unattributed_formula[] =
    "Unattributed = Stalled (1 - Retire - Divergence) of the launches without a stall sample "
    "(S = 0), and of the kernels whose Frontend and Backend are not split (n/m: stall reasons no "
    "launch measured)";
static const char unattributed_fix[] =
    "Fix: --replay-mode kernel measures every stall reason of every launch; --overhead unlimited "
    "measures every launch.";

static int is_unattributed(const char *word)
{
    return strcasecmp(word, "Unattributed") == 0;
}

static int write_unattributed(FILE *out, const void *ctx, td_error *err)
{
    (void)ctx, (void)err;
    fprintf(out, "Unattributed (under the tree in the reports, area --; not a node of the model)\n"
           "  %s\n  Formula: %s\n  %s\n", unattributed_desc, unattributed_formula,
           unattributed_fix);
    return 0;
}

static cJSON *describe_unattributed_json(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", "Unattributed");
    cJSON_AddStringToObject(o, "path", "Unattributed");
    cJSON_AddStringToObject(o, "description", unattributed_desc);
    cJSON_AddStringToObject(o, "formula", unattributed_formula);
    cJSON_AddStringToObject(o, "fix", unattributed_fix + strlen("Fix: "));
    return o;
}

static cJSON *describe_node_json(int node, const td_arch_set *archs)
{
    const td_node_info *info = td_node_get(node);
    cJSON *o = node_json(info);
    cJSON_AddStringToObject(o, "long_description", info->long_desc ? info->long_desc : "");
    cJSON *stalls = cJSON_AddObjectToObject(o, "stall_reasons");
    for (size_t i = 0; i < archs->count; i++)
        cJSON_AddItemToObject(stalls, archs->items[i].name, stalls_below(&archs->items[i], node));
    return o;
}

/* A stall reason: its node and, per table, its counter; NULL when no
 * table knows it. */
static cJSON *describe_stall_json(const char *word, const td_arch_set *archs)
{
    cJSON *o = NULL, *tables = NULL;
    for (size_t a = 0; a < archs->count; a++)
        for (size_t i = 0; i < archs->items[a].n_stalls; i++) {
            const td_stall_map *st = &archs->items[a].stalls[i];
            if (strcasecmp(st->reason, word) != 0)
                continue;
            if (!o) {
                int node = td_node_find(st->node);
                o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "reason", st->reason);
                cJSON_AddNumberToObject(o, "level", 4);
                cJSON_AddStringToObject(o, "node", node >= 0 ? td_node_get(node)->path : st->node);
                tables = cJSON_AddArrayToObject(o, "tables");
            }
            cJSON *t = cJSON_CreateObject();
            cJSON_AddStringToObject(t, "arch", archs->items[a].name);
            cJSON_AddStringToObject(t, "metric", st->metric);
            cJSON_AddStringToObject(t, "node", st->node);
            cJSON_AddItemToArray(tables, t);
        }
    return o;
}

/* describe --json: the node's or the stall reason's object. */
static int describe_json(const char *word, int node, const td_arch_set *archs, td_error *err)
{
    cJSON *o = node >= 0                 ? describe_node_json(node, archs)
               : is_unattributed(word) ? describe_unattributed_json()
                                       : describe_stall_json(stall_word(word), archs);
    if (!o)
        return unknown_word(word, archs, err);
    return td_json_print(stdout, o, err);
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
    if (c.json)
        rc = describe_json(files[0], node, &archs, err);
    else if (node >= 0)
        rc = describe_node(node, &archs, err);
    else if (is_unattributed(files[0]))
        rc = td_write_wrapped(stdout, 0, write_unattributed, NULL, err);
    else if (describe_stall_wrapped(stall_word(files[0]), &archs, err) != 0)
        rc = unknown_word(files[0], &archs, err);
    td_arch_set_free(&archs);
    return rc;
}
