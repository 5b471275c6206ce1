/* No circle of calls (issue 38, bar 18): test_layering checks the
 * includes; this test checks what the objects really call. Each argument
 * is one library or program, "NAME=OBJ;OBJ;..." (CMake's
 * $<TARGET_OBJECTS:...>, tests/CMakeLists.txt). `nm -P` lists what each
 * object defines (a global function or variable) and what it uses from
 * elsewhere (U); a file uses another when it uses a symbol only that other
 * file defines. The files of one library must then make no circle: no
 * file may call a function that only a file calling back into it
 * defines. A circle is named, file by file, with one symbol for each step.
 *
 * Symbols more than one object defines (weak or common ones, a
 * sanitizer's) make no edge, and neither do calls within a file. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"

extern char **environ;

#define MAX_FILES 160

/* One symbol an object defines or uses. */
typedef struct symbol {
    char *name;
    size_t file;
} symbol;

typedef struct symbols {
    symbol *at;
    size_t n, cap;
} symbols;

/* The files of one library and their uses of each other: edge[a][b] is
 * one symbol file a uses that only file b defines (NULL: none). */
typedef struct call_graph {
    char file[MAX_FILES][128];
    size_t n;
    symbols defined, used;
    const char *edge[MAX_FILES][MAX_FILES];
} call_graph;

static int add_symbol(symbols *s, const char *name, size_t file)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        symbol *bigger = realloc(s->at, cap * sizeof *bigger);
        if (!bigger)
            return -1;
        s->at = bigger;
        s->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -1;
    s->at[s->n++] = (symbol){copy, file};
    return 0;
}

static void free_symbols(symbols *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->at[i].name);
    free(s->at);
    memset(s, 0, sizeof *s);
}

static void free_graph(call_graph *g)
{
    free_symbols(&g->defined);
    free_symbols(&g->used);
    memset(g, 0, sizeof *g);
}

/* A file of the graph, named NAME as given; MAX_FILES when full. */
static size_t add_file(call_graph *g, const char *name)
{
    if (g->n == MAX_FILES)
        return MAX_FILES;
    snprintf(g->file[g->n], sizeof g->file[0], "%s", name);
    return g->n++;
}

/* One line of `nm -P`: "NAME TYPE [VALUE SIZE]". An upper-case type other
 * than U is a global the file defines; U one it uses from elsewhere. */
static int add_nm_line(call_graph *g, size_t file, const char *line)
{
    char name[512], type;
    if (sscanf(line, "%511s %c", name, &type) != 2)
        return 0;
    if (type == 'U')
        return add_symbol(&g->used, name, file);
    if (type >= 'A' && type <= 'Z')
        return add_symbol(&g->defined, name, file);
    return 0; /* local, or a weak use: no edge */
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const symbol *)a)->name, ((const symbol *)b)->name);
}

/* The edges, from the symbols: each use of a symbol exactly one other
 * file defines. */
static void link_edges(call_graph *g)
{
    qsort(g->defined.at, g->defined.n, sizeof *g->defined.at, by_name);
    for (size_t u = 0; u < g->used.n; u++) {
        const symbol *use = &g->used.at[u];
        symbol *def = bsearch(use, g->defined.at, g->defined.n, sizeof *use, by_name);
        if (!def)
            continue; /* outside the library: the C library, CUPTI, another library */
        size_t first = (size_t)(def - g->defined.at), last = first;
        while (first > 0 && strcmp(g->defined.at[first - 1].name, use->name) == 0)
            first--;
        while (last + 1 < g->defined.n && strcmp(g->defined.at[last + 1].name, use->name) == 0)
            last++;
        size_t to = g->defined.at[first].file;
        if (first != last || to == use->file || g->edge[use->file][to])
            continue;
        g->edge[use->file][to] = g->defined.at[first].name;
    }
}

/* ---- strongly connected components (Tarjan) ----------------------------- */

typedef struct tarjan {
    const call_graph *g;
    size_t index[MAX_FILES], low[MAX_FILES], stack[MAX_FILES], depth, next;
    unsigned char seen[MAX_FILES], on_stack[MAX_FILES];
    size_t component[MAX_FILES]; /* each file's component, by its root */
} tarjan;

