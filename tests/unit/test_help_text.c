/* What the help, the man page and describe say is true (issue 41 item
 * 16): each option's text says what it does in that command, each command
 * lists only the exit codes that apply to it, one default for list-nodes,
 * a bad word's error lists every word, the man page's EXIT STATUS lists
 * every code and its EXAMPLES line up, describe prints a node's formula
 * and counters, and describes Unattributed, which the reports print. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];
static td_run_output r;

static void run(const char *args)
{
    td_test_run_topdown(dir, args, &r);
}

/* The line of text that starts with head (after spaces), or "". */
static const char *line_of(const char *text, const char *head, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *q = p + strspn(p, " ");
        if (strncmp(q, head, strlen(head)) == 0) {
            snprintf(out, size, "%.*s", (int)strcspn(p, "\n"), p);
            break;
        }
    }
    return out;
}

static void test_option_texts(void)
{
    char line[512];
    run("help describe");
    CHECK(r.status == 0);
    CHECK(strstr(line_of(r.out, "--json", line, sizeof line), "the node (or stall reason)"));
    CHECK(strstr(r.out, "modelled tree") == NULL);
    run("help plot");
    CHECK(strstr(line_of(r.out, "-k, --kernel-name", line, sizeof line), "draw only these"));
    CHECK(strstr(r.out, "profile only kernels") == NULL);
    run("help diff");
    CHECK(strstr(line_of(r.out, "-k, --kernel-name", line, sizeof line), "compare only"));
    CHECK(strstr(r.out, "modelled tree") == NULL);
    /* list-nodes: one default, the one it uses (level 3's nodes without -l) */
    run("help list-nodes");
    CHECK(strstr(r.out, "default 3") != NULL && strstr(r.out, "default 1") == NULL);
    CHECK(strstr(r.out, "1 to 3") == NULL);
    run("list-nodes");
    CHECK(r.status == 0 && strstr(r.out, "Backend.Memory_Bound.L1_Bound") != NULL);
}

/* Each command's help: 0, 1 and 2; 3 and the app's code for profiling
 * only (topdown --help), 4 for diff only. */
static void test_exit_codes(void)
{
    static const char *const commands[] = {"report", "describe", "list-nodes", "plot", "merge",
                                           "imbalance", "trace", "source", "list-archs"};
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64];
        snprintf(args, sizeof args, "help %s", commands[i]);
        run(args);
        CHECK(r.status == 0 && strstr(r.out, "\n  2  bad command line"));
        CHECK(strstr(r.out, "\n  3  ") == NULL && strstr(r.out, "\n  4  ") == NULL);
        CHECK(strstr(r.out, "app's own exit code") == NULL);
    }
    run("help diff");
    CHECK(strstr(r.out, "\n  4  diff --fail-if") && !strstr(r.out, "\n  3  "));
    run("--help");
    CHECK(strstr(r.out, "\n  3  profiling: nothing measured") && strstr(r.out, "\n  4  "));
    CHECK(strstr(r.out, "app's own exit code wins") != NULL);
}

static void test_word_errors(void)
{
    run("--replay-mode foo -- true");
    CHECK(r.status == 2);
    CHECK(strstr(r.err, "--replay-mode takes auto, none, kernel or application, not \"foo\""));
    run("--cache-control foo -- true");
    CHECK(r.status == 2 && strstr(r.err, "--cache-control takes none or all, not \"foo\""));
}

/* The man page (build/topdown.1, made by help2man; skipped without it). */
static void test_man_page(void)
{
    char path[1024], man[1 << 16];
    snprintf(path, sizeof path, "%s/topdown.1", getenv("TOPDOWN_BUILD_DIR"));
    td_test_slurp(path, man, sizeof man);
    if (!man[0]) {
        printf("  no man page (help2man missing): skipped\n");
        return;
    }
    const char *status = strstr(man, ".SH \"EXIT STATUS\"");
    CHECK(status != NULL);
    for (int code = 0; status && code <= 4; code++) {
        char item[16];
        snprintf(item, sizeof item, ".B %d\n", code);
        CHECK(strstr(status, item) != NULL);
    }
    /* EXAMPLES: every description starts in one column, as printed */
    const char *ex = strstr(man, ".SH EXAMPLES\n.nf\n");
    const char *end = ex ? strstr(ex, "\n.fi") : NULL;
    CHECK(ex && end);
    int column = -1, lines = 0;
    for (const char *p = ex ? ex + strlen(".SH EXAMPLES\n.nf\n") : NULL; p && p < end;
         p = strchr(p, '\n') + 1) {
        int shown = 0, at = -1; /* printed columns: "\-" prints one */
        for (const char *c = p; *c != '\n'; c++) {
            if (c[0] == '\\' && c[1] == '-')
                continue;
            if (at < 0 && c[0] == ' ' && c[1] == ' ') {
                while (c[1] == ' ')
                    c++, shown++;
                at = shown + 1;
            }
            shown++;
        }
        CHECK(at > 0);
        if (column < 0)
            column = at;
        CHECK(at == column);
        lines++;
    }
    CHECK(lines >= 8);
}

static void test_describe(void)
{
    run("describe L1_Bound");
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Formula: L1_Bound = Stalled * S(L1_Bound) / S, where Stalled = 1 - "
                        "Retire - Divergence") != NULL);
    CHECK(strstr(r.out, "    long_scoreboard: smsp__warps_issue_stalled_long_scoreboard.sum\n"
                        "      in ") != NULL);
    CHECK(strstr(r.out, "gh100") != NULL);
    CHECK(strstr(r.out, "  Fix: coalesce accesses") != NULL);
    run("describe Retire");
    CHECK(r.status == 0 && strstr(r.out, "Retire = IPC * WarpEff / IPC_MAX"));
    CHECK(strstr(r.out, "    inst_executed: smsp__inst_executed.sum\n") != NULL);
    run("describe Unattributed");
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Unattributed (under the tree in the reports") != NULL);
    CHECK(strstr(r.out, "Stalled slots not split") != NULL);
    CHECK(strstr(r.out, "Fix: --replay-mode kernel") != NULL);
    run("describe unattributed --json");
    CHECK(r.status == 0 && strstr(r.out, "\"formula\":") && strstr(r.out, "\"fix\":"));
    run("describe Unatributed");
    CHECK(r.status == 2 && strstr(r.err, "did you mean Unattributed?"));
}

int main(void)
{
    if (!getenv("TOPDOWN_BIN") || !getenv("TOPDOWN_BUILD_DIR")) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_BUILD_DIR must be set (ctest sets them)\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    test_option_texts();
    test_exit_codes();
    test_word_errors();
    test_man_page();
    test_describe();
    td_test_cleanup(dir);
    return td_check_summary();
}
