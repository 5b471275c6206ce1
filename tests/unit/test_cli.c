/* The command line, run as a user would: bad input gives one line on
 * stderr naming the problem and a non-zero exit; good input prints a tree
 * whose level-1 values sum to 100%. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];

typedef td_run_output run_output;

static void run(const char *args, run_output *r)
{
    td_test_run_topdown(dir, args, r);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void expect_error(const char *args, const char *needle)
{
    run_output r;
    run(args, &r);
    int ok = r.status != 0 && r.status != 255 && strstr(r.err, needle) && count_lines(r.err) == 1;
    if (!ok)
        fprintf(stderr, "topdown %s: exit %d, stderr: %s(expected one line with \"%s\")\n",
                args, r.status, r.err, needle);
    CHECK(ok);
}

static const char result_json[] =
    "{\"schema\": \"topdown-result/1\", \"app\": {\"argv\": [\"./app\"], \"exit_code\": 0},"
    " \"devices\": [{\"arch\": \"testarch\", \"name\": \"Test GPU\","
    "  \"metrics\": [\"smsp__inst_executed.sum\", \"smsp__inst_issued.sum\","
    "   \"smsp__thread_inst_executed.sum\", \"sm__cycles_active.sum\", \"gpu__time_duration.sum\","
    "   \"s.no_instruction\", \"s.long_scoreboard\", \"s.lg_throttle\", \"s.wait\"],"
    "  \"launches\": [{\"kernel\": \"k(int)\", \"duration_ns\": 5000, \"counters\": {"
    "   \"smsp__inst_executed.sum\": 2000, \"smsp__inst_issued.sum\": 2200,"
    "   \"smsp__thread_inst_executed.sum\": 48000, \"sm__cycles_active.sum\": 1000,"
    "   \"gpu__time_duration.sum\": 5000, \"s.no_instruction\": 100, \"s.long_scoreboard\": 240,"
    "   \"s.lg_throttle\": 60, \"s.wait\": 100}}]}]}";

static void test_report(void)
{
    run_output r;
    run("report good.json -l 3 --no-desc", &r);
    CHECK(r.status == 0);
    /* Level 1 of the application tree: 37.5 + 17.5 + 9.0 + 36.0 = 100. */
    CHECK(strstr(r.out, "Retire") && strstr(r.out, " 37.5"));
    CHECK(strstr(r.out, "Divergence ") && strstr(r.out, " 17.5"));
    CHECK(strstr(r.out, "Backend.Memory_Bound.L1_Bound") != NULL);
    const char *marker = strstr(r.out, "<==");
    CHECK(marker != NULL);
    if (marker) {
        const char *line = marker;
        while (line > r.out && line[-1] != '\n')
            line--;
        CHECK(strstr(line, "Backend.Memory_Bound.L1_Bound") != NULL &&
              strstr(line, "Backend.Memory_Bound.L1_Bound") < marker);
    }
    /* Frontend (9%) is under its 20% threshold: shown at level 1 only;
     * its children are hidden without -v, shown and marked with it. */
    CHECK(strstr(r.out, "Frontend.Fetch") == NULL);
    run("report good.json -l 3 -v --no-desc", &r);
    CHECK(r.status == 0 && strstr(r.out, "Frontend.Fetch ") != NULL);
    CHECK(strstr(r.out, " <\n") != NULL);
    run("report good.json -l 4", &r);
    CHECK(r.status == 0 && strstr(r.out, "L1_Bound.long_scoreboard") != NULL);
    CHECK(strstr(r.out, "Stall reason long_scoreboard") != NULL); /* descriptions */
}

static void test_errors(void)
{
    expect_error("report good.json -l 7", "-l/--level");
    expect_error("report good.json -l x", "-l/--level");
    expect_error("report missing.json", "missing.json");
    expect_error("report truncated.json", "truncated");
    expect_error("report negative.json", "negative");
    expect_error("report good.json --arch nosuch", "nosuch");
    expect_error("report", "result file");
    expect_error("report good.json --bogus", "--bogus");
    expect_error("report good.json good.json", "one too many");
    expect_error("report good.json -o out.json", "profiling");
    expect_error("describe Nonsense", "Nonsense");
    run_output r;
    run("describe L1_Bound", &r);
    CHECK(r.status == 0 && strstr(r.out, "long_scoreboard") != NULL);
    run("list-archs", &r);
    CHECK(r.status == 0 && strstr(r.out, "testarch") != NULL);
    run("list-nodes", &r);
    CHECK(r.status == 0 && strstr(r.out, "Backend.Core_Bound.Tensor") != NULL);
}

