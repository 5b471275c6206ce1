/* Widths (issue 41 item 13): list-nodes, describe and --pm-timeline fit
 * 100 columns into a pipe; on a terminal, text fits its width (COLUMNS,
 * else the terminal's own), colour there; the report's header keeps its
 * words together and says nothing of a complete result. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../check.h"
#include "td_pty.h"
#include "td_testlib.h"
#include "report/wrap.h"

static char dir[64];
static td_run_output r;

static void run(const char *args)
{
    td_test_run_topdown(dir, args, &r);
}

static void test_choose_width(void)
{
    CHECK(td_choose_text_width(0, "80", 120) == TD_TEXT_WIDTH); /* piped */
    CHECK(td_choose_text_width(1, "80", 120) == 80);            /* COLUMNS first */
    CHECK(td_choose_text_width(1, NULL, 120) == 120);           /* else the terminal */
    CHECK(td_choose_text_width(1, "wide", 132) == 132);
    CHECK(td_choose_text_width(1, NULL, 0) == TD_TEXT_WIDTH);   /* unknown */
    CHECK(td_choose_text_width(1, "20", 0) == TD_TEXT_WIDTH_MIN);
    CHECK(td_choose_text_width(1, "9000", 0) == TD_TEXT_WIDTH_MAX);
}

static void test_hanging(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    td_wrap_hanging(mem, "a   b   one two three four five six", 8, 24);
    fclose(mem);
    CHECK(strcmp(text, "a   b   one two three\n        four five six\n") == 0);
    free(text);
}

/* Piped: each line of `topdown args` within 100 columns. */
static void check_fits(const char *args)
{
    run(args);
    CHECK(r.status == 0);
    CHECK(td_longest_line(r.out) <= TD_TEXT_WIDTH);
    if (td_longest_line(r.out) > TD_TEXT_WIDTH)
        printf("  %s: a line of %zu columns\n", args, td_longest_line(r.out));
}

static void test_piped(void)
{
    check_fits("list-nodes");
    check_fits("list-nodes -l 4");
    check_fits("describe imc_miss");
    check_fits("describe math_pipe_throttle");
    check_fits("describe Backend.Memory_Bound.L1_Bound.long_scoreboard");
    char args[512];
    snprintf(args, sizeof args, "report %s/benchmarks/results/recordings_2026-11-26/"
             "h100_pytorch_pm.json.xz --pm-timeline", getenv("TOPDOWN_REPO_DIR"));
    check_fits(args);
    /* the node column is as wide as the longest path listed */
    run("list-nodes");
    CHECK(strstr(r.out, "area lvl node                                 threshold") != NULL);
}

