/* What the GPU tests of td_bench's designed kernels share: running a
 * program with its output captured, `td_bench --list`, and reading a
 * level-3 tree section of topdown's text report (its values and the node
 * marked <==). Used by test_bottlenecks (ranged collection) and
 * test_time_sampled (--time-sampled). */
#ifndef TD_BENCH_CHECKS_H
#define TD_BENCH_CHECKS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "td_gpu.h"

#define OUT_CAP (1 << 20)
#define MAX_KERNELS 32

typedef struct bench_kernel {
    char name[64];
    char node[96]; /* intended bottleneck path */
} bench_kernel;

/* Runs argv with stdout captured into out (NUL-terminated, truncated at
 * cap); stderr goes to the test log. Returns the exit code, -1 on failure
 * to run, 128+N when killed by signal N. */
static inline int run_capture(char *const argv[], char *out, size_t cap)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s\n", argv[0]);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t n;
    char sink[4096];
    while ((n = read(fd[0], len + 1 < cap ? out + len : sink,
                     len + 1 < cap ? cap - 1 - len : sizeof sink)) > 0)
        if (len + 1 < cap)
            len += (size_t)n;
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* The designed kernels of `td_bench --list` (name TAB node TAB
 * default|variant TAB description); variants and "-" nodes are skipped. */
static inline int load_kernels(const char *bench, bench_kernel *ks, int cap)
{
    static char out[OUT_CAP];
    char *argv[] = {(char *)bench, "--list", NULL};
    if (run_capture(argv, out, sizeof out) != 0)
        return -1;
    int n = 0;
    for (char *line = strtok(out, "\n"); line && n < cap; line = strtok(NULL, "\n")) {
        char name[64], node[96], kind[16];
        if (sscanf(line, "%63[^\t]\t%95[^\t]\t%15[^\t]", name, node, kind) != 3)
            continue;
        if (strcmp(kind, "default") != 0 || strcmp(node, "-") == 0)
            continue;
        snprintf(ks[n].name, sizeof ks[n].name, "%s", name);
        snprintf(ks[n].node, sizeof ks[n].node, "%s", node);
        n++;
    }
    return n;
}

/* A designed-kernel test's start: topdown (TOPDOWN_BIN) and td_bench, and
 * td_bench's designed kernels into ks. TD_GPU_SKIP without a GPU or
 * td_bench; -1 when topdown is missing (checked, so the test fails); else
 * 0 with *n kernels, at least 9 checked (retire .. dependency). */
static inline int bench_start(const char **topdown, char *bench, size_t size,
                              bench_kernel *ks, int cap, int *n)
{
    *topdown = getenv("TOPDOWN_BIN");
    if (!td_gpu_present() || !td_gpu_program(bench, size, "benchmarks/td_bench"))
        return TD_GPU_SKIP;
    CHECK(*topdown != NULL && access(*topdown, X_OK) == 0);
    if (!*topdown || access(*topdown, X_OK) != 0)
        return -1;
    *n = load_kernels(bench, ks, cap);
    CHECK(*n >= 9);
    return 0;
}

/* The application tree: the lines after "Application:" up to the first
 * per-kernel section. Returns a pointer into report (modified in place). */
static inline char *app_section(char *report)
{
    char *start = strstr(report, "\nApplication:");
    if (!start)
        return NULL;
    char *end = strstr(start, "\nKernel ");
    if (end)
        *end = '\0';
    return start + 1;
}

/* The section of kernel `name` (its function is bench_<name>): from its
 * "Kernel i/N: bench_<name>" line to the next kernel's. Modifies report. */
static inline char *kernel_section(char *report, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, ": bench_%.100s\n", name);
    char *start = strstr(report, head);
    if (!start)
        return NULL;
    while (start > report && start[-1] != '\n')
        start--;
    char *end = strstr(start + 1, "\nKernel ");
    if (end)
        *end = '\0';
    return start;
}

static inline int has_token(const char *line, const char *token)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", line);
    char *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (strcmp(t, token) == 0)
            return 1;
    return 0;
}

/* % of slots on the line holding the node's path token, -1 if none. */
static inline double node_value(const char *section, const char *path)
{
    static char copy[OUT_CAP];
    snprintf(copy, sizeof copy, "%s", section);
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!has_token(line, path))
            continue;
        const char *slots = strstr(line, "Slots");
        return slots ? strtod(slots + 5, NULL) : -1.0;
    }
    return -1.0;
}

/* First line of the section marked "<==", copied into line; 0 if none. */
static inline int marked_line(const char *section, char *line, size_t cap)
{
    const char *mark = strstr(section, "<==");
    if (!mark)
        return 0;
    const char *begin = mark;
    while (begin > section && begin[-1] != '\n')
        begin--;
    size_t len = (size_t)(mark + 3 - begin);
    snprintf(line, cap, "%.*s", (int)(len < cap ? len : cap - 1), begin);
    return 1;
}

static inline void check_retire(const char *name, const char *section)
{
    char line[512];
    int marked = marked_line(section, line, sizeof line);
    if (marked)
        fprintf(stderr, "td_bench %s: expected no loss-node bottleneck, topdown marked: %s\n",
                name, line);
    CHECK(!marked);
    const char *level1[] = {"Divergence", "Frontend", "Backend"};
    double retire = node_value(section, "Retire");
    for (int i = 0; i < 3; i++) {
        double other = node_value(section, level1[i]);
        if (!(retire > other))
            fprintf(stderr, "td_bench %s: Retire %.1f%% is not above %s %.1f%%\n", name,
                    retire, level1[i], other);
        CHECK(retire > other);
    }
}

static inline void check_marked(const char *name, const char *node, const char *section)
{
    char line[512];
    if (!marked_line(section, line, sizeof line)) {
        fprintf(stderr, "td_bench %s: expected bottleneck %s, topdown marked no node\n%s\n",
                name, node, section);
        CHECK(0);
        return;
    }
    int ok = has_token(line, node);
    if (!ok)
        fprintf(stderr, "td_bench %s: expected bottleneck %s, topdown marked: %s\n", name,
                node, line);
    CHECK(ok);
}

/* Kernel k's tree (section) against its designed bottleneck (Retire: none
 * marked, Retire the largest), then a line for the log: how it was run. */
static inline void check_designed(const bench_kernel *k, const char *how, const char *section)
{
    if (strcmp(k->node, "Retire") == 0)
        check_retire(k->name, section);
    else
        check_marked(k->name, k->node, section);
    printf("%-12s %-7s expected %-38s %s\n", k->name, how, k->node,
           strstr(section, "<==") ? "marked" : "no marker");
}

#endif
