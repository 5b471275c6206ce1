/* The command line, run as a user would: bad input gives one line on
 * stderr naming the problem and a non-zero exit; good input prints a tree
 * whose level-1 values sum to 100%. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];

typedef struct run_output {
    int status;
    char out[65536];
    char err[4096];
} run_output;

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Runs topdown with args (a shell-quoted string of fixed test words). */
static void run(const char *args, run_output *r)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s/out' 2>'%s/err'", getenv("TOPDOWN_BIN"),
             args, dir, dir);
    int status = system(cmd);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
    char path[256];
    snprintf(path, sizeof path, "%s/out", dir);
    slurp(path, r->out, sizeof r->out);
    snprintf(path, sizeof path, "%s/err", dir);
    slurp(path, r->err, sizeof r->err);
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

int main(void)
{
    if (!getenv("TOPDOWN_BIN")) {
        fprintf(stderr, "TOPDOWN_BIN is not set\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    char path[256], archs[128];
    snprintf(archs, sizeof archs, "%s/archs", dir);
    mkdir(archs, 0700);
    td_test_write(archs, "testarch.json", td_test_arch_json, path, sizeof path);
    setenv("TOPDOWN_ARCHS", archs, 1);
    if (chdir(dir) != 0)
        return 1;
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
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
