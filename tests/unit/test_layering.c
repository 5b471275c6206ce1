/* The floors of the house: docs/DESIGN.md states, in the block after its
 * line "<!-- floors -->", which folders each folder's files may include:
 *   FOLDER/  ALLOWED...
 * where "metrics/" is that folder's own files and "metrics/" followed by
 * a star the folder with every folder below it. This test reads that block, so the rule and
 * the check cannot drift apart, and checks every `#include "..."` of every
 * C file (.c, .h) of each folder named there: the target must be rooted at the
 * repository ("levels/model.h", never "model.h") and in an allowed folder.
 * A folder of metrics/, levels/, report/ or topdown/ that holds C
 * files but has no row fails too: a new folder needs its rule first.
 *
 * No circle: the rows themselves go one way (no folder may include,
 * through other rows, a folder that may include it: no import back up
 * the floors), and inside each folder the files do too. There a module is
 * NAME.c with NAME.h (a header without its .c, like section.h, is one of
 * its own), and module A uses module B when a file of A includes B.h; no
 * module may come back to itself that way (result.h includes conditions.h,
 * so conditions.c may not include the result). With includes that keep
 * to the rows, these two make a circle through several folders
 * impossible too: a circle that left a folder could not come back. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"

#define MAX_FLOORS 32
#define MAX_ALLOWED 8

typedef struct floor_rule {
    char folder[128];                /* "metrics/result/" */
    char allowed[MAX_ALLOWED][128];  /* "metrics/result/"; with a star: and below */
    size_t n_allowed;
} floor_rule;

static floor_rule rules[MAX_FLOORS];
static size_t n_rules;

/* The folder of a rooted include: "metrics/result/result.h" ->
 * "metrics/result/". */
static void folder_of(const char *target, char *out, size_t size)
{
    const char *slash = strrchr(target, '/');
    size_t n = slash ? (size_t)(slash - target) + 1 : 0;
    if (n >= size)
        n = size - 1;
    memcpy(out, target, n);
    out[n] = '\0';
}

static int allowed(const floor_rule *r, const char *target)
{
    char folder[512];
    folder_of(target, folder, sizeof folder);
    for (size_t i = 0; i < r->n_allowed; i++) {
        const char *a = r->allowed[i];
        size_t n = strlen(a);
        if (n >= 2 && strcmp(a + n - 2, "/*") == 0) {
            if (strncmp(folder, a, n - 1) == 0)
                return 1;
        } else if (strcmp(folder, a) == 0) {
            return 1;
        }
    }
    return 0;
}

/* ---- circles ------------------------------------------------------------ */

#define MAX_NODES 256

/* Modules of one folder, or the floors: edge[a][b], a uses b. */
typedef struct graph {
    char name[MAX_NODES][256];
    size_t n;
    unsigned char edge[MAX_NODES][MAX_NODES];
} graph;

static graph folder_graph; /* big: static, rebuilt per folder */

/* The node of name, added on first sight; MAX_NODES when the graph is full. */
static size_t node_of(graph *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->name[i], name) == 0)
            return i;
    if (g->n == MAX_NODES)
        return MAX_NODES;
    snprintf(g->name[g->n], sizeof g->name[0], "%.*s", (int)sizeof g->name[0] - 1, name);
    return g->n++;
}

static void add_edge(graph *g, size_t from, size_t to)
{
    if (from < MAX_NODES && to < MAX_NODES && from != to)
        g->edge[from][to] = 1;
}

/* Depth first from v; state 1: on the path (path[0..depth]), 2: done. On
 * a circle, names it ("a -> b -> a") on stderr and returns 1. */
static int visit(const graph *g, size_t v, unsigned char *state, size_t *path, size_t depth,
                 const char *what)
{
    state[v] = 1;
    path[depth] = v;
    for (size_t w = 0; w < g->n; w++) {
        if (!g->edge[v][w])
            continue;
        if (state[w] == 1) {
            size_t from = 0;
            while (path[from] != w)
                from++;
            fprintf(stderr, "%s: a circle:", what);
            for (size_t i = from; i <= depth; i++)
                fprintf(stderr, " %s ->", g->name[path[i]]);
            fprintf(stderr, " %s\n", g->name[w]);
            return 1;
        }
        if (state[w] == 0 && visit(g, w, state, path, depth + 1, what))
            return 1;
    }
    state[v] = 2;
    return 0;
}