static void test_terminal(void)
{
    static char out[1 << 17];
    const char *list[] = {"list-nodes", NULL};
    const char *cols80[] = {"COLUMNS=80", NULL};
    CHECK(td_pty_run(132, cols80, list, out, sizeof out) == 0);
    CHECK(td_longest_line(out) <= 80 && td_longest_line(out) > 70);
    CHECK(td_pty_run(90, NULL, list, out, sizeof out) == 0); /* the terminal's own */
    CHECK(td_longest_line(out) <= 90 && td_longest_line(out) > 80);
    char report[512];
    snprintf(report, sizeof report, "%s/benchmarks/results/h100_td_bench.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    const char *args[] = {"report", report, "--color=never", "--quiet", NULL};
    CHECK(td_pty_run(72, NULL, args, out, sizeof out) == 0);
    CHECK(td_longest_line(out) <= 72 && td_longest_line(out) > 62);
    /* into a pipe, 100 whatever COLUMNS says */
    setenv("COLUMNS", "60", 1);
    run("list-nodes");
    unsetenv("COLUMNS");
    CHECK(td_longest_line(r.out) > 90);
}

/* The header: no "status complete" (nor a lone line of it), no line that
 * says nothing to a user. */
static void test_header(void)
{
    char args[512];
    snprintf(args, sizeof args, "report %s/benchmarks/results/h100_td_bench.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    run(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "status complete") == NULL);
    CHECK(strstr(r.out, "recorded 2026-11-22T18:24:45Z\nCommand:") != NULL);
    CHECK(strstr(r.out, "recorded before replay-free") == NULL);
    CHECK(strstr(r.out, "Collection: kernel replay, 5 passes per profiled launch") != NULL);
    snprintf(args, sizeof args, "report %s/tests/fixtures/h200/h200_bench_kernel.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    run(args);
    CHECK(strstr(r.out, "without replay") == NULL);
    CHECK(strstr(r.out, "50 launches with kernel replay (full set)\n") != NULL);
    /* where some launches were in counter groups, they are said */
    snprintf(args, sizeof args, "report %s/benchmarks/results/recordings_2026-11-26/"
             "h100_pytorch_mlp_2000.json.xz", getenv("TOPDOWN_REPO_DIR"));
    run(args);
    CHECK(strstr(r.out, "without replay (one of 5 counter groups each)") != NULL);
    /* a status but complete is said */
    snprintf(args, sizeof args, "sed 's/\"complete\"/\"partial\"/' %s/tests/fixtures/golden/"
             "mixed.topdown.json > %s/partial.json", getenv("TOPDOWN_REPO_DIR"), dir);
    CHECK(system(args) == 0);
    snprintf(args, sizeof args, "report %s/partial.json", dir);
    run(args);
    CHECK(strstr(r.out, "| status partial\n") != NULL);
}

/* Colour: the bottleneck bold red, the other nodes over their threshold
 * yellow; on a terminal unless NO_COLOR or --color=never, and with
 * --color=always anywhere. */
static void test_color(void)
{
    static char out[1 << 17];
    char report[512], args[600];
    snprintf(report, sizeof report, "%s/benchmarks/results/h100_td_bench.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    CHECK(td_choose_color(NULL, 1, NULL) == 1);
    CHECK(td_choose_color(NULL, 1, "") == 1);
    CHECK(td_choose_color(NULL, 1, "1") == 0);
    CHECK(td_choose_color("always", 0, "1") == 1);
    CHECK(td_choose_color("never", 1, NULL) == 0);
    CHECK(td_choose_color(NULL, 0, NULL) == 0);
    snprintf(args, sizeof args, "report %s --color=always --app-only", report);
    run(args);
    CHECK(strstr(r.out, "  \033[1;31mFE    Frontend      ") != NULL);
    CHECK(strstr(r.out, "% Slots   41.3  <==\033[0m\n") != NULL);
    CHECK(strstr(r.out, "  \033[33mBE    Backend    ") != NULL);
    CHECK(strstr(r.out, "\033[33mDIV") == NULL); /* 9.3, under its 10% */
    CHECK(strstr(r.out, "\033[33mRET") == NULL); /* no loss */
    snprintf(args, sizeof args, "report %s", report);
    run(args); /* a pipe */
    CHECK(strchr(r.out, '\033') == NULL && strchr(r.out, '\001') == NULL);
    snprintf(args, sizeof args, "report %s --color=sometimes", report);
    run(args);
    CHECK(r.status == 2 && strstr(r.err, "auto, always or never") != NULL);
    const char *plain[] = {"report", report, "--quiet", NULL};
    const char *never[] = {"report", report, "--quiet", "--color=never", NULL};
    const char *no_color[] = {"NO_COLOR=1", NULL};
    CHECK(td_pty_run(100, NULL, plain, out, sizeof out) == 0);
    CHECK(strstr(out, "\033[1;31m") != NULL);
    CHECK(td_pty_run(100, no_color, plain, out, sizeof out) == 0);
    CHECK(strchr(out, '\033') == NULL);
    CHECK(td_pty_run(100, NULL, never, out, sizeof out) == 0);
    CHECK(strchr(out, '\033') == NULL);
}

int main(void)
{
    if (!td_test_tmpdir(dir, sizeof dir))
        return 1;
    test_choose_width();
    test_hanging();
    test_piped();
    test_terminal();
    test_header();
    test_color();
    td_test_cleanup(dir);
    return td_check_summary();
}