/* Whether every byte of s is printable text or a line break. */
static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 && *s != '\n')
            return 0;
    return 1;
}

/* Issue 15, item 5: one parser (getopt_long) for every command. */
static void test_one_parser(void)
{
    run_output r;
    run("report good.json -vl 3 --no-desc", &r); /* bundled short options */
    CHECK(r.status == 0 && strstr(r.out, "Frontend.Fetch ") != NULL);
    run("report good.json --lev 3 --no-d", &r); /* abbreviated long options */
    CHECK(r.status == 0 && strstr(r.out, "Backend.Memory_Bound.L1_Bound") != NULL);
    run("report -l 3 --no-desc good.json", &r); /* options before the file */
    CHECK(r.status == 0 && strstr(r.out, "Backend.Memory_Bound.L1_Bound") != NULL);
    expect_error("--csv-launches", "option --csv-launches needs a value");
    run("--csv-launches", &r);
    CHECK(printable(r.err) && r.status == 2);
    expect_error("report good.json --c x", "--c is unknown (or an ambiguous abbreviation)");
    expect_error("import-nvprof good.json --arch=nosuch -o o.json", "--arch nosuch: no such arch table");
    expect_error("import-nvprof m.csv --times=t.csv -o o.json", "--arch NAME");
    expect_error("describe L1_Bound -f", "option -f/--force does not apply to `topdown describe`");
    expect_error("list-archs extra", "one too many");
    run("describe --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "usage: topdown describe NODE") &&
          strstr(r.out, "examples:") && strstr(r.out, "exit codes:"));
    run("report --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "usage: topdown report FILE") &&
          strstr(r.out, "--timeline KERNEL") && !strstr(r.out, "--replay-mode") &&
          strstr(r.out, "topdown report run.json -l 3 -k '#4'") &&
          strstr(r.out, "2  bad command line") && !strstr(r.out, "3  nothing measured") &&
          strstr(r.out, "TOPDOWN_ARCHS")); /* exit 3 is profiling's (issue 41) */
    run("import-nvprof --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "--times FILE") && strstr(r.out, "--arch NAME"));
    run("diff --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "--fail-if RULES"));
    run("--help", &r);
    CHECK(r.status == 0 && strstr(r.out, "exit codes:") && strstr(r.out, "TOPDOWN_KEEP_SPOOL"));
}

/* Issue 15, item 6: usage errors exit 2, other failures 1. */
static void test_exit_codes(void)
{
    run_output r;
    const char *usage_errors[] = {"report good.json -l 7", "report good.json --bogus", "report",
                                  "report good.json good.json", "describe Nonsense", "-x",
                                  "report good.json -o out.json", "--kernels x -- true"};
    for (size_t i = 0; i < sizeof usage_errors / sizeof *usage_errors; i++) {
        run(usage_errors[i], &r);
        if (r.status != 2)
            fprintf(stderr, "topdown %s: exit %d, not 2\n", usage_errors[i], r.status);
        CHECK(r.status == 2);
    }
    run("report missing.json", &r);
    CHECK(r.status == 2); /* issue 27: a missing file is a bad command line */
    run("report truncated.json", &r);
    CHECK(r.status == 1);
    run("", &r);
    CHECK(r.status == 2 && strstr(r.err, "usage: topdown"));
}

/* Issue 27, item 4: each command takes exactly the options it honours;
 * any other is exit 2 naming the option and the command, and its help
 * lists only its own. */
static void test_options_honoured(void)
{
    static const char *const refused[][2] = {
        {"plot good.json --kernels 3", "--kernels does not apply to `topdown plot`"},
        {"plot good.json --app-only", "--app-only does not apply to `topdown plot`"},
        {"plot good.json -v", "-v/--verbose does not apply to `topdown plot`"},
        {"plot good.json --desc", "--desc does not apply to `topdown plot`"},
        {"diff good.json good.json --app-only", "--app-only does not apply to `topdown diff`"},
        {"diff good.json good.json --desc", "--desc does not apply to `topdown diff`"},
        {"diff good.json good.json --phase-threshold 3",
         "--phase-threshold does not apply to `topdown diff`"},
        {"diff good.json good.json --spread-threshold 3",
         "--spread-threshold does not apply to `topdown diff`"},
        {"list-nodes --csv x.csv", "--csv does not apply to `topdown list-nodes`"},
        {"list-nodes --timeline x", "--timeline does not apply to `topdown list-nodes`"},
        {"list-nodes -l 2 extra", "list-nodes takes 0 files"},
        {"report good.json -V", "-V/--version does not apply to `topdown report`"},
        {"--top 3 -- true", "--top does not apply to `topdown` (it is for plot)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        run_output r;
        run(refused[i][0], &r);
        if (r.status != 2 || !strstr(r.err, refused[i][1]))
            fprintf(stderr, "topdown %s: exit %d, %s(expected exit 2 and \"%s\")\n",
                    refused[i][0], r.status, r.err, refused[i][1]);
        CHECK(r.status == 2 && strstr(r.err, refused[i][1]) && count_lines(r.err) == 1);
    }
    run_output r;
    run("plot --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "--top K") && !strstr(r.out, "--kernels") &&
          !strstr(r.out, "--verbose") && !strstr(r.out, "--app-only") &&
          strstr(r.out, "-o, --output FILE    the plot") && !strstr(r.out, "result file (default"));
    run("diff --help", &r);
    CHECK(r.status == 0 && !strstr(r.out, "--desc") && !strstr(r.out, "--spread-threshold") &&
          !strstr(r.out, "--phase-threshold"));
    run("trace --help", &r);
    CHECK(r.status == 0 && !strstr(r.out, "result file (default"));
    run("list-nodes --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "--level") && !strstr(r.out, "--csv"));
    run("report --help", &r);
    CHECK(r.status == 0 && !strstr(r.out, "--version"));
}

/* Issue 27, item 11: a mistyped command, a command after options, and
 * `topdown help COMMAND`. */
static void test_command_words(void)
{
    expect_error("reprot good.json", "did you mean `topdown report`?");
    expect_error("-l 2 report good.json", "`report` is a command and comes first");
    expect_error("plto good.json", "did you mean `topdown plot`?");
    expect_error("./no-such-app", "app not found");
    run_output r, h;
    run("help report", &r);
    run("report --help", &h);
    CHECK(r.status == 0 && strstr(r.out, "usage: topdown report FILE") && strcmp(r.out, h.out) == 0);
    run("help", &r);
    CHECK(r.status == 0 && strstr(r.out, "usage: topdown [options]"));
    expect_error("help reprot", "did you mean report?");
    /* every command of the table: its help, made from its own options */
    static const char *const commands[] = {"report", "list-archs", "list-nodes", "describe",
                                           "import-nvprof", "plot", "diff", "import-spool",
                                           "merge", "imbalance", "trace", "source"};
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        char args[64], usage[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        snprintf(usage, sizeof usage, "usage: topdown %s", commands[i]);
        run(args, &r);
        CHECK(r.status == 0 && strncmp(r.out, usage, strlen(usage)) == 0 &&
              strstr(r.out, "  -h, --help ") && strstr(r.out, "exit codes:"));
        run("--help", &h);
        snprintf(usage, sizeof usage, "       topdown %s ", commands[i]);
        CHECK(strstr(h.out, usage) != NULL); /* listed in topdown --help */
    }
}

int main(void)
{
    if (td_test_start_cli(dir, sizeof dir) != 0)
        return 1;
    char path[256];
    td_test_write(dir, "good.json", result_json, path, sizeof path);
    char truncated[sizeof result_json];
    memcpy(truncated, result_json, 120);
    truncated[120] = '\0';
    td_test_write(dir, "truncated.json", truncated, path, sizeof path);
    char *negative = strdup(result_json);
    memcpy(strstr(negative, ": 2200"), ":-2200", 6);
    td_test_write(dir, "negative.json", negative, path, sizeof path);
    free(negative);
    test_report();
    test_errors();
    test_one_parser();
    test_exit_codes();
    test_options_honoured();
    test_command_words();
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