/* 1 (and the circle on stderr) when some node comes back to itself. */
static int has_circle(const graph *g, const char *what)
{
    unsigned char state[MAX_NODES] = {0};
    size_t path[MAX_NODES];
    for (size_t v = 0; v < g->n; v++)
        if (state[v] == 0 && visit(g, v, state, path, 0, what))
            return 1;
    return 0;
}

/* The module of a file or of an include target: its path without ".c" or
 * ".h" ("metrics/result/result"). */
static void module_of(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    size_t n = strlen(out);
    if (n > 2 && out[n - 2] == '.' && (out[n - 1] == 'c' || out[n - 1] == 'h'))
        out[n - 2] = '\0';
}

/* The rows of the block after "<!-- floors -->" in docs/DESIGN.md. */
static int read_rules(const char *root)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/DESIGN.md", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    int state = 0; /* 0: before the marker, 1: before the fence, 2: in it */
    while (state < 3 && fgets(line, sizeof line, f)) {
        if (state == 0 && strncmp(line, "<!-- floors -->", 15) == 0)
            state = 1;
        else if (state == 1 && strncmp(line, "```", 3) == 0)
            state = 2;
        else if (state == 2 && strncmp(line, "```", 3) == 0)
            state = 3;
        else if (state == 2 && n_rules < MAX_FLOORS) {
            floor_rule *r = &rules[n_rules];
            memset(r, 0, sizeof *r);
            char *save = NULL;
            char *word = strtok_r(line, " \t\n", &save);
            if (!word)
                continue;
            snprintf(r->folder, sizeof r->folder, "%s", word);
            while ((word = strtok_r(NULL, " \t\n", &save)) && r->n_allowed < MAX_ALLOWED)
                snprintf(r->allowed[r->n_allowed++], sizeof r->allowed[0], "%s", word);
            n_rules++;
        }
    }
    fclose(f);
    return state == 3 ? 0 : -1;
}

static int is_c_file(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* Checks one file's includes, and adds those of its own folder to
 * folder_graph; returns how many it has. */
static size_t check_file(const floor_rule *r, const char *path, const char *name)
{
    char self[512], module[512];
    snprintf(self, sizeof self, "%s%s", r->folder, name);
    module_of(self, module, sizeof module);
    size_t from = node_of(&folder_graph, module);
    CHECK(from < MAX_NODES);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char line[1024];
    size_t includes = 0;
    while (fgets(line, sizeof line, f)) {
        char target[512];
        if (sscanf(line, " #include \"%511[^\"]\"", target) != 1)
            continue;
        includes++;
        int rooted = strchr(target, '/') != NULL;
        int ok = rooted && allowed(r, target);
        if (!ok)
            fprintf(stderr, "%s%s includes \"%s\": %s\n", r->folder, name, target,
                    rooted ? "a floor it may not include (docs/DESIGN.md)"
                           : "not rooted at the repository");
        CHECK(ok);
        char folder[512];
        folder_of(target, folder, sizeof folder);
        if (rooted && strcmp(folder, r->folder) == 0) {
            module_of(target, module, sizeof module);
            size_t to = node_of(&folder_graph, module);
            CHECK(to < MAX_NODES);
            add_edge(&folder_graph, from, to);
        }
    }
    fclose(f);
    return includes;
}

static size_t check_folder(const char *root, const floor_rule *r)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, r->folder);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return 0;
    size_t includes = 0;
    memset(&folder_graph, 0, sizeof folder_graph);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_c_file(e->d_name))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s%s", dir, e->d_name);
        includes += check_file(r, path, e->d_name);
    }
    closedir(d);
    CHECK(!has_circle(&folder_graph, r->folder));
    return includes;
}