static void strong_connect(tarjan *t, size_t v)
{
    t->index[v] = t->low[v] = t->next++;
    t->seen[v] = 1;
    t->stack[t->depth++] = v;
    t->on_stack[v] = 1;
    for (size_t w = 0; w < t->g->n; w++) {
        if (!t->g->edge[v][w])
            continue;
        if (!t->seen[w]) {
            strong_connect(t, w);
            if (t->low[w] < t->low[v])
                t->low[v] = t->low[w];
        } else if (t->on_stack[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->low[v] != t->index[v])
        return;
    size_t w;
    do {
        w = t->stack[--t->depth];
        t->on_stack[w] = 0;
        t->component[w] = v;
    } while (w != v);
}

/* Names one circle through v inside its component on stderr: the shortest
 * way from v back to itself (breadth first), each step with its symbol. */
static void say_circle(const call_graph *g, const tarjan *t, size_t v, const char *what)
{
    size_t from[MAX_FILES], queue[MAX_FILES], head = 0, tail = 0;
    unsigned char reached[MAX_FILES] = {0};
    for (size_t w = 0; w < g->n; w++)
        if (g->edge[v][w] && t->component[w] == t->component[v]) {
            reached[w] = 1;
            from[w] = v;
            queue[tail++] = w;
        }
    while (head < tail && !reached[v]) {
        size_t u = queue[head++];
        for (size_t w = 0; w < g->n; w++)
            if (g->edge[u][w] && !reached[w] && t->component[w] == t->component[v]) {
                reached[w] = 1;
                from[w] = u;
                queue[tail++] = w;
            }
    }
    size_t path[MAX_FILES], n = 0;
    size_t at = v;
    do {
        path[n++] = at;
        at = from[at];
    } while (at != v && n < MAX_FILES);
    fprintf(stderr, "%s: one circle: %s", what, g->file[v]);
    for (size_t i = n; i-- > 0;) {
        size_t to = path[i], by = i + 1 < n ? path[i + 1] : v;
        fprintf(stderr, " -> %s (%s)", g->file[to], g->edge[by][to]);
    }
    fputc('\n', stderr);
}

/* How many components of more than one file the graph has; each is
 * named on stderr, its files and one of its circles. */
static size_t circles(const call_graph *g, const char *what)
{
    static tarjan t; /* big: static */
    memset(&t, 0, sizeof t);
    t.g = g;
    for (size_t v = 0; v < g->n; v++)
        if (!t.seen[v])
            strong_connect(&t, v);
    size_t found = 0;
    for (size_t v = 0; v < g->n; v++) {
        size_t members = 0;
        for (size_t w = 0; w < g->n; w++)
            members += t.component[w] == v;
        if (t.component[v] != v || members < 2)
            continue;
        found++;
        fprintf(stderr, "%s: %zu files in one circle of calls:", what, members);
        for (size_t w = 0; w < g->n; w++)
            if (t.component[w] == v)
                fprintf(stderr, " %s", g->file[w]);
        fputc('\n', stderr);
        say_circle(g, &t, v, what);
    }
    return found;
}

/* ---- the objects --------------------------------------------------------- */

/* The object's name in its target: the path after the last
 * "CMakeFiles/T.dir/", without ".o" ("arch/catalog.c"). */
static void file_name(const char *object, char *out, size_t size)
{
    const char *files = object, *next;
    while ((next = strstr(files, "CMakeFiles/")))
        files = next + 1;
    const char *dir = strstr(files, ".dir/");
    const char *name = dir ? dir + 5 : object;
    snprintf(out, size, "%s", name);
    size_t n = strlen(out);
    if (n > 2 && strcmp(out + n - 2, ".o") == 0)
        out[n - 2] = '\0';
}

/* Adds what `nm -P OBJECT` prints to the graph as file's symbols. -1 (and
 * why, on stderr) when nm cannot be run or fails. */
static int read_nm(call_graph *g, size_t file, const char *object)
{
    int out[2];
    if (pipe(out) != 0)
        return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, out[1]);
    char *argv[] = {"nm", "-P", (char *)object, NULL};
    pid_t pid;
    int spawned = posix_spawnp(&pid, "nm", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (spawned != 0) {
        close(out[0]);
        fprintf(stderr, "cannot run nm (%s): this test reads the objects' symbols with "
                "binutils' nm; install binutils\n", strerror(spawned));
        return -1;
    }
    FILE *f = fdopen(out[0], "r");
    int rc = f ? 0 : -1;
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (add_nm_line(g, file, line) != 0)
            rc = -1;
    if (f)
        fclose(f);
    else
        close(out[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "nm -P %s failed\n", object);
        rc = -1;
    }
    return rc;
}

static call_graph graph; /* big: static, one target at a time */

/* One argument, "NAME=OBJ;OBJ;...": its graph checked. */
static void check_target(const char *arg)
{
    const char *eq = strchr(arg, '=');
    CHECK(eq != NULL);
    if (!eq)
        return;
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(eq - arg), arg);
    char *objects = strdup(eq + 1);
    CHECK(objects != NULL);
    if (!objects)
        return;
    memset(&graph, 0, sizeof graph);
    int read_all = 1;
    char *save = NULL;
    for (char *o = strtok_r(objects, ";", &save); o; o = strtok_r(NULL, ";", &save)) {
        char name[128];
        file_name(o, name, sizeof name);
        size_t file = add_file(&graph, name);
        CHECK(file < MAX_FILES);
        if (file == MAX_FILES || read_nm(&graph, file, o) != 0)
            read_all = 0;
    }
    free(objects);
    CHECK(read_all);
    link_edges(&graph);
    size_t edges = 0;
    for (size_t a = 0; a < graph.n; a++)
        for (size_t b = 0; b < graph.n; b++)
            edges += graph.edge[a][b] != NULL;
    printf("%s: %zu files, %zu symbols defined, %zu uses between files\n", what, graph.n,
           graph.defined.n, edges);
    CHECK(graph.n > 0 && graph.defined.n > 0);
    CHECK(circles(&graph, what) == 0);
    free_graph(&graph);
}

/* ---- the check itself ------------------------------------------------------ */

/* A made-up library: a.c calls b.c's f, b.c calls c.c's g; c.c calls
 * a.c's h only when back is set (the circle). w is defined twice (weak):
 * no edge; a call within a file is none either. */
static void made_up(call_graph *g, int back)
{
    memset(g, 0, sizeof *g);
    size_t a = add_file(g, "a.c"), b = add_file(g, "b.c"), c = add_file(g, "c.c");
    const char *lines_a[] = {"h T 0 10", "f U", "w W 0 4", "k T 10 4", "k2 t 20 4"};
    const char *lines_b[] = {"f T 0 10", "g U", "w W 0 4"};
    const char *lines_c[] = {"g T 0 10", "w U", back ? "h U" : "x U"};
    for (size_t i = 0; i < sizeof lines_a / sizeof *lines_a; i++)
        CHECK(add_nm_line(g, a, lines_a[i]) == 0);
    for (size_t i = 0; i < sizeof lines_b / sizeof *lines_b; i++)
        CHECK(add_nm_line(g, b, lines_b[i]) == 0);
    for (size_t i = 0; i < sizeof lines_c / sizeof *lines_c; i++)
        CHECK(add_nm_line(g, c, lines_c[i]) == 0);
    link_edges(g);
}

static void check_self(void)
{
    made_up(&graph, 0);
    CHECK_STR(graph.edge[0][1], "f");
    CHECK_STR(graph.edge[1][2], "g");
    CHECK(graph.edge[2][0] == NULL && graph.edge[2][1] == NULL);
    CHECK(circles(&graph, "a -> b -> c") == 0);
    free_graph(&graph);
    made_up(&graph, 1);
    CHECK_STR(graph.edge[2][0], "h");
    fprintf(stderr, "(the next circle is the test's own)\n");
    CHECK(circles(&graph, "a -> b -> c -> a") == 1);
    free_graph(&graph);
    char name[128];
    file_name("/b/topdown.dir/inject/CMakeFiles/topdown_inject.dir/batch.c.o", name,
              sizeof name);
    CHECK_STR(name, "batch.c");
    file_name("/b/metrics/CMakeFiles/td_metrics.dir/arch/catalog.c.o", name, sizeof name);
    CHECK_STR(name, "arch/catalog.c");
}

int main(int argc, char **argv)
{
    check_self();
    CHECK(argc > 1); /* the targets come from tests/CMakeLists.txt */
    for (int i = 1; i < argc; i++)
        check_target(argv[i]);
    return td_check_summary();
}