/* The rows as a graph: a row uses another whose folder it may include. */
static void floors_graph(graph *g)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < n_rules; i++)
        node_of(g, rules[i].folder);
    for (size_t i = 0; i < n_rules; i++)
        for (size_t j = 0; j < n_rules; j++) {
            char target[sizeof rules[0].folder + 8];
            snprintf(target, sizeof target, "%.*sx.h", (int)sizeof rules[0].folder - 1,
                     rules[j].folder);
            if (allowed(&rules[i], target))
                add_edge(g, i, j);
        }
}

static const floor_rule *rule_of(const char *folder)
{
    for (size_t i = 0; i < n_rules; i++)
        if (strcmp(rules[i].folder, folder) == 0)
            return &rules[i];
    return NULL;
}

/* Every folder below root/rel ("metrics/") that holds C files has a
 * row; returns how many folders were seen. */
static size_t check_covered(const char *root, const char *rel)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, rel);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return 0;
    size_t seen = 1;
    int has_c_files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s%s", dir, e->d_name);
        struct stat st;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
            char below[512];
            snprintf(below, sizeof below, "%s%s/", rel, e->d_name);
            seen += check_covered(root, below);
        } else if (is_c_file(e->d_name)) {
            has_c_files = 1;
        }
    }
    closedir(d);
    if (has_c_files && !rule_of(rel)) {
        fprintf(stderr, "%s holds C files but docs/DESIGN.md gives it no floor\n", rel);
        CHECK(0);
    }
    return seen;
}

int main(void)
{
    const char *root = getenv("TOPDOWN_REPO_DIR");
    CHECK(root != NULL);
    if (!root)
        return td_check_summary();
    int read = read_rules(root);
    CHECK(read == 0);
    CHECK(n_rules >= 8);
    if (read)
        return td_check_summary();
    for (size_t i = 0; i < n_rules; i++) {
        size_t n = check_folder(root, &rules[i]);
        printf("%s: %zu includes checked\n", rules[i].folder, n);
        CHECK(n > 0);
    }
    static graph floors;
    floors_graph(&floors);
    CHECK(floors.n == n_rules);
    CHECK(!has_circle(&floors, "docs/DESIGN.md's floors"));
    const char *const code[] = {"metrics/", "levels/", "report/", "topdown/"};
    for (size_t i = 0; i < sizeof code / sizeof *code; i++)
        CHECK(check_covered(root, code[i]) > 0);
    /* the check itself catches what it must */
    const floor_rule *metrics = rule_of("metrics/");
    const floor_rule *result = rule_of("metrics/result/");
    const floor_rule *inject = rule_of("topdown/inject/");
    const floor_rule *levels = rule_of("levels/");
    CHECK(metrics && result && inject && levels);
    if (metrics && result && inject && levels) {
        CHECK(!allowed(metrics, "levels/model.h") && allowed(metrics, "metrics/error.h"));
        CHECK(!allowed(metrics, "metrics/result/result.h"));
        CHECK(allowed(result, "metrics/json_field.h") && !allowed(result, "metrics/arch/arch.h"));
        CHECK(!allowed(inject, "report/text.h") && allowed(inject, "metrics/arch/groups.h"));
        CHECK(allowed(levels, "metrics/result/result.h") && !allowed(levels, "report/text.h"));
    }
    /* a circle is found, and named; a line is not one */
    static graph g;
    memset(&g, 0, sizeof g);
    add_edge(&g, node_of(&g, "a"), node_of(&g, "b"));
    add_edge(&g, node_of(&g, "b"), node_of(&g, "c"));
    add_edge(&g, node_of(&g, "a"), node_of(&g, "c"));
    CHECK(!has_circle(&g, "a -> b -> c, a -> c"));
    add_edge(&g, node_of(&g, "c"), node_of(&g, "b"));
    fprintf(stderr, "(the next circle is the test's own)\n");
    CHECK(has_circle(&g, "a -> b -> c -> b"));
    char module[64];
    module_of("metrics/result/result.h", module, sizeof module);
    CHECK_STR(module, "metrics/result/result");
    return td_check_summary();
}
